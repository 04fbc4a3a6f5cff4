"""Discovery on a large log root: the first walk against the refreshes after it.

    python -m benchmarks.bench_discovery                  # 100,000 folders in a temp folder under /tmp
    python -m benchmarks.bench_discovery --experiments 100

The generated root has ``--experiments`` experiment folders (in 10 track folders), each holding one small
verl log and 33 checkpoint folders ``global_step_<n>`` with ``actor/`` and ``critic/`` inside: 100 folders per
experiment, so 1,000 experiments make 100,010 folders. The tree is left quiet for a few seconds before the
first walk (folders changed in the last seconds are listed again on every refresh, see
:data:`rlmon.sources.discovery.RECENT_CHANGE_S`).

Measured, in one process: the first :func:`~rlmon.sources.discovery.discover_experiments` call (every folder listed,
every log sniffed), a refresh with nothing changed, a refresh after a new experiment folder appeared, after a
log grew, after an experiment folder was deleted, and a full walk (``full_walk_s=0``, what happens every
:data:`rlmon.sources.discovery.FULL_WALK_S`). Each figure also gives how many folders were listed (``os.scandir``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import rlmon.sources.discovery as catalog

TRACKS = 10
CHECKPOINTS = 33
LOG = "".join(
    f"(TaskRunner pid=7) step:{step} - actor/grad_norm:0.2 - critic/score/mean:0.5 - timing_s/step:60.0\n"
    for step in range(1, 21)
)


def make_root(root: Path, experiments: int) -> int:
    """Write the generated tree; returns the number of folders in it (the root included)."""
    folders = 1
    for index in range(experiments):
        track = root / f"track{index % TRACKS}"
        if not track.exists():
            track.mkdir(parents=True)
            folders += 1
        experiment = track / f"e{index}_grpo"
        experiment.mkdir()
        (experiment / "train.log").write_text(LOG, encoding="utf-8")
        folders += 1
        for step in range(CHECKPOINTS):
            checkpoint = experiment / f"global_step_{step * 10}"
            (checkpoint / "actor").mkdir(parents=True)
            (checkpoint / "critic").mkdir()
            (checkpoint / "data.pt").write_bytes(b"")
            folders += 3
    return folders


class ListingCounter:
    """Counts ``os.scandir`` calls made by discovery."""

    def __init__(self) -> None:
        self.count = 0
        self._real = os.scandir

    def __call__(self, path: str | os.PathLike[str]) -> object:
        self.count += 1
        return self._real(path)


def timed(counter: ListingCounter, call: Callable[[], catalog.Catalog]) -> tuple[float, int, catalog.Catalog]:
    counter.count = 0
    start = time.perf_counter()
    result = call()
    return time.perf_counter() - start, counter.count, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--experiments", type=int, default=1000, help="experiment folders (100 folders each)")
    parser.add_argument("--refreshes", type=int, default=5, help="unchanged refreshes to time")
    args = parser.parse_args()

    base = Path(tempfile.mkdtemp(prefix="rlmon-bench-discovery-", dir="/tmp"))
    try:
        root = base / "root"
        start = time.perf_counter()
        folders = make_root(root, args.experiments)
        print(f"generated {folders:,} folders, {args.experiments:,} logs in {time.perf_counter() - start:.1f} s")
        time.sleep(catalog.RECENT_CHANGE_S + 0.5)

        counter = ListingCounter()
        os.scandir = counter  # type: ignore[assignment]
        roots = [root]
        rows: list[tuple[str, float, int]] = []

        seconds, listed, found = timed(counter, lambda: catalog.discover_experiments(roots))
        assert len(found.experiments) == args.experiments, len(found.experiments)
        rows.append(("first walk", seconds, listed))

        times = []
        for _ in range(args.refreshes):
            seconds, listed, found = timed(counter, lambda: catalog.discover_experiments(roots))
            times.append(seconds)
        rows.append((f"refresh, nothing changed (median of {args.refreshes})", statistics.median(times), listed))

        (root / "track0" / "e_new" / "train.log").parent.mkdir()
        (root / "track0" / "e_new" / "train.log").write_text(LOG, encoding="utf-8")
        seconds, listed, found = timed(counter, lambda: catalog.discover_experiments(roots))
        assert "track0/e_new" in found.ids
        rows.append(("refresh, a new experiment folder", seconds, listed))

        grown = root / "track1" / "e1_grpo" / "train.log"
        with grown.open("a", encoding="utf-8") as handle:
            handle.write("(TaskRunner pid=7) step:21 - actor/grad_norm:0.2\n")
        seconds, listed, found = timed(counter, lambda: catalog.discover_experiments(roots))
        assert found.get("track1/e1_grpo").files[0].size == grown.stat().st_size
        rows.append(("refresh, a log grew", seconds, listed))

        shutil.rmtree(root / "track2" / "e2_grpo")
        seconds, listed, found = timed(counter, lambda: catalog.discover_experiments(roots))
        assert "track2/e2_grpo" not in found.ids
        rows.append(("refresh, an experiment folder deleted", seconds, listed))

        seconds, listed, found = timed(counter, lambda: catalog.discover_experiments(roots, full_walk_s=0))
        rows.append((f"full walk (every {catalog.FULL_WALK_S:.0f} s)", seconds, listed))

        print(f"{'measurement':<48} {'seconds':>8} {'folders listed':>15}")
        for name, seconds, listed in rows:
            print(f"{name:<48} {seconds:>8.3f} {listed:>15,}")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
