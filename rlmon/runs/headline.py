"""The headline numbers of one experiment (people read them through :mod:`rlmon.text.numbers`).

Pure: :func:`headline_numbers` takes an :class:`~rlmon.runs.experiment.Experiment` (already read) and returns a
:class:`Headline`; nothing here touches files or the clock.

Definitions (the team's old page used the same ones):

* **start** of a metric = the mean of its first 5 training steps (:data:`START_STEPS`);
* **end** of a metric = the mean of its last 10 training steps (:data:`END_STEPS`);
* **range** of a metric = its lowest–highest value over the run (min–max), the only range rlmon writes (the
  experiment paragraph, the summary and the spike signals' "otherwise" all use it); the 5th/95th percentiles
  (:attr:`Headline.grad_norm_p05`/``p95``, linear interpolation) only rank runs ("lowest grad_norm") without
  letting one spike decide;
* only training steps count (rows holding validation alone are left out), and only finite values
  (NaN/inf are reported by the signals, :mod:`rlmon.analysis.signals`, not averaged);
* pass rate in % comes from the derived-metrics registry (:mod:`rlmon.runs.metrics`);
* a metric verl renamed across versions (``actor/entropy`` was ``actor/entropy_loss``) is read under the name
  the run logged (:func:`rlmon.runs.metrics.resolve_key`), the same series its chart draws;
* validation scores are the headline key per data source (:func:`rlmon.runs.metrics.validation_keys`), as logged
  (accuracy 0–1 for ``acc``); the best is the highest value, at its first step. The validation run before
  training (``val_before_train``, logged at the step before the first training step) is the baseline and is
  left out of best and last.

A metric the run did not log gives ``None``; nothing raises on a missing metric or an empty run.

>>> start_mean([10.0, 20.0, 30.0, 40.0, 50.0, 60.0]), percentile([1.0, 2.0, 3.0, 4.0], 0.5)
(30.0, 2.5)
"""

from __future__ import annotations

import functools
import math
import threading
import weakref
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import polars as pl

from rlmon.runs.experiment import Experiment, config_get, training_rows
from rlmon.runs.metrics import METRIC_ALIASES, add_derived_metrics, resolve_key, validation_keys
from rlmon.schema import STEP

__all__ = [
    "END_STEPS",
    "ENTROPY_KEY",
    "ENTROPY_KEYS",
    "GRAD_NORM_KEY",
    "PASS_RATE",
    "RESPONSE_LENGTH_KEY",
    "START_STEPS",
    "Headline",
    "ValidationPoint",
    "end_mean",
    "finite_series",
    "headline_numbers",
    "metric_series",
    "percentile",
    "remember_headline",
    "response_cap",
    "start_mean",
    "training_frame",
    "training_frame_of",
]

START_STEPS = 5
""""Start" of a metric: the mean of its first 5 training steps."""
END_STEPS = 10
""""End" of a metric: the mean of its last 10 training steps."""

PASS_RATE = "pass_rate"
RESPONSE_LENGTH_KEY = "response_length/mean"
GRAD_NORM_KEY = "actor/grad_norm"
ENTROPY_KEY = "actor/entropy"
"""The policy entropy, by its current name; older logs call it ``actor/entropy_loss``."""
ENTROPY_KEYS = METRIC_ALIASES[ENTROPY_KEY]
"""Every name the policy entropy had (:data:`rlmon.runs.metrics.METRIC_ALIASES`), newest first."""


# ---------------------------------------------------------------------------------------------- series


def training_frame(experiment: Experiment) -> pl.DataFrame:
    """The experiment's training rows (no validation-only rows) with the derived metrics added, by step.

    Columns: the step frame's (schema.py) plus :data:`rlmon.runs.metrics.DERIVED_METRICS` names and
    ``val_score/<data source>``.
    """
    return training_frame_of(experiment.read_steps(), pass_rate_mode=experiment.pass_rate_mode)


def training_frame_of(steps: pl.DataFrame, *, pass_rate_mode: str | None) -> pl.DataFrame:
    """:func:`training_frame` of an experiment whose step frame (schema.py) is ``steps`` and whose ``rlmon.toml``
    pass-rate mode is ``pass_rate_mode``."""
    rows = training_rows(steps)
    if rows.height == 0:
        return rows
    frame, _skipped = add_derived_metrics(rows, pass_rate_mode=pass_rate_mode)
    return frame


def finite_series(frame: pl.DataFrame, key: str) -> tuple[list[int], list[float]]:
    """Steps and values of one column, leaving out nulls and non-finite values; empty when absent."""
    if key not in frame.columns or STEP not in frame.columns or frame.height == 0:
        return [], []
    # NumPy on the columns' buffers, not polars operations: this runs for many columns of every run a server reads,
    # and each polars operation on a Series is a query run on polars' thread pool; while the other readers parse
    # logs on that pool, the few thousand values of a column waited 1-4 ms per operation for it (0.3 ms alone),
    # and the headline numbers and signals of a cold read of 400 runs were mostly that wait.
    steps = frame.get_column(STEP).cast(pl.Int64)
    values = frame.get_column(key).cast(pl.Float64).to_numpy()  # a null is NaN here: left out with the others
    keep = np.isfinite(values)
    if steps.null_count():
        keep &= steps.is_not_null().to_numpy()
        steps = steps.fill_null(0)
    return steps.to_numpy()[keep].tolist(), values[keep].tolist()


def metric_series(frame: pl.DataFrame, name: str) -> tuple[list[int], list[float]]:
    """:func:`finite_series` of metric ``name`` under whichever name this run logged it
    (:func:`rlmon.runs.metrics.resolve_key`): the series a chart of ``name`` draws. Empty when not logged."""
    key = resolve_key(name, frame.columns)
    return finite_series(frame, key) if key is not None else ([], [])


def start_mean(values: Sequence[float]) -> float | None:
    """Mean of the first :data:`START_STEPS` values; None when there are none."""
    head = list(values[:START_STEPS])
    return sum(head) / len(head) if head else None


def end_mean(values: Sequence[float]) -> float | None:
    """Mean of the last :data:`END_STEPS` values; None when there are none."""
    tail = list(values[-END_STEPS:])
    return sum(tail) / len(tail) if tail else None


def percentile(values: Sequence[float], fraction: float) -> float | None:
    """The ``fraction`` quantile (0–1) with linear interpolation (numpy's default); None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    position = (len(ordered) - 1) * min(max(fraction, 0.0), 1.0)
    lower = math.floor(position)
    upper = math.ceil(position)
    weight = position - lower
    return ordered[lower] * (1.0 - weight) + ordered[upper] * weight


def response_cap(experiment: Experiment) -> int | None:
    """The response-length cap (``data.max_response_length``, else the rollout's ``response_length``)."""
    for path in ("data.max_response_length", "actor_rollout_ref.rollout.response_length"):
        value = config_get(experiment.config, path)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


# -------------------------------------------------------------------------------------------- headline


@dataclass(frozen=True)
class ValidationPoint:
    """One validation score: data source, the logged key, the step and the value (as logged)."""

    data_source: str
    key: str
    step: int
    value: float


@dataclass(frozen=True)
class Headline:
    """The numbers that describe one experiment at a glance (see the module docstring for definitions)."""

    experiment: str
    """Experiment id."""
    label: str
    steps: int
    """Training steps with data."""
    pass_rate_start: float | None
    """Mean pass rate (%) of the first 5 training steps."""
    pass_rate_end: float | None
    """Mean pass rate (%) of the last 10 training steps."""
    response_length_start: float | None
    """Mean response length (tokens) of the first 5 steps."""
    response_length_end: float | None
    """Mean response length (tokens) of the last 10 steps."""
    response_length_max: float | None
    """Largest ``response_length/max`` logged."""
    response_cap: int | None
    """``data.max_response_length`` from the config."""
    entropy_key: str | None
    """``actor/entropy`` or ``actor/entropy_loss``; None when neither is logged."""
    entropy_start: float | None
    entropy_end: float | None
    grad_norm_min: float | None
    grad_norm_max: float | None
    grad_norm_p05: float | None
    """5th percentile of ``actor/grad_norm`` (for ranking runs; the range shown is min–max)."""
    grad_norm_p95: float | None
    """95th percentile of ``actor/grad_norm`` (for ranking runs; the range shown is min–max)."""
    elapsed_h: float | None
    """Training hours (sum of the step times)."""
    validation_source: str | None
    """The headline validation data source: the one validated most often (then by name)."""
    validation_key: str | None
    """Its logged key, e.g. ``val-core/aime24/acc/mean@1``."""
    best_validation: tuple[ValidationPoint, ...]
    """Per data source, the highest score and the first step it was reached."""
    last_validation: tuple[ValidationPoint, ...]
    """Per data source, the last score logged."""
    pass_rate_series: tuple[float, ...]
    """Pass rate (%) per training step, for a sparkline."""

    def best(self, data_source: str | None = None) -> ValidationPoint | None:
        """The best validation of a data source (default: the headline one)."""
        return _pick(self.best_validation, data_source or self.validation_source)

    def last(self, data_source: str | None = None) -> ValidationPoint | None:
        """The last validation of a data source (default: the headline one)."""
        return _pick(self.last_validation, data_source or self.validation_source)

    def to_json_dict(self) -> dict[str, Any]:
        """JSON-ready dict of every field (non-finite numbers become None)."""
        data = asdict(self)
        data["pass_rate_series"] = [_json_number(value) for value in self.pass_rate_series]
        for key, value in list(data.items()):
            if isinstance(value, float):
                data[key] = _json_number(value)
        return data


def _json_number(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _pick(points: tuple[ValidationPoint, ...], data_source: str | None) -> ValidationPoint | None:
    for point in points:
        if point.data_source == data_source:
            return point
    return None


def _validation(frame: pl.DataFrame) -> tuple[str | None, str | None, list[ValidationPoint], list[ValidationPoint]]:
    keys = validation_keys(frame.columns)
    best: list[ValidationPoint] = []
    last: list[ValidationPoint] = []
    counts: dict[str, int] = {}
    training = training_rows(frame).get_column(STEP)
    first_training = int(training.min()) if training.len() else None  # type: ignore[arg-type]
    for source, key in keys.items():
        steps, values = finite_series(frame, key)
        if first_training is not None:
            # the validation before training (val_before_train) is the baseline, not a result of the run
            kept = [(step, value) for step, value in zip(steps, values, strict=True) if step >= first_training]
            steps, values = [step for step, _ in kept], [value for _, value in kept]
        if not values:
            continue
        counts[source] = len(values)
        top = max(values)
        top_index = values.index(top)
        best.append(ValidationPoint(source, key, steps[top_index], top))
        last.append(ValidationPoint(source, key, steps[-1], values[-1]))
    if not counts:
        return None, None, best, last
    source = sorted(counts, key=lambda name: (-counts[name], name))[0]
    return source, keys[source], best, last


_KNOWN: dict[int, tuple[weakref.ref[Experiment], Headline]] = {}
_KNOWN_LOCK = threading.RLock()  # re-entrant: a weakref callback may run while it is held


def _forget(key: int, ref: weakref.ref[Experiment]) -> None:
    with _KNOWN_LOCK:
        known = _KNOWN.get(key)
        if known is not None and known[0] is ref:
            del _KNOWN[key]


def headline_numbers(experiment: Experiment) -> Headline:
    """The headline numbers of an experiment, computed once per experiment object (the summary, each
    experiment's paragraph and the experiments table all ask; an experiment is not changed once read).

    Parameters
    ----------
    experiment
        A loaded experiment (:func:`rlmon.runs.loading.load_experiment`).

    Returns
    -------
    Headline
        Each number is None when the run did not log what it needs.
    """
    key = id(experiment)
    with _KNOWN_LOCK:
        known = _KNOWN.get(key)
    if known is not None and known[0]() is experiment:
        return known[1]
    numbers = _headline_numbers(experiment)
    remember_headline(experiment, numbers)
    return numbers


def remember_headline(experiment: Experiment, numbers: Headline) -> None:
    """Record ``numbers`` as the headline numbers of the ``experiment`` object: :func:`headline_numbers` then
    returns them without reading its frame. For numbers computed from the same frame, before it was let go or by
    an earlier process (a server restarting from its cache folder)."""
    key = id(experiment)
    with _KNOWN_LOCK:
        _KNOWN[key] = (weakref.ref(experiment, functools.partial(_forget, key)), numbers)


def _headline_numbers(experiment: Experiment) -> Headline:
    steps = experiment.read_steps()
    frame = training_frame_of(steps, pass_rate_mode=experiment.pass_rate_mode)
    _, pass_rate = finite_series(frame, PASS_RATE)
    _, length = metric_series(frame, RESPONSE_LENGTH_KEY)
    _, length_max = metric_series(frame, "response_length/max")
    entropy_key = resolve_key(ENTROPY_KEY, frame.columns)
    _, entropy = metric_series(frame, ENTROPY_KEY)
    _, grad_norm = metric_series(frame, GRAD_NORM_KEY)
    source, key, best, last = _validation(steps)
    return Headline(
        experiment=experiment.id,
        label=experiment.label,
        steps=frame.height,
        pass_rate_start=start_mean(pass_rate),
        pass_rate_end=end_mean(pass_rate),
        response_length_start=start_mean(length),
        response_length_end=end_mean(length),
        response_length_max=max(length_max) if length_max else None,
        response_cap=response_cap(experiment),
        entropy_key=entropy_key if entropy else None,
        entropy_start=start_mean(entropy),
        entropy_end=end_mean(entropy),
        grad_norm_min=min(grad_norm) if grad_norm else None,
        grad_norm_max=max(grad_norm) if grad_norm else None,
        grad_norm_p05=percentile(grad_norm, 0.05),
        grad_norm_p95=percentile(grad_norm, 0.95),
        elapsed_h=experiment.elapsed_h,
        validation_source=source,
        validation_key=key,
        best_validation=tuple(best),
        last_validation=tuple(last),
        pass_rate_series=tuple(pass_rate),
    )
