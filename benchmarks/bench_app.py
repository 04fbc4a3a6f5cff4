"""Speed of the app, measured through Streamlit's AppTest (server time: no browser, no network).

    python -m benchmarks.bench_app            # all three measurements
    python -m benchmarks.bench_app --quick    # demo root only

1. First load on the demo root from a cold cache: a fresh process (Streamlit already imported, as in a
   running server), an empty cache folder, the first run of the overview. Target <= 3 s.
2. A widget change on the demo root (smoothing EMA <-> moving average): one rerun, on the overview and on an
   experiment's page (17 charts, the explorer's included). Target <= 300 ms.
3. A widget change on the generated root (tests/helpers/benchmark_root.py: 20 experiments x 2,000 steps x 150
   keys), after the logs were read once: the overview (20 lines per chart) and an experiment's page (35 charts).
   Target <= 1 s.

Times are the script's own run time (``streamlit_app.py`` records it in session state), without AppTest's
overhead. AppTest reruns the whole script on a widget change; in the browser a widget inside the page's
fragment reruns only the fragment, so these numbers are upper bounds. The script also checks that no chart line
carries more than ``max_points`` (2,000) points.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.helpers.benchmark_root import BIG_EXPERIMENT, EXPERIMENTS, KEYS, STEPS, write_benchmark_root

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "streamlit_app.py")
DEMO_EXPERIMENT = "4b/e2_dapo_4b"

_FIRST_LOAD = """
import os, sys, time
from streamlit.testing.v1 import AppTest
at = AppTest.from_file(sys.argv[1], default_timeout=300)
at.run()
elapsed = at.session_state["_rlmon_run_s"]
assert not at.exception, [item.value for item in at.exception]
print(elapsed)
"""


def first_load(log_root: Path, cache_dir: Path) -> float:
    """Seconds for the first run of the overview in a fresh process with an empty cache folder."""
    env = dict(os.environ, RLMON_LOG_ROOT=str(log_root), RLMON_CACHE_DIR=str(cache_dir))
    done = subprocess.run(
        [sys.executable, "-c", _FIRST_LOAD, APP], env=env, capture_output=True, text=True, check=False, cwd=ROOT
    )
    if done.returncode != 0:
        raise SystemExit(f"first load failed:\n{done.stderr[-3000:]}")
    return float(done.stdout.strip().splitlines()[-1])


def widget_change(
    log_root: Path, cache_dir: Path, *, repeats: int, experiment: str | None = None
) -> tuple[float, float, float, int]:
    """(median fragment seconds, worst fragment seconds, median whole-script seconds, most points in one chart
    line) for a smoothing change after a warm run: on the overview, or on the page of ``experiment``."""
    os.environ["RLMON_LOG_ROOT"] = str(log_root)
    os.environ["RLMON_CACHE_DIR"] = str(cache_dir)
    # A benchmark harness around the app, not library code: the streamlit ban does not apply.
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=600)
    at.run()
    assert not at.exception, [item.value for item in at.exception]
    prefix = "overview"
    if experiment is not None:
        prefix = "experiment"
        at.switch_page("pages/experiment.py")
        at.query_params["id"] = experiment
        at.run()
        assert not at.exception, [item.value for item in at.exception]
    at.run()  # warm: every log read, every view built
    times = []
    scripts = []
    for index in range(repeats):
        # A value not seen before each time, so no chart comes from the shared spec memo.
        if index % 2 == 0:
            at.session_state[f"{prefix}_smoothing"] = "ma"
            at.session_state[f"{prefix}_window"] = 3 + index
        else:
            at.session_state[f"{prefix}_smoothing"] = "ema"
            at.session_state[f"{prefix}_weight"] = round(0.5 + 0.01 * index, 2)
        at.run()
        assert not at.exception, [item.value for item in at.exception]
        # The script's own times, without AppTest's: the page fragment (what the browser's widget change
        # reruns) and the whole script (frame + page, what AppTest reruns).
        times.append(float(at.session_state["_rlmon_fragment_s"]))
        scripts.append(float(at.session_state["_rlmon_run_s"]))
    return statistics.median(times), max(times), statistics.median(scripts), most_points(at)


def most_points(at: object) -> int:
    """The largest number of points any experiment has in any chart's main dataset."""
    import polars as pl
    import pyarrow as pa

    most = 0
    for element in at.get("vega_lite_chart"):  # type: ignore[attr-defined]
        spec = json.loads(element.proto.spec)
        name = spec.get("data", {}).get("name")
        for named in element.proto.datasets:
            if named.name != name:
                continue
            frame = pl.from_arrow(pa.ipc.open_stream(io.BytesIO(named.data.data)).read_all())
            if isinstance(frame, pl.DataFrame) and "experiment" in frame.columns and "step" in frame.columns:
                counts = frame.group_by("experiment").len()
                most = max(most, int(counts["len"].max() or 0))
    return most


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="demo root only")
    parser.add_argument("--repeats", type=int, default=6)
    args = parser.parse_args()
    from rlmon.demo import write_demo_root

    results: dict[str, float | int] = {}
    with tempfile.TemporaryDirectory(prefix="rlmon-bench-") as tmp:
        base = Path(tmp)
        started = time.perf_counter()
        demo = write_demo_root(base / "demo")
        results["demo_write_s"] = time.perf_counter() - started
        print(f"demo root written in {results['demo_write_s']:.2f} s (target < 1 s)")
        results["demo_first_load_s"] = first_load(demo, base / "cache-cold")
        print(f"demo root, first load from a cold cache: {results['demo_first_load_s']:.2f} s (target <= 3 s)")
        median, worst, script, points = widget_change(demo, base / "cache-demo", repeats=args.repeats)
        results |= {
            "demo_widget_median_s": median,
            "demo_widget_worst_s": worst,
            "demo_widget_script_s": script,
            "demo_max_points": points,
        }
        print(
            f"demo root, smoothing change: median {median * 1000:.0f} ms, worst {worst * 1000:.0f} ms "
            f"(target <= 300 ms); whole script {script * 1000:.0f} ms"
        )
        median, worst, script, points = widget_change(
            demo, base / "cache-demo", repeats=args.repeats, experiment=DEMO_EXPERIMENT
        )
        results |= {
            "demo_experiment_widget_median_s": median,
            "demo_experiment_widget_worst_s": worst,
            "demo_experiment_max_points": points,
        }
        print(
            f"demo root, experiment page, smoothing change: median {median * 1000:.0f} ms, "
            f"worst {worst * 1000:.0f} ms (target <= 300 ms); whole script {script * 1000:.0f} ms"
        )
        if not args.quick:
            big = base / "big"
            start = time.perf_counter()
            write_benchmark_root(big)
            size_mb = sum(path.stat().st_size for path in big.rglob("*.log")) / 1e6
            print(f"generated root: {EXPERIMENTS} x {STEPS} steps x {KEYS} keys, {size_mb:.0f} MB "
                  f"in {time.perf_counter() - start:.1f} s")  # fmt: skip
            start = time.perf_counter()
            median, worst, script, points = widget_change(big, base / "cache-big", repeats=args.repeats)
            print(f"  (first read, warm-up and {args.repeats} changes took {time.perf_counter() - start:.1f} s)")
            results |= {
                "big_widget_median_s": median,
                "big_widget_worst_s": worst,
                "big_widget_script_s": script,
                "big_max_points": points,
            }
            print(
                f"generated root, smoothing change: median {median * 1000:.0f} ms, worst {worst * 1000:.0f} ms "
                f"(target <= 1 s); whole script {script * 1000:.0f} ms; most points in one line: {points} "
                "(limit 2000)"
            )
            median, worst, script, points = widget_change(
                big, base / "cache-big", repeats=args.repeats, experiment=BIG_EXPERIMENT
            )
            results |= {
                "big_experiment_widget_median_s": median,
                "big_experiment_widget_worst_s": worst,
                "big_experiment_max_points": points,
            }
            print(
                f"generated root, experiment page, smoothing change: median {median * 1000:.0f} ms, "
                f"worst {worst * 1000:.0f} ms (target <= 1 s); whole script {script * 1000:.0f} ms; "
                f"most points in one line: {points} (limit 2000)"
            )
    print(json.dumps(results))


if __name__ == "__main__":
    main()
