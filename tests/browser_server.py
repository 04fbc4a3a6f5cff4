"""A real ``streamlit run`` for the browser tests: a free loopback port, output to a file (not a pipe), and
``/_stcore/health`` polled until the server answers. Shared by tests/test_browser.py and tests/test_tooltip.py."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

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


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def serve(
    folder: Path, env_extra: dict[str, str], log_name: str, *, script: Path = ROOT / "streamlit_app.py"
) -> Iterator[str]:
    """``streamlit run script`` on a free loopback port with rlmon's settings from ``env_extra`` only; yields its
    URL once ``/_stcore/health`` answers. Skips (with the reason) without Chromium or playwright. The server's
    output goes to a file, copied to ``test-artifacts/<log_name>``."""
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} not found (CI installs Debian's chromium with apt)")
    pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    port = free_port()
    env = {key: value for key, value in os.environ.items() if not key.startswith("RLMON_") and key != "XDG_CACHE_HOME"}
    env |= env_extra
    log_path = folder / "server.log"
    log = log_path.open("wb")
    process = subprocess.Popen(
        [
            sys.executable, "-m", "streamlit", "run", str(script),
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
                output = log_path.read_text(errors="replace")[-3000:]
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
        shutil.copy(log_path, ARTIFACTS / log_name)
