"""The benchmarks' generated log root: ``experiments`` x ``steps`` x ``keys`` verl console logs (20 x 2,000 x 150 by
default, 167 MB), a learning-rate sweep with validation every 25 steps, values in the ranges verl logs them.

``benchmarks/`` measures on it (``python -m benchmarks.bench_app`` and the browser benchmarks) and
tests/unit/test_hostile_ops.py reads one through rlmon to check its values stay in verl's ranges.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

KEYS = 150
STEPS = 2000
EXPERIMENTS = 20
BIG_EXPERIMENT = "e1_grpo_big"
"""The folder of the root's first experiment."""
MAX_RESPONSE_LENGTH = 8192
VALUES = 4
"""Version of the generated root's value model (:func:`_value`): the benchmarks that keep generated roots between
runs write it beside them and write the roots again when it changed."""


def metric_keys(count: int = KEYS) -> list[str]:
    """The first ``count`` keys a step logs: rlmon's own, then ``*/extra_*`` keys it knows nothing of."""
    fixed = [
        "critic/score/mean",
        "critic/score/min",
        "critic/score/max",
        "critic/rewards/mean",
        "response_length/mean",
        "response_length/max",
        "response_length/clip_ratio",
        "actor/entropy",
        "actor/grad_norm",
        "actor/pg_loss",
        "actor/pg_clipfrac",
        "actor/pg_clipfrac_lower",
        "actor/kl_loss",
        "training/rollout_actor_probs_pearson_corr",
        "perf/throughput",
        "timing_s/step",
        "timing_s/gen",
        "timing_s/old_log_prob",
        "timing_s/ref",
        "timing_s/adv",
        "timing_s/update_actor",
    ]
    extra = [
        f"{family}/extra_{index:03d}" for index, family in enumerate(["actor", "critic", "perf", "prompt_length"] * 40)
    ]
    return (fixed + extra)[:count]


def _value(key: str, step: int, rng: random.Random, steps: int) -> float:
    """A value in the range verl logs it (and the demo shows): scores within -1-1, fractions within 0-1, lengths
    within the 8,192-token cap, norms, entropies and throughput positive. Keys rlmon knows nothing of
    (``*/extra_*``) follow a wave within their family's range."""
    u = step / steps
    score = -0.2 + 0.9 * u
    if key == "critic/score/mean":
        return score + rng.gauss(0, 0.05)
    if key == "critic/rewards/mean":
        return score + rng.gauss(0, 0.05)
    if key == "critic/score/min":
        return -1.0
    if key == "critic/score/max":
        return 1.0
    if key.startswith("timing_s/step"):
        return 60.0 + rng.gauss(0, 3)
    if key.startswith("timing_s/"):
        return 10.0 + rng.gauss(0, 1)
    if key == "response_length/mean":
        return 3000 + 4000 * u + rng.gauss(0, 200)
    if key == "response_length/max":
        return min(MAX_RESPONSE_LENGTH, 4500 + 4000 * u + rng.gauss(0, 300))
    if key == "response_length/clip_ratio":
        return min(1.0, max(0.0, 0.002 + 0.06 * u + rng.gauss(0, 0.005)))
    if key == "actor/entropy":
        return max(0.05, 0.6 - 0.35 * u + rng.gauss(0, 0.02))
    if key == "actor/grad_norm":
        return abs(0.25 + rng.gauss(0, 0.04))
    if key == "actor/pg_loss":
        return rng.gauss(0, 0.05)
    if key == "actor/pg_clipfrac":
        return 0.002 + abs(rng.gauss(0, 0.001))
    if key == "actor/pg_clipfrac_lower":
        return abs(rng.gauss(0, 0.0005))
    if key == "actor/kl_loss":
        return 0.001 + 0.01 * u + abs(rng.gauss(0, 0.001))
    if key == "training/rollout_actor_probs_pearson_corr":
        return min(1.0, 0.999 + rng.gauss(0, 0.0002))
    if key == "perf/throughput":
        return 1500 + 200 * u + rng.gauss(0, 50)
    # keys rlmon knows nothing of: a wave in their family's range (lengths in tokens, rates, else a fraction)
    wave = math.sin(step / 50 + len(key))
    if key.startswith("prompt_length/"):
        return 400 + 150 * wave + rng.gauss(0, 10)
    if key.startswith("perf/"):
        return 1000 + 300 * wave + rng.gauss(0, 20)
    return min(1.0, max(0.0, 0.5 + 0.4 * wave + rng.gauss(0, 0.02)))


def write_benchmark_root(root: Path, *, experiments: int = EXPERIMENTS, steps: int = STEPS, keys: int = KEYS) -> None:
    """``experiments`` x ``steps`` x ``keys`` keys (20 x 2,000 x 150 unless given), as verl console logs (one file
    each, in ``e<number>_grpo_big/``), validation every 25 steps."""
    names = metric_keys(keys)
    for number in range(1, experiments + 1):
        rng = random.Random(number)
        folder = root / f"e{number}_grpo_big"
        folder.mkdir(parents=True, exist_ok=True)
        lines = [
            # each run its own learning rate (a sweep): no two are repeats of one setting
            f"(TaskRunner pid=1) {{'actor_rollout_ref': {{'actor': {{'optim': {{'lr': {number}e-07}}}}, "
            "'model': {'path': 'Qwen/Qwen3-8B'}}, "
            "'algorithm': {'adv_estimator': 'grpo'}, "
            f"'data': {{'max_response_length': {MAX_RESPONSE_LENGTH}, "
            "'train_batch_size': 64}, 'trainer': {'n_gpus_per_node': 8, 'nnodes': 1, 'test_freq': 25}}",
            f"(TaskRunner pid=1) Total training steps: {steps}",
        ]
        for step in range(1, steps + 1):
            pairs = [f"{key}:{_value(key, step, rng, steps):.4f}" for key in names]
            if step % 25 == 0:
                pairs.append(f"val-core/aime24/acc/mean@1:{0.3 + 0.4 * step / steps + rng.gauss(0, 0.03):.4f}")
            lines.append(f"(TaskRunner pid=1) step:{step} - " + " - ".join(pairs))
        (folder / "train_20260101_000000.log").write_text("\n".join(lines) + "\n", encoding="utf-8")
