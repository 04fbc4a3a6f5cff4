"""Parser benchmark: cold parse against a plain Python loop and a bare polars read, peak RSS, one-step refreshes.

Usage::

    python -m benchmarks.bench_parse [--mb 200] [--repeats 3] [--big-mb 1000] [--out benchmarks/out]

Two kinds of 200 MB verl-style console log are measured:

* ``genlog``: the file ``../shared/bench/genlog.py`` writes (45% of the values in ``np.float64(…)`` wrappers, in
  every column; ~30 noise lines per step, among them ``timing/step:`` lines that are not step markers);
* ``rlmon``: the file this script writes (~27k step lines x 120 keys at 200 MB, 30 noise lines between steps:
  Ray/ANSI prefixes, tqdm redraws, vLLM and worker chatter; a 3-decimal era, then full precision with
  ``np.float64(...)`` wrappers on some keys, bare ints).

For each file, alternating in one run and ``--repeats`` times, each in a fresh process timed whole (interpreter
start and imports included, wall time): rlmon's cold parse (``LogCache(None).read``, as the app reads a log),
the plain Python loop ``../shared/bench/pyloop.py``, and a bare polars read of the file's lines. Peak RSS is
that of the rlmon process. The refresh figures append one step line in the file's own format (120 keys for
``rlmon``, 117 for ``genlog``, wrappers included) to a log whose cache is warm: "in memory" is the warm
:class:`~rlmon.logs.cache.LogCache` with its cache folder (as the app runs: the new rows are written as a delta),
"via disk" a fresh ``LogCache`` that loads the state from the cache folder first (as after a restart).
The log is cut back to its size afterwards. Figures are min / median over the repeats.

``--big-mb N`` also parses a genlog file of N MB once, for the memory bound at size.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
SHARED_BENCH = ROOT.parent / "shared" / "bench"
PYLOOP = SHARED_BENCH / "pyloop.py"
GENLOG = SHARED_BENCH / "genlog.py"
REFRESHES = 5

KEYS_PER_STEP = 120
NOISE_PER_STEP = 30

_FAMILIES = [
    ("critic/score", ["mean", "max", "min"]),
    ("critic/rewards", ["mean", "max", "min"]),
    ("critic/advantages", ["mean", "max", "min"]),
    ("critic/returns", ["mean", "max", "min"]),
    ("response_length", ["mean", "max", "min", "clip_ratio"]),
    ("response_length_non_aborted", ["mean", "max", "min", "clip_ratio"]),
    ("prompt_length", ["mean", "max", "min", "clip_ratio"]),
    ("actor", ["entropy", "pg_loss", "pg_clipfrac", "pg_clipfrac_lower", "ppo_kl", "grad_norm", "lr", "kl_loss"]),
    ("timing_s", ["gen", "reward", "old_log_prob", "ref", "adv", "update_actor", "update_weights", "testing", "step"]),
    ("timing_per_token_ms", ["gen", "ref", "adv", "update_actor"]),
    ("perf", ["mfu/actor", "mfu/actor_infer", "max_memory_allocated_gb", "max_memory_reserved_gb", "throughput"]),
    ("global_seqlen", ["min", "max", "minmax_diff", "balanced_min", "balanced_max", "mean"]),
    ("training", ["global_step", "epoch", "rollout_probs_diff_mean", "rollout_probs_diff_max"]),
    ("rollout_corr", [f"rollout_is_{name}" for name in ("mean", "max", "min", "std", "eff_sample_size")]),
    ("val-core/aime24/acc", ["mean@1"]),
    ("val-core/Hothan/OlympiadBench:OE_MM_maths_en_COMP/acc", ["mean@1"]),
]


def _keys() -> list[str]:
    keys = [f"{family}/{name}" for family, names in _FAMILIES for name in names]
    index = 0
    while len(keys) < KEYS_PER_STEP:
        keys.append(f"reward_extra_info/extra_{index}/mean")
        index += 1
    return keys[:KEYS_PER_STEP]


def _value(rng: random.Random, key: str, step: int, style: int) -> str:
    if key == "training/global_step":
        return str(step) if style else f"{step:.3f}"
    if key.startswith("global_seqlen"):
        return str(rng.randint(10_000, 90_000)) if style else f"{rng.randint(10_000, 90_000):.3f}"
    number = rng.uniform(-2, 2) * (10 ** rng.randint(-6, 3))
    if style == 0:
        return f"{number:.3f}"
    if style == 1 and key.startswith(("actor/", "perf/", "val-core")):
        return f"np.float64({number!r})"
    return repr(number)


_NOISE = [
    "\x1b[36m(WorkerDict pid={pid})\x1b[0m INFO 07-16 02:{m:02d}:11 [model_runner.py:1041] Graph capturing finished",
    "\x1b[36m(TaskRunner pid={pid})\x1b[0m list(reward_extra_infos_dict.keys())=['acc', 'score', 'pred']",
    "\x1b[36m(vLLMHttpServer pid={pid})\x1b[0m (Worker pid={pid}) WARNING 07-16 02:15:40 [cuda.py:93] Using XFormers",
    "\x1b[33m(raylet)\x1b[0m [2026-07-16 02:16:00,123 E 1234 5678] file_system_monitor.cc:116: /tmp is over 95% full",
    "\x1b[36m(TaskRunner pid={pid})\x1b[0m \rTraining Progress:  {p}%|██        | {n}/27000 [1:30:25<14:38, 27.9s/it]",
    "\x1b[36m(WorkerDict pid={pid}, ip=10.0.0.7)\x1b[0m /usr/lib/python3/site-packages/torch/distributed/fsdp.py:690: "
    "FutureWarning: FSDP.state_dict_type() and FSDP.set_state_dict_type() are being deprecated.",
    "\x1b[36m(TaskRunner pid={pid})\x1b[0m [prompt] <|im_start|>user Solve the problem: what is {n} + {m}?",
    "\x1b[36m(TaskRunner pid={pid})\x1b[0m [response] The answer is {n}. Let me double-check by re-adding it.",
]


def generate(path: Path, target_mb: float, *, seed: int = 7) -> int:
    """Write the benchmark log; returns the number of step lines."""
    rng = random.Random(seed)
    keys = _keys()
    target = int(target_mb * 1024 * 1024)
    written = 0
    step = 0
    with path.open("w", encoding="utf-8", newline="") as handle:
        header = "\x1b[36m(TaskRunner pid=678203)\x1b[0m Total training steps: 27000\n"
        handle.write(header)
        written += len(header)
        while written < target:
            step += 1
            style = 0 if step < 14000 else 1  # a 3-decimal era (v0.1-v0.4), then full precision (v0.5+)
            noise = []
            for _ in range(NOISE_PER_STEP):
                template = rng.choice(_NOISE)
                noise.append(template.format(pid=rng.randint(1000, 99999), m=step % 60, p=step % 100, n=step) + "\n")
            pairs = " - ".join(f"{key}:{_value(rng, key, step, style)}" for key in keys)
            line = f"\x1b[36m(TaskRunner pid=678203)\x1b[0m step:{step} - {pairs}\n"
            chunk = "".join(noise) + line
            handle.write(chunk)
            written += len(chunk.encode("utf-8"))
    return step


def rlmon_line(step: int, *, seed: int = 11) -> str:
    """One step line of the ``rlmon`` file's full-precision era (120 keys, wrappers on some of them)."""
    rng = random.Random(seed + step)
    pairs = " - ".join(f"{key}:{_value(rng, key, step, 1)}" for key in _keys())
    return f"\x1b[36m(TaskRunner pid=678203)\x1b[0m step:{step} - {pairs}\n"


def _genlog() -> ModuleType:
    spec = importlib.util.spec_from_file_location("genlog", GENLOG)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def genlog_line(step: int) -> str:
    """One step line as ``genlog.py`` writes it (117 keys, 45% of the values wrapped)."""
    module = _genlog()
    return str(module.step_line(random.Random(step), step)) + "\n"


# --- one measurement per subprocess ---------------------------------------------------------------------------
LINES_CODE = (
    "import sys, polars as pl\n"
    "lines = pl.read_csv(sys.argv[1], has_header=False, separator='\\x1f', quote_char=None,\n"
    "    schema={'line': pl.String}, encoding='utf8-lossy')\n"
    "print(lines.height)\n"
)
RLMON_CODE = (
    "import sys\n"
    "from rlmon.logs.cache import LogCache\n"
    "steps = LogCache(None).read(sys.argv[1]).steps\n"
    "print(steps.height, steps.width)\n"
)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    return env


def _run(command: list[str]) -> tuple[float, float, str]:
    """Run ``command`` as a child; (wall seconds, its peak RSS in MB, stdout)."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env())
    # wait4 reaps the child and gives its own resource usage (peak RSS of that process alone)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    stdout = process.stdout.read().decode() if process.stdout else ""
    stderr = process.stderr.read().decode(errors="replace") if process.stderr else ""
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"{' '.join(command[:3])} failed:\n{stderr[-2000:]}")
    return seconds, usage.ru_maxrss / 1024, stdout


def _refresh(kind: str, path: Path, cache_dir: Path) -> dict[str, list[float]]:
    """In a child: warm a cache on ``path``, then time one-step refreshes in memory and via the disk cache."""
    from rlmon.logs.cache import LogCache

    size = path.stat().st_size
    shutil.rmtree(cache_dir, ignore_errors=True)
    memory: list[float] = []
    disk: list[float] = []
    try:
        warm = LogCache(cache_dir)
        step = int(warm.read(path).steps.get_column("step").max() or 0) + 1  # type: ignore[arg-type]
        line = genlog_line if kind == "genlog" else rlmon_line
        for _ in range(REFRESHES):
            with path.open("ab") as handle:
                handle.write(line(step).encode())
            step += 1
            start = time.perf_counter()
            warm.read(path)
            memory.append(time.perf_counter() - start)
            with path.open("ab") as handle:
                handle.write(line(step).encode())
            step += 1
            start = time.perf_counter()
            LogCache(cache_dir).read(path)
            disk.append(time.perf_counter() - start)
            warm.read(path)  # catch up with the line the fresh cache read, untimed
    finally:
        os.truncate(path, size)
        shutil.rmtree(cache_dir, ignore_errors=True)
    return {"memory": memory, "disk": disk}


# --- the run --------------------------------------------------------------------------------------------------
def _prepare(kind: str, out: Path, size_mb: float) -> Path:
    """The log of ``kind`` and ``size_mb`` in ``out`` (generated once; both generators are seeded)."""
    path = out / f"{kind}-{size_mb:g}mb.log"
    if path.exists() and path.stat().st_size >= size_mb * 1024 * 1024 * 0.99:
        return path
    print(f"writing {path} ...", flush=True)
    if kind == "genlog":
        subprocess.run([sys.executable, str(GENLOG), str(path), str(size_mb)], check=True)
    else:
        generate(path, size_mb)
    return path


def _span(values: list[float], scale: float = 1.0, digits: int = 2) -> str:
    """``min / median`` of ``values`` times ``scale``."""
    return f"{min(values) * scale:.{digits}f} / {statistics.median(values) * scale:.{digits}f}"


def _measure_file(kind: str, path: Path, repeats: int, out: Path) -> list[tuple[str, str, str]]:
    rlmon: list[float] = []
    rss: list[float] = []
    loop: list[float] = []
    lines: list[float] = []
    memory: list[float] = []
    disk: list[float] = []
    shape = ""
    for _ in range(repeats):
        seconds, peak, stdout = _run([sys.executable, "-c", RLMON_CODE, str(path)])
        rlmon.append(seconds)
        rss.append(peak)
        shape = stdout.strip()
        loop.append(_run([sys.executable, str(PYLOOP), str(path)])[0])
        lines.append(_run([sys.executable, "-c", LINES_CODE, str(path)])[0])
        _, _, stdout = _run(
            [sys.executable, __file__, "--child", "refresh", "--kind", kind, "--log", str(path), "--cache", str(out)]
        )
        refresh = json.loads(stdout.strip().splitlines()[-1])
        memory.extend(refresh["memory"])
        disk.extend(refresh["disk"])
    size_mb = path.stat().st_size / 1024 / 1024
    rows, columns = shape.split()
    to_loop = [a / b for a, b in zip(rlmon, loop, strict=True)]
    to_lines = [a / b for a, b in zip(rlmon, lines, strict=True)]
    return [
        ("file", f"{size_mb:.0f} MB, {rows} steps x {int(columns) - 1} keys", ""),
        ("rlmon cold parse (whole process)", f"{_span(rlmon)} s", ""),
        ("pyloop.py on the same file (whole process)", f"{_span(loop)} s", ""),
        ("rlmon / pyloop", _span(to_loop, digits=3), "<= 0.35"),
        ("bare polars read of the lines (whole process)", f"{_span(lines)} s", ""),
        ("rlmon / bare polars read", _span(to_lines), "<= 4"),
        ("peak RSS of the rlmon parse", f"{_span(rss, digits=0)} MB = {_span(rss, 1 / size_mb)}x the file", "<= 2x"),
        ("refresh, one step appended, in memory", f"{_span(memory, 1000, 1)} ms", "<= 20 ms"),
        ("refresh, one step appended, via disk cache", f"{_span(disk, 1000, 1)} ms", "<= 50 ms"),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--mb", type=float, default=200.0, help="size of each generated log in MB")
    parser.add_argument("--repeats", type=int, default=3, help="alternating runs of each measurement")
    parser.add_argument("--big-mb", type=float, default=0.0, help="also parse a genlog file of this size once")
    parser.add_argument("--out", default="benchmarks/out", help="folder for the generated logs and caches")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--kind", help=argparse.SUPPRESS)
    parser.add_argument("--log", help=argparse.SUPPRESS)
    parser.add_argument("--cache", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child == "refresh":
        print(json.dumps(_refresh(args.kind, Path(args.log), Path(args.cache) / "refresh-cache")))
        return
    if not (PYLOOP.exists() and GENLOG.exists()):
        raise SystemExit(f"needs {PYLOOP} and {GENLOG} (the shared benchmark yardsticks)")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    files = {kind: _prepare(kind, out, args.mb) for kind in ("genlog", "rlmon")}
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}, Python {sys.version.split()[0]}")
    results = {kind: _measure_file(kind, path, args.repeats, out) for kind, path in files.items()}
    print(f"\nmin / median over {args.repeats} alternating runs\n")
    print("| measurement | genlog.py file | bench_parse.py file | target |\n|---|---|---|---|")
    for (label, genlog, target), (_, own, _) in zip(results["genlog"], results["rlmon"], strict=True):
        print(f"| {label} | {genlog} | {own} | {target or '—'} |")
    if args.big_mb:
        big = _prepare("genlog", out, args.big_mb)
        seconds, peak, stdout = _run([sys.executable, "-c", RLMON_CODE, str(big)])
        size_mb = big.stat().st_size / 1024 / 1024
        rows, columns = stdout.split()
        print(
            f"\n{size_mb:.0f} MB genlog file ({rows} steps x {int(columns) - 1} keys): "
            f"rlmon cold parse {seconds:.2f} s, peak RSS {peak:.0f} MB = {peak / size_mb:.2f}x the file "
            "(target <= 400 MB)"
        )


if __name__ == "__main__":
    main()
