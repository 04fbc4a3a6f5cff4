"""A seeded, deterministic demo log root of realistic verl console logs.

:func:`write_demo_root` writes what a team running verl would have on disk: one folder per experiment holding
the ``train_<date>_<time>.log`` files that ``bash train.sh 2>&1 | tee train_….log`` produced, in the v0.5+
console format under numpy 2 (format reference §1.1): worker-side metrics (``actor/*`` from the update,
``perf/mfu/actor``, ``perf/max_memory_*``, validation aggregates) print as ``np.float64(…)`` (one as
``np.float32(…)``), driver-side ones (``critic/*``, ``response_length/*``, ``actor/entropy``, ``timing_s/*``,
``training/*``, ``global_seqlen/*``) as plain Python floats and ints. Every trainer line carries the cyan
``(TaskRunner pid=N)`` Ray prefix, worker lines ``(WorkerDict pid=M)``; the files hold the ``set -x`` launch
echo, the pretty-printed config dump, dataset and dataloader sizes, ``Total training steps: 150``,
``Training from scratch``, ``\\r`` tqdm bars, vLLM and checkpoint chatter, validation every 25 steps (and
before training) on ``aime24``, ``Final validation metrics`` at the end and, after some finished runs, the
harmless "worker died" shutdown noise.

Layout (experiment id = folder path relative to the root)::

    4b/e1_grpo_4b/train_20260714_125151.log            GRPO, KL loss low_var_kl 1e-3        150/150
    4b/e2_dapo_4b/train_20260716_021500.log            DAPO, start-up output only (no steps)
    4b/e2_dapo_4b/train_20260716_023012.log            DAPO, all 150 steps
    4b/e3_drgrpo_4b/train_20260717_105706.log          Dr.GRPO, no KL loss                  150/150
    4b/e4_rloo_4b/train_20260718_184125.log            RLOO, KL loss low_var_kl 1e-3        150/150
    4b/e5_reinforce_pp_4b/train_20260720_063429.log    REINFORCE++, KL loss mse             21/150, running
    2b/e1_grpo_2b/…, 2b/e2_dapo_2b/…, 2b/e3_drgrpo_2b/…, 2b/e4_rloo_2b/…                     150/150
    4b/e1_grpo_4b/rollouts/<step>.jsonl,               verl's training generation dumps (trainer.rollout_data_dir):
    4b/e3_drgrpo_4b/rollouts/<step>.jsonl              256 responses a step; E1's incorrect ones lengthen faster
    rlmon.toml                                         a markdown description per experiment

Definitions used for the numbers below (and by the team's old dashboard):

* pass rate of a step = (``critic/score/mean`` + 1) / 2 (scores are ±1: 256 = 32 prompts × 8 samples per step);
* "start" = mean over the first 5 steps, "end" = mean over the last 10 steps (of the steps logged);
* hours = sum of ``timing_s/step`` over the logged steps / 3600;
* aime24 = ``val-core/aime24/acc/mean@1`` (30 problems, greedy), logged at steps 0, 25, 50, …, 150.

What the data reproduces (4B = ``Qwen/Qwen3.5-4B``, 4 GPUs, TP 4, no offload, non-thinking, 16K responses,
32×8 samples per step):

=========== ============= =========== =============== ================= ============= =========================
experiment  pass rate     length      entropy         grad_norm         hours         aime24 at 25, 50, … 150
=========== ============= =========== =============== ================= ============= =========================
E1 GRPO     80.2→89.6 %   5.1k→9.7k   0.250→0.220     0.11–0.29         37.2 (37h12m) .633 .667 .700 .733 .767 .633
E2 DAPO     79.4→91.1 %   5.2k→7.9k   0.256→0.417 ↑   0.10–0.30, spikes 32.6 (32h33m) .600 .667 .700 .700 .733 .767
E3 Dr.GRPO  80.7→88.8 %   5.3k→7.3k   0.081→0.048     0.03–0.23         33.9 (33h54m) .567 .633 .700 .733 .800 .733
E4 RLOO     79.8→90.3 %   5.0k→8.1k   0.262→0.231     0.12–0.28         35.8 (35h47m) .600 .667 .733 .767 .833 .767
E5 REINF.++ 21 steps done: pass rate 73–94 %, entropy 0.22–0.28, grad_norm 0.19–0.27, 4h23m (4.39 h)
=========== ============= =========== =============== ================= ============= =========================

E2's grad_norm spikes to 0.96 at step 43 and 1.13 at step 59; no other training metric of any run has an
outlier (the noise is bounded). DAPO steps that needed extra generation rounds (``train/num_gen_batches``
2 or 3, with the ``Keep generating...`` lines) take longer in ``timing_s/gen``, as in the real recipe.
Every run's aime24 is 0.567 before training; E5's validations, once reached, are .633 .667 .733 .733
.767 .733.

2B (``Qwen/Qwen3.5-2B``, 2 GPUs, TP 2, offload on): pass rate starts at 38.4 / 35.3 / 42.7 / 40.1 % and ends
at 67.2 / 71.8 / 63.9 / 69.5 % (E1…E4); hours 24.3 / 21.2 / 23.5 / 26.8; length 3.2k→4.4k, 3.1k→6.0k,
3.3k→8.6k, 3.1k→5.4k — Dr.GRPO grows most and GRPO least, the opposite of 4B.

Targets are exact, not approximate: the noise is generated first, then shifted by a straight line in the
step so that the start and end means land on the target, and integer quantities (passes out of 256, tokens)
are corrected by single units; grad_norm ranges are set by an affine map; step times are scaled so their
sum is the target. All randomness comes from :class:`random.Random` seeded with the experiment id, and the
text of step ``N`` depends only on the experiment and ``N``, so :func:`advance_running` appends exactly what
a full write would have contained.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import os
import pprint
import random
import re
import struct
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from rlmon.errors import RlmonError

__all__ = [
    "RUNNING_EXPERIMENT",
    "TOTAL_STEPS",
    "advance_running",
    "default_demo_root",
    "write_demo_root",
]

TOTAL_STEPS = 150
"""Planned training steps of every demo run."""
RUNNING_EXPERIMENT = "4b/e5_reinforce_pp_4b"
"""The id of the demo experiment that is still training (advanced by :func:`advance_running`)."""

_TEST_FREQ = 25
_SAVE_FREQ = 25
_SEED = "rlmon-demo-1"
_SAMPLES = 256  # 32 prompts x 8 responses
_MAX_RESPONSE = 16384
_MAX_PROMPT = 2048

_TR = "\x1b[36m(TaskRunner pid={pid})\x1b[0m "
_WD = "\x1b[36m(WorkerDict pid={pid})\x1b[0m "
_RAYLET = "\x1b[33m(raylet)\x1b[0m "
_REPEATED = "\x1b[32m [repeated {n}x across cluster]\x1b[0m"
_STEP_RE = re.compile(rb"(?<![\w/])step:(\d+) - ")


# --------------------------------------------------------------------------------------------------
# What each experiment is


@dataclass(frozen=True)
class _Track:
    model: str
    n_gpus: int
    tp: int
    offload: bool
    params: str
    time_factor: float


_TRACKS = {
    "4b": _Track("Qwen/Qwen3.5-4B", 4, 4, False, "4.21B", 1.0),
    "2b": _Track("Qwen/Qwen3.5-2B", 2, 2, True, "2.27B", 0.8),
}


@dataclass(frozen=True)
class _Run:
    track: str
    name: str
    algo: str  # grpo | dapo | drgrpo | rloo | reinforce_pp
    stamps: tuple[str, ...]  # file timestamps; the last file holds the steps
    pass_rate: tuple[float, float]  # start (first 5) / end (last 10) mean pass rate
    length: tuple[int, int]  # start / end mean response length (tokens)
    entropy: tuple[float, float]
    grad_norm: tuple[float, float]  # min / max of grad_norm outside spikes
    step_seconds: float  # sum of timing_s/step over the steps done (mid-minute: no rounding edge)
    aime: tuple[int, ...]  # aime24 problems solved (of 30) at steps 0, 25, ..., 150
    description: str
    steps_done: int = TOTAL_STEPS
    spikes: tuple[tuple[int, float], ...] = ()
    shutdown_noise: bool = False

    @property
    def id(self) -> str:
        return f"{self.track}/{self.name}"

    @property
    def kl_loss(self) -> str | None:
        return {"grpo": "low_var_kl", "rloo": "low_var_kl", "reinforce_pp": "mse"}.get(self.algo)


_DESCRIPTIONS = {
    "grpo": "**GRPO baseline** — group-mean baseline divided by the group std; KL loss (low_var_kl, coef 1e-3).",
    "dapo": "**DAPO** — Clip-Higher + Dynamic Sampling + Overlong Reward Shaping, no KL loss.",
    "drgrpo": "**Dr.GRPO** — no std division, `loss_agg_mode=seq-mean-token-sum-norm`, no KL loss.",
    "rloo": "**RLOO** — leave-one-out baseline, KL loss kept (low_var_kl, 1e-3).",
    "reinforce_pp": (
        "**REINFORCE++** — no group baseline, whitened discounted return over the whole batch, mse KL loss."
    ),
}

_RUNS: tuple[_Run, ...] = (
    _Run("4b", "e1_grpo_4b", "grpo", ("20260714_125151",), (0.802, 0.896), (5100, 9700), (0.250, 0.220),
         (0.112, 0.287), 133940.0, (17, 19, 20, 21, 22, 23, 19), _DESCRIPTIONS["grpo"], shutdown_noise=True),
    _Run("4b", "e2_dapo_4b", "dapo", ("20260716_021500", "20260716_023012"), (0.794, 0.911), (5200, 7900),
         (0.256, 0.417), (0.1012, 0.2987), 117200.0, (17, 18, 20, 21, 21, 22, 23), _DESCRIPTIONS["dapo"],
         spikes=((43, 0.9614), (59, 1.1287))),
    _Run("4b", "e3_drgrpo_4b", "drgrpo", ("20260717_105706",), (0.807, 0.888), (5300, 7300), (0.081, 0.048),
         (0.0302, 0.2297), 122060.0, (17, 17, 19, 21, 22, 24, 22), _DESCRIPTIONS["drgrpo"]),
    _Run("4b", "e4_rloo_4b", "rloo", ("20260718_184125",), (0.798, 0.903), (5000, 8100), (0.262, 0.231),
         (0.118, 0.279), 128840.0, (17, 18, 20, 22, 23, 25, 23), _DESCRIPTIONS["rloo"], shutdown_noise=True),
    _Run("4b", "e5_reinforce_pp_4b", "reinforce_pp", ("20260720_063429",), (0.804, 0.887), (5000, 8600),
         (0.252, 0.214), (0.121, 0.268), 15800.0, (17, 19, 20, 22, 22, 23, 22), _DESCRIPTIONS["reinforce_pp"],
         steps_done=21),
    _Run("2b", "e1_grpo_2b", "grpo", ("20260622_091530",), (0.384, 0.672), (3200, 4400), (0.362, 0.311),
         (0.162, 0.341), 87500.0, (3, 4, 5, 5, 6, 7, 7), _DESCRIPTIONS["grpo"]),
    _Run("2b", "e2_dapo_2b", "dapo", ("20260623_120418",), (0.353, 0.718), (3100, 6000), (0.342, 0.351),
         (0.153, 0.352), 76340.0, (3, 4, 5, 6, 6, 7, 8), _DESCRIPTIONS["dapo"]),
    _Run("2b", "e3_drgrpo_2b", "drgrpo", ("20260625_083344",), (0.427, 0.639), (3300, 8600), (0.172, 0.094),
         (0.071, 0.243), 84620.0, (3, 5, 5, 6, 7, 7, 7), _DESCRIPTIONS["drgrpo"], shutdown_noise=True),
    _Run("2b", "e4_rloo_2b", "rloo", ("20260627_201015",), (0.401, 0.695), (3100, 5400), (0.371, 0.329),
         (0.158, 0.338), 96500.0, (3, 4, 4, 5, 6, 7, 7), _DESCRIPTIONS["rloo"]),
)  # fmt: skip


# --------------------------------------------------------------------------------------------------
# Value formatting (verl's concat_dict_to_str with pprint.pformat under numpy 2)


def _f32(value: float) -> float:
    """The nearest float32, as a Python float (what ``tensor.item()`` returns for float32 tensors)."""
    result: float = struct.unpack("<f", struct.pack("<f", value))[0]
    return result


def _f32_repr(value: float) -> str:
    """numpy's shortest round-trip repr of a float32 value."""
    target = _f32(value)
    for digits in range(1, 10):
        text = f"{target:.{digits}g}"
        if _f32(float(text)) == target:
            return repr(float(text))
    return repr(target)


def _np64(value: float) -> str:
    return f"np.float64({value!r})"


def _np32(value: float) -> str:
    return f"np.float32({_f32_repr(value)})"


def _py(value: float) -> str:
    return repr(float(value))


def _pyf32(value: float) -> str:
    return repr(_f32(value))


# --------------------------------------------------------------------------------------------------
# The numbers


@dataclass
class _Series:
    passes: list[int]  # correct samples of 256 per step
    resp_tokens: list[int]
    prompt_tokens: list[int]
    resp_max: list[int]
    resp_min: list[int]
    resp_clipped: list[int]
    prompt_max: list[int]
    prompt_min: list[int]
    entropy: list[float]
    grad_norm: list[float]
    pg_loss: list[float]
    pg_clipfrac: list[float]
    pg_clipfrac_lower: list[float]
    ppo_kl: list[float]
    kl_loss: list[float]
    mfu: list[float]
    mem_alloc: list[float]
    mem_reserved: list[float]
    mem_cpu: list[float]
    probs_diff_max: list[float]
    probs_diff_mean: list[float]
    probs_diff_std: list[float]
    pearson: list[float]
    adv_mean: list[float]
    mixed_low: list[int]  # fewest successes in a mixed group (sets the advantage max)
    mixed_high: list[int]  # most successes in a mixed group (sets the advantage min)
    overlong: list[float]  # DAPO: mean overlong penalty
    gen_batches: list[int]  # DAPO: generation rounds per step
    kept_prompts: list[list[int]]  # DAPO: prompts kept after each round that fell short
    timings: list[dict[str, float]]  # per step: timing_s/* in verl's order
    elapsed: list[float]  # tqdm elapsed seconds at the end of each step
    seqlen_spread: list[tuple[int, int]]  # global_seqlen min/max offsets from the mean


def _bounded_noise(rng: random.Random, count: int, amp: float, *, rho: float = 0.75) -> list[float]:
    """Smooth AR(1) noise scaled so its largest magnitude is exactly ``amp`` (no outliers, ever)."""
    level = 0.0
    values = []
    for _ in range(count):
        level = rho * level + rng.uniform(-1.0, 1.0)
        values.append(level)
    peak = max(abs(v) for v in values) or 1.0
    return [amp * v / peak for v in values]


def _white(rng: random.Random, count: int, amp: float) -> list[float]:
    return [rng.uniform(-amp, amp) for _ in range(count)]


def _concave(u: float, bend: float = 3.0) -> float:
    """0 at u=0, 1 at u=1, rising fast first (learning curves)."""
    return (1.0 - math.exp(-bend * u)) / (1.0 - math.exp(-bend))


def _fit_ends(values: list[float], start: float, end: float) -> list[float]:
    """Add ``a + b*step`` so the first-5 mean is ``start`` and the last-10 mean is ``end``."""
    count = len(values)
    head = sum(values[:5]) / 5
    tail = sum(values[-10:]) / 10
    head_step = 3.0  # mean of steps 1..5
    tail_step = (count - 9 + count) / 2  # mean of the last ten step numbers
    slope = ((end - tail) - (start - head)) / (tail_step - head_step)
    offset = (start - head) - slope * head_step
    return [v + offset + slope * (i + 1) for i, v in enumerate(values)]


def _fix_sum(values: list[int], indices: Sequence[int], target: int, *, low: int, high: int) -> None:
    """Move single units between ``values[indices]`` (within [low, high]) until they sum to ``target``."""
    diff = target - sum(values[i] for i in indices)
    guard = 0
    while diff:
        moved = False
        for i in indices:
            if diff == 0:
                break
            step = 1 if diff > 0 else -1
            if low <= values[i] + step <= high:
                values[i] += step
                diff -= step
                moved = True
        guard += 1
        if not moved or guard > 100000:
            raise RuntimeError("demo targets cannot be met")  # a bug in the targets above


def _affine_to(values: list[float], low: float, high: float) -> list[float]:
    lo, hi = min(values), max(values)
    return [low + (v - lo) * (high - low) / (hi - lo) for v in values]


def _group_advantage(algo: str, successes: int, *, success: bool) -> float:
    """The advantage of one sample in a group of 8 with ``successes`` correct, as verl computes it."""
    n = 8
    mean = (2 * successes - n) / n
    reward = 1.0 if success else -1.0
    if algo == "rloo":
        return n / (n - 1) * (reward - mean)
    if algo == "drgrpo":
        return reward - mean
    var = (successes * (1 - mean) ** 2 + (n - successes) * (-1 - mean) ** 2) / (n - 1)
    return (reward - mean) / (math.sqrt(var) + 1e-6)


@functools.cache
def _series(run: _Run) -> _Series:
    rng = random.Random(f"{_SEED}/{run.id}")
    track = _TRACKS[run.track]
    n = TOTAL_STEPS
    u = [i / (n - 1) for i in range(n)]

    # pass rate: integer passes out of 256, start/end means exact
    start, end = run.pass_rate
    trend = [start + (end - start) * _concave(x) for x in u]
    noise = [a + b for a, b in zip(_bounded_noise(rng, n, 0.022), _white(rng, n, 0.018), strict=True)]
    rate = _fit_ends([t + e for t, e in zip(trend, noise, strict=True)], start, end)
    if run.steps_done < 30:  # the running run: its first steps span 73-94 % (187 and 241 of 256)
        rate[: run.steps_done] = _affine_to(rate[: run.steps_done], 187.4 / _SAMPLES, 240.6 / _SAMPLES)
    passes = [min(250, max(6, round(_SAMPLES * r))) for r in rate]
    head = [i for i in range(5) if i < run.steps_done]
    _fix_sum(passes, head, round(start * _SAMPLES * 5), low=188 if run.steps_done < 30 else 6, high=240)
    _fix_sum(passes, range(n - 10, n), round(end * _SAMPLES * 10), low=6, high=250)

    # response length: integer token totals, start/end means exact
    len_start, len_end = run.length
    level = [len_start + (len_end - len_start) * x**1.1 for x in u]
    noise = [(a + b) * lv for a, b, lv in zip(_bounded_noise(rng, n, 0.035), _white(rng, n, 0.02), level, strict=True)]
    means = _fit_ends([lv + e for lv, e in zip(level, noise, strict=True)], len_start, len_end)
    resp_tokens = [round(m * _SAMPLES) for m in means]
    _fix_sum(resp_tokens, range(5), len_start * _SAMPLES * 5, low=0, high=_MAX_RESPONSE * _SAMPLES)
    _fix_sum(resp_tokens, range(n - 10, n), len_end * _SAMPLES * 10, low=0, high=_MAX_RESPONSE * _SAMPLES)
    resp_clipped, resp_max, resp_min = [], [], []
    for tokens in resp_tokens:
        mean_len = tokens / _SAMPLES
        expected = _SAMPLES * 0.02 * max(0.0, (mean_len - 2500) / 7500) ** 1.6
        clipped = int(expected + rng.random())
        resp_clipped.append(clipped)
        resp_max.append(_MAX_RESPONSE if clipped else rng.randint(min(13000, int(mean_len * 2.2)), 16383))
        resp_min.append(rng.randint(int(mean_len * 0.05) + 180, int(mean_len * 0.12) + 420))
    prompt_means = [182.0 + e for e in _bounded_noise(rng, n, 9.0, rho=0.3)]
    prompt_tokens = [round(p * _SAMPLES) for p in prompt_means]
    prompt_max = [rng.randint(431, 587) for _ in range(n)]
    prompt_min = [rng.randint(77, 96) for _ in range(n)]

    # entropy
    ent_start, ent_end = run.entropy
    if (run.algo == "dapo" and run.track == "4b") or run.steps_done < 30:
        ent_trend = [ent_start + (ent_end - ent_start) * x for x in u]
    else:
        ent_trend = [ent_start + (ent_end - ent_start) * _concave(x, 2.0) for x in u]
    scale = (ent_start + ent_end) / 2
    noise = [a + b for a, b in zip(_bounded_noise(rng, n, 0.05 * scale), _white(rng, n, 0.015 * scale), strict=True)]
    entropy = _fit_ends([t + e for t, e in zip(ent_trend, noise, strict=True)], ent_start, ent_end)
    if run.steps_done < 30:
        head_values = _affine_to(entropy[: run.steps_done], 0.2203, 0.2794)
        entropy[: run.steps_done] = head_values

    # grad_norm: a trend plus bounded noise, mapped onto the stated range; spikes set on top
    if run.algo == "drgrpo":
        grad_trend = [0.045 + 0.16 * math.exp(-i / 20) for i in range(n)]
        noise = [a + b for a, b in zip(_bounded_noise(rng, n, 0.008), _white(rng, n, 0.006), strict=True)]
    elif run.algo == "dapo":
        grad_trend = [0.2 - 0.02 * x for x in u]
        noise = [a + b for a, b in zip(_bounded_noise(rng, n, 0.035), _white(rng, n, 0.025), strict=True)]
    else:
        grad_trend = [0.25 - 0.09 * _concave(x) for x in u]
        noise = [a + b for a, b in zip(_bounded_noise(rng, n, 0.025), _white(rng, n, 0.02), strict=True)]
    grad_norm = _affine_to([t + e for t, e in zip(grad_trend, noise, strict=True)], *run.grad_norm)
    for step, value in run.spikes:
        grad_norm[step - 1] = value

    # the rest of the actor
    loss_scale = {"drgrpo": 3.0, "reinforce_pp": 1.6}.get(run.algo, 1.0)
    pg_loss = [
        loss_scale * (-0.0015 + a + b)
        for a, b in zip(_bounded_noise(rng, n, 0.004), _white(rng, n, 0.004), strict=True)
    ]
    clip_base = 0.0042 if run.algo == "dapo" else 0.0019
    pg_clipfrac = [clip_base * (1 + 0.25 * x) + e for x, e in zip(u, _bounded_noise(rng, n, 0.0005), strict=True)]
    lower_base = 0.00036 if run.algo == "dapo" else 0.00011
    pg_clipfrac_lower = [lower_base + e for e in _bounded_noise(rng, n, lower_base * 0.4)]
    ppo_kl = [0.00008 + e for e in _white(rng, n, 0.00015)]
    kl_base = 0.0003 if run.algo == "reinforce_pp" else 0.0004
    kl_loss = [(kl_base + 0.0021 * _concave(x)) * (1 + e) for x, e in zip(u, _bounded_noise(rng, n, 0.06), strict=True)]
    mem = (31.2, 38.4, 166.0) if track.offload else (58.1, 71.3, 102.0)
    mfu = [0.302 + a + b for a, b in zip(_bounded_noise(rng, n, 0.015), _white(rng, n, 0.004), strict=True)]
    mem_alloc = [mem[0] + a + b for a, b in zip(_bounded_noise(rng, n, 1.2), _white(rng, n, 0.3), strict=True)]
    mem_reserved = [mem[1] + a + b for a, b in zip(_bounded_noise(rng, n, 0.9), _white(rng, n, 0.3), strict=True)]
    mem_cpu = [mem[2] + a + b for a, b in zip(_bounded_noise(rng, n, 3.0), _white(rng, n, 0.8), strict=True)]

    # rollout <-> training mismatch: flat, bounded
    corr_base = 0.99888 if run.algo == "dapo" else 0.99931
    pearson = [corr_base + e for e in _bounded_noise(rng, n, 0.00012)]
    probs_diff_mean = [0.0029 + e for e in _bounded_noise(rng, n, 0.00028)]
    probs_diff_std = [0.0121 + e for e in _bounded_noise(rng, n, 0.0008)]
    probs_diff_max = [0.62 + e for e in _white(rng, n, 0.14)]

    adv_mean = [-0.02 + e for e in _white(rng, n, 0.025)]
    mixed_low = [1 if rng.random() < 0.85 else 2 for _ in range(n)]
    mixed_high = [7 if rng.random() < 0.85 else 6 for _ in range(n)]
    overlong = [0.004 + 0.012 * x + e for x, e in zip(u, _white(rng, n, 0.003), strict=True)]

    gen_batches, kept_prompts = [], []
    for _ in range(n):
        rounds = 1
        if run.algo == "dapo":
            draw = rng.random()
            rounds = 3 if draw < 0.05 else 2 if draw < 0.32 else 1
        kept = sorted(rng.sample(range(14, 32), rounds - 1))
        gen_batches.append(rounds)
        kept_prompts.append(kept)

    # step times: proportional model, scaled so the sum over the steps done is the target
    timings = []
    for i in range(n):
        step = i + 1
        resp_mean = resp_tokens[i] / _SAMPLES
        total_tokens = resp_tokens[i] + prompt_tokens[i]
        phases: dict[str, float] = {}
        phases["gen"] = (118.0 + 0.056 * resp_mean) * (1 + 0.55 * (gen_batches[i] - 1)) * rng.uniform(0.96, 1.04)
        phases["reward"] = 1.1 + 0.00021 * resp_mean * rng.uniform(0.8, 1.2)
        phases["old_log_prob"] = 2.7e-5 * total_tokens * rng.uniform(0.97, 1.03)
        if run.kl_loss:
            phases["ref"] = 2.6e-5 * total_tokens * rng.uniform(0.97, 1.03)
        phases["adv"] = (0.42 if run.algo == "reinforce_pp" else 0.14) * rng.uniform(0.7, 1.3)
        phases["update_actor"] = 7.4e-5 * total_tokens * rng.uniform(0.97, 1.03)
        phases["update_weights"] = rng.uniform(3.2, 4.9)
        if step % _TEST_FREQ == 0:
            phases["testing"] = rng.uniform(262.0, 331.0)
        if step % _SAVE_FREQ == 0 or step == n:
            phases["save_checkpoint"] = rng.uniform(48.0, 79.0)
        phases = {k: v * track.time_factor for k, v in phases.items()}
        phases["step"] = sum(phases.values()) + rng.uniform(0.8, 2.4)
        timings.append(phases)
    factor = run.step_seconds / sum(t["step"] for t in timings[: run.steps_done])
    timings = [{k: v * factor for k, v in t.items()} for t in timings]
    elapsed, clock = [], 0.0
    for t in timings:
        clock += t["step"] + 0.31
        elapsed.append(clock)
    seqlen_spread = [(rng.randint(900, 26000), rng.randint(900, 26000)) for _ in range(n)]

    return _Series(
        passes=passes, resp_tokens=resp_tokens, prompt_tokens=prompt_tokens, resp_max=resp_max,
        resp_min=resp_min, resp_clipped=resp_clipped, prompt_max=prompt_max, prompt_min=prompt_min,
        entropy=entropy, grad_norm=grad_norm, pg_loss=pg_loss, pg_clipfrac=pg_clipfrac,
        pg_clipfrac_lower=pg_clipfrac_lower, ppo_kl=ppo_kl, kl_loss=kl_loss, mfu=mfu, mem_alloc=mem_alloc,
        mem_reserved=mem_reserved, mem_cpu=mem_cpu, probs_diff_max=probs_diff_max,
        probs_diff_mean=probs_diff_mean, probs_diff_std=probs_diff_std, pearson=pearson, adv_mean=adv_mean,
        mixed_low=mixed_low, mixed_high=mixed_high, overlong=overlong, gen_batches=gen_batches,
        kept_prompts=kept_prompts, timings=timings, elapsed=elapsed, seqlen_spread=seqlen_spread,
    )  # fmt: skip


def _validation(run: _Run, step: int) -> list[tuple[str, str]]:
    """The aime24 validation metrics at a validation step, as verl's ``_validate`` orders them."""
    solved = run.aime[step // _TEST_FREQ]
    acc = solved / 30
    reward = (2 * solved - 30) / 30
    return [
        ("val-aux/aime24/reward/mean@1", _np64(reward)),
        ("val-aux/aime24/score/mean@1", _np64(reward)),
        ("val-core/aime24/acc/mean@1", _np64(acc)),
    ]


def _metrics(run: _Run, step: int) -> list[tuple[str, str]]:
    """One step's metrics in verl's insertion order, values already formatted."""
    s = _series(run)
    i = step - 1
    n_gpus = _TRACKS[run.track].n_gpus
    pairs: list[tuple[str, str]] = []
    add = pairs.append

    total_tokens = s.resp_tokens[i] + s.prompt_tokens[i]
    rank_mean = total_tokens / n_gpus
    low, high = s.seqlen_spread[i]
    add(("global_seqlen/min", str(int(rank_mean) - low)))
    add(("global_seqlen/max", str(int(rank_mean) + high)))
    add(("global_seqlen/minmax_diff", str(low + high)))
    add(("global_seqlen/balanced_min", str(total_tokens // n_gpus)))
    add(("global_seqlen/balanced_max", str(-(-total_tokens // n_gpus))))
    add(("global_seqlen/mean", _py(rank_mean)))
    add(("actor/entropy", _pyf32(s.entropy[i])))
    add(("training/rollout_probs_diff_valid", "1"))
    add(("training/rollout_probs_diff_max", _pyf32(s.probs_diff_max[i])))
    add(("training/rollout_probs_diff_mean", _pyf32(s.probs_diff_mean[i])))
    add(("training/rollout_probs_diff_std", _pyf32(s.probs_diff_std[i])))
    add(("training/rollout_actor_probs_pearson_corr", _pyf32(s.pearson[i])))
    if run.kl_loss:
        add(("actor/kl_loss", _np64(s.kl_loss[i])))
        add(("actor/kl_coef", _np64(0.001)))
    add(("actor/pg_loss", _np64(s.pg_loss[i])))
    add(("actor/pg_clipfrac", _np64(s.pg_clipfrac[i])))
    add(("actor/ppo_kl", _np64(s.ppo_kl[i])))
    add(("actor/pg_clipfrac_lower", _np32(s.pg_clipfrac_lower[i])))
    add(("actor/grad_norm", _np64(s.grad_norm[i])))
    add(("perf/mfu/actor", _np64(s.mfu[i])))
    add(("perf/max_memory_allocated_gb", _np64(s.mem_alloc[i])))
    add(("perf/max_memory_reserved_gb", _np64(s.mem_reserved[i])))
    add(("perf/cpu_memory_used_gb", _np64(s.mem_cpu[i])))
    add(("actor/lr", _np64(1e-06)))
    if step % _TEST_FREQ == 0:
        pairs.extend(_validation(run, step))
    add(("training/global_step", str(step)))
    add(("training/epoch", "0"))

    score_mean = s.passes[i] / 128 - 1
    add(("critic/score/mean", _py(score_mean)))
    add(("critic/score/max", "1.0"))
    add(("critic/score/min", "-1.0"))
    if run.algo == "dapo":
        penalty = s.overlong[i] if s.resp_clipped[i] else s.overlong[i] * 0.4
        reward_min = -1.0 - (min(0.97, 0.45 + 40 * s.overlong[i]) if s.resp_clipped[i] else 0.0)
        add(("critic/rewards/mean", _pyf32(score_mean - penalty)))
        add(("critic/rewards/max", "1.0"))
        add(("critic/rewards/min", _pyf32(reward_min)))
    else:
        add(("critic/rewards/mean", _py(score_mean)))
        add(("critic/rewards/max", "1.0"))
        add(("critic/rewards/min", "-1.0"))
    if run.algo == "reinforce_pp":
        token_pass = max(0.05, min(0.98, s.passes[i] / _SAMPLES - 0.04))
        mu, sigma = 2 * token_pass - 1, 2 * math.sqrt(token_pass * (1 - token_pass))
        advantages = (s.adv_mean[i] * 1e-6, (1 - mu) / sigma, (-1 - mu) / sigma)
        returns = (mu, 1.0, -1.0)
    else:
        adv_max = _group_advantage(run.algo, s.mixed_low[i], success=True)
        adv_min = _group_advantage(run.algo, s.mixed_high[i], success=False)
        if run.algo == "dapo" and s.resp_clipped[i]:
            adv_min *= 1.0 + 0.3 * s.overlong[i] * 20
        advantages = (s.adv_mean[i], adv_max, adv_min)
        returns = advantages
    for name, value in zip(("mean", "max", "min"), advantages, strict=True):
        add((f"critic/advantages/{name}", _pyf32(value)))
    for name, value in zip(("mean", "max", "min"), returns, strict=True):
        add((f"critic/returns/{name}", _pyf32(value)))

    add(("response_length/mean", _py(s.resp_tokens[i] / _SAMPLES)))
    add(("response_length/max", _py(s.resp_max[i])))
    add(("response_length/min", _py(s.resp_min[i])))
    add(("response_length/clip_ratio", _py(s.resp_clipped[i] / _SAMPLES)))
    add(("prompt_length/mean", _py(s.prompt_tokens[i] / _SAMPLES)))
    add(("prompt_length/max", _py(s.prompt_max[i])))
    add(("prompt_length/min", _py(s.prompt_min[i])))
    add(("prompt_length/clip_ratio", "0.0"))

    timing = s.timings[i]
    for phase, seconds in timing.items():
        add((f"timing_s/{phase}", _py(seconds)))
    add(("timing_per_token_ms/adv", _py(timing["adv"] * 1000 / total_tokens)))
    if "ref" in timing:
        add(("timing_per_token_ms/ref", _py(timing["ref"] * 1000 / total_tokens)))
    add(("timing_per_token_ms/update_actor", _py(timing["update_actor"] * 1000 / total_tokens)))
    add(("timing_per_token_ms/gen", _py(timing["gen"] * 1000 / s.resp_tokens[i])))
    add(("perf/total_num_tokens", str(total_tokens)))
    add(("perf/time_per_step", _py(timing["step"])))
    add(("perf/throughput", _py(total_tokens / (timing["step"] * n_gpus))))
    if run.algo == "dapo":
        add(("train/num_gen_batches", str(s.gen_batches[i])))
    return pairs


# --------------------------------------------------------------------------------------------------
# The config dump and the launch command


def _config(run: _Run) -> dict[str, Any]:
    """The resolved config as verl pretty-prints it (structure of verl's ppo_trainer.yaml, v0.5)."""
    track = _TRACKS[run.track]
    dapo = run.algo == "dapo"
    kl_type = run.kl_loss
    project = f"qwen35_{run.track}_math_rl"
    max_tokens = _MAX_PROMPT + _MAX_RESPONSE
    engine = {
        "_target_": "verl.workers.config.FSDPEngineConfig",
        "forward_prefetch": False,
        "fsdp_size": -1,
        "offload_policy": False,
        "optimizer_offload": track.offload,
        "param_offload": track.offload,
        "reshard_after_forward": True,
        "wrap_policy": {"min_num_params": 0},
    }
    profiler = {"_target_": "verl.utils.profiler.ProfilerConfig", "all_ranks": False, "discrete": False, "ranks": []}
    checkpoint = {
        "_target_": "verl.trainer.config.CheckpointConfig",
        "async_save": False,
        "load_contents": ["model", "optimizer", "extra"],
        "save_contents": ["model", "optimizer", "extra"],
    }
    actor = {
        "_target_": "verl.workers.config.FSDPActorConfig",
        "checkpoint": checkpoint,
        "clip_ratio": 0.2,
        "clip_ratio_c": 10.0 if dapo else 3.0,
        "clip_ratio_high": 0.28 if dapo else 0.2,
        "clip_ratio_low": 0.2,
        "entropy_checkpointing": False,
        "entropy_coeff": 0,
        "entropy_from_logits_with_chunking": False,
        "fsdp_config": engine,
        "grad_clip": 1.0,
        "kl_loss_coef": 0.001 if kl_type else 0.0,
        "kl_loss_type": kl_type or "low_var_kl",
        "loss_agg_mode": "seq-mean-token-sum-norm" if run.algo == "drgrpo" else "token-mean",
        "optim": {
            "_target_": "verl.workers.config.FSDPOptimizerConfig",
            "lr": 1e-06,
            "lr_warmup_steps": 10 if dapo else -1,
            "lr_warmup_steps_ratio": 0.0,
            "min_lr_ratio": 0.0,
            "num_cycles": 0.5,
            "total_training_steps": -1,
            "warmup_style": "constant",
            "weight_decay": 0.1 if dapo else 0.01,
        },
        "policy_loss": {
            "_target_": "verl.workers.config.PolicyLossConfig",
            "clip_cov_lb": 1.0,
            "clip_cov_ratio": 0.0002,
            "clip_cov_ub": 5.0,
            "kl_cov_ratio": 0.0002,
            "loss_mode": "vanilla",
            "ppo_kl_coef": 0.1,
        },
        "ppo_epochs": 1,
        "ppo_max_token_len_per_gpu": max_tokens * 2,
        "ppo_micro_batch_size": None,
        "ppo_micro_batch_size_per_gpu": None,
        "ppo_mini_batch_size": 16,
        "shuffle": False,
        "strategy": "fsdp",
        "ulysses_sequence_parallel_size": 1,
        "use_dynamic_bsz": True,
        "use_fused_kernels": False,
        "use_kl_loss": bool(kl_type),
        "use_remove_padding": True,
        "use_torch_compile": True,
    }
    model = {
        "custom_chat_template": None,
        "enable_activation_offload": False,
        "enable_gradient_checkpointing": True,
        "exclude_modules": None,
        "external_lib": None,
        "fused_kernel_options": {"impl_backend": "torch"},
        "lora_alpha": 16,
        "lora_rank": 0,
        "override_config": {},
        "path": track.model,
        "target_modules": "all-linear",
        "trust_remote_code": False,
        "use_fused_kernels": False,
        "use_liger": False,
        "use_remove_padding": True,
        "use_shm": False,
    }
    ref = {
        "entropy_checkpointing": False,
        "entropy_from_logits_with_chunking": False,
        "fsdp_config": {**engine, "param_offload": True},
        "log_prob_max_token_len_per_gpu": max_tokens * 2,
        "log_prob_micro_batch_size": None,
        "log_prob_micro_batch_size_per_gpu": None,
        "log_prob_use_dynamic_bsz": True,
        "strategy": "fsdp",
        "ulysses_sequence_parallel_size": 1,
        "use_torch_compile": True,
    }
    rollout = {
        "agent": {
            "agent_loop_config_path": None,
            "custom_async_server": {"name": None, "path": None},
            "num_workers": 8,
        },
        "calculate_log_probs": True,
        "disable_log_stats": True,
        "do_sample": True,
        "dtype": "bfloat16",
        "enable_chunked_prefill": True,
        "enforce_eager": False,
        "engine_kwargs": {
            "sglang": {"attention_backend": None},
            "vllm": {"disable_mm_preprocessor_cache": False, "swap_space": None},
        },
        "free_cache_engine": True,
        "gpu_memory_utilization": 0.6,
        "ignore_eos": False,
        "layered_summon": False,
        "load_format": "dummy_dtensor",
        "log_prob_max_token_len_per_gpu": max_tokens * 2,
        "log_prob_micro_batch_size": None,
        "log_prob_micro_batch_size_per_gpu": None,
        "log_prob_use_dynamic_bsz": True,
        "max_model_len": None,
        "max_num_batched_tokens": max_tokens,
        "max_num_seqs": 1024,
        "mode": "sync",
        "multi_stage_wake_up": False,
        "multi_turn": {
            "enable": False,
            "format": "hermes",
            "interaction_config_path": None,
            "max_assistant_turns": None,
            "max_parallel_calls": 1,
            "max_tool_response_length": 256,
            "max_user_turns": None,
            "tokenization_sanity_check_mode": "strict",
            "tool_config_path": None,
            "tool_response_truncate_side": "middle",
            "use_inference_chat_template": False,
        },
        "n": 8,
        "name": "vllm",
        "prompt_length": _MAX_PROMPT,
        "response_length": _MAX_RESPONSE,
        "temperature": 1.0,
        "tensor_model_parallel_size": track.tp,
        "top_k": -1,
        "top_p": 1.0,
        "trace": {"backend": None, "token2text": False},
        "update_weights_bucket_megabytes": 512,
        "val_kwargs": {"do_sample": False, "n": 1, "temperature": 0, "top_k": -1, "top_p": 1.0},
    }
    algorithm: dict[str, Any] = {
        "_target_": "verl.trainer.config.AlgoConfig",
        "adv_estimator": {"rloo": "rloo", "reinforce_pp": "reinforce_plus_plus"}.get(run.algo, "grpo"),
        "gamma": 1.0,
        "kl_ctrl": {
            "_target_": "verl.trainer.config.KLControlConfig",
            "horizon": 10000,
            "kl_coef": 0.001,
            "target_kl": 0.1,
            "type": "fixed",
        },
        "kl_penalty": "kl",
        "lam": 1.0,
        "norm_adv_by_std_in_grpo": run.algo != "drgrpo",
        "pf_ppo": {"reweight_method": "pow", "weight_pow": 2.0},
        "use_kl_in_reward": False,
        "use_pf_ppo": False,
    }
    if dapo:
        algorithm["filter_groups"] = {"enable": True, "max_num_gen_batches": 10, "metric": "acc"}
    critic = {
        "_target_": "verl.workers.config.FSDPCriticConfig",
        "checkpoint": checkpoint,
        "cliprange_value": 0.5,
        "enable": None,
        "forward_max_token_len_per_gpu": 32768,
        "forward_micro_batch_size": None,
        "forward_micro_batch_size_per_gpu": None,
        "grad_clip": 1.0,
        "loss_agg_mode": actor["loss_agg_mode"],
        "model": {
            "_target_": "verl.workers.config.FSDPCriticModelCfg",
            "enable_activation_offload": False,
            "enable_gradient_checkpointing": True,
            "external_lib": None,
            "fsdp_config": {**engine, "optimizer_offload": False, "param_offload": False},
            "lora_alpha": 16,
            "lora_rank": 0,
            "override_config": {},
            "path": "~/models/deepseek-llm-7b-chat",
            "target_modules": "all-linear",
            "tokenizer_path": track.model,
            "trust_remote_code": False,
            "use_remove_padding": False,
            "use_shm": False,
        },
        "optim": {
            "_target_": "verl.workers.config.FSDPOptimizerConfig",
            "lr": 1e-05,
            "lr_warmup_steps": -1,
            "lr_warmup_steps_ratio": 0.0,
            "min_lr_ratio": None,
            "total_training_steps": -1,
            "warmup_style": "constant",
            "weight_decay": 0.01,
        },
        "ppo_epochs": 1,
        "ppo_max_token_len_per_gpu": 32768,
        "ppo_micro_batch_size": None,
        "ppo_micro_batch_size_per_gpu": None,
        "ppo_mini_batch_size": 16,
        "profiler": profiler,
        "rollout_n": 8,
        "shuffle": False,
        "strategy": "fsdp",
        "ulysses_sequence_parallel_size": 1,
        "use_dynamic_bsz": True,
    }
    data: dict[str, Any] = {
        "apply_chat_template_kwargs": {"enable_thinking": False},
        "custom_cls": {"name": None, "path": None},
        "datagen": {"name": None, "path": None},
        "dataloader_num_workers": 8,
        "filter_overlong_prompts": True,
        "filter_overlong_prompts_workers": 1,
        "image_key": "images",
        "max_prompt_length": _MAX_PROMPT,
        "max_response_length": _MAX_RESPONSE,
        "prompt_key": "prompt",
        "return_full_prompt": False,
        "return_multi_modal_inputs": True,
        "return_raw_chat": False,
        "return_raw_input_ids": False,
        "reward_fn_key": "data_source",
        "sampler": {"class_name": None, "class_path": None},
        "shuffle": True,
        "tokenizer": None,
        "train_batch_size": 32,
        "train_files": "/data/rl/dapo-math-17k/train.parquet",
        "truncation": "left",
        "trust_remote_code": False,
        "use_shm": False,
        "val_batch_size": None,
        "val_files": "/data/rl/aime24/test.parquet",
        "validation_shuffle": False,
        "video_key": "videos",
    }
    if dapo:
        data["gen_batch_size"] = 48
    reward_model: dict[str, Any] = {
        "enable": False,
        "forward_max_token_len_per_gpu": 32768,
        "launch_reward_fn_async": False,
        "max_length": None,
        "micro_batch_size": None,
        "micro_batch_size_per_gpu": None,
        "model": {
            "external_lib": None,
            "fsdp_config": {**engine, "optimizer_offload": False, "param_offload": False},
            "input_tokenizer": track.model,
            "path": "~/models/FsfairX-LLaMA3-RM-v0.1",
            "trust_remote_code": False,
            "use_fused_kernels": False,
            "use_remove_padding": False,
            "use_shm": False,
        },
        "profiler": profiler,
        "reward_manager": "dapo" if dapo else "naive",
        "sandbox_fusion": {"max_concurrent": 64, "memory_limit_mb": 1024, "url": None},
        "strategy": "fsdp",
        "ulysses_sequence_parallel_size": 1,
        "use_dynamic_bsz": True,
    }
    if dapo:
        reward_model["overlong_buffer"] = {"enable": True, "len": 4096, "log": False, "penalty_factor": 1.0}
    trainer = {
        "balance_batch": True,
        "critic_warmup": 0,
        "default_hdfs_dir": None,
        "default_local_dir": f"checkpoints/{project}/{run.name}",
        "del_local_ckpt_after_load": False,
        "device": "cuda",
        "esi_redundant_time": 0,
        "experiment_name": run.name,
        "log_val_generations": 0,
        "logger": ["console"],
        "max_actor_ckpt_to_keep": 2,
        "max_critic_ckpt_to_keep": None,
        "n_gpus_per_node": track.n_gpus,
        "nnodes": 1,
        "profile_continuous_steps": False,
        "profile_steps": None,
        "project_name": project,
        "ray_wait_register_center_timeout": 300,
        "resume_from_path": None,
        "resume_mode": "auto",
        "rollout_data_dir": _dump_dir(run),
        "save_freq": _SAVE_FREQ,
        "test_freq": _TEST_FREQ,
        "total_epochs": 1,
        "total_training_steps": TOTAL_STEPS,
        "use_legacy_worker_impl": "auto",
        "val_before_train": True,
        "val_only": False,
        "validation_data_dir": None,
    }
    return {
        "actor_rollout_ref": {
            "actor": actor,
            "hybrid_engine": True,
            "model": model,
            "profiler": profiler,
            "ref": ref,
            "rollout": rollout,
        },
        "algorithm": algorithm,
        "critic": critic,
        "custom_reward_function": {"name": "compute_score", "path": None},
        "data": data,
        "ray_init": {"num_cpus": None, "timeline_json_file": None},
        "reward_model": reward_model,
        "trainer": trainer,
    }


def _launch_command(run: _Run) -> str:
    config = _config(run)
    actor = config["actor_rollout_ref"]["actor"]
    module = "recipe.dapo.main_dapo" if run.algo == "dapo" else "verl.trainer.main_ppo"
    overrides = [
        f"algorithm.adv_estimator={config['algorithm']['adv_estimator']}",
        f"data.train_files={config['data']['train_files']}",
        f"data.val_files={config['data']['val_files']}",
        "data.train_batch_size=32",
        f"data.max_prompt_length={_MAX_PROMPT}",
        f"data.max_response_length={_MAX_RESPONSE}",
        "data.filter_overlong_prompts=True",
        "data.truncation=left",
        "+data.apply_chat_template_kwargs.enable_thinking=False",
        f"actor_rollout_ref.model.path={config['actor_rollout_ref']['model']['path']}",
        "actor_rollout_ref.actor.optim.lr=1e-6",
        "actor_rollout_ref.actor.ppo_mini_batch_size=16",
        "actor_rollout_ref.actor.use_dynamic_bsz=True",
        f"actor_rollout_ref.actor.ppo_max_token_len_per_gpu={actor['ppo_max_token_len_per_gpu']}",
        f"actor_rollout_ref.actor.use_kl_loss={actor['use_kl_loss']}",
    ]
    if run.kl_loss:
        overrides += [
            "actor_rollout_ref.actor.kl_loss_coef=0.001",
            f"actor_rollout_ref.actor.kl_loss_type={run.kl_loss}",
        ]
    if run.algo == "drgrpo":
        overrides += [
            "algorithm.norm_adv_by_std_in_grpo=False",
            "actor_rollout_ref.actor.loss_agg_mode=seq-mean-token-sum-norm",
        ]
    if run.algo == "dapo":
        overrides += [
            "data.gen_batch_size=48",
            "actor_rollout_ref.actor.clip_ratio_low=0.2",
            "actor_rollout_ref.actor.clip_ratio_high=0.28",
            "actor_rollout_ref.actor.clip_ratio_c=10.0",
            "actor_rollout_ref.actor.loss_agg_mode=token-mean",
            "actor_rollout_ref.actor.optim.weight_decay=0.1",
            "actor_rollout_ref.actor.optim.lr_warmup_steps=10",
            "algorithm.filter_groups.enable=True",
            "algorithm.filter_groups.metric=acc",
            "algorithm.filter_groups.max_num_gen_batches=10",
            "reward_model.reward_manager=dapo",
            "reward_model.overlong_buffer.enable=True",
            "reward_model.overlong_buffer.len=4096",
            "reward_model.overlong_buffer.penalty_factor=1.0",
        ]
    offload = actor["fsdp_config"]["param_offload"]
    trainer = config["trainer"]
    overrides += [
        f"actor_rollout_ref.actor.fsdp_config.param_offload={offload}",
        f"actor_rollout_ref.actor.fsdp_config.optimizer_offload={offload}",
        "actor_rollout_ref.rollout.name=vllm",
        f"actor_rollout_ref.rollout.tensor_model_parallel_size={_TRACKS[run.track].tp}",
        "actor_rollout_ref.rollout.gpu_memory_utilization=0.6",
        "actor_rollout_ref.rollout.n=8",
        "actor_rollout_ref.rollout.calculate_log_probs=True",
        "actor_rollout_ref.rollout.val_kwargs.do_sample=False",
        "'trainer.logger=[console]'",
        f"trainer.project_name={trainer['project_name']}",
        f"trainer.experiment_name={run.name}",
        f"trainer.n_gpus_per_node={trainer['n_gpus_per_node']}",
        "trainer.nnodes=1",
        f"trainer.save_freq={_SAVE_FREQ}",
        f"trainer.test_freq={_TEST_FREQ}",
        f"trainer.total_training_steps={TOTAL_STEPS}",
        "trainer.total_epochs=1",
        "trainer.max_actor_ckpt_to_keep=2",
    ]
    if run.id in _DUMPED:
        overrides.append(f"trainer.rollout_data_dir={_dump_dir(run)}")
    return f"+ python3 -m {module} " + " ".join(overrides)


# --------------------------------------------------------------------------------------------------
# Generation dumps

_DUMPED = {"4b/e1_grpo_4b": (1.10, 1.60), "4b/e3_drgrpo_4b": (1.10, 1.12)}
"""Runs that set ``trainer.rollout_data_dir``, with the ratio of the incorrect to the correct responses' mean
length at the first and the last step: GRPO's incorrect answers lengthen (the Dr.GRPO paper's plot), Dr.GRPO's
keep pace with the correct ones."""
_PROMPTS = 32
_N = _SAMPLES // _PROMPTS


def _dump_dir(run: _Run) -> str | None:
    """The run's ``trainer.rollout_data_dir`` as the lab wrote it (rlmon finds ``rollouts`` in the run's folder)."""
    return f"/mnt/rl/verl/rollouts/qwen35_{run.track}_math_rl/{run.name}/rollouts" if run.id in _DUMPED else None


def _group_passes(rng: random.Random, passes: int) -> list[int]:
    """``passes`` correct responses spread over the 32 groups of 8: easy prompts fill first, so some groups are
    all correct (or, on a hard step, all wrong) as in a real batch."""
    ease = [rng.random() ** 0.4 for _ in range(_PROMPTS)]
    total = sum(ease)
    counts = [min(_N, int(passes * value / total)) for value in ease]
    left = passes - sum(counts)
    for index in sorted(range(_PROMPTS), key=lambda index: -ease[index]):
        added = min(_N - counts[index], left)
        counts[index] += added
        left -= added
    return counts


def _dump_text(run: _Run, step: int) -> str:
    """verl's ``<step>.jsonl`` of the run (``_dump_generations``): one JSON object per response, the prompt's 8
    responses together; ``acc``, ``pred`` and ``response_length`` are the reward function's extra fields. The
    mean length over the step is about the logged ``response_length/mean``, split between correct and
    incorrect responses by the ratio of :data:`_DUMPED`."""
    series = _series(run)
    rng = random.Random(f"{_SEED}/{run.id}/dump/{step}")
    first, last = _DUMPED[run.id]
    ratio = first + (last - first) * (step - 1) / (TOTAL_STEPS - 1)
    passes = series.passes[step - 1]
    mean = series.resp_tokens[step - 1] / _SAMPLES
    correct_mean = mean * _SAMPLES / (passes + ratio * (_SAMPLES - passes))
    lines = []
    asked: set[tuple[int, int, int]] = set()
    for group, right in enumerate(_group_passes(rng, passes)):
        a, b, m = rng.randint(12, 99), rng.randint(3, 40), rng.choice((7, 9, 11, 13, 17))
        while (a, b, m) in asked:  # one prompt per group: a batch draws each prompt once
            a, b, m = rng.randint(12, 99), rng.randint(3, 40), rng.choice((7, 9, 11, 13, 17))
        asked.add((a, b, m))
        truth = pow(a, b, m)
        prompt = json.dumps(
            f"user\nFind the remainder when {a}^{b} is divided by {m}. Let's think step by step and output the "
            "final answer within \\boxed{}.\nassistant\n"
        )
        wrong = (truth + 1 + group % (m - 1)) % m
        # json.dumps of each record, written out: the fields are numbers and plain ASCII (the prompt is encoded)
        for index in range(_N):
            correct = index < right
            answer = truth if correct else wrong
            length = max(
                64, min(_MAX_RESPONSE, round(correct_mean * (1.0 if correct else ratio) * (0.75 + 0.5 * rng.random())))
            )
            lines.append(
                f'{{"input": {prompt}, "output": "... so the remainder is \\\\boxed{{{answer}}}.", "gts": "{truth}", '
                f'"score": {1.0 if correct else -1.0}, "step": {step}, "acc": {"true" if correct else "false"}, '
                f'"pred": "{answer}", "response_length": {length}}}'
            )
    return "\n".join(lines) + "\n"


def _write_dumps(run: _Run, folder: Path, mtime: float) -> None:
    """The run's dump folder ``rollouts``, one file per step done (written again from scratch)."""
    dumps = folder / "rollouts"
    dumps.mkdir(exist_ok=True)
    for step in range(1, run.steps_done + 1):
        path = dumps / f"{step}.jsonl"
        path.write_text(_dump_text(run, step), encoding="utf-8")
        os.utime(path, (mtime, mtime))


# --------------------------------------------------------------------------------------------------
# Text


def _stamp(text: str) -> datetime:
    return datetime.strptime(text, "%Y%m%d_%H%M%S")


@dataclass(frozen=True)
class _Clock:
    """Wall-clock landmarks of one run (naive datetimes: the lab's local time)."""

    start: datetime  # from the file name
    bar_start: datetime  # tqdm bar created (after start-up and the initial validation)

    def step_end(self, series: _Series, step: int) -> datetime:
        return self.bar_start + timedelta(seconds=series.elapsed[step - 1]) if step else self.bar_start


def _clock(run: _Run) -> _Clock:
    start = _stamp(run.stamps[-1])
    rng = random.Random(f"{_SEED}/{run.id}/clock")
    return _Clock(start, start + timedelta(seconds=rng.uniform(280.0, 360.0) + rng.uniform(250.0, 320.0)))


def _pids(run: _Run, file_index: int) -> tuple[int, list[int]]:
    rng = random.Random(f"{_SEED}/{run.id}/pids/{file_index}")
    trainer = rng.randint(180000, 3900000)
    first = trainer + rng.randint(700, 2600)
    workers = [first] + [first + rng.randint(3, 40) + 37 * k for k in range(1, _TRACKS[run.track].n_gpus)]
    return trainer, workers


class _Writer:
    """Collects prefixed lines."""

    def __init__(self, trainer_pid: int, worker_pids: list[int]) -> None:
        self.tr = _TR.format(pid=trainer_pid)
        self.workers = [_WD.format(pid=pid) for pid in worker_pids]
        self.parts: list[str] = []

    def raw(self, text: str) -> None:
        self.parts.append(text + "\n")

    def trainer(self, text: str) -> None:
        for line in text.split("\n"):
            self.parts.append(self.tr + line + "\n")

    def worker(self, text: str, *, rank: int = 0, repeated: int = 0) -> None:
        suffix = _REPEATED.format(n=repeated) if repeated else ""
        for line in text.split("\n"):
            self.parts.append(self.workers[rank] + line + suffix + "\n")

    def text(self) -> str:
        return "".join(self.parts)


def _vllm_time(moment: datetime) -> str:
    return moment.strftime("%m-%d %H:%M:%S")


def _log_time(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S,") + f"{moment.microsecond // 1000:03d}"


def _tqdm_interval(seconds: float) -> str:
    mins, secs = divmod(int(seconds), 60)
    hours, mins = divmod(mins, 60)
    return f"{hours:d}:{mins:02d}:{secs:02d}" if hours else f"{mins:02d}:{secs:02d}"


def _tqdm_bar(series: _Series, done: int) -> str:
    """tqdm's rendering of ``Training Progress`` after ``done`` updates (10-cell unicode bar)."""
    total = TOTAL_STEPS
    if done == 0:
        return f"Training Progress:   0%|          | 0/{total} [00:00<?, ?it/s]"
    frac = done / total
    filled, partial = divmod(int(frac * 10 * 8), 8)
    charset = " " + "".join(chr(c) for c in range(0x258F, 0x2587, -1))
    bar = charset[-1] * filled
    if filled < 10:
        bar += charset[partial] + " " * (10 - filled - 1)
    rate = 0.0
    for k in range(max(0, done - 12), done):  # tqdm's EMA of seconds per update (smoothing 0.3)
        dt = series.elapsed[k] - (series.elapsed[k - 1] if k else 0.0)
        rate = dt if rate == 0.0 else 0.3 * dt + 0.7 * rate
    elapsed = series.elapsed[done - 1]
    remaining = (total - done) * rate
    return (
        f"Training Progress: {frac * 100:3.0f}%|{bar}| {done}/{total} "
        f"[{_tqdm_interval(elapsed)}<{_tqdm_interval(remaining)}, {rate:5.2f}s/it]"
    )


_PROBLEMS = (
    (
        "Let $N$ be the number of ordered pairs $(a,b)$ of positive integers with $a+b\\le 40$ such that "
        "$\\gcd(a,b)=1$ and $a\\mid b^2+1$. Find $N$.",
        "We count, for each $a$, the residues $b$ modulo $a$ with $b^2\\equiv -1 \\pmod a$ ...\n"
        "Summing over $a\\le 39$ gives $N=204$.\n\nThe answer is $\\boxed{204}$.",
        "204",
    ),
    (
        "A bag holds $5$ red and $7$ blue marbles. Marbles are drawn without replacement until both colours "
        "have appeared. The expected number of draws is $\\frac{m}{n}$ in lowest terms. Find $m+n$.",
        "Let $X$ be the number of draws. $P(X>k)$ is the probability that the first $k$ marbles share a "
        "colour ...\nSo $E[X]=\\frac{131}{42}$, and $m+n=173$.\n\n$\\boxed{173}$",
        "173",
    ),
    (
        "Find the remainder when $\\sum_{k=1}^{2024} k^{k}$ is divided by $1000$.",
        "Work modulo $8$ and modulo $125$ separately ...\nCombining with CRT gives $\\boxed{468}$.",
        "468",
    ),
)


def _validation_dump(w: _Writer, run: _Run, step: int) -> None:
    w.trainer(
        "test_gen_batch meta info: {'eos_token_id': 151645, 'pad_token_id': 151643, 'recompute_log_prob': "
        f"False, 'do_sample': False, 'validate': True, 'global_steps': {step}}}"
    )
    w.worker(
        f"kwargs: {{'n': 1, 'logprobs': 0, 'max_tokens': {_MAX_RESPONSE}, 'detokenize': False, "
        "'temperature': 0, 'top_k': -1, 'top_p': 1.0, 'ignore_eos': False}",
        repeated=_TRACKS[run.track].n_gpus - 1,
    )
    w.trainer("validation generation end")
    problem, response, truth = _PROBLEMS[(step // _TEST_FREQ) % len(_PROBLEMS)]
    solved = run.aime[step // _TEST_FREQ]
    score = 1.0 if solved * 7 % 3 else -1.0
    w.trainer(f"[prompt] user\n{problem} Let's think step by step and output the final answer within \\boxed{{}}.")
    w.trainer("assistant\n")
    w.trainer(f"[response] {response}")
    w.trainer(f"[ground_truth] {truth}")
    w.trainer(f"[score] {score}")
    w.trainer("len reward_extra_infos_dict['reward']: 30")


def _dict_repr(pairs: list[tuple[str, str]]) -> str:
    return "{" + ", ".join(f"{key!r}: {value}" for key, value in pairs) + "}"


def _header(run: _Run, file_index: int, *, startup_only: bool) -> str:
    trainer_pid, worker_pids = _pids(run, file_index)
    w = _Writer(trainer_pid, worker_pids)
    track = _TRACKS[run.track]
    start = _stamp(run.stamps[file_index])
    rng = random.Random(f"{_SEED}/{run.id}/header/{file_index}")
    w.raw(_launch_command(run))
    w.raw(
        f"{_log_time(start + timedelta(seconds=6.4))}\tINFO worker.py:1942 -- Started a local Ray instance. "
        "View the dashboard at \x1b[1m\x1b[32m127.0.0.1:8265 \x1b[39m\x1b[22m"
    )
    w.trainer(f"TaskRunner hostname: a100-node-07, PID: {trainer_pid}")
    w.trainer(pprint.pformat(_config(run), width=80))
    w.trainer("Using dataset class: RLHFDataset")
    w.trainer("dataset len: 17917")
    w.trainer("filter dataset len: 17917")
    w.trainer("Using dataset class: RLHFDataset")
    w.trainer("dataset len: 30")
    w.trainer("filter dataset len: 30")
    if run.algo != "dapo":
        w.trainer(
            f"/usr/local/lib/python3.11/site-packages/verl/trainer/main_ppo.py:{rng.randint(300, 320)}: "
            "UserWarning: Disabled critic as algorithm.adv_estimator != gae. If it is not intended, please set "
            "critic.enable=True\n  trainer = RayPPOTrainer("
        )
    w.trainer("[validate_config] All configuration checks passed successfully!")
    w.trainer("Size of train dataloader: 559, Size of val dataloader: 1")
    w.trainer(f"Total training steps: {TOTAL_STEPS}")
    w.trainer("colocated worker base class <class 'verl.single_controller.base.worker.Worker'>")
    moment = start + timedelta(seconds=31.5)
    w.trainer(
        f"WARNING:{_log_time(moment)}:Waiting for register center actor {rng.choice(['Hk2mQx', 'p0TzVe', 'aW9rLc'])}"
        "_register_center to be ready. Elapsed time: 0 seconds out of 300 seconds."
    )
    w.worker(f"Model config after override: {track.model.split('/')[1]} (model_type qwen3_5, torch_dtype bfloat16)")
    w.worker(
        "Flash Attention 2.0 only supports torch.float16 and torch.bfloat16 dtypes, but the current dype in "
        "Qwen3_5ForCausalLM is torch.float32. You should run training or inference using Automatic Mixed-Precision "
        "via the `with torch.autocast(device_type='torch_device'):` decorator, or load the model with the "
        '`torch_dtype` argument. Example: `model = AutoModel.from_pretrained("openai/whisper-tiny", '
        'attn_implementation="flash_attention_2", torch_dtype=torch.float16)`',
        repeated=track.n_gpus - 1,
    )
    w.worker("Monkey patch _flash_attention_forward in transformers.integrations.flash_attention")
    w.worker(f"Qwen3_5ForCausalLM contains {track.params} parameters")
    w.worker("NCCL version 2.26.2+cuda12.8")
    w.worker(f"Total steps: {TOTAL_STEPS}, num_warmup_steps: {10 if run.algo == 'dapo' else 0}")
    w.worker("Actor use_remove_padding=True")
    moment += timedelta(seconds=74)
    w.worker(
        f"INFO {_vllm_time(moment)} [__init__.py:241] Automatically detected platform cuda.",
        repeated=track.n_gpus - 1,
    )
    w.worker(
        f"WARNING {_vllm_time(moment + timedelta(seconds=9))} [cuda.py:103] To see benefits of async output "
        "processing, enable CUDA graph. Since, enforce-eager is enabled, async output processor cannot be used"
    )
    w.worker(
        f"INFO {_vllm_time(moment + timedelta(seconds=52))} [gpu_model_runner.py:2007] Model loading took "
        f"{rng.uniform(2.0, 9.0):.4f} GiB and {rng.uniform(3.0, 9.0):.6f} seconds",
        repeated=track.n_gpus - 1,
    )
    w.worker(
        f"INFO {_vllm_time(moment + timedelta(seconds=96))} [gpu_worker.py:276] Available KV cache memory: "
        f"{rng.uniform(20.0, 30.0):.2f} GiB"
    )
    if startup_only:
        w.worker(
            f"INFO {_vllm_time(moment + timedelta(seconds=118))} [gpu_model_runner.py:2708] Graph capturing "
            f"finished in {rng.randint(14, 31)} secs, took {rng.uniform(0.4, 0.9):.2f} GiB",
            repeated=track.n_gpus - 1,
        )
        return w.text()
    w.trainer("Using LocalLogger is deprecated. The constructor API will change ")
    w.trainer(
        f"Checkpoint tracker file does not exist: /mnt/rl/verl/checkpoints/qwen35_{run.track}_math_rl/{run.name}/"
        "latest_checkpointed_iteration.txt"
    )
    w.trainer("Training from scratch")
    _validation_dump(w, run, 0)
    metrics = _validation(run, 0)
    w.trainer(pprint.pformat(f"Initial validation metrics: {_dict_repr(metrics)}"))
    w.trainer("step:0 - " + " - ".join(f"{key}:{value}" for key, value in metrics))
    w.trainer("\r" + _tqdm_bar(_series(run), 0))
    return w.text()


def _step_block(run: _Run, step: int) -> str:
    """Everything the log gains for training step ``step`` (the tqdm redraw of the step before first)."""
    series = _series(run)
    clock = _clock(run)
    trainer_pid, worker_pids = _pids(run, len(run.stamps) - 1)
    w = _Writer(trainer_pid, worker_pids)
    rng = random.Random(f"{_SEED}/{run.id}/step/{step}")
    n_gpus = _TRACKS[run.track].n_gpus
    if step > 1:
        w.trainer("\r" + _tqdm_bar(series, step - 1))
    begin = clock.step_end(series, step - 1)
    timing = series.timings[step - 1]
    wake = begin + timedelta(seconds=rng.uniform(0.5, 2.0))
    w.worker(
        f"INFO {_vllm_time(wake)} [executor_base.py:205] It took {rng.uniform(0.6, 1.9):.6f} seconds to wake up "
        "tags ['weights', 'kv_cache'].",
        rank=0,
        repeated=n_gpus - 1,
    )
    if run.algo == "dapo":
        in_batch = series.kept_prompts[step - 1]
        for rounds, kept in enumerate(in_batch, start=1):
            w.trainer(f"num_prompt_in_batch={kept} < prompt_bsz=32")
            w.trainer(f"num_gen_batches={rounds}. Keep generating...")
    asleep = begin + timedelta(seconds=timing["gen"] + rng.uniform(0.2, 1.0))
    w.worker(
        f"INFO {_vllm_time(asleep)} [gpu_worker.py:104] Sleep mode freed {rng.uniform(44.0, 52.0):.2f} GiB memory, "
        f"{rng.uniform(2.5, 6.0):.2f} GiB memory is still in use.",
        rank=0,
        repeated=n_gpus - 1,
    )
    w.worker(
        f"INFO {_vllm_time(asleep)} [executor_base.py:189] It took {rng.uniform(0.9, 2.4):.6f} seconds to fall asleep.",
        rank=0,
        repeated=n_gpus - 1,
    )
    if run.algo != "dapo":
        w.trainer("list(reward_extra_infos_dict.keys())=['score', 'acc', 'pred']")
    if rng.random() < 0.12:
        w.worker(
            "/usr/local/lib/python3.11/site-packages/torch/distributed/fsdp/fully_sharded_data_parallel.py:678: "
            "FutureWarning: FSDP.state_dict_type() and FSDP.set_state_dict_type() are being deprecated. Please use "
            "APIs, get_state_dict() and set_state_dict(), which can support different parallelisms, FSDP1, FSDP2, "
            "DDP.\n  warnings.warn(",
            rank=rng.randrange(n_gpus),
            repeated=n_gpus - 1,
        )
    if step % _TEST_FREQ == 0:
        _validation_dump(w, run, step)
    if step % _SAVE_FREQ == 0 or step == TOTAL_STEPS:
        folder = f"checkpoints/qwen35_{run.track}_math_rl/{run.name}/global_step_{step}"
        w.trainer(f"local_global_step_folder: {folder}")
        saved = clock.step_end(series, step) - timedelta(seconds=rng.uniform(8.0, 20.0))
        for what in ("model", "optim", "extra_state"):
            w.worker(
                f"INFO:{_log_time(saved)}:[Rank 0] Saved {what} to /mnt/rl/verl/{folder}/actor/"
                f"{what}_world_size_{n_gpus}_rank_0.pt",
                rank=0,
            )
            w.worker(
                f"INFO:{_log_time(saved + timedelta(seconds=0.4))}:[Rank 1] Saved {what} to /mnt/rl/verl/{folder}/"
                f"actor/{what}_world_size_{n_gpus}_rank_1.pt",
                rank=1,
                repeated=n_gpus - 2 if n_gpus > 2 else 0,
            )
            saved += timedelta(seconds=rng.uniform(4.0, 11.0))
    w.trainer(f"step:{step} - " + " - ".join(f"{key}:{value}" for key, value in _metrics(run, step)))
    return w.text()


def _ending(run: _Run) -> str:
    """After the last step: the final bar, ``Final validation metrics`` and (some runs) shutdown noise."""
    series = _series(run)
    trainer_pid, worker_pids = _pids(run, len(run.stamps) - 1)
    w = _Writer(trainer_pid, worker_pids)
    w.trainer("\r" + _tqdm_bar(series, TOTAL_STEPS))
    w.trainer(pprint.pformat(f"Final validation metrics: {_dict_repr(_validation(run, TOTAL_STEPS))}"))
    if run.shutdown_noise:
        rng = random.Random(f"{_SEED}/{run.id}/shutdown")
        moment = _clock(run).step_end(series, TOTAL_STEPS) + timedelta(seconds=12)
        w.worker(
            f"[{_log_time(moment)} E {worker_pids[1]} {worker_pids[1] + 431}] logging.cc:497: "
            f"*** SIGSEGV received at time={int(moment.timestamp())} on cpu {rng.randint(3, 60)} ***",
            rank=1,
        )
        w.worker("Fatal Python error: Segmentation fault", rank=1)
        for pid in worker_pids[:2]:
            w.raw(
                _RAYLET + "A worker died or was killed while executing a task by an unexpected system error. To "
                "troubleshoot the problem, check the logs for the dead worker. RayTask ID: "
                f"ffffffffffffffff{rng.getrandbits(96):024x}08000000 Worker ID: {rng.getrandbits(224):056x} "
                f"Node ID: {rng.getrandbits(224):056x} Worker IP address: 10.0.3.17 Worker port: "
                f"{rng.randint(10000, 10400)} Worker PID: {pid} Worker exit type: SYSTEM_ERROR Worker exit detail: "
                "Worker exits unexpectedly by a signal. SystemExit is raised (sys.exit is called). Exit code: 1. "
                "The process receives a SIGTERM."
            )
    return w.text()


def _log_text(run: _Run, *, through: int) -> str:
    """The steps-holding log of ``run`` up to step ``through`` (and its ending if that is the last step)."""
    parts = [_header(run, len(run.stamps) - 1, startup_only=False)]
    parts.extend(_step_block(run, step) for step in range(1, through + 1))
    if through == TOTAL_STEPS:
        parts.append(_ending(run))
    return "".join(parts)


def _nominal_end(run: _Run, file_index: int) -> datetime:
    """When the file was last written, in the lab's clock."""
    if file_index < len(run.stamps) - 1:
        return _stamp(run.stamps[file_index]) + timedelta(seconds=384.0)
    series = _series(run)
    end = _clock(run).step_end(series, run.steps_done)
    return end + timedelta(seconds=41.0 if run.steps_done == TOTAL_STEPS else 95.0)


def _toml_text(follow_ups: int = 0) -> str:
    lines = ["# Demo experiments written by `rlmon demo` (seeded, regenerated on each write).", ""]
    for run in (*_RUNS, *(_follow_up(index) for index in range(1, follow_ups + 1))):
        description = run.description.replace("\\", "\\\\").replace('"', '\\"')
        lines += [f'[experiments."{run.id}"]', f'description = "{description}"', ""]
    return "\n".join(lines)


_FOLLOW_UP_RE = re.compile(r"e(\d+)_reinforce_pp_4b")
_FOLLOW_UP_GAP_S = 600.0
"""A follow-up run is launched ten minutes (lab time) after the previous one finished."""


@functools.cache
def _follow_up(index: int) -> _Run:
    """The ``index``-th run launched after the running experiment finished (index 1 is ``e6_reinforce_pp_4b``).

    The lab keeps the GPUs busy: whenever the running run ends, the same REINFORCE++ recipe is launched again as
    the next experiment of the 4B track, ten minutes (lab time) later. Its data come from its own seed (the run
    id), so each follow-up is a different but equally plausible run; :func:`advance_running` writes it step by
    step, never at once.
    """
    run = _run_by_id(RUNNING_EXPERIMENT)
    match = _FOLLOW_UP_RE.fullmatch(run.name)
    first_code = int(match.group(1)) if match else 5
    for number in range(1, index + 1):
        ended = _clock(run).step_end(_series(run), TOTAL_STEPS) + timedelta(seconds=_FOLLOW_UP_GAP_S)
        run = dataclasses.replace(
            run,
            name=f"e{first_code + number}_reinforce_pp_4b",
            stamps=(ended.strftime("%Y%m%d_%H%M%S"),),
            description=_DESCRIPTIONS["reinforce_pp"] + " Launched again when the run before it finished.",
        )
    return run


def _follow_ups_present(root: Path) -> int:
    """How many follow-up runs :func:`advance_running` has started under ``root``."""
    count = 0
    while (root / "4b" / _follow_up(count + 1).name).is_dir():
        count += 1
    return count


def _run_by_id(experiment: str) -> _Run:
    for run in _RUNS:
        if run.id == experiment:
            return run
    raise KeyError(experiment)


# --------------------------------------------------------------------------------------------------
# Public API


def default_demo_root(cache_dir: Path) -> Path:
    """Where the app keeps its demo log root: ``cache_dir / "demo"``.

    Parameters
    ----------
    cache_dir
        rlmon's cache folder (never a log folder of a real run).
    """
    return cache_dir / "demo"


def write_demo_root(root: Path, *, now: datetime | None = None) -> Path:
    """Write the demo log root from scratch: nine experiments' verl logs and an ``rlmon.toml``.

    Every file this function owns is rewritten (the running experiment goes back to step 21, the runs started
    after it by :func:`advance_running` are removed); nothing else in
    ``root`` is touched. File modification times are set as if the lab's clock ran to ``now``: finished runs
    ended days ago, the running experiment's log was written at ``now``.

    Parameters
    ----------
    root
        The folder to write into (created if missing).
    now
        The moment the running experiment's log was last written; default: the current time.

    Returns
    -------
    Path
        ``root``.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     root = write_demo_root(Path(folder) / "demo")
    ...     sorted(p.relative_to(root).as_posix() for p in root.rglob("*.log"))[0]
    '2b/e1_grpo_2b/train_20260622_091530.log'
    """
    now_ts = (now or datetime.now()).timestamp()
    running = _run_by_id(RUNNING_EXPERIMENT)
    lab_now = _nominal_end(running, len(running.stamps) - 1)
    try:
        root.mkdir(parents=True, exist_ok=True)
        for run in _RUNS:
            folder = root / run.track / run.name
            folder.mkdir(parents=True, exist_ok=True)
            for index, stamp in enumerate(run.stamps):
                path = folder / f"train_{stamp}.log"
                last = index == len(run.stamps) - 1
                text = _log_text(run, through=run.steps_done) if last else _header(run, index, startup_only=True)
                path.write_bytes(text.encode("utf-8"))
                age = (lab_now - _nominal_end(run, index)).total_seconds()
                os.utime(path, (now_ts - age, now_ts - age))
            if run.id in _DUMPED:
                _write_dumps(run, folder, now_ts - (lab_now - _nominal_end(run, len(run.stamps) - 1)).total_seconds())
        # Runs a previous server started after the running one (advance_running) are this function's files too.
        for index in range(_follow_ups_present(root), 0, -1):
            run = _follow_up(index)
            folder = root / run.track / run.name
            (folder / f"train_{run.stamps[-1]}.log").unlink(missing_ok=True)
            if not any(folder.iterdir()):
                folder.rmdir()
        (root / "rlmon.toml").write_text(_toml_text(), encoding="utf-8")
    except OSError as error:
        raise RlmonError(f"cannot write the demo log root: {error.strerror or error}", path=root) from error
    return root


def _last_step(data: bytes) -> int:
    steps = [int(match.group(1)) for match in _STEP_RE.finditer(data)]
    return max(steps) if steps else 0


def advance_running(root: Path) -> bool:
    """Append the running demo experiment's next training step to its log; start the next run after the last.

    The text appended for step ``N`` (tqdm redraw, worker noise, validation every 25 steps, checkpoint lines,
    the ``step:N`` line, and after step 150 the final validation) is exactly what a full write would contain,
    so the result is deterministic. The call that appends the running experiment's last step also launches the
    next run: a new experiment folder of the same track (``4b/e6_reinforce_pp_4b``, then ``e7_…``, ...) whose log
    holds the start-up output, the validation before training and step 1, and whose next steps later calls
    append. So the
    demo always has a running experiment. Safe to call from several threads or processes: the log is locked
    while it is read and appended.

    Parameters
    ----------
    root
        A folder written by :func:`write_demo_root`.

    Returns
    -------
    bool
        True: a step was appended or the next run was started (the demo never runs out of steps).

    Raises
    ------
    RlmonError
        When the running experiment's log is missing or cannot be written.
    """
    started = _follow_ups_present(root)
    run = _follow_up(started) if started else _run_by_id(RUNNING_EXPERIMENT)
    path = root / run.track / run.name / f"train_{run.stamps[-1]}.log"
    try:
        with path.open("r+b") as handle:
            _lock(handle.fileno())
            data = handle.read()
            done = _last_step(data[-600_000:])
            if done < TOTAL_STEPS:
                text = _step_block(run, done + 1)
                if done + 1 == TOTAL_STEPS:
                    text += _ending(run)
                handle.seek(0, os.SEEK_END)
                handle.write(text.encode("utf-8"))
                handle.flush()
            finished = done + 1 >= TOTAL_STEPS
        if finished:  # in the same call: there is no moment without a running experiment
            _start_follow_up(root, started + 1)
    except FileNotFoundError as error:
        raise RlmonError("no demo log to advance (write the demo root first)", path=path) from error
    except OSError as error:
        raise RlmonError(f"cannot advance the demo log: {error.strerror or error}", path=path) from error
    return True


def _start_follow_up(root: Path, index: int) -> None:
    """Write the start of follow-up run ``index`` into its folder: start-up output, the validation before training
    and its first step (a run with no step yet reads as "not started", and the demo must always show one running)."""
    run = _follow_up(index)
    folder = root / run.track / run.name
    folder.mkdir(parents=True, exist_ok=True)
    try:
        with (folder / f"train_{run.stamps[-1]}.log").open("xb") as handle:
            handle.write(_log_text(run, through=1).encode("utf-8"))
    except FileExistsError:  # another thread or process started it first
        return
    (root / "rlmon.toml").write_text(_toml_text(index), encoding="utf-8")


def _lock(fd: int) -> None:
    """An exclusive advisory lock, released when the file is closed."""
    if sys.platform != "win32":
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX)
