"""Live load in real browsers: Chromium pages on the overview at the shortest refresh while a log grows.

    python -m benchmarks.bench_live                                  # 8 pages, 2 s refresh, 2 lines/s, 330 s
    python -m benchmarks.bench_live --pages 2 --duration-s 60        # a quick look
    python -m benchmarks.bench_live --refresh-cpu 8                  # the server's CPU time per refresh, no browser

A server (``streamlit run streamlit_app.py``, a free loopback port, a cache folder of its own) serves the demo
root written into a temporary folder, plus one experiment of its own (``4b/e9_live``, 100,000 steps planned)
whose log a writer thread grows by ``--lines-per-s`` step lines a second, each line verl's ``step:N - ...``
with the demo's keys. ``--pages`` headless Chromium pages (one browser context each: one session each) open
the overview of its track at ``?every=<--every-s>&live=1`` and stay ``--duration-s`` seconds; then they close
and the server is watched ``--after-s`` seconds more.

Measured:
- errors: an exception box (``stException``) on a page, a page that did not load;
- step latency: for every step line written once a page shows its live legend, the time until the page's
  sidebar legend shows that many steps of ``e9_live`` (every page, every step: median, p90, p99, max);
- refresh: the intervals between two changes of the overview's "updated" clock, per page (median, p90) against
  the ``--every-s`` asked for;
- server RSS (``VmRSS`` of the server and its children): after the first page rendered, the peak with the
  pages open, right after they closed and ``--after-s`` seconds later; server CPU (cores) while they were open.

``--refresh-cpu N`` measures instead, in this process and without a browser, what a refresh costs the server in CPU
time (``time.process_time``, every thread: the same on a busy machine as on a quiet one): N sessions (Streamlit's
AppTest) on the same overview; for each of ``--rounds`` rounds 6 step lines are appended, and once the loaders
look at the log again each session runs the page once: the first builds the new version's charts, numbers and
summary, the others find what can be shared. Reported: the median CPU time of the first session's run and of the
others' runs.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.bench_load import cpu_s, demo_server, rss_mb
from rlmon.demo import RUNNING_EXPERIMENT, write_demo_root
from tests.helpers.server import CHROMIUM, CHROMIUM_ARGS

LIVE = "4b/e9_live"
KEYS = (
    "critic/score/mean", "critic/score/max", "critic/score/min", "response_length/mean", "response_length/clip_ratio",
    "actor/entropy", "actor/grad_norm", "actor/pg_loss", "actor/kl_loss", "timing_s/gen", "timing_s/step",
)  # fmt: skip

# In every page: the most steps of e9_live the legend has shown, and when each count and each clock first showed.
_WATCH = """
window.__live = {steps: [], clocks: [], errors: 0};
setInterval(() => {
  const sidebar = document.querySelector('[data-testid=stSidebar]');
  const match = sidebar && sidebar.textContent.match(/([\\d,]+)\\/100,000/);
  const shown = match && [match[0], match[1].replace(/,/g, '')];
  const steps = window.__live.steps;
  if (shown && (!steps.length || Number(shown[1]) > steps[steps.length - 1][0])) {
    steps.push([Number(shown[1]), Date.now()]);
  }
  const clock = [...document.querySelectorAll('[data-testid=stCaptionContainer]')]
    .map((element) => element.textContent.match(/updated (\\d\\d:\\d\\d:\\d\\d)/))
    .find(Boolean);
  const clocks = window.__live.clocks;
  if (clock && (!clocks.length || clocks[clocks.length - 1][0] !== clock[1])) clocks.push([clock[1], Date.now()]);
  window.__live.errors = document.querySelectorAll('[data-testid=stException]').length;
}, 100);
"""


def _step_line(step: int) -> str:
    pairs = [f"{key}:{0.4 + 0.0001 * step + index / 100:.4f}" for index, key in enumerate(KEYS)]
    return f"(TaskRunner pid=1) step:{step} - " + " - ".join(pairs) + "\n"


def write_root(root: Path) -> Path:
    """The demo root plus ``e9_live`` (the running demo run's launch command, so the same track) with its first 10
    steps; returns that experiment's log."""
    write_demo_root(root)
    running = next((root / RUNNING_EXPERIMENT).glob("*.log"))
    launch = running.read_text(encoding="utf-8").split("\n", 1)[0]
    log = root / LIVE / "train_20260801_000000.log"
    log.parent.mkdir(parents=True)
    head = f"{launch}\n(TaskRunner pid=1) Total training steps: 100000\n"
    log.write_text(head + "".join(map(_step_line, range(1, 11))), encoding="utf-8")
    return log


@dataclass
class Writer:
    """Appends one step line every ``1 / lines_per_s`` seconds; remembers when each step was written."""

    log: Path
    lines_per_s: float
    written: dict[int, float] = field(default_factory=dict)
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        step = 11
        start = time.time()
        while not self.stop.is_set():
            with self.log.open("a", encoding="utf-8") as handle:
                handle.write(_step_line(step))
            self.written[step] = time.time()
            step += 1
            self.stop.wait(max(0.0, start + (step - 11) / self.lines_per_s - time.time()))


def quantiles(values: Sequence[float]) -> dict[str, float]:
    ordered = sorted(values)
    if not ordered:
        return {}

    def at(share: float) -> float:
        return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]

    return {"median": statistics.median(ordered), "p90": at(0.9), "p99": at(0.99), "max": ordered[-1]}


def refresh_cpu(sessions: int, rounds: int) -> None:
    """See ``--refresh-cpu`` in the module's docstring."""
    import os

    from streamlit.testing.v1 import AppTest  # noqa: TID251  (the app run as a session runs it, without a browser)

    from rlmon.app.loaders import CATALOG_TTL_S
    from tests.helpers.paths import APP

    with tempfile.TemporaryDirectory(prefix="rlmon-bench-live-") as scratch:
        folder = Path(scratch)
        log = write_root(folder / "logs")
        os.environ.update(RLMON_LOG_ROOT=str(folder / "logs"), RLMON_CACHE_DIR=str(folder / "cache"))
        os.environ.update(RLMON_REFRESH_S="2")
        pages = [AppTest.from_file(str(APP), default_timeout=300) for _ in range(sessions)]
        for page in pages:
            page.query_params.update({"track": "Qwen3.5-4B", "every": "2", "live": "1"})
            page.run()
        if pages[0].exception:
            raise SystemExit(f"the overview failed: {pages[0].exception}")
        time.sleep(CATALOG_TTL_S + 1)
        firsts: list[float] = []
        others: list[float] = []
        step = 11
        for _ in range(rounds):
            with log.open("a", encoding="utf-8") as handle:
                for _line in range(6):
                    handle.write(_step_line(step))
                    step += 1
            time.sleep(CATALOG_TTL_S + 0.2)  # the loaders look at the log again
            for index, page in enumerate(pages):
                before = time.process_time()
                page.run()
                (firsts if index == 0 else others).append(time.process_time() - before)
            time.sleep(1.5)  # the scans and builds ahead that follow a run, outside the next round's figures
    print(
        f"{sessions} sessions, {rounds} rounds of 6 step lines: CPU time per refresh, first session median "
        f"{statistics.median(firsts):.3f} s, the others median {statistics.median(others or [0.0]):.3f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=8)
    parser.add_argument("--every-s", type=int, default=2)
    parser.add_argument("--lines-per-s", type=float, default=2.0)
    parser.add_argument("--duration-s", type=float, default=330)
    parser.add_argument("--after-s", type=float, default=120)
    parser.add_argument("--refresh-cpu", type=int, default=0, metavar="SESSIONS")
    parser.add_argument("--rounds", type=int, default=6)
    options = parser.parse_args()
    if options.refresh_cpu:
        refresh_cpu(options.refresh_cpu, options.rounds)
        return
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="rlmon-bench-live-") as scratch:
        folder = Path(scratch)
        log = write_root(folder / "logs")
        env = {"RLMON_LOG_ROOT": str(folder / "logs")}
        with demo_server(folder, refresh_s=options.every_s, env_extra=env) as server, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            url = f"{server.url}/?track=Qwen3.5-4B&every={options.every_s}&live=1"
            first = browser.new_context(viewport={"width": 1440, "height": 900}, locale="en-US").new_page()
            first.goto(url)
            first.get_by_text("Experiments").first.wait_for(timeout=300_000)
            first.context.close()
            rss_start = rss_mb(server.pid, peak=False)
            writer = Writer(log, options.lines_per_s)
            thread = threading.Thread(target=writer.run, daemon=True)
            thread.start()
            pages: list[Any] = []
            failed = 0
            cpu_before, started = cpu_s(server.pid), time.monotonic()
            for _ in range(options.pages):
                context = browser.new_context(viewport={"width": 1440, "height": 900}, locale="en-US")
                context.add_init_script(_WATCH)
                page = context.new_page()
                try:
                    page.goto(url, timeout=120_000)
                except Exception:  # a page that did not load counts as an error
                    failed += 1
                pages.append(page)
            peak, errors = rss_start, 0
            while time.monotonic() - started < options.duration_s:
                time.sleep(1)
                peak = max(peak, rss_mb(server.pid, peak=False))
            cores = (cpu_s(server.pid) - cpu_before) / (time.monotonic() - started)
            seen = []
            for page in pages:
                try:
                    seen.append(page.evaluate("window.__live"))
                except Exception:
                    failed += 1
            writer.stop.set()
            for page in pages:
                page.context.close()
            browser.close()
            closed = rss_mb(server.pid, peak=False)
            time.sleep(options.after_s)
            after = rss_mb(server.pid, peak=False)
        errors = failed + sum(int(item["errors"] > 0) for item in seen)
        latencies: list[float] = []
        intervals: list[float] = []
        for item in seen:
            shown = item["steps"]
            if not shown:
                continue
            live_from = shown[0][1] / 1000  # steps written before the page showed its first count do not count
            for step, written in writer.written.items():
                at = next((when for count, when in shown if count >= step), None)
                if at is not None and written >= live_from:
                    latencies.append(max(0.0, at / 1000 - written))
            clocks = [when for _clock, when in item["clocks"]]
            intervals += [(later - earlier) / 1000 for earlier, later in itertools.pairwise(clocks)]
    late, every = quantiles(latencies), quantiles(intervals)
    print(
        f"{options.pages} pages, refresh {options.every_s} s, {options.lines_per_s:g} step lines/s for "
        f"{options.duration_s:.0f} s ({len(writer.written)} steps written)"
    )
    print("| errors | step in the sidebar after (median / p90 / p99 / max) | refresh interval (median / p90) | "
          "server RSS: start → peak → pages closed → after | server CPU |\n|---|---|---|---|---|")  # fmt: skip
    print(
        f"| {errors} | {late.get('median', 0):.2f} / {late.get('p90', 0):.2f} / {late.get('p99', 0):.2f} / "
        f"{late.get('max', 0):.2f} s | {every.get('median', 0):.2f} / {every.get('p90', 0):.2f} s | "
        f"{rss_start:.0f} → {peak:.0f} → {closed:.0f} → {after:.0f} MB ({options.after_s:.0f} s) | {cores:.2f} cores |"
    )
    if not any(item["steps"] for item in seen):
        print(f"warning: no page showed a step of {LIVE} in its sidebar")


if __name__ == "__main__":
    main()
