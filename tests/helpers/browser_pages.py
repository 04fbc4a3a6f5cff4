"""What the browser tests check on a page of the running app: no exception, screenshots, every chart drawn (scrolling
through the placeholders), and the readable-chart measures of the overview and experiment pages."""

from __future__ import annotations

import itertools
import json
import time
import urllib.parse
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from tests.helpers.browser_geometry import ChartGeometry, charts_per_row, measure_charts, require_svg
from tests.helpers.paths import ARTIFACTS


def no_exceptions(page: Any) -> None:
    assert page.locator('[data-testid="stException"]').count() == 0
    assert "Traceback" not in page.content()


def screenshot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


# ------------------------------------------------------------------------------------------ what is drawn
#
# Charts a person can read, measured in the rendered SVG (tests/helpers/browser_geometry.py): the plot area of every
# chart, texts cut by a box, legend labels cut with "…", and the distinct line colours. Each test opens one
# page in a fresh browser context at 1440x900, measures, then narrows the same page to 390x844 and measures
# again, saving a full-page screenshot at each width.

WIDE = {"width": 1440, "height": 900}
NARROW = {"width": 390, "height": 844}
OVERVIEW_MIN_PLOT = (300, 200)  # width, height at 1440 px
NARROW_MIN_PLOT_HEIGHT = 160
DETAIL_MIN_PLOT_HEIGHT = 160
EXPLORER_MIN_PLOT_HEIGHT = 110
WIDE_CHARTS_PER_ROW = 2  # up to about 1600 px of width
DEMO_TRACKS = {
    "Qwen3.5-4B": ["4b/e1_grpo_4b", "4b/e2_dapo_4b", "4b/e3_drgrpo_4b", "4b/e4_rloo_4b", "4b/e5_reinforce_pp_4b"],
    "Qwen3.5-2B": ["2b/e1_grpo_2b", "2b/e2_dapo_2b", "2b/e3_drgrpo_2b", "2b/e4_rloo_2b"],
}
"""The demo's experiments when the server starts; a sixth 4B one starts when the running E5 ends (about 130 s
in), so tests that count them name them in the URL."""
# The explorer's family picker: the charts after it on an experiment page are the explorer's small multiples.
EXPLORER_ANCHOR = ".st-key-experiment_family"
# Charts a page draws at the least (today: 6 on the overview, 17-19 on an experiment page with its explorer).
OVERVIEW_MIN_CHARTS = 5
EXPERIMENT_PAGE_MIN_CHARTS = 12


PENDING = '[data-testid="stMain"] [class*="st-key-rlmon_pending_"]'
"""Placeholders of charts not drawn yet (rlmon draws the charts within a screen of the view)."""
SCROLL_DOWN = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  if (!main) return false;
  const before = main.scrollTop;
  main.scrollTop = before + main.clientHeight;
  return main.scrollTop > before;
}"""


def scroll_through(page: Any, *, timeout_s: float = 90) -> None:
    """Scroll the page (Streamlit scrolls inside ``stMain``) down a screen at a time, waiting at each screen until
    no placeholder is in view, then back to the top: every chart of the page is drawn."""
    deadline = time.monotonic() + timeout_s
    in_view = """(selector) => [...document.querySelectorAll(selector)].some((element) => {
      const box = element.getBoundingClientRect();
      return box.height > 0 && box.top < innerHeight && box.bottom > 0;
    })"""
    while True:
        while page.evaluate(in_view, PENDING) and time.monotonic() < deadline:
            page.wait_for_timeout(300)
        if not page.evaluate(SCROLL_DOWN) or time.monotonic() > deadline:
            break
        page.wait_for_timeout(300)
    while page.locator(PENDING).count() and time.monotonic() < deadline:
        page.wait_for_timeout(300)
    page.evaluate(
        "() => { const main = document.querySelector('[data-testid=\"stMain\"]'); if (main) main.scrollTop = 0; }"
    )


def wait_for_app(page: Any, *, charts: int = 1, timeout_s: float = 60) -> None:
    """Until the script finished (no running indicator) and at least ``charts`` charts are drawn, scrolling through
    the page when placeholders hold the rest (charts below the first screen are drawn near the view)."""
    page.wait_for_selector('[data-testid="stApp"]', timeout=timeout_s * 1000)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        drawn = page.locator('[data-testid="stVegaLiteChart"] canvas, [data-testid="stVegaLiteChart"] svg').count()
        if drawn >= charts:
            break
        if page.locator(PENDING).count() and not page.locator('[data-testid="stStatusWidget"]').count():
            scroll_through(page, timeout_s=max(1.0, deadline - time.monotonic()))
        page.wait_for_timeout(300)
    # then until the script's run is over (the status widget shows while it runs); a live page reruns every few
    # seconds, so a few seconds at most
    settled = min(deadline, time.monotonic() + 5)
    while page.locator('[data-testid="stStatusWidget"]').count() and time.monotonic() < settled:
        page.wait_for_timeout(200)
    page.wait_for_timeout(300)


def on_settled(locator: Any, action: str, *, timeout_s: float = 60) -> None:
    """Call ``locator.<action>()`` (``"click"``, ``"scroll_into_view_if_needed"``) once the app is idle (no script
    running) and the element is attached and visible, again if a rerun replaced the element in the meantime (the
    action then fails with the element detached): a widget is drawn anew while its part of the page reruns.
    Bounded by ``timeout_s``; the last failure is raised."""
    from playwright.sync_api import Error as PlaywrightError

    deadline = time.monotonic() + timeout_s
    page = locator.page
    while True:
        left_ms = max(1.0, deadline - time.monotonic()) * 1000
        try:
            page.locator('[data-testid="stStatusWidget"]').wait_for(state="detached", timeout=left_ms)
            locator.wait_for(state="visible", timeout=left_ms)
            getattr(locator, action)(timeout=min(left_ms, 5_000))
            return
        except PlaywrightError:
            if time.monotonic() >= deadline:
                raise
            page.wait_for_timeout(250)


def wait_for_charts(page: Any, *, at_least: int, timeout_s: float = 90) -> list[ChartGeometry]:
    """Until the script is done, every chart of the page is drawn (scrolled through: charts below the first
    screen are drawn as they come near the view), at least ``at_least`` of them, and all of them held still
    for two polls in a row; then the charts, measured. (A loaded machine draws a page in bursts: a pause of one
    poll with only the first charts drawn is common.)"""
    # A chart or the placeholder of one (a page whose first screen holds none draws them near the view only).
    page.wait_for_selector(f'[data-testid="stVegaLiteChart"], {PENDING}', timeout=timeout_s * 1000)
    deadline = time.monotonic() + timeout_s
    history: list[list[tuple[Any, ...]]] = []
    charts: list[ChartGeometry] = []
    while time.monotonic() < deadline:
        page.wait_for_timeout(700)
        if page.locator('[data-testid="stStatusWidget"]').count():
            continue  # the script is still running
        if page.locator(PENDING).count():
            scroll_through(page, timeout_s=max(1.0, deadline - time.monotonic()))
            continue
        charts = measure_charts(page)
        shape = [(chart.renderer, chart.element, chart.plots, len(chart.legend_labels)) for chart in charts]
        history.append(shape)
        drawn = len(charts) >= at_least and all(chart.renderer != "none" for chart in charts)
        if drawn and len(history) >= 3 and history[-3] == history[-2] == shape:
            return charts
    return charts


def full_page_screenshot(page: Any, name: str, viewport: dict[str, int]) -> None:
    """A screenshot of the whole page: Streamlit scrolls inside ``stMain``, so the viewport is stretched to
    its content for the shot (chart widths do not depend on the height), then set back."""
    height = page.evaluate(
        '() => Math.max(...[...document.querySelectorAll(\'[data-testid="stMain"], [data-testid="stSidebar"]\')]'
        ".map((e) => e.scrollHeight), 0)"
    )
    page.set_viewport_size({"width": viewport["width"], "height": max(viewport["height"], int(height) + 40)})
    page.wait_for_timeout(800)
    screenshot(page, name)
    page.set_viewport_size(viewport)


def explorer_flags(page: Any) -> list[bool]:
    """For each chart element in document order: does it come after the explorer's family picker?"""
    flags = page.evaluate(
        """(anchor) => {
          const mark = document.querySelector(anchor);
          if (!mark) return null;
          return [...document.querySelectorAll('[data-testid="stVegaLiteChart"]')].map(
            (chart) => Boolean(mark.compareDocumentPosition(chart) & Node.DOCUMENT_POSITION_FOLLOWING));
        }""",
        EXPLORER_ANCHOR,
    )
    assert flags is not None, f"the explorer ({EXPLORER_ANCHOR}) is not on the experiment page"
    return list(flags)


def measure_both_widths(browser: Any, url: str, name: str, *, explorer: bool = False) -> dict[int, list[Drawn]]:
    """The charts of ``url`` at 1440x900, then (same page, narrowed) at 390x844; screenshots of both. With
    ``explorer``, each chart also says whether it is one of the explorer's small multiples."""
    context = browser.new_context(viewport=WIDE, locale="en-US")
    try:
        page = context.new_page()
        page.goto(url)
        measured: dict[int, list[Drawn]] = {}
        for viewport in (WIDE, NARROW):
            page.set_viewport_size(viewport)
            charts = wait_for_charts(page, at_least=EXPERIMENT_PAGE_MIN_CHARTS if explorer else OVERVIEW_MIN_CHARTS)
            no_exceptions(page)
            require_svg(charts)
            flags = explorer_flags(page) if explorer else [False] * len(charts)
            measured[viewport["width"]] = [Drawn(chart, flag) for chart, flag in zip(charts, flags, strict=True)]
            full_page_screenshot(page, f"{name}-{viewport['width']}", viewport)
        # The numbers beside the screenshots, to compare a layout change before and after.
        record = {width: [{"title": item.chart.title, "explorer": item.in_explorer, "describe": item.chart.describe(),
                           "plots": [asdict(plot) for plot in item.chart.plots], "clipped": list(item.chart.clipped),
                           "legend_labels": list(item.chart.legend_labels),
                           "line_colors": list(item.chart.line_colors), "axes": list(item.chart.axes)}
                          for item in drawn]
                  for width, drawn in measured.items()}  # fmt: skip
        (ARTIFACTS / f"{name}.json").write_text(json.dumps(record, indent=1, ensure_ascii=False), encoding="utf-8")
        return measured
    finally:
        context.close()


@dataclass(frozen=True)
class Drawn:
    chart: ChartGeometry
    in_explorer: bool


TICKS_PER_AXIS = (4, 7)


SI_SUFFIXES = {"k": 1e3, "M": 1e6, "G": 1e9, "m": 1e-3, "µ": 1e-6, "n": 1e-9}


def label_value(label: str) -> float | None:
    """The number a tick label writes ("7.5k", "82%", "1,500", "−0.2", "1.5e-5"), None for other text."""
    text = label.replace(",", "").replace("\u2212", "-").removesuffix("%").strip()
    scale = SI_SUFFIXES.get(text[-1:], 1.0) if text else 1.0
    try:
        return float(text[:-1] if scale != 1.0 else text) * scale
    except ValueError:
        return None


def tick_problems(charts: list[ChartGeometry], width: int) -> list[str]:
    """Linear axes (values, steps, hours) that show fewer than 4 or more than 7 tick labels, or labels that do
    not step evenly as written (a format that rounds 7,500 to "8k"). An axis over a single value (one point,
    e.g. a first validation at step 0) shows one and is left out."""
    low, high = TICKS_PER_AXIS
    problems = []
    for chart in charts:
        for axis in chart.linear_axes:
            labels = axis["labels"]
            where = f"at {width} px, {chart.name} has an axis ({axis['description']}) with tick labels {labels}"
            if len(labels) > 1 and not low <= len(labels) <= high:
                problems.append(f"{where}: {len(labels)}, wanted {low}-{high}")
            values = [label_value(label) for label in labels]
            if len(values) > 2 and None not in values:
                gaps = [b - a for a, b in itertools.pairwise(values)]  # type: ignore[operator]
                if max(gaps) - min(gaps) > 1e-6 * max(abs(gap) for gap in gaps):
                    problems.append(f"{where}: not evenly spaced as written")
    return problems


def text_problems(charts: list[ChartGeometry], width: int) -> list[str]:
    """Axes with fewer than 4 or more than 7 ticks (:func:`tick_problems`, a line per axis), then texts outside
    their chart's boxes and legend labels cut with "…" (a line per chart)."""
    problems = tick_problems(charts, width)
    for chart in charts:
        if chart.clipped:
            cut = "; ".join(f"{item['text']!r} ({item['role']}) by {item['by']}" for item in chart.clipped)
            problems.append(f"at {width} px, {chart.name} has {len(chart.clipped)} clipped texts: {cut}")
        if chart.ellipsized_legend_labels:
            problems.append(f"at {width} px, {chart.name} cuts legend labels: {chart.ellipsized_legend_labels}")
    return problems


def check_overview(measured: dict[int, list[Drawn]], *, experiments: int) -> None:
    problems: list[str] = []
    for width, drawn in measured.items():
        charts = [item.chart for item in drawn]
        lines = [chart for chart in charts if chart.is_line_chart]
        if not lines:
            problems.append(f"at {width} px the overview draws no line chart")
            continue
        for chart in lines:
            if width == WIDE["width"]:
                low_width, low_height = OVERVIEW_MIN_PLOT
                if chart.plot_height < low_height or chart.plot_width < low_width:
                    problems.append(f"at {width} px, {chart.describe()}; wanted >= {low_width}x{low_height}")
            elif chart.plot_height < NARROW_MIN_PLOT_HEIGHT:
                problems.append(f"at {width} px, {chart.describe()}; wanted >= {NARROW_MIN_PLOT_HEIGHT} tall")
            if len(chart.line_colors) != experiments:
                problems.append(
                    f"at {width} px, {chart.name} draws {experiments} experiments in {len(chart.line_colors)} "
                    f"distinct line colours: {list(chart.line_colors)}"
                )
        every_colour = {colour for chart in lines for colour in chart.line_colors}
        if len(every_colour) != experiments:
            problems.append(f"at {width} px the overview's line charts use {len(every_colour)} colours "
                            f"for {experiments} experiments")  # fmt: skip
        rows = charts_per_row(lines if width == WIDE["width"] else charts)
        wanted = WIDE_CHARTS_PER_ROW if width == WIDE["width"] else 1
        if max(rows) != wanted and not (width == WIDE["width"] and len(lines) == 1):
            problems.append(f"at {width} px the overview's charts per row are {rows}; wanted {wanted}")
        problems += text_problems(charts, width)
    assert not problems, "\n".join(problems)


def check_experiment_page(measured: dict[int, list[Drawn]]) -> None:
    problems: list[str] = []
    for width, drawn in measured.items():
        details = [item.chart for item in drawn if not item.in_explorer]
        explorer = [item.chart for item in drawn if item.in_explorer]
        if not details or not explorer:
            problems.append(f"at {width} px: {len(details)} detail charts, {len(explorer)} explorer charts")
        for chart in details:
            if chart.plot_height < DETAIL_MIN_PLOT_HEIGHT:
                problems.append(f"at {width} px, detail chart {chart.describe()}; wanted >= "
                                f"{DETAIL_MIN_PLOT_HEIGHT} tall")  # fmt: skip
        for chart in explorer:
            if chart.plot_height < EXPLORER_MIN_PLOT_HEIGHT:
                problems.append(f"at {width} px, explorer chart {chart.describe()}; wanted >= "
                                f"{EXPLORER_MIN_PLOT_HEIGHT} tall")  # fmt: skip
        if width == WIDE["width"]:
            rows = charts_per_row(details)
            if max(rows, default=0) > WIDE_CHARTS_PER_ROW:
                problems.append(f"at {width} px the detail charts per row are {rows}; wanted <= {WIDE_CHARTS_PER_ROW}")
        else:
            rows = charts_per_row(details + explorer)
            if max(rows, default=0) != 1:
                problems.append(f"at {width} px the charts per row are {rows}; wanted one column")
        problems += text_problems(details + explorer, width)
    assert not problems, "\n".join(problems)


def overview_url(server_url: str, *, all_tracks: bool, lang: str, experiments: Sequence[str] = ()) -> str:
    # live=0: no timed reruns while measuring (the demo's running experiment keeps gaining steps).
    query = "live=0" + ("&track=*" if all_tracks else "") + ("&lang=zh" if lang == "zh" else "")
    query += "".join(f"&exp={urllib.parse.quote(experiment, safe='')}" for experiment in experiments)
    return f"{server_url}/?{query}"


def drawn_text_width(page: Any, *, x: float, y: float, height: float, width: float) -> float:
    """How wide the text drawn at the left of a stripe of the page is (px): from the stripe's first dark pixel
    to the last one before a gap of 12 px or more (a gap inside a name is a few px; cells keep 16 px apart).

    For text a canvas draws (glide-data-grid's tables), where the DOM holds no boxes to measure.
    """
    import io

    from PIL import Image

    shot = Image.open(io.BytesIO(page.screenshot(clip={"x": x, "y": y, "width": width, "height": height})))
    grey = shot.convert("L")
    dark = [any(grey.getpixel((column, row)) < 170 for row in range(grey.height)) for column in range(grey.width)]
    start = next((index for index, ink in enumerate(dark) if ink), None)
    if start is None:
        return 0.0
    end, gap = start, 0
    for index in range(start, len(dark)):
        if dark[index]:
            end, gap = index, 0
        else:
            gap += 1
            if gap >= 12:
                break
    scale = shot.width / width  # device pixels per CSS pixel
    return (end + 1 - start) / scale
