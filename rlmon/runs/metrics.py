"""Derived metrics: numbers the team reads that verl does not log directly.

Each registry entry carries its name (snake_case), unit, description, the logged keys it needs (with
alternatives, first match wins) and how to build one polars expression from the keys found.
:func:`add_derived_metrics` adds every entry it can to a step frame; an entry whose keys are missing is
skipped and reported, never raised.

Validation scores are derived per data source: ``val_score/<data source>`` (see :func:`validation_keys`).

>>> import polars as pl
>>> steps = pl.DataFrame({"step": [1, 2], "critic/score/mean": [0.0, 0.5], "critic/score/min": [-1.0, -1.0]})
>>> add_derived_metrics(steps)[0]["pass_rate"].to_list()
[50.0, 75.0]
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import polars as pl

from rlmon.schema import STEP

__all__ = [
    "DERIVED_METRICS",
    "METRIC_ALIASES",
    "PASS_RATE_MODES",
    "V01_PHASES",
    "VALIDATION_DESCRIPTION",
    "VALIDATION_PREFIX",
    "VALIDATION_UNIT",
    "DerivedMetric",
    "add_derived_metrics",
    "alias_of",
    "derived_columns",
    "derived_metric",
    "detect_pass_rate_mode",
    "pass_rate_mode_of",
    "resolve_key",
    "step_seconds_expr",
    "validation_keys",
]

PASS_RATE_MODES = ("pm1", "01", "raw")
VALIDATION_PREFIX = "val_score/"
"""Derived validation columns are ``val_score/<data source>``."""


METRIC_ALIASES: dict[str, tuple[str, ...]] = {
    "actor/entropy": ("actor/entropy", "actor/entropy_loss"),
    "actor/lr": ("actor/lr", "actor/lr(1e-4)"),
    "critic/lr": ("critic/lr", "critic/lr(1e-4)"),
    "actor/reward_kl_penalty": ("actor/reward_kl_penalty", "critic/kl"),
    "actor/reward_kl_penalty_coeff": ("actor/reward_kl_penalty_coeff", "critic/kl_coeff"),
    "perf/throughput": ("perf/throughput", "Tokens/Sec/GPU"),
    "perf/mfu/actor": ("perf/mfu/actor", "mfu/actor"),
    "perf/mfu/critic": ("perf/mfu/critic", "mfu/critic"),
    "perf/time_per_step": ("perf/time_per_step", "time_per_step"),
    "perf/total_num_tokens": ("perf/total_num_tokens", "total_num_tokens"),
    "timing_s/step": ("timing_s/step", "timing/step"),
    "timing_s/gen": ("timing_s/gen", "timing/gen"),
    "timing_s/testing": ("timing_s/testing", "timing/testing"),
}
"""Metrics that verl logged under other names in other versions: the current name -> every name it had,
newest first (format reference §1 and §3). Charts, headline numbers and signals read a metric through
:func:`resolve_key`, so the chart of a metric shows the same series the written summary talks about.

* ``actor/entropy_loss`` became ``actor/entropy`` (PR #1943, 2025-06-10);
* v0.1 wrote learning rates scaled: ``actor/lr(1e-4)``, ``critic/lr(1e-4)``;
* the KL-in-reward penalty was ``critic/kl`` / ``critic/kl_coeff`` before PR #644 (2025-04-01);
* ``perf/*`` replaced ``Tokens/Sec/GPU``, ``mfu/*``, ``time_per_step``, ``total_num_tokens`` (PR #599);
* v0.1 timed phases as ``timing/<phase>``, later ``timing_s/<phase>`` (PR #120).
"""


def resolve_key(name: str, columns: Sequence[str]) -> str | None:
    """The logged key that holds metric ``name`` in a frame with ``columns``: ``name`` itself when logged,
    else its first older name (:data:`METRIC_ALIASES`) that is; None when none is.

    Examples
    --------
    >>> resolve_key("actor/entropy", ["step", "actor/entropy_loss"])
    'actor/entropy_loss'
    >>> resolve_key("actor/grad_norm", ["step", "actor/grad_norm"])
    'actor/grad_norm'
    >>> resolve_key("actor/entropy", ["step"]) is None
    True
    """
    present = set(columns)
    for key in METRIC_ALIASES.get(name, (name,)):
        if key in present:
            return key
    return None


def alias_of(key: str) -> str:
    """The current name of a logged key (``actor/entropy_loss`` -> ``actor/entropy``); the key itself when it
    has no other name.

    >>> alias_of("actor/entropy_loss")
    'actor/entropy'
    """
    for name, keys in METRIC_ALIASES.items():
        if key in keys:
            return name
    return key


@dataclass(frozen=True)
class DerivedMetric:
    """One derived metric."""

    name: str
    """snake_case column name added to the step frame."""
    unit: str
    """``%``, ``min``, ``h``, ``1e-4``, ``score``..."""
    description: str
    """What it is and how it is computed, for tooltips and the README."""
    requires: tuple[tuple[str, ...], ...]
    """Alternatives, in order of preference; each is a set of logged keys that must all be present."""
    build: Callable[[tuple[str, ...], Sequence[str]], pl.Expr]
    """Given the keys of the first satisfied alternative and all columns, the expression computing it."""

    def keys_in(self, columns: Sequence[str]) -> tuple[str, ...] | None:
        """The first alternative whose keys are all in ``columns``; None when none is."""
        present = set(columns)
        for alternative in self.requires:
            if all(key in present for key in alternative):
                return alternative
        return None


def _pct(keys: tuple[str, ...], columns: Sequence[str]) -> pl.Expr:
    return pl.col(keys[0]) * 100.0


def _mismatch(keys: tuple[str, ...], columns: Sequence[str]) -> pl.Expr:
    if keys[0] == "training/rollout_actor_probs_pearson_corr":
        return (1.0 - pl.col(keys[0])) * 1e4
    return pl.col(keys[0]) * 1e4


V01_PHASES = (
    "timing/gen",
    "timing/ref",
    "timing/values",
    "timing/adv",
    "timing/update_critic",
    "timing/update_actor",
    "timing/testing",
)
"""v0.1 logs no whole-step time; its disjoint phases add up to (nearly) the step."""


def step_seconds_expr(columns: Sequence[str]) -> pl.Expr | None:
    """Seconds per step: ``timing_s/step``, else ``timing/step``, else the sum of v0.1's ``timing/*`` phases.

    The phase sum is null on rows where every phase is null (validation-only lines). None when the
    columns hold no step time at all.
    """
    for key in ("timing_s/step", "timing/step"):
        if key in columns:
            return pl.col(key)
    phases = [key for key in V01_PHASES if key in columns]
    if "timing/gen" not in phases:
        return None
    logged = pl.any_horizontal([pl.col(key).is_not_null() for key in phases])
    return pl.when(logged).then(pl.sum_horizontal([pl.col(key) for key in phases])).otherwise(None)


def _step_minutes(keys: tuple[str, ...], columns: Sequence[str]) -> pl.Expr:
    seconds = step_seconds_expr(columns)
    return (pl.col(keys[0]) if seconds is None else seconds) / 60.0


def _elapsed_hours(keys: tuple[str, ...], columns: Sequence[str]) -> pl.Expr:
    seconds = step_seconds_expr(columns)
    seconds = pl.col(keys[0]) if seconds is None else seconds
    # Cumulative over the rows in step order; a validation-only row adds nothing.
    return seconds.fill_null(0.0).fill_nan(0.0).cum_sum() / 3600.0


def _pass_rate_placeholder(keys: tuple[str, ...], columns: Sequence[str]) -> pl.Expr:
    return _pass_rate_expr(keys[0], "01")


def _pass_rate_expr(key: str, mode: str) -> pl.Expr:
    if mode == "pm1":
        return (pl.col(key) + 1.0) / 2.0 * 100.0
    if mode == "01":
        return pl.col(key) * 100.0
    return pl.col(key)


PASS_RATE = "pass_rate"

DERIVED_METRICS: tuple[DerivedMetric, ...] = (
    DerivedMetric(
        PASS_RATE,
        "%",
        "Share of sampled responses judged correct in the training batch. From critic/score/mean (else "
        "critic/rewards/mean): scores in {-1, 1} give (mean+1)/2, scores in {0, 1} give the mean; the scale "
        "is detected from the logged minimum (below 0 -> ±1) and can be set with pass_rate in rlmon.toml "
        "('raw' keeps the logged mean as it is).",
        (("critic/score/mean",), ("critic/rewards/mean",)),
        _pass_rate_placeholder,
    ),
    DerivedMetric(
        "rollout_mismatch",
        "1e-4",
        "Rollout↔training probability mismatch: (1 − Pearson correlation of rollout and actor token "
        "probabilities) × 10⁴; logs without the correlation use the mean |p_rollout − p_actor| × 10⁴.",
        (("training/rollout_actor_probs_pearson_corr",), ("training/rollout_probs_diff_mean",)),
        _mismatch,
    ),
    DerivedMetric(
        "pg_clipfrac_pct",
        "%",
        "Share of tokens whose policy ratio was clipped by PPO's upper/lower bound (actor/pg_clipfrac × 100).",
        (("actor/pg_clipfrac",),),
        _pct,
    ),
    DerivedMetric(
        "pg_clipfrac_lower_pct",
        "%",
        "Share of tokens clipped by dual-clip PPO's lower bound on negative advantages "
        "(actor/pg_clipfrac_lower × 100).",
        (("actor/pg_clipfrac_lower",),),
        _pct,
    ),
    DerivedMetric(
        "response_clip_pct",
        "%",
        "Share of responses cut off at the maximum response length (response_length/clip_ratio × 100).",
        (("response_length/clip_ratio",),),
        _pct,
    ),
    DerivedMetric(
        "step_time_min",
        "min",
        "Wall-clock time of the whole training step, in minutes (timing_s/step; v0.1 logs: the sum of the "
        "timing/* phases).",
        (("timing_s/step",), ("timing/step",), ("timing/gen",)),
        _step_minutes,
    ),
    DerivedMetric(
        "elapsed_h",
        "h",
        "Training time elapsed at the end of the step: cumulative sum of step times, in hours "
        "(time between steps, e.g. start-up or a resume gap, is not counted).",
        (("timing_s/step",), ("timing/step",), ("timing/gen",)),
        _elapsed_hours,
    ),
)
"""The registry, in display order. Validation scores (``val_score/<ds>``) are added per data source."""

VALIDATION_UNIT = "score"
VALIDATION_DESCRIPTION = (
    "Headline validation score of a data source: val-core/<ds>/acc/mean@N, else val-core/<ds>/reward/mean@N "
    "(older logs: val/test_score/<ds>); as logged (accuracy 0–1 for acc)."
)


def derived_metric(name: str) -> DerivedMetric:
    """The registry entry with this name (``KeyError`` when there is none)."""
    for entry in DERIVED_METRICS:
        if entry.name == name:
            return entry
    raise KeyError(name)


def detect_pass_rate_mode(steps: pl.DataFrame) -> str:
    """``pm1`` for ±1 scores (pass rate = (mean+1)/2), else ``01`` (pass rate = mean).

    In order: the logged minimum (``critic/score/min``, else ``critic/rewards/min``) going below 0; without a
    minimum, a mean below 0; without either, the data sources: verl scores ``math_dapo``, ``math``,
    ``math_dapo_reasoning`` and ``aime*`` sources with ±1 (format reference §3.4), seen here through the
    validation keys. A frame with none of these is ``01``.

    Examples
    --------
    >>> detect_pass_rate_mode(pl.DataFrame({"critic/score/mean": [0.5], "critic/score/min": [-1.0]}))
    'pm1'
    >>> detect_pass_rate_mode(pl.DataFrame({"val-core/aime24/acc/mean@1": [0.4]}))
    'pm1'
    """
    for key in ("critic/score/min", "critic/rewards/min"):
        lowest = _lowest(steps, key)
        if lowest is not None:
            return "pm1" if lowest < 0 else "01"
    for key in ("critic/score/mean", "critic/rewards/mean"):
        lowest = _lowest(steps, key)
        if lowest is not None and lowest < 0:
            return "pm1"
    sources = validation_keys(steps.columns)
    if any(source in _PM1_SOURCES or source.startswith("aime") for source in sources):
        return "pm1"
    return "01"


def _lowest(steps: pl.DataFrame, key: str) -> float | None:
    if key not in steps.columns:
        return None
    lowest = steps.get_column(key).drop_nulls().drop_nans().min()
    return float(lowest) if isinstance(lowest, int | float) else None


_PM1_SOURCES = frozenset({"math_dapo", "math", "math_dapo_reasoning"})
"""Data sources verl scores with math_dapo's ±1 reward (``verl/utils/reward_score/__init__.py``)."""

_VAL_CORE = re.compile(r"^val-core/(?P<ds>.+)/(?P<var>[^/]+)/mean@(?P<n>\d+)$")
_VAL_OLD = re.compile(r"^val/test_score/(?P<ds>.+)$")
_VAL_V01_INITIAL = re.compile(r"^test_score/(?P<ds>.+)$")


def validation_keys(columns: Sequence[str]) -> dict[str, str]:
    """The headline validation key per data source.

    Preference per data source: ``val-core/<ds>/acc/mean@N``, then ``val-core/<ds>/reward/mean@N``, then any
    other ``val-core/<ds>/<var>/mean@N``, then ``val/test_score/<ds>``, then v0.1's ``test_score/<ds>``;
    among several N the largest wins.

    Examples
    --------
    >>> validation_keys(["val-core/aime24/acc/mean@1", "val-core/aime24/reward/mean@1", "val/test_score/gsm8k"])
    {'aime24': 'val-core/aime24/acc/mean@1', 'gsm8k': 'val/test_score/gsm8k'}
    """
    best: dict[str, tuple[tuple[int, int], str]] = {}

    def offer(ds: str, rank: tuple[int, int], key: str) -> None:
        if ds not in best or rank > best[ds][0]:
            best[ds] = (rank, key)

    for key in columns:
        match = _VAL_CORE.match(key)
        if match:
            var_rank = {"acc": 4, "reward": 3}.get(match.group("var"), 2)
            offer(match.group("ds"), (var_rank, int(match.group("n"))), key)
            continue
        match = _VAL_OLD.match(key)
        if match:
            offer(match.group("ds"), (1, 0), key)
            continue
        match = _VAL_V01_INITIAL.match(key)
        if match:
            offer(match.group("ds"), (0, 0), key)
    return {ds: key for ds, (_, key) in sorted(best.items())}


def add_derived_metrics(steps: pl.DataFrame, *, pass_rate_mode: str | None = None) -> tuple[pl.DataFrame, list[str]]:
    """Add every derived metric the logged keys allow.

    Parameters
    ----------
    steps
        A step frame (schema.py), one row per step.
    pass_rate_mode
        ``pm1`` | ``01`` | ``raw``, e.g. from ``rlmon.toml``; None detects it (:func:`detect_pass_rate_mode`).
        An unknown value is treated as None.

    Returns
    -------
    (frame, skipped)
        The frame sorted by step with the derived columns added (:data:`DERIVED_METRICS` names plus
        ``val_score/<ds>``), and the names of the entries skipped because their keys are missing.
    """
    if STEP in steps.columns:
        # a log's frame comes sorted: checking one column is a fraction of sorting a long run's every column
        # (45 ms for 100,000 steps x 164 keys), which its every load and refresh did
        if steps.get_column(STEP).is_sorted():
            steps = steps.with_columns(pl.col(STEP).set_sorted())
        else:
            steps = steps.sort(STEP)
    mode = pass_rate_mode_of(steps, pass_rate_mode)
    expressions = derived_columns(steps.columns, pass_rate_mode=mode)
    skipped = [entry.name for entry in DERIVED_METRICS if entry.name not in expressions]
    if not expressions:
        return steps, skipped
    return steps.with_columns(expressions.values()), skipped


def pass_rate_mode_of(steps: pl.DataFrame, pass_rate_mode: str | None) -> str:
    """The pass-rate mode :func:`add_derived_metrics` uses for ``steps``: ``pass_rate_mode`` when it is one of
    :data:`PASS_RATE_MODES`, else the one the scores show (:func:`detect_pass_rate_mode`; ``01`` when the frame
    has no pass rate to derive)."""
    if pass_rate_mode is not None and pass_rate_mode in PASS_RATE_MODES:
        return pass_rate_mode
    if derived_metric(PASS_RATE).keys_in(steps.columns) is None:
        return "01"
    return detect_pass_rate_mode(steps)


def derived_columns(columns: Sequence[str], *, pass_rate_mode: str) -> dict[str, pl.Expr]:
    """The derived metrics a step frame of these ``columns`` allows, each name with the expression
    :func:`add_derived_metrics` computes it by (a frame sorted by step, holding at least the columns the
    expression reads: ``expression.meta.root_names()``), in the order it adds them.

    ``pass_rate_mode`` is the mode itself (``pm1`` | ``01`` | ``raw``; anything else is ``01``): a frame of a few
    columns cannot tell it, so a reader of some columns takes it from the whole frame
    (:func:`detect_pass_rate_mode`) or from ``rlmon.toml``.

    >>> list(derived_columns(["step", "critic/score/mean", "val-core/gsm8k/acc/mean@1"], pass_rate_mode="01"))
    ['pass_rate', 'val_score/gsm8k']
    """
    expressions: dict[str, pl.Expr] = {}
    for entry in DERIVED_METRICS:
        keys = entry.keys_in(columns)
        if keys is None:
            continue
        expression = _pass_rate_expr(keys[0], pass_rate_mode) if entry.name == PASS_RATE else entry.build(keys, columns)
        expressions[entry.name] = expression.cast(pl.Float64).alias(entry.name)
    for ds, key in validation_keys(columns).items():
        expressions[VALIDATION_PREFIX + ds] = pl.col(key).cast(pl.Float64).alias(VALIDATION_PREFIX + ds)
    return expressions
