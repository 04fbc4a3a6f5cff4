"""A change of the charts' choices (here the smoothing) reruns the charts' part of the page only: what the
server sends after the click holds the redrawn charts but none of the blocks above them (the overview's
summary and shared settings, the experiment page's source files). Real ``streamlit run`` on the demo, headless
Chromium, the websocket's frames read as they arrive."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers.browser_pages import on_settled
from tests.helpers.server import serve

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The demo with live refresh every hour: no refresh reruns the page while a test watches the frames."""
    folder = tmp_path_factory.mktemp("chart-choices")
    env = {"RLMON_CACHE_DIR": str(folder / "cache"), "RLMON_REFRESH_S": "3600"}
    with serve(folder, env, "server-chart-choices.log") as url:
        yield url


def frames_after_smoothing_change(page: Any, url: str, *, ready: str, control: Any) -> list[bytes]:
    """Open ``url``, wait for ``ready`` (a text), bring ``control`` into view and wait for a drawn chart, click it
    and return every websocket frame the server sent until the page shows the moving average's window control
    and the URL says so."""
    frames: list[bytes] = []
    watching = False

    def on_socket(socket: Any) -> None:
        def on_frame(payload: bytes | str) -> None:
            if watching:
                frames.append(payload.encode() if isinstance(payload, str) else payload)

        socket.on("framereceived", on_frame)

    page.on("websocket", on_socket)
    page.goto(url)
    page.get_by_text(ready).first.wait_for(timeout=90_000)
    # As a person changing it would: in view, the charts near it drawn. The control is drawn anew while its part
    # of the page reruns (the charts below the first screen come in their own reruns): each action waits for the
    # app to be idle and takes the control found then.
    on_settled(control, "scroll_into_view_if_needed")
    page.locator('[data-testid="stVegaLiteChart"] canvas').first.wait_for(timeout=90_000)
    page.wait_for_timeout(2_000)  # the first screen's charts settle
    watching = True
    on_settled(control, "click")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not ("smooth=ma" in page.url and page.get_by_text("Window (steps)").count()):
        page.wait_for_timeout(200)
    page.wait_for_timeout(1_500)  # any frame still on its way
    assert "smooth=ma" in page.url
    return frames


def test_overview_smoothing_change_resends_the_charts_only(browser: Any, server: str) -> None:
    context = browser.new_context(viewport={"width": 1440, "height": 900}, locale="en-US")
    page = context.new_page()
    control = page.locator('.st-key-overview_smoothing button[role="radio"]', has_text="moving average")
    frames = frames_after_smoothing_change(page, f"{server}/?lang=en", ready="Comparison charts", control=control)
    sent = b"".join(frames)
    assert b"rlmon_smoothed" in sent  # the comparison charts came again, with their new smoothed lines
    assert b"Summary" not in sent  # ... but not the summary above them
    assert b"offload off" not in sent  # ... nor the header's shared settings
    # ... nor the charts' title and the metric picker above the smoothing choice (a fragment of their own)
    assert b"Comparison charts" not in sent
    assert b"Filter keys" not in sent
    context.close()


def test_experiment_page_smoothing_change_resends_the_charts_only(browser: Any, server: str) -> None:
    context = browser.new_context(viewport={"width": 1440, "height": 900}, locale="en-US")
    page = context.new_page()
    control = page.locator('.st-key-experiment_smoothing button[role="radio"]', has_text="moving average")
    frames = frames_after_smoothing_change(
        page, f"{server}/4b-e2-dapo-4b?lang=en", ready="Training curves", control=control
    )
    sent = b"".join(frames)
    assert b"rlmon_smoothed" in sent
    assert b"Source files" not in sent  # the page's blocks above the charts stay as they were
    assert b"train_" not in sent  # (the source files' names)
    context.close()
