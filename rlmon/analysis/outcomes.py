"""From what the model wrote: the length of correct and of incorrect responses per step, the share of groups
with no learning signal, and the signal when incorrect responses grow much faster than correct ones.

Read from the training samples of verl's generation dumps (``trainer.rollout_data_dir``, :mod:`rlmon.logs.samples`);
validation samples and console prints (one example per data source) are left out: they are not the batch the
update learned from.

* **Correct** is :func:`rlmon.logs.samples.passed`: score above 0 (verl's rule-based rewards give 1 or 0, DAPO's
  1 or -1; an overlong penalty keeps a correct answer above 0 and an incorrect one below).
* **Length** is the ``response_length`` a dump records (tokens) when every training sample has one, else the
  response's characters (verl's dump holds the decoded text only); :attr:`OutcomeTable.unit` says which.
* **A group** is the responses to one prompt at one step: verl repeats each prompt ``rollout.n`` times in the
  batch and its dump holds no uid, so the prompt text (``input``) stands for it. A group of one response
  (``n = 1``) is left out of the share; a group whose responses all got the same score gives every response
  the same advantage, zero under GRPO's group baseline: no learning signal.
* **The signal** (:func:`detect_length_gap`): over the steps with both correct and incorrect responses
  (at least :data:`MIN_STEPS`), start = mean of the per-step means over the first ``k`` steps, end = over the
  last ``k``, ``k = min(5, steps // 2)``. It fires when incorrect responses' end/start is at least the
  ``length_gap_ratio`` setting times correct responses' end/start, and incorrect responses grew by at least
  ``length_gap_min_growth`` (relative). The Dr.GRPO paper's plot: under GRPO's length normalisation,
  incorrect answers grow longer while correct ones stay short.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from rlmon.analysis.signals import NUMBERS_LANG, Signal
from rlmon.logs.samples import SampleCache, passed, read_training_dumps
from rlmon.settings import Settings
from rlmon.text.lang import LANGUAGES
from rlmon.text.messages import t
from rlmon.text.numbers import format_count, format_percent, format_value

__all__ = ["MIN_STEPS", "OutcomeTable", "detect_length_gap", "dump_signal", "outcome_table"]

MIN_STEPS = 4
"""Fewest steps with both correct and incorrect responses before the signal is judged."""
_EDGE = 5
"""Steps in the start and end windows (at most half the steps)."""

OUTCOME_SCHEMA: dict[str, pl.DataType] = {
    "step": pl.Int64(),
    "correct_length": pl.Float64(),
    "incorrect_length": pl.Float64(),
    "correct": pl.UInt32(),
    "incorrect": pl.UInt32(),
    "groups": pl.UInt32(),
    "equal_groups": pl.UInt32(),
    "equal_share": pl.Float64(),
}


@dataclass(frozen=True)
class OutcomeTable:
    """Per training step: mean length of correct and incorrect responses, their counts, groups (of two
    responses or more) and the share of them whose responses all got the same score."""

    frame: pl.DataFrame
    """Columns of :data:`OUTCOME_SCHEMA`, one row per step, in step order; a mean is null without responses
    of its kind, the share is null without groups."""
    unit: str
    """``tokens`` (the dump's ``response_length``) or ``characters``."""

    @property
    def empty(self) -> bool:
        """Whether there is no step to show."""
        return self.frame.is_empty()


def outcome_table(samples: pl.DataFrame) -> OutcomeTable:
    """The per-step table of the training dump samples of ``samples`` (a sample frame).

    Examples
    --------
    >>> frame = pl.DataFrame({"step": [1, 1, 1, 1], "kind": ["training"] * 4, "origin": ["dump"] * 4,
    ...     "prompt": ["a", "a", "b", "b"], "response": ["xx", "xxxx", "y", "yyy"], "score": [1.0, 0.0, 1.0, 1.0],
    ...     "response_tokens": [None, None, None, None]}, schema_overrides={"response_tokens": pl.Int64})
    >>> table = outcome_table(frame)
    >>> table.unit, table.frame.select("correct_length", "incorrect_length", "equal_share").row(0)
    ('characters', (2.0, 4.0, 0.5))
    """
    training = samples.filter(
        (pl.col("origin") == "dump") & (pl.col("kind").fill_null("training") != "validation")
        & pl.col("step").is_not_null() & pl.col("score").is_not_null()
    )  # fmt: skip
    if training.is_empty():
        return OutcomeTable(pl.DataFrame(schema=OUTCOME_SCHEMA), "tokens")
    tokens = training.get_column("response_tokens").null_count() == 0
    length = (
        pl.col("response_tokens").cast(pl.Float64) if tokens else pl.col("response").str.len_chars().cast(pl.Float64)
    )
    rows = training.select("step", "prompt", "score", length.alias("length"), passed(pl.col("score")).alias("ok"))
    lengths = rows.group_by("step").agg(
        pl.col("length").filter(pl.col("ok")).mean().alias("correct_length"),
        pl.col("length").filter(~pl.col("ok")).mean().alias("incorrect_length"),
        pl.col("ok").sum().cast(pl.UInt32).alias("correct"),
        (~pl.col("ok")).sum().cast(pl.UInt32).alias("incorrect"),
    )
    groups = (
        rows.group_by("step", "prompt")
        .agg(pl.len().alias("size"), (pl.col("score").n_unique() == 1).alias("equal"))
        .filter(pl.col("size") >= 2)
        .group_by("step")
        .agg(pl.len().cast(pl.UInt32).alias("groups"), pl.col("equal").sum().cast(pl.UInt32).alias("equal_groups"))
    )
    frame = (
        lengths.join(groups, on="step", how="left")
        .with_columns(pl.col("groups").fill_null(0), pl.col("equal_groups").fill_null(0))
        .with_columns(
            pl.when(pl.col("groups") > 0)
            .then(pl.col("equal_groups") / pl.col("groups"))
            .otherwise(None)
            .alias("equal_share")
        )
        .select(list(OUTCOME_SCHEMA))
        .cast(OUTCOME_SCHEMA)  # type: ignore[arg-type]
        .sort("step")
    )
    return OutcomeTable(frame, "tokens" if tokens else "characters")


def _signed_percent(change: float) -> str:
    return ("+" if change >= 0 else "") + format_percent(change * 100, NUMBERS_LANG)


def _ends(values: Sequence[float]) -> tuple[float, float, int]:
    edge = min(_EDGE, len(values) // 2)
    return sum(values[:edge]) / edge, sum(values[-edge:]) / edge, edge


def detect_length_gap(table: OutcomeTable, *, settings: Settings, experiment: str, label: str = "") -> Signal | None:
    """The ``incorrect_length_growth`` signal (info) of one experiment, or None (the rule: module docstring)."""
    both = table.frame.drop_nulls(["correct_length", "incorrect_length"])
    if both.height < MIN_STEPS:
        return None
    steps = both.get_column("step").to_list()
    correct_start, correct_end, edge = _ends(both.get_column("correct_length").to_list())
    incorrect_start, incorrect_end, _ = _ends(both.get_column("incorrect_length").to_list())
    if correct_start <= 0 or incorrect_start <= 0:
        return None
    correct_ratio = correct_end / correct_start
    incorrect_ratio = incorrect_end / incorrect_start
    if incorrect_ratio - 1 < settings.length_gap_min_growth:
        return None
    if incorrect_ratio < settings.length_gap_ratio * correct_ratio:
        return None
    fields = {
        "incorrect_start": format_count(incorrect_start, NUMBERS_LANG),
        "incorrect_end": format_count(incorrect_end, NUMBERS_LANG),
        "correct_start": format_count(correct_start, NUMBERS_LANG),
        "correct_end": format_count(correct_end, NUMBERS_LANG),
        "incorrect_growth": _signed_percent(incorrect_ratio - 1),
        "correct_growth": _signed_percent(correct_ratio - 1),
        "edge": str(edge),
    }
    rule_fields = {
        "ratio": format_value(settings.length_gap_ratio, NUMBERS_LANG),
        "growth": format_percent(settings.length_gap_min_growth * 100, NUMBERS_LANG),
    }
    return Signal(
        kind="incorrect_length_growth",
        severity="info",
        experiment=experiment,
        metric=None,
        step=int(steps[0]),
        step_end=int(steps[-1]),
        values={
            "correct_start": correct_start,
            "correct_end": correct_end,
            "incorrect_start": incorrect_start,
            "incorrect_end": incorrect_end,
            "ratio": incorrect_ratio / correct_ratio,
        },
        message={lang: t(f"insight_incorrect_length_growth_{table.unit}", lang, **fields) for lang in LANGUAGES},
        label=label,
        rule={lang: t("rule_incorrect_length_growth", lang, **rule_fields) for lang in LANGUAGES},
    )


def dump_signal(
    config: dict[str, Any] | None,
    folder: Path,
    *,
    experiment: str,
    label: str,
    allowed: Sequence[Path],
    settings: Settings,
    cache: SampleCache,
) -> Signal | None:
    """:func:`detect_length_gap` on the training dump folder ``config`` names (``trainer.rollout_data_dir``, read
    inside the ``allowed`` folders, :func:`rlmon.logs.samples.read_training_dumps`) of the experiment in
    ``folder``; None without one."""
    found = read_training_dumps(config, folder, cache=cache, allowed=allowed)
    return detect_length_gap(outcome_table(found.frame), settings=settings, experiment=experiment, label=label)
