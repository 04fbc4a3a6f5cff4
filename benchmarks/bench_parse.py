"""Parser benchmark: cold parse, a plain Python loop, lines-only read, refresh after a one-step append, peak RSS.

Usage::

    python benchmarks/bench_parse.py [--mb 200] [--out benchmarks/out]

Generates a verl-style console log of about ``--mb`` megabytes (~27k step lines x ~120 keys at 200 MB, ~30
noise lines between steps: Ray/ANSI prefixes, tqdm redraws, vLLM and worker chatter; values in every format
verl has printed: 3-decimal, full precision, numpy-2 ``np.float64(...)`` wrappers, bare ints, ``True``), then
reports each figure. Each timing runs in a fresh subprocess so that peak RSS is that of one parse alone.
Interpreter start and imports are not counted in the timings.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import time
from pathlib import Path

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


# --- the plain Python loop the parser is measured against ------------------------------------------------------
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
STEP = re.compile(r"(?<![\w/])step:(\d+) - (.*)$")
GLUED = re.compile(r"\((?:[A-Za-z_][\w:.\-]*(?: [A-Za-z_]\w*)? )?pid=\d*(?:, ip=[\d.]+)?\)")
PAIR = re.compile(
    r"^(?P<k>.+):(?P<v>np\.[a-z]+\d*\([^()]*\)|[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|nan|inf)|True|False)$"
)


def python_loop(path: Path) -> dict[int, dict[str, float]]:
    """A straightforward regex-per-line parser (format reference §9), for comparison."""
    metrics: dict[int, dict[str, float]] = {}
    with path.open("rb") as handle:
        text = handle.read().decode("utf-8", errors="replace")
    for raw in re.split(r"\r\n|\r|\n", text):
        line = ANSI.sub("", raw)
        match = STEP.search(line)
        if not match:
            continue
        rest = match.group(2)
        glued = GLUED.search(rest)
        if glued:
            rest = rest[: glued.start()]
        row = metrics.setdefault(int(match.group(1)), {})
        for pair in rest.split(" - "):
            found = PAIR.match(pair)
            if not found:
                continue
            value = found.group("v")
            if value.startswith("np."):
                value = value[value.index("(") + 1 : -1]
            row[found.group("k")] = 1.0 if value == "True" else 0.0 if value == "False" else float(value)
    return metrics


# --- one measurement per subprocess ---------------------------------------------------------------------------
def _measure(kind: str, path: Path, cache_dir: Path) -> dict[str, float]:
    import resource

    import polars as pl

    from rlmon.cache import LogCache
    from rlmon.parse import split_lines

    result: dict[str, float] = {}
    start = time.perf_counter()
    if kind == "rlmon":
        parsed = LogCache(None).read(path)
        result["rows"] = parsed.steps.height
        result["columns"] = parsed.steps.width
    elif kind == "python":
        rows = python_loop(path)
        result["rows"] = len(rows)
    elif kind == "lines":
        lines = split_lines(path.read_bytes())
        result["rows"] = len(lines)
    elif kind == "refresh":
        cache = LogCache(cache_dir)
        cache.read(path)  # cold, persisted
        rows = cache.read(path).steps.height
        with path.open("ab") as handle:
            handle.write(
                f"\x1b[36m(TaskRunner pid=678203)\x1b[0m step:{rows + 1} - critic/score/mean:0.5 - "
                f"actor/grad_norm:np.float64(0.25)\n".encode()
            )
        start = time.perf_counter()
        parsed = cache.read(path)
        result["rows"] = parsed.steps.height
    result["seconds"] = time.perf_counter() - start
    result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    del pl
    return result


def _run_child(kind: str, path: Path, cache_dir: Path) -> dict[str, float]:
    output = subprocess.run(
        [sys.executable, __file__, "--child", kind, "--log", str(path), "--cache", str(cache_dir)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return dict(json.loads(output.strip().splitlines()[-1]))


def _baseline_rss() -> float:
    code = "import resource, polars, rlmon.cache; print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)"
    return float(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=200.0, help="size of the generated log in MB")
    parser.add_argument("--out", default="benchmarks/out", help="folder for the generated log and cache")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--log", help=argparse.SUPPRESS)
    parser.add_argument("--cache", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_measure(args.child, Path(args.log), Path(args.cache))))
        return
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    log = out / "bench.log"
    steps = generate(log, args.mb)
    size_mb = log.stat().st_size / 1024 / 1024
    print(f"log: {log} {size_mb:.0f} MB, {steps} step lines x {KEYS_PER_STEP} keys, {NOISE_PER_STEP} noise lines/step")
    import os

    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    base = _baseline_rss()
    rlmon = _run_child("rlmon", log, out / "cache-unused")
    loop = _run_child("python", log, out / "cache-unused")
    lines = _run_child("lines", log, out / "cache-unused")
    cache_dir = out / "cache"
    if cache_dir.exists():
        import shutil

        shutil.rmtree(cache_dir)
    refresh = _run_child("refresh", log, cache_dir)
    ratio = rlmon["seconds"] / loop["seconds"]
    rss_ratio = rlmon["peak_rss_mb"] / size_mb
    print(f"rlmon cold parse      {rlmon['seconds']:7.2f} s  ({rlmon['rows']:.0f} rows x {rlmon['columns']:.0f} cols)")
    print(f"python regex loop     {loop['seconds']:7.2f} s  -> rlmon/python = {ratio:.3f} (target <= 0.25)")
    print(f"lines into polars     {lines['seconds']:7.2f} s")
    print(f"refresh, 1-step append {refresh['seconds'] * 1000:6.1f} ms (target <= 50 ms)")
    print(
        f"peak RSS, cold parse  {rlmon['peak_rss_mb']:7.0f} MB = {rss_ratio:.2f}x file size (target <= 2x); "
        f"interpreter + polars + rlmon alone: {base:.0f} MB"
    )


if __name__ == "__main__":
    main()
