"""How rlmon's first screen scales with the number of experiments and the length of the runs (README, "Scaling").

    python -m benchmarks.bench_scaling                    # the README's table, 2 repeats
    python -m benchmarks.bench_scaling --quick            # tiny sizes: proves the script works (~1 min)
    python -m benchmarks.bench_scaling --data /tmp/scaling-data --json   # keep/reuse the logs; JSON too
    python -m benchmarks.bench_scaling --rows 1x2000 5x2000 --repeats 1  # some rows only

Rows (experiments x steps, 150 keys each, written by tests/helpers/benchmark_root.py):
1/5/20/50 experiments at 2,000 steps; 1 experiment at 2,000/10,000/50,000 steps; 5 experiments at 10,000 steps
(``--no-long-multi`` leaves that row out). A root of N experiments holds the first N of the largest root
(the generator seeds each experiment by its number, so they are the same files it would write for N).

For each row, with a fresh ``streamlit run`` for every measurement (the server and browser code of
benchmarks/bench_vs_tensorboard.py and tests/helpers/server.py: ``serve_command``, ``rlmon_command``, ``rlmon_env``,
``open_when_up``, ...):

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
import re
import shutil
import signal
import statistics
import sys
import tempfile
import time
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.bench_vs_tensorboard import (
    COLD_TIMEOUT_S,
    RLMON_CHARTS,
    RLMON_DRAWN,
    RLMON_SCROLL,
    VIEWPORT,
    WARM_TIMEOUT_S,
    BenchError,
    open_when_up,
    rlmon_command,
    rlmon_env,
    settled_count,
    wait_drawn,
)
from tests.helpers import benchmark_root
from tests.helpers.server import CHROMIUM, CHROMIUM_ARGS, Server, free_port, on_signal, serve_command, stop_all

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
    """The benchmarks' generated root: ``experiments`` x ``steps`` x ``keys``."""
    benchmark_root.write_benchmark_root(root, experiments=experiments, steps=steps, keys=keys)


HISTORY_PER_TRACK = 20
"""Experiments per track in a history root (:func:`write_history_root`)."""
HISTORY_MADE = "history-1"
"""Version of :func:`write_history_root`'s output, written in each root's ``.complete``."""


def _history_values(key: str, steps: int, rng: Any) -> Any:
    """:func:`tests.helpers.benchmark_root._value` for every step at once (numpy): the same ranges and trends."""
    import numpy as np

    u = np.arange(1, steps + 1) / steps
    noise = lambda scale: rng.normal(0.0, scale, steps)  # noqa: E731
    score = -0.2 + 0.9 * u
    if key in ("critic/score/mean", "critic/rewards/mean"):
        return score + noise(0.05)
    fixed = {"critic/score/min": -1.0, "critic/score/max": 1.0}
    if key in fixed:
        return np.full(steps, fixed[key])
    shapes = {
        "response_length/mean": lambda: 3000 + 4000 * u + noise(200),
        "response_length/max": lambda: np.minimum(benchmark_root.MAX_RESPONSE_LENGTH, 4500 + 4000 * u + noise(300)),
        "response_length/clip_ratio": lambda: np.clip(0.002 + 0.06 * u + noise(0.005), 0.0, 1.0),
        "actor/entropy": lambda: np.maximum(0.05, 0.6 - 0.35 * u + noise(0.02)),
        "actor/grad_norm": lambda: np.abs(0.25 + noise(0.04)),
        "actor/pg_loss": lambda: noise(0.05),
        "actor/pg_clipfrac": lambda: 0.002 + np.abs(noise(0.001)),
        "actor/pg_clipfrac_lower": lambda: np.abs(noise(0.0005)),
        "actor/kl_loss": lambda: 0.001 + 0.01 * u + np.abs(noise(0.001)),
        "training/rollout_actor_probs_pearson_corr": lambda: np.minimum(1.0, 0.999 + noise(0.0002)),
        "perf/throughput": lambda: 1500 + 200 * u + noise(50),
    }
    if key in shapes:
        return shapes[key]()
    if key.startswith("timing_s/step"):
        return 60.0 + noise(3)
    if key.startswith("timing_s/"):
        return 10.0 + noise(1)
    return np.sin(np.arange(1, steps + 1) / 50 + len(key)) + noise(0.1)


def history_experiment_id(number: int, *, experiments: int) -> str:
    """The id of experiment ``number`` (from 1) of a history root: ``t03/e41_grpo_big``; one track: ``e41_grpo_big``."""
    name = f"e{number}_grpo_big"
    return name if experiments <= HISTORY_PER_TRACK else f"t{(number - 1) // HISTORY_PER_TRACK + 1:02d}/{name}"


def write_history_root(root: Path, *, experiments: int, steps: int, keys: int) -> None:
    """A team's history: ``experiments`` finished runs of ``steps`` x ``keys`` keys (the benchmark root's keys and
    value model, computed with numpy, 20x faster than tests/helpers/benchmark_root.py), as verl console logs,
    validation every 25 steps; :data:`HISTORY_PER_TRACK` runs per track (one model each, a folder each), the later
    tracks trained later (each log's mtime one minute after the one before), so the overview opens on the last one."""
    import numpy as np
    import polars as pl

    names = benchmark_root.metric_keys(keys)
    started = time.time() - 60 * experiments - 3600
    for number in range(1, experiments + 1):
        track = (number - 1) // HISTORY_PER_TRACK + 1
        folder = root / history_experiment_id(number, experiments=experiments)
        folder.mkdir(parents=True, exist_ok=True)
        rng = np.random.default_rng(number)
        step = pl.Series("step", np.arange(1, steps + 1))
        validation = 0.3 + 0.4 * np.arange(1, steps + 1) / steps + rng.normal(0.0, 0.03, steps)
        frame = pl.DataFrame({key: _history_values(key, steps, rng) for key in names}).with_columns(
            step, pl.Series("validation", validation)
        )
        parts: list[Any] = [pl.lit("(TaskRunner pid=1) step:"), pl.col("step").cast(pl.String)]
        for key in names:
            parts += [pl.lit(f" - {key}:"), pl.col(key).round(4).cast(pl.String)]
        parts.append(
            pl.when(pl.col("step") % 25 == 0)
            .then(pl.lit(" - val-core/aime24/acc/mean@1:") + pl.col("validation").round(4).cast(pl.String))
            .otherwise(pl.lit(""))
        )
        lines = frame.select(pl.concat_str(parts).alias("line")).get_column("line")
        model = "Qwen/Qwen3-8B" if experiments <= HISTORY_PER_TRACK else f"team/qwen3-8b-m{track:02d}"
        head = (
            f"(TaskRunner pid=1) {{'actor_rollout_ref': {{'model': {{'path': '{model}'}}}}, "
            "'algorithm': {'adv_estimator': 'grpo'}, "
            f"'data': {{'max_response_length': {benchmark_root.MAX_RESPONSE_LENGTH}, 'train_batch_size': 64}}, "
            "'trainer': {'n_gpus_per_node': 8, 'nnodes': 1, 'test_freq': 25}}\n"
            f"(TaskRunner pid=1) Total training steps: {steps}\n"
        )
        log = folder / "train_20260101_000000.log"
        with log.open("w", encoding="utf-8") as handle:
            handle.write(head)
            for start in range(0, steps, 20_000):  # a 100,000-step log is written in pieces
                handle.write("\n".join(lines.slice(start, 20_000).to_list()) + "\n")
        os.utime(log, (started + 60 * number, started + 60 * number))


def prepare_history_root(data: Path, experiments: int, steps: int, *, keys: int) -> Path:
    """The history root of ``experiments`` x ``steps`` under ``data``, written unless it is there already."""
    root = data / f"history-k{keys}-s{steps}-e{experiments}"
    marker = root / ".complete"
    if not marker.exists() or marker.read_text() != HISTORY_MADE:
        shutil.rmtree(root, ignore_errors=True)
        started = time.perf_counter()
        print(f"writing a history of {experiments} x {steps} steps x {keys} keys ...", file=sys.stderr, flush=True)
        write_history_root(root, experiments=experiments, steps=steps, keys=keys)
        marker.write_text(HISTORY_MADE)
        print(f"  {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    return root


def prepare_roots(data: Path, rows: list[tuple[int, int]], *, keys: int) -> dict[tuple[int, int], Path]:
    """One log root per row under ``data``; per number of steps the largest root is written once and the smaller
    ones link its first experiments. Reused when already there at these sizes and of the generator's value model
    (:data:`tests.helpers.benchmark_root.VALUES`, written in each root's ``.complete``)."""
    made = str(benchmark_root.VALUES)
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
        with serve_command(
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


# --------------------------------------------------------------------------------------------------- history

# The read at start has read every experiment: its notice (rlmon.app.live.reading_notice) is gone and the script idle.
ALL_READ = """() => !document.body.innerText.includes('Reading the logs:')
  && !document.querySelector('[data-testid="stStatusWidget"]')"""
# Scroll the page's main part to the comparison charts (the overview's "Comparison" section: its first chart slot).
TO_CHARTS = """() => {
  const slot = document.querySelector(
    '[data-testid="stMain"] [data-testid="stVegaLiteChart"], [data-testid="stMain"] [class*="st-key-rlmon_pending_"]');
  if (!slot) return false;
  slot.scrollIntoView({block: 'start'});
  return true;
}"""
TRACK_MOVES = 6
"""Tracks a visitor moves to (each overview scrolled through) after the first screen and two experiment pages."""


@dataclass
class HistoryRow:
    """The figures of one history root (:func:`write_history_root`)."""

    experiments: int
    steps: int
    log_mb: float = 0.0
    load: str = ""
    """``uptime``'s load averages when the row started and ended."""
    cold_first_s: float = 0.0
    cold_all_s: float = 0.0
    rss_overview_mb: float = 0.0
    rss_pages_mb: float = 0.0
    rss_tracks_mb: list[float] = field(default_factory=list)
    restart_s: float = 0.0
    """The median of :attr:`restarts_s`."""
    restarts_s: list[float] = field(default_factory=list)
    restart_rss_mb: float = 0.0
    returning_s: list[float] = field(default_factory=list)
    """Restarts to the first screen of a returning visitor: the server on the port it had (the team's one URL), the
    browser with Streamlit's files in its cache from an earlier visit (they are served immutable, for a year)."""
    add20_s: list[float] = field(default_factory=list)
    """Each time 20 experiments of another track were added to a selection of 20 (the newest track's), on the
    restarted server: a track new to it each time (``restarts`` times, as many as the root has other tracks)."""
    refresh: dict[str, float] = field(default_factory=dict)


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


class History(Scaling):
    """A history root in the browser: a cold start, memory as a visitor opens pages and moves between tracks,
    ``restarts`` restarts on the cache folder for a first-time and for a returning visitor, and ``restarts`` times
    20 experiments of another track added to the selection."""

    restarts: int = 5
    cache: Path
    """The cache folder of the last root measured."""

    def measure_history(self, root: Path, row: HistoryRow) -> None:
        self.starts += 1
        cache = self.work / f"history-cache-{row.experiments}x{row.steps}"
        cache.mkdir()
        self.cache = cache
        ids = [history_experiment_id(number, experiments=row.experiments) for number in range(1, row.experiments + 1)]
        newest = ids[-HISTORY_PER_TRACK:]
        started = time.perf_counter()
        with self._serve(root, cache) as server:
            with self.page() as page:
                open_when_up(page, server, url=server.url + "/", timeout_s=COLD_TIMEOUT_S)
                wait_drawn(page, DRAWN_IN_VIEW, 1, what="cold first screen", server=server, timeout_s=COLD_TIMEOUT_S)
                row.cold_first_s = time.perf_counter() - started
                _progress(f"  cold first screen {row.cold_first_s:.1f} s")
                wait_drawn(page, ALL_READ, None, what="every experiment read", server=server, timeout_s=COLD_TIMEOUT_S)
                row.cold_all_s = time.perf_counter() - started
                _progress(f"  every experiment read {row.cold_all_s:.1f} s")
                self._charts_drawn(page, server)
                row.rss_overview_mb = tree_rss_mb(server.process.pid)
            for experiment_id in (newest[-1], newest[0]):
                with self.page() as page:
                    page.goto(f"{server.url}/{_slug(experiment_id)}", wait_until="commit")
                    wait_drawn(page, DRAWN_IN_VIEW, 2, what="experiment page", server=server, timeout_s=WARM_TIMEOUT_S)
                    self._scroll_through(page, server)
            row.rss_pages_mb = tree_rss_mb(server.process.pid)
            _progress(f"  RSS after the overview {row.rss_overview_mb:.0f} MB, and two pages {row.rss_pages_mb:.0f} MB")
            tracks = max(1, row.experiments // HISTORY_PER_TRACK)
            for move in range(min(TRACK_MOVES, tracks - 1)):
                number = (tracks - 2 - move) * HISTORY_PER_TRACK + 1
                with self.page() as page:
                    track = f"qwen3-8b-m{(number - 1) // HISTORY_PER_TRACK + 1:02d}"
                    page.goto(f"{server.url}/?track={track}", wait_until="commit")
                    wait_drawn(page, DRAWN_IN_VIEW, 1, what="another track", server=server, timeout_s=WARM_TIMEOUT_S)
                    self._scroll_through(page, server)
                row.rss_tracks_mb.append(tree_rss_mb(server.process.pid))
            if row.rss_tracks_mb:
                _progress(f"  RSS moving between tracks: {', '.join(f'{mb:.0f}' for mb in row.rss_tracks_mb)} MB")
        for _ in range(self.restarts - 1):  # restarts measured to the first screen alone
            started = time.perf_counter()
            with self._serve(root, cache) as server, self.page() as page:
                open_when_up(page, server, url=server.url + "/", timeout_s=COLD_TIMEOUT_S)
                wait_drawn(page, DRAWN_IN_VIEW, 1, what="restart first screen", server=server, timeout_s=COLD_TIMEOUT_S)
                row.restarts_s.append(time.perf_counter() - started)
        started = time.perf_counter()
        with self._serve(root, cache) as server:
            with self.page() as page:
                open_when_up(page, server, url=server.url + "/", timeout_s=COLD_TIMEOUT_S)
                wait_drawn(page, DRAWN_IN_VIEW, 1, what="restart first screen", server=server, timeout_s=COLD_TIMEOUT_S)
                row.restarts_s.append(time.perf_counter() - started)
                self._charts_drawn(page, server)
            row.restart_s = statistics.median(row.restarts_s)
            row.restart_rss_mb = tree_rss_mb(server.process.pid)
            _progress(
                f"  restart first screen {_cell(row.restarts_s, 's', 2)} (of {len(row.restarts_s)}), "
                f"RSS {row.restart_rss_mb:.0f} MB"
            )
            tracks = row.experiments // HISTORY_PER_TRACK
            for turn in range(min(self.restarts, tracks - 1)):
                # the next older track each time: its 20 are new to the server
                end = -(turn + 1) * HISTORY_PER_TRACK
                others = ids[end - HISTORY_PER_TRACK : end]
                query = "&".join(f"exp={urllib.parse.quote(value, safe='')}" for value in [*others, *newest])
                with self.page() as page:
                    # the selection's 20 first, warm, then 20 more: only the 20 added are new to the server
                    page.goto(f"{server.url}/", wait_until="commit")
                    wait_drawn(page, DRAWN_IN_VIEW, 1, what="overview", server=server, timeout_s=WARM_TIMEOUT_S)
                    self._charts_drawn(page, server)
                    started = time.perf_counter()
                    page.goto(f"{server.url}/?track=*&{query}", wait_until="commit")
                    wait_drawn(page, DRAWN_IN_VIEW, 1, what="40 experiments", server=server, timeout_s=WARM_TIMEOUT_S)
                    self._charts_drawn(page, server)
                    row.add20_s.append(time.perf_counter() - started)
            if row.add20_s:
                _progress(f"  20 experiments added: their charts drawn in {_spread(row.add20_s)}")
        self._returning(root, cache, row)  # once that server is gone: one server on the cache folder at a time

    def _returning(self, root: Path, cache: Path, row: HistoryRow) -> None:
        """``restarts`` restarts on one port, each to the first screen of one browser context that visited before
        (an unmeasured first visit fills its cache): what a teammate reloading the team's URL after a restart
        waits for. Measured from the server's start, as the others."""
        from playwright.sync_api import Error as PlaywrightError

        port = free_port()
        context = self.browser.new_context(viewport=VIEWPORT, locale="en-US")
        try:
            for turn in range(self.restarts + 1):
                started = time.perf_counter()
                with self._serve(root, cache, port=port) as server:
                    page = context.new_page()
                    try:
                        open_when_up(page, server, url=server.url + "/", timeout_s=COLD_TIMEOUT_S)
                        wait_drawn(
                            page, DRAWN_IN_VIEW, 1, what="returning first screen", server=server,
                            timeout_s=COLD_TIMEOUT_S,
                        )  # fmt: skip
                        if turn:  # the first visit fills the browser's cache
                            row.returning_s.append(time.perf_counter() - started)
                    finally:
                        with contextlib.suppress(PlaywrightError):
                            page.close()
        finally:
            with contextlib.suppress(PlaywrightError):
                context.close()
        _progress(f"  restart first screen, returning visitor {_spread(row.returning_s)}")

    @contextlib.contextmanager
    def _serve(self, root: Path, cache: Path, *, port: int | None = None) -> Iterator[Server]:
        port = free_port() if port is None else port
        self.starts += 1
        with serve_command(
            "rlmon", rlmon_command(port), port=port, env=rlmon_env(root, cache),
            log_path=self.work / f"server-{self.starts}.log",
        ) as server:  # fmt: skip
            yield server

    def _charts_drawn(self, page: Any, server: Server) -> None:
        """Scroll to the overview's charts and wait for those in view to be drawn."""
        deadline = time.monotonic() + WARM_TIMEOUT_S
        while not page.evaluate(TO_CHARTS):
            if time.monotonic() > deadline:
                raise BenchError("the overview shows no chart")
            time.sleep(POLL_S)
        wait_drawn(page, DRAWN_IN_VIEW, 1, what="charts in view", server=server, timeout_s=WARM_TIMEOUT_S)

    def _scroll_through(self, page: Any, server: Server) -> None:
        """Scroll down a screen at a time, each drawn before the next (a reader paging through)."""
        while page.evaluate(RLMON_SCROLL):
            wait_drawn(page, DRAWN_IN_VIEW, 1, what="page, scrolled", server=server, timeout_s=WARM_TIMEOUT_S)


POLL_S = 0.05


def _slug(experiment_id: str) -> str:
    """The page path rlmon gives an experiment (rlmon.app.navigation.experiment_slug's rule, not imported: it imports
    streamlit): ``t20/e381_grpo_big`` -> ``t20-e381-grpo-big``."""
    return re.sub(r"[^a-z0-9]+", "-", experiment_id.lower()).strip("-")


def _progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def refresh_cost(root: Path, cache: Path, *, repeats: int = 5) -> dict[str, float]:
    """What the live refresh of a server costs on ``root`` (its cache folder warm): the loaders a page's refresh runs
    (:func:`rlmon.app.loaders.load_views` on the catalog), in this process, when nothing changed and when one
    step line was appended to the newest experiment's log (median ms), and how many log bytes the cache parsed for
    that (the appended line only). The log is put back as it was afterwards."""
    from rlmon.app import loaders, server
    from rlmon.settings import load_settings

    settings = load_settings([], {"RLMON_LOG_ROOT": str(root), "RLMON_CACHE_DIR": str(cache)})
    catalog = loaders.load_catalog((root,)).catalog
    loaders.load_views(catalog, settings)
    log = max(root.rglob("*.log"), key=lambda path: (path.stat().st_mtime, str(path)))
    size = log.stat().st_size
    last = log.read_bytes()[-20_000:].splitlines()[-1]
    quiet: list[float] = []
    grown: list[float] = []
    cache_object = server.log_cache(settings)
    try:
        for index in range(repeats):
            started = time.perf_counter()
            loaders.load_views(loaders.load_catalog((root,)).catalog, settings)
            quiet.append(time.perf_counter() - started)
            step = int(last.split(b"step:")[1].split(b" ")[0]) + 1 + index
            with log.open("ab") as handle:
                handle.write(re.sub(rb"step:\d+", b"step:%d" % step, last, count=1) + b"\n")
            time.sleep(loaders.CATALOG_TTL_S)  # the next listing looks at the files again
            parses = cache_object.parses
            started = time.perf_counter()
            loaders.load_views(loaders.load_catalog((root,)).catalog, settings)
            grown.append(time.perf_counter() - started)
            if cache_object.parses - parses > 2:
                raise BenchError(f"a refresh parsed {cache_object.parses - parses} chunks, not the appended line")
    finally:
        with log.open("r+b") as handle:
            handle.truncate(size)
    return {"quiet_ms": 1000 * statistics.median(quiet), "grown_ms": 1000 * statistics.median(grown)}


# --------------------------------------------------------------------------------------------------- report


def _cell(values: list[float], unit: str, digits: int) -> str:
    if not values:
        return "—"
    if len(values) == 1:
        return f"{values[0]:.{digits}f} {unit}"
    return f"{min(values):.{digits}f} / {statistics.median(values):.{digits}f} {unit}"


def _spread(values: list[float]) -> str:
    """``median s (min–max of n)``."""
    if len(values) < 2:
        return _cell(values, "s", 2)
    return f"{statistics.median(values):.2f} s ({min(values):.2f}–{max(values):.2f} of {len(values)})"


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


def history_table(rows: list[HistoryRow], *, keys: int) -> str:
    lines = [
        f"| history ({keys} keys) | logs | cold: first screen / every experiment read | RSS: overview / + two "
        "experiment pages / moving between tracks (most) | restart: first screen (median, min–max), RSS | "
        "restart, returning visitor | 20 experiments added | refresh, nothing changed / one step appended | "
        "load average |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        tracks = f"{max(row.rss_tracks_mb):.0f} MB" if row.rss_tracks_mb else "—"
        added = _spread(row.add20_s) if row.add20_s else "—"
        refresh = f"{row.refresh['quiet_ms']:.0f} / {row.refresh['grown_ms']:.0f} ms" if row.refresh else "—"
        lines.append(
            f"| {row.experiments} × {row.steps:,} | {row.log_mb:,.0f} MB | {row.cold_first_s:.1f} / "
            f"{row.cold_all_s:.1f} s | {row.rss_overview_mb:.0f} / {row.rss_pages_mb:.0f} / {tracks} | "
            f"{_spread(row.restarts_s)}, {row.restart_rss_mb:.0f} MB | {_spread(row.returning_s)} | {added} | "
            f"{refresh} | {row.load} |"
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
    parser.add_argument(
        "--history", nargs="+", type=_size, metavar="NxSTEPS",
        help="measure these history roots instead (e.g. 400x2000 20x100000): cold start, memory across pages and "
        "tracks (once each), restarts for a first-time and a returning visitor, 20 experiments added, refresh cost",
    )  # fmt: skip
    parser.add_argument(
        "--keep", type=Path, help="with --history: keep the cache folders and server logs here (a new folder)"
    )
    parser.add_argument(
        "--restarts",
        type=int,
        default=5,
        help="with --history: restarts on the cache folder measured, for each kind of visitor, and times 20 "
        "experiments are added (default 5)",
    )
    args = parser.parse_args()
    if args.history:
        main_history(args.history, data=args.data, keys=KEYS, as_json=args.json, keep=args.keep, restarts=args.restarts)
        return
    from playwright.sync_api import sync_playwright

    atexit.register(stop_all)
    signal.signal(signal.SIGTERM, on_signal)
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


def main_history(
    sizes: list[tuple[int, int]], *, data: Path | None, keys: int, as_json: bool, keep: Path | None, restarts: int = 5
) -> None:
    from playwright.sync_api import sync_playwright

    atexit.register(stop_all)
    signal.signal(signal.SIGTERM, on_signal)
    rows: list[HistoryRow] = []
    with contextlib.ExitStack() as stack:
        if keep is None:
            work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="rlmon-history-")))
        else:
            work = keep
            work.mkdir(parents=True, exist_ok=True)
        folder = data if data is not None else work / "data"
        folder.mkdir(parents=True, exist_ok=True)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            for experiments, steps in sizes:
                root = prepare_history_root(folder, experiments, steps, keys=keys)
                row = HistoryRow(experiments, steps, log_mb=log_mb(root), load=load_average())
                _progress(f"{experiments} x {steps} steps ({row.log_mb:,.0f} MB), load {row.load}")
                bench = History(browser, work)
                bench.restarts = max(1, restarts)
                bench.measure_history(root, row)
                row.refresh = refresh_cost(root, bench.cache)
                _progress(f"  refresh {row.refresh['quiet_ms']:.0f} / {row.refresh['grown_ms']:.0f} ms")
                row.load += " → " + load_average()
                rows.append(row)
            browser.close()
        # the same refresh on a root of HISTORY_PER_TRACK experiments of a larger root's runs, for comparison
        larger = [steps for experiments, steps in sizes if experiments > HISTORY_PER_TRACK]
        reference = None
        if larger:
            small = prepare_history_root(folder, HISTORY_PER_TRACK, min(larger), keys=keys)
            small_cache = work / "refresh-reference-cache"
            small_cache.mkdir(exist_ok=True)
            reference = refresh_cost(small, small_cache)
    print(history_table(rows, keys=keys))
    if reference is not None:
        print(
            f"\nrefresh on {HISTORY_PER_TRACK} × {min(larger):,} (the same measure): nothing changed "
            f"{reference['quiet_ms']:.0f} ms, one step appended {reference['grown_ms']:.0f} ms"
        )
    if as_json:
        print(json.dumps([row.__dict__ for row in rows]))


if __name__ == "__main__":
    try:
        main()
    except BenchError as error:
        raise SystemExit(f"bench_scaling: {error}") from None
