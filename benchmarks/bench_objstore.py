"""Object-storage benchmark: a 200 MB verl log on an S3 protocol server, read cold and after a 1 MB append.

Usage::

    python -m benchmarks.bench_objstore [--mb 200] [--append-mb 1] [--repeats 3] [--out benchmarks/out]

The log is the ``rlmon`` file of ``benchmarks/bench_parse.py`` (same generator, same seed). It is uploaded to
moto's S3 server (``ThreadedMotoServer`` on 127.0.0.1, in this process, with the request log of
``tests/helpers/objstore_server.py``) as ``s3://bench-runs/verl/e1/train.log``. Each repeat, in one process (imports
excluded, wall time):

* cold: an empty cache folder; sync the root (list + download the object into the mirror), then parse the
  mirror copy through :class:`~rlmon.logs.cache.LogCache` with that cache folder, as the app does;
* append: the object is replaced by itself plus ``--append-mb`` of step lines (what a trainer's sync tool
  does: S3 objects cannot be appended to; the upload is not timed); sync again (one ranged GET of the new
  bytes plus the 4 KiB overlap), then read through the warm ``LogCache`` (parses only the new bytes);
* local: for reference, a cold parse of the same file from a local folder (no object storage), with an
  empty cache folder of its own (the Parquet is written as in the cold case).

Bytes are those the server sent in answer to GETs (the request log), and the requests counted. Figures are
min / median over the repeats; the object is put back to its first version before each repeat.
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import boto3

from benchmarks import bench_parse
from rlmon.logs.cache import LogCache
from rlmon.roots import parse_object_url
from rlmon.sources.objstore import mirror_folder, sync_root
from tests.helpers.objstore_server import S3Server, aws_environment

ROOT = Path(__file__).resolve().parent.parent
BUCKET = "bench-runs"
KEY = "verl/e1/train.log"


def appended_lines(first_step: int, size_mb: float) -> bytes:
    """Step lines in the file's own format (120 keys) from ``first_step`` on, about ``size_mb`` in all."""
    lines: list[str] = []
    total, step = 0, first_step
    while total < size_mb * 1024 * 1024:
        line = bench_parse.rlmon_line(step)
        lines.append(line)
        total += len(line.encode("utf-8"))
        step += 1
    return "".join(lines).encode("utf-8")


def _span(values: list[float], scale: float = 1.0, digits: int = 2) -> str:
    return f"{min(values) * scale:.{digits}f} / {statistics.median(values) * scale:.{digits}f}"


def _gets(server: S3Server) -> tuple[int, int]:
    """(GET requests, body bytes sent) since the last call; listings count as requests."""
    taken = [request for request in server.take_requests() if request.method == "GET"]
    return len(taken), sum(request.sent for request in taken)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=float, default=200.0)
    parser.add_argument("--append-mb", type=float, default=1.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "out")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    log = bench_parse._prepare("rlmon", args.out, args.mb)
    original = log.read_bytes()
    steps = sum(1 for line in original.splitlines() if b" step:" in line)
    grown = original + appended_lines(steps + 1, args.append_mb)
    print(f"log: {len(original) / 1e6:.1f} MB, {steps} steps; append: {(len(grown) - len(original)) / 1e6:.2f} MB")

    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one line per request otherwise
    server = S3Server()
    server.start()
    work = Path(tempfile.mkdtemp(prefix="rlmon-bench-objstore-"))
    os.environ.update(aws_environment(server, work))
    client = boto3.client("s3", endpoint_url=server.endpoint, region_name="us-east-1")
    client.create_bucket(Bucket=BUCKET)
    root = parse_object_url(f"s3://{BUCKET}/verl")
    figures: dict[str, list[float]] = {name: [] for name in ("cold_sync", "cold_parse", "append_sync", "append_parse")}
    figures["local_parse"] = []
    transfer: dict[str, tuple[int, int]] = {}
    try:
        for repeat in range(args.repeats):
            client.put_object(Bucket=BUCKET, Key=KEY, Body=original)
            cache_dir = work / f"cache-{repeat}"
            server.take_requests()

            started = time.perf_counter()
            sync_root(root, cache_dir)
            synced = time.perf_counter()
            cache = LogCache(cache_dir)
            rows = cache.read(mirror_folder(cache_dir, root) / "e1" / "train.log").steps.height
            figures["cold_sync"].append(synced - started)
            figures["cold_parse"].append(time.perf_counter() - synced)
            transfer["cold"] = _gets(server)
            assert rows == steps, (rows, steps)

            client.put_object(Bucket=BUCKET, Key=KEY, Body=grown)
            server.take_requests()
            started = time.perf_counter()
            stats = sync_root(root, cache_dir)
            synced = time.perf_counter()
            rows = cache.read(mirror_folder(cache_dir, root) / "e1" / "train.log").steps.height
            figures["append_sync"].append(synced - started)
            figures["append_parse"].append(time.perf_counter() - synced)
            transfer["append"] = _gets(server)
            assert stats.appended == 1 and rows > steps, (stats, rows)

            local_cache = work / f"local-cache-{repeat}"
            started = time.perf_counter()
            LogCache(local_cache).read(log)
            figures["local_parse"].append(time.perf_counter() - started)
            shutil.rmtree(cache_dir, ignore_errors=True)
            shutil.rmtree(local_cache, ignore_errors=True)
            print(
                f"repeat {repeat + 1}: "
                + ", ".join(f"{name} {values[-1]:.2f} s" for name, values in figures.items() if values)
            )
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)

    print()
    print(
        f"| {args.mb:g} MB log over loopback S3 (moto) | time, s (min / median of {args.repeats}) | GETs | bytes sent |"
    )
    print("| --- | --- | --- | --- |")
    cold = [a + b for a, b in zip(figures["cold_sync"], figures["cold_parse"], strict=True)]
    append = [a + b for a, b in zip(figures["append_sync"], figures["append_parse"], strict=True)]
    cold_gets, cold_bytes = transfer["cold"]
    append_gets, append_bytes = transfer["append"]
    print(f"| cold: sync + parse | {_span(cold)} | {cold_gets} | {cold_bytes / 1e6:.1f} MB |")
    print(f"| - of which sync (list + download) | {_span(figures['cold_sync'])} | | |")
    print(f"| - of which parse | {_span(figures['cold_parse'])} | | |")
    print(
        f"| after a {args.append_mb:g} MB append: sync + parse | {_span(append)} | {append_gets} "
        f"| {append_bytes / 1e6:.3f} MB |"
    )
    print(f"| - of which sync (list + one ranged GET) | {_span(figures['append_sync'])} | | |")
    print(f"| - of which parse (the new bytes only) | {_span(figures['append_parse'])} | | |")
    print(f"| local folder, cold parse (reference) | {_span(figures['local_parse'])} | | |")


if __name__ == "__main__":
    main()
