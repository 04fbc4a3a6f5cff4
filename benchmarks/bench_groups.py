"""Does drawing repeats as groups slow the overview's first charts? Side by side in one run.

    python -m benchmarks.bench_groups --repeats 2

Two roots of the same 20 experiments × 2,000 steps × 150 keys (``tests/helpers/benchmark_root.py``), which
differ only in each log's config line: in one, the runs form 7 groups of repeats (sizes 3, 3, 3, 3, 3, 3, 2: one
learning rate per group, the runs of a group differing only in ``data.seed``); in the other, every run has its
own learning rate, so there is no group. For each root, alternately: the first run of the overview in a fresh
process from an empty cache folder (as ``bench_app``'s first load: every log read, the first charts built), and
a smoothing change after that (the charts built again, the groups' bands and means included).
"""

from __future__ import annotations

import argparse
import re
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.bench_app import first_load, widget_change
from tests.helpers.benchmark_root import EXPERIMENTS, write_benchmark_root

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    from rlmon.logs.cache import LogCache
    from rlmon.runs.groups import find_groups
    from rlmon.runs.loading import load_experiments
    from rlmon.settings import Settings
    from rlmon.sources.discovery import discover_experiments

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
            print(f"{name}: {len(found)} groups of sizes {[len(group.members) for group in found]}")
            roots[name] = root
        firsts: dict[str, list[float]] = {name: [] for name in roots}
        for attempt in range(args.repeats):
            for name, root in roots.items():
                firsts[name].append(first_load(root, base / f"cache-{attempt}-{id(root)}-{name[0]}"))
        changes: dict[str, list[float]] = {name: [] for name in roots}
        for _round in range(args.repeats):  # alternately: the first AppTest of the process warms what both use
            for name, root in roots.items():
                median, _worst, _script, _points = widget_change(root, base / f"cache-warm-{name[0]}", repeats=4)
                changes[name].append(median)
        print("\n| root | first overview, cold cache (min / median) | smoothing change (median of each round) |")
        print("|---|---|---|")
        for name in roots:
            times = firsts[name]
            rounds = " / ".join(f"{value * 1000:.0f}" for value in changes[name])
            print(f"| {name} | {min(times):.2f} / {statistics.median(times):.2f} s | {rounds} ms |")


if __name__ == "__main__":
    main()
