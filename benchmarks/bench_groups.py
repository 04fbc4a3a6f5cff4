"""Does drawing repeats as groups slow the overview's first charts? Side by side in one run.

    python -m benchmarks.bench_groups --repeats 2 --rounds 2 --visits 3

Two roots of the same 20 experiments × 2,000 steps × 150 keys (``tests/helpers/benchmark_root.py``), which
differ only in each log's config line: in one, the runs form 7 groups of repeats (sizes 3, 3, 3, 3, 3, 3, 2: one
learning rate per group, the runs of a group differing only in ``data.seed``); in the other, every run has its
own learning rate, so there is no group.

1. The browser (as ``benchmarks/bench_vs_tensorboard.py`` measures "time to curves", with its page predicate and
   Chromium flags): per round, a ``streamlit run`` server per root from an empty cache folder, started one after
   the other; the seconds from opening ``/`` in a new browser context until the first 4 comparison charts are
   drawn (scrolled to at once), first on the server's cold start (every log read), then ``--visits`` times per
   root on the warm servers, alternating between the roots (both servers up, one visited at a time), with the
   browser main thread's busy time until then (Chrome's ``TaskDuration``) and the websocket bytes of each warm
   visit. The rounds alternate which root goes first.
2. The server alone (AppTest): the first run of the overview in a fresh process from an empty cache folder (as
   ``bench_app``'s first load), and a smoothing change after a warm run (the charts built again, the groups'
   bands and means included), alternately per root.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import statistics
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks.bench_app import first_load, widget_change
from benchmarks.bench_vs_tensorboard import (
    COLD_TIMEOUT_S,
    CURVES,
    RLMON_CURVES,
    VIEWPORT,
    WARM_TIMEOUT_S,
    Frames,
    MainThread,
    open_when_up,
    rlmon_command,
    rlmon_env,
    wait_drawn,
)
from tests.helpers.benchmark_root import EXPERIMENTS, write_benchmark_root
from tests.helpers.server import CHROMIUM, CHROMIUM_ARGS, Server, free_port, serve_command

GROUP_SIZES = (3, 3, 3, 3, 3, 3, 2)


def _set_configs(root: Path, *, grouped: bool) -> None:
    """Give each log's config dump a seed and, in the grouped root, its group's learning rate (the generator gives
    every run its own)."""
    assignments = [group for group, size in enumerate(GROUP_SIZES) for _ in range(size)]
    for number in range(1, EXPERIMENTS + 1):
        path = root / f"e{number}_grpo_big" / "train_20260101_000000.log"
        text = path.read_text(encoding="utf-8")
        first, rest = text.split("\n", 1)
        if grouped:
            first = re.sub(r"'lr': \d+e-07", f"'lr': {assignments[number - 1] + 1}e-06", first)
        first = first.replace("'train_batch_size': 64}", f"'train_batch_size': 64, 'seed': {number}}}")
        path.write_text(first + "\n" + rest, encoding="utf-8")


def _time_to_curves(browser: Any, server: Server, *, timeout_s: float) -> tuple[float, float, float]:
    """(seconds, browser main-thread busy seconds, websocket kB) from opening the overview in a new context until
    its first :data:`CURVES` comparison charts are drawn, scrolled to as soon as they are on the page."""
    context = browser.new_context(viewport=VIEWPORT, locale="en-US")
    try:
        page = context.new_page()
        frames, busy = Frames(page), MainThread(page)
        started = time.perf_counter()
        open_when_up(page, server, url=server.url + "/", timeout_s=timeout_s)
        wait_drawn(page, RLMON_CURVES, CURVES, what=f"{server.name}: comparison charts", server=server,
                   timeout_s=timeout_s)  # fmt: skip
        return time.perf_counter() - started, busy.seconds(), frames.received / 1e3
    finally:
        context.close()


def browser_times(
    roots: Mapping[str, Path], work: Path, *, rounds: int, visits: int
) -> dict[str, dict[str, list[float]]]:
    """root name -> {"cold": [...], "warm": [...], "busy": [...], "kb": [...]}: the browser's time to curves on a
    cold and on a warm server, and the main thread's busy seconds and the websocket kB of the warm visits (see the
    module docstring)."""
    from playwright.sync_api import sync_playwright

    times: dict[str, dict[str, list[float]]] = {name: {"cold": [], "warm": [], "busy": [], "kb": []} for name in roots}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        for number in range(rounds):
            order = list(roots) if number % 2 == 0 else list(roots)[::-1]
            with contextlib.ExitStack() as stack:
                servers = {}
                for name in order:  # one cold start at a time: the other server is idle or not started
                    cache = work / f"browser-cache-{number}-{name[0]}"
                    cache.mkdir()
                    port = free_port()
                    servers[name] = stack.enter_context(serve_command(
                        name, rlmon_command(port), port=port, env=rlmon_env(roots[name], cache),
                        log_path=work / f"server-{number}-{name[0]}.log",
                    ))  # fmt: skip
                    seconds, _busy, _kb = _time_to_curves(browser, servers[name], timeout_s=COLD_TIMEOUT_S)
                    times[name]["cold"].append(seconds)
                for _visit in range(visits):
                    for name in order:
                        seconds, busy, kb = _time_to_curves(browser, servers[name], timeout_s=WARM_TIMEOUT_S)
                        times[name]["warm"].append(seconds)
                        times[name]["busy"].append(busy)
                        times[name]["kb"].append(kb)
            print(f"round {number + 1}/{rounds} ({' then '.join(order)}): "
                  + "; ".join(f"{name} cold {times[name]['cold'][-1]:.2f} s, warm "
                              + " ".join(f"{value:.2f}" for value in times[name]["warm"][-visits:])
                              + " s, busy " + " ".join(f"{value:.2f}" for value in times[name]["busy"][-visits:])
                              for name in roots), flush=True)  # fmt: skip
        browser.close()
    return times


def _first_charts_bytes(views: Sequence[Any]) -> dict[str, int]:
    """Bytes of the overview's first :data:`CURVES` comparison charts as the app builds them (its default metrics,
    EMA smoothing, the min-max band): per dataset role summed over the charts, and ``spec`` for the rest of the
    specs' JSON text."""
    from rlmon.analysis.smoothing import Smoothing
    from rlmon.views import overview

    metrics = overview.default_metrics(overview.metric_options(views))
    plans = overview.comparison_charts(
        metrics, views, smoothing=Smoothing("ema", weight=0.6), x="step", log_scale=False, signals=(), highlight=(),
        lang="en", max_points=2000,
    )[:CURVES]  # fmt: skip
    sizes: dict[str, int] = {"spec": 0}
    for plan in plans:
        spec = plan.build()
        datasets = spec.get("datasets", {})
        for name, data in datasets.items():
            sizes[name] = sizes.get(name, 0) + (len(data) if isinstance(data, bytes) else len(json.dumps(data)))
        sizes["spec"] += len(json.dumps({key: value for key, value in spec.items() if key != "datasets"}))
    return sizes


def _min_median(values: list[float], unit: str = "s", scale: float = 1.0) -> str:
    return f"{min(values) * scale:.2f} / {statistics.median(values) * scale:.2f} {unit} ({len(values)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=2, help="rounds of the server-alone measurements")
    parser.add_argument("--rounds", type=int, default=2, help="browser rounds (fresh servers each)")
    parser.add_argument("--visits", type=int, default=3, help="warm visits per root and browser round")
    parser.add_argument("--no-server", action="store_true", help="the browser measurements only")
    args = parser.parse_args()
    from rlmon.logs.cache import LogCache
    from rlmon.runs.groups import find_groups
    from rlmon.runs.loading import load_experiments
    from rlmon.settings import Settings
    from rlmon.sources.discovery import discover_experiments
    from rlmon.views.model import view_of

    chart_bytes: dict[str, dict[str, int]] = {}
    began, load_at_start = time.perf_counter(), os.getloadavg()
    # the app's sample scans may still be writing into the cache folders when the run ends
    with tempfile.TemporaryDirectory(prefix="rlmon-bench-groups-", ignore_cleanup_errors=True) as tmp:
        base = Path(tmp)
        roots = {}
        for name, grouped in (("7 groups", True), ("no groups", False)):
            root = base / name.replace(" ", "-")
            write_benchmark_root(root)
            _set_configs(root, grouped=grouped)
            catalog = discover_experiments([root])
            experiments = load_experiments(catalog, LogCache(None), now=time.time(), settings=Settings())
            found = find_groups(experiments)
            print(f"{name}: {len(found)} groups of sizes {[len(group.members) for group in found]}", flush=True)
            roots[name] = root
            refs = {ref.id: ref for ref in catalog.experiments}
            chart_bytes[name] = _first_charts_bytes([view_of(refs[item.id], item) for item in experiments])
        browser = browser_times(roots, base, rounds=args.rounds, visits=args.visits)
        firsts: dict[str, list[float]] = {name: [] for name in roots}
        changes: dict[str, list[float]] = {name: [] for name in roots}
        if not args.no_server:
            for attempt in range(args.repeats):
                for name, root in roots.items():
                    firsts[name].append(first_load(root, base / f"cache-{attempt}-{id(root)}-{name[0]}"))
            for _round in range(args.repeats):  # alternately: the first AppTest of the process warms what both use
                for name, root in roots.items():
                    median, _worst, _script, _points = widget_change(root, base / f"cache-warm-{name[0]}", repeats=4)
                    changes[name].append(median)
    load_at_end = os.getloadavg()
    print(f"\nMachine: {os.cpu_count()} cores; load average (1 min) {load_at_start[0]:.2f} at the start, "
          f"{load_at_end[0]:.2f} at the end; {time.perf_counter() - began:.0f} s in all.")  # fmt: skip
    header = (
        "| root | browser: first 4 charts, cold start (min / median) | browser: warm server (min / median) "
        "| main thread busy until then, warm (min / median) | websocket kB, warm (median) |"
    )
    rule = "|---|---|---|---|---|"
    if not args.no_server:
        header += " server: first overview, cold cache (min / median) | server: smoothing change (median per round) |"
        rule += "---|---|"
    for name, sizes in chart_bytes.items():
        total = sum(sizes.values())
        parts = ", ".join(f"{role.removeprefix('rlmon_')} {size / 1e3:.0f}" for role, size in sorted(sizes.items()))
        print(f"{name}: the first {CURVES} charts' specs {total / 1e3:.0f} kB ({parts})")
    print("\n" + header + "\n" + rule)
    for name in roots:
        row = (
            f"| {name} | {_min_median(browser[name]['cold'])} | {_min_median(browser[name]['warm'])} "
            f"| {_min_median(browser[name]['busy'])} | {statistics.median(browser[name]['kb']):.0f} |"
        )
        if not args.no_server:
            rounds = " / ".join(f"{value * 1000:.0f}" for value in changes[name])
            row += f" {_min_median(firsts[name])} | {rounds} ms |"
        print(row)


if __name__ == "__main__":
    main()
