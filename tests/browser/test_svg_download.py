"""Saving a chart as SVG in a real browser: every drawn grid chart carries an SVG button in its top right corner
(charts drawn later, as they come near the view, too), the grid keeps its columns, and a click downloads an
``.svg`` file of that chart, drawn only then (tests/app/test_svg_download.py checks the image itself).

Screenshots at 1440x900 and 390x844, English and Chinese, go to ``test-artifacts/svg-*.png``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rlmon.demo import write_demo_root
from tests.helpers.browser_geometry import charts_per_row, measure_charts
from tests.helpers.browser_pages import PENDING, full_page_screenshot, screenshot, scroll_through
from tests.helpers.server import serve

pytestmark = pytest.mark.browser

LAPTOP = {"width": 1440, "height": 900}
PHONE = {"width": 390, "height": 844}
CHART = '[data-testid="stMain"] [data-testid="stVegaLiteChart"]'
BUTTON = '[data-testid="stMain"] [class*="st-key-rlmon_svg_"] button:visible'
"""The SVG buttons (Streamlit draws a second, hidden copy of a button with a help text)."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app on a written demo root (nothing advances), charts drawn lazily as in production."""
    folder = tmp_path_factory.mktemp("browser-svg")
    root = write_demo_root(folder / "logs" / "demo")
    env = {"RLMON_LOG_ROOT": str(root), "RLMON_CACHE_DIR": str(folder / "cache"), "RLMON_CHART_RENDERER": "svg"}
    with serve(folder, env, "server-svg.log") as url:
        yield url


def open_page(browser: Any, url: str, viewport: dict[str, int]) -> Any:
    context = browser.new_context(viewport=viewport, locale="en-US", accept_downloads=True)
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector(CHART, timeout=60_000)
    page.wait_for_selector(BUTTON, timeout=60_000)
    page.wait_for_timeout(1500)
    return page


def buttons_sit_in_their_charts(page: Any) -> None:
    """One SVG button per drawn chart, inside the chart's top right corner."""
    boxes = page.evaluate(
        """() => [...document.querySelectorAll('[data-testid="stMain"] [class*="st-key-rlmon_cell_"]')].map((cell) => {
          const chart = cell.querySelector('[data-testid="stVegaLiteChart"]');
          const button = [...cell.querySelectorAll('[class*="st-key-rlmon_svg_"] button')]
            .find((element) => element.getBoundingClientRect().width > 0);
          const box = (element) => element && element.getBoundingClientRect().toJSON();
          return { chart: box(chart), button: box(button) };
        })"""
    )
    assert boxes, "no chart cell"
    for index, found in enumerate(boxes):
        chart, button = found["chart"], found["button"]
        assert chart and button, (index, found)
        assert chart["left"] + chart["width"] / 2 < button["left"] and button["right"] <= chart["right"] + 1, found
        assert chart["top"] - 1 <= button["top"] and button["bottom"] <= chart["top"] + 60, found


def test_a_click_downloads_the_chart_as_svg(browser: Any, server: str, tmp_path: Path) -> None:
    page = open_page(browser, server, LAPTOP)
    try:
        buttons_sit_in_their_charts(page)
        assert page.locator(PENDING).count() > 0  # the lower charts are still placeholders
        page.locator(CHART).first.scroll_into_view_if_needed()
        page.wait_for_timeout(800)
        screenshot(page, "svg-overview-1440-en")
        with page.expect_download(timeout=60_000) as info:
            page.locator(BUTTON).first.click()
        download = info.value
        assert download.suggested_filename == "pass_rate.svg"
        path = tmp_path / download.suggested_filename
        download.save_as(path)
        root = ET.fromstring(path.read_text(encoding="utf-8"))
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
        assert "pass rate (%)" in " ".join("".join(node.itertext()) for node in root.iter())
        assert not page.locator('[data-testid="stException"]').count()
        # Charts drawn later (near the view) get their buttons too; the grid keeps two charts a row.
        scroll_through(page)
        assert page.locator(PENDING).count() == 0
        assert page.locator(BUTTON).count() == page.locator(CHART).count() >= 6
        buttons_sit_in_their_charts(page)
        rows = charts_per_row(measure_charts(page, selector=CHART))
        assert rows[:3] == [2, 2, 2], rows
        page.locator(CHART).first.hover()  # Streamlit's own toolbar (PNG) beside the SVG button
        page.wait_for_timeout(500)
        screenshot(page, "svg-overview-1440-en-hover")
        full_page_screenshot(page, "svg-overview-1440-en-full", LAPTOP)
    finally:
        page.context.close()


@pytest.mark.parametrize(("lang", "viewport"), [("zh", LAPTOP), ("en", PHONE), ("zh", PHONE)])
def test_the_button_in_each_language_and_width(browser: Any, server: str, lang: str, viewport: dict[str, int]) -> None:
    page = open_page(browser, f"{server}/?lang={lang}", viewport)
    try:
        buttons_sit_in_their_charts(page)
        help_text = "Save this chart as an SVG image" if lang == "en" else "将此图表保存为 SVG 图片"
        page.locator(CHART).first.scroll_into_view_if_needed()
        if viewport == LAPTOP:  # a phone shows no hover help
            page.locator(BUTTON).first.hover()
            page.wait_for_timeout(800)
            assert page.get_by_text(help_text).count() >= 1
        screenshot(page, f"svg-overview-{viewport['width']}-{lang}")
        if viewport == PHONE:
            assert set(charts_per_row(measure_charts(page, selector=CHART))) == {1}
            with page.expect_download(timeout=60_000) as info:
                page.locator(BUTTON).first.click()
            assert info.value.suggested_filename.endswith(".svg")
    finally:
        page.context.close()


def test_every_chart_of_an_experiment_page_has_its_button(browser: Any, server: str) -> None:
    """The experiment page's grids (curves, validation, the explorer's narrower small multiples)."""
    page = open_page(browser, f"{server}/4b-e5-reinforce-pp-4b", LAPTOP)
    try:
        scroll_through(page)
        page.wait_for_timeout(1000)
        assert page.locator(PENDING).count() == 0
        assert page.locator(BUTTON).count() == page.locator(CHART).count() >= 12
        buttons_sit_in_their_charts(page)
        assert not page.locator('[data-testid="stException"]').count()
        full_page_screenshot(page, "svg-experiment-1440-en-full", LAPTOP)
    finally:
        page.context.close()
