"""What comes next for a running run (rlmon.runs.schedule): verl validates and saves at each multiple of
test_freq / save_freq and at the last step; times are steps left x the median step time."""

from __future__ import annotations

import dataclasses

import pytest

from rlmon.runs.experiment import Experiment, Setting
from rlmon.runs.schedule import Milestone, next_milestones
from tests.helpers.experiments import make_experiment


def _running(
    done: int, total: int | None, *, test_freq: int | None, save_freq: int | None, median_s: float | None
) -> Experiment:
    experiment = make_experiment({"actor/grad_norm": [0.2] * done}, status="running", total_steps=total)
    settings = [
        Setting(key, key, "schedule", value, str(value))
        for key, value in (("test_freq", test_freq), ("save_freq", save_freq))
        if value is not None
    ]
    return dataclasses.replace(experiment, settings=tuple(settings), median_step_s=median_s, total_steps=total)


def test_next_validation_checkpoint_and_end() -> None:
    # 21 of 150 done, validation every 25, save every 50, 600 s a step: 4 steps = 0.667 h, 29 = 4.83 h, 129 = 21.5 h
    found = next_milestones(_running(21, 150, test_freq=25, save_freq=50, median_s=600.0))
    assert [(item.kind, item.step, item.steps_left) for item in found] == [
        ("validation", 25, 4),
        ("checkpoint", 50, 29),
        ("end", 150, 129),
    ]
    assert [item.hours_left for item in found] == pytest.approx([4 / 6, 29 / 6, 21.5])


def test_the_last_step_validates_and_saves_when_it_comes_before_the_next_multiple() -> None:
    # 141 of 145 done, every 25: the next multiple (150) is past the end, verl does both at step 145
    found = next_milestones(_running(141, 145, test_freq=25, save_freq=25, median_s=None))
    assert found == (
        Milestone("validation", 145, 4, None),
        Milestone("checkpoint", 145, 4, None),
        Milestone("end", 145, 4, None),
    )


def test_no_frequency_no_total_and_not_running() -> None:
    assert next_milestones(_running(10, None, test_freq=-1, save_freq=None, median_s=60.0)) == ()
    # without a total, the next multiple is all there is
    assert next_milestones(_running(10, None, test_freq=5, save_freq=0, median_s=60.0)) == (
        Milestone("validation", 15, 5, 5 * 60.0 / 3600.0),
    )
    finished = dataclasses.replace(_running(150, 150, test_freq=25, save_freq=25, median_s=60.0), status="finished")
    assert next_milestones(finished) == ()
