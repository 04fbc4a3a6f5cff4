"""Chart specs inside Streamlit, through AppTest (``AppTest.from_function``): charts of more rows than Altair's
limit render, and the specs the app draws ship their Arrow datasets as they are."""

from __future__ import annotations

import json

import polars as pl


def test_charts_render_in_streamlit_beyond_the_row_limit() -> None:
    from streamlit.testing.v1 import AppTest

    def app() -> None:
        import polars as pl
        import streamlit as st

        from rlmon.analysis.smoothing import Smoothing
        from rlmon.views.charts import ChartOptions, bar_chart, metric_chart, metric_chart_spec

        n = 4_000
        long = pl.DataFrame(
            {
                "experiment": ["a"] * n + ["b"] * n,
                "step": list(range(1, n + 1)) * 2,
                "hours": [i / 10 for i in range(2 * n)],
                "metric": "m",
                "value": [float(i % 17) for i in range(2 * n)],
            }
        )
        chart = metric_chart(
            long,
            ChartOptions(
                title="t",
                y_title="y",
                colors={"a": "#ff0000"},
                labels={"a": "A"},
                smoothing=Smoothing("ema"),
                reference=16.0,
                max_points=3_000,
                plot_width=3_000,  # a plot as wide as the points: none thinned away by pixel columns
            ),
        )
        st.altair_chart(chart, key="test_metric")
        hours = pl.DataFrame({"experiment": ["a", "b"], "value": [1.0, 2.0]})
        st.altair_chart(bar_chart(hours, ChartOptions(title="b", y_title="h", colors={}, labels={})), key="test_bars")
        # what the app draws: the spec with Arrow datasets, shipped as they are
        spec = metric_chart_spec(
            long,
            ChartOptions(title="s", y_title="y", colors={}, labels={}, max_points=3_000, plot_width=3_000, arrow=True),
        )
        st.session_state["arrow_names"] = sorted(spec["datasets"])
        st.vega_lite_chart(spec=spec, width="stretch")

    at = AppTest.from_function(app, default_timeout=60).run()
    assert not at.exception
    charts = at.get("vega_lite_chart")
    assert len(charts) == 3
    spec = json.loads(charts[0].proto.spec)
    assert [param["name"] for param in spec["params"]] == ["hover"]
    shipped = charts[2].proto
    assert sorted(named.name for named in shipped.datasets) == at.session_state["arrow_names"]
    main_name = json.loads(shipped.spec)["data"]["name"]
    (main,) = [named.data.data for named in shipped.datasets if named.name == main_name]
    main_frame = pl.read_ipc_stream(main)
    per_run = main_frame.group_by("experiment").agg(pl.len(), pl.col("step").max()).sort("experiment")
    assert per_run["experiment"].to_list() == ["a", "b"]
    assert all(2_000 < count <= 3_000 for count in per_run["len"])  # beyond Altair's 5,000 rows in all
    assert per_run["step"].to_list() == [4_000, 4_000]
