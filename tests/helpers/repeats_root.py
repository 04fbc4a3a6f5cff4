"""A log root of repeated runs: 3 algorithms × 3 seeds as verl console logs, with values simple enough to work
group means, standard deviations and bands out by hand.

Built from verl-log-format.md §1.1 (step lines), §5.1 (settings from the launch command's Hydra overrides) and
§6.3 (a crash: ``Error executing job with overrides`` and a traceback after the last step line).

- Every run logs ``critic/score/mean`` = ``0.1 × a + 0.01 × s + 0.001 × k`` at step ``k`` (algorithm index ``a``
  0, 1, 2; seed ``s`` 1, 2, 3) and ``critic/score/min:0`` (scores 0/1, so the pass rate is the mean × 100).
- GRPO: all three seeds run 10 steps. DAPO: seeds 1, 2, 3 run 10, 8 and 6 steps (two still going, one
  finished). RLOO: seed 3 crashes after step 5.
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


def _log_text(algorithm: str, seed: int) -> str:
    lines = [
        "+ python3 -m verl.trainer.main_ppo " + _OVERRIDES[algorithm] + " actor_rollout_ref.model.path=Qwen/Qwen3-4B "
        f"data.train_batch_size=8 actor_rollout_ref.rollout.n=4 data.seed={seed} actor_rollout_ref.rollout.seed={seed} "
        f"trainer.experiment_name={folder_of(algorithm, seed)} trainer.n_gpus_per_node=8 trainer.nnodes=1 "
        f"trainer.total_training_steps={STEPS}",
        f"(TaskRunner pid=1) Total training steps: {STEPS}",
    ]
    for step in range(1, LENGTHS.get((algorithm, seed), STEPS) + 1):
        lines.append(
            f"(TaskRunner pid=1) step:{step} - critic/score/mean:{score(algorithm, seed, step)} - critic/score/min:0 "
            f"- response_length/mean:100 - timing_s/step:60"
        )
    if (algorithm, seed) == CRASHED:
        lines += [
            "Error executing job with overrides: ['algorithm.adv_estimator=rloo']",
            "Traceback (most recent call last):",
            '  File "/verl/verl/trainer/main_ppo.py", line 42, in main',
            "RuntimeError: CUDA error: an illegal memory access was encountered",
            "Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace.",
        ]
    return "\n".join(lines) + "\n"


def write_repeats_root(root: Path, *, toml: str = "") -> list[str]:
    """Write the nine runs (and ``toml`` as ``rlmon.toml`` when given) into ``root``; return the folders."""
    folders = []
    mtime = 1_767_225_600.0
    for algorithm in ALGORITHMS:
        for seed in (1, 2, 3):
            folder = folder_of(algorithm, seed)
            path = root / folder / "train.log"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(_log_text(algorithm, seed), encoding="utf-8")
            mtime += 60
            os.utime(path, (mtime, mtime))
            folders.append(folder)
    if toml:
        (root / "rlmon.toml").write_text(toml, encoding="utf-8")
    return folders


NOW = 1_767_240_000.0
"""When the tests look at the root: hours after its logs last grew (no run is still running)."""


def repeat_views(root: Path) -> list[ExperimentView]:
    """The views of the runs under ``root``, read as the app reads them."""
    catalog = discover_experiments([root])
    experiments = load_experiments(catalog, LogCache(None), now=NOW, settings=Settings())
    refs = {ref.id: ref for ref in catalog.experiments}
    return [view_of(refs[item.id], item) for item in experiments]
