"""How rlmon's first screen scales with the number of experiments and the length of the runs (README, "Scaling").

    python -m benchmarks.bench_scaling                    # the README's table, 2 repeats
    python -m benchmarks.bench_scaling --quick            # tiny sizes: proves the script works (~1 min)
    python -m benchmarks.bench_scaling --data /tmp/scaling-data --json   # keep/reuse the logs; JSON too
    python -m benchmarks.bench_scaling --rows 1x2000 5x2000 --repeats 1  # some rows only

Rows (experiments x steps, 150 keys each, written by benchmarks/bench_app.py's generator):
1/5/20/50 experiments at 2,000 steps; 1 experiment at 2,000/10,000/50,000 steps; 5 experiments at 10,000 steps
(``--no-long-multi`` leaves that row out). A root of N experiments holds the first N of the largest root
(the generator seeds each experiment by its number, so they are the same files it would write for N).

For each row, with a fresh ``streamlit run`` for every measurement (the server and browser code of
benchmarks/bench_vs_tensorboard.py: its ``serve``, ``rlmon_command``, ``rlmon_env``, ``open_when_up``, ...):

- cold first screen: from just before the server process starts, with an empty cache folder (every log is
  read), to the overview (``/``) drawn in headless Chromium (a new context, 1500 x 1100 px);
- warm first screen: the same server right after, a new browser context, from ``page.goto`` to drawn;
- server memory: the resident set (RSS) of the server process and its children after the warm screen.

"Drawn": Streamlit shows no running indicator, the page holds at least as many chart slots (a chart, or the
placeholder rlmon holds for a chart drawn when it nears the view) as the settled overview does (counted once per
row before the measured runs, on a server of its own), and every slot whose box is in the viewport is a chart
showing a Vega ``svg.marks`` with a data mark or a ``canvas.marks`` of non-zero width (benchmarks/
bench_vs_tensorboard.py's ``RLMON_DRAWN``). Charts below the fold are not waited for.

Prints a markdown table (min and median of the repeats) on standard output, progress on standard error.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import json
import os
import shutil
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks import bench_app
from benchmarks.bench_vs_tensorboard import (
    CHROMIUM,
    CHROMIUM_ARGS,
    COLD_TIMEOUT_S,
    RLMON_CHARTS,
    RLMON_DRAWN,
    VIEWPORT,
    WARM_TIMEOUT_S,
    BenchError,
    Server,
    _on_signal,
    _stop_all,
    free_port,
    open_when_up,
    rlmon_command,
    rlmon_env,
    serve,
    settled_count,
    wait_drawn,
)

KEYS = 150
ROWS = [(1, 2000), (5, 2000), (20, 2000), (50, 2000), (1, 10_000), (1, 50_000), (5, 10_000)]
QUICK_ROWS = [(1, 200), (3, 200), (1, 1000)]
QUICK_KEYS = 40

DRAWN_IN_VIEW = (
    "(expected) => { if (document.querySelector('[data-testid=\"stStatusWidget\"]')) return false; return ("
    + RLMON_DRAWN
    + ")(expected); }"
)


@dataclass
class Row:
    experiments: int
    steps: int
    log_mb: float = 0.0
    charts: int = 0
    cold_s: list[float] = field(default_factory=list)
    warm_s: list[float] = field(default_factory=list)
    rss_mb: list[float] = field(default_factory=list)


# --------------------------------------------------------------------------------------------------- data


def write_root(root: Path, *, experiments: int, steps: int, keys: int) -> None:
    """bench_app's generated root: ``experiments`` x ``steps`` x ``keys``."""
    saved = bench_app.KEYS
    bench_app.KEYS = keys
    try:
        bench_app.write_generated_root(root, experiments=experiments, steps=steps)
    finally:
        bench_app.KEYS = saved


def prepare_roots(data: Path, rows: list[tuple[int, int]], *, keys: int) -> dict[tuple[int, int], Path]:
    """One log root per row under ``data``; per number of steps the largest root is written once and the smaller
    ones link its first experiments. Reused when already there at these sizes and of the generator's value model
    (:data:`bench_app.VALUES`, written in each root's ``.complete``)."""
    made = str(bench_app.VALUES)
    roots: dict[tuple[int, int], Path] = {}
    for steps in sorted({steps for _, steps in rows}):
        largest = max(experiments for experiments, row_steps in rows if row_steps == steps)
        full = data / f"k{keys}-s{steps}-e{largest}"
        marker = full / ".complete"
        if not marker.exists() or marker.read_text() != made:
            shutil.rmtree(full, ignore_errors=True)
            started = time.perf_counter()
            print(f"writing {largest} x {steps} steps x {keys} keys ...", file=sys.stderr, flush=True)
            write_root(full, experiments=largest, steps=steps, keys=keys)
            marker.write_text(made)
            print(f"  {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
        for experiments, row_steps in rows:
            if row_steps != steps:
                continue
            if experiments == largest:
                roots[(experiments, steps)] = full
                continue
            subset = data / f"k{keys}-s{steps}-e{experiments}"
            if not (subset / ".complete").exists() or (subset / ".complete").read_text() != made:
                shutil.rmtree(subset, ignore_errors=True)
                for number in range(1, experiments + 1):
                    name = f"e{number}_grpo_big"
                    (subset / name).mkdir(parents=True)
                    for log in (full / name).iterdir():
                        try:
                            os.link(log, subset / name / log.name)
                        except OSError:  # another file system, or no hard links
                            shutil.copy2(log, subset / name / log.name)
                (subset / ".complete").write_text(made)
            roots[(experiments, steps)] = subset
    return roots


def log_mb(root: Path) -> float:
    return sum(path.stat().st_size for path in root.rglob("*.log")) / 1e6


# --------------------------------------------------------------------------------------------------- memory


def tree_rss_mb(pid: int) -> float:
    """Resident memory of a process and all its descendants (Linux /proc), in MB."""
    total_kb = 0
    pending = [pid]
    while pending:
        current = pending.pop()
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{current}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total_kb += int(line.split()[1])
        with contextlib.suppress(OSError):
            for task in Path(f"/proc/{current}/task").iterdir():
                children = (task / "children").read_text().split()
                pending.extend(int(child) for child in children)
    return total_kb / 1024


# --------------------------------------------------------------------------------------------------- browser


class Scaling:
    def __init__(self, browser: Any, work: Path) -> None:
        self.browser = browser
        self.work = work
        self.starts = 0

    @contextlib.contextmanager
    def page(self) -> Iterator[Any]:
        from playwright.sync_api import Error as PlaywrightError

        context = self.browser.new_context(viewport=VIEWPORT, locale="en-US")
        try:
            yield context.new_page()
        finally:
            with contextlib.suppress(PlaywrightError):
                context.close()

    @contextlib.contextmanager
    def server(self, log_root: Path) -> Iterator[Server]:
        """A fresh rlmon server on ``log_root`` with an empty cache folder."""
        self.starts += 1
        port = free_port()
        cache = self.work / f"cache-{self.starts}"
        cache.mkdir()
        with serve(
            "rlmon", rlmon_command(port), port=port, env=rlmon_env(log_root, cache),
            log_path=self.work / f"server-{self.starts}.log",
        ) as server:  # fmt: skip
            yield server

    def count_charts(self, log_root: Path) -> int:
        """The charts the settled overview holds (its own server, not measured)."""
        with self.server(log_root) as server, self.page() as page:
            open_when_up(page, server, url=server.url + "/", timeout_s=COLD_TIMEOUT_S)
            return settled_count(
                page, lambda count: bool(page.evaluate(DRAWN_IN_VIEW, count)), RLMON_CHARTS, timeout_s=COLD_TIMEOUT_S
            )

    def measure(self, log_root: Path, charts: int) -> tuple[float, float, float]:
        """(cold first screen s, warm first screen s, server RSS MB after the warm one)."""
        started = time.perf_counter()
        with self.server(log_root) as server:
            with self.page() as page:
                open_when_up(page, server, url=server.url + "/", timeout_s=COLD_TIMEOUT_S)
                wait_drawn(page, DRAWN_IN_VIEW, charts, what="cold overview", server=server, timeout_s=COLD_TIMEOUT_S)
                cold = time.perf_counter() - started
            with self.page() as page:
                started = time.perf_counter()
                page.goto(server.url + "/", wait_until="commit", timeout=WARM_TIMEOUT_S * 1000)
                wait_drawn(page, DRAWN_IN_VIEW, charts, what="warm overview", server=server, timeout_s=WARM_TIMEOUT_S)
                warm = time.perf_counter() - started
            rss = tree_rss_mb(server.process.pid)
        return cold, warm, rss


# --------------------------------------------------------------------------------------------------- report


def _cell(values: list[float], unit: str, digits: int) -> str:
    if not values:
        return "—"
    if len(values) == 1:
        return f"{values[0]:.{digits}f} {unit}"
    return f"{min(values):.{digits}f} / {statistics.median(values):.{digits}f} {unit}"


def markdown_table(rows: list[Row], *, keys: int) -> str:
    lines = [
        f"| experiments × steps ({keys} keys) | logs | charts | cold first screen | warm first screen | server RSS |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row.experiments} × {row.steps:,} | {row.log_mb:.0f} MB | {row.charts} | {_cell(row.cold_s, 's', 1)} "
            f"| {_cell(row.warm_s, 's', 2)} | {_cell(row.rss_mb, 'MB', 0)} |"
        )
    return "\n".join(lines)


def _size(text: str) -> tuple[int, int]:
    experiments, _, steps = text.partition("x")
    try:
        size = int(experiments), int(steps)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not NxSTEPS (e.g. 5x2000)") from None
    if min(size) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: experiments and steps must be at least 1")
    return size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="tiny sizes (1 and 3 x 200 steps, 1 x 1,000; 40 keys)")
    parser.add_argument("--repeats", type=int, default=2, help="measured starts per row (default 2)")
    parser.add_argument("--data", type=Path, help="keep the generated logs here and reuse them next time")
    parser.add_argument("--no-long-multi", action="store_true", help="leave out the 5 x 10,000 steps row")
    parser.add_argument(
        "--rows", nargs="+", type=_size, metavar="NxSTEPS", help="measure these rows instead (e.g. 1x2000 5x2000)"
    )
    parser.add_argument("--json", action="store_true", help="print the samples as JSON after the table")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    atexit.register(_stop_all)
    signal.signal(signal.SIGTERM, _on_signal)
    sizes = QUICK_ROWS if args.quick else [row for row in ROWS if not (args.no_long_multi and row == (5, 10_000))]
    if args.rows:
        sizes = args.rows
    keys = QUICK_KEYS if args.quick else KEYS
    with tempfile.TemporaryDirectory(prefix="rlmon-scaling-") as tmp:
        work = Path(tmp)
        data = args.data if args.data is not None else work / "data"
        data.mkdir(parents=True, exist_ok=True)
        roots = prepare_roots(data, sizes, keys=keys)
        rows = [Row(experiments, steps, log_mb=log_mb(roots[(experiments, steps)])) for experiments, steps in sizes]
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            bench = Scaling(browser, work)
            for row in rows:
                root = roots[(row.experiments, row.steps)]
                row.charts = bench.count_charts(root)
                for _ in range(args.repeats):
                    cold, warm, rss = bench.measure(root, row.charts)
                    row.cold_s.append(cold)
                    row.warm_s.append(warm)
                    row.rss_mb.append(rss)
                print(
                    f"{row.experiments} x {row.steps} steps ({row.log_mb:.0f} MB, {row.charts} charts): cold "
                    f"{_cell(row.cold_s, 's', 1)}, warm {_cell(row.warm_s, 's', 2)}, RSS {_cell(row.rss_mb, 'MB', 0)}",
                    file=sys.stderr,
                    flush=True,
                )
            browser.close()
    print(markdown_table(rows, keys=keys))
    if args.json:
        print(json.dumps([row.__dict__ for row in rows]))


if __name__ == "__main__":
    try:
        main()
    except BenchError as error:
        raise SystemExit(f"bench_scaling: {error}") from None
