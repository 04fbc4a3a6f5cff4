"""Test-suite benchmark: the wall time of each test tier, in one or more checkouts, alternating.

Usage::

    python -m benchmarks.bench_tests [CHECKOUT ...] [--tier browser|other|all|ci] [--rounds 2] [--top 25]
                                     [--out benchmarks/out] [--pytest-args "-n 0 tests/unit/views/test_tooltip.py"]

Each checkout (a clone or worktree of rlmon; default: this one) runs the chosen tier ``--rounds`` times, the
checkouts alternating within a round so that a change in the machine's load falls on all of them alike. Tiers:
``browser`` (``-m browser``), ``other`` (``-m "not browser"``), ``all`` (both in one run, as the options in
``pyproject.toml`` have it) and ``ci`` (``other`` then ``browser``, each timed). Each run is
``python3 -m pytest -q -p no:cacheprovider --durations=0`` in the checkout, with ``PYTHONPATH`` set to the
checkout so that it tests its own ``rlmon``; the wall time is of the whole process (collection included).

Printed: per checkout and tier, the min / max wall time over the rounds, the load average at each start, the
pass/fail line; then the ``--top`` slowest tests of the last checkout with each one's time in every checkout
(min over the rounds), so a change can be compared test by test on a machine shared with other work. The raw
output of every run goes to ``--out``. ``--pytest-args`` adds options or test paths to every run (``-n 0`` for
one process, ``-n 2`` for two, as ``pyproject.toml``'s options have it when not given).
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

TIERS = {"browser": ["-m", "browser"], "other": ["-m", "not browser"], "all": []}
DURATION = re.compile(r"^\s*([\d.]+)s (call|setup|teardown)\s+(\S+)")
SUMMARY = re.compile(r"^=*\s*(\d+ (passed|failed).*) in [\d.]+s")


def run_tier(
    checkout: Path, tier: str, out: Path, tag: str, extra: list[str]
) -> tuple[float, dict[str, float], str, float]:
    """One pytest run: (wall seconds, test id -> seconds of setup + call + teardown, summary, load average)."""
    load = os.getloadavg()[0]
    env = os.environ | {"PYTHONPATH": str(checkout)}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--durations=0", *TIERS[tier], *extra]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=checkout, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    text = done.stdout + done.stderr
    (out / f"{tag}.txt").write_text(text, encoding="utf-8")
    per_test: dict[str, float] = defaultdict(float)
    summary = f"exit {done.returncode}"
    for line in text.splitlines():
        if match := DURATION.match(line):
            per_test[match.group(3)] += float(match.group(1))
        elif match := SUMMARY.match(line.strip("= ")) or SUMMARY.match(line):
            summary = match.group(1)
    return wall, dict(per_test), summary, load


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkouts", nargs="*", type=Path, default=[Path(__file__).resolve().parent.parent])
    parser.add_argument("--tier", choices=[*TIERS, "ci"], default="ci")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "out")
    parser.add_argument("--pytest-args", default="", help="more pytest options or test paths for every run")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    tiers = ["other", "browser"] if args.tier == "ci" else [args.tier]
    checkouts = [checkout.resolve() for checkout in args.checkouts]
    walls: dict[tuple[str, str], list[float]] = defaultdict(list)
    tests: dict[tuple[str, str], float] = {}
    for round_number in range(1, args.rounds + 1):
        for checkout in checkouts:
            for tier in tiers:
                tag = f"{checkout.name}-{tier}-{round_number}"
                wall, per_test, summary, load = run_tier(checkout, tier, args.out, tag, shlex.split(args.pytest_args))
                walls[(checkout.name, tier)].append(wall)
                for test, seconds in per_test.items():
                    key = (checkout.name, test)
                    tests[key] = min(seconds, tests.get(key, seconds))
                print(f"{tag}: {wall / 60:.1f} min ({summary}; load average {load:.1f} at the start)", flush=True)
    print("\nper checkout and tier (min / max over the rounds, minutes):")
    for (name, tier), values in walls.items():
        print(f"  {name:<24} {tier:<8} {min(values) / 60:5.1f} / {max(values) / 60:5.1f}")
    last = checkouts[-1].name
    slowest = sorted((seconds, test) for (name, test), seconds in tests.items() if name == last)[::-1][: args.top]
    print(f"\nslowest {len(slowest)} tests of {last} (seconds, min over the rounds; setup + call + teardown):")
    print("  " + "".join(f"{checkout.name[:12]:>14}" for checkout in checkouts) + "  test")
    for _, test in slowest:
        cells = "".join(
            f"{tests[(checkout.name, test)]:>14.1f}" if (checkout.name, test) in tests else f"{'—':>14}"
            for checkout in checkouts
        )
        print(f"  {cells}  {test}")


if __name__ == "__main__":
    main()
