"""Hydra overrides of a launch command -> nested config (rlmon.runs.overrides), on crafted commands and real logs."""

from __future__ import annotations

from pathlib import Path

from rlmon.logs.cache import read_log
from rlmon.logs.parse import parse_log_text
from rlmon.runs.experiment import extract_settings, infer_algorithm
from rlmon.runs.overrides import (
    command_model_paths,
    config_from_command,
    expand_variables,
    merge_configs,
    parse_override_value,
    parse_overrides,
)


def test_override_grammar() -> None:
    command = (
        "CUDA_VISIBLE_DEVICES=0 python3 -m verl.trainer.main_ppo --config-name=ppo_trainer \\\n"
        "  algorithm.adv_estimator=grpo +trainer.val_before_train=False ++data.seed=7 ~critic.model \\\n"
        "  'trainer.logger=[console,wandb]' trainer.project_name='p q' actor_rollout_ref.model.path=$MODEL \\\n"
        "  actor_rollout_ref.actor.optim.lr=1e-6 trainer.device=null data.train_batch_size=8 data.train_batch_size=16"
    )
    assert parse_overrides(command) == {
        "algorithm.adv_estimator": "grpo",
        "trainer.val_before_train": False,
        "data.seed": 7,
        "trainer.logger": ["console", "wandb"],
        "trainer.project_name": "p q",
        "actor_rollout_ref.model.path": "$MODEL",
        "actor_rollout_ref.actor.optim.lr": 1e-6,
        "trainer.device": None,
        "data.train_batch_size": 16,  # given twice: the later one, like Hydra
    }


def test_values() -> None:
    assert parse_override_value("['console','wandb']") == ["console", "wandb"]
    assert parse_override_value('"Qwen/Qwen2.5-3B-Instruct"') == "Qwen/Qwen2.5-3B-Instruct"
    assert parse_override_value("[1, [2, 3], 'a,b']") == [1, [2, 3], "a,b"]
    assert parse_override_value("true") is True
    assert parse_override_value("-1") == -1
    assert parse_override_value("0.6") == 0.6
    assert parse_override_value("${oc.env:HOME}") == "${oc.env:HOME}"


def test_unbalanced_quotes_still_give_the_other_overrides() -> None:
    assert parse_overrides("python3 -m verl.trainer.main_ppo a.b=1 c.d='oops") == {"a.b": 1, "c.d": "'oops"}


def test_nested_config_and_merge() -> None:
    config = config_from_command("python3 -m verl.trainer.main_ppo a=1 a.b=2 c.d.e=x")
    assert config == {"a": {"b": 2}, "c": {"d": {"e": "x"}}}
    assert config_from_command("python3 -m verl.trainer.main_ppo") is None
    assert config_from_command(None) is None
    dump = {"c": {"d": {"e": "dump"}, "f": 1}}
    assert merge_configs(dump, config) == {"a": {"b": 2}, "c": {"d": {"e": "dump"}, "f": 1}}
    assert merge_configs(None, None) is None


def _command_settings(path: Path) -> tuple[str, dict[str, str]]:
    meta = read_log(path).meta
    config = config_from_command(meta.launch_command)
    settings = {item.key: item.display for item in extract_settings(config)}
    return infer_algorithm(config).name, settings


def test_amd_grpo_pasted_command(realdata_dir: Path) -> None:
    # lines 10-45 (grep -n): `python3 -m verl.trainer.main_ppo \` with one override per line, no config dump in the log
    algorithm, settings = _command_settings(realdata_dir / "amd-mi300-deepseek7b-grpo-gsm8k-2025-03.log")
    assert algorithm == "GRPO"  # line 11 `algorithm.adv_estimator=grpo`
    assert settings["batch"] == "1024×5"  # line 14 `data.train_batch_size=1024`, line 32 `rollout.n=5`
    assert settings["lr"] == "1e-6"  # line 18 `actor_rollout_ref.actor.optim.lr=1e-6`
    assert settings["max_response_length"] == "1K"  # line 16 `data.max_response_length=1024`
    assert settings["model"] == "$MODEL_PATH"  # line 17 `actor_rollout_ref.model.path=$MODEL_PATH`, left as text
    assert settings["kl_loss"] == "on low_var_kl 0.001"  # lines 22-24
    assert settings["total_epochs"] == "160"  # line 45, the last line (no backslash)
    assert settings["gpus"] == "8 GPUs"  # lines 40 and 42: n_gpus_per_node=8, nnodes=1
    assert "rollout_tp" not in settings  # line 29 `tensor_model_parallel_size=$TP_VALUE`: not a number


def test_amd_grpo_command_variables_are_read_through_the_assignments_above_it(realdata_dir: Path) -> None:
    # lines 4-8 assign MODEL_PATH="deepseek-ai/deepseek-llm-7b-chat" and TP_VALUE=2 above the pasted command
    meta = read_log(realdata_dir / "amd-mi300-deepseek7b-grpo-gsm8k-2025-03.log").meta
    config = config_from_command(meta.launch_command, variables=meta.shell_vars)
    settings = {item.key: item.display for item in extract_settings(config)}
    assert settings["model"] == "deepseek-llm-7b-chat"  # line 17 `model.path=$MODEL_PATH`, line 4
    assert settings["rollout_tp"] == "TP=2"  # line 29 `tensor_model_parallel_size=$TP_VALUE`, line 5
    assert command_model_paths(meta.launch_command, variables=meta.shell_vars) == ["deepseek-ai/deepseek-llm-7b-chat"]


def test_variables_in_overrides() -> None:
    command = "python3 -m verl.trainer.main_ppo a.model.path=${BASE}/x data.train_batch_size=$BS b.c=$UNSET"
    assert parse_overrides(command, variables={"BASE": "/m", "BS": "16"}) == {
        "a.model.path": "/m/x",
        "data.train_batch_size": 16,  # read as the value the shell would pass
        "b.c": "$UNSET",  # never assigned in the log: kept as written
    }
    assert expand_variables("$A", {"A": "$B/x", "B": "/y"}) == "/y/x"  # a value naming another variable
    assert expand_variables("$A", {"A": "$A$A"}) == "$A$A$A$A$A$A$A$A"  # bounded: three levels, no loop


def test_a_variable_with_a_default() -> None:
    # `${VAR:-default}`: the default when VAR is unset or empty; `${VAR-default}`: only when unset
    command = "python3 -m verl.trainer.main_ppo actor_rollout_ref.model.path=${MODEL_PATH:-Qwen/Qwen2.5-7B-Instruct}"
    assert parse_overrides(command, variables={}) == {"actor_rollout_ref.model.path": "Qwen/Qwen2.5-7B-Instruct"}
    assert parse_overrides(command, variables={"MODEL_PATH": "/m/gemma-2-2b-it"}) == {
        "actor_rollout_ref.model.path": "/m/gemma-2-2b-it"
    }
    assert expand_variables("${M:-/a}", {"M": ""}) == "/a"
    assert expand_variables("${M-/a}", {"M": ""}) == ""
    assert expand_variables("${M-/a}/x", {}) == "/a/x"
    # a script's `MODEL_PATH=${MODEL_PATH:-Qwen/Qwen3-4B}` then `model.path=$MODEL_PATH`: the default it gives
    assert expand_variables("$MODEL_PATH/global_step_5", {"MODEL_PATH": "${MODEL_PATH:-Qwen/Qwen3-4B}"}) == (
        "Qwen/Qwen3-4B/global_step_5"
    )
    # the log as a script prints it: assignment, then the command
    log = (
        "MODEL_PATH=${MODEL_PATH:-Qwen/Qwen3-4B}\n"
        "+ python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo actor_rollout_ref.model.path=$MODEL_PATH\n"
    )
    meta = parse_log_text(log).meta
    assert command_model_paths(meta.launch_command, variables=meta.shell_vars) == ["Qwen/Qwen3-4B"]


def test_ehl_gemma2_set_x_echo(realdata_dir: Path) -> None:
    # line 8: `+ python3 -m verl.trainer.main_ppo data.train_files=... 'trainer.logger=[console,wandb]' ...`
    meta = read_log(realdata_dir / "ehl-gemma2-2b-ppo-gsm8k-v0.1-2024-12.log").meta
    config = config_from_command(meta.launch_command)
    assert config is not None
    assert config["trainer"]["logger"] == ["console", "wandb"]
    # given twice on line 8: google/gemma-2-2b-it, then sft_model_path/global_step_58 (the later one counts)
    assert config["actor_rollout_ref"]["model"]["path"] == "sft_model_path/global_step_58"
    settings = {item.key: item.display for item in extract_settings(config)}
    assert settings["lr"] == "1e-6"  # `actor_rollout_ref.actor.optim.lr=1e-6`
    assert settings["rollout_tp"] == "TP=2"  # `actor_rollout_ref.rollout.tensor_model_parallel_size=2`
    assert settings["max_prompt_length"] == "1K"  # `data.max_prompt_length=1024`
    assert settings["gpus"] == "2 GPUs"  # `trainer.n_gpus_per_node=2 trainer.nnodes=1`
    assert settings["total_epochs"] == "15"  # `trainer.total_epochs=15`


def test_logicrl_eval_command(realdata_dir: Path) -> None:
    # line 16 `+ eval python3 -m ...`, line 17 the `+ python3 -m ...` echo eval ran (the one kept)
    algorithm, settings = _command_settings(realdata_dir / "logicrl-reinforce_plus_plus-raylet-warnings-2025-03.log")
    assert algorithm == "REINFORCE++"  # `algorithm.adv_estimator=reinforce_plus_plus`
    assert settings["batch"] == "8×8"  # `data.train_batch_size=8`, `actor_rollout_ref.rollout.n=8`
    assert settings["lr"] == "5e-7"  # `actor_rollout_ref.actor.optim.lr=5e-7`
    assert settings["model"] == "Qwen2.5-3B-Instruct"  # `actor_rollout_ref.model.path="Qwen/Qwen2.5-3B-Instruct"`
    assert settings["save_freq"] == "60 steps"  # `trainer.save_freq=60`
