"""Experiments built by hand from a few step columns, for tests of what is computed from an experiment."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from rlmon.runs.experiment import Algorithm, Experiment, Status

_ALGORITHMS = {
    "grpo": "GRPO",
    "dapo": "DAPO",
    "dr_grpo": "Dr.GRPO",
    "rloo": "RLOO",
    "reinforce_pp": "REINFORCE++",
    "ppo": "PPO",
}


def make_experiment(
    columns: dict[str, Sequence[float | None]],
    *,
    steps: Sequence[int] | None = None,
    experiment_id: str = "e1_grpo",
    label: str = "E1 · GRPO",
    track: str = "Model-4B",
    algorithm: str = "grpo",
    status: Status = "finished",
    order: int = 1,
    elapsed_h: float | None = None,
    config: dict[str, Any] | None = None,
    failure: str | None = None,
    idle_s: float | None = None,
    steps_done: int | None = None,
    total_steps: int | None = None,
    eta_h: float | None = None,
    hidden: bool = False,
) -> Experiment:
    """An :class:`Experiment` holding the given step columns (steps 1..n unless given)."""
    length = max((len(values) for values in columns.values()), default=0)
    step_list = list(steps) if steps is not None else list(range(1, length + 1))
    data: dict[str, Any] = {"step": pl.Series("step", step_list, dtype=pl.Int64)}
    for key, values in columns.items():
        data[key] = pl.Series(key, list(values), dtype=pl.Float64)
    frame = pl.DataFrame(data)
    name = _ALGORITHMS.get(algorithm, algorithm)
    done = steps_done if steps_done is not None else (max(step_list) if step_list else 0)
    return Experiment(
        id=experiment_id,
        root="/logs",
        path=f"/logs/{experiment_id}",
        label=label,
        track=track,
        algorithm=Algorithm(key=algorithm, name=name, description=""),
        description="",
        color="#4c78a8",
        order=order,
        hidden=hidden,
        status=status,
        steps_done=done,
        total_steps=total_steps if total_steps is not None else done,
        missing_steps=(),
        elapsed_h=elapsed_h,
        mean_step_s=None,
        median_step_s=None,
        last_step_s=None,
        eta_h=eta_h,
        idle_s=idle_s,
        failure=failure,
        settings=(),
        sources=(),
        steps=frame,
        metas=(),
        config=config,
    )
