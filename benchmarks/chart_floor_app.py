"""The page benchmarks/bench_chart_floor.py measures: ``streamlit run benchmarks/chart_floor_app.py``, one page by
its query string.

- ``?page=empty``: one line of text (what Streamlit's own page costs the browser);
- ``?page=tiny``: 4 Vega-Lite line charts of 50 points, one layer each, on a canvas;
- ``?page=rlmon&runs=N&layers=L``: 4 of the overview's comparison charts of ``N`` runs x 2,000 steps, built by
  :func:`rlmon.views.charts.metric_chart_spec` as the overview builds them (EMA on, the overview's points a line,
  Arrow datasets), with every layer (``L=all``), without the two hover layers (``nohover``) or with the raw
  lines only (``raw``);
- ``?page=concat&runs=N``: the same 4 charts (every layer) as the 4 panels of one Vega-Lite chart element (two rows
  of two), each panel with datasets and parameters of its own, as 4 metrics would have.

Two charts a row, as the overview draws them at 1500 px. The specs are built once per server (cached), so the
measured time is the browser's and the wire's.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import streamlit as st

from benchmarks.bench_chart_bytes import long_frame
from rlmon.analysis.smoothing import Smoothing
from rlmon.views import overview
from rlmon.views.charts import ChartOptions, metric_chart_spec

CHARTS = 4


@st.cache_resource(show_spinner=False)
def rlmon_spec(runs: int) -> dict[str, Any]:
    options = ChartOptions(
        title="entropy", y_title="nats", smoothing=Smoothing("ema", weight=0.6),
        max_points=overview.line_points(2000, runs), arrow=True, height=overview.COMPARISON_HEIGHT,
    )  # fmt: skip
    return metric_chart_spec(long_frame(runs, 2000), options)


def with_layers(spec: dict[str, Any], layers: str) -> dict[str, Any]:
    """``spec`` with only some of its layers: ``nohover`` leaves out those drawing from the hover table (the dots
    at the pointer and the rule with the tooltip) and the pointer parameter; ``raw`` keeps the raw lines only."""
    spec = dict(spec)
    if layers == "nohover":
        spec["layer"] = [layer for layer in spec["layer"] if "hover" not in str(layer.get("data", {}).get("name"))]
        spec["params"] = []
    elif layers == "raw":
        spec["layer"] = spec["layer"][:1]
        spec["params"] = []
    return spec


def concat_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """4 copies of ``spec`` as the panels of one chart: each panel's datasets, parameters and named views renamed
    (``_0`` ... ``_3``), so that the browser decodes and draws 4 charts' data, as it would for 4 metrics."""
    names = [*spec["datasets"], *(param["name"] for param in spec.get("params", []))]
    names += [layer["name"] for layer in spec["layer"] if "name" in layer]
    body = json.dumps({key: value for key, value in spec.items() if key not in ("datasets", "config", "usermeta")})
    panels = []
    datasets: dict[str, Any] = {}
    for number in range(CHARTS):
        text = body
        for name in names:
            text = text.replace(f'"{name}"', f'"{name}_{number}"').replace(f"{name}.", f"{name}_{number}.")
        panel = json.loads(text)
        panel.pop("$schema", None)
        panel.pop("autosize", None)
        panel["width"] = 560
        panels.append(panel)
        datasets.update({f"{name}_{number}": data for name, data in spec["datasets"].items()})
    return {
        "$schema": spec["$schema"],
        "config": spec["config"],
        "datasets": datasets,
        "usermeta": spec["usermeta"],
        "vconcat": [{"hconcat": panels[:2]}, {"hconcat": panels[2:]}],
    }


def tiny_spec(number: int) -> dict[str, Any]:
    return {
        "data": {"values": [{"x": x, "y": (x * (number + 3)) % 7} for x in range(50)]},
        "encoding": {
            "x": {"field": "x", "type": "quantitative"},
            "y": {"field": "y", "type": "quantitative"},
        },
        "height": overview.COMPARISON_HEIGHT,
        "mark": "line",
        "usermeta": {"embedOptions": {"renderer": "canvas"}},
    }


def main() -> None:
    st.set_page_config(layout="wide")
    page = st.query_params.get("page", "empty")
    if page == "empty":
        st.write("rlmon chart floor")
        return
    if page == "concat":
        st.vega_lite_chart(spec=concat_spec(rlmon_spec(int(st.query_params.get("runs", "20")))))
        return
    columns = st.columns(2)
    for number in range(CHARTS):
        if page == "tiny":
            spec = tiny_spec(number)
        else:
            spec = with_layers(rlmon_spec(int(st.query_params.get("runs", "20"))), st.query_params.get("layers", "all"))
        with columns[number % 2]:
            st.vega_lite_chart(spec=copy.deepcopy(spec), width="stretch")


main()
