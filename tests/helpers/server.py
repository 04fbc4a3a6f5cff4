"""What the browser tests and the benchmarks share: a real ``streamlit run`` (a free loopback port, output to a file,
not a pipe, ``/_stcore/health`` polled until the server answers), the ``browser`` fixture: one headless Chromium per
module (registered for every module in tests/conftest.py), Chromium's path and flags, and :func:`serve_command`,
which the benchmarks start their servers (rlmon, TensorBoard, nginx) with, each in its own process group."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from tests.helpers.paths import APP, ARTIFACTS, REPO_ROOT

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def require_chromium() -> None:
    """Skip, with the reason, without Debian's Chromium or the playwright package."""
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} not found (CI installs Debian's chromium with apt)")
    pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium for the browser tests of a module; each test opens a context of its own in it
    (``browser.new_context``). Per module, not per session: Playwright's sync API runs one instance per thread
    at a time, and a module may start its own (tests/browser/test_hostile.py does)."""
    require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield instance
        instance.close()


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def answers(process: subprocess.Popen[bytes], url: str, *, timeout_s: float = 60) -> bool:
    """Poll ``url`` until it answers 200 (True), the process ends or ``timeout_s`` pass (False)."""
    deadline = time.monotonic() + timeout_s
    while process.poll() is None and time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return True
        except OSError:
            pass
        time.sleep(0.3)
    return False


def wait_for_health(process: subprocess.Popen[bytes], url: str, *, timeout_s: float = 60) -> bool:
    """Poll ``/_stcore/health`` until it answers (True), the process ends or ``timeout_s`` pass (False)."""
    return answers(process, f"{url}/_stcore/health", timeout_s=timeout_s)


def stop(process: subprocess.Popen[bytes]) -> None:
    """Ask a process started by a test to end; kill it when it has not within 10 s."""
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextlib.contextmanager
def serve(folder: Path, env_extra: dict[str, str], log_name: str, *, script: Path = APP) -> Iterator[str]:
    """``streamlit run script`` on a free loopback port with rlmon's settings from ``env_extra`` only; yields its
    URL once ``/_stcore/health`` answers. Skips (with the reason) without Chromium or playwright. The server's
    output goes to a file, copied to ``test-artifacts/<log_name>``. Streamlit's secrets are ``folder/secrets.toml``
    (none unless the test writes it: sign-in is off)."""
    require_chromium()
    env = {key: value for key, value in os.environ.items() if not key.startswith("RLMON_") and key != "XDG_CACHE_HOME"}
    env |= env_extra
    log_path = folder / "server.log"
    log = log_path.open("wb")
    # A port found free can be taken before streamlit binds it (tests run in parallel processes): then a new one.
    for attempt in range(3):
        port = free_port()
        log.truncate(0)
        log.seek(0)
        process = subprocess.Popen(
            [
                sys.executable, "-m", "streamlit", "run", str(script),
                "--server.port", str(port), "--server.address", "127.0.0.1", "--server.headless", "true",
                # Streamlit's secrets (sign-in) from the test's own folder, never the repository's .streamlit/
                "--secrets.files", str(folder / "secrets.toml"),
            ],
            cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        url = f"http://127.0.0.1:{port}"
        if wait_for_health(process, url):
            break
        log.flush()
        output = log_path.read_text(errors="replace")[-3000:]
        if process.poll() is None or "is not available" not in output or attempt == 2:
            process.kill()
            process.wait()
            log.close()
            ARTIFACTS.mkdir(exist_ok=True)
            shutil.copy(log_path, ARTIFACTS / log_name)
            pytest.fail(f"streamlit did not come up on {url}:\n{output}")
    try:
        yield url
    finally:
        stop(process)
        log.close()
        ARTIFACTS.mkdir(exist_ok=True)
        shutil.copy(log_path, ARTIFACTS / log_name)


# --------------------------------------------------------------------------- a process group per server

_RUNNING: set[subprocess.Popen[bytes]] = set()


def stop_group(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the process group (TensorBoard's data server and Streamlit's children too), then SIGKILL."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
    else:
        # The leader exited; children left in its group still go.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    _RUNNING.discard(process)


def stop_all() -> None:
    """Stop every server :func:`serve_command` started and has not stopped yet (``atexit``, a signal)."""
    for process in list(_RUNNING):
        stop_group(process)


def on_signal(number: int, _frame: FrameType | None) -> None:
    """A SIGTERM handler: the servers go, then the process, with the signal's exit status."""
    stop_all()
    raise SystemExit(128 + number)


@dataclass
class Server:
    """A server process in its own process group, its output going to ``log_path``."""

    name: str
    url: str
    process: subprocess.Popen[bytes]
    log_path: Path

    def alive(self) -> bool:
        return self.process.poll() is None

    def output_tail(self, chars: int = 3000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError as error:
            return f"(no output: {error})"


@contextlib.contextmanager
def serve_command(name: str, command: list[str], *, port: int, env: dict[str, str], log_path: Path) -> Iterator[Server]:
    """Start ``command`` in the repository (output to ``log_path``, not a pipe) in a process group of its own and
    stop that whole group on the way out; yields at once (the caller waits for the server to answer)."""
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command, cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    _RUNNING.add(process)
    try:
        yield Server(name, f"http://127.0.0.1:{port}", process, log_path)
    finally:
        stop_group(process)


# Counts, from the page's first frame on, the animation frames in which a "Page not found" box is on screen.
_PAGE_NOT_FOUND_WATCH = """
window.__rlmonPageNotFoundFrames = 0;
window.__rlmonFrames = 0;
const rlmonWatch = () => {
  window.__rlmonFrames += 1;
  for (const box of document.querySelectorAll('[role="dialog"]')) {
    const shown = box.getBoundingClientRect().width > 0 && getComputedStyle(box).visibility !== "hidden";
    if (shown && box.textContent.includes("Page not found")) { window.__rlmonPageNotFoundFrames += 1; break; }
  }
  requestAnimationFrame(rlmonWatch);
};
requestAnimationFrame(rlmonWatch);
"""


def watch_page_not_found(page: Any) -> None:
    """Before ``page.goto``: count every frame the page paints with a "Page not found" box in view (polling
    the text every few ms would miss a box shown for a frame or two)."""
    page.add_init_script(_PAGE_NOT_FOUND_WATCH)


def page_not_found_frames(page: Any) -> tuple[int, int]:
    """(frames painted with a "Page not found" box, frames painted) since the page loaded."""
    return page.evaluate("[window.__rlmonPageNotFoundFrames, window.__rlmonFrames]")
