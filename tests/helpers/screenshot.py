"""The README's picture of the overview: rlmon on its built-in demo data, in headless Chromium, 1440 x 900 px.

    python -m tests.helpers.screenshot                 # from the repository: writes docs/images/overview.png
    python -m tests.helpers.screenshot /tmp/shot.png   # writes there instead

It starts ``streamlit run streamlit_app.py`` from the repository on a free loopback port with no log root (so the
app writes and serves its demo root) and a temporary cache folder, waits until ``/_stcore/health`` answers and
the overview has drawn its first charts, scrolls the page so the comparison charts sit under the experiments
table, and saves what the window shows. Beside the PNG it writes what the picture shows of the page's controls
(``overview.json``: each widget in the window, its kind and label, and the charts drawn), which
tests/browser/test_docs_screenshot.py compares with a picture made afresh: a control added, removed or changed
in kind (a segmented control become a menu) fails it until the picture is made again. Needs Debian's Chromium
(``/usr/bin/chromium``) and the ``playwright`` package (``pip install -e ".[dev]"``). The server is started and
Chromium flagged as in the browser tests (:mod:`tests.helpers.server`).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.helpers.paths import APP, REPO_ROOT
from tests.helpers.server import CHROMIUM, CHROMIUM_ARGS, free_port, stop, wait_for_health

DEFAULT_OUT = REPO_ROOT / "docs" / "images" / "overview.png"
VIEWPORT = {"width": 1440, "height": 900}
CHARTS = '[data-testid="stVegaLiteChart"]'
DRAWN_CHARTS = f"{CHARTS} canvas, {CHARTS} svg.marks"
# The overview's first charts: pass rate, response length, entropy and grad_norm at the least.
MIN_CHARTS = 4
TIMEOUT_S = 120.0


def start_server(cache_dir: Path, log_path: Path) -> tuple[subprocess.Popen[bytes], str]:
    """``streamlit run streamlit_app.py`` on the demo root; its output goes to ``log_path`` (a pipe nobody reads
    would fill and stop the server)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("RLMON_") and key != "XDG_CACHE_HOME"}
    env["RLMON_CACHE_DIR"] = str(cache_dir)
    port = free_port()
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [
                sys.executable, "-m", "streamlit", "run", str(APP),
                "--server.port", str(port), "--server.address", "127.0.0.1", "--server.headless", "true",
                # no secrets (sign-in off), whatever a .streamlit/secrets.toml beside the repository says
                "--secrets.files", str(log_path.parent / "no-secrets.toml"),
            ],
            cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
    return process, f"http://127.0.0.1:{port}"


def wait_for_overview(page: Any, *, timeout_s: float) -> None:
    """Until the overview shows at least :data:`MIN_CHARTS` drawn charts and its script run is over."""
    deadline = time.monotonic() + timeout_s
    page.wait_for_selector('[data-testid="stApp"]', timeout=timeout_s * 1000)
    while page.locator(DRAWN_CHARTS).count() < MIN_CHARTS:
        if time.monotonic() > deadline:
            raise RuntimeError(f"the overview drew fewer than {MIN_CHARTS} charts within {timeout_s:.0f} s")
        page.wait_for_timeout(300)
    # the status widget shows while the script runs; the live page reruns every few seconds, so wait a little
    settle = min(deadline, time.monotonic() + 10)
    while page.locator('[data-testid="stStatusWidget"]').count() and time.monotonic() < settle:
        page.wait_for_timeout(200)


# Scroll Streamlit's main area (the page scrolls inside stMain) so the first chart row sits just under the
# experiments table: the picture then shows the table's last rows, the comparison charts and the sidebar.
_SCROLL_TO_CHARTS = """(selector) => {
  const main = document.querySelector('[data-testid="stMain"]');
  const chart = document.querySelector(selector);
  if (!main || !chart) return false;
  const top = chart.getBoundingClientRect().top - main.getBoundingClientRect().top + main.scrollTop;
  main.scrollTop = Math.max(0, top - 0.3 * main.clientHeight);
  return true;
}"""


# Each widget in the window: its kind (the data-testid of the widget inside its element container) and its label;
# then the number of charts drawn in the window. Labels of the demo data's controls, never log values.
_CONTROLS = """(drawn) => {
  const inView = (box) => box.width > 0 && box.height > 0 && box.bottom > 0 && box.right > 0
    && box.top < window.innerHeight && box.left < window.innerWidth;
  const controls = [];
  for (const label of document.querySelectorAll('[data-testid="stWidgetLabel"]')) {
    const container = label.closest('[data-testid="stElementContainer"]');
    if (!container || !inView(container.getBoundingClientRect())) continue;
    const widget = container.querySelector('[data-testid]:not([data-testid="stWidgetLabel"])');
    controls.push([widget ? widget.getAttribute('data-testid') : '', label.innerText.trim()]);
  }
  const charts = [...document.querySelectorAll(drawn)].filter((node) => inView(node.getBoundingClientRect()));
  return {controls, charts: charts.length};
}"""


def controls_path(out: Path) -> Path:
    """Where :func:`take_screenshot` writes what the picture at ``out`` shows of the page's controls."""
    return out.with_suffix(".json")


def take_screenshot(out: Path, *, timeout_s: float = TIMEOUT_S) -> Path:
    """Start the app on the demo data, draw the overview in headless Chromium and save a 1440 x 900 PNG at
    ``out`` and its controls at :func:`controls_path`; returns ``out``."""
    from playwright.sync_api import sync_playwright

    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="rlmon-screenshot-") as folder:
        log_path = Path(folder) / "server.log"
        process, url = start_server(Path(folder) / "cache", log_path)
        try:
            if not wait_for_health(process, url, timeout_s=timeout_s):
                raise RuntimeError(f"streamlit did not answer on {url} within {timeout_s:.0f} s")
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
                try:
                    context = browser.new_context(viewport=VIEWPORT, locale="en-US")
                    page = context.new_page()
                    page.goto(url)
                    wait_for_overview(page, timeout_s=timeout_s)
                    page.evaluate(_SCROLL_TO_CHARTS, DRAWN_CHARTS)
                    wait_for_overview(page, timeout_s=timeout_s)
                    page.wait_for_timeout(1000)  # the last repaint after the scroll
                    page.screenshot(path=str(out))
                    shown = page.evaluate(_CONTROLS, DRAWN_CHARTS)
                    rows = ",\n".join(f"  {json.dumps(row, ensure_ascii=False)}" for row in shown["controls"])
                    text = f'{{"controls": [\n{rows}\n ],\n "charts": {shown["charts"]}}}\n'
                    controls_path(out).write_text(text, encoding="utf-8")
                finally:
                    browser.close()
        except Exception:
            sys.stderr.write(log_path.read_text(errors="replace")[-3000:])
            raise
        finally:
            stop(process)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Save a 1440 x 900 screenshot of rlmon's overview on the demo data.")
    parser.add_argument("out", nargs="?", type=Path, default=DEFAULT_OUT, help=f"PNG to write (default: {DEFAULT_OUT})")
    args = parser.parse_args(argv)
    if not CHROMIUM.exists():
        print(f"screenshot: {CHROMIUM} not found (Debian: apt-get install chromium)", file=sys.stderr)
        return 2
    print(take_screenshot(args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
