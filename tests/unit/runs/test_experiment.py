"""Experiment identity, algorithm inference, settings, settings diff, status and progress.

Expected values come from hand-made frames and from the text of the real logs in ../shared/realdata/verl
(line numbers cited where a value is read off a log).
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from rlmon.logs.cache import read_log
from rlmon.logs.parse import parse_log_text
from rlmon.runs.experiment import (
    ALGORITHMS,
    DASH_PATTERNS,
    PALETTE,
    SETTING_GROUPS,
    Experiment,
    Progress,
    Setting,
    assign_colors,
    default_track,
    experiment_color,
    experiment_label,
    extract_settings,
    infer_algorithm,
    model_name,
    model_track,
    settings_diff,
    short_track_names,
    summarize_progress,
    tracks_in_labels,
    training_rows,
    view_styles,
)
from rlmon.schema import RunMeta
from rlmon.sources.discovery import experiment_code
from rlmon.text.messages import track_name, unknown_track

HOUR = 3600.0


def settings_by_key(settings: tuple[Setting, ...]) -> dict[str, Setting]:
    return {item.key: item for item in settings}


def make_experiment(experiment_id: str, settings: tuple[Setting, ...]) -> Experiment:
    algorithm = infer_algorithm(None)
    return Experiment(
        id=experiment_id,
        root="/r",
        path=f"/r/{experiment_id}",
        label=experiment_id,
        track="t",
        algorithm=algorithm,
        description="",
        color=PALETTE[0],
        order=0,
        hidden=False,
        status="finished",
        steps_done=0,
        total_steps=None,
        missing_steps=(),
        elapsed_h=None,
        mean_step_s=None,
        median_step_s=None,
        last_step_s=None,
        eta_h=None,
        idle_s=None,
        failure=None,
        settings=settings,
        sources=(),
        steps=pl.DataFrame(schema={"step": pl.Int64}),
        metas=(),
    )


# ----------------------------------------------------------------------------------------------- algorithm


def config_4b(**algorithm_overrides: Any) -> dict[str, Any]:
    """A config shaped like verl's dump for the team's 4B track (values from the seed dashboard)."""
    return {
        "actor_rollout_ref": {
            "actor": {
                "clip_ratio": 0.2,
                "clip_ratio_high": 0.2,
                "clip_ratio_low": 0.2,
                "fsdp_config": {"optimizer_offload": False, "param_offload": False},
                "kl_loss_coef": 0.001,
                "kl_loss_type": "low_var_kl",
                "loss_agg_mode": "token-mean",
                "optim": {"lr": 1e-06, "total_training_steps": -1},
                "ppo_mini_batch_size": 16,
                "use_kl_loss": True,
            },
            "model": {"path": "/models/Qwen/Qwen3.5-4B"},
            "rollout": {"n": 8, "name": "vllm", "tensor_model_parallel_size": 4, "val_kwargs": {"n": 1}},
        },
        "algorithm": {
            "adv_estimator": "grpo",
            "kl_ctrl": {"kl_coef": 0.001, "type": "fixed"},
            "norm_adv_by_std_in_grpo": True,
            "use_kl_in_reward": False,
            **algorithm_overrides,
        },
        "data": {
            "apply_chat_template_kwargs": {"enable_thinking": False},
            "max_prompt_length": 2048,
            "max_response_length": 16384,
            "train_batch_size": 32,
        },
        "trainer": {
            "n_gpus_per_node": 4,
            "nnodes": 1,
            "save_freq": 50,
            "test_freq": 25,
            "total_epochs": 1,
            "total_training_steps": 150,
        },
    }


@pytest.mark.parametrize(
    ("estimator", "name"),
    [
        ("gae", "PPO"),
        ("grpo", "GRPO"),
        ("grpo_vectorized", "GRPO"),
        ("rloo", "RLOO"),
        ("rloo_vectorized", "RLOO"),
        ("reinforce_plus_plus", "REINFORCE++"),
        ("reinforce_plus_plus_baseline", "REINFORCE++ baseline"),
        ("gpg", "GPG"),
        ("remax", "ReMax"),
        ("opo", "OPO"),
        ("grpo_passk", "GRPO pass@k"),
        ("optimal_token_baseline", "optimal_token_baseline"),
        ("gdpo", "gdpo"),
    ],
)
def test_algorithm_from_adv_estimator(estimator: str, name: str) -> None:
    algorithm = infer_algorithm({"algorithm": {"adv_estimator": estimator}})
    assert algorithm.name == name
    assert algorithm.adv_estimator == estimator
    assert algorithm.description.strip()
    assert f"algorithm.adv_estimator={estimator}" in algorithm.evidence


def test_every_named_algorithm_has_a_description() -> None:
    for key, (name, description) in ALGORITHMS.items():
        assert name and len(description) > 20, key


def test_dr_grpo_needs_no_std_and_seq_mean_token_sum_norm() -> None:
    config = config_4b(norm_adv_by_std_in_grpo=False)
    config["actor_rollout_ref"]["actor"]["loss_agg_mode"] = "seq-mean-token-sum-norm"
    config["actor_rollout_ref"]["actor"]["use_kl_loss"] = False
    assert infer_algorithm(config).name == "Dr.GRPO"
    # Only one of the two marks: still GRPO.
    config["actor_rollout_ref"]["actor"]["loss_agg_mode"] = "token-mean"
    assert infer_algorithm(config).name == "GRPO"


def test_dapo_from_filter_groups_overlong_buffer_or_recipe() -> None:
    config = config_4b(filter_groups={"enable": True, "max_num_gen_batches": 10, "metric": "acc"})
    assert infer_algorithm(config).name == "DAPO"
    config = config_4b()
    config["reward_model"] = {"overlong_buffer": {"enable": True, "len": 4096, "penalty_factor": 1.0}}
    assert infer_algorithm(config).key == "dapo"
    assert infer_algorithm(config_4b(), launch_command="python3 -m recipe.dapo.main_dapo x=1").name == "DAPO"
    off = config_4b(filter_groups={"enable": False})
    assert infer_algorithm(off).name == "GRPO"


def test_algorithm_without_config() -> None:
    assert infer_algorithm(None).key == "unknown"
    assert (
        infer_algorithm(None, launch_command="python3 -m verl.trainer.main_ppo algorithm.adv_estimator=rloo").name
        == "RLOO"
    )
    assert infer_algorithm(None, columns=["step", "critic/vf_loss"]).name == "PPO"


def test_algorithms_of_real_config_dumps(realdata_dir: Path) -> None:
    expected = {
        "gpg-qwen2-7b-fsdp-gsm8k-math-2025-06.log": "GPG",  # 'adv_estimator': 'gpg'
        "logicrl-reinforce_plus_plus-raylet-warnings-2025-03.log": "REINFORCE++",  # line 76
        "dstack-ppo-qwen25-7b-resumed-2025-05.log": "PPO",  # line 115: 'gae'
        "logicrl-grpo-main_task-startup-crash-2025-02.log": "GRPO",
        "tpu-xla-ppo-stalled-at-step0-2025-07.log": "PPO",  # line 117: 'gae'
    }
    for name, algorithm in expected.items():
        meta = read_log(realdata_dir / name).meta
        assert infer_algorithm(meta.config, launch_command=meta.launch_command).name == algorithm, name
    # No config dump, but the critic is logged (PPO with GAE).
    ppo = read_log(realdata_dir / "amd-mi300-deepseek7b-ppo-gsm8k-2025-03.log")
    assert infer_algorithm(ppo.meta.config, columns=ppo.steps.columns).name == "PPO"


# ------------------------------------------------------------------------------------------------ identity


def test_model_track_of_an_unexpanded_shell_variable_is_unknown() -> None:
    # a launch command pasted with `actor_rollout_ref.model.path=$MODEL_PATH` whose log never assigns it
    assert model_track({"actor_rollout_ref": {"model": {"path": "$MODEL_PATH"}}}) is None
    assert model_track({"actor_rollout_ref": {"model": {"path": "/models/Qwen3.5-4B"}}}) == "Qwen3.5-4B"


def _model_path(path: str) -> dict[str, Any]:
    return {"actor_rollout_ref": {"model": {"path": path}}}


@pytest.mark.parametrize(
    ("path", "track"),
    [
        # a checkpoint number under a generic folder: the run's folder names the model, the step is a suffix
        ("/mnt/ckpt/moe_lite_sft_lr1e-5_04082007/hf_ckpts/15714", "moe_lite_sft_lr1e-5_04082007 @15714"),
        ("/ckpt/qwen2.5-7b-grpo/global_step_100/actor/huggingface", "qwen2.5-7b-grpo @100"),
        ("/out/llama-3-8b-sft/checkpoint-500", "llama-3-8b-sft @500"),
        ("/out/Qwen3-4B-dapo/latest/hf", "Qwen3-4B-dapo"),
        ("$CKPT_DIR/gemma-2b-sft/global_step_58", "gemma-2b-sft @58"),  # the unexpanded part is not reached
        (
            "/hub/models--Qwen--Qwen2-7B-Instruct/snapshots/f2826a00ceef68f0f2b946d945ecc0477ce4450c",
            "Qwen2-7B-Instruct",
        ),
        # mount points, shared folders, a person's home and dates are where a model is kept, not which one
        ("/mnt/gemini/data1/yifengliu/model/Qwen2.5-3B-Instruct", "Qwen2.5-3B-Instruct"),
        ("/home/alice/work/llama-3-8b-sft/step_300", "llama-3-8b-sft @300"),
        ("/nfs/runs/qwen3-4b-dapo/2025-04-08/checkpoint-800", "qwen3-4b-dapo @800"),
        # nothing but generic parts, steps and variables: the path says nothing
        ("/mnt/models/model", None),
        ("/home/alice/ckpts/model", None),
        ("./models/merged_hf_model", None),
        ("sft_model_path/global_step_58", None),
        ("$MODEL_PATH", None),
    ],
)
def test_model_track_skips_generic_and_numeric_parts(path: str, track: str | None) -> None:
    assert model_track(_model_path(path)) == track


@pytest.mark.parametrize(
    ("path", "track"),
    [
        ("/mnt/models/model", "Qwen2.5-7B-Instruct"),
        ("/root/ckpts/step_200/hf", "Qwen2.5-7B-Instruct @200"),
        ("/data/checkpoints/global_step_100/actor", "Qwen2.5-7B-Instruct @100"),
        ("/nfs/output/20250408/checkpoint-1200", "Qwen2.5-7B-Instruct @1200"),  # 20250408: a date, not a step
    ],
)
def test_a_path_of_generic_parts_only_falls_back_to_the_base_model(path: str, track: str) -> None:
    # mount points (mnt, root, data, nfs), generic words (models, model, output, ckpts, checkpoints, hf, actor),
    # steps and dates name no model: the base model the log names does, the step kept
    assert model_name(path)[0] is None
    assert model_track(_model_path(path), named=["Qwen/Qwen2.5-7B-Instruct"]) == track
    # nothing else named: no track from the path (the run is of unknown model)
    assert model_track(_model_path(path)) is None


def test_the_model_size_verl_prints_names_a_model_no_path_names(realdata_dir: Path) -> None:
    # charcount: `actor_rollout_ref.model.path=./models/merged_hf_model` (line 3), and line 388
    # `LlamaForCausalLM contains 134.52M parameters`
    charcount = read_log(realdata_dir / "charcount-grpo-readme-2025-08.log").meta
    assert charcount.model_sizes == ["Llama 134.52M"]
    assert model_track(charcount.config, named=charcount.model_sizes) == "Llama 134.52M"
    # maze: `Qwen2ForCausalLM contains 1.54B parameters` (actor and reference) and the critic's
    # `Qwen2ForTokenClassification contains 1.54B parameters`, no language model
    assert read_log(realdata_dir / "maze-ppo-main_task-crash-2025-03.log").meta.model_sizes == ["Qwen2 1.54B"]
    # a model path that says something wins over the size
    assert model_track(_model_path("Qwen/Qwen2.5-1.5B-Instruct"), named=["Qwen2 1.54B"]) == "Qwen2.5-1.5B-Instruct"


def test_runs_of_unknown_model_are_each_on_a_track_of_their_own() -> None:
    assert unknown_track("rlinsight-run") == "unknown model · rlinsight-run"
    assert track_name(unknown_track("rlinsight-run"), "zh") == "未知模型 · rlinsight-run"
    assert track_name(unknown_track("rlinsight-run"), "en") == "unknown model · rlinsight-run"
    # labels of a view holding such a track carry no track: it is named after the run's folder, as the label is
    assert not tracks_in_labels(["Qwen3.5-4B", unknown_track("E3")])
    assert tracks_in_labels(["Qwen3.5-4B", "Qwen3.5-2B"])


def test_model_track_falls_back_to_the_base_model_the_log_names() -> None:
    # a script's base model (`model.path=google/gemma-2-2b-it`) overridden by `$sft_model_path/global_step_58`:
    # the SFT checkpoint of gemma at step 58
    named = ["google/gemma-2-2b-it", "sft_model_path/global_step_58"]
    assert model_track(_model_path("sft_model_path/global_step_58"), named=named) == "gemma-2-2b-it @58"
    # an HF `_name_or_path` when the command names none; a path that says something never looks further
    assert model_track(_model_path("./models/merged_hf_model"), named=["Qwen/Qwen2.5-0.5B"]) == "Qwen2.5-0.5B"
    assert model_track(_model_path("/m/Qwen3-4B"), named=["google/gemma-2-2b-it"]) == "Qwen3-4B"
    assert model_track(None, named=["/ckpt/x-sft/global_step_7"]) == "x-sft @7"
    assert model_track(_model_path("./models/merged_hf_model"), named=["./models/merged_hf_model"]) is None


def test_experiment_code_and_label() -> None:
    dapo = infer_algorithm(config_4b(filter_groups={"enable": True}))
    assert experiment_code("e2_dapo_4b") == "E2"
    assert experiment_code("E12-foo") == "E12"
    assert experiment_code("exp2card") is None
    assert experiment_code("实验一") is None
    assert experiment_label("e2_dapo_4b", dapo) == "E2 · DAPO"
    assert experiment_label("my run", dapo) == "my run · DAPO"
    assert experiment_label("e5", infer_algorithm(None)) == "E5"


def test_colors_are_stable_and_follow_the_code() -> None:
    assert experiment_color("4B/e2_dapo_4b") == PALETTE[1]
    assert experiment_color("2B/e2_dapo_2b") == PALETTE[1]
    assert experiment_color("e11_x") == PALETTE[10]
    assert experiment_color("e21_x") == PALETTE[0]
    assert experiment_color("运行 a") == experiment_color("运行 a")
    assert experiment_color("运行 a") in PALETTE


def test_model_track() -> None:
    assert model_track(config_4b()) == "Qwen3.5-4B"
    hf = {"actor_rollout_ref": {"model": {"path": "/hub/models--Qwen--Qwen2-7B-Instruct/snapshots/f282"}}}
    assert model_track(hf) == "Qwen2-7B-Instruct"
    assert model_track({"actor_rollout_ref": {"model": {"path": "Qwen/Qwen2.5-7B-Instruct/"}}}) == "Qwen2.5-7B-Instruct"
    assert model_track(None) is None
    assert model_track({"actor_rollout_ref": {"model": {"path": None}}}) is None


# ------------------------------------------------------------------------------------------------ settings


def test_settings_of_the_4b_track() -> None:
    settings = settings_by_key(extract_settings(config_4b()))
    displays = {key: item.display for key, item in settings.items()}
    assert displays["model"] == "Qwen3.5-4B"
    assert displays["gpus"] == "4 GPUs"
    assert settings["gpus"].value == 4
    assert displays["rollout_tp"] == "TP=4"
    assert displays["rollout_engine"] == "vllm"
    assert displays["param_offload"] == "off" and displays["optimizer_offload"] == "off"
    assert displays["thinking"] == "non-thinking" and settings["thinking"].value is False
    assert displays["max_response_length"] == "16K" and settings["max_response_length"].value == 16384
    assert displays["max_prompt_length"] == "2K"
    assert displays["batch"] == "32×8"
    assert displays["kl_loss"] == "on low_var_kl 0.001"
    assert displays["kl_loss_type"] == "low_var_kl"
    assert settings["kl_loss_coef"].value == 0.001
    assert displays["kl_in_reward"] == "off"
    assert displays["loss_agg_mode"] == "token-mean"
    assert displays["clip_ratio"] == "0.2/0.2"
    assert displays["lr"] == "1e-6"
    assert displays["test_freq"] == "25 steps"
    assert displays["save_freq"] == "50 steps"
    assert displays["total_steps"] == "150"
    assert displays["algorithm"] == "GRPO"
    for item in settings.values():
        assert item.group in SETTING_GROUPS
        assert item.label and item.display and item.path


def test_settings_are_grouped_in_order() -> None:
    groups = [item.group for item in extract_settings(config_4b())]
    assert groups == sorted(groups, key=SETTING_GROUPS.index)


def test_settings_of_dapo_and_missing_config() -> None:
    config = config_4b(filter_groups={"enable": True})
    config["actor_rollout_ref"]["actor"].update(clip_ratio_high=0.28, use_kl_loss=False)
    config["reward_model"] = {"overlong_buffer": {"enable": True}}
    settings = settings_by_key(extract_settings(config))
    assert settings["clip_ratio"].display == "0.2/0.28"
    assert settings["kl_loss"].display == "off" and "kl_loss_coef" not in settings
    assert settings["dynamic_sampling"].display == "on"
    assert settings["overlong_shaping"].display == "on"
    assert settings["algorithm"].display == "DAPO"
    assert extract_settings(None) == ()
    assert extract_settings({}) == ()


_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")


def test_setting_values_follow_the_language() -> None:
    """Values that hold words are translated; the English (``Setting.display``, the CLI's) is unchanged."""
    from rlmon.text import setting_display

    config = config_4b(filter_groups={"enable": True})
    config["trainer"].update(nnodes=2, save_freq=-1)
    config["actor_rollout_ref"]["model"]["enable_thinking"] = True
    settings = settings_by_key(extract_settings(config))
    chinese = {key: setting_display(item, "zh") for key, item in settings.items()}
    english = {key: setting_display(item, "en") for key, item in settings.items()}
    # 4 GPUs per node x 2 nodes; offload False; thinking True; test_freq 25; save_freq -1 (never)
    assert (chinese["gpus"], english["gpus"], settings["gpus"].display) == (
        "8 卡（2×4）",
        "8 GPUs (2×4)",
        "8 GPUs (2×4)",
    )
    assert (chinese["param_offload"], english["param_offload"]) == ("关闭", "off")
    assert (chinese["optimizer_offload"], english["optimizer_offload"]) == ("关闭", "off")
    assert (chinese["thinking"], english["thinking"]) == ("思考模式", "thinking")
    assert (chinese["dynamic_sampling"], english["dynamic_sampling"]) == ("开启", "on")
    assert (chinese["test_freq"], english["test_freq"]) == ("每 25 步", "25 steps")
    assert (chinese["save_freq"], english["save_freq"]) == ("关闭", "off")
    # KL loss low_var_kl 1e-3: the method's name and number stay as logged, the word around them is translated
    assert (chinese["kl_loss"], english["kl_loss"]) == ("开启 low_var_kl 0.001", "on low_var_kl 0.001")
    for key in ("gpus", "param_offload", "optimizer_offload", "thinking", "dynamic_sampling", "test_freq",
                "save_freq", "kl_in_reward", "norm_adv_by_std"):  # fmt: skip
        if key in chinese:
            assert not _LATIN_WORD.search(chinese[key]), (key, chinese[key])
    assert all(english[key] == item.display for key, item in settings.items())
    non_thinking = settings_by_key(extract_settings(config_4b()))["thinking"]
    assert (setting_display(non_thinking, "zh"), non_thinking.display) == ("非思考模式", "non-thinking")
    assert setting_display(None, "zh") == "–"


def test_settings_of_real_config_dumps(realdata_dir: Path) -> None:
    # gpg-qwen2-7b-fsdp: the set -x line 8 and the dump (lines 609-840).
    meta = read_log(realdata_dir / "gpg-qwen2-7b-fsdp-gsm8k-math-2025-06.log").meta
    gpg = settings_by_key(extract_settings(meta.config, total_steps=meta.total_steps))
    assert gpg["model"].display == "Qwen2-7B-Instruct"
    assert gpg["gpus"].value == 8 and gpg["gpus"].display == "8 GPUs"
    assert gpg["rollout_tp"].value == 2
    assert gpg["rollout_engine"].value == "vllm"
    assert gpg["max_prompt_length"].value == 1024 and gpg["max_response_length"].display == "1K"
    assert gpg["batch"].display == "1024×5"
    assert gpg["kl_loss"].value is False
    assert gpg["kl_in_reward"].value is False
    assert gpg["lr"].value == 1e-06
    assert gpg["test_freq"].value == 5 and gpg["save_freq"].value == 20
    assert gpg["total_epochs"].value == 15
    assert gpg["total_steps"].value == 210  # 'total_training_steps': None -> Total training steps: 210
    assert "thinking" not in gpg  # the config says nothing about thinking

    # dstack: 'n_gpus_per_node': 8, 'nnodes': 2 (lines 211-212), rollout n 1 (line 101), batch 256 (line 174).
    meta = read_log(realdata_dir / "dstack-ppo-qwen25-7b-resumed-2025-05.log").meta
    dstack = settings_by_key(extract_settings(meta.config, total_steps=meta.total_steps))
    assert dstack["gpus"].value == 16 and dstack["gpus"].display == "16 GPUs (2×8)"
    assert dstack["batch"].display == "256×1"
    assert dstack["max_response_length"].display == "256"
    assert dstack["total_steps"].value == 435

    # logicrl REINFORCE++: KL loss on, low_var_kl, 0.001 (lines 27, 28, 42).
    meta = read_log(realdata_dir / "logicrl-reinforce_plus_plus-raylet-warnings-2025-03.log").meta
    rpp = settings_by_key(extract_settings(meta.config))
    assert rpp["kl_loss"].display == "on low_var_kl 0.001"
    assert rpp["adv_estimator"].value == "reinforce_plus_plus"


def test_settings_diff_on_real_config_dumps(realdata_dir: Path) -> None:
    experiments = []
    for name in ("gpg-qwen2-7b-fsdp-gsm8k-math-2025-06.log", "dstack-ppo-qwen25-7b-resumed-2025-05.log"):
        meta = read_log(realdata_dir / name).meta
        experiments.append(make_experiment(name, extract_settings(meta.config, total_steps=meta.total_steps)))
    diffs = {diff.key: diff for diff in settings_diff(experiments)}
    for key in ("algorithm", "gpus", "rollout_tp", "max_prompt_length", "max_response_length", "batch"):
        assert key in diffs, key
    # Same in both dumps: lr 1e-06, token-mean, no param offload, KL loss off, 15 epochs.
    for key in ("lr", "loss_agg_mode", "param_offload", "kl_loss", "total_epochs", "clip_ratio"):
        assert key not in diffs, key
    gpus = diffs["gpus"]
    assert gpus.values == {
        "gpg-qwen2-7b-fsdp-gsm8k-math-2025-06.log": 8,
        "dstack-ppo-qwen25-7b-resumed-2025-05.log": 16,
    }
    assert gpus.group == "hardware"


def test_settings_diff_by_hand() -> None:
    grpo = config_4b()
    dapo = config_4b(filter_groups={"enable": True})
    dapo["actor_rollout_ref"]["actor"].update(clip_ratio_high=0.28, use_kl_loss=False)
    first = make_experiment("e1", extract_settings(grpo))
    second = make_experiment("e2", extract_settings(dapo))
    diffs = {diff.key: diff for diff in settings_diff([first, second])}
    assert set(diffs) == {"algorithm", "kl_loss", "kl_loss_type", "kl_loss_coef", "clip_ratio", "dynamic_sampling"}
    assert diffs["kl_loss_type"].displays == {"e1": "low_var_kl", "e2": "–"}
    assert diffs["clip_ratio"].displays == {"e1": "0.2/0.2", "e2": "0.2/0.28"}
    assert settings_diff([first]) == []
    assert settings_diff([first, make_experiment("e1b", extract_settings(grpo))]) == []


# ------------------------------------------------------------------------------------------ status/progress


def steps_frame(rows: dict[str, list[Any]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema_overrides={"step": pl.Int64}).with_columns(
        [pl.col(name).cast(pl.Float64) for name in rows if name != "step"]
    )


def progress(steps: pl.DataFrame, meta: RunMeta, *, idle_s: float, **options: float) -> Progress:
    now = 1_000_000.0
    return summarize_progress(steps, [meta], last_modified=now - idle_s, now=now, **options)


RUNNING_STEPS = {
    "step": [1, 2, 3],
    "actor/grad_norm": [0.2, 0.3, 0.25],
    "timing_s/step": [600.0, 1200.0, 900.0],
}


def test_running_with_times_and_eta() -> None:
    result = progress(steps_frame(RUNNING_STEPS), RunMeta(kind="rl", total_steps=10), idle_s=60)
    assert result.status == "running"
    assert (result.steps_done, result.total_steps) == (3, 10)
    assert result.missing_steps == ()
    assert math.isclose(result.elapsed_h or 0, 2700 / HOUR)
    assert math.isclose(result.mean_step_s or 0, 900.0)
    assert result.median_step_s == 900.0
    assert result.last_step_s == 900.0
    # 7 steps left x median 900 s = 1.75 h
    assert math.isclose(result.eta_h or 0, 1.75)
    assert result.idle_s == 60
    assert result.failure is None


def test_stalled_by_mtime() -> None:
    meta = RunMeta(kind="rl", total_steps=10)
    # 3 x median 900 s = 2700 s: one second more is a stall
    assert progress(steps_frame(RUNNING_STEPS), meta, idle_s=2701, stall_min_s=0).status == "stalled"
    assert progress(steps_frame(RUNNING_STEPS), meta, idle_s=2699, stall_min_s=0).status == "running"
    assert progress(steps_frame(RUNNING_STEPS), meta, idle_s=3700, stall_factor=5, stall_min_s=0).status == "running"
    # the floor: with 3 s steps, 30 s of silence is not yet a stall
    fast = steps_frame({"step": [1, 2], "timing_s/step": [3.0, 3.0]})
    assert progress(fast, meta, idle_s=30, stall_min_s=600).status == "running"
    assert progress(fast, meta, idle_s=601, stall_min_s=600).status == "stalled"
    stalled = progress(steps_frame(RUNNING_STEPS), meta, idle_s=5000, stall_min_s=0)
    assert stalled.eta_h is None


def test_finished_and_noise_after_the_end_is_not_a_crash() -> None:
    done = steps_frame({"step": [1, 2, 3], "actor/grad_norm": [0.1, 0.2, 0.3], "timing_s/step": [1.0, 2.0, 3.0]})
    meta = RunMeta(kind="rl", total_steps=3, failure="ray.exceptions.ActorDiedError: died", failure_kind="actor_died")
    result = progress(done, meta, idle_s=10**6)
    assert result.status == "finished"
    assert result.failure is None
    assert result.eta_h is None
    # "Final validation metrics" printed but the total is unknown
    result = progress(done, RunMeta(kind="rl", final_validation=True), idle_s=0)
    assert (result.status, result.steps_done, result.total_steps) == ("finished", 3, None)


def test_crashed_shows_the_failure() -> None:
    meta = RunMeta(kind="rl", total_steps=10, failure="ValueError: num_gen_batches=10 >= max_num_gen_batches=10.")
    result = progress(steps_frame(RUNNING_STEPS), meta, idle_s=10**6)
    assert result.status == "crashed"
    assert result.failure == "ValueError: num_gen_batches=10 >= max_num_gen_batches=10."
    assert result.eta_h is None


def test_not_started_then_stalled_before_the_first_step() -> None:
    empty = pl.DataFrame(schema={"step": pl.Int64})
    meta = RunMeta(kind="rl", total_steps=58, tqdm_n=0, tqdm_total=58)
    result = progress(empty, meta, idle_s=60)
    assert (result.status, result.steps_done, result.total_steps) == ("not started", 0, 58)
    assert result.elapsed_h is None and result.mean_step_s is None
    # without a step time the threshold is stall_factor x stall_min_s = 3 x 600 s
    assert progress(empty, meta, idle_s=1799).status == "not started"
    assert progress(empty, meta, idle_s=1801).status == "stalled"


def test_zero_based_v01_steps() -> None:
    steps = steps_frame({"step": [0, 1, 2], "critic/kl": [0.0, 0.1, 0.2], "timing/step": [10.0, 20.0, 30.0]})
    meta = RunMeta(kind="rl", zero_based=True, total_steps=3)
    result = progress(steps, meta, idle_s=0)
    assert (result.status, result.steps_done) == ("finished", 3)
    assert math.isclose(result.elapsed_h or 0, 60 / HOUR)
    running = progress(steps, RunMeta(kind="rl", zero_based=True, total_steps=10), idle_s=0)
    assert running.steps_done == 3 and running.status == "running"


def test_v02_validation_only_final_line_counts_as_finished() -> None:
    steps = steps_frame(
        {
            "step": [1, 2, 3],
            "actor/grad_norm": [0.1, 0.2, None],
            "val/test_score/openai/gsm8k": [None, None, 0.697],
            "timing_s/step": [5.0, 5.0, None],
        }
    )
    result = progress(steps, RunMeta(kind="rl", total_steps=3), idle_s=10**6)
    assert (result.status, result.steps_done, result.missing_steps) == ("finished", 3, ())
    assert result.last_step == 2


def test_missing_steps_inside_the_range() -> None:
    steps = steps_frame({"step": [0, 3, 4, 6, 7], "actor/grad_norm": [None, 0.1, 0.1, 0.1, 0.1],
                         "val-core/a/acc/mean@1": [0.5, None, None, None, None]})  # fmt: skip
    result = progress(steps, RunMeta(kind="rl", total_steps=10), idle_s=0)
    # the step-0 line is validation only: the training range is 3..7
    assert result.first_step == 3 and result.last_step == 7
    assert result.missing_steps == (5,)
    assert result.steps_done == 7


def test_training_rows_ignore_validation_only_lines() -> None:
    steps = steps_frame(
        {"step": [0, 1, 2], "val-core/a/acc/mean@1": [0.5, None, 0.6], "actor/pg_loss": [None, 0.1, 0.2]}
    )
    assert training_rows(steps).get_column("step").to_list() == [1, 2]


def test_training_rows_keep_every_row_when_one_training_key_has_a_value_in_each() -> None:
    steps = steps_frame({"step": [1, 2, 3], "actor/pg_loss": [0.1, 0.2, 0.3], "actor/kl_loss": [None, None, 0.5],
                         "val-core/a/acc/mean@1": [None, 0.4, None]})  # fmt: skip
    assert training_rows(steps).get_column("step").to_list() == [1, 2, 3]


def test_training_rows_a_row_with_no_training_value_in_any_key_is_left_out() -> None:
    # every training key misses a value somewhere, in different rows; only step 2 has none at all
    steps = steps_frame({"step": [1, 2, 3], "actor/pg_loss": [0.1, None, None], "actor/kl_loss": [None, None, 0.5],
                         "val-core/a/acc/mean@1": [None, 0.4, None]})  # fmt: skip
    assert training_rows(steps).get_column("step").to_list() == [1, 3]


# ---------------------------------------------------------------------------------------- real logs, status


def real_progress(path: Path, *, idle_s: float) -> Progress:
    parsed = read_log(path)
    mtime = path.stat().st_mtime
    return summarize_progress(parsed.steps, [parsed.meta], last_modified=mtime, now=mtime + idle_s)


@pytest.mark.parametrize(
    ("name", "failure"),
    [
        ("maze-ppo-main_task-crash-2025-03.log", "NotImplementedError"),  # line 293
        ("logicrl-grpo-main_task-startup-crash-2025-02.log",
         "AssertionError: failed to get register_center_actor: V9zrH5_register_center in []"),  # line 268
        ("selfplay-grpo-config-error-startup-2025.log", "omegaconf.errors.ConfigAttributeError: Missing key enable"),
    ],
)  # fmt: skip
def test_real_crashes(realdata_dir: Path, name: str, failure: str) -> None:
    result = real_progress(realdata_dir / name, idle_s=10**7)
    assert result.status == "crashed"
    assert result.failure == failure
    assert result.steps_done == 0


def test_real_finished_runs(realdata_dir: Path) -> None:
    # GPG: steps 1..210 of "Total training steps: 210", then worker-died/segfault noise (not a crash).
    gpg = real_progress(realdata_dir / "gpg-qwen2-7b-fsdp-gsm8k-math-2025-06.log", idle_s=10**7)
    assert (gpg.status, gpg.steps_done, gpg.total_steps, gpg.missing_steps) == ("finished", 210, 210, ())
    assert gpg.failure is None
    # the first three timing_s/step values of the log: 252.485, 238.206, 235.568
    assert gpg.elapsed_h is not None and gpg.elapsed_h > (252.485 + 238.206 + 235.568) / HOUR
    # v0.1, 0-based: steps 0..434 of 29 batches x 15 epochs.
    v01 = real_progress(realdata_dir / "ehl-qwen25-05b-ppo-gsm8k-v0.1-2024-12.log", idle_s=10**7)
    assert (v01.status, v01.steps_done, v01.total_steps) == ("finished", 435, 435)
    # resumed at 100: steps 101..435, nothing missing inside.
    resumed = real_progress(realdata_dir / "dstack-ppo-qwen25-7b-resumed-2025-05.log", idle_s=10**7)
    assert (resumed.status, resumed.steps_done, resumed.first_step, resumed.missing_steps) == (
        "finished", 435, 101, ()
    )  # fmt: skip
    # v0.2: training to step 1119, then the val-only line step:1120 after "Final validation metrics".
    amd = real_progress(realdata_dir / "amd-mi300-deepseek7b-grpo-gsm8k-2025-03.log", idle_s=10**7)
    assert (amd.status, amd.steps_done, amd.last_step) == ("finished", 1120, 1119)


def test_real_stalled_at_step_zero(realdata_dir: Path) -> None:
    path = realdata_dir / "tpu-xla-ppo-stalled-at-step0-2025-07.log"  # ends at "0/58 [07:16<?, ?it/s]"
    fresh = real_progress(path, idle_s=30)
    assert (fresh.status, fresh.steps_done, fresh.total_steps) == ("not started", 0, 58)
    assert real_progress(path, idle_s=4 * HOUR).status == "stalled"


def test_real_running_without_step_lines(realdata_dir: Path) -> None:
    # trainer.logger=['wandb']: no step lines; tqdm reached 33/15625.
    walar = real_progress(realdata_dir / "walar-grpo-wandb-only-no-step-lines-2025-06.log", idle_s=30)
    assert (walar.status, walar.steps_done, walar.total_steps) == ("running", 33, 15625)


@pytest.mark.parametrize(
    ("tail", "failure"),
    [
        (["(raylet) A worker died or was killed while executing a task by an unexpected system error.",
          "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task."],
         "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task."),
        (["(TaskRunner pid=11) ValueError: num_gen_batches=10 >= max_num_gen_batches=10. Generated too many. "
          "Please check your data."],
         "ValueError: num_gen_batches=10 >= max_num_gen_batches=10. Generated too many. Please check your data."),
        (["Error executing job with overrides: ['a=b']", "Traceback (most recent call last):",
          '  File "x.py", line 1, in <module>', "RuntimeError: CUDA out of memory", "",
          "Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace."],
         "RuntimeError: CUDA out of memory"),
        (["ray.exceptions.RayTaskError(ZeroDivisionError): ray::TaskRunner.run() (pid=1, ip=1.2.3.4)",
          "ZeroDivisionError: division by zero"],
         "ZeroDivisionError: division by zero"),
    ],
)  # fmt: skip
def test_crash_signatures_after_some_steps(tail: list[str], failure: str) -> None:
    prefix = "(TaskRunner pid=11) "
    lines = [
        prefix + "Total training steps: 10",
        prefix + "step:1 - actor/grad_norm:0.1 - timing_s/step:100.0",
        prefix + "step:2 - actor/grad_norm:0.2 - timing_s/step:100.0",
        *tail,
    ]
    parsed = parse_log_text("\n".join(lines) + "\n")
    result = summarize_progress(parsed.steps, [parsed.meta], last_modified=0.0, now=10.0)
    assert (result.status, result.steps_done, result.failure) == ("crashed", 2, failure)


def test_real_v01_elapsed_from_phases(realdata_dir: Path) -> None:
    parsed = read_log(realdata_dir / "ehl-qwen25-05b-ppo-gsm8k-v0.1-2024-12.log")
    first_step = parsed.steps.filter(pl.col("step") == 0)
    result = summarize_progress(first_step, [parsed.meta], last_modified=0.0, now=0.0)
    # step:0 line: gen 18.859 + ref 5.501 + values 5.664 + adv 0.058 + update_critic 16.185 + update_actor 20.611
    assert result.last_step_s == pytest.approx(18.859 + 5.501 + 5.664 + 0.058 + 16.185 + 20.611)
    whole = summarize_progress(parsed.steps, [parsed.meta], last_modified=0.0, now=0.0)
    assert whole.elapsed_h is not None and whole.elapsed_h > 0


# ------------------------------------------------------------------------------- colours, tracks, first screen


def _srgb_to_lab(color: str) -> tuple[float, float, float]:
    """CIE L*a*b* (D65) of ``#rrggbb``."""
    channels = [int(color[index : index + 2], 16) / 255 for index in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def _ciede2000(lab1: tuple[float, float, float], lab2: tuple[float, float, float]) -> float:
    """CIEDE2000 colour difference (Sharma, Wu & Dalal 2005)."""
    (l1, a1, b1), (l2, a2, b2) = lab1, lab2
    c_bar = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_bar**7 / (c_bar**7 + 25**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if c2p else 0.0
    dh = 0.0
    if c1p * c2p:
        dh = h2p - h1p
        dh = dh - 360 if dh > 180 else dh + 360 if dh < -180 else dh
    d_big_h = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh / 2))
    l_bar, cp_bar = (l1 + l2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        h_bar = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        h_bar = (h1p + h2p) / 2
    else:
        h_bar = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (
        1
        - 0.17 * math.cos(math.radians(h_bar - 30))
        + 0.24 * math.cos(math.radians(2 * h_bar))
        + 0.32 * math.cos(math.radians(3 * h_bar + 6))
        - 0.20 * math.cos(math.radians(4 * h_bar - 63))
    )
    d_theta = 30 * math.exp(-(((h_bar - 275) / 25) ** 2))
    r_c = 2 * math.sqrt(cp_bar**7 / (cp_bar**7 + 25**7))
    s_l = 1 + 0.015 * (l_bar - 50) ** 2 / math.sqrt(20 + (l_bar - 50) ** 2)
    s_c, s_h = 1 + 0.045 * cp_bar, 1 + 0.015 * cp_bar * t
    r_t = -math.sin(math.radians(2 * d_theta)) * r_c
    terms = ((l2 - l1) / s_l, (c2p - c1p) / s_c, d_big_h / s_h)
    return math.sqrt(terms[0] ** 2 + terms[1] ** 2 + terms[2] ** 2 + r_t * terms[1] * terms[2])


def test_ciede2000_matches_the_published_test_data() -> None:
    # Sharma, Wu & Dalal (2005), table 1, pairs 1 and 25
    assert _ciede2000((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485)) == pytest.approx(2.0425, abs=1e-4)
    assert _ciede2000((50.0, 2.5, 0.0), (73.0, 25.0, -18.0)) == pytest.approx(27.1492, abs=1e-4)


def test_palette_has_twenty_distinguishable_colours() -> None:
    assert len(PALETTE) >= 20
    assert len({color.lower() for color in PALETTE}) == len(PALETTE)
    labs = [_srgb_to_lab(color) for color in PALETTE]
    closest = min(
        (_ciede2000(labs[i], labs[j]), PALETTE[i], PALETTE[j])
        for i in range(len(labs))
        for j in range(i + 1, len(labs))
    )
    # the closest pair is Tableau-10's own red and pink
    assert closest[0] >= 15, closest
    assert closest[1:] == ("#e45756", "#ff9da6")


def colored(experiment_id: str, track: str, *, order: int = 10_000, hidden: bool = False, **fields: Any) -> Experiment:
    experiment = make_experiment(experiment_id, ())
    experiment.track, experiment.order, experiment.hidden = track, order, hidden
    for name, value in fields.items():
        setattr(experiment, name, value)
    return experiment


def test_assign_colors_keeps_experiments_of_two_tracks_apart() -> None:
    runs = [
        colored("4B/e2_dapo", "Qwen3.5-4B", order=2),
        colored("4B/e1_grpo", "Qwen3.5-4B", order=1),
        colored("2B/e1_grpo", "Qwen3.5-2B", order=1),
        colored("2B/e2_dapo", "Qwen3.5-2B", order=2),
    ]
    colors = assign_colors(runs)
    # 2B sorts first and keeps E1 -> colour 0, E2 -> colour 1; 4B's E1 and E2 get the next free ones
    assert colors == {
        "2B/e1_grpo": "#4c78a8",
        "2B/e2_dapo": "#f58518",
        "4B/e1_grpo": "#54a24b",
        "4B/e2_dapo": "#e45756",
    }
    assert assign_colors(list(reversed(runs))) == colors  # reading order does not matter


def test_assign_colors_lets_a_fixed_colour_win_and_keeps_it_for_its_owner() -> None:
    runs = [colored("a/e1", "A", order=1), colored("a/e2", "A", order=2), colored("b/e1", "B", order=1)]
    colors = assign_colors(runs, fixed={"a/e2": "#4C78A8"})  # E2 takes E1's usual colour
    assert colors["a/e2"] == "#4C78A8"
    assert colors["a/e1"] == "#f58518"  # colour 0 is taken: the first free palette colour
    assert colors["b/e1"] == "#54a24b"
    assert len(set(colors.values())) == 3


def test_assign_colors_serves_shown_before_hidden_and_repeats_past_the_palette() -> None:
    hidden = colored("a/e1", "A", order=1, hidden=True)
    shown = colored("b/e1", "B", order=1)
    assert assign_colors([hidden, shown]) == {"b/e1": "#4c78a8", "a/e1": "#f58518"}
    many = [colored(f"run{index:02d}", "T", order=index) for index in range(22)]
    colors = assign_colors(many)
    assert len(set(colors.values())) == 20
    assert len(set(colors.values())) == len(PALETTE)


def test_assign_colors_with_previous_colours_an_experiment_that_starts_without_moving_the_others() -> None:
    runs = [colored(f"{track}/e{n}_grpo", track, order=n) for track in ("2B", "4B") for n in range(1, 5)]
    before = assign_colors(runs)
    # 2B's E1-E4 keep colours 0-3; 4B's E1-E4 take the next free ones, 4-7
    assert [before[f"4B/e{n}_grpo"] for n in range(1, 5)] == list(PALETTE[4:8])
    started = [*runs, colored("2B/e5_grpo", "2B", order=5)]
    # Without the colours handed out before, 2B's E5 takes its own colour 4 and 4B's runs all move by one.
    assert assign_colors(started)["4B/e1_grpo"] == PALETTE[5]
    after = assign_colors(started, previous=before)
    assert {key: after[key] for key in before} == before
    assert after["2B/e5_grpo"] == PALETTE[8]  # its own colour 4 is 4B E1's: the first free one
    # one that goes away gives its colour back to whoever needs one, and moves no one either
    gone = assign_colors([run for run in started if run.id != "4B/e1_grpo"], previous=after)
    assert {key: value for key, value in after.items() if key != "4B/e1_grpo"} == gone


def test_assign_colors_lets_a_fixed_colour_win_over_a_previous_one() -> None:
    runs = [colored("a/e1", "A", order=1), colored("a/e2", "A", order=2)]
    previous = {"a/e1": PALETTE[0], "a/e2": PALETTE[1]}
    colors = assign_colors(runs, fixed={"a/e2": PALETTE[0]}, previous=previous)
    # a/e1's colour 0 goes to a/e2; a/e2's former colour 1 is free again and is the first free one
    assert colors == {"a/e2": PALETTE[0], "a/e1": PALETTE[1]}


def test_short_track_names() -> None:
    assert short_track_names(["Qwen3.5-4B", "Qwen3.5-2B"]) == {"Qwen3.5-4B": "4B", "Qwen3.5-2B": "2B"}
    assert short_track_names(["Qwen2.5-7B-Instruct", "Qwen2.5-3B-Instruct"]) == {
        "Qwen2.5-7B-Instruct": "7B",
        "Qwen2.5-3B-Instruct": "3B",
    }
    # "Qwen2" is common but does not end at a separator; "-7B" is a common suffix that does
    assert short_track_names(["Qwen2-7B", "Qwen2.5-7B"]) == {"Qwen2-7B": "Qwen2", "Qwen2.5-7B": "Qwen2.5"}
    unrelated = ["Qwen2-7B-Instruct", "deepseek-llm-7b-chat", "unknown model"]
    assert short_track_names(unrelated) == {name: name for name in unrelated}
    # one is the other plus a part
    assert short_track_names(["Qwen3.5-4B", "Qwen3.5-4B-Base"]) == {"Qwen3.5-4B": "4B", "Qwen3.5-4B-Base": "4B-Base"}
    # prefix "x-" and suffix "-1" would leave "x-1" with nothing: full names
    assert short_track_names(["x-1", "x-1-1"]) == {"x-1": "x-1", "x-1-1": "x-1-1"}
    assert short_track_names(["a", "a"]) == {"a": "a"}
    assert short_track_names([]) == {}


def test_default_track() -> None:
    day = 86_400.0
    old_pair = [
        colored("2B/e1", "2B", steps_done=150, last_modified=1 * day),
        colored("2B/e2", "2B", steps_done=150, last_modified=2 * day),
    ]
    new_pair = [
        colored("4B/e1", "4B", steps_done=150, last_modified=3 * day),
        colored("4B/e5", "4B", steps_done=21, last_modified=5 * day),
    ]
    crashed_newest = [colored("maze/run", "maze", steps_done=0, last_modified=9 * day, status="crashed")]
    assert default_track(old_pair + new_pair) == "4B"
    # the newest log is a crash without steps: its track has nothing to compare, the newest track that has wins
    assert default_track(old_pair + new_pair + crashed_newest) == "4B"
    # one run with steps and one without is not a comparison
    lone = [
        colored("4B/e1", "4B", steps_done=3, last_modified=8 * day),
        colored("4B/e2", "4B", steps_done=0, last_modified=9 * day),
    ]
    assert default_track([*old_pair, *lone]) == "2B"
    # every track holds one run: all tracks (None)
    singles = [
        colored(f"m{index}/run", f"model-{index}", steps_done=10, last_modified=index * day) for index in range(4)
    ]
    assert default_track(singles) is None
    assert default_track(old_pair) is None  # one track: all tracks is the same thing
    assert default_track([]) is None


def test_view_styles_give_way_on_a_colour_another_view_kept() -> None:
    # Past 20 experiments the catalog repeats colours (as colors.json then keeps them): in one view, the first in
    # the view's order keeps the colour, the next takes the first palette colour no one in the view has.
    runs = [
        colored("a/e1", "A", order=1, color=PALETTE[2]),
        colored("a/e2", "A", order=2, color=PALETTE[2]),  # the same colour, handed out in another view
        colored("a/e3", "A", order=3, color=PALETTE[0]),
    ]
    assert view_styles(runs) == {"a/e1": (PALETTE[2], 0), "a/e2": (PALETTE[1], 0), "a/e3": (PALETTE[0], 0)}
    # a colour rlmon.toml sets is kept whatever the view: the other run gives way, though first in the view
    assert view_styles(runs, fixed={"a/e2"})["a/e2"] == (PALETTE[2], 0)
    assert view_styles(runs, fixed={"a/e2"})["a/e1"] == (PALETTE[1], 0)
    # without a collision nothing moves (the catalog's colours are the view's)
    apart = [colored(f"b/e{n}", "B", order=n, color=PALETTE[n]) for n in range(5)]
    assert view_styles(apart) == {f"b/e{n}": (PALETTE[n], 0) for n in range(5)}


def test_view_styles_past_the_palette_differ_in_dash() -> None:
    runs = [colored(f"run{index:02d}", "T", order=index, color=PALETTE[index % 20]) for index in range(45)]
    styles = view_styles(runs)
    assert len(set(styles.values())) == 45  # never a colour and a dash twice
    assert [styles[f"run{index:02d}"] for index in range(20)] == [(color, 0) for color in PALETTE]
    assert [styles[f"run{index:02d}"] for index in range(20, 40)] == [(color, 1) for color in PALETTE]
    assert {dash for color, dash in styles.values()} == {0, 1, 2}
    assert len(DASH_PATTERNS) == 4 and DASH_PATTERNS[0] == (1, 0)  # solid first
