"""The x axes a run's curves can be drawn against besides its step: elapsed hours, samples seen, tokens and
GPU-hours, each as a cumulative column of the step frame, and what a run lacks for an axis it cannot have.

Every cumulative axis counts from the run's first logged training step (as the elapsed hours always have): a
resumed log starts at 0 where its log starts, and a validation-only row (a ``step:0`` before training, verl
0.2's closing validation line) adds nothing, so it sits where the training step before it ended.

- ``samples``: prompts × responses of each training step (``data.train_batch_size`` ×
  ``actor_rollout_ref.rollout.n``), summed.
- ``tokens``: the tokens of each training step, summed, from the best source the run has
  (:data:`TOKEN_SOURCES`): ``perf/total_num_tokens`` (``total_num_tokens`` in early-2025 logs), the prompt and
  response tokens of the batch as verl counts them (the sum of every sequence's attention mask, the same sum
  ``global_seqlen/*`` splits across the data-parallel ranks; those per-rank figures alone do not give the total,
  since the log does not state the number of ranks); else the response tokens, ``response_length/mean`` ×
  prompts × responses.
- ``gpu_hours``: elapsed hours × the GPUs of its settings (``trainer.n_gpus_per_node`` × ``trainer.nnodes``).

>>> import polars as pl
>>> steps = pl.DataFrame({"step": [1, 2], "elapsed_h": [0.5, 1.0], "response_length/mean": [100.0, 200.0]})
>>> facts = AxisFacts(samples_per_step=8, gpus=4, token_source="response_length")
>>> axes = axis_columns(steps, facts, logged_keys=["response_length/mean"])
>>> steps.with_columns(axes).select(SAMPLES, TOKENS, GPU_HOURS).rows()
[(8.0, 800.0, 2.0), (16.0, 2400.0, 4.0)]
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import polars as pl

from rlmon.runs.experiment import Experiment, config_get
from rlmon.schema import NON_TRAINING_KEY, STEP

__all__ = [
    "GPU_HOURS",
    "NO_AXIS_FACTS",
    "SAMPLES",
    "TOKENS",
    "TOKEN_SOURCES",
    "X_AXES",
    "AxisFacts",
    "TokenSource",
    "XAxis",
    "axis_columns",
    "axis_facts",
    "missing_for_axis",
]

SAMPLES = "samples"
TOKENS = "tokens"
GPU_HOURS = "gpu_hours"

XAxis = Literal["step", "hours", "samples", "tokens", "gpu_hours"]
X_AXES: tuple[XAxis, ...] = ("step", "hours", "samples", "tokens", "gpu_hours")
"""Every x axis, in the order the controls offer them."""

TokenSource = Literal["total_num_tokens", "response_length"]
TOKEN_SOURCES: dict[TokenSource, tuple[str, ...]] = {
    "total_num_tokens": ("perf/total_num_tokens", "total_num_tokens"),
    "response_length": ("response_length/mean",),
}
"""Where a run's tokens come from, best first, with the logged keys each reads (first one found wins)."""

_NON_TRAINING = re.compile(NON_TRAINING_KEY)


@dataclass(frozen=True)
class AxisFacts:
    """What a run's settings and logged keys give the x axes: None (or no source) where they give nothing."""

    samples_per_step: int | None
    """``data.train_batch_size`` × ``actor_rollout_ref.rollout.n``."""
    gpus: int | None
    """``trainer.n_gpus_per_node`` × ``trainer.nnodes``."""
    token_source: TokenSource | None
    """The best of :data:`TOKEN_SOURCES` the run has (``response_length`` needs ``samples_per_step`` too)."""


NO_AXIS_FACTS = AxisFacts(samples_per_step=None, gpus=None, token_source=None)
"""A run whose settings and keys give no x axis beyond step and hours."""


def axis_facts(experiment: Experiment, columns: Sequence[str]) -> AxisFacts:
    """The settings and keys of ``experiment`` the x axes need; ``columns`` are its step frame's."""
    samples = _product(experiment, "data.train_batch_size", "actor_rollout_ref.rollout.n")
    gpus = _product(experiment, "trainer.n_gpus_per_node", "trainer.nnodes")
    present = set(columns)
    source: TokenSource | None = None
    if any(key in present for key in TOKEN_SOURCES["total_num_tokens"]):
        source = "total_num_tokens"
    elif samples is not None and "response_length/mean" in present:
        source = "response_length"
    return AxisFacts(samples_per_step=samples, gpus=gpus, token_source=source)


def _product(experiment: Experiment, first: str, second: str) -> int | None:
    """The product of two whole, positive settings of the config; None when either is missing or not one."""
    values = [config_get(experiment.config, path) for path in (first, second)]
    if not all(isinstance(value, int) and not isinstance(value, bool) and value > 0 for value in values):
        return None
    return int(values[0]) * int(values[1])


def axis_columns(steps: pl.DataFrame, facts: AxisFacts, *, logged_keys: Sequence[str]) -> list[pl.Expr]:
    """The ``samples``, ``tokens`` and ``gpu_hours`` columns (Float64, cumulative; null where the run lacks what
    the axis needs) of a step frame that has an ``elapsed_h`` column when it has step times.

    A row counts as a training step when any of ``logged_keys`` (the keys verl logged, not derived ones) other
    than validation keys has a value in it.
    """
    training = _training_row(steps, logged_keys)
    if facts.samples_per_step is None:
        samples = pl.lit(None, dtype=pl.Float64)
    else:
        samples = (training.cast(pl.Float64) * float(facts.samples_per_step)).cum_sum()
    tokens = pl.lit(None, dtype=pl.Float64)
    if facts.token_source is not None:
        key = next(name for name in TOKEN_SOURCES[facts.token_source] if name in steps.columns)
        per_step = pl.col(key).cast(pl.Float64)
        if facts.token_source == "response_length" and facts.samples_per_step is not None:
            per_step = per_step * float(facts.samples_per_step)
        # A training step that did not log the key (a cut line) adds nothing rather than ending the line.
        tokens = per_step.fill_null(0.0).fill_nan(0.0).cum_sum()
    gpu_hours = pl.lit(None, dtype=pl.Float64)
    if facts.gpus is not None and "elapsed_h" in steps.columns:
        gpu_hours = pl.col("elapsed_h").cast(pl.Float64) * float(facts.gpus)
    return [
        samples.cast(pl.Float64).alias(SAMPLES),
        tokens.cast(pl.Float64).alias(TOKENS),
        gpu_hours.cast(pl.Float64).alias(GPU_HOURS),
    ]


def _training_row(steps: pl.DataFrame, logged_keys: Sequence[str]) -> pl.Expr:
    """True on rows that come from a training step (not from validation alone)."""
    columns = [name for name in logged_keys if name != STEP and not _NON_TRAINING.match(name) and name in steps.columns]
    # Column expressions, not literals: a literal would be summed once, not once per row.
    if not columns:
        return pl.col(STEP).is_null()
    for name in columns:
        if steps.get_column(name).null_count() == 0:
            return pl.col(STEP).is_not_null()  # a training key in every row: every row counts (cheap)
    return pl.any_horizontal([pl.col(name).is_not_null() for name in columns])


def missing_for_axis(facts: AxisFacts, axis: str, *, has_hours: bool) -> str | None:
    """What a run lacks to be drawn on ``axis``, as a message key of :mod:`rlmon.text.messages`
    (``axis_missing_*``); None when it has all it needs."""
    if axis in ("hours", "gpu_hours") and not has_hours:
        return "axis_missing_step_times"
    if axis == "gpu_hours" and facts.gpus is None:
        return "axis_missing_gpus"
    if axis == "samples" and facts.samples_per_step is None:
        return "axis_missing_batch"
    if axis == "tokens" and facts.token_source is None:
        return "axis_missing_tokens"
    return None
