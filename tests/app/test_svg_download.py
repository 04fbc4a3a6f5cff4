"""Saving an app chart as SVG (rlmon.app.charts.svg_download): the deferred callable the grid's download button is given
returns a whole SVG image of the chart the app draws (Arrow datasets and all), named from the chart's title.
The button itself is clicked in the browser, tests/browser/test_svg_download.py."""

from __future__ import annotations

import copy
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from rlmon.analysis.smoothing import Smoothing
from rlmon.app import charts
from rlmon.logs.cache import LogCache
from rlmon.settings import Settings
from rlmon.views import overview, report
from tests.helpers.paths import APP

SVG = "{http://www.w3.org/2000/svg}"


def _texts(svg: str) -> str:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    return " ".join("".join(node.itertext()) for node in root.iter(f"{SVG}text"))


@pytest.mark.parametrize(("lang", "title", "file_name"), [("en", "pass rate (%)", "pass_rate.svg"),
                                                          ("zh", "通过率（%）", "pass_rate.svg")])  # fmt: skip
def test_the_callable_returns_the_chart_as_svg(demo_root: Path, lang: str, title: str, file_name: str) -> None:
    views = report.read_selection([demo_root], settings=Settings(), cache=LogCache(None)).views
    plan = overview.comparison_charts(
        ["pass_rate"], views, smoothing=Smoothing(), x="step", log_scale=False, signals=(), highlight=(),
        lang=lang, max_points=2_000,
    )[0]  # fmt: skip
    spec = charts.build_spec(plan.build)  # as the app sends it: datasets as Arrow bytes
    assert any(isinstance(data, bytes) for data in spec["datasets"].values())
    before = copy.deepcopy(spec)
    name, contents = charts.svg_download(spec, name=plan.name)
    assert name == file_name
    svg = contents().decode("utf-8")
    texts = _texts(svg)
    assert spec["title"] == title and title in texts
    assert views[0].label in texts  # the image carries its own colour legend
    assert spec == before  # the app's shared spec is left as it was


def test_file_names_keep_only_safe_characters() -> None:
    assert report.chart_file_name("../../etc/passwd", fallback="x", suffix="svg") == "etc_passwd.svg"
    assert report.chart_file_name("<script>", fallback="x", suffix="svg") == "script.svg"
    assert report.chart_file_name("验证分数", fallback="val/score:a b", suffix="svg") == "val_score_a_b.svg"
    assert report.chart_file_name("验证", fallback="验证", suffix="svg") == "chart.svg"


@pytest.mark.parametrize("draw_all", [True, False])
def test_every_drawn_grid_chart_has_its_button(app_env: Path, monkeypatch: pytest.MonkeyPatch, draw_all: bool) -> None:
    """One SVG button per chart drawn (none for a placeholder), keyed by grid and place; a click reruns nothing."""
    monkeypatch.setenv("RLMON_DRAW_ALL_CHARTS", "1" if draw_all else "0")
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["live"] = "0"
    at.run()
    assert not at.exception
    charts = at.get("vega_lite_chart")
    buttons = [button for button in at.get("download_button") if str(button.proto.id).find("rlmon_svg_") >= 0]
    assert len(buttons) == len(charts) == (6 if draw_all else 4)
    assert [button.key for button in buttons][:2] == ["rlmon_svg_overview_grid-e0", "rlmon_svg_overview_grid-e1"]
    assert all(button.proto.ignore_rerun and button.proto.label == "SVG" for button in buttons)
