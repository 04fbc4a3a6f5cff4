"""The bytes one line chart sends to the browser, by dataset, and the time to build its spec.

    python -m benchmarks.bench_chart_bytes                 # 1, 20 and 50 runs x 2,000 steps
    python -m benchmarks.bench_chart_bytes --steps 5000 --json

The charts are those the pages draw: the experiment page's (one run, up to the ``max_points`` setting's 2,000
points a line) and the overview's comparison charts (``rlmon.views.overview.line_points`` points a line), with
EMA smoothing on (rlmon's default), as Arrow (what ``st.vega_lite_chart`` ships). Each run's value is a noisy
sawtooth with a spike, so downsampling has something to keep. The bytes are the Arrow IPC streams of the spec's
datasets (``rlmon_raw``: the raw lines; ``rlmon_smoothed``: the smoothed lines; ``rlmon_hover``: the hover
table); the rest of the spec (its JSON text) is given apart.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from typing import Any

import polars as pl

from rlmon.analysis.smoothing import Smoothing
from rlmon.schema import LONG_SCHEMA
from rlmon.views import overview
from rlmon.views.charts import ChartOptions, metric_chart_spec


def long_frame(runs: int, steps: int) -> pl.DataFrame:
    """``runs`` runs of ``steps`` steps of one metric: a sawtooth with noise and a spike per run."""
    rows = []
    for run in range(runs):
        for step in range(1, steps + 1):
            value = 1.0 + 0.1 * math.sin(step / 37 + run) + 0.01 * ((step * 7919 + run * 104729) % 97)
            if step == 1 + (run * 131) % steps:
                value += 5.0
            rows.append((f"run{run:02d}", step, step / 120, "actor/entropy", value))
    return pl.DataFrame(rows, schema=LONG_SCHEMA, orient="row")


def measure(runs: int, steps: int, repeats: int) -> dict[str, Any]:
    long = long_frame(runs, steps)
    points = 2000 if runs == 1 else overview.line_points(2000, runs)
    options = ChartOptions(title="entropy", y_title="nats", smoothing=Smoothing("ema", weight=0.6),
                           max_points=points, arrow=True)  # fmt: skip
    times = []
    spec: dict[str, Any] = {}
    for _ in range(repeats):
        started = time.perf_counter()
        spec = metric_chart_spec(long, options)
        times.append(time.perf_counter() - started)
    datasets = {name: len(data) for name, data in spec["datasets"].items()}
    text = len(json.dumps({key: value for key, value in spec.items() if key != "datasets"}))
    return {
        "runs": runs,
        "steps": steps,
        "points_per_line": points,
        "datasets_bytes": datasets,
        "spec_text_bytes": text,
        "total_bytes": sum(datasets.values()) + text,
        "build_s_median": statistics.median(times),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=2000, help="steps per run (2,000)")
    parser.add_argument("--runs", type=int, nargs="+", default=[1, 20, 50], help="runs per chart (1 20 50)")
    parser.add_argument("--repeats", type=int, default=3, help="builds per chart; the median time is given")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON too")
    args = parser.parse_args()
    results = [measure(runs, args.steps, args.repeats) for runs in args.runs]
    print("| runs x steps | points a line (bound) | raw | smoothed | hover | spec text | total | build |")
    print("|---|---|---|---|---|---|---|---|")
    for item in results:
        sizes = item["datasets_bytes"]
        print(
            f"| {item['runs']} x {item['steps']:,} | {item['points_per_line']:,} "
            f"| {sizes.get('rlmon_raw', 0) / 1000:,.1f} kB | {sizes.get('rlmon_smoothed', 0) / 1000:,.1f} kB "
            f"| {sizes.get('rlmon_hover', 0) / 1000:,.1f} kB | {item['spec_text_bytes'] / 1000:,.1f} kB "
            f"| {item['total_bytes'] / 1000:,.1f} kB | {item['build_s_median']:.3f} s |"
        )
    if args.json:
        print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
