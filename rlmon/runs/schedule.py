"""What comes next for a running run: its next validation, its next checkpoint and its end, in steps and in time.

verl's trainer validates when ``global_steps % trainer.test_freq == 0`` and saves a checkpoint when
``global_steps % trainer.save_freq == 0``, and does both at the last step as well (``is_last_step``) when the
frequency is positive; so the next of each is the next multiple of its frequency, or the last step when that
comes first. The time to a step is its distance times the run's median step time (a validation or a checkpoint
step takes longer than the median: the estimate is a floor for the step that holds them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rlmon.runs.experiment import Experiment

__all__ = ["Milestone", "MilestoneKind", "next_milestones"]

MilestoneKind = Literal["validation", "checkpoint", "end"]


@dataclass(frozen=True)
class Milestone:
    """One step a running run is heading for."""

    kind: MilestoneKind
    step: int
    """The step at which it happens."""
    steps_left: int
    """Steps from the last one done."""
    hours_left: float | None
    """``steps_left`` x the median step time, in hours; None without a step time."""


def _frequency(experiment: Experiment, key: str) -> int | None:
    setting = experiment.setting(key)
    value = None if setting is None else setting.value
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        return None
    return value


def next_milestones(experiment: Experiment) -> tuple[Milestone, ...]:
    """The next validation (``test_freq``), the next checkpoint (``save_freq``) and the end (total steps) of a
    running experiment, those its settings tell; empty for a run that is not running.

    Examples: 21 of 150 steps done, ``test_freq`` and ``save_freq`` 25 -> validation and checkpoint at step 25
    (4 steps left), the end at step 150 (129 left).
    """
    if experiment.status != "running":
        return ()
    done = experiment.steps_done
    total = experiment.total_steps
    median_s = experiment.median_step_s

    def milestone(kind: MilestoneKind, step: int) -> Milestone:
        left = step - done
        hours = None if median_s is None else left * median_s / 3600.0
        return Milestone(kind, step, left, hours)

    found: list[Milestone] = []
    for kind, key in (("validation", "test_freq"), ("checkpoint", "save_freq")):
        every = _frequency(experiment, key)
        if every is None:
            continue
        upcoming = (done // every + 1) * every
        if total is not None:
            if done >= total:
                continue
            upcoming = min(upcoming, total)  # verl validates and saves at the last step too
        found.append(milestone(kind, upcoming))  # type: ignore[arg-type]
    if total is not None and total > done:
        end = milestone("end", total)
        # the run's own estimate (Experiment.eta_h: the same product) when the median step time is not kept
        found.append(end if end.hours_left is not None else Milestone("end", total, end.steps_left, experiment.eta_h))
    return tuple(found)
