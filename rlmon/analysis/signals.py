"""Run-health signals: what the detectors find in one experiment's training steps.

Signals (:class:`Signal`) are found by detectors that read one experiment's training steps
(:func:`detect_signals`); thresholds come from :class:`~rlmon.settings.Settings` (the settings table).
Every detector is quiet on runs shorter than the ``min_steps`` setting's training steps, except the ones for
non-finite values and for the run's status (crashed, stalled).

Detectors (signal ``kind``, severity):

* ``spike`` (warning): a point of ``*grad_norm`` or any ``*loss*`` far above the run's own baseline — more
  than ``spike_factor`` x the rolling median of the ``spike_window`` steps before it, and above the run's 95th
  percentile x ``spike_margin``. Series that cross zero (losses) measure "far" in units of the run's
  5th–95th percentile spread instead. More than ``max_spikes`` in one metric become one ``spikes`` signal
  (info: a heavy-tailed metric, not transient spikes). Their "otherwise low–high" is the lowest and highest
  value of the other steps (min–max, like every range the summary writes).
* ``entropy_rising`` (warning): entropy's last-window mean above its first-window mean by more than
  ``drift_threshold`` (relative), with a positive slope and the second half above the first: not converging.
* ``entropy_collapse`` (warning): the last-window mean below ``entropy_collapse_ratio`` x the first-window mean.
* ``validation_drop`` (warning): the last validation of a data source below the previous one and more than
  ``validation_drop`` (relative) below the best before it.
* ``length_cap`` (warning): ``response_length/clip_ratio`` averages more than ``clip_ratio_warn`` (verl's 0.1)
  over the last window; or, without a clip ratio, ``response_length/max`` sits at the cap while the
  mean length is above ``length_cap_fraction`` x the cap.
* ``length_growth`` (info): the mean response length grew by ``length_growth_ratio`` x or more and still rises.
* ``mismatch_high`` (warning) / ``mismatch_rising`` (info): the rollout↔training mismatch (derived metric,
  1e-4 units) averages at least ``mismatch_high`` at the end / doubled since the start.
* ``non_finite`` (critical): NaN or inf in a grad norm, a loss, the score/reward or the entropy.
* ``pass_rate_collapse`` (critical): the last-window pass rate lost ``pass_rate_collapse`` (relative) of its
  best rolling mean, and at least 10 points.
* ``kl_blowup`` (warning): the KL (``actor/kl_loss``; the KL-in-reward penalty ``actor/reward_kl_penalty``,
  ``critic/kl`` in older logs) averages ``kl_blowup_factor`` x its earlier median at the end, and at least
  ``kl_floor``.
* verl's own health rules (:mod:`rlmon.analysis.health`, each signal's ``rule`` naming the file of verl's
  documentation it comes from): ``probs_diff_high`` (warning): ``training/rollout_probs_diff_mean`` above 0.01
  over the last window (verl's FAQ), stating whether ``grad_norm`` rose with it (the FAQ's symptom);
  ``rollout_corr`` (warning): a ``rollout_corr/*`` key outside its healthy range over the last window (verl's
  rollout-correction doc); the ``length_cap`` clip-ratio rule above is verl's best-practice 0.1.
* ``step_time_regression`` (warning): the median step time of the last 5 steps at ``step_time_factor`` x the
  median of the ``spike_window`` steps before them.
* ``collapse_signature`` (warning): over the last window against the one before it, the mean grad norm grew
  ``collapse_grad_factor`` x and the mean score fell by ``collapse_score_drop`` of the run's score range.
* ``incorrect_length_growth`` (info): found from the training generation dumps, not the steps
  (:func:`rlmon.analysis.outcomes.detect_length_gap`).
* ``crashed`` (critical), ``stalled`` (warning): from the experiment status; ``crashed`` carries the first
  exception line, the last training step before it (``Experiment.failure_step``) and the innermost traceback
  frame (``Experiment.failure_frames``); a run with no step whose log has been quiet for long is ``stalled`` too.

Every metric is read through :func:`rlmon.runs.metrics.resolve_key` (a renamed metric under the name the run
logged), so a signal talks about exactly the series the metric's chart draws.

Windows: the "first" and "last" windows of the trend detectors hold ``drift_window`` steps (at most half the
run); the numbers *reported* use the headline definitions (start = first 5 steps, end = last 10).

Each signal carries its text in every language (:data:`rlmon.text.LANGUAGES`), from the ``insight_*`` templates
of :data:`rlmon.text.messages.MESSAGES`; the written summary (:mod:`rlmon.analysis.summary`) groups them.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, TypedDict, get_args

import polars as pl

from rlmon.analysis.health import CLIP_RATIO_RULE, PROBS_DIFF_RULE, ROLLOUT_CORR_RULES, HealthRule
from rlmon.runs.experiment import Experiment, step_time_column
from rlmon.runs.headline import (
    ENTROPY_KEY,
    PASS_RATE,
    RESPONSE_LENGTH_KEY,
    end_mean,
    finite_series,
    metric_series,
    percentile,
    response_cap,
    start_mean,
    training_frame_of,
)
from rlmon.runs.metrics import alias_of, resolve_key, validation_keys
from rlmon.schema import STEP
from rlmon.settings import Settings
from rlmon.text.lang import LANGUAGES
from rlmon.text.messages import t
from rlmon.text.numbers import (
    format_band,
    format_count,
    format_duration,
    format_percent,
    format_progress,
    format_score,
    format_value,
)

__all__ = [
    "KINDS",
    "NUMBERS_LANG",
    "RECENT_STEPS",
    "SEVERITIES",
    "Kind",
    "Severity",
    "Signal",
    "SignalJson",
    "detect_all",
    "detect_signals",
    "detect_status_signals",
    "detect_step_signals",
    "short_frame",
    "short_metric",
    "step_time_limit",
    "step_time_limits",
]

Severity = Literal["info", "warning", "critical"]
SEVERITIES: tuple[Severity, ...] = ("info", "warning", "critical")
"""Severities, mildest first."""

Kind = Literal[
    "spike",
    "spikes",
    "entropy_rising",
    "entropy_collapse",
    "validation_drop",
    "length_cap",
    "length_growth",
    "mismatch_high",
    "mismatch_rising",
    "non_finite",
    "pass_rate_collapse",
    "kl_blowup",
    "probs_diff_high",
    "rollout_corr",
    "step_time_regression",
    "collapse_signature",
    "incorrect_length_growth",
    "crashed",
    "stalled",
]

NUMBERS_LANG = "en"
"""The language the figures of signals and of the summary are written in, whatever the text's language: a
signal's texts are built once for every language from the same figures, so ``5.1k`` reads the same in both.
Durations are words and follow the text's language (``4h23m`` / ``4小时23分``)."""

KINDS: dict[str, dict[str, str]] = {
    kind: {lang: t("kind_" + kind, lang) for lang in LANGUAGES} for kind in get_args(Kind)
}
"""Signal kind -> display name per language (``kind_<kind>`` in :data:`rlmon.text.messages.MESSAGES`), in the
order the detectors' kinds are listed above."""


class SignalJson(TypedDict):
    """:meth:`Signal.to_json_dict`: the signal's fields, a non-finite value as None."""

    kind: str
    severity: str
    experiment: str
    metric: str | None
    step: int | None
    step_end: int | None
    values: dict[str, float | None]
    message: dict[str, str]
    label: str
    rule: dict[str, str]


@dataclass(frozen=True)
class Signal:
    """One run-health finding about one experiment."""

    kind: Kind
    """One of :data:`KINDS`."""
    severity: Severity
    experiment: str
    """Experiment id."""
    metric: str | None
    """The logged or derived key it is about (``actor/grad_norm``, ``val-core/aime24/acc/mean@1``), if any."""
    step: int | None
    """The step it happened at (the first step of a range)."""
    step_end: int | None
    """Last step of the range (equal to ``step`` for a single point); None when not about steps."""
    values: dict[str, float] = field(hash=False)
    """The numbers involved, e.g. ``{"value": 0.96, "baseline": 0.2, "typical_low": 0.1, "typical_high": 0.3}``."""
    message: dict[str, str] = field(hash=False)
    """Plain text per language (``en``, ``zh``); log-derived parts are not escaped."""
    label: str = ""
    """The experiment's label (``E2 · DAPO``)."""
    rule: dict[str, str] = field(default_factory=dict, hash=False)
    """The rule that found it per language, with its source when it is one of verl's
    (:mod:`rlmon.analysis.health`); empty for rlmon's older detectors."""

    def text(self, lang: str = "en") -> str:
        """The message in ``lang`` (English when that language is missing)."""
        return self.message.get(lang) or self.message["en"]

    def to_json_dict(self) -> SignalJson:
        """JSON-ready dict (non-finite values become None)."""
        return SignalJson(
            kind=self.kind,
            severity=self.severity,
            experiment=self.experiment,
            metric=self.metric,
            step=self.step,
            step_end=self.step_end,
            values={key: (value if math.isfinite(value) else None) for key, value in self.values.items()},
            message=dict(self.message),
            label=self.label,
            rule=dict(self.rule),
        )


def _message(key: str, **fields: str | dict[str, str]) -> dict[str, str]:
    """Fill template ``key`` in every language; a field may itself differ per language."""
    out: dict[str, str] = {}
    for lang in LANGUAGES:
        filled = {name: (value[lang] if isinstance(value, dict) else value) for name, value in fields.items()}
        out[lang] = t("insight_" + key, lang, **filled)
    return out


def _progress(experiment: Experiment) -> dict[str, str]:
    """How far the experiment has come, in every language (:func:`rlmon.text.numbers.format_progress`)."""
    return {lang: format_progress(experiment.steps_done, experiment.total_steps, lang) for lang in LANGUAGES}


def short_frame(frame: str) -> str:
    """``/root/x/verl/utils/reward_score/__init__.py:37 in f`` -> ``utils/reward_score/__init__.py:37 in f``."""
    path, colon, rest = frame.rpartition(":")
    if not colon:
        return frame
    parts = [part for part in path.replace("\\", "/").split("/") if part]
    return "/".join(parts[-3:]) + ":" + rest


def short_metric(key: str) -> str:
    """``actor/grad_norm`` -> ``grad_norm``; other keys as logged."""
    return key.removeprefix("actor/")


def _median(values: Sequence[float]) -> float:
    result = percentile(values, 0.5)
    return 0.0 if result is None else result


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def _slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Least-squares slope; 0 when it cannot be computed."""
    n = len(xs)
    if n < 2:
        return 0.0
    mean_x = sum(xs) / n
    mean_y = sum(ys) / n
    var = sum((x - mean_x) ** 2 for x in xs)
    if var == 0:
        return 0.0
    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / var


def _window(count: int, thresholds: Settings) -> int:
    return max(1, min(thresholds.drift_window, count // 2))


def _spike_keys(columns: Sequence[str]) -> list[str]:
    keys = []
    for name in columns:
        if name == STEP or name.startswith(("val", "test_score")):
            continue
        short = name.rsplit("/", 1)[-1]
        if name.endswith("grad_norm") or ("loss" in short and "entropy" not in short):
            keys.append(name)
    return keys


class _Context:
    """What the detectors of one experiment share."""

    def __init__(self, experiment: Experiment, thresholds: Settings) -> None:
        self.experiment = experiment
        self.thresholds = thresholds
        self.signals: list[Signal] = []
        self._series: dict[str, tuple[list[int], list[float]]] = {}

    @functools.cached_property
    def steps(self) -> pl.DataFrame:
        """The whole step frame (validation rows too); read once, and only by a detector that needs it."""
        return self.experiment.read_steps()

    @functools.cached_property
    def frame(self) -> pl.DataFrame:
        """The training rows with the derived metrics (:func:`rlmon.runs.headline.training_frame`)."""
        return training_frame_of(self.steps, pass_rate_mode=self.experiment.pass_rate_mode)

    @property
    def count(self) -> int:
        return self.frame.height

    def add(
        self,
        kind: Kind,
        severity: Severity,
        *,
        metric: str | None,
        step: int | None,
        step_end: int | None,
        values: Mapping[str, float],
        message: dict[str, str],
        rule: dict[str, str] | None = None,
    ) -> None:
        self.signals.append(
            Signal(
                kind=kind,
                severity=severity,
                experiment=self.experiment.id,
                metric=metric,
                step=step,
                step_end=step_end,
                values=dict(values),
                message=message,
                label=self.experiment.label,
                rule=rule or {},
            )
        )

    def series(self, name: str) -> tuple[list[int], list[float]]:
        """Metric ``name`` under the name this run logged it (the series its chart draws); read once per name."""
        known = self._series.get(name)
        if known is None:
            known = self._series[name] = metric_series(self.frame, name)
        return known


def _find_spikes(values: Sequence[float], thresholds: Settings) -> list[tuple[int, float]]:
    """Indices of spikes and their baseline (rolling median of the window before)."""
    window = thresholds.spike_window
    need = min(5, window)
    p05 = percentile(values, 0.05) or 0.0
    p95 = percentile(values, 0.95) or 0.0
    positive = all(value > 0 for value in values)
    spread = p95 - p05
    if not positive and spread <= 0:
        return []
    # Being above the run's own p95 by the margin does not depend on the baseline: the rolling median (a sort
    # per step) is taken only at the few steps that are.
    if positive:
        ceiling = p95 * thresholds.spike_margin
    else:
        ceiling = p95 + (thresholds.spike_margin - 1.0) * max(abs(p95), spread)
    found: list[tuple[int, float]] = []
    for index in range(need, len(values)):
        value = values[index]
        if not value > ceiling:
            continue
        baseline = _median(values[max(0, index - window) : index])
        if positive:
            far = value > thresholds.spike_factor * baseline
        else:
            far = value - baseline > (thresholds.spike_factor - 1.0) * max(abs(baseline), spread)
        if far:
            found.append((index, baseline))
    return found


def _detect_spikes(context: _Context) -> None:
    thresholds = context.thresholds
    for key in _spike_keys(context.frame.columns):
        steps, values = context.series(key)
        if len(values) < thresholds.min_steps:
            continue
        spikes = _find_spikes(values, thresholds)
        if not spikes:
            continue
        spike_indices = {index for index, _ in spikes}
        rest = [value for index, value in enumerate(values) if index not in spike_indices]
        # "otherwise low–high": the lowest and highest of the other steps, the one range definition (min–max)
        # every range rlmon writes uses.
        low = min(rest) if rest else None
        high = max(rest) if rest else None
        low_text, _, high_text = format_band(low, high, NUMBERS_LANG).partition("–")
        metric = short_metric(key)
        if len(spikes) > thresholds.max_spikes:
            peak = max(values[index] for index in spike_indices)
            first = steps[spikes[0][0]]
            last = steps[spikes[-1][0]]
            context.add(
                "spikes",
                "info",
                metric=key,
                step=first,
                step_end=last,
                values={
                    "count": float(len(spikes)),
                    "max": peak,
                    "typical_low": low or 0.0,
                    "typical_high": high or 0.0,
                },
                message=_message(
                    "spikes",
                    metric=metric,
                    count=str(len(spikes)),
                    first=str(first),
                    last=str(last),
                    max=format_value(peak, NUMBERS_LANG),
                    low=low_text,
                    high=high_text,
                ),
            )
            continue
        for index, baseline in spikes:
            value = values[index]
            ratio = value / baseline if baseline > 0 else math.inf
            context.add(
                "spike",
                "warning",
                metric=key,
                step=steps[index],
                step_end=steps[index],
                values={
                    "value": value,
                    "baseline": baseline,
                    "ratio": ratio,
                    "typical_low": low or 0.0,
                    "typical_high": high or 0.0,
                },
                message=_message(
                    "spike",
                    metric=metric,
                    step=str(steps[index]),
                    value=format_value(value, NUMBERS_LANG),
                    ratio=format_value(ratio, NUMBERS_LANG) if math.isfinite(ratio) else "∞",
                    window=str(thresholds.spike_window),
                    low=low_text,
                    high=high_text,
                ),
            )


def _trend_windows(values: Sequence[float], thresholds: Settings) -> tuple[float, float, int]:
    window = _window(len(values), thresholds)
    return _mean(values[:window]), _mean(values[-window:]), window


def _detect_entropy(context: _Context) -> None:
    thresholds = context.thresholds
    key = resolve_key(ENTROPY_KEY, context.frame.columns)
    if key is None:
        return
    steps, values = context.series(key)
    if len(values) < thresholds.min_steps:
        return
    first, last, _ = _trend_windows(values, thresholds)
    start = start_mean(values)
    end = end_mean(values)
    if start is None or end is None:
        return
    reported = {"start": start, "end": end, "first_window": first, "last_window": last}
    half = len(values) // 2
    if first > 0 and last > first * (1.0 + thresholds.drift_threshold):
        rising = _slope([float(step) for step in steps], values) > 0 and _mean(values[half:]) > _mean(values[:half])
        if rising:
            context.add(
                "entropy_rising",
                "warning",
                metric=key,
                step=steps[0],
                step_end=steps[-1],
                values=reported,
                message=_message(
                    "entropy_rising", start=format_score(start, NUMBERS_LANG), end=format_score(end, NUMBERS_LANG)
                ),
            )
    elif first > 0 and last < first * thresholds.entropy_collapse_ratio:
        context.add(
            "entropy_collapse",
            "warning",
            metric=key,
            step=steps[0],
            step_end=steps[-1],
            values=reported,
            message=_message(
                "entropy_collapse", start=format_score(start, NUMBERS_LANG), end=format_score(end, NUMBERS_LANG)
            ),
        )


def _detect_validation(context: _Context) -> None:
    thresholds = context.thresholds
    for source, key in validation_keys(context.steps.columns).items():
        steps, values = finite_series(context.steps, key)
        if len(values) < 3:
            continue
        last = values[-1]
        previous = values[-2]
        earlier = values[:-1]
        best = max(earlier)
        best_step = steps[earlier.index(best)]
        if best <= 0 or not last < previous:
            continue
        if last < best * (1.0 - thresholds.validation_drop):
            context.add(
                "validation_drop",
                "warning",
                metric=key,
                step=steps[-1],
                step_end=steps[-1],
                values={"value": last, "previous": previous, "best": best, "best_step": float(best_step)},
                message=_message(
                    "validation_drop",
                    source=source,
                    value=format_score(last, NUMBERS_LANG),
                    step=str(steps[-1]),
                    previous=format_score(previous, NUMBERS_LANG),
                    best=format_score(best, NUMBERS_LANG),
                    best_step=str(best_step),
                ),
            )


def _detect_length(context: _Context) -> None:
    thresholds = context.thresholds
    if context.count < thresholds.min_steps:
        return
    cap = response_cap(context.experiment)
    cap_text = format_count(cap, NUMBERS_LANG) if cap is not None else t("insight_unknown_cap", NUMBERS_LANG)
    steps, clip = context.series("response_length/clip_ratio")
    if any(value < 0.0 or value > 1.0 for value in clip):
        # not a fraction of responses (a key of that name holding something else): no percent is made of it,
        # and the cap is judged from the longest responses as for a run that logs no clip ratio
        steps, clip = [], []
    fired = False
    if len(clip) >= thresholds.min_steps:
        first, last, window = _trend_windows(clip, thresholds)
        # verl's performance best practices: above 0.1 "you are truncating too much" (the setting's default)
        if last > thresholds.clip_ratio_warn:
            fired = True
            context.add(
                "length_cap",
                "warning",
                metric="response_length/clip_ratio",
                step=steps[-window],
                step_end=steps[-1],
                values={"clip_ratio_end": last, "clip_ratio_start": first, **({"cap": float(cap)} if cap else {})},
                message=_message(
                    "length_cap",
                    cap=cap_text,
                    clip=format_percent(last * 100, NUMBERS_LANG),
                    window=str(window),
                    clip_start=format_percent(first * 100, NUMBERS_LANG),
                ),
                rule=_rule_text(CLIP_RATIO_RULE, thresholds.clip_ratio_warn, "clip_ratio_warn"),
            )
    length_steps, length = context.series(RESPONSE_LENGTH_KEY)
    if not fired and cap is not None and not clip and len(length) >= thresholds.min_steps:
        max_steps, longest = context.series("response_length/max")
        window = _window(len(longest), thresholds)
        at_cap = sum(1 for value in longest[-window:] if value >= cap)
        mean_end = _mean(length[-window:])
        if longest and at_cap * 2 >= window and mean_end >= thresholds.length_cap_fraction * cap:
            context.add(
                "length_cap",
                "warning",
                metric="response_length/max",
                step=max_steps[-window],
                step_end=max_steps[-1],
                values={"mean_end": mean_end, "cap": float(cap), "at_cap_steps": float(at_cap)},
                message=_message("length_cap_max", cap=cap_text, mean=format_count(mean_end, NUMBERS_LANG)),
            )
    if len(length) >= thresholds.min_steps:
        start = start_mean(length)
        end = end_mean(length)
        half = len(length) // 2
        tail_slope = _slope([float(step) for step in length_steps[half:]], length[half:])
        if start and end and start > 0 and end >= start * thresholds.length_growth_ratio and tail_slope > 0:
            context.add(
                "length_growth",
                "info",
                metric=RESPONSE_LENGTH_KEY,
                step=length_steps[0],
                step_end=length_steps[-1],
                values={"start": start, "end": end, "ratio": end / start},
                message=_message(
                    "length_growth",
                    start=format_count(start, NUMBERS_LANG),
                    end=format_count(end, NUMBERS_LANG),
                    ratio=format_value(end / start, NUMBERS_LANG),
                ),
            )


def _detect_mismatch(context: _Context) -> None:
    thresholds = context.thresholds
    steps, values = context.series("rollout_mismatch")
    if len(values) < thresholds.min_steps:
        return
    first, last, window = _trend_windows(values, thresholds)
    metric = "rollout_mismatch"
    # Derived from training/rollout_probs_diff_mean (no correlation logged), a high mismatch is verl's FAQ rule on
    # that key (_detect_probs_diff), said once with its source.
    from_probs_diff = resolve_key("training/rollout_actor_probs_pearson_corr", context.frame.columns) is None
    if last >= thresholds.mismatch_high and not from_probs_diff:
        context.add(
            "mismatch_high",
            "warning",
            metric=metric,
            step=steps[-window],
            step_end=steps[-1],
            values={"end": last, "start": first},
            message=_message("mismatch_high", end=format_value(last, NUMBERS_LANG), window=str(window)),
        )
    elif last < thresholds.mismatch_high and first > 0 and last >= 2.0 * first and last >= thresholds.mismatch_high / 4:
        context.add(
            "mismatch_rising",
            "info",
            metric=metric,
            step=steps[0],
            step_end=steps[-1],
            values={"end": last, "start": first},
            message=_message(
                "mismatch_rising", start=format_value(first, NUMBERS_LANG), end=format_value(last, NUMBERS_LANG)
            ),
        )


def _detect_non_finite(context: _Context) -> None:
    frame = context.frame
    watched = [
        name
        for name in frame.columns
        if name != STEP
        and (
            name in _spike_keys([name])
            or alias_of(name) == ENTROPY_KEY
            or name in ("critic/score/mean", "critic/rewards/mean")
        )
    ]
    schema = frame.schema
    floats = [key for key in watched if schema[key].is_float()]
    if not floats:
        return
    # one pass over the watched columns: how many non-finite values each holds
    counts = frame.select((pl.col(key).is_not_null() & ~pl.col(key).is_finite()).sum() for key in floats).row(0)
    for key, count in zip(floats, counts, strict=True):
        if not count:
            continue
        bad = frame.filter(pl.col(key).is_not_null() & ~pl.col(key).is_finite())
        bad_steps = [int(step) for step in bad.get_column(STEP).to_list()]
        context.add(
            "non_finite",
            "critical",
            metric=key,
            step=bad_steps[0],
            step_end=bad_steps[-1],
            values={"count": float(len(bad_steps))},
            message=_message("non_finite", metric=short_metric(key), count=str(len(bad_steps)), step=str(bad_steps[0])),
        )


def _detect_pass_rate(context: _Context) -> None:
    thresholds = context.thresholds
    steps, values = context.series(PASS_RATE)
    if len(values) < thresholds.min_steps:
        return
    window = _window(len(values), thresholds)
    rolling = [_mean(values[index : index + window]) for index in range(0, len(values) - window + 1)]
    peak = max(rolling)
    peak_index = rolling.index(peak)
    last = rolling[-1]
    if peak > 0 and last < peak * (1.0 - thresholds.pass_rate_collapse) and peak - last >= 10.0:
        peak_step = steps[peak_index + window // 2]
        context.add(
            "pass_rate_collapse",
            "critical",
            metric=PASS_RATE,
            step=steps[-window],
            step_end=steps[-1],
            values={"end": last, "peak": peak, "peak_step": float(peak_step)},
            message=_message(
                "pass_rate_collapse",
                end=format_percent(last, NUMBERS_LANG),
                window=str(window),
                peak=format_percent(peak, NUMBERS_LANG),
                peak_step=str(peak_step),
            ),
        )


def _detect_kl(context: _Context) -> None:
    thresholds = context.thresholds
    for name in ("actor/kl_loss", "actor/reward_kl_penalty"):
        key = resolve_key(name, context.frame.columns)
        if key is None:
            continue
        steps, values = context.series(key)
        if len(values) < thresholds.min_steps:
            continue
        window = _window(len(values), thresholds)
        earlier = values[:-window]
        if len(earlier) < window:
            continue
        base = _median(earlier)
        last = _mean(values[-window:])
        if last >= thresholds.kl_floor and last > thresholds.kl_blowup_factor * max(base, 0.0):
            ratio = last / base if base > 0 else math.inf
            context.add(
                "kl_blowup",
                "warning",
                metric=key,
                step=steps[-window],
                step_end=steps[-1],
                values={"end": last, "base": base, "ratio": ratio},
                message=_message(
                    "kl_blowup",
                    metric=short_metric(key),
                    end=format_value(last, NUMBERS_LANG),
                    window=str(window),
                    ratio=format_value(ratio, NUMBERS_LANG) if math.isfinite(ratio) else "∞",
                    base=format_value(base, NUMBERS_LANG),
                ),
            )


def _rule_text(rule: HealthRule, threshold: float, setting: str) -> dict[str, str]:
    """verl's rule with its source when the threshold is verl's (the setting's default), else rlmon's own rule
    naming the setting."""
    bound = rule.high if rule.high is not None else rule.low
    if bound is not None and math.isclose(threshold, bound):
        return {lang: rule.text(lang) for lang in LANGUAGES}
    return _own_rule(setting)


def _own_rule(*settings: str, message: str = "rule_own") -> dict[str, str]:
    """rlmon's own rule naming its settings, in every language (``message``: its words in the catalog)."""
    return {lang: t(message, lang, settings=", ".join(settings)) for lang in LANGUAGES}


def _window_means(values: Sequence[float], window: int) -> tuple[float, float]:
    """Mean of the ``window`` values before the last ``window``, and of the last ``window``."""
    return _mean(values[-2 * window : -window]), _mean(values[-window:])


def _broken_rule(context: _Context, rule: HealthRule) -> tuple[str, list[int], float, int] | None:
    """The logged key of one of verl's rules, its steps, its last-window mean and the window, when that mean
    breaks the rule over enough steps; else None."""
    key = resolve_key(rule.key, context.frame.columns)
    if key is None:
        return None
    steps, values = context.series(key)
    if len(values) < context.thresholds.min_steps:
        return None
    _, last, window = _trend_windows(values, context.thresholds)
    return (key, steps, last, window) if rule.breaks(last) else None


def _detect_probs_diff(context: _Context) -> None:
    """verl FAQ: ``training/rollout_probs_diff_mean`` above 0.01 is a precision problem of the inference engine
    (below 0.005 normal); its symptom, ``actor/grad_norm`` rising, is checked and stated either way."""
    thresholds = context.thresholds
    rule = PROBS_DIFF_RULE
    broken = _broken_rule(context, rule)
    if broken is None:
        return
    key, steps, last, window = broken
    reported = {"end": last, "threshold": rule.high or 0.0}
    grad_key = resolve_key("actor/grad_norm", context.frame.columns)
    grad = context.series(grad_key)[1] if grad_key is not None else []
    if len(grad) >= thresholds.min_steps:
        grad_first, grad_last, _ = _trend_windows(grad, thresholds)
        rising = grad_first > 0 and grad_last > grad_first * (1.0 + thresholds.drift_threshold)
        reported |= {"grad_start": grad_first, "grad_end": grad_last, "grad_rising": float(rising)}
        symptom = _message(
            "probs_diff_grad_rising" if rising else "probs_diff_grad_steady",
            start=format_score(grad_first, NUMBERS_LANG),
            end=format_score(grad_last, NUMBERS_LANG),
        )
    else:
        symptom = _message("probs_diff_no_grad")
    context.add(
        "probs_diff_high",
        "warning",
        metric=key,
        step=steps[-window],
        step_end=steps[-1],
        values=reported,
        message=_message("probs_diff_high", end=format_score(last, NUMBERS_LANG), window=str(window), symptom=symptom),
        rule={lang: rule.text(lang) for lang in LANGUAGES},
    )


def _detect_rollout_corr(context: _Context) -> None:
    """verl's rollout-correction doc (``check_rollout_correction_health``): one signal per ``rollout_corr/*`` key
    whose last-window mean is outside its healthy range."""
    for rule in ROLLOUT_CORR_RULES:
        broken = _broken_rule(context, rule)
        if broken is None:
            continue
        key, steps, last, window = broken
        context.add(
            "rollout_corr",
            "warning",
            metric=key,
            step=steps[-window],
            step_end=steps[-1],
            values={"end": last},
            message=_message(
                "rollout_corr",
                metric=key,
                end=format_score(last, NUMBERS_LANG),
                window=str(window),
                bounds=rule.bounds_text(),
            ),
            rule={lang: rule.text(lang) for lang in LANGUAGES},
        )


RECENT_STEPS = 5
"""Step-time regression: the recent median is over this many steps, so one validation or checkpoint step (slower
by design) is not a regression."""


def step_time_limits(values: Sequence[float], *, factor: float, window: int) -> list[float | None]:
    """The step-time rule's limit as of each step: ``factor`` x the median of the ``window`` step times before the
    last :data:`RECENT_STEPS` steps up to it; None at a step with fewer than :data:`RECENT_STEPS` step times
    before those. The slower-steps signal fires when the median of the last :data:`RECENT_STEPS` step times
    reaches the last step's limit; the step-time chart draws the limits as a dashed line.

    Examples
    --------
    >>> step_time_limits([10.0] * 9 + [20.0], factor=3.0, window=20)[-2:]
    [None, 30.0]
    """
    return [step_time_limit(values, factor=factor, window=window, end=end) for end in range(1, len(values) + 1)]


def step_time_limit(values: Sequence[float], *, factor: float, window: int, end: int | None = None) -> float | None:
    """:func:`step_time_limits` at one step: that of the step time ``values[end - 1]`` (the last one by default),
    worked out from the ``window`` step times before it alone (the signal asks for the last step's limit only: a
    sort of the window per step, over a run of 100,000 steps, was half of what finding its signals took).

    Examples
    --------
    >>> step_time_limit([10.0] * 9 + [20.0], factor=3.0, window=20)
    30.0
    """
    end = len(values) if end is None else end
    base = values[max(0, end - RECENT_STEPS - window) : max(0, end - RECENT_STEPS)]
    return factor * _median(base) if len(base) >= RECENT_STEPS else None


def _detect_step_time(context: _Context) -> None:
    """The median step time of the last :data:`RECENT_STEPS` steps at ``step_time_factor`` x or more the median
    of the ``spike_window`` steps before them (:func:`step_time_limits`)."""
    thresholds = context.thresholds
    key = step_time_column(context.frame.columns)
    if key is None:
        return
    steps, values = context.series(key)
    if len(values) < thresholds.min_steps:
        return
    limit = step_time_limit(values, factor=thresholds.step_time_factor, window=thresholds.spike_window)
    if limit is None:
        return
    base_values = values[-RECENT_STEPS - thresholds.spike_window : -RECENT_STEPS]
    recent = _median(values[-RECENT_STEPS:])
    base = _median(base_values)
    if base <= 0 or recent < limit:
        return
    context.add(
        "step_time_regression",
        "warning",
        metric=key,
        step=steps[-RECENT_STEPS],
        step_end=steps[-1],
        values={"recent": recent, "base": base, "ratio": recent / base},
        message=_message(
            "step_time_regression",
            recent=format_value(recent, NUMBERS_LANG),
            recent_steps=str(RECENT_STEPS),
            ratio=format_value(recent / base, NUMBERS_LANG),
            base=format_value(base, NUMBERS_LANG),
            base_steps=str(len(base_values)),
        ),
        rule=_own_rule("step_time_factor", "spike_window", message="rule_own_step_time"),
    )


def _detect_collapse_signature(context: _Context) -> None:
    """grad_norm rising while the score falls: over the last window against the window before it, the mean grad
    norm grew ``collapse_grad_factor`` x or more and the mean score fell by ``collapse_score_drop`` of the run's
    score range (min–max) or more."""
    thresholds = context.thresholds
    grad_key = resolve_key("actor/grad_norm", context.frame.columns)
    score_key = next(
        (key for key in ("critic/score/mean", "critic/rewards/mean") if key in context.frame.columns), None
    )
    if grad_key is None or score_key is None:
        return
    grad_steps, grad = context.series(grad_key)
    _, score = context.series(score_key)
    if min(len(grad), len(score)) < max(thresholds.min_steps, 4):
        return
    window = _window(min(len(grad), len(score)), thresholds)
    grad_before, grad_after = _window_means(grad, window)
    score_before, score_after = _window_means(score, window)
    score_range = max(score) - min(score)
    rising = grad_before > 0 and grad_after >= thresholds.collapse_grad_factor * grad_before
    falling = score_range > 0 and score_before - score_after >= thresholds.collapse_score_drop * score_range
    if not (rising and falling):
        return
    context.add(
        "collapse_signature",
        "warning",
        metric=grad_key,
        step=grad_steps[-window],
        step_end=grad_steps[-1],
        values={
            "grad_before": grad_before,
            "grad_after": grad_after,
            "score_before": score_before,
            "score_after": score_after,
        },
        message=_message(
            "collapse_signature",
            grad_before=format_score(grad_before, NUMBERS_LANG),
            grad_after=format_score(grad_after, NUMBERS_LANG),
            score_before=format_score(score_before, NUMBERS_LANG),
            score_after=format_score(score_after, NUMBERS_LANG),
            window=str(window),
        ),
        rule=_own_rule("collapse_grad_factor", "collapse_score_drop", "drift_window", message="rule_own_collapse"),
    )


def _idle_text(idle_s: float) -> dict[str, str]:
    hours = idle_s / 3600.0
    if hours >= 48:
        days = f"{hours / 24:.0f}"
        return {lang: t("insight_days", lang, days=days) for lang in LANGUAGES}
    # a duration is words (4h23m / 4小时23分), not a figure: each language writes its own
    return {lang: format_duration(hours, lang) for lang in LANGUAGES}


def _detect_status(context: _Context, settings: Settings) -> None:
    experiment = context.experiment
    last_step = experiment.steps_done or None
    if experiment.status == "crashed":
        failure = experiment.failure or "?"
        # the last training step logged before the failure; a resumed run that died before its first new
        # step has none, but it had done steps_done
        died_after = experiment.failure_step if experiment.failure_step is not None else last_step
        frame: str | dict[str, str] = ""
        if experiment.failure_frames:
            frame = _message("crashed_frame", frame=short_frame(experiment.failure_frames[-1]))
        if died_after is None:
            message = _message("crashed_start", failure=failure, frame=frame)
        else:
            message = _message("crashed", step=str(died_after), failure=failure, frame=frame)
        context.add(
            "crashed",
            "critical",
            metric=None,
            step=last_step,
            step_end=last_step,
            values={"steps_done": float(experiment.steps_done)},
            message=message,
        )
    elif experiment.status == "stalled":
        idle = experiment.idle_s or 0.0
        context.add(
            "stalled",
            "warning",
            metric=None,
            step=last_step,
            step_end=last_step,
            values={"idle_s": idle, "steps_done": float(experiment.steps_done)},
            message=_message("stalled", progress=_progress(experiment), idle=_idle_text(idle)),
        )
    elif experiment.status == "not started" and experiment.idle_s is not None:
        quiet_s = settings.stall_min_s * settings.stall_factor
        if experiment.idle_s > quiet_s:
            context.add(
                "stalled",
                "warning",
                metric=None,
                step=None,
                step_end=None,
                values={"idle_s": experiment.idle_s, "steps_done": 0.0},
                message=_message("stalled_start", idle=_idle_text(experiment.idle_s)),
            )


_DETECTORS: tuple[Callable[[_Context], None], ...] = (
    _detect_non_finite,
    _detect_spikes,
    _detect_entropy,
    _detect_validation,
    _detect_length,
    _detect_mismatch,
    _detect_pass_rate,
    _detect_kl,
    _detect_probs_diff,
    _detect_rollout_corr,
    _detect_step_time,
    _detect_collapse_signature,
)


def detect_signals(experiment: Experiment, *, settings: Settings) -> list[Signal]:
    """Run every detector on one experiment.

    Parameters
    ----------
    experiment
        A loaded experiment.
    settings
        Thresholds are taken from it (the settings table).

    Returns
    -------
    list[Signal]
        Status signals first, then by detector, each detector's signals in step order.
    """
    return [*detect_status_signals(experiment, settings=settings), *detect_step_signals(experiment, settings=settings)]


def detect_status_signals(experiment: Experiment, *, settings: Settings) -> list[Signal]:
    """The signals of :func:`detect_signals` that say what its status says (crashed, stalled): they change with
    the clock, the others only with the steps. Its frame is not read."""
    context = _Context(experiment, settings)
    _detect_status(context, settings)
    return context.signals


def detect_step_signals(experiment: Experiment, *, settings: Settings) -> list[Signal]:
    """The signals of :func:`detect_signals` found in the steps (spikes, drifts, validation, ...), by detector."""
    context = _Context(experiment, settings)
    quiet = context.count < context.thresholds.min_steps
    for detector in _DETECTORS:
        if quiet and detector is not _detect_non_finite:
            continue
        detector(context)
    return context.signals


def detect_all(experiments: Sequence[Experiment], *, settings: Settings) -> list[Signal]:
    """:func:`detect_signals` over several experiments, in their order (hidden ones included)."""
    signals: list[Signal] = []
    for experiment in experiments:
        signals.extend(detect_signals(experiment, settings=settings))
    return signals
