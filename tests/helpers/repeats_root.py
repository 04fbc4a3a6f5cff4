"""A log root of repeated runs: 3 algorithms × 3 seeds as verl console logs, with values simple enough to work
group means, standard deviations and bands out by hand.

Built from verl-log-format.md §1.1 (step lines), §5.1 (settings from the launch command's Hydra overrides) and
§6.3 (a crash: ``Error executing job with overrides`` and a traceback after the last step line).

- Every run logs ``critic/score/mean`` = ``0.1 × a + 0.01 × s + 0.001 × k`` at step ``k`` (algorithm index ``a``
  0, 1, 2; seed ``s`` 1, 2, 3) and ``critic/score/min:0`` (scores 0/1, so the pass rate is the mean × 100).
- GRPO: all three seeds run 10 steps. DAPO: seeds 1, 2, 3 run 10, 8 and 6 steps (seed 1 finished; seeds 2 and 3
  still running: their logs last grew :data:`RUNNING_IDLE_S` before ``now``, within a step time of 60 s × 3). RLOO:
  seed 3 crashes after step 5. The other logs last grew hours before ``now``.
- The runs of one algorithm differ only in ``data.seed``, ``actor_rollout_ref.rollout.seed`` and
  ``trainer.experiment_name``: they form one group each, found without ``rlmon.toml``.
"""

from __future__ import annotations

import os
from pathlib import Path

from rlmon.logs.cache import LogCache
from rlmon.runs.loading import load_experiments
from rlmon.settings import Settings
from rlmon.sources.discovery import discover_experiments
from rlmon.views.model import ExperimentView, view_of

STEPS = 10
ALGORITHMS = ("grpo", "dapo", "rloo")
LENGTHS = {("dapo", 2): 8, ("dapo", 3): 6, ("rloo", 3): 5}
"""Steps a run logs when not all 10."""
CRASHED = ("rloo", 3)

_OVERRIDES = {
    "grpo": "algorithm.adv_estimator=grpo",
    "dapo": "algorithm.adv_estimator=grpo algorithm.filter_groups.enable=True "
    "actor_rollout_ref.actor.clip_ratio_low=0.2 actor_rollout_ref.actor.clip_ratio_high=0.28",
    "rloo": "algorithm.adv_estimator=rloo",
}


TWO_TRACKS = "".join(
    f'[experiments.{run}]\ntrack = "{track}"\ngroup = "X"\n'
    for run, track in (("grpo_seed1", "A"), ("grpo_seed2", "A"), ("dapo_seed1", "B"), ("dapo_seed2", "B"))
)
"""``rlmon.toml`` naming a group ``X`` in track A (two GRPO runs) and in track B (two DAPO runs)."""


def folder_of(algorithm: str, seed: int) -> str:
    return f"{algorithm}_seed{seed}"


def score(algorithm: str, seed: int, step: int) -> float:
    """``critic/score/mean`` of a run at a step (as logged, rounded to 6 decimals)."""
    return round(0.1 * ALGORITHMS.index(algorithm) + 0.01 * seed + 0.001 * step, 6)


def _step_line(algorithm: str, seed: int, step: int) -> str:
    return (
        f"(TaskRunner pid=1) step:{step} - critic/score/mean:{score(algorithm, seed, step)} - critic/score/min:0 "
        f"- response_length/mean:100 - timing_s/step:60"
    )


def _log_text(algorithm: str, seed: int) -> str:
    lines = [
        "+ python3 -m verl.trainer.main_ppo " + _OVERRIDES[algorithm] + " actor_rollout_ref.model.path=Qwen/Qwen3-4B "
        f"data.train_batch_size=8 actor_rollout_ref.rollout.n=4 data.seed={seed} actor_rollout_ref.rollout.seed={seed} "
        f"trainer.experiment_name={folder_of(algorithm, seed)} trainer.n_gpus_per_node=8 trainer.nnodes=1 "
        f"trainer.total_training_steps={STEPS}",
        f"(TaskRunner pid=1) Total training steps: {STEPS}",
    ]
    lines += [_step_line(algorithm, seed, step) for step in range(1, LENGTHS.get((algorithm, seed), STEPS) + 1)]
    if (algorithm, seed) == CRASHED:
        lines += [
            "Error executing job with overrides: ['algorithm.adv_estimator=rloo']",
            "Traceback (most recent call last):",
            '  File "/verl/verl/trainer/main_ppo.py", line 42, in main',
            "RuntimeError: CUDA error: an illegal memory access was encountered",
            "Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace.",
        ]
    return "\n".join(lines) + "\n"


RUNNING = (("dapo", 2), ("dapo", 3))
"""The runs still going at ``now``: their logs grew a moment ago."""
RUNNING_IDLE_S = 30.0

NOW = 1_767_240_000.0
"""When the unit tests look at the root (``write_repeats_root``'s default ``now``): the finished and crashed runs'
logs last grew hours before, DAPO's seeds 2 and 3 :data:`RUNNING_IDLE_S` before."""


def write_repeats_root(root: Path, *, toml: str = "", now: float = NOW) -> list[str]:
    """Write the nine runs (and ``toml`` as ``rlmon.toml`` when given) into ``root`` as seen at ``now`` (a server's
    test passes ``time.time()``); return the folders."""
    folders = []
    mtime = now - 4 * 3600
    for algorithm in ALGORITHMS:
        for seed in (1, 2, 3):
            folder = folder_of(algorithm, seed)
            path = root / folder / "train.log"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(_log_text(algorithm, seed), encoding="utf-8")
            mtime += 60
            grown = now - RUNNING_IDLE_S if (algorithm, seed) in RUNNING else mtime
            os.utime(path, (grown, grown))
            folders.append(folder)
    if toml:
        (root / "rlmon.toml").write_text(toml, encoding="utf-8")
    return folders


def append_steps(root: Path, algorithm: str, seed: int, steps: range) -> None:
    """Append ``steps``' lines to a run's log (a running run logging on), its values as :func:`score` gives them."""
    path = root / folder_of(algorithm, seed) / "train.log"
    with path.open("a", encoding="utf-8") as log:
        log.writelines(_step_line(algorithm, seed, step) + "\n" for step in steps)


def repeat_views(root: Path, *, now: float = NOW) -> list[ExperimentView]:
    """The views of the runs under ``root`` at ``now``, read as the app reads them."""
    catalog = discover_experiments([root])
    experiments = load_experiments(catalog, LogCache(None), now=now, settings=Settings())
    refs = {ref.id: ref for ref in catalog.experiments}
    return [view_of(refs[item.id], item) for item in experiments]
