"""The app in a real browser: ``streamlit run`` on a free loopback port, on the built-in demo data (no log root,
so the running demo experiment advances), driven by Playwright with Debian's headless Chromium.

Screenshots of each page are saved to ``test-artifacts/`` (gitignored). Skipped, with the reason, when
``/usr/bin/chromium`` or the ``playwright`` package is missing.
"""

from __future__ import annotations

import base64
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
    check_experiment_page,
    check_overview,
    drawn_text_width,
    full_page_screenshot,
    measure_both_widths,
    no_exceptions,
    overview_url,
    screenshot,
    scroll_through,
)
from tests.helpers.paths import REPO_ROOT
from tests.helpers.server import page_not_found_frames, serve, watch_page_not_found

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app on the built-in demo root; its running experiment gains a step every second. Charts are drawn as
    SVG (the same layout as on a canvas), where tests/helpers/browser_geometry.py measures them."""
    folder = tmp_path_factory.mktemp("browser")
    env = {"RLMON_CACHE_DIR": str(folder / "cache"), "RLMON_DEMO_STEP_S": "1", "RLMON_REFRESH_S": "2",
           "RLMON_CHART_RENDERER": "svg"}  # fmt: skip
    with serve(folder, env, "server.log") as url:
        yield url


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1500, "height": 1100}, locale="en-US")
    page = context.new_page()
    yield page
    context.close()


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


def running_steps(page: Any) -> int:
    """The running demo experiment's steps done, as the overview's progress line shows them."""
    text = page.locator('[data-testid="stCaptionContainer"]', has_text="running").first.inner_text()
    match = re.search(r"E5 running (\d+)/150", text)
    assert match, text
    return int(match.group(1))


def legend_steps(page: Any) -> int:
    """The running demo experiment's steps done, as the sidebar legend shows them."""
    text = page.locator('[data-testid="stSidebar"]').inner_text()
    match = re.search(r"REINFORCE\+\+\s*▶\s*(\d+)/150", text)
    assert match, text
    return int(match.group(1))


def test_overview_renders_its_charts_and_follows_the_running_experiment(page: Any, server: str) -> None:
    """The overview draws its charts; without a reload, the running experiment gains steps in the page's progress
    line and in the sidebar legend, which keep up with each other.

    (First in the module: the demo's running experiment reaches its last step about 130 s after the start.)"""
    page.goto(server)
    wait_for_app(page, charts=6)
    no_exceptions(page)
    assert page.locator('[data-testid="stVegaLiteChart"]').count() >= 6
    assert page.get_by_text("4 GPUs · TP=4 · offload off · non-thinking · 16K response · 32×8/step").count() == 1
    first_line, first_legend = running_steps(page), legend_steps(page)
    deadline = time.monotonic() + 30
    line, legend = first_line, first_legend
    while (line <= first_line or legend <= first_legend) and time.monotonic() < deadline:
        page.wait_for_timeout(1000)
        line, legend = running_steps(page), legend_steps(page)
    assert line > first_line, f"E5 stayed at step {first_line} in the overview's progress line"
    assert legend > first_legend, f"the sidebar legend stayed at {first_legend}/150"
    # the legend keeps up with the page's own progress line (one refresh apart at most). The two are read one after
    # the other and redrawn by different reruns, which a loaded machine spaces out: read them until they agree.
    until = time.monotonic() + 20
    line, legend = running_steps(page), legend_steps(page)
    while abs(legend - line) > 3 and time.monotonic() < until:
        page.wait_for_timeout(500)
        line, legend = running_steps(page), legend_steps(page)
    assert abs(legend - line) <= 3, f"the sidebar legend at {legend}/150, the progress line at {line}/150"
    no_exceptions(page)
    page.set_viewport_size({"width": 1500, "height": 3000})
    page.wait_for_timeout(1500)
    screenshot(page, "overview")


def test_language_switch_changes_labels(page: Any, server: str) -> None:
    page.goto(server)
    wait_for_app(page, charts=6)
    assert page.get_by_text("Comparison charts").count() == 1
    page.get_by_role("radio", name="中文").click()
    page.get_by_text("对比图表").wait_for(timeout=30_000)
    assert page.get_by_text("Comparison charts").count() == 0
    wait_for_app(page, charts=6)
    no_exceptions(page)
    assert "lang=zh" in page.url
    page.set_viewport_size({"width": 1500, "height": 3000})
    page.wait_for_timeout(1500)
    screenshot(page, "overview-zh")


def test_changing_smoothing_updates_the_url(page: Any, server: str) -> None:
    page.goto(server)
    wait_for_app(page, charts=6)
    assert "smooth=" not in page.url
    page.get_by_role("radio", name="moving average").click()
    deadline = time.monotonic() + 20
    while "smooth=ma" not in page.url and time.monotonic() < deadline:
        page.wait_for_timeout(300)  # (not time.sleep: Playwright's sync API only sees URL changes while it waits)
    assert "smooth=ma" in page.url
    # the address changes as the rerun starts; the window's slider comes with the redrawn controls
    page.get_by_text("Window (steps)").wait_for(timeout=30_000)
    assert page.get_by_text("Window (steps)").count() == 1
    no_exceptions(page)


def test_navigation_opens_an_experiment_page(page: Any, server: str) -> None:
    page.goto(server)
    wait_for_app(page, charts=6)
    page.get_by_role("button", name=re.compile("Qwen3.5-4B")).first.click()
    page.get_by_role("menuitem", name=re.compile(r"E2 · DAPO")).first.click()
    page.wait_for_url(re.compile(r"/4b-e2-dapo-4b"), timeout=30_000)
    page.get_by_text("Training curves").wait_for(timeout=30_000)
    wait_for_app(page, charts=8)
    no_exceptions(page)
    assert page.get_by_text("Source files").count() == 1
    page.set_viewport_size({"width": 1500, "height": 3400})
    page.wait_for_timeout(1500)
    screenshot(page, "experiment-e2")


def test_every_experiment_page_renders(page: Any, server: str) -> None:
    # One page of each track in the browser (every page renders in tests/app/test_app.py through AppTest).
    slugs = ["4b-e5-reinforce-pp-4b", "2b-e3-drgrpo-2b"]
    for slug in slugs:
        page.goto(f"{server}/{slug}")
        page.get_by_text("Training curves").wait_for(timeout=30_000)
        wait_for_app(page, charts=6)
        no_exceptions(page)
        screenshot(page, f"experiment-{slug}")


def test_table_row_opens_the_experiment_page(page: Any, server: str) -> None:
    page.goto(server)
    wait_for_app(page, charts=6)
    picked = page.locator('[data-testid="stSidebar"] span[data-tag]').count()
    # the experiments table: the first with these columns (once the demo's running run has ended, its follow-up
    # repeats it: the two are then one row of it, and their own table is in an expander below it)
    table = page.locator('[data-testid="stDataFrame"]').filter(has_text="last-10 pass").first
    # the table is drawn after the charts on a loaded machine: wait for it rather than count at once
    table.wait_for(state="visible", timeout=30_000)
    # a mouse click lands only inside the viewport: the written summary above may push the table's rows below it
    table.scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    box = table.bounding_box()
    assert box is not None
    # glide-data-grid draws on a canvas: click the selection cell of the second row (E2)
    page.mouse.click(box["x"] + 15, box["y"] + 35 + 35 + 17)
    page.wait_for_url(re.compile(r"/4b-e2-dapo-4b"), timeout=30_000)
    page.get_by_text("Training curves").wait_for(timeout=30_000)
    no_exceptions(page)
    # the sidebar kept its state: the 4B experiments are still picked
    assert page.locator('[data-testid="stSidebar"] span[data-tag]').count() == picked >= 5


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("view", ["track", "all-tracks"])
def test_demo_overview_charts_are_readable(browser: Any, server: str, view: str, lang: str) -> None:
    """Demo root, overview of the newest track (5 experiments) or of all tracks (9)."""
    all_tracks = view == "all-tracks"
    experiments = [*DEMO_TRACKS["Qwen3.5-4B"], *(DEMO_TRACKS["Qwen3.5-2B"] if all_tracks else [])]
    url = overview_url(server, all_tracks=all_tracks, lang=lang, experiments=experiments)
    measured = measure_both_widths(browser, url, f"geometry-demo-overview-{view}-{lang}")
    check_overview(measured, experiments=len(experiments))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_demo_experiment_page_charts_are_readable(browser: Any, server: str, lang: str) -> None:
    """Demo root, E2 · DAPO's page: the detail charts and the explorer's small multiples."""
    url = f"{server}/4b-e2-dapo-4b?live=0" + ("&lang=zh" if lang == "zh" else "")
    check_experiment_page(measure_both_widths(browser, url, f"geometry-demo-experiment-{lang}", explorer=True))


# ------------------------------------------------------------------------------------ canvas and lazy charts


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


def test_first_request_after_a_restart_opens_an_experiment_page(
    browser: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # A server of its own: the first request this process sees goes straight to an experiment's page.
    folder = tmp_path_factory.mktemp("restart")
    with serve(folder, {"RLMON_CACHE_DIR": str(folder / "cache")}, "server-restart.log") as url:
        context = browser.new_context(viewport={"width": 1500, "height": 1100}, locale="en-US")
        page = context.new_page()
        watch_page_not_found(page)
        page.goto(f"{url}/2b-e3-drgrpo-2b", wait_until="commit")
        # a cold server reads the demo first: on a loaded machine that can take a minute
        page.get_by_text("Training curves").wait_for(timeout=90_000)
        wait_for_app(page, charts=6, timeout_s=90)
        page.wait_for_timeout(1000)
        assert page.get_by_text("You have requested page").count() == 0
        assert page.locator('[data-testid="stMain"]').get_by_text("E3 · Dr.GRPO").count() >= 1
        assert re.search(r"/2b-e3-drgrpo-2b", page.url)
        # not one frame with Streamlit's "Page not found" box (it was painted 0.15-0.6 s before the app
        # declared its navigation at server start)
        boxed, painted = page_not_found_frames(page)
        assert painted > 30 and boxed == 0, (boxed, painted)
        no_exceptions(page)
        screenshot(page, "first-request-experiment")
        context.close()


def test_the_app_fetches_nothing_from_other_hosts(browser: Any, server: str) -> None:
    """Offline use, and no third party told of a visit: every request that is not to the app's own origin is
    aborted and recorded, on the overview, an experiment page and its explorer (with a filter).

    (Last in the module: the tests above count the demo's experiments, which grow once its running one ends.)"""
    context = browser.new_context(viewport={"width": 1500, "height": 1100}, locale="en-US")
    page = context.new_page()
    outside: list[str] = []

    def only_the_app(route: Any) -> None:
        if route.request.url.startswith(server + "/") or route.request.url == server:
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    page.route("**/*", only_the_app)
    visits = [
        ("/?live=0", 6, "Comparison charts"),
        ("/4b-e2-dapo-4b?live=0", 8, "Training curves"),
        ("/4b-e1-grpo-4b?live=0&f=timing_s/", 8, "keys match the filter"),
    ]
    for path, charts, text in visits:
        page.goto(server + path)
        page.get_by_text(text).first.wait_for(timeout=30_000)
        wait_for_app(page, charts=charts)
        page.mouse.wheel(0, 20_000)  # the explorer is at the end of the page
        page.wait_for_timeout(1500)
        no_exceptions(page)
        # the favicon is rlmon's own icon, inlined (no request for it at all)
        icon = page.evaluate("document.querySelector(\"link[rel='shortcut icon']\")?.href ?? ''")
        assert icon.startswith("data:image/png;base64,"), f"favicon {icon[:80]!r} on {path}"
        assert base64.b64decode(icon.split(",", 1)[1]) == (REPO_ROOT / "rlmon" / "icon.png").read_bytes()
        assert outside == [], f"{path} asked other hosts for {outside}"
    context.close()


REAL_ROOT_LOGS = (
    "dstack-ppo-qwen25-7b-resumed-2025-05.log",
    "amd-mi300-deepseek7b-grpo-gsm8k-2025-03.log",
    "maze-ppo-main_task-crash-2025-03.log",
    "gpg-qwen2-7b-fsdp-gsm8k-math-2025-06.log",
)


def test_real_root_link_after_a_restart_and_the_table_at_1440_px(
    browser: Any, tmp_path_factory: pytest.TempPathFactory, realdata_dir: Any
) -> None:
    import shutil

    folder = tmp_path_factory.mktemp("real-root")
    for name in REAL_ROOT_LOGS:
        (folder / "logs" / name.removesuffix(".log")).mkdir(parents=True)
        shutil.copyfile(realdata_dir / name, folder / "logs" / name.removesuffix(".log") / name)
    env = {"RLMON_LOG_ROOT": str(folder / "logs"), "RLMON_CACHE_DIR": str(folder / "cache")}
    with serve(folder, env, "server-real-root.log") as url:
        context = browser.new_context(viewport=WIDE, locale="en-US")
        page = context.new_page()
        # a shared link to an experiment page is the first request the new server sees
        watch_page_not_found(page)
        page.goto(f"{url}/maze-ppo-main-task-crash-2025-03", wait_until="commit")
        page.get_by_text("Training curves").wait_for(timeout=30_000)
        # maze log line 293: the error, under its last frames
        # (the page is still being sent when its heading shows, on a loaded machine)
        page.locator('[data-testid="stCode"]').get_by_text("NotImplementedError").first.wait_for(timeout=30_000)
        boxed, painted = page_not_found_frames(page)  # not one frame with a "Page not found" box
        assert painted > 30 and boxed == 0, (boxed, painted)
        no_exceptions(page)
        # the overview at 1440 px: the experiments table shows every run's name whole (its pinned column as wide
        # as the longest name drawn in the page's font, with the cell's 8 px padding on each side); the other
        # columns fit beside it but for what those long names add (120 px is the name column's least width)
        page.goto(url)
        wait_for_app(page, charts=4)
        table = page.locator('[data-testid="stDataFrame"]').filter(has_text="last-10 pass")
        table.first.wait_for(state="visible", timeout=30_000)
        widths = table.first.evaluate(
            "(t) => { const s = t.querySelector('.dvn-scroller'); return [s.scrollWidth, s.clientWidth]; }"
        )
        # rows in catalog order: amd (its name the widest), dstack, gpg, maze; each cell's text drawn whole is
        # as wide as the page's font makes that name (glide-data-grid cuts a longer text with its own "…")
        names = ["amd-mi300-deepseek7b… · GRPO", "dstack-ppo-qwen25-7b… · PPO", "gpg-qwen2-7b-fsdp… · GPG",
                 "maze-ppo-main_task… · PPO"]  # fmt: skip
        font = "14px " + table.first.evaluate("(t) => getComputedStyle(t).fontFamily")
        expected = page.evaluate(
            "([names, font]) => { const c = document.createElement('canvas').getContext('2d'); c.font = font;"
            " return names.map((n) => c.measureText(n).width); }",
            [names, font],
        )
        table.first.scroll_into_view_if_needed()
        page.wait_for_timeout(500)
        box = table.first.bounding_box()
        assert box is not None
        for row, width in enumerate(expected):
            drawn = drawn_text_width(page, x=box["x"] + 1, y=box["y"] + 35 * (row + 1) + 10, height=15, width=400)
            assert abs(drawn - width) <= 4, (names[row], drawn, width)
        column = drawn_text_width(page, x=box["x"] + 1, y=box["y"] + 10, height=15, width=400)  # "experiment"
        assert column > 0
        # the columns beside it fit but for what the long names add to the name column's least width (120 px)
        assert widths[0] <= widths[1] + 1 + max(expected) + 26 - 120, widths
        screenshot(page, "real-root-overview")
        # a click on a row's name opens its experiment's page
        table.scroll_into_view_if_needed()
        page.wait_for_timeout(500)
        box = table.bounding_box()
        assert box is not None
        page.mouse.click(box["x"] + 60, box["y"] + 35 + 17)
        page.wait_for_url(re.compile(r"/(dstack|amd|maze|gpg)-"), timeout=30_000)
        page.get_by_text("Training curves").wait_for(timeout=30_000)
        no_exceptions(page)
        context.close()
