"""rlmon reports in headless Chromium with the network blocked: every chart drawn with a real plot area, no
request attempted, hover, legend highlight and the chart menu working; hostile text shown as text; the app's
"Download report (HTML)" button giving such a file. Screenshots go to test-artifacts/."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rlmon.cli import main
from rlmon.demo import write_demo_root
from rlmon.logs.cache import LogCache
from rlmon.settings import Settings
from rlmon.views import report
from tests.helpers.browser_geometry import ChartGeometry, charts_per_row, measure_charts, require_svg
from tests.helpers.browser_pages import on_settled
from tests.helpers.generated_roots import MARKUP, write_hostile_root
from tests.helpers.server import ARTIFACTS, serve

pytestmark = pytest.mark.browser

SIZES = {"wide": (1440, 900), "phone": (390, 844)}
EXPERIMENTS = 5
CHARTS = ".chart[data-chart]"
COMPARISON_MIN_PLOT = (300, 200)  # width, height of a comparison chart's plot area at 1440 px
MIN_PLOT_HEIGHT = 160  # any chart at any width (the detail charts are 190 tall)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_demo_root(tmp_path_factory.mktemp("report-browser") / "demo")


@pytest.fixture(scope="module")
def svg_reports(demo: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The demo's 4B track in either language, drawn as SVG (where the geometry can be measured)."""
    folder = tmp_path_factory.mktemp("reports")
    settings = Settings()
    selection = report.read_selection([demo], settings=settings, cache=LogCache(None))
    written = {}
    for lang in ("en", "zh"):
        numbers = {view.id: report.report_numbers(view) for view in selection.views}
        insights = report.report_insights(selection.views, settings, lang)
        options = report.ReportOptions(lang=lang, renderer="svg")
        text = report.render_report(selection.views, numbers=numbers, insights=insights, options=options)
        written[lang] = folder / f"report-{lang}.html"
        written[lang].write_text(text, encoding="utf-8")
    return written


class Offline:
    """A page that may load only the report file itself: every other request is aborted and recorded."""

    def __init__(self, browser: Any, path: Path, *, width: int, height: int) -> None:
        self.url = path.resolve().as_uri()
        self.context = browser.new_context(viewport={"width": width, "height": height}, accept_downloads=True)
        self.page = self.context.new_page()
        self.attempted: list[str] = []
        self.errors: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.route("**/*", self._only_the_file)
        self.page.goto(self.url)
        self.page.wait_for_function("document.body.dataset.drawn || document.body.dataset.drawError", timeout=90_000)

    def _only_the_file(self, route: Any) -> None:
        if route.request.url == self.url:
            route.continue_()
        else:
            self.attempted.append(route.request.url)
            route.abort()

    def check_drawn(self) -> int:
        """Every chart drawn, no error, nothing fetched; returns the number of charts."""
        state = self.page.evaluate("[document.body.dataset.drawn, document.body.dataset.drawError]")
        expected = self.page.locator(CHARTS).count()
        assert state == [str(expected), None], state
        assert not self.errors, self.errors
        assert not self.attempted, f"requests attempted: {self.attempted[:5]}"
        return expected

    def close(self) -> None:
        self.context.close()


def plot_problems(measured: list[ChartGeometry], comparison: int, width: int) -> list[str]:
    problems = []
    for index, chart in enumerate(measured):
        if not chart.plots:
            problems.append(f"at {width} px, {chart.name} has no plot area")
            continue
        if chart.plot_height < MIN_PLOT_HEIGHT:
            problems.append(f"at {width} px, {chart.describe()}; wanted >= {MIN_PLOT_HEIGHT} tall")
        if index < comparison and width >= 1440 and chart.is_line_chart:
            low_width, low_height = COMPARISON_MIN_PLOT
            if chart.plot_width < low_width or chart.plot_height < low_height:
                problems.append(f"at {width} px, {chart.describe()}; wanted >= {low_width}x{low_height}")
        if index < comparison and chart.is_line_chart and len(chart.line_colors) != EXPERIMENTS:
            problems.append(f"at {width} px, {chart.name} draws {len(chart.line_colors)} line colours")
        if chart.clipped:
            problems.append(f"at {width} px, {chart.name} clips {[item['text'] for item in chart.clipped]}")
        if chart.ellipsized_legend_labels:
            problems.append(f"at {width} px, {chart.name} cuts legend labels {chart.ellipsized_legend_labels}")
    return problems


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("size", list(SIZES))
def test_every_chart_is_drawn_offline_with_a_real_plot_area(
    browser: Any, svg_reports: dict[str, Path], lang: str, size: str
) -> None:
    width, height = SIZES[size]
    offline = Offline(browser, svg_reports[lang], width=width, height=height)
    try:
        count = offline.check_drawn()
        assert count > 20
        measured = measure_charts(offline.page, selector=CHARTS)
        assert len(measured) == count
        require_svg(measured)
        comparison = offline.page.locator(".grid.comparison " + CHARTS).count()
        assert comparison == 6  # the app's default comparison charts for the demo
        problems = plot_problems(measured, comparison, width)
        assert not problems, "\n".join(problems)
        rows = charts_per_row(measured[:comparison])
        assert max(rows) == (3 if width >= 1440 else 1), rows
        page_width = offline.page.evaluate("document.documentElement.scrollWidth")
        assert page_width <= width, f"the page is {page_width} px wide in a {width} px window"
        ARTIFACTS.mkdir(exist_ok=True)
        offline.page.screenshot(path=str(ARTIFACTS / f"report-{lang}-{width}.png"))
        offline.page.locator(".grid.comparison").scroll_into_view_if_needed()
        offline.page.screenshot(path=str(ARTIFACTS / f"report-{lang}-{width}-charts.png"))
    finally:
        offline.close()


DIMMED = (
    "(element) => [...element.querySelectorAll('g.mark-line path')]"
    ".filter((path) => Number(path.getAttribute('opacity') ?? 1) < 0.5).length"
)
"""How many lines of a chart are dimmed (drawn faint: another experiment is highlighted)."""


def dimmed(chart: Any) -> int:
    return int(chart.evaluate(DIMMED))


def test_hover_legend_highlight_and_the_chart_menu(browser: Any, svg_reports: dict[str, Path]) -> None:
    offline = Offline(browser, svg_reports["en"], width=1440, height=900)
    page = offline.page
    try:
        offline.check_drawn()
        first = page.locator(".grid.comparison " + CHARTS).first
        first.scroll_into_view_if_needed()
        box = first.bounding_box()
        x, y = box["x"] + box["width"] * 0.6, box["y"] + box["height"] * 0.4
        page.mouse.move(x - 40, y)
        page.mouse.move(x, y, steps=8)  # pointerover, then moves: the hover rule follows
        tooltip = page.locator("#vg-tooltip-element")
        tooltip.locator("img").wait_for(state="visible", timeout=10_000)
        assert re.fullmatch(r"step \d+ · [\d.–]+ h", tooltip.locator("h2").inner_text())
        src = tooltip.locator("img").get_attribute("src") or ""
        assert src.startswith("data:image/svg+xml,"), "the app's tooltip picture"
        page.screenshot(path=str(ARTIFACTS / "report-en-1440-tooltip.png"))
        page.mouse.move(0, 0)
        assert dimmed(first) == 0
        page.locator(".chip").first.click()
        page.wait_for_function(f"(element) => ({DIMMED})(element) > 0", arg=first.element_handle(), timeout=10_000)
        assert page.locator(".chip").first.get_attribute("aria-pressed") == "true"
        page.screenshot(path=str(ARTIFACTS / "report-en-1440-highlight.png"))
        page.locator(".chip").first.click()
        page.wait_for_function(f"(element) => ({DIMMED})(element) === 0", arg=first.element_handle(), timeout=10_000)
        # The chart menu: PNG and SVG.
        first.locator("details summary").click()
        assert first.get_by_text("Save as PNG").is_visible()
        with page.expect_download() as download:
            first.get_by_text("Save as SVG").dispatch_event("mousedown")
            first.get_by_text("Save as SVG").click()
        path = download.value.path()
        assert Path(path).read_text(encoding="utf-8").lstrip().startswith("<svg")
        assert not offline.attempted
    finally:
        offline.close()


def test_hostile_text_is_shown_as_text_offline(browser: Any, tmp_path: Path) -> None:
    root = write_hostile_root(tmp_path / "logs")
    out = tmp_path / "out" / "hostile.html"
    out.parent.mkdir()
    args = ["report", str(root.root), "--out", str(out), "--cache-dir", str(tmp_path / "cache")]
    assert main([*args, "--exp", root.markup, "--exp", root.folder]) == 0
    offline = Offline(browser, out, width=1440, height=900)
    try:
        offline.check_drawn()
        body = offline.page.inner_text("body")
        assert MARKUP in body
        images = offline.page.evaluate("[...document.querySelectorAll('img')].map((img) => img.src)")
        assert images == []
        offline.page.screenshot(path=str(ARTIFACTS / "report-hostile-1440.png"))
    finally:
        offline.close()


@pytest.fixture(scope="module")
def app(demo: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("report-app")
    env = {"RLMON_LOG_ROOT": str(demo), "RLMON_CACHE_DIR": str(folder / "cache")}
    with serve(folder, env, "server-report.log") as url:
        yield url


# Each size and each language once (the report itself is checked at every size and language above).
@pytest.mark.parametrize(("size", "lang"), [("wide", "en"), ("phone", "zh")])
def test_the_app_downloads_a_report_that_opens_offline(
    browser: Any, app: str, tmp_path: Path, lang: str, size: str
) -> None:
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height}, accept_downloads=True)
    page = context.new_page()
    try:
        page.goto(f"{app}/?lang={lang}&smooth=ma&win=9")
        label = "Download report (HTML)" if lang == "en" else "下载报告（HTML）"
        button = page.get_by_role("button", name=label)
        button.wait_for(timeout=60_000)
        # the button is drawn anew while its part of the page reruns: act once the app is idle
        on_settled(button, "scroll_into_view_if_needed")
        page.screenshot(path=str(ARTIFACTS / f"app-report-button-{lang}-{width}.png"))
        with page.expect_download(timeout=60_000) as download:
            on_settled(button, "click")
        saved = tmp_path / "downloaded.html"
        download.value.save_as(saved)
    finally:
        context.close()
    assert download.value.suggested_filename == "rlmon-report.html"
    text = saved.read_text(encoding="utf-8")
    smoothing = "moving average (Window (steps): 9)" if lang == "en" else "移动平均（窗口（步）：9）"
    assert smoothing in text, "the page's smoothing"
    offline = Offline(browser, saved, width=width, height=height)
    try:
        assert offline.check_drawn() > 20
    finally:
        offline.close()


def test_the_apps_charts_offer_a_png(browser: Any, app: str) -> None:
    """In the app, Streamlit's own chart toolbar saves a chart as PNG (it keeps no vega-embed menu)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    context = browser.new_context(viewport={"width": 1440, "height": 900}, accept_downloads=True)
    page = context.new_page()
    try:
        page.goto(app)
        holder = page.locator('[data-testid="stElementContainer"]:has([data-testid="stVegaLiteChart"])').first
        chart = holder.locator('[data-testid="stVegaLiteChart"]')
        chart.wait_for(timeout=60_000)
        page.wait_for_timeout(1500)
        # The toolbar sits just above the chart; with the chart at the top of the page it
        # can slide under the sticky header or the pills above, so bring it mid-screen.
        chart.evaluate("element => element.scrollIntoView({block: 'center'})")
        button = holder.get_by_role("button", name="Download as PNG")
        for _ in range(5):
            chart.hover()
            try:
                button.wait_for(timeout=5_000)
                with page.expect_download(timeout=10_000) as download:
                    button.click(timeout=5_000)
                break
            except PlaywrightTimeout:
                page.wait_for_timeout(500)
        else:
            raise AssertionError("the chart toolbar's PNG button could not be clicked")
        assert download.value.suggested_filename.endswith(".png")
        page.screenshot(path=str(ARTIFACTS / "app-chart-toolbar-1440.png"))
    finally:
        context.close()
