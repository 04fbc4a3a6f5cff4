"""The alert watcher: how soon a crash reaches the team, and what watching costs.

    python -m benchmarks.bench_alerts                          # both parts
    python -m benchmarks.bench_alerts --periods 2 10 30 --repeats 3 --no-cost
    python -m benchmarks.bench_alerts --no-latency --refreshes 10 --data benchmarks/out/data

1. **Latency**: ``rlmon watch`` (its own process, as the systemd unit runs it) on a root of running experiments
   (tests.helpers.alert_logs' verl console logs), sending to a JSON webhook receiver on loopback through apprise.
   At a random moment within a refresh period, a crash (the Hydra failure block) is appended to one run's log;
   the figure is the time from that append to the message's arrival at the receiver. Target: at most 2 x the
   refresh period (a refresh that just missed the line, then the next one reads, detects and sends).
2. **Cost** at a 30 s period on tests/helpers/benchmark_root.py's root (20 experiments x 2,000 steps x 150
   keys, validation every 25 steps), from an empty cache folder: the first refresh (every log parsed, every
   signal found; history, nothing sent), then ``--refreshes`` refreshes with nothing changing, then as many with
   two runs growing (a step line appended to each every 10 s, as live runs do). CPU is the process's user+system
   time (``/proc/<pid>/stat``) over each phase divided by its refreshes; memory is its resident set (VmRSS) at
   the end of each phase and its peak (VmHWM).

Prints markdown tables on standard output, progress on standard error.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.bench_scaling import prepare_roots
from tests.helpers.alert_logs import GrowingLog
from tests.helpers.receivers import WebhookReceiver, wait_until
from tests.helpers.watch_process import WatchProcess

ROOT = Path(__file__).resolve().parent.parent
TICKS = os.sysconf("SC_CLK_TCK")


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def memory_mb(pid: int) -> tuple[float, float]:
    """(resident now, resident peak) in MB."""
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(("VmRSS:", "VmHWM:")):
            values[line.split(":")[0]] = int(line.split()[1]) / 1024
    return values["VmRSS"], values["VmHWM"]


# --------------------------------------------------------------------------------------------------- latency


def measure_latency(period_s: int, repeats: int, work: Path) -> list[float]:
    root = work / f"latency-{period_s}" / "logs"
    logs = [GrowingLog(root, f"run_{index}") for index in range(repeats)]
    for log in logs:
        log.start(20)
    receiver = WebhookReceiver().start()
    args = [
        str(root),
        "--notify",
        receiver.url,
        "--refresh-s",
        str(period_s),
        "--cache-dir",
        str(root.parent / "cache"),
    ]
    watch = WatchProcess(args, {}, root.parent, "watch")
    latencies: list[float] = []
    try:
        if not watch.wait_for("first start on", timeout_s=120):
            raise RuntimeError(watch.err())
        rng = random.Random(period_s)
        for index, log in enumerate(logs):
            time.sleep(rng.uniform(0, period_s))
            before = len(receiver.posts)
            appended = time.monotonic()
            log.crash()
            if not wait_until(lambda: len(receiver.posts) > before, timeout_s=4 * period_s + 30, every_s=0.02):  # noqa: B023 - called here, at once
                raise RuntimeError(f"no message within {4 * period_s + 30} s:\n{watch.err()}")
            latencies.append(receiver.times[before] - appended)
            _say(f"  period {period_s} s, crash {index + 1}: {latencies[-1]:.2f} s")
    finally:
        watch.stop()
        receiver.stop()
    return latencies


# --------------------------------------------------------------------------------------------------- cost


def _append_step(path: Path, step: int) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write(
            f"(TaskRunner pid=1) step:{step} - critic/score/mean:0.5 - actor/grad_norm:0.25 - actor/entropy:0.3 - "
            "response_length/mean:5000 - timing_s/step:60.0\n"
        )


def measure_cost(root: Path, refreshes: int, work: Path) -> dict[str, tuple[float, float, float, float]]:
    """Phase -> (wall s, CPU s per refresh, RSS MB at its end, peak RSS MB)."""
    period_s = 30
    receiver = WebhookReceiver().start()
    cache = work / "cost-cache"
    args = [str(root), "--notify", receiver.url, "--refresh-s", str(period_s), "--cache-dir", str(cache)]
    watch = WatchProcess(args, {}, work, "cost")
    pid = watch.process.pid
    found: dict[str, tuple[float, float, float, float]] = {}
    try:
        started = time.monotonic()
        if not watch.wait_for("first start on", timeout_s=900):
            raise RuntimeError(watch.err())
        first_wall = time.monotonic() - started
        found["first refresh (cold cache, every log parsed)"] = (first_wall, cpu_s(pid), *memory_mb(pid))
        _say(f"  first refresh {first_wall:.1f} s, CPU {cpu_s(pid):.1f} s")
        # a refresh begins every period_s from the first: measure whole periods from here
        for phase, growing in (("quiet: nothing changes", 0), ("two runs growing, a step each every 10 s", 2)):
            cpu_before, wall_before = cpu_s(pid), time.monotonic()
            steps = {index: 2000 for index in range(1, growing + 1)}
            deadline = wall_before + refreshes * period_s
            while time.monotonic() < deadline:
                for index in steps:
                    steps[index] += 1
                    _append_step(root / f"e{index}_grpo_big" / "train_20260101_000000.log", steps[index])
                time.sleep(min(10.0, max(0.0, deadline - time.monotonic())))
            used = cpu_s(pid) - cpu_before
            found[phase] = (time.monotonic() - wall_before, used / refreshes, *memory_mb(pid))
            _say(f"  {phase}: {used / refreshes:.3f} CPU s per refresh")
    finally:
        watch.stop()
        receiver.stop()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--periods", type=int, nargs="+", default=[2, 10, 30], help="refresh periods (s) timed")
    parser.add_argument("--repeats", type=int, default=3, help="crashes timed per period (default 3)")
    parser.add_argument("--refreshes", type=int, default=8, help="refreshes per cost phase (default 8)")
    parser.add_argument("--data", type=Path, help="keep the generated root here and reuse it next time")
    parser.add_argument("--no-latency", action="store_true")
    parser.add_argument("--no-cost", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="rlmon-bench-alerts-") as scratch:
        work = Path(scratch)
        _say(f"load average {os.getloadavg()[0]:.1f} at the start")
        if not args.no_latency:
            print("| refresh period | crash appended → message received (min / median / max) | 2 × period |")
            print("|---|---|---|")
            for period_s in args.periods:
                found = measure_latency(period_s, args.repeats, work)
                print(
                    f"| {period_s} s | {min(found):.2f} / {statistics.median(found):.2f} / {max(found):.2f} s "
                    f"({len(found)} crashes) | {2 * period_s} s |",
                    flush=True,
                )
        if not args.no_cost:
            data = args.data or work / "data"
            root = prepare_roots(data, [(20, 2000)], keys=150)[(20, 2000)]
            if args.data is not None:  # the growing phase appends to its logs: work on a copy of the kept root
                shutil.copytree(root, work / "root")
                root = work / "root"
            found = measure_cost(root, args.refreshes, work)
            print()
            print("| 20 × 2,000 steps × 150 keys, 30 s period | wall | CPU per refresh | RSS at the end | peak RSS |")
            print("|---|---|---|---|---|")
            for phase, (wall, cpu, rss, peak) in found.items():
                cpu_text = f"{cpu:.1f} s (whole)" if phase.startswith("first") else f"{cpu:.3f} s"
                print(f"| {phase} | {wall:.0f} s | {cpu_text} | {rss:.0f} MB | {peak:.0f} MB |")
        _say(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
