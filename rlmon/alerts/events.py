"""What is worth telling a team about a run: the events an experiment's state and signals hold.

:func:`experiment_events` reads one experiment and its signals (:func:`rlmon.analysis.signals.detect_signals`) and
returns every event they hold *now*, each with a :attr:`AlertEvent.key` that stays the same for as long as the
event is the same, from one refresh (or process) to the next. The watcher (:mod:`rlmon.alerts.watcher`) sends the
events whose key it has not seen. Kinds (severity):

* ``crashed`` (critical): the run crashed; the exception and its innermost frame. One per failure in the logs.
* ``stalled`` (warning): the log has not grown past the stall threshold. Its key holds the step it stalled at;
  the watcher sends it once per stall and, when the log grows again, ``resumed`` (warning): :func:`resumed_event`.
* ``non_finite`` (critical): NaN or inf in a watched metric; one per metric and first bad step.
* a run-health signal of severity warning or above (:data:`SIGNAL_KINDS`: a spike, entropy collapse, a
  validation drop...), with its text as the summary words it. A signal about one step (``spike``,
  ``validation_drop``) is one event per step; a signal about a window (entropy, length, KL, pass rate, mismatch)
  one per run and metric, however its window moves.
* ``finished`` (info): the run finished; its paragraph (headline numbers) as the experiment page writes it.
* ``best`` (info): a validation score above every earlier one of its data source (from the second validation on).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from rlmon.analysis.signals import Severity, Signal, short_frame
from rlmon.analysis.summary import experiment_paragraph
from rlmon.runs.experiment import Experiment
from rlmon.runs.headline import finite_series
from rlmon.runs.metrics import validation_keys
from rlmon.settings import ALERT_KINDS
from rlmon.text.lang import LANGUAGES
from rlmon.text.messages import t
from rlmon.text.numbers import format_score

__all__ = [
    "EVENT_KINDS",
    "POINT_KINDS",
    "SIGNAL_KINDS",
    "AlertEvent",
    "experiment_events",
    "resumed_event",
]

EVENT_KINDS = ("crashed", "stalled", "resumed", "non_finite", "finished", "best")
"""The kinds of event that are not a signal's kind."""
SIGNAL_KINDS: tuple[str, ...] = ALERT_KINDS[ALERT_KINDS.index("signals") + 1 :]
"""The run-health signals of severity warning or above that are sent as such (``non_finite``, ``crashed`` and
``stalled`` are events of their own); each may be named alone in ``alert_kinds``."""
POINT_KINDS = frozenset({"spike", "validation_drop"})
"""Signals about one step: a new step is a new event (the other signals are about a window that moves)."""


@dataclass(frozen=True)
class AlertEvent:
    """One thing a team is told about one experiment."""

    key: str
    """What makes it this event: the same key is the same event (sent once), within its log root."""
    kind: str
    """One of :data:`EVENT_KINDS` or :data:`SIGNAL_KINDS`."""
    severity: Severity
    experiment: str
    """The experiment's id."""
    relative: str
    """Its folder relative to its log root (the key of ``rlmon.toml``)."""
    label: str
    track: str
    step: int | None
    """The step it happened at, when it is about one."""
    metric: str | None
    """The metric it is about (its chart is where the link opens)."""
    detail: Mapping[str, str] = field(hash=False)
    """What happened, one sentence or a paragraph per language, as the summary words it."""
    exception: str | None = None
    """``crashed``: the first exception line."""
    frame: str | None = None
    """``crashed``: the innermost traceback frame (``utils/reward_score/__init__.py:37 in f``)."""

    @property
    def rule_kind(self) -> str:
        """The kind ``alert_kinds`` and ``[alerts] kinds`` name it by: a resume goes with its stall."""
        return "stalled" if self.kind == "resumed" else self.kind


def _event(
    experiment: Experiment,
    relative: str,
    *,
    key: str,
    kind: str,
    severity: Severity,
    step: int | None,
    metric: str | None,
    detail: Mapping[str, str],
    exception: str | None = None,
    frame: str | None = None,
) -> AlertEvent:
    return AlertEvent(
        key=f"{kind}|{experiment.id}|{key}",
        kind=kind,
        severity=severity,
        experiment=experiment.id,
        relative=relative,
        label=experiment.label,
        track=experiment.track,
        step=step,
        metric=metric,
        detail=dict(detail),
        exception=exception,
        frame=frame,
    )


def _crash(experiment: Experiment, relative: str, signal: Signal) -> AlertEvent:
    meta = experiment.metas[-1] if experiment.metas else None
    line = meta.failure_line if meta is not None else None
    died_after = experiment.failure_step if experiment.failure_step is not None else (experiment.steps_done or None)
    return _event(
        experiment,
        relative,
        # one per failure: a resumed run that fails again fails in another file or further down the same one
        key=f"{len(experiment.metas)}|{line}",
        kind="crashed",
        severity="critical",
        step=died_after,
        metric=None,
        detail=signal.message,
        exception=experiment.failure,
        frame=short_frame(experiment.failure_frames[-1]) if experiment.failure_frames else None,
    )


def _from_signal(experiment: Experiment, relative: str, signal: Signal) -> AlertEvent | None:
    if signal.kind == "crashed":
        return _crash(experiment, relative, signal)
    if signal.kind == "stalled":
        return _event(
            experiment, relative, key=str(experiment.steps_done), kind="stalled", severity="warning",
            step=signal.step, metric=None, detail=signal.message,
        )  # fmt: skip
    if signal.kind == "non_finite":
        return _event(
            experiment, relative, key=f"{signal.metric}|{signal.step}", kind="non_finite", severity="critical",
            step=signal.step, metric=signal.metric, detail=signal.message,
        )  # fmt: skip
    if signal.severity == "info":
        return None
    where = f"{signal.metric}|{signal.step}" if signal.kind in POINT_KINDS else f"{signal.metric}"
    return _event(
        experiment, relative, key=where, kind=signal.kind, severity=signal.severity,
        step=signal.step_end if signal.kind not in POINT_KINDS else signal.step, metric=signal.metric,
        detail=signal.message,
    )  # fmt: skip


def _best_scores(experiment: Experiment, relative: str) -> list[AlertEvent]:
    events: list[AlertEvent] = []
    for source, key in validation_keys(experiment.steps.columns).items():
        steps, values = finite_series(experiment.steps, key)
        for index in range(1, len(values)):
            earlier = values[:index]
            best = max(earlier)
            if values[index] <= best:
                continue
            best_step = steps[earlier.index(best)]
            detail: dict[str, str] = {
                lang: t(
                    "alert_best_detail",
                    lang,
                    source=source,
                    value=format_score(values[index], "en"),
                    step=steps[index],
                    best=format_score(best, "en"),
                    best_step=best_step,
                )
                for lang in LANGUAGES
            }
            events.append(
                _event(
                    experiment,
                    relative,
                    key=f"{key}|{steps[index]}",
                    kind="best",
                    severity="info",
                    step=steps[index],
                    metric=key,
                    detail=detail,
                )
            )
    return events


def experiment_events(experiment: Experiment, signals: Sequence[Signal], *, relative: str) -> list[AlertEvent]:
    """Every event one experiment holds now (see the module docstring for the kinds).

    Parameters
    ----------
    experiment
        A loaded experiment.
    signals
        Its signals (others' are ignored).
    relative
        Its folder relative to its log root.

    Returns
    -------
    list[AlertEvent]
        Status events first, then the signals' in their order, then ``finished``, then ``best`` scores.
    """
    mine = [signal for signal in signals if signal.experiment == experiment.id]
    events = [event for event in (_from_signal(experiment, relative, signal) for signal in mine) if event]
    if experiment.status == "finished":
        detail: dict[str, str] = {lang: experiment_paragraph(experiment, mine, lang=lang) for lang in LANGUAGES}
        events.append(
            _event(
                experiment,
                relative,
                key=f"{len(experiment.metas)}|{experiment.steps_done}",
                kind="finished",
                severity="info",
                step=experiment.steps_done or None,
                metric=None,
                detail=detail,
            )
        )
    events.extend(_best_scores(experiment, relative))
    return events


def resumed_event(experiment: Experiment, *, relative: str, stalled_key: str) -> AlertEvent:
    """The run whose stall (event ``stalled_key``) was sent logs again: its log grew past the stall."""
    detail: dict[str, str] = {
        lang: t("alert_resumed_detail", lang, progress=experiment.progress_text) for lang in LANGUAGES
    }
    return _event(
        experiment, relative, key=stalled_key, kind="resumed", severity="warning",
        step=experiment.steps_done or None, metric=None, detail=detail,
    )  # fmt: skip
