"""Write a generated verl log root again as TensorBoard event files, for benchmarks/bench_vs_tensorboard.py.

    <tb-venv>/bin/python benchmarks/tb_events.py LOG_ROOT EVENT_ROOT [--jobs 2]

Runs with the Python of TensorBoard's own virtual environment (the benchmark makes it; rlmon does not depend on
TensorBoard) and imports nothing from rlmon. Each experiment folder of ``LOG_ROOT`` (a folder holding
``*.log``) becomes one run folder of ``EVENT_ROOT`` with the same relative path. Every ``key:value`` pair of
every ``step:N - ...`` line becomes one scalar event (tag = the key, step = N) written by TensorBoard's own
``EventFileWriter``: one event per scalar, as verl's TensorBoard logger writes them (``add_scalar`` per key).
The logs are the ones tests/helpers/benchmark_root.py generates (one line per step, plain ``key:value`` pairs), so a
plain split reads them; this is not rlmon's parser and is not meant for other logs.

Wall times are not in the generated logs: they are made up from the step, ``timing_s/step`` seconds apart
(60 s when that key is absent), so TensorBoard's relative-time axis has something to show.
"""

from __future__ import annotations

import argparse
import multiprocessing
import re
import sys
import time
from pathlib import Path

_STEP = re.compile(r"\bstep:(\d+) - ")
_START_WALL_TIME = 1_767_225_600.0  # 2026-01-01 00:00 UTC, the date in the generated log names


def run_folders(log_root: Path) -> list[Path]:
    """Experiment folders under ``log_root`` (folders that hold a ``*.log``), sorted."""
    return sorted({path.parent for path in log_root.rglob("*.log")})


def write_run(log_folder: Path, event_folder: Path) -> int:
    """The steps of the logs in ``log_folder`` as one event file in ``event_folder``; returns the scalars written."""
    from tensorboard.compat.proto.event_pb2 import Event
    from tensorboard.compat.proto.summary_pb2 import Summary
    from tensorboard.summary.writer.event_file_writer import EventFileWriter

    event_folder.mkdir(parents=True, exist_ok=True)
    writer = EventFileWriter(str(event_folder), max_queue_size=4096, flush_secs=600)
    written = 0
    wall_time = _START_WALL_TIME
    try:
        for log in sorted(log_folder.glob("*.log")):
            with log.open(encoding="utf-8") as lines:
                for line in lines:
                    match = _STEP.search(line)
                    if match is None:
                        continue
                    step = int(match.group(1))
                    pairs = [pair.rsplit(":", 1) for pair in line[match.end() :].rstrip("\n").split(" - ")]
                    values = {key: float(value) for key, value in pairs}
                    wall_time += values.get("timing_s/step", 60.0)
                    for key, value in values.items():
                        summary = Summary(value=[Summary.Value(tag=key, simple_value=value)])
                        writer.add_event(Event(wall_time=wall_time, step=step, summary=summary))
                        written += 1
    finally:
        writer.close()
    return written


def _write_one(job: tuple[str, str]) -> int:
    return write_run(Path(job[0]), Path(job[1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("log_root", type=Path)
    parser.add_argument("event_root", type=Path)
    parser.add_argument("--jobs", type=int, default=2, help="processes writing runs in parallel (default 2)")
    args = parser.parse_args()
    folders = run_folders(args.log_root)
    if not folders:
        raise SystemExit(f"no *.log files under {args.log_root}")
    jobs = [(str(folder), str(args.event_root / folder.relative_to(args.log_root))) for folder in folders]
    started = time.perf_counter()
    with multiprocessing.Pool(max(1, args.jobs)) as pool:
        scalars = sum(pool.imap_unordered(_write_one, jobs))
    print(f"{len(jobs)} runs, {scalars} scalars in {time.perf_counter() - started:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
