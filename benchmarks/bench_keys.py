"""Many distinct keys: cost must grow with the data, not with the number of keys squared.

Usage::

    python -m benchmarks.bench_keys [--lines 200] [--new-keys 1000] [--jsonl-keys 100000] [--out benchmarks/out]

Two logs a hostile or unlucky trainer can write:

* ``wide console log``: ``--lines`` step lines of a verl console log, each with ``--new-keys`` keys no line
  before it had (200 x 1,000: 200,001 keys in 3.6 MB);
* ``wide JSONL``: verl's file logger (``{"step": N, "data": {...}}`` per line) with ``--jsonl-keys`` keys in
  each of 5 records (100,000: 9.2 MB), its RL keys last.

Measured, each in a fresh process timed whole (interpreter start and imports included, wall time) with its
peak RSS (``ru_maxrss`` of the child):

* ``rlmon parse`` of the console log, and of the JSONL;
* the app's first overview on a root holding the console log (AppTest of ``streamlit_app.py``: the catalog,
  loading, the summary, the table, the metric picker and the default charts);
* what the catalog calls the JSONL (``rlmon info ROOT --json``: a verl RL log, not "a verl SFT trainer log").

The distinct keys an experiment keeps are bounded by the ``max_keys`` setting (default 20,000); the keys past
it are dropped with one notice naming the log.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_APPTEST = """
import sys, time
from streamlit.testing.v1 import AppTest
started = time.perf_counter()
at = AppTest.from_file(sys.argv[1], default_timeout=600)
at.run()
assert not at.exception, [item.value for item in at.exception]
print(json.dumps({"seconds": time.perf_counter() - started, "warnings": [w.value for w in at.warning]}))
""".replace("import sys, time", "import json, sys, time")


def write_wide_log(path: Path, *, lines: int, new_keys: int) -> int:
    """A console log whose every step line brings ``new_keys`` keys no line before it had; returns the keys."""
    with path.open("w", encoding="utf-8") as handle:
        handle.write(f"(TaskRunner pid=1) Total training steps: {lines}\n")
        for step in range(1, lines + 1):
            pairs = [f"critic/score/mean:{0.1 + step / (2 * lines):.4f}"]
            pairs += [f"k/{step}_{index}:{index / new_keys:.3f}" for index in range(new_keys)]
            handle.write(f"(TaskRunner pid=1) step:{step} - " + " - ".join(pairs) + "\n")
    return lines * new_keys + 1


def write_wide_jsonl(path: Path, *, records: int, keys: int) -> None:
    """verl's file logger with ``keys`` keys in each of ``records`` records, its RL keys last (past the 64 KB the
    catalog reads of a file's head)."""
    with path.open("w", encoding="utf-8") as handle:
        for step in range(1, records + 1):
            data: dict[str, float] = {f"e/{index:06d}": 0.5 for index in range(keys - 2)}
            data.update({"actor/entropy": 1.0 / step, "critic/score/mean": 0.1 * step})
            handle.write(json.dumps({"step": step, "data": data}) + "\n")


def measured(args: list[str], *, env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """(wall seconds, peak RSS in MB, stdout) of ``python args`` in a fresh process."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, *args], cwd=ROOT, env={**os.environ, **(env or {})}, stdout=subprocess.PIPE, text=True
    )
    out = process.stdout.read() if process.stdout else ""
    _pid, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(args)} failed ({os.waitstatus_to_exitcode(status)})")
    return seconds, usage.ru_maxrss / 1024, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=200)
    parser.add_argument("--new-keys", type=int, default=1000)
    parser.add_argument("--jsonl-keys", type=int, default=100_000)
    parser.add_argument("--skip-app", action="store_true", help="leave out the app's first overview")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="rlmon-bench-keys-") as scratch:
        folder = Path(scratch)
        root = folder / "root"
        (root / "wide").mkdir(parents=True)
        (root / "jsonl").mkdir(parents=True)
        log = root / "wide" / "train.log"
        keys = write_wide_log(log, lines=options.lines, new_keys=options.new_keys)
        jsonl = root / "jsonl" / "metrics.jsonl"
        write_wide_jsonl(jsonl, records=5, keys=options.jsonl_keys)
        print(f"{options.lines} step lines x {options.new_keys} new keys ({keys:,} keys); JSONL: 5 x "
              f"{options.jsonl_keys:,} keys; load average at the start: {os.getloadavg()[0]:.1f}")  # fmt: skip
        print("| what | wall | peak RSS | said |\n|---|---|---|---|", flush=True)
        rows: list[str] = []
        for name, path in (("wide console log", log), ("wide JSONL", jsonl)):
            out = folder / f"{path.stem}.parquet"
            seconds, peak, said = measured(["-m", "rlmon", "parse", str(path), "--out", str(out),
                                            "--cache-dir", str(folder / "cache-parse")])  # fmt: skip
            size = path.stat().st_size / 1e6
            rows.append(f"| `rlmon parse`, {name} ({size:.1f} MB) | {seconds:.2f} s | {peak:.0f} MB | {said.strip()} |")
            print(rows[-1], flush=True)
        seconds, peak, said = measured(["-m", "rlmon", "info", str(root), "--json",
                                        "--cache-dir", str(folder / "cache-info")])  # fmt: skip
        described = json.loads(said)
        listed = [item["id"] for item in described["experiments"]]
        sft = [problem for problem in described["problems"] if "SFT" in problem]
        rows.append(f"| `rlmon info ROOT` (both) | {seconds:.2f} s | {peak:.0f} MB | listed: {listed}; "
                    f"called SFT: {len(sft)} |")  # fmt: skip
        print(rows[-1], flush=True)
        if not options.skip_app:
            env = {"RLMON_LOG_ROOT": str(root / "wide"), "RLMON_CACHE_DIR": str(folder / "cache-app"),
                   "RLMON_LANGUAGE": "en"}  # fmt: skip
            env["RLMON_LOG_ROOT"] = str(root)
            seconds, peak, said = measured(["-c", _APPTEST, str(ROOT / "streamlit_app.py")], env=env)
            result = json.loads(said.strip().splitlines()[-1])
            notes = "; ".join(text for text in result["warnings"] if "keys" in text)[:160]
            rows.append(f"| the app's first overview (AppTest) | {seconds:.2f} s | {peak:.0f} MB | {notes} |")
            print(rows[-1], flush=True)
    print(f"load average at the end: {os.getloadavg()[0]:.1f}", flush=True)


if __name__ == "__main__":
    main()
