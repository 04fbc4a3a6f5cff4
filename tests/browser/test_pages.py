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
    check_experiment_page,
    check_overview,
    measure_both_widths,
    no_exceptions,
    overview_url,
    screenshot,
    wait_for_app,
)
from tests.helpers.paths import REPO_ROOT
from tests.helpers.server import serve

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app on the built-in demo root; its running experiment gains a step every second. Charts are drawn as
    SVG (the same layout as on a canvas), where tests/helpers/browser_geometry.py measures them.

    The tests that are not about following the running experiment open their pages with ``live=0``: a live page
    here reruns every 2 s and redraws its charts as the running experiment grows, about half a core between this
    server and the browser, which the workers running other modules need."""
    folder = tmp_path_factory.mktemp("browser")
    env = {"RLMON_CACHE_DIR": str(folder / "cache"), "RLMON_DEMO_STEP_S": "1", "RLMON_REFRESH_S": "2",
           "RLMON_CHART_RENDERER": "svg"}  # fmt: skip
    with serve(folder, env, "server.log") as url:
        yield url


@pytest.fixture
def page(browser: Any, server: str) -> Iterator[Any]:
    """A tab on the app that aborts, and records, every request not to the app's own origin: each test using it
    also checks that what it opened asked no other host for anything (offline use; no third party told of a
    visit)."""
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
    yield page
    context.close()
    assert outside == [], f"the pages asked other hosts for {outside}"


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
    page.goto(f"{server}/?live=0")
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
    page.goto(f"{server}/?live=0")
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
    page.goto(f"{server}/?live=0")
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
        page.goto(f"{server}/{slug}?live=0")
        page.get_by_text("Training curves").wait_for(timeout=30_000)
        wait_for_app(page, charts=6)
        no_exceptions(page)
        screenshot(page, f"experiment-{slug}")


def test_table_row_opens_the_experiment_page(page: Any, server: str) -> None:
    page.goto(f"{server}/?live=0")
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


def test_the_app_fetches_nothing_from_other_hosts(page: Any, server: str) -> None:
    """Offline use, and no third party told of a visit: the explorer with a filter, at the end of an experiment
    page, asks no other host for anything (the ``page`` fixture aborts and records such requests; the tests above
    check the overview, the language switch, smoothing and the experiment pages the same way), and the favicon is
    rlmon's own icon, inlined (no request for it at all).

    (Last in the module: the tests above count the demo's experiments, which grow once its running one ends.)"""
    page.goto(f"{server}/4b-e1-grpo-4b?live=0&f=timing_s/")
    page.get_by_text("keys match the filter").first.wait_for(timeout=30_000)
    wait_for_app(page, charts=8)
    page.mouse.wheel(0, 20_000)  # the explorer is at the end of the page
    page.wait_for_timeout(1500)
    no_exceptions(page)
    icon = page.evaluate("document.querySelector(\"link[rel='shortcut icon']\")?.href ?? ''")
    assert icon.startswith("data:image/png;base64,"), f"favicon {icon[:80]!r}"
    assert base64.b64decode(icon.split(",", 1)[1]) == (REPO_ROOT / "rlmon" / "icon.png").read_bytes()
