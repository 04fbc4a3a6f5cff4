"""rlmon's default drawing in a real browser: line charts on a canvas (each run's colour in its pixels, the
hover tooltip, the legend's highlight) and charts below the first screen drawn as they come near the view. The
app runs on the built-in demo root with no renderer setting (tests/browser/test_pages.py draws as SVG to measure).

Skipped, with the reason, when ``/usr/bin/chromium`` or the ``playwright`` package is missing.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers.browser_pages import (
    DEMO_TRACKS,
    EXPERIMENT_PAGE_MIN_CHARTS,
    OVERVIEW_MIN_CHARTS,
    PENDING,
    WIDE,
    full_page_screenshot,
    no_exceptions,
    overview_url,
    scroll_through,
    wait_for_app,
    wait_for_charts,
)
from tests.helpers.server import serve

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def default_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app on the demo root with rlmon's default drawing: line charts on a canvas, charts below the first
    screen drawn when they come near the view."""
    folder = tmp_path_factory.mktemp("browser-default")
    env = {"RLMON_CACHE_DIR": str(folder / "cache"), "RLMON_DEMO_STEP_S": "1", "RLMON_REFRESH_S": "2"}
    with serve(folder, env, "server-default.log") as url:
        yield url


# The colours a canvas shows: [r, g, b] -> pixels of (nearly) that colour at full opacity.
CANVAS_COLOURS = """([element, colours]) => {
  const canvas = element.querySelector('canvas');
  if (!canvas) return null;
  const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  const counts = colours.map(() => 0);
  for (let i = 0; i < pixels.length; i += 4) {
    if (pixels[i + 3] < 250) continue;
    colours.forEach(([r, g, b], k) => {
      if (Math.abs(pixels[i] - r) <= 6 && Math.abs(pixels[i + 1] - g) <= 6 && Math.abs(pixels[i + 2] - b) <= 6)
        counts[k] += 1;
    });
  }
  return counts;
}"""


def legend_colours(page: Any) -> dict[str, list[int]]:
    """Experiment label -> its colour as [r, g, b], from the sidebar legend's chips."""
    found = page.evaluate(
        """() => [...document.querySelectorAll('[data-testid="stSidebar"] span[style*="border-radius:2px"]')].map(
          (chip) => [chip.nextElementSibling ? chip.nextElementSibling.textContent.trim() : '',
                     getComputedStyle(chip).backgroundColor])"""
    )
    colours = {}
    for label, css in found:
        match = re.match(r"rgba?\((\d+), (\d+), (\d+)", css)
        assert match, css
        colours[label] = [int(value) for value in match.groups()]
    return colours


def test_line_charts_are_drawn_on_a_canvas_showing_every_series(browser: Any, default_server: str) -> None:
    """rlmon's default: line charts on a canvas, whose pixels show each experiment's colour; bar charts as SVG;
    the hover tooltip and the page's highlight legend work on the canvas."""
    context = browser.new_context(viewport=WIDE, locale="en-US")
    page = context.new_page()
    experiments = DEMO_TRACKS["Qwen3.5-4B"]
    page.goto(overview_url(default_server, all_tracks=False, lang="en", experiments=experiments))
    wait_for_app(page, charts=OVERVIEW_MIN_CHARTS)
    scroll_through(page)
    no_exceptions(page)
    colours = legend_colours(page)
    assert len(colours) == len(experiments), colours
    charts = page.locator('[data-testid="stVegaLiteChart"]')
    kinds = [chart.evaluate("(e) => e.querySelector('canvas') ? 'canvas' : (e.querySelector('svg.marks') ? 'svg' : '')")
             for chart in charts.all()]  # fmt: skip
    assert kinds.count("canvas") >= 4, kinds  # pass rate, response length, entropy, grad_norm at the least
    assert "svg" in kinds, kinds  # the training hours' bars
    for index, kind in enumerate(kinds):
        if kind != "canvas":
            continue
        chart = charts.nth(index)
        title = chart.get_attribute("aria-label") or f"chart #{index}"
        counts = page.evaluate(CANVAS_COLOURS, [chart.element_handle(), list(colours.values())])
        missing = [label for label, count in zip(colours, counts, strict=True) if count < 10]
        assert not missing, f"{title}: no line in the colour of {missing} ({dict(zip(colours, counts, strict=True))})"
    # the hover tooltip lists every experiment at the step under the pointer
    first = charts.nth(kinds.index("canvas"))
    first.scroll_into_view_if_needed()
    box = first.locator("canvas").bounding_box()
    assert box is not None
    for fraction in (0.45, 0.5, 0.55):
        page.mouse.move(box["x"] + box["width"] * fraction, box["y"] + box["height"] * 0.5)
        page.wait_for_timeout(300)
    tooltip = page.locator("#vg-tooltip-element.visible")
    tooltip.wait_for(timeout=10_000)
    assert re.search(r"step \d+", tooltip.inner_text())
    # the page's legend highlights a run on the canvas too: E2 in full, the others dimmed
    page.locator(".st-key-overview_highlight button", has_text="E2").first.click()
    labels = list(colours)
    highlighted = next(label for label in labels if label.startswith("E2"))
    deadline = time.monotonic() + 30
    counts: list[int] = []
    while time.monotonic() < deadline:
        page.wait_for_timeout(500)
        first = page.locator('[data-testid="stVegaLiteChart"]').nth(kinds.index("canvas"))
        found = page.evaluate(CANVAS_COLOURS, [first.element_handle(), list(colours.values())])
        if not found:  # the chart is being drawn again (its spec changed): no canvas for a moment
            continue
        counts = found
        full = {label for label, count in zip(labels, counts, strict=True) if count >= 10}
        if full == {highlighted}:
            break
    assert {label for label, count in zip(labels, counts, strict=True) if count >= 10} == {highlighted}, counts
    context.close()


def test_charts_below_the_first_screen_are_drawn_near_the_view_and_stay_drawn(
    browser: Any, default_server: str
) -> None:
    """An experiment page: the charts far below are placeholders of the chart's height until the page is
    scrolled near them; once drawn they stay drawn through live refreshes (every 2 s here)."""
    context = browser.new_context(viewport=WIDE, locale="en-US")
    page = context.new_page()
    page.goto(f"{default_server}/4b-e5-reinforce-pp-4b")
    page.get_by_text("Training curves").wait_for(timeout=30_000)
    page.locator('[data-testid="stVegaLiteChart"] canvas').first.wait_for(timeout=60_000)
    page.wait_for_timeout(2000)
    pending = page.locator(PENDING)
    assert pending.count() > 0, "every chart was drawn at once"
    heights = pending.evaluate_all("(found) => found.map((element) => element.getBoundingClientRect().height)")
    assert min(heights) >= 200, heights  # the explorer's charts: 125 px of plot and their axes
    assert pending.first.inner_text().strip() == "drawing…"
    # Without scrolling, every placeholder that starts within a screen below the view is drawn.
    page.wait_for_function(
        "(selector) => [...document.querySelectorAll(selector)]"
        ".every((element) => element.getBoundingClientRect().top >= 2 * innerHeight)",
        arg=PENDING,
        timeout=20_000,
    )
    no_exceptions(page)
    scroll_through(page)
    assert pending.count() == 0
    drawn = page.locator('[data-testid="stVegaLiteChart"]').count()
    assert drawn >= EXPERIMENT_PAGE_MIN_CHARTS
    page.wait_for_timeout(5000)  # two live refreshes of the page's fragment
    assert pending.count() == 0
    assert page.locator('[data-testid="stVegaLiteChart"]').count() == drawn
    no_exceptions(page)
    full_page_screenshot(page, "lazy-experiment-drawn", WIDE)
    context.close()


# Until each lazy batch of the overview's grid holds its charts: batch index -> performance.now() when it first did.
# The chart elements, not their canvases: the server sends the batches in the order they were asked for, and when
# several arrive in one message (a rerun that took them all) the browser's drawing of them finishes in any order.
WATCH_BATCHES = """() => {
  const drawn = (window.__rlmonDrawnAt = {});
  const look = () => {
    document.querySelectorAll('[class*="st-key-overview_grid-batch-"]').forEach((batch) => {
      const index = Number(batch.className.match(/st-key-overview_grid-batch-(\\d+)/)[1]);
      if (!(index in drawn) && batch.querySelector('[data-testid="stVegaLiteChart"]')) drawn[index] = performance.now();
    });
    if (Object.keys(drawn).length < 3) requestAnimationFrame(look);
  };
  look();
  const slot = document.querySelector('[class*="st-key-rlmon_pending_overview_grid_0_0"]');
  slot.scrollIntoView({block: 'start'});
}"""


def test_the_rows_a_scroll_brings_near_are_drawn_from_the_top_down(browser: Any, default_server: str) -> None:
    """All tracks' overview (9 experiments): its six charts wait below the table and summary, three rows of two at
    1440 px. Scrolled to the first at once, all three rows come near together; their charts arrive from the top row
    down (the one in view first), each once, and are drawn."""
    context = browser.new_context(viewport=WIDE, locale="en-US")
    page = context.new_page()
    page.goto(overview_url(default_server, all_tracks=True, lang="en"))
    page.locator(PENDING).first.wait_for(timeout=60_000)
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=60_000)
    assert page.locator('[data-testid="stMain"] [data-testid="stVegaLiteChart"]').count() == 0
    assert page.locator(PENDING).count() == 6
    page.evaluate(WATCH_BATCHES)
    page.wait_for_function("() => Object.keys(window.__rlmonDrawnAt).length === 3", timeout=60_000)
    drawn_at = page.evaluate("() => window.__rlmonDrawnAt")
    times = [drawn_at[str(index)] for index in range(3)]
    assert times == sorted(times), drawn_at
    page.wait_for_timeout(4000)  # past the sentinels' 3 s retry: nothing is asked for twice
    assert page.locator(PENDING).count() == 0
    assert page.locator('[data-testid="stMain"] [data-testid="stVegaLiteChart"]').count() == 6
    charts = wait_for_charts(page, at_least=6)  # and each is drawn
    assert [chart.renderer != "none" for chart in charts] == [True] * 6, [chart.renderer for chart in charts]
    no_exceptions(page)
    context.close()
