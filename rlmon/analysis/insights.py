"""Run-health signals and the written summary, in English and Chinese.

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
* ``length_cap`` (warning): ``response_length/clip_ratio`` averages at least ``clip_ratio_warn`` over the last
  window and rose since the start; or, without a clip ratio, ``response_length/max`` sits at the cap while the
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

Every metric is read through :func:`rlmon.runs.metrics.resolve_key` (a renamed metric under the name the run
logged), so a signal talks about exactly the series the metric's chart draws.
* ``crashed`` (critical), ``stalled`` (warning): from the experiment status; ``crashed`` carries the first
  exception line, the last training step before it (``Experiment.failure_step``) and the innermost traceback
  frame (``Experiment.failure_frames``); a run with no step whose log has been quiet for long is ``stalled`` too.

Windows: the "first" and "last" windows of the trend detectors hold ``drift_window`` steps (at most half the
run); the numbers *reported* use the headline definitions (start = first 5 steps, end = last 10).

The summary (:func:`write_summary`, :func:`experiment_paragraph`) is plain text, generated only from the data,
deterministic, in English or Chinese; every template is an ``insight_*`` (signal kinds: ``kind_*``) message of
the app's one message catalog, :data:`rlmon.text.messages.MESSAGES`; punctuation between the pieces comes from
:mod:`rlmon.text.lang`.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

import polars as pl

from rlmon.logs.cache import LogCache
from rlmon.runs.experiment import Experiment
from rlmon.runs.headline import (
    ENTROPY_KEY,
    PASS_RATE,
    RESPONSE_LENGTH_KEY,
    Headline,
    end_mean,
    finite_series,
    headline_numbers,
    metric_series,
    percentile,
    response_cap,
    start_mean,
    training_frame,
)
from rlmon.runs.metrics import alias_of, resolve_key, validation_keys
from rlmon.schema import STEP
from rlmon.settings import Settings
from rlmon.text.lang import (
    LANGUAGES,
    join_clauses,
    join_items,
    join_list,
    join_sentences,
    join_steps,
    join_values,
    parenthesized,
)
from rlmon.text.messages import t, track_name
from rlmon.text.numbers import (
    UNKNOWN,
    format_band,
    format_count,
    format_duration,
    format_hours,
    format_percent,
    format_range,
    format_score,
    format_value,
)

__all__ = [
    "KINDS",
    "LANGUAGES",
    "SEVERITIES",
    "Severity",
    "Signal",
    "detect_all",
    "detect_signals",
    "experiment_paragraph",
    "summary_for_root",
    "write_summary",
]

Severity = Literal["info", "warning", "critical"]
SEVERITIES: tuple[Severity, ...] = ("info", "warning", "critical")
Lang = Literal["en", "zh"]

_NUMBERS = "en"
"""The language the numbers of signals and the summary are written in, whatever the text's language: a signal's
texts are built once for every language from the same figures, so ``5.1k`` reads the same in both."""

# ------------------------------------------------------------------------------------------------ messages


KINDS: dict[str, dict[str, str]] = {
    kind: {lang: t("kind_" + kind, lang) for lang in LANGUAGES}
    for kind in (
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
        "crashed",
        "stalled",
    )
}
"""Signal kind -> display name per language (the names are ``kind_<kind>`` in :data:`rlmon.text.messages.MESSAGES`)."""


# ------------------------------------------------------------------------------------------------- signals


@dataclass(frozen=True)
class Signal:
    """One run-health finding about one experiment."""

    kind: str
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

    def text(self, lang: str = "en") -> str:
        """The message in ``lang`` (English when that language is missing)."""
        return self.message.get(lang) or self.message["en"]

    def to_json_dict(self) -> dict[str, Any]:
        """JSON-ready dict (non-finite values become None)."""
        data = asdict(self)
        data["values"] = {key: (value if math.isfinite(value) else None) for key, value in self.values.items()}
        return data


def _message(key: str, **fields: str | dict[str, str]) -> dict[str, str]:
    """Fill template ``key`` in every language; a field may itself differ per language."""
    out: dict[str, str] = {}
    for lang in LANGUAGES:
        filled = {name: (value[lang] if isinstance(value, dict) else value) for name, value in fields.items()}
        out[lang] = t("insight_" + key, lang, **filled)
    return out


def _short_frame(frame: str) -> str:
    """``/root/x/verl/utils/reward_score/__init__.py:37 in f`` -> ``utils/reward_score/__init__.py:37 in f``."""
    path, colon, rest = frame.rpartition(":")
    if not colon:
        return frame
    parts = [part for part in path.replace("\\", "/").split("/") if part]
    return "/".join(parts[-3:]) + ":" + rest


def _short_metric(key: str) -> str:
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
        self.frame = training_frame(experiment)
        self.count = self.frame.height
        self.signals: list[Signal] = []
        self._series: dict[str, tuple[list[int], list[float]]] = {}

    def add(
        self,
        kind: str,
        severity: Severity,
        *,
        metric: str | None,
        step: int | None,
        step_end: int | None,
        values: Mapping[str, float],
        message: dict[str, str],
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
        low_text, _, high_text = format_band(low, high, _NUMBERS).partition("–")
        metric = _short_metric(key)
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
                    max=format_value(peak, _NUMBERS),
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
                    value=format_value(value, _NUMBERS),
                    ratio=format_value(ratio, _NUMBERS) if math.isfinite(ratio) else "∞",
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
                    "entropy_rising", start=format_score(start, _NUMBERS), end=format_score(end, _NUMBERS)
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
            message=_message("entropy_collapse", start=format_score(start, _NUMBERS), end=format_score(end, _NUMBERS)),
        )


def _detect_validation(context: _Context) -> None:
    thresholds = context.thresholds
    experiment = context.experiment
    for source, key in validation_keys(experiment.steps.columns).items():
        steps, values = finite_series(experiment.steps, key)
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
                    value=format_score(last, _NUMBERS),
                    step=str(steps[-1]),
                    previous=format_score(previous, _NUMBERS),
                    best=format_score(best, _NUMBERS),
                    best_step=str(best_step),
                ),
            )


def _detect_length(context: _Context) -> None:
    thresholds = context.thresholds
    if context.count < thresholds.min_steps:
        return
    cap = response_cap(context.experiment)
    cap_text = format_count(cap, _NUMBERS) if cap is not None else _word("unknown_cap", "en")
    steps, clip = context.series("response_length/clip_ratio")
    if any(value < 0.0 or value > 1.0 for value in clip):
        # not a fraction of responses (a key of that name holding something else): no percent is made of it,
        # and the cap is judged from the longest responses as for a run that logs no clip ratio
        steps, clip = [], []
    fired = False
    if len(clip) >= thresholds.min_steps:
        first, last, window = _trend_windows(clip, thresholds)
        if last >= thresholds.clip_ratio_warn and last > first:
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
                    clip=format_percent(last * 100, _NUMBERS),
                    window=str(window),
                    clip_start=format_percent(first * 100, _NUMBERS),
                ),
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
                message=_message("length_cap_max", cap=cap_text, mean=format_count(mean_end, _NUMBERS)),
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
                    start=format_count(start, _NUMBERS),
                    end=format_count(end, _NUMBERS),
                    ratio=format_value(end / start, _NUMBERS),
                ),
            )


def _detect_mismatch(context: _Context) -> None:
    thresholds = context.thresholds
    steps, values = context.series("rollout_mismatch")
    if len(values) < thresholds.min_steps:
        return
    first, last, window = _trend_windows(values, thresholds)
    metric = "rollout_mismatch"
    if last >= thresholds.mismatch_high:
        context.add(
            "mismatch_high",
            "warning",
            metric=metric,
            step=steps[-window],
            step_end=steps[-1],
            values={"end": last, "start": first},
            message=_message("mismatch_high", end=format_value(last, _NUMBERS), window=str(window)),
        )
    elif first > 0 and last >= 2.0 * first and last >= thresholds.mismatch_high / 4:
        context.add(
            "mismatch_rising",
            "info",
            metric=metric,
            step=steps[0],
            step_end=steps[-1],
            values={"end": last, "start": first},
            message=_message("mismatch_rising", start=format_value(first, _NUMBERS), end=format_value(last, _NUMBERS)),
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
            message=_message(
                "non_finite", metric=_short_metric(key), count=str(len(bad_steps)), step=str(bad_steps[0])
            ),
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
                end=format_percent(last, _NUMBERS),
                window=str(window),
                peak=format_percent(peak, _NUMBERS),
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
                    metric=_short_metric(key),
                    end=format_value(last, _NUMBERS),
                    window=str(window),
                    ratio=format_value(ratio, _NUMBERS) if math.isfinite(ratio) else "∞",
                    base=format_value(base, _NUMBERS),
                ),
            )


def _idle_text(idle_s: float) -> dict[str, str]:
    hours = idle_s / 3600.0
    if hours >= 48:
        days = f"{hours / 24:.0f}"
        return {lang: t("insight_days", lang, days=days) for lang in LANGUAGES}
    text = format_duration(hours, _NUMBERS)
    return {"en": text, "zh": text}


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
            frame = _message("crashed_frame", frame=_short_frame(experiment.failure_frames[-1]))
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
            message=_message("stalled", progress=experiment.progress_text, idle=_idle_text(idle)),
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
    context = _Context(experiment, settings)
    _detect_status(context, settings)
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


# ------------------------------------------------------------------------------------------------- summary


def _name(experiment: Experiment | Headline) -> str:
    """``E2 (DAPO)`` from the label ``E2 · DAPO``; other labels as they are."""
    code, sep, algorithm = experiment.label.partition(" · ")
    return f"{code} ({algorithm})" if sep else experiment.label


def _code(experiment: Experiment) -> str:
    return experiment.label.partition(" · ")[0]


def _codes(experiments: Sequence[Experiment]) -> str:
    """``E1–E4`` for consecutive codes, else ``E1, E3``."""
    codes = [_code(experiment) for experiment in experiments]
    numbers = []
    for code in codes:
        digits = "".join(char for char in code if char.isdigit())
        prefix = code.rstrip("0123456789")
        numbers.append((prefix, int(digits) if digits and code.endswith(digits) else None))
    prefixes = {prefix for prefix, _ in numbers}
    values = [number for _, number in numbers]
    if (
        len(codes) > 2
        and len(prefixes) == 1
        and all(number is not None for number in values)
        and values == list(range(values[0] or 0, (values[0] or 0) + len(values)))
    ):
        return f"{codes[0]}–{codes[-1]}"
    return ", ".join(codes)


def _fill(key: str, lang: str, **fields: str) -> str:
    """Template ``insight_<key>`` of the message catalog (:data:`rlmon.text.messages.MESSAGES`), filled."""
    return t("insight_" + key, lang, **fields)


SUMMARY_ITEMS = 5
"""Experiments a summary sentence names one by one (best scores, drops, signals); past that it says how many
more there are. The experiments table and the signals list beside the summary name every one."""


def _capped(items: list[str], more: str, lang: str) -> list[str]:
    """The first :data:`SUMMARY_ITEMS` of ``items``, then ``insight_<more>`` saying how many are left out."""
    if len(items) <= SUMMARY_ITEMS:
        return items
    return [*items[:SUMMARY_ITEMS], _fill(more, lang, count=str(len(items) - SUMMARY_ITEMS))]


def _word(key: str, lang: str) -> str:
    """Text ``insight_<key>`` of the message catalog, with no field."""
    return t("insight_" + key, lang)


def _band(values: Sequence[float | None]) -> tuple[float, float] | None:
    present = [value for value in values if value is not None and math.isfinite(value)]
    if not present:
        return None
    return min(present), max(present)


def _band_text(band: tuple[float, float] | None, *, kind: str) -> str:
    if band is None:
        return UNKNOWN
    low, high = band
    if kind == "%":
        if round(low, 1) == round(high, 1):
            return format_percent(low, _NUMBERS)
        return format_range(low, high, _NUMBERS, unit="%")
    if round(low, 1) == round(high, 1):
        return format_hours(low, _NUMBERS)
    return f"{low:.1f}–{high:.1f}h"


@dataclass
class _Track:
    name: str
    experiments: list[Experiment]
    headlines: dict[str, Headline]
    compared: list[Experiment]
    """The experiments compared with each other: the finished ones when two or more are, else all with steps."""


def _tracks(experiments: Sequence[Experiment], settings: Settings) -> list[_Track]:
    min_steps = settings.min_steps
    groups: dict[str, list[Experiment]] = {}
    for experiment in sorted(experiments, key=lambda item: (item.order, item.id)):
        if experiment.hidden:
            continue
        groups.setdefault(experiment.track, []).append(experiment)
    tracks: list[_Track] = []
    # The track with the newest activity first (the one being watched), then by name.
    newest = {
        name: max((item.last_modified or 0.0 for item in members), default=0.0) for name, members in groups.items()
    }
    for name in sorted(groups, key=lambda track: (-newest[track], track)):
        members = groups[name]
        headlines = {experiment.id: headline_numbers(experiment) for experiment in members}
        finished = [item for item in members if item.status == "finished" and headlines[item.id].steps >= min_steps]
        with_steps = [item for item in members if headlines[item.id].steps > 0]
        tracks.append(_Track(name, members, headlines, finished if len(finished) >= 2 else with_steps))
    return tracks


def _status_sentence(track: _Track, lang: str) -> str:
    by_state: dict[str, list[Experiment]] = {}
    for experiment in track.experiments:
        by_state.setdefault(experiment.status, []).append(experiment)
    states: list[str] = []
    for status, members in by_state.items():
        progress = sorted({member.progress_text for member in members})
        progress_text = ", ".join(progress)
        names = _codes(members)
        if status == "finished":
            states.append(_fill("state_finished", lang, names=names, progress=progress_text))
        elif status == "running":
            states.append(_fill("state_running", lang, names=names, progress=progress_text))
        else:
            status_text = t(f"status_{status}", lang)
            states.append(_fill("state_other", lang, names=names, status=status_text, progress=progress_text))
    return _fill(
        "track_status",
        lang,
        track=track_name(track.name, lang),
        names=_codes(track.experiments),
        states=join_items(states, lang),
    )


def _track_source(track: _Track) -> str | None:
    counts: dict[str, int] = {}
    for headline in track.headlines.values():
        if headline.validation_source is not None:
            counts[headline.validation_source] = counts.get(headline.validation_source, 0) + 1
    if not counts:
        return None
    return sorted(counts, key=lambda source: (-counts[source], source))[0]


def _validation_sentences(track: _Track, signals: Sequence[Signal], lang: str) -> list[str]:
    source = _track_source(track)
    if source is None:
        return []
    sentences: list[str] = []
    bests = []
    for experiment in track.experiments:
        best = track.headlines[experiment.id].best(source)
        last = track.headlines[experiment.id].last(source)
        # A run validated only before training (step 0) has no checkpoint score to rank yet.
        if best is not None and last is not None and last.step > 0:
            bests.append((experiment, best))
    bests.sort(key=lambda item: (-round(item[1].value, 6), item[1].step, item[0].order))
    if bests:
        items = [
            _fill(
                "best_item", lang, name=_name(experiment), value=format_score(best.value, _NUMBERS), step=str(best.step)
            )
            for experiment, best in bests
        ]
        sentences.append(
            _fill("best_validation", lang, source=source, items=join_items(_capped(items, "more_items", lang), lang))
        )
    lasts = []
    for experiment in track.compared:
        last = track.headlines[experiment.id].last(source)
        if last is not None:
            lasts.append((experiment, last))
    if len(lasts) >= 2:
        final_step = max(last.step for _, last in lasts)
        at_final = [(experiment, last) for experiment, last in lasts if last.step == final_step]
        top = max(round(last.value, 6) for _, last in at_final)
        leaders = [experiment for experiment, last in at_final if round(last.value, 6) == top]
        verb = _word("lead_one" if len(leaders) == 1 else "lead_many", lang)
        sentences.append(
            _fill(
                "leaders",
                lang,
                step=str(final_step),
                names=join_list([_name(item) for item in leaders], lang),
                verb=verb,
                value=format_score(top, _NUMBERS),
            )
        )
    by_id = {experiment.id: experiment for experiment in track.experiments}
    drops = []
    for signal in signals:
        if signal.kind != "validation_drop" or signal.experiment not in by_id:
            continue
        if signal.metric != validation_keys([signal.metric or ""]).get(source):
            continue
        drops.append(
            _fill(
                "drop_item",
                lang,
                name=_name(by_id[signal.experiment]),
                value=format_score(signal.values["value"], _NUMBERS),
                step=str(signal.step),
                best=format_score(signal.values["best"], _NUMBERS),
                best_step=str(int(signal.values["best_step"])),
            )
        )
    if drops:
        items = _capped(drops, "more_experiments", lang)
        sentences.append(_fill("drops", lang, items=join_clauses(items, lang)))
    return sentences


def _finished(track: _Track) -> list[Experiment]:
    """The compared experiments that finished: wall-clock hours compare only between complete runs."""
    return [experiment for experiment in track.compared if experiment.status == "finished"]


def _extremes(
    track: _Track, value: Callable[[Headline], float | None], *, among: Sequence[Experiment] | None = None
) -> tuple[Experiment, Experiment] | None:
    """(lowest, highest) of ``value`` over ``among`` (default: the compared experiments); None with fewer
    than two values or when all are equal."""
    scored = []
    for experiment in track.compared if among is None else among:
        number = value(track.headlines[experiment.id])
        if number is not None and math.isfinite(number):
            scored.append((number, experiment.order, experiment))
    if len(scored) < 2:
        return None
    scored.sort(key=lambda item: (item[0], item[1]))
    if scored[0][0] == scored[-1][0]:
        return None
    return scored[0][2], scored[-1][2]


def _growth(headline: Headline) -> float | None:
    start, end = headline.response_length_start, headline.response_length_end
    if start is None or end is None or start <= 0:
        return None
    return end / start


def _length_range(headline: Headline) -> str:
    start, end = headline.response_length_start, headline.response_length_end
    return f"{format_count(start, _NUMBERS)}→{format_count(end, _NUMBERS)}"


def _entropy_range(headline: Headline) -> str:
    return f"{format_score(headline.entropy_start, _NUMBERS)}→{format_score(headline.entropy_end, _NUMBERS)}"


def _grad_range(headline: Headline) -> str:
    return format_range(headline.grad_norm_min, headline.grad_norm_max, _NUMBERS)


def _dynamics_sentences(track: _Track, signals: Sequence[Signal], lang: str) -> list[str]:
    sentences: list[str] = []
    hours = _extremes(track, lambda headline: headline.elapsed_h, among=_finished(track))
    if hours is not None:
        fast, slow = hours
        sentences.append(
            _fill(
                "speed",
                lang,
                fast=_name(fast),
                fast_h=format_hours(fast.elapsed_h, _NUMBERS),
                slow=_name(slow),
                slow_h=format_hours(slow.elapsed_h, _NUMBERS),
            )
        )
    growth = _extremes(track, _growth)
    # "grows most/least" only reads right when every compared run grew.
    if growth is not None and (_growth(track.headlines[growth[0].id]) or 0.0) > 1.0:
        least, most = growth
        sentences.append(
            _fill(
                "length",
                lang,
                most=_name(most),
                most_range=_length_range(track.headlines[most.id]),
                least=_name(least),
                least_range=_length_range(track.headlines[least.id]),
            )
        )
    entropy = _extremes(track, lambda headline: headline.entropy_end)
    if entropy is not None:
        lowest = entropy[0]
        sentences.append(
            _fill("entropy_lowest", lang, name=_name(lowest), range=_entropy_range(track.headlines[lowest.id]))
        )
    ids = {experiment.id for experiment in track.experiments}
    rising = [
        parenthesized(_name(experiment), _entropy_range(track.headlines[experiment.id]), lang)
        for experiment in track.experiments
        if any(s.kind == "entropy_rising" and s.experiment == experiment.id for s in signals) and experiment.id in ids
    ]
    if rising:
        sentences.append(_fill("entropy_rises", lang, items=join_list(rising, lang)))
    grad = _extremes(track, lambda headline: headline.grad_norm_p95)
    if grad is not None:
        lowest = grad[0]
        sentences.append(_fill("grad_lowest", lang, name=_name(lowest), range=_grad_range(track.headlines[lowest.id])))
    return sentences


def _signal_texts(experiment_signals: Sequence[Signal], lang: str) -> list[str]:
    """Signal texts of one experiment, with its spikes of one metric grouped into one phrase."""
    texts: list[str] = []
    spikes: dict[str, list[Signal]] = {}
    for signal in experiment_signals:
        if signal.kind == "spike" and signal.metric is not None:
            spikes.setdefault(signal.metric, []).append(signal)
    done: set[str] = set()
    for signal in experiment_signals:
        if signal.kind == "spike" and signal.metric is not None:
            if signal.metric in done:
                continue
            done.add(signal.metric)
            group = spikes[signal.metric]
            steps = [str(item.step) for item in group]
            values = [format_value(item.values["value"], _NUMBERS) for item in group]
            key = "spike_group" if len(group) > 1 else "spike_group_one"
            texts.append(
                _fill(
                    key,
                    lang,
                    metric=_short_metric(signal.metric),
                    steps=join_steps(steps, lang),
                    values=join_values(values, lang),
                    band=format_band(group[0].values["typical_low"], group[0].values["typical_high"], _NUMBERS),
                )
            )
            continue
        texts.append(signal.text(lang))
    return texts


def _attention_sentence(track: _Track, signals: Sequence[Signal], lang: str) -> str:
    """What the track's signals say: the warnings and critical ones ("Worth attention: ..."), then the info ones
    ("Also noted: ..."); "No signal worth attention." only when the track has no signal at all, so the sentence
    never contradicts the signals table beside it."""
    urgent: list[tuple[bool, str]] = []  # (no critical signal, text): experiments with a critical one come first
    notes: list[tuple[bool, str]] = []
    for experiment in track.experiments:
        mine = [s for s in signals if s.experiment == experiment.id]
        mine.sort(key=lambda s: (s.severity != "critical", _KIND_ORDER.get(s.kind, 99), s.step or 0))
        for target, chosen in (
            (urgent, [s for s in mine if s.severity in ("warning", "critical")]),
            (notes, [s for s in mine if s.severity == "info"]),
        ):
            if chosen:
                text = join_clauses(_signal_texts(chosen, lang), lang)
                critical = any(s.severity == "critical" for s in chosen)
                target.append((not critical, _fill("attention_item", lang, name=_name(experiment), text=text)))
    if not urgent and not notes:
        return _word("attention_none", lang)

    def listed(items: list[tuple[bool, str]]) -> str:
        return join_clauses(
            _capped([text for _, text in sorted(items, key=lambda item: item[0])], "more_experiments", lang), lang
        )

    sentences = [_fill("attention", lang, items=listed(urgent))] if urgent else []
    if notes:
        sentences.append(_fill("attention_info", lang, items=listed(notes)))
    return join_sentences(sentences, lang)


_KIND_ORDER = {kind: index for index, kind in enumerate(KINDS)}


def _track_pairs(tracks: Sequence[_Track]) -> list[tuple[_Track, _Track, list[str]]]:
    """Pairs of tracks holding at least two of the same algorithms, with those algorithm keys."""
    pairs = []
    for index, first in enumerate(tracks):
        for second in tracks[index + 1 :]:
            keys_a = {item.algorithm.key for item in first.compared if item.algorithm.key != "unknown"}
            keys_b = {item.algorithm.key for item in second.compared if item.algorithm.key != "unknown"}
            common = sorted(keys_a & keys_b)
            if len(common) >= 2:
                pairs.append((first, second, common))
    return pairs


def _by_algorithm(
    track: _Track,
    common: Sequence[str],
    value: Callable[[Headline], float | None],
    *,
    among: Sequence[Experiment] | None = None,
) -> dict[str, float]:
    """Algorithm key -> ``value`` of its first experiment in ``among`` (default: the compared ones)."""
    out: dict[str, float] = {}
    for experiment in track.compared if among is None else among:
        if experiment.algorithm.key in common and experiment.algorithm.key not in out:
            number = value(track.headlines[experiment.id])
            if number is not None and math.isfinite(number):
                out[experiment.algorithm.key] = number
    return out


def _comparison_sentence(first: _Track, second: _Track, common: Sequence[str], lang: str) -> str | None:
    items: list[str] = []
    band_a = _band([first.headlines[item.id].pass_rate_start for item in first.compared])
    band_b = _band([second.headlines[item.id].pass_rate_start for item in second.compared])
    if band_a and band_b:
        items.append(
            _fill("tracks_pass", lang, a_band=_band_text(band_a, kind="%"), b_band=_band_text(band_b, kind="%"))
        )
    hours_a = _band([item.elapsed_h for item in _finished(first)])
    hours_b = _band([item.elapsed_h for item in _finished(second)])
    if hours_a and hours_b:
        items.append(
            _fill("tracks_hours", lang, a_band=_band_text(hours_a, kind="h"), b_band=_band_text(hours_b, kind="h"))
        )
    names = {item.algorithm.key: item.algorithm.name for item in first.compared + second.compared}
    measures: tuple[tuple[str, Callable[[Headline], float | None]], ...] = (
        ("length", _growth),
        ("pass", lambda headline: headline.pass_rate_end),
        ("hours", lambda headline: headline.elapsed_h),
    )
    for what, value in measures:
        values_a = _by_algorithm(first, common, value, among=_finished(first) if what == "hours" else None)
        values_b = _by_algorithm(second, common, value, among=_finished(second) if what == "hours" else None)
        shared = sorted(set(values_a) & set(values_b))
        if len(shared) < 2:
            continue
        for algorithm in shared:
            a_rank = _rank(values_a, shared, algorithm)
            b_rank = _rank(values_b, shared, algorithm)
            if a_rank is None or b_rank is None or a_rank == b_rank:
                continue
            items.append(
                _fill(
                    "reversal",
                    lang,
                    a=first.name,
                    b=second.name,
                    algorithm=names[algorithm],
                    what=_word(f"what_{what}", lang),
                    a_order=_word(f"order_{what}_{a_rank}", lang),
                    b_order=_word(f"order_{what}_{b_rank}", lang),
                )
            )
    if not items:
        return None
    return _fill("tracks", lang, a=first.name, b=second.name, items=join_clauses(items, lang))


def _rank(values: Mapping[str, float], shared: Sequence[str], algorithm: str) -> str | None:
    """``most`` / ``least`` when ``algorithm`` is the unique top / bottom among ``shared``, else None."""
    numbers = [values[key] for key in shared]
    mine = values[algorithm]
    if mine == max(numbers) and numbers.count(mine) == 1:
        return "most"
    if mine == min(numbers) and numbers.count(mine) == 1:
        return "least"
    return None


def write_summary(
    experiments: Sequence[Experiment],
    signals: Sequence[Signal],
    *,
    lang: str = "en",
    settings: Settings | None = None,
) -> list[str]:
    """The written summary: a few short paragraphs per track, then one per pair of comparable tracks.

    Parameters
    ----------
    experiments
        Loaded experiments (hidden ones are left out).
    signals
        From :func:`detect_all` on the same experiments.
    lang
        ``en`` or ``zh``.
    settings
        Only the ``min_steps`` setting matters (which runs count as comparable); default settings when None.

    Returns
    -------
    list[str]
        Plain-text paragraphs (no markup; log-derived names appear as they are).
    """
    lang = lang if lang in LANGUAGES else "en"
    tracks = _tracks(experiments, settings or Settings())
    if not any(track.compared for track in tracks):
        # Runs that crashed or stalled before their first step still have signals: the words name them, as the
        # signals table beside them does.
        attention = [_attention_sentence(track, signals, lang) for track in tracks]
        return [_word("summary_empty", lang), *(text for text in attention if text != _word("attention_none", lang))]
    paragraphs: list[str] = []
    for track in tracks:
        first = [_status_sentence(track, lang)]
        if track.compared:
            start = _band([track.headlines[item.id].pass_rate_start for item in track.compared])
            end = _band([track.headlines[item.id].pass_rate_end for item in track.compared])
            if start and end:
                first.append(
                    _fill(
                        "pass_bands",
                        lang,
                        start=_band_text(start, kind="%"),
                        end=_band_text(end, kind="%"),
                        names=_codes(track.compared),
                    )
                )
        first.extend(_validation_sentences(track, signals, lang))
        paragraphs.append(join_sentences(first, lang))
        # With several tracks in view, every paragraph says whose runs it is about, as the first one does.
        follow = [join_sentences(dynamics, lang)] if (dynamics := _dynamics_sentences(track, signals, lang)) else []
        follow.append(_attention_sentence(track, signals, lang))
        if len(tracks) > 1:
            follow = [_fill("track_prefix", lang, track=track_name(track.name, lang), text=text) for text in follow]
        paragraphs.extend(follow)
    for first_track, second_track, common in _track_pairs(tracks):
        sentence = _comparison_sentence(first_track, second_track, common, lang)
        if sentence is not None:
            paragraphs.append(sentence)
    return paragraphs


def _next_validation(experiment: Experiment) -> int | None:
    """The step of the next validation of a running experiment (``trainer.test_freq``), if any."""
    frequency = experiment.setting("test_freq")
    if experiment.status != "running" or frequency is None:
        return None
    every = frequency.value
    if not isinstance(every, int) or isinstance(every, bool) or every <= 0:
        return None
    upcoming = (experiment.steps_done // every + 1) * every
    if experiment.total_steps is not None and upcoming > experiment.total_steps:
        return None
    return upcoming


def experiment_paragraph(experiment: Experiment, signals: Sequence[Signal], *, lang: str = "en") -> str:
    """One paragraph about one experiment for its page: status, start→end numbers, validation, signals.

    ``signals`` may hold other experiments' signals; only this experiment's are used.
    """
    lang = lang if lang in LANGUAGES else "en"
    headline = headline_numbers(experiment)
    name = _name(experiment)
    hours = format_duration(experiment.elapsed_h, _NUMBERS)
    if experiment.status == "finished":
        status = _fill("exp_status_finished", lang, name=name, progress=experiment.progress_text, hours=hours)
    elif experiment.status == "running":
        eta = (
            _fill("exp_eta", lang, eta=format_duration(experiment.eta_h, _NUMBERS))
            if experiment.eta_h is not None
            else ""
        )
        status = _fill("exp_status_running", lang, name=name, progress=experiment.progress_text, hours=hours, eta=eta)
    else:
        status = _fill(
            "exp_status_other",
            lang,
            name=name,
            status=t(f"status_{experiment.status}", lang),
            progress=experiment.progress_text,
        )
    facts: list[str] = []
    if headline.pass_rate_start is not None:
        facts.append(
            _fill(
                "exp_pass",
                lang,
                start=format_percent(headline.pass_rate_start, _NUMBERS),
                end=format_percent(headline.pass_rate_end, _NUMBERS),
            )
        )
    if headline.response_length_start is not None:
        facts.append(_fill("exp_length", lang, range=_length_range(headline)))
    if headline.entropy_start is not None:
        facts.append(_fill("exp_entropy", lang, range=_entropy_range(headline)))
    if headline.grad_norm_min is not None:
        facts.append(_fill("exp_grad", lang, range=_grad_range(headline)))
    best, last = headline.best(), headline.last()
    if last is not None and last.step <= 0 and headline.validation_source is not None:
        facts.append(
            _fill(
                "exp_val_initial",
                lang,
                source=headline.validation_source,
                value=format_score(last.value, _NUMBERS),
                step=str(last.step),
            )
        )
    elif best is not None and last is not None and headline.validation_source is not None:
        facts.append(
            _fill(
                "exp_val",
                lang,
                source=headline.validation_source,
                best=format_score(best.value, _NUMBERS),
                best_step=str(best.step),
                last=format_score(last.value, _NUMBERS),
                last_step=str(last.step),
            )
        )
    next_step = _next_validation(experiment)
    if next_step is not None:
        facts.append(_fill("exp_next_val", lang, step=str(next_step), count=str(next_step - experiment.steps_done)))
    parts = [status]
    if facts:
        parts.append(_fill("facts", lang, facts=join_clauses(facts, lang)))
    mine = [signal for signal in signals if signal.experiment == experiment.id]
    if mine:
        mine.sort(key=lambda s: (SEVERITIES.index(s.severity) * -1, _KIND_ORDER.get(s.kind, 99), s.step or 0))
        parts.append(_fill("exp_signals", lang, items=join_clauses(_signal_texts(mine, lang), lang)))
    elif headline.steps > 0:
        parts.append(_word("exp_no_signals", lang))
    return join_sentences(parts, lang)


# --------------------------------------------------------------------------------------------------- CLI


def summary_for_root(
    roots: Sequence[Path],
    *,
    lang: str = "en",
    as_json: bool = False,
    cache: LogCache | None = None,
    settings: Settings | None = None,
    now: float | None = None,
) -> str:
    """The text ``rlmon summary ROOT`` prints: the summary paragraphs, then the signals (or JSON with both).

    Parameters
    ----------
    roots
        Log roots.
    lang
        ``en`` or ``zh``.
    as_json
        Return JSON: ``{"summary": [...], "signals": [...], "experiments": [headline, ...], "problems": [...]}``.
    cache
        The per-log cache (memory-only when None).
    settings
        Default settings when None.
    now
        Current time for stall detection (``time.time()`` when None).

    Raises
    ------
    CatalogError
        A root is missing or cannot be listed.
    """
    from rlmon.runs.loading import load_experiment
    from rlmon.sources.discovery import discover_experiments

    settings = settings or Settings()
    cache = cache or LogCache(None)
    moment = time.time() if now is None else now
    catalog = discover_experiments(roots)
    experiments = [load_experiment(ref, cache, now=moment, settings=settings) for ref in catalog.experiments]
    signals = detect_all(experiments, settings=settings)
    paragraphs = write_summary(experiments, signals, lang=lang, settings=settings)
    if as_json:
        payload = {
            "summary": paragraphs,
            "signals": [signal.to_json_dict() for signal in signals],
            "experiments": [headline_numbers(experiment).to_json_dict() for experiment in experiments],
            "problems": list(catalog.problems),
        }
        return json.dumps(payload, indent=2, ensure_ascii=False)
    lines = [*_paragraph_lines(paragraphs), "", _word("signals_heading", lang)]
    if not signals:
        lines.append(_word("signals_none", lang))
    for signal in signals:
        where = "" if signal.step is None else f" @{signal.step}"
        if signal.step_end is not None and signal.step is not None and signal.step_end != signal.step:
            where = f" @{signal.step}–{signal.step_end}"
        severity = t(f"severity_{signal.severity}", lang)
        lines.append(f"- [{severity}] {signal.label or signal.experiment}{where}: {signal.text(lang)}")
    return "\n".join(lines)


def _paragraph_lines(paragraphs: Sequence[str]) -> list[str]:
    lines: list[str] = []
    for index, paragraph in enumerate(paragraphs):
        if index:
            lines.append("")
        lines.append(paragraph)
    return lines
