"""What the browser needs to draw 4 comparison charts at all: the floor under the overview's time to curves.

    python -m benchmarks.bench_chart_floor                     # 3 repeats of each page
    python -m benchmarks.bench_chart_floor --runs 20 40 --repeats 5

``benchmarks/chart_floor_app.py`` served by ``streamlit run`` (the repository's ``.streamlit/config.toml``), opened
in the headless Chromium of benchmarks/bench_vs_tensorboard.py (1500 x 1100 px, a new context each time, the
page opened once before the measured repeats so the server has built its specs). Pages, each alone on an
otherwise empty Streamlit page:

- Streamlit's empty page (one line of text);
- 4 Vega-Lite line charts of 50 points, one layer (what a chart costs however little it draws);
- 4 of rlmon's comparison charts of N runs x 2,000 steps as the overview builds them (every layer), without the
  hover layers, and with the raw lines only;
- the same 4 charts as the panels of one chart element (each with its own datasets): what drawing a row of
  charts in one Vega view instead of one view a chart would save.

Each is timed from ``page.goto`` to drawn: the page's text there, or its chart canvases (4, or the one of the
panels) of non-zero width, and no
running indicator; and the browser main thread's busy time until then (Chrome's ``TaskDuration``: script, style,
layout, paint, Streamlit's own work included). The overview's own time to curves, beside TensorBoard's, is
bench_vs_tensorboard's 2d.; this says how much of it any Streamlit page with 4 such charts pays.

Prints a markdown table (min / median of the repeats) on standard output, progress on standard error.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.bench_vs_tensorboard import (
    POLL_MS,
    ROOT,
    VIEWPORT,
    MainThread,
    open_when_up,
)
from tests.helpers.server import CHROMIUM, CHROMIUM_ARGS, free_port, serve_command

APP = Path(__file__).resolve().parent / "chart_floor_app.py"
TIMEOUT_S = 120.0
DRAWN = """(charts) => {
  if (document.querySelector('[data-testid="stStatusWidget"]')) return false;
  if (charts === 0) return [...document.querySelectorAll('[data-testid="stMarkdownContainer"]')]
    .some((element) => element.innerText.includes('rlmon chart floor'));
  return [...document.querySelectorAll('[data-testid="stVegaLiteChart"] canvas.marks')]
    .filter((canvas) => canvas.width > 0).length >= charts;
}"""


def pages(runs: list[int]) -> list[tuple[str, str, int]]:
    """(what, query string, charts to wait for) of each page measured."""
    found = [("Streamlit's empty page", "page=empty", 0), ("4 charts of 50 points, one layer", "page=tiny", 4)]
    for count in runs:
        found += [
            (f"4 rlmon comparison charts, {count} runs, every layer", f"page=rlmon&runs={count}&layers=all", 4),
            ("the same without the hover layers", f"page=rlmon&runs={count}&layers=nohover", 4),
            ("the same, raw lines only", f"page=rlmon&runs={count}&layers=raw", 4),
            ("the same 4 charts (every layer) as the panels of one chart element", f"page=concat&runs={count}", 1),
        ]
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, nargs="+", default=[1, 20, 40], help="runs per chart (1 20 40)")
    parser.add_argument("--repeats", type=int, default=3, help="measured page loads of each page (3)")
    args = parser.parse_args()
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"{CHROMIUM} not found (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    port = free_port()
    command = [sys.executable, "-m", "streamlit", "run", str(APP), "--server.headless", "true",
               "--server.port", str(port), "--server.address", "127.0.0.1"]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # the page imports benchmarks/ from the repository
    rows = []
    with tempfile.TemporaryDirectory() as work, serve_command(
        "chart floor", command, port=port, env=env, log_path=Path(work) / "server.log"
    ) as server, sync_playwright() as playwright:  # fmt: skip
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        for what, query, charts in pages(args.runs):
            url = f"{server.url}/?{query}"
            times: list[float] = []
            busy: list[float] = []
            for repeat in range(args.repeats + 1):
                context = browser.new_context(viewport=VIEWPORT, locale="en-US")
                page = context.new_page()
                main_thread = MainThread(page)
                started = time.perf_counter()
                open_when_up(page, server, url=url, timeout_s=TIMEOUT_S)
                page.wait_for_function(DRAWN, arg=charts, polling=POLL_MS, timeout=TIMEOUT_S * 1000)
                if repeat:  # the first load builds the specs on the server
                    times.append(time.perf_counter() - started)
                    busy.append(main_thread.seconds())
                context.close()
            print(f"{what}: {statistics.median(times):.2f} s, main thread {statistics.median(busy):.2f} s",
                  file=sys.stderr)  # fmt: skip
            rows.append((what, times, busy))
        browser.close()
    print("| page | drawn (min / median) | main thread busy (min / median) |")
    print("|---|---|---|")
    for what, times, busy in rows:
        print(f"| {what} | {min(times):.2f} / {statistics.median(times):.2f} s "
              f"| {min(busy):.2f} / {statistics.median(busy):.2f} s |")  # fmt: skip


if __name__ == "__main__":
    main()
