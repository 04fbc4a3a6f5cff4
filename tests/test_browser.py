"""The app in a real browser: ``streamlit run`` on a free loopback port, on the built-in demo data (no log root,
so the running demo experiment advances), driven by Playwright with Debian's headless Chromium.

Screenshots of each page are saved to ``test-artifacts/`` (gitignored). Skipped, with the reason, when
``/usr/bin/chromium`` or the ``playwright`` package is missing.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

pytestmark = pytest.mark.browser


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve(tmp_path_factory.mktemp("browser")) as url:
        yield url


@contextlib.contextmanager
def serve(folder: Path) -> Iterator[str]:
    """A fresh ``streamlit run`` of the app on the demo data (a new server process); yields its URL."""
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} not found (CI installs Debian's chromium with apt)")
    pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    port = _free_port()
    env = {key: value for key, value in os.environ.items() if not key.startswith("RLMON_") and key != "XDG_CACHE_HOME"}
    env |= {"RLMON_CACHE_DIR": str(folder / "cache"), "RLMON_DEMO_STEP_S": "1", "RLMON_REFRESH_S": "2"}
    log = (folder / "server.log").open("wb")
    process = subprocess.Popen(
        [
            sys.executable, "-m", "streamlit", "run", str(ROOT / "streamlit_app.py"),
            "--server.port", str(port), "--server.address", "127.0.0.1", "--server.headless", "true",
        ],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                log.flush()
                output = (folder / "server.log").read_text(errors="replace")[-3000:]
                pytest.fail(f"streamlit did not come up on {url}:\n{output}")
            time.sleep(0.3)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()
        ARTIFACTS.mkdir(exist_ok=True)
        shutil.copy(folder / "server.log", ARTIFACTS / f"server-{folder.name}.log")


@pytest.fixture(scope="module")
def browser(server: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1500, "height": 1100}, locale="en-US")
    page = context.new_page()
    yield page
    context.close()


def wait_for_app(page: Any, *, charts: int = 1, timeout_s: float = 60) -> None:
    """Until the script finished (no running indicator) and at least ``charts`` charts are drawn."""
    page.wait_for_selector('[data-testid="stApp"]', timeout=timeout_s * 1000)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        drawn = page.locator('[data-testid="stVegaLiteChart"] canvas, [data-testid="stVegaLiteChart"] svg').count()
        if drawn >= charts:
            break
        page.wait_for_timeout(300)
    page.wait_for_timeout(1000)


def no_exceptions(page: Any) -> None:
    assert page.locator('[data-testid="stException"]').count() == 0
    assert "Traceback" not in page.content()


def screenshot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def running_steps(page: Any) -> int:
    """The running demo experiment's steps done, as the overview's progress line shows them."""
    text = page.locator('[data-testid="stCaptionContainer"]', has_text="running").first.inner_text()
    match = re.search(r"E5 running (\d+)/150", text)
    assert match, text
    return int(match.group(1))


def test_overview_renders_its_charts(page: Any, server: str) -> None:
    page.goto(server)
    wait_for_app(page, charts=6)
    no_exceptions(page)
    assert page.locator('[data-testid="stVegaLiteChart"]').count() >= 6
    assert page.get_by_text("4 GPUs · TP=4 · offload off · non-thinking · 16K response · 32×8/step").count() == 1
    page.set_viewport_size({"width": 1500, "height": 3000})
    page.wait_for_timeout(1500)
    screenshot(page, "overview")


def test_running_experiment_gains_steps_without_reload(page: Any, server: str) -> None:
    page.goto(server)
    wait_for_app(page, charts=6)
    first = running_steps(page)
    deadline = time.monotonic() + 30
    later = first
    while later <= first and time.monotonic() < deadline:
        page.wait_for_timeout(1000)
        later = running_steps(page)
    assert later > first, f"E5 stayed at step {first}"
    no_exceptions(page)


def legend_steps(page: Any) -> int:
    """The running demo experiment's steps done, as the sidebar legend shows them."""
    text = page.locator('[data-testid="stSidebar"]').inner_text()
    match = re.search(r"REINFORCE\+\+\s*▶\s*(\d+)/150", text)
    assert match, text
    return int(match.group(1))


def test_sidebar_legend_follows_live_refresh(page: Any, server: str) -> None:
    # (early in the module: the demo's running experiment reaches its last step about 130 s after the start)
    page.goto(server)
    wait_for_app(page, charts=6)
    first = legend_steps(page)
    deadline = time.monotonic() + 30
    later = first
    while later <= first and time.monotonic() < deadline:
        page.wait_for_timeout(1000)
        later = legend_steps(page)
    assert later > first, f"the sidebar legend stayed at {first}/150"
    # and it keeps up with the page's own progress line (one refresh apart at most)
    assert abs(legend_steps(page) - running_steps(page)) <= 3
    no_exceptions(page)


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
    page.goto(server)
    wait_for_app(page, charts=6)
    slugs = [
        "4b-e1-grpo-4b",
        "4b-e3-drgrpo-4b",
        "4b-e4-rloo-4b",
        "4b-e5-reinforce-pp-4b",
        "2b-e1-grpo-2b",
        "2b-e2-dapo-2b",
        "2b-e3-drgrpo-2b",
        "2b-e4-rloo-2b",
    ]
    for slug in slugs:
        page.goto(f"{server}/{slug}")
        page.get_by_text("Training curves").wait_for(timeout=30_000)
        wait_for_app(page, charts=6)
        no_exceptions(page)
        screenshot(page, f"experiment-{slug}")


def test_table_row_opens_the_experiment_page(page: Any, server: str) -> None:
    page.goto(server)
    wait_for_app(page, charts=6)
    table = page.locator('[data-testid="stDataFrame"]').filter(has_text="last-10 pass")
    assert table.count() == 1
    box = table.bounding_box()
    assert box is not None
    # glide-data-grid draws on a canvas: click the selection cell of the second row (E2)
    page.mouse.click(box["x"] + 15, box["y"] + 35 + 35 + 17)
    page.wait_for_url(re.compile(r"/4b-e2-dapo-4b"), timeout=30_000)
    page.get_by_text("Training curves").wait_for(timeout=30_000)
    no_exceptions(page)
    # the sidebar kept its state: the five 4B experiments are still picked
    assert page.locator('[data-testid="stSidebar"] span[data-tag]').count() == 5


def test_first_request_after_a_restart_opens_an_experiment_page(
    browser: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # A server of its own: the first request this process sees goes straight to an experiment's page.
    with serve(tmp_path_factory.mktemp("restart")) as url:
        context = browser.new_context(viewport={"width": 1500, "height": 1100}, locale="en-US")
        page = context.new_page()
        page.goto(f"{url}/2b-e3-drgrpo-2b", wait_until="commit")
        seen_at: list[float] = []
        started = time.monotonic()
        while time.monotonic() - started < 12:
            if page.get_by_text("Page not found").count():
                seen_at.append(round(time.monotonic() - started, 2))
            page.wait_for_timeout(30)
        page.get_by_text("Training curves").wait_for(timeout=30_000)
        wait_for_app(page, charts=6)
        assert page.get_by_text("Page not found").count() == 0
        assert page.get_by_text("You have requested page").count() == 0
        assert page.locator('[data-testid="stMain"]').get_by_text("E3 · Dr.GRPO").count() >= 1
        assert re.search(r"/2b-e3-drgrpo-2b", page.url)
        # Streamlit's own box (sent before the app's script runs) is closed within a poll or two
        assert len(seen_at) <= 3, seen_at
        no_exceptions(page)
        screenshot(page, "first-request-experiment")
        context.close()
