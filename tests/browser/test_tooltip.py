"""The hover tooltip picture (:mod:`rlmon.views.tooltip`) in headless Chromium: one real hover over a chart
served by ``streamlit run``, the picture's rows sorted by value, in the runs' colours."""

from __future__ import annotations

import re
import textwrap
import urllib.parse
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers.paths import ARTIFACTS, REPO_ROOT
from tests.helpers.server import serve

SVG = "{http://www.w3.org/2000/svg}"

APP = """
import polars as pl
import streamlit as st

from rlmon.views.charts import ChartOptions, metric_chart_spec
from rlmon.analysis.smoothing import Smoothing

n = 40
series = {"e1": 50.0, "e2": 80.0, "e3": 20.0, "e4": 65.0}
long = pl.DataFrame(
    {
        "experiment": [e for e in series for _ in range(n)],
        "step": [s for _ in series for s in range(1, n + 1)],
        "hours": [s * 0.25 for _ in series for s in range(1, n + 1)],
        "metric": "pass_rate",
        "value": [v + (s % 3) for v in series.values() for s in range(1, n + 1)],
    }
)
spec = metric_chart_spec(
    long,
    ChartOptions(
        title="pass rate",
        y_title="%",
        colors=COLORS,
        labels=LABELS,
        smoothing=Smoothing("ema", weight=0.6),
        arrow=True,
    ),
)
st.vega_lite_chart(spec=spec, width="stretch")
"""
COLORS = {"e1": "#4c78a8", "e2": "#f58518", "e3": "#54a24b", "e4": "#e45756"}
LABELS = {"e1": "E1 · GRPO", "e2": "E2 · <b>DAPO</b> & 'co'", "e3": "E3 · 中文标签", "e4": "E4 · RLOO 100%"}


@pytest.fixture(scope="module")
def app_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("tooltip")
    script = folder / "app.py"
    script.write_text(f"COLORS = {COLORS!r}\nLABELS = {LABELS!r}\n" + textwrap.dedent(APP))
    with serve(folder, {"PYTHONPATH": str(REPO_ROOT)}, "server-tooltip.log", script=script) as url:
        yield url


def row_labels_and_fills(root: ET.Element) -> list[tuple[str, str]]:
    """(label, swatch fill) of the picture's rows, top to bottom, resolving each ``<use href="#e<i>">``."""
    defs = {}
    for group in root.iter(f"{SVG}g"):
        rect, text = group.find(f"{SVG}rect"), group.find(f"{SVG}text")
        assert rect is not None and text is not None
        defs[group.get("id")] = (text.text or "", rect.get("fill", ""))
    uses = sorted(root.iter(f"{SVG}use"), key=lambda use: float(use.get("y", "0")))
    return [defs[(use.get("href") or "").removeprefix("#")] for use in uses]


@pytest.mark.browser
def test_hover_shows_sorted_coloured_rows(browser: Any, app_url: str) -> None:
    page = browser.new_page(viewport={"width": 1000, "height": 700}, locale="en-US")
    try:
        errors: list[str] = []
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        page.goto(app_url)
        chart = page.locator('[data-testid="stVegaLiteChart"] canvas, [data-testid="stVegaLiteChart"] svg').first
        chart.wait_for(timeout=60_000)
        page.wait_for_timeout(1000)
        box = chart.bounding_box()
        assert box is not None
        # step 20 of 40 sits near the middle of the plot; move there in small steps (pointerover + move)
        x, y = box["x"] + box["width"] * 0.5, box["y"] + box["height"] * 0.4
        page.mouse.move(x - 40, y)
        page.mouse.move(x, y, steps=8)
        tip = page.locator("#vg-tooltip-element")
        tip.locator("img").wait_for(state="visible", timeout=10_000)
        page.wait_for_timeout(300)
        assert tip.is_visible()
        heading = tip.locator("h2").inner_text()
        match = re.fullmatch(r"step (\d+) · ([\d.]+) h", heading)
        assert match, heading
        step = int(match.group(1))
        src = tip.locator("img").get_attribute("src") or ""
        assert src.startswith("data:image/svg+xml,")
        size = tip.locator("img").evaluate("img => [img.complete, img.naturalWidth, img.naturalHeight]")
        assert size[0] and size[1] > 0 and size[2] > 0, size
        ARTIFACTS.mkdir(exist_ok=True)
        tip_box = tip.bounding_box()
        assert tip_box is not None
        page.screenshot(path=str(ARTIFACTS / "tooltip.png"), clip={
            "x": max(tip_box["x"] - 40, 0), "y": max(tip_box["y"] - 40, 0),
            "width": tip_box["width"] + 80, "height": tip_box["height"] + 80,
        })  # fmt: skip
        page.screenshot(path=str(ARTIFACTS / "tooltip-page.png"))
    finally:
        page.close()  # and its context
    root = ET.fromstring(urllib.parse.unquote(src.removeprefix("data:image/svg+xml,")))
    expected = sorted(LABELS, key=lambda e: {"e1": 50.0, "e2": 80.0, "e3": 20.0, "e4": 65.0}[e], reverse=True)
    assert row_labels_and_fills(root) == [(LABELS[e], COLORS[e]) for e in expected]
    values = [text.text for text in root.iter(f"{SVG}text") if text.get("text-anchor") == "end"]
    # a "(raw)" title, then per row the smoothed and the raw value, 1 decimal and a percent sign
    assert values[0] == "(raw)"
    assert all(re.fullmatch(r"\d+\.\d%", value or "") for value in values[1:]), values
    assert len(values) == 1 + 2 * len(LABELS)
    raw_of_top = float((values[2] or "").rstrip("%"))
    assert raw_of_top == 80.0 + step % 3
    assert not [error for error in errors if "tooltip" in error.lower() or "expression" in error.lower()]
