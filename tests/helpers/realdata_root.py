"""A log root of real, unrelated logs: every log of ``../shared/realdata/verl`` in a folder of its own, as a team
that points rlmon at a folder of downloaded runs would have it. Built in a temporary folder (the logs are never
copied into the repository)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

__all__ = [
    "LOOK_ALIKE_FOLDERS",
    "REAL_STATES",
    "REAL_TRACKS",
    "SFT_LOGS",
    "write_look_alike_root",
    "write_realdata_root",
]

SFT_LOGS = ("charcount-sft-trainer-readme-2025-08", "ehl-gemma2-2b-sft-gsm8k-v0.1-2024-12")
"""The SFT trainer logs among them: not RL runs, so not experiments."""

# The track of each RL log, named by hand from its text (line numbers as `grep -n` prints them).
REAL_TRACKS = {
    # line 49 of the config dump: 'path': '/ossfs/workspace/nas/public_ckpts/Qwen/Qwen2.5-0.5B-Instruct'
    "alignx-resume-at-final-step-pdb-2025-07": "Qwen2.5-0.5B-Instruct",
    # line 17 `actor_rollout_ref.model.path=$MODEL_PATH`, line 4 `MODEL_PATH="deepseek-ai/deepseek-llm-7b-chat"`
    "amd-mi300-deepseek7b-grpo-gsm8k-2025-03": "deepseek-llm-7b-chat",
    # line 21 `model.path=$MODEL_PATH`, line 9 `MODEL_PATH="deepseek-ai/deepseek-llm-7b-chat"`
    "amd-mi300-deepseek7b-ppo-gsm8k-2025-03": "deepseek-llm-7b-chat",
    # line 3 `actor_rollout_ref.model.path=./models/merged_hf_model` (line 73 of the dump too): generic folders
    # only, and the log names no other model path (SmolLM is only in a prompt, line 410); line 388, verl's
    # model-size print: `LlamaForCausalLM contains 134.52M parameters`
    "charcount-grpo-readme-2025-08": "Llama 134.52M",
    # line 62: 'path': 'Qwen/Qwen2.5-7B-Instruct'
    "dstack-ppo-qwen25-7b-resumed-2025-05": "Qwen2.5-7B-Instruct",
    # line 8 (`set -x` echo) first sets `actor_rollout_ref.model.path=google/gemma-2-2b-it`, then the appended
    # `actor_rollout_ref.model.path=sft_model_path/global_step_58` (line 6's `$sft_model_path/global_step_58`
    # with the variable unset) wins: the SFT checkpoint of gemma-2-2b-it at step 58
    "ehl-gemma2-2b-ppo-gsm8k-v0.1-2024-12": "gemma-2-2b-it @58",
    # the dumps' actor 'path': 'Qwen/Qwen2.5-0.5B-Instruct' (line 31 of the second)
    "ehl-qwen25-05b-ppo-gsm8k-resp256-v0.1-2024-12": "Qwen2.5-0.5B-Instruct",
    "ehl-qwen25-05b-ppo-gsm8k-v0.1-2024-12": "Qwen2.5-0.5B-Instruct",
    # line 8 and line 655: a Hugging Face cache path, .../models--Qwen--Qwen2-7B-Instruct/snapshots/f2826a00...
    "gpg-qwen2-7b-fsdp-gsm8k-math-2025-06": "Qwen2-7B-Instruct",
    # line 454: 'path': '/workspace/verl/Qwen/Qwen2-7B-Instruct'
    "gpg-qwen2-7b-megatron-gsm8k-2025-06": "Qwen2-7B-Instruct",
    # line 120: 'path': '/mnt/ceph_rbd/models/Qwen/Qwen3-VL-2B-Thinking'
    "gui-cursor-agentloop-grpo-2026-03": "Qwen3-VL-2B-Thinking",
    # line 31: 'path': 'Qwen/Qwen2.5-7B-Instruct-1M'
    "logicrl-grpo-main_task-startup-crash-2025-02": "Qwen2.5-7B-Instruct-1M",
    # line 6 `+ MODEL_PATH=Qwen/Qwen2.5-3B-Instruct`, line 47 of the dump 'path': 'Qwen/Qwen2.5-3B-Instruct'
    "logicrl-reinforce_plus_plus-raylet-warnings-2025-03": "Qwen2.5-3B-Instruct",
    # line 32: 'path': 'Qwen/Qwen2.5-1.5B-Instruct'
    "maze-ppo-main_task-crash-2025-03": "Qwen2.5-1.5B-Instruct",
    # the last 38 lines of a run: no model path, no model named (line 39 names only a script, run_qwen_gsm8k.sh),
    # no model-size print: a track of its own, named after its folder
    "rlinsight-npu-opd-grpo-end-of-run-2026-03": "unknown model · rlinsight-npu-opd-grpo-end-of-run-2026-03",
    # line 25: 'path': 'gpt2'
    "selfplay-grpo-config-error-startup-2025": "gpt2",
    # line 55: 'path': 'Qwen/Qwen2.5-0.5B-Instruct'
    "tpu-xla-ppo-stalled-at-step0-2025-07": "Qwen2.5-0.5B-Instruct",
    # two example step lines from the docs: no model at all, a track of its own
    "verl-docs-quickstart-example-lines": "unknown model · verl-docs-quickstart-example-lines",
    # line 45: 'path': '/mnt/gemini/data1/yifengliu/model/Qwen2.5-3B-Instruct'
    "walar-grpo-wandb-only-no-step-lines-2025-06": "Qwen2.5-3B-Instruct",
}

# Status and progress of each run three hours after its log last grew, from the logs' text: `Final validation
# metrics` or steps done = `Total training steps` (finished), an exception block (crashed), else stalled.
REAL_STATES = {
    "alignx-resume-at-final-step-pdb-2025-07": ("finished", "105/105"),  # tqdm jumps to 105/105 (resumed there)
    "amd-mi300-deepseek7b-grpo-gsm8k-2025-03": ("finished", "1,120 steps"),  # step:1 .. step:1120, no total printed
    "amd-mi300-deepseek7b-ppo-gsm8k-2025-03": ("finished", "1,120 steps"),
    "charcount-grpo-readme-2025-08": ("stalled", "1/140"),  # step:0, step:1; `Total training steps: 140`
    "dstack-ppo-qwen25-7b-resumed-2025-05": ("finished", "435/435"),
    "ehl-gemma2-2b-ppo-gsm8k-v0.1-2024-12": ("stalled", "106 steps"),  # 0-based step:0 .. step:105, no total read
    "ehl-qwen25-05b-ppo-gsm8k-resp256-v0.1-2024-12": ("finished", "435/435"),
    "ehl-qwen25-05b-ppo-gsm8k-v0.1-2024-12": ("finished", "435/435"),
    "gpg-qwen2-7b-fsdp-gsm8k-math-2025-06": ("finished", "210/210"),
    "gpg-qwen2-7b-megatron-gsm8k-2025-06": ("finished", "105/105"),
    "gui-cursor-agentloop-grpo-2026-03": ("stalled", "2/563,250"),
    "logicrl-grpo-main_task-startup-crash-2025-02": ("crashed", "0/560"),
    "logicrl-reinforce_plus_plus-raylet-warnings-2025-03": ("stalled", "0/560"),
    "maze-ppo-main_task-crash-2025-03": ("crashed", "0/30"),
    "rlinsight-npu-opd-grpo-end-of-run-2026-03": ("finished", "870/870"),
    "selfplay-grpo-config-error-startup-2025": ("crashed", "0 steps"),
    "tpu-xla-ppo-stalled-at-step0-2025-07": ("stalled", "0/58"),
    "verl-docs-quickstart-example-lines": ("stalled", "2 steps"),
    "walar-grpo-wandb-only-no-step-lines-2025-06": ("stalled", "33/15,625"),
}


def write_realdata_root(realdata_dir: Path, root: Path, *, mtime: float | None = None) -> Path:
    """Every ``.log`` of ``realdata_dir`` in a folder of its own under ``root`` (``<name>/<name>.log``), each file's
    modification time ``mtime`` (default: the original file's). Returns ``root``."""
    for log in sorted(realdata_dir.glob("*.log")):
        folder = root / log.stem
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / log.name
        shutil.copy2(log, target)
        target.chmod(0o644)
        if mtime is not None:
            os.utime(target, (mtime, mtime))
    return root


LOOK_ALIKE_FOLDERS = ("E1", "E1\u200b", "\u04151")
"""Three folders that all read "E1": plain, with a zero-width space (U+200B), and with a Cyrillic Е (U+0415)."""


def write_look_alike_root(root: Path) -> Path:
    """A root of :data:`LOOK_ALIKE_FOLDERS`, each a finished three-step GRPO run of one model (written here, from the
    format reference: a ``set -x`` launch command, ``Total training steps``, then ``step:N`` lines). Returns
    ``root``."""
    command = (
        "+ python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo actor_rollout_ref.model.path=/models/Qwen3-4B"
        " trainer.total_training_steps=3\nTotal training steps: 3\n"
    )
    for index, folder in enumerate(LOOK_ALIKE_FOLDERS):
        (root / folder).mkdir(parents=True)
        steps = "".join(
            f"step:{step} - actor/grad_norm:{0.5 + index / 10} - critic/score/mean:{step / 4} - "
            f"response_length/mean:{100 * step} - timing_s/step:60.0\n"
            for step in (1, 2, 3)
        )
        (root / folder / "train.log").write_text(command + steps, encoding="utf-8")
    return root
