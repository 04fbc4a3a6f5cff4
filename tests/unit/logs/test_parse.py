"""Parser cases built from the formatter rules (verl-log-format.md §1.1, §1.2, §2, §3, §5-§8).

These cover what no real log in ``../shared/realdata/verl`` shows (numpy-2 wrappers, the V1 trainer, glued
output, keys with ``:``, ``rollout_corr/*``, DAPO lines, ...). Every expected value is read off the case text.
Multi-line cases live in ``tests/data/`` (first line: which format rule they were built from).
"""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from rlmon.logs.cache import read_log
from rlmon.logs.parse import MetaCollector, ParsedLog, parse_jsonl_bytes, parse_log_bytes, parse_log_text
from tests.helpers.paths import DATA

INF = math.inf
NAN = math.nan


# --- helpers ------------------------------------------------------------------------------------------------
def parse_file(name: str) -> ParsedLog:
    return parse_log_bytes((DATA / name).read_bytes())


def row(steps: pl.DataFrame, step: int) -> dict[str, Any]:
    """The one row of ``step`` as a dict (fails when the step is missing or repeated)."""
    rows = steps.filter(pl.col("step") == step).to_dicts()
    assert len(rows) == 1, f"step {step}: {len(rows)} rows"
    return rows[0]


def same(actual: Any, expected: Any) -> bool:
    """Exact equality where NaN equals NaN (and only NaN)."""
    if isinstance(expected, float) and math.isnan(expected):
        return isinstance(actual, float) and math.isnan(actual)
    return bool(actual == expected) and type(actual) is type(expected)


def assert_row(steps: pl.DataFrame, step: int, expected: dict[str, Any]) -> None:
    got = row(steps, step)
    wrong = {
        key: (got.get(key, "<missing column>"), want) for key, want in expected.items() if not same(got.get(key), want)
    }
    assert not wrong, f"step {step}: (got, expected) {wrong}"


def assert_contract(steps: pl.DataFrame) -> None:
    """The step-frame contract of rlmon/schema.py."""
    assert steps.columns[0] == "step"
    assert steps.schema["step"] == pl.Int64()
    others = {name: dtype for name, dtype in steps.schema.items() if name != "step"}
    assert all(dtype == pl.Float64() for dtype in others.values()), others
    values = steps["step"].to_list()
    assert values == sorted(set(values)), "one row per step, sorted"


# --- §1.1 value formats ---------------------------------------------------------------------------------------
def test_numpy2_wrappers_mixed_with_plain_values() -> None:
    line = (
        "(TaskRunner pid=2001) step:1 - critic/score/mean:0.558 - actor/pg_loss:np.float64(-0.0006611689302644663)"
        " - actor/entropy:np.float32(0.25) - training/global_step:1 - num_turns/min:np.int64(2) - flag:True"
        " - other_flag:False - actor/grad_norm:nan - x:inf - y:-inf - actor/lr:1e-06 - np_nan:np.float64(nan)"
        " - np_inf:np.float64(inf) - np_neg_inf:np.float64(-inf) - actor/kl_loss:np.float64(6.183079727109635e-10)"
        " - response_length/mean:0.3159233629703522 - global_seqlen/min:17066 - tool_call_counts/max:np.int64(-3)\n"
    )
    parsed = parse_log_text(line)
    assert_contract(parsed.steps)
    assert parsed.steps.height == 1
    assert_row(
        parsed.steps,
        1,
        {
            "critic/score/mean": 0.558,
            "actor/pg_loss": -0.0006611689302644663,
            "actor/entropy": 0.25,
            "training/global_step": 1.0,
            "num_turns/min": 2.0,
            "flag": 1.0,
            "other_flag": 0.0,
            "actor/grad_norm": NAN,
            "x": INF,
            "y": -INF,
            "actor/lr": 1e-06,
            "np_nan": NAN,
            "np_inf": INF,
            "np_neg_inf": -INF,
            "actor/kl_loss": 6.183079727109635e-10,
            "response_length/mean": 0.3159233629703522,
            "global_seqlen/min": 17066.0,
            "tool_call_counts/max": -3.0,
        },
    )
    assert parsed.steps.width == 1 + 18
    assert parsed.meta.kind == "rl"


def test_three_decimal_era_line() -> None:
    line = (
        "\x1b[36m(TaskRunner pid=678203)\x1b[0m step:4 - critic/score/mean:0.558 - actor/pg_loss:-0.001"
        " - actor/entropy:0.250 - training/global_step:4.000 - flag:1.000 - actor/grad_norm:nan - x:inf"
        " - actor/lr:0.000 - actor/ppo_kl:-0.000 - timing_s/step:12.345 - critic/kl:-inf\n"
    )
    steps = parse_log_text(line).steps
    assert_contract(steps)
    assert_row(
        steps,
        4,
        {
            "critic/score/mean": 0.558,
            "actor/pg_loss": -0.001,
            "actor/entropy": 0.25,
            "training/global_step": 4.0,
            "flag": 1.0,
            "actor/grad_norm": NAN,
            "x": INF,
            "actor/lr": 0.0,
            "actor/ppo_kl": 0.0,
            "timing_s/step": 12.345,
            "critic/kl": -INF,
        },
    )
    assert math.copysign(1.0, row(steps, 4)["actor/ppo_kl"]) == -1.0, "-0.000 keeps its sign"


def test_formatter_reference_lines_from_the_format_doc() -> None:
    parsed = parse_file("formatter_reference_lines.log")
    assert_contract(parsed.steps)
    assert parsed.steps["step"].to_list() == [1, 2]
    assert_row(
        parsed.steps,
        1,
        {
            "critic/score/mean": 0.558,
            "actor/pg_loss(np.float64)": -0.001,
            "actor/entropy(np.float32)": 0.25,
            "training/global_step(int)": 1.0,
            "num_turns/min(np.int64)": 2.0,
            "flag(bool)": 1.0,
            "actor/grad_norm(nan)": NAN,
            "x(inf)": INF,
            "actor/lr": 0.0,
            "np_nan": NAN,
        },
    )
    assert_row(
        parsed.steps,
        2,
        {
            "critic/score/mean": 0.558,
            "actor/pg_loss(np.float64)": -0.0006611689302644663,
            "actor/entropy(np.float32)": 0.25,
            "training/global_step(int)": 1.0,
            "num_turns/min(np.int64)": 2.0,
            "flag(bool)": 1.0,
            "actor/grad_norm(nan)": NAN,
            "x(inf)": INF,
            "actor/lr": 1e-06,
            "np_nan": NAN,
        },
    )
    assert parsed.steps.width == 1 + 10


# --- §2.1/§2.2 prefixes and colour codes -------------------------------------------------------------------
PREFIXES = [
    "",
    "(main_task pid=54569) ",
    "(TaskRunner pid=678203) ",
    "(TaskRunnerV1 pid=1) ",
    "(WorkerDict pid=679241) ",
    "(WorkerDict pid=1609, ip=172.26.135.50) ",
    "(wiQkzJWorkerDict_0:0 WorkerDict pid=934604) ",
    "(VGNd5CWorkerDict_0:0 WorkerDict pid=12) ",
    "(FusedWorker_actor_rollout_critic pid=7) ",
    "(raylet) ",
    "(raylet, ip=10.1.2.3) ",
    "(pid=19740) ",
    "(pid=) ",
    "(vLLMHttpServer pid=1465793) (Worker pid=1467019) ",
    "\x1b[36m(TaskRunner pid=20910)\x1b[0m ",
    "\x1b[2m\x1b[36m(main_task pid=54569)\x1b[0m ",
    "\x1b[33m(raylet)\x1b[0m ",
    "\x1b[36m(WorkerDict pid=1609, ip=172.26.135.50)\x1b[0m ",
]


@pytest.mark.parametrize("prefix", PREFIXES, ids=[repr(prefix) for prefix in PREFIXES])
def test_every_ray_prefix_form(prefix: str) -> None:
    text = (
        "noise before\n"
        f"{prefix}step:7 - actor/pg_loss:np.float64(-0.5) - critic/score/mean:0.25 - training/global_step:7\n"
        f"{prefix}some worker message: step 7 done\n"
    )
    steps = parse_log_text(text).steps
    assert steps.columns == ["step", "actor/pg_loss", "critic/score/mean", "training/global_step"]
    assert_row(steps, 7, {"actor/pg_loss": -0.5, "critic/score/mean": 0.25, "training/global_step": 7.0})


# --- §2.3 carriage returns, glued text -----------------------------------------------------------------------
def test_tqdm_redraws_and_text_glued_before_a_step_line() -> None:
    data = (
        b"\x1b[36m(TaskRunner pid=20910)\x1b[0m \rTraining Progress:   0%|          | 0/5 [00:00<?, ?it/s]"
        b"\rTraining Progress:  20%|\xe2\x96\x88\xe2\x96\x88        | 1/5 [00:03<00:12, 3.00s/it]"
        b"step:1 - critic/score/mean:0.5 - timing_s/step:3.0\n"
        b"Epoch 1/3:  83%|#####  | 29/35 [06:26<01:19, 13.17s/it]step:2 - critic/score/mean:0.625\r\n"
        b"\x1b[36m(TaskRunner pid=20910)\x1b[0m \rTraining Progress:  40%|    | 2/5 [00:06<00:09, 3.00s/it]\r"
        b"\x1b[36m(TaskRunner pid=20910)\x1b[0m step:3 - critic/score/mean:0.75\r"
        b"Training Progress:  60%|    | 3/5 [00:09<00:06, 3.00s/it]"
    )
    parsed = parse_log_bytes(data)
    assert_contract(parsed.steps)
    assert parsed.steps.columns == ["step", "critic/score/mean", "timing_s/step"]
    assert_row(parsed.steps, 1, {"critic/score/mean": 0.5, "timing_s/step": 3.0})
    assert_row(parsed.steps, 2, {"critic/score/mean": 0.625, "timing_s/step": None})
    assert_row(parsed.steps, 3, {"critic/score/mean": 0.75})
    assert (parsed.meta.tqdm_n, parsed.meta.tqdm_total) == (3, 5)


def test_another_process_glued_after_a_step_line() -> None:
    text = (
        "(TaskRunnerV1 pid=1) step:4 - actor/loss:np.float64(0.5) - off_policy/min:np.int64(0)"
        "(TaskRunnerV1 pid=1) INFO:2026-09-11 10:00:00,000:update_weights done, time cost: 0.72s\n"
        "(TaskRunner pid=9) step:5 - a:0.5(WorkerDict pid=7, ip=10.0.0.2) WARNING 07-01 15:09:40 [cuda.py:93] x:1\n"
        "(TaskRunner pid=9) step:6 - a:np.float32(0.75)\x1b[36m(WorkerDict pid=7)\x1b[0m step:60 - a:9\n"
        "(TaskRunner pid=9) step:8 - a:1.5 - b:True(pid=) oops\n"
        "(TaskRunner pid=9) step:9 - a:2.5 - b:False(wiQkzJWorkerDict_0:0 WorkerDict pid=934604) [rank0]: hi\n"
    )
    steps = parse_log_text(text).steps
    assert_contract(steps)
    assert steps["step"].to_list() == [4, 5, 6, 8, 9]
    assert set(steps.columns) == {"step", "actor/loss", "off_policy/min", "a", "b"}
    assert_row(steps, 4, {"actor/loss": 0.5, "off_policy/min": 0.0, "a": None})
    assert_row(steps, 5, {"a": 0.5})
    assert_row(steps, 6, {"a": 0.75})
    assert_row(steps, 8, {"a": 1.5, "b": 1.0})
    assert_row(steps, 9, {"a": 2.5, "b": 0.0})


# --- §1.2 keys and traps ----------------------------------------------------------------------------------------
def test_keys_with_colon_parenthesis_at_and_dot() -> None:
    text = (
        "step:3 - val-core/Hothan/OlympiadBench:OE_MM_maths_en_COMP/acc/mean@1:np.float64(0.25)"
        " - actor/lr(1e-4):0.010 - val-core/aime24/acc/maj@32/mean:0.5"
        " - val-aux/my.data-set:v2/score/best@4/std:0.125 - timing_s/agent_loop.slow:1.5"
        " - a:b:c:-2.0\n"
    )
    steps = parse_log_text(text).steps
    assert steps.columns == [
        "step",
        "val-core/Hothan/OlympiadBench:OE_MM_maths_en_COMP/acc/mean@1",
        "actor/lr(1e-4)",
        "val-core/aime24/acc/maj@32/mean",
        "val-aux/my.data-set:v2/score/best@4/std",
        "timing_s/agent_loop.slow",
        "a:b:c",
    ]
    assert row(steps, 3) == {
        "step": 3,
        "val-core/Hothan/OlympiadBench:OE_MM_maths_en_COMP/acc/mean@1": 0.25,
        "actor/lr(1e-4)": 0.01,
        "val-core/aime24/acc/maj@32/mean": 0.5,
        "val-aux/my.data-set:v2/score/best@4/std": 0.125,
        "timing_s/agent_loop.slow": 1.5,
        "a:b:c": -2.0,
    }


def test_global_step_and_timing_step_are_not_step_markers() -> None:
    text = (
        "(TaskRunner pid=1) step:2 - training/global_step:2 - timing/step:9 - x:1.0 - timing_s/step:4.5\n"
        # a hard-wrapped paste: the continuation holds `training/global_step:7 - ` but no step record
        "  training/global_step:7 - training/epoch:1\n"
        "timing/step:8 - x:3.0\n"
        "local_global_step_folder: checkpoints/run/global_step_20\n"
        "(TaskRunner pid=1) mystep:11 - x:5.0\n"
        "(TaskRunner pid=1) n_step:12 - x:5.0\n"
    )
    parsed = parse_log_text(text)
    assert parsed.steps["step"].to_list() == [2]
    assert_row(parsed.steps, 2, {"training/global_step": 2.0, "timing/step": 9.0, "x": 1.0, "timing_s/step": 4.5})
    assert parsed.meta.step_lines == 1


# --- §1.2 merging -------------------------------------------------------------------------------------------------
def test_same_step_on_several_lines_and_out_of_order() -> None:
    text = "step:2 - a:1.0 - b:2.0\nstep:1 - a:0.5\nnoise\nstep:2 - a:3.0 - c:4.0\nstep:0 - c:-1.0\nstep:2 - c:nan\n"
    parsed = parse_log_text(text)
    steps = parsed.steps
    assert_contract(steps)
    assert steps["step"].to_list() == [0, 1, 2]
    assert set(steps.columns) == {"step", "a", "b", "c"}
    assert_row(steps, 0, {"a": None, "b": None, "c": -1.0})
    assert_row(steps, 1, {"a": 0.5, "b": None, "c": None})
    # later line wins per key (NaN is a logged value and wins too); b, absent later, keeps its value
    assert_row(steps, 2, {"a": 3.0, "b": 2.0, "c": NAN})
    assert parsed.meta.step_lines == 5
    assert (parsed.meta.first_step, parsed.meta.last_step) == (0, 2)


def test_merge_with_many_identical_key_sequences() -> None:
    # many lines with one key sequence (the common case), repeated steps among them
    lines = [f"step:{n} - a:{n}.5 - b:{n}" for n in range(1, 11)]
    lines += [f"step:{n} - a:-{n}.25 - b:{n}0" for n in (3, 7)]
    lines += ["step:5 - b:np.int64(555)"]
    steps = parse_log_text("\n".join(lines) + "\n").steps
    assert steps["step"].to_list() == list(range(1, 11))
    assert_row(steps, 1, {"a": 1.5, "b": 1.0})
    assert_row(steps, 3, {"a": -3.25, "b": 30.0})
    assert_row(steps, 5, {"a": 5.5, "b": 555.0})
    assert_row(steps, 7, {"a": -7.25, "b": 70.0})
    assert_row(steps, 10, {"a": 10.5, "b": 10.0})


# --- §4 key families that no real log shows ---------------------------------------------------------------------
def test_mismatch_and_rollout_corr_keys() -> None:
    text = (
        "(TaskRunner pid=3) step:1 - mismatch/mismatch_kl:np.float64(0.0012) - mismatch/mismatch_ppl_ratio:"
        "np.float64(1.01) - mismatch/rollout_is_eff_sample_size:np.float64(0.97) - training/rollout_probs_diff_max:0.5"
        " - training/rollout_actor_probs_pearson_corr:0.99 - training/rollout_probs_diff_valid:1\n"
        "(TaskRunner pid=3) step:2 - rollout_corr/kl:np.float64(0.002) - rollout_corr/chi2_token:np.float64(3.5)"
        " - rollout_corr/rollout_is_mean:np.float64(1.0) - rollout_corr/rollout_rs_masked_fraction:np.float64(0.0)"
        " - rollout_corr/log_ppl_diff_max:np.float32(-0.125)\n"
    )
    steps = parse_log_text(text).steps
    assert_contract(steps)
    assert_row(
        steps,
        1,
        {
            "mismatch/mismatch_kl": 0.0012,
            "mismatch/mismatch_ppl_ratio": 1.01,
            "mismatch/rollout_is_eff_sample_size": 0.97,
            "training/rollout_probs_diff_max": 0.5,
            "training/rollout_actor_probs_pearson_corr": 0.99,
            "training/rollout_probs_diff_valid": 1.0,
            "rollout_corr/kl": None,
        },
    )
    assert_row(
        steps,
        2,
        {
            "rollout_corr/kl": 0.002,
            "rollout_corr/chi2_token": 3.5,
            "rollout_corr/rollout_is_mean": 1.0,
            "rollout_corr/rollout_rs_masked_fraction": 0.0,
            "rollout_corr/log_ppl_diff_max": -0.125,
            "mismatch/mismatch_kl": None,
        },
    )
    assert steps.width == 1 + 11


def test_dapo_dynamic_sampling() -> None:
    parsed = parse_file("dapo_dynamic_sampling.log")
    steps, meta = parsed.steps, parsed.meta
    assert_contract(steps)
    assert steps["step"].to_list() == [1, 2, 3]
    assert steps["train/num_gen_batches"].to_list() == [3.0, 2.0, 1.0]
    assert steps["critic/score/mean"].to_list() == [-0.42, -0.3, -0.1]
    assert steps["timing_s/gen"].to_list() == [120.5, 80.25, 40.0]
    assert meta.dapo_keep_generating == 3
    assert meta.total_steps == 4
    assert meta.train_batches == 4
    assert meta.from_scratch is True
    assert meta.failure is None
    assert meta.kind == "rl"


def test_dapo_too_many_generation_batches() -> None:
    meta = parse_file("dapo_max_gen_batches.log").meta
    assert meta.failure is not None
    assert meta.failure.startswith(
        "ValueError: num_gen_batches=10 >= max_num_gen_batches=10. Generated too many. Please check your data."
    ), meta.failure
    assert meta.failure_line == 17
    assert meta.dapo_keep_generating == 2
    assert meta.last_step == 1


def test_dapo_failure_line_alone_is_the_failure() -> None:
    text = (
        "(TaskRunner pid=300) step:1 - train/num_gen_batches:np.int64(3) - critic/score/mean:-0.5\n"
        "(TaskRunner pid=300) num_gen_batches=9. Keep generating...\n"
        "(TaskRunner pid=300) ValueError: num_gen_batches=10 >= max_num_gen_batches=10. Generated too many."
        " Please check your data.\n"
    )
    meta = parse_log_text(text).meta
    assert meta.failure_kind == "dapo_max_gen_batches"
    assert meta.failure == (
        "ValueError: num_gen_batches=10 >= max_num_gen_batches=10. Generated too many. Please check your data."
    )
    assert meta.failure_line == 3


def test_actor_died() -> None:
    parsed = parse_file("actor_died.log")
    meta = parsed.meta
    assert parsed.steps["step"].to_list() == [1, 2]
    assert_row(parsed.steps, 2, {"critic/score/mean": 0.625, "actor/pg_loss": 0.0625})
    assert meta.failure_kind == "actor_died"
    assert meta.failure is not None
    assert "ActorDiedError: The actor died unexpectedly before finishing this task." in meta.failure
    assert meta.failure_line == 9
    assert meta.final_validation is False


def test_failure_of_a_later_attempt_is_reported() -> None:
    # tee -a: attempt 1 stops right after Hydra's first failure line (killed), attempt 2 trains and then dies
    text = (
        "Error executing job with overrides: ['trainer.nnodes=2']\n"
        "(TaskRunner pid=2) Training from scratch\n"
        "(TaskRunner pid=2) step:1 - critic/score/mean:0.5\n"
        "(TaskRunner pid=2) step:2 - critic/score/mean:0.75\n"
        "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.\n"
    )
    meta = parse_log_text(text).meta
    assert meta.failure_kind == "actor_died"
    assert meta.failure is not None
    assert "ActorDiedError: The actor died unexpectedly" in meta.failure
    assert meta.failure_line == 5


def test_training_after_a_failure_line_clears_it() -> None:
    text = (
        "Error executing job with overrides: ['trainer.nnodes=2']\n"
        "Traceback (most recent call last):\n"
        "RuntimeError: NCCL timeout\n"
        "(TaskRunner pid=2) Resuming from /ckpt/global_step_1\n"
        "(TaskRunner pid=2) step:2 - critic/score/mean:0.75\n"
    )
    meta = parse_log_text(text).meta
    assert meta.failure is None
    assert meta.failure_kind is None


# --- §6.1 resume --------------------------------------------------------------------------------------------------
def test_resumed_run_appended_to_one_file() -> None:
    parsed = parse_file("resumed_appended.log")
    steps, meta = parsed.steps, parsed.meta
    assert_contract(steps)
    assert steps["step"].to_list() == [99, 100, 101, 102]
    assert_row(steps, 99, {"critic/score/mean": 0.5, "actor/pg_loss": 0.25, "timing_s/step": 30.0})
    # the resumed attempt's validation line at step 100 adds a key; the training keys of attempt 1 stay
    assert_row(
        steps,
        100,
        {
            "critic/score/mean": 0.6,
            "actor/pg_loss": 0.125,
            "timing_s/step": 31.0,
            "val-core/openai/gsm8k/reward/mean@1": 0.75,
        },
    )
    assert_row(steps, 101, {"critic/score/mean": 0.875, "actor/pg_loss": 0.5, "timing_s/step": 40.0})
    assert_row(steps, 102, {"critic/score/mean": 0.9375, "actor/pg_loss": None, "timing_s/step": 41.0})
    assert meta.resume_steps == [100]
    assert set(meta.resume_paths) == {"/checkpoints/global_step_100"}
    assert meta.from_scratch is True
    assert meta.total_steps == 435
    assert (meta.tqdm_n, meta.tqdm_total) == (102, 435)
    assert meta.step_lines == 6
    assert meta.failure is None


def test_v1_trainer_total_steps_resume_and_glued_output() -> None:
    parsed = parse_file("v1_trainer_glued.log")
    steps, meta = parsed.steps, parsed.meta
    assert_contract(steps)
    assert steps["step"].to_list() == [5, 6, 7]
    assert set(steps.columns) == {
        "step",
        "actor/loss",
        "actor/grad_norm",
        "off_policy/max",
        "off_policy/min",
        "training/global_step",
    }
    assert_row(steps, 5, {"actor/loss": 0.03125, "actor/grad_norm": 0.5, "off_policy/max": 3.0, "off_policy/min": 0.0})
    assert_row(
        steps, 6, {"actor/loss": 0.015625, "actor/grad_norm": 0.25, "off_policy/max": 2.0, "off_policy/min": 1.0}
    )
    assert_row(steps, 7, {"actor/loss": 0.0078125, "training/global_step": 7.0, "off_policy/min": 2.0})
    assert meta.total_steps == 20
    assert meta.resume_steps == [4]
    assert meta.resume_paths == ["/ckpt/grpo/global_step_4"]
    assert meta.kind == "rl"


# --- §3.2/§3.3 validation prints --------------------------------------------------------------------------------
def test_wrapped_initial_and_final_validation_with_numpy_wrappers() -> None:
    parsed = parse_file("validation_prints.log")
    meta = parsed.meta
    assert meta.initial_validation == {"val-core/openai/gsm8k/acc/mean@1": 0.25}
    assert meta.final_validation is True
    assert meta.final_validation_metrics == {
        "val-core/openai/gsm8k/acc/mean@1": 0.7125,
        "val-core/Hothan/OlympiadBench:OE_MM_maths_en_COMP/acc/mean@1": 0.3125,
        "val-aux/num_turns/min": 2.0,
    }
    assert meta.failure is None, "shutdown noise after the Final print is not a failure"
    assert (meta.tqdm_n, meta.tqdm_total) == (2, 2)
    assert parsed.steps["step"].to_list() == [0, 1, 2]
    assert_row(parsed.steps, 0, {"val-core/openai/gsm8k/acc/mean@1": 0.25, "critic/score/mean": None})
    assert_row(
        parsed.steps,
        2,
        {
            "critic/score/mean": 0.75,
            "val-core/openai/gsm8k/acc/mean@1": 0.7125,
            "val-core/Hothan/OlympiadBench:OE_MM_maths_en_COMP/acc/mean@1": 0.3125,
            "val-aux/num_turns/min": 2.0,
            "training/global_step": 2.0,
        },
    )


def test_one_line_validation_prints_v01() -> None:
    parsed = parse_file("validation_oneline_v01.log")
    meta = parsed.meta
    assert meta.initial_validation == {"val/test_score/openai/gsm8k": 0.5}
    assert meta.final_validation is True
    assert meta.final_validation_metrics == {"val/test_score/openai/gsm8k": 0.625}
    assert meta.zero_based is True
    assert parsed.steps["step"].to_list() == [0, 1]
    assert_row(parsed.steps, 0, {"timing/gen": 10.5, "critic/score/mean": 0.25, "actor/lr(1e-4)": 0.01})
    assert_row(parsed.steps, 1, {"timing/gen": 11.25, "critic/score/mean": 0.375, "actor/lr(1e-4)": 0.01})


# --- §5.1 config dump ---------------------------------------------------------------------------------------------
CONFIG = {
    "actor_rollout_ref": {
        "actor": {
            "clip_ratio": 0.2,
            "clip_ratio_high": 0.28,
            "loss_agg_mode": "token-mean",
            "optim": {"lr": 1e-06, "total_training_steps": -1},
            "ppo_mini_batch_size": 32,
            "use_kl_loss": True,
        },
        "model": {"path": "Qwen/Qwen2.5-7B-Instruct"},
        "rollout": {"n": 8, "name": "vllm", "response_length": 16384, "val_kwargs": {"n": 1, "temperature": 0}},
    },
    "algorithm": {
        "adv_estimator": "grpo",
        "kl_ctrl": {"kl_coef": 0.001, "type": "fixed"},
        "norm_adv_by_std_in_grpo": True,
    },
    "data": {"max_prompt_length": 1024, "max_response_length": 16384, "train_batch_size": 256},
    "trainer": {
        "experiment_name": "qwen7b-grpo: run/1",
        "logger": ["console", "wandb"],
        "n_gpus_per_node": 8,
        "nnodes": 1,
        "project_name": "rlmon-tests",
        "save_freq": 20,
        "test_freq": 5,
        "total_epochs": 15,
        "total_training_steps": None,
        "val_before_train": True,
    },
}


def test_config_dump_interleaved_with_other_processes() -> None:
    parsed = parse_file("config_dump_interleaved.log")
    meta = parsed.meta
    assert meta.config == CONFIG
    assert meta.config_line == 4
    assert meta.launch_command is not None
    assert meta.launch_command.startswith("python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo")
    assert meta.train_batches == 29
    # no `Total training steps` line: train batches x trainer.total_epochs (§5.2)
    assert meta.total_steps == 29 * 15
    assert_row(parsed.steps, 1, {"critic/score/mean": 0.5, "training/global_step": 1.0})


# --- §1.2 SFT trainer, no verl content ----------------------------------------------------------------------------
def test_sft_trainer_log() -> None:
    parsed = parse_file("sft_trainer.log")
    assert parsed.meta.kind == "sft"
    assert parsed.meta.is_rl is False
    assert parsed.steps["step"].to_list() == [1, 2, 3]
    assert_row(parsed.steps, 1, {"train/loss": 1.1166926622390747, "train/lr(1e-3)": 0.0010000000000000002})
    assert_row(parsed.steps, 3, {"train/loss": 0.25, "train/lr(1e-3)": 0.0005, "val/loss": 0.375})


def test_random_text_has_no_rows() -> None:
    rng = random.Random(7)
    words = ["loss", "step", "epoch", "the", "model", "-", ":", "0.5", "warning", "pid", "("]
    text = "\n".join(" ".join(rng.choice(words) for _ in range(12)) for _ in range(300))
    assert "step:" not in text
    parsed = parse_log_text(text)
    assert parsed.steps.columns == ["step"]
    assert parsed.steps.height == 0
    assert parsed.steps.schema["step"] == pl.Int64()
    assert parsed.meta.kind == "none"
    assert parsed.meta.step_lines == 0


# --- §7 file logger JSONL -----------------------------------------------------------------------------------------
def _jsonl_records() -> bytes:
    """The data file without its provenance line (what verl's file logger writes)."""
    lines = (DATA / "file_logger.jsonl").read_bytes().splitlines(keepends=True)
    assert lines[0].startswith(b"# built from")
    return b"".join(lines[1:])


def test_jsonl_gives_the_same_table_as_console_lines(tmp_path: Path) -> None:
    console = parse_file("file_logger_console.log").steps
    jsonl_path = tmp_path / "run.jsonl"
    jsonl_path.write_bytes(_jsonl_records())
    from_file = read_log(jsonl_path).steps
    from_bytes = parse_jsonl_bytes(_jsonl_records()).steps
    for steps in (console, from_file, from_bytes):
        assert_contract(steps)
        assert steps["step"].to_list() == [1, 2, 3]
        assert set(steps.columns) == {
            "step",
            "critic/score/mean",
            "actor/lr",
            "training/global_step",
            "flag",
            "actor/grad_norm",
            "x",
            "y",
            "val-core/Hothan/OlympiadBench:OE_MM_maths_en_COMP/acc/mean@1",
            "val-core/openai/gsm8k/acc/mean@1",
        }
        assert_row(
            steps,
            1,
            {
                "critic/score/mean": 0.5,
                "actor/lr": 1e-06,
                "training/global_step": 1.0,
                "flag": 1.0,
                "actor/grad_norm": NAN,
                "x": INF,
                "y": -INF,
                "val-core/Hothan/OlympiadBench:OE_MM_maths_en_COMP/acc/mean@1": 0.25,
                "val-core/openai/gsm8k/acc/mean@1": None,
            },
        )
        assert_row(steps, 2, {"critic/score/mean": 0.625, "training/global_step": 2.0, "flag": None})
        assert_row(
            steps,
            3,
            {"critic/score/mean": 0.75, "flag": 0.0, "val-core/openai/gsm8k/acc/mean@1": 0.5, "x": None},
        )
    assert_frame_equal(from_file, console, check_column_order=False)
    assert_frame_equal(from_bytes, console, check_column_order=False)


def test_jsonl_damaged_line_is_skipped_with_a_warning(tmp_path: Path) -> None:
    # the data file itself starts with a non-JSON provenance line: it is reported, the records are read
    parsed = read_log(DATA / "file_logger.jsonl")
    assert parsed.steps["step"].to_list() == [1, 2, 3]
    assert any("1" in warning for warning in parsed.meta.warnings), parsed.meta.warnings
    broken = tmp_path / "broken.jsonl"
    broken.write_bytes(_jsonl_records() + b'{"step": 4, "data": {"critic/score/m\n{"step": 5, "data": {"a": 1}}\n')
    steps = read_log(broken).steps
    assert steps["step"].to_list() == [1, 2, 3, 5]
    assert_row(steps, 5, {"a": 1.0})


# --- bad input, as bytes ----------------------------------------------------------------------------------------
def test_invalid_utf8_and_nul_bytes_around_step_lines() -> None:
    data = (
        b"\xff\xfe\xfd garbage \xc3\n"
        b"step:1 - a:1.0 - b:2.0\n"
        b"\x00\x00\x00\x00step:2 - a:3.0\n" + b"\x00" * 4096 + b"step:3 - a:4.0\n"
        b"\xe2\x96(TaskRunner pid=1) step:4 - a:5.0\n"
        b"(TaskRunner pid=1) \x80\x81 worker said something \xc0\xaf\n"
        b"step:5 - a:6.0 - b:\xff\n"
    )
    parsed = parse_log_bytes(data)
    steps = parsed.steps
    assert_contract(steps)
    assert steps["step"].to_list() == [1, 2, 3, 4, 5]
    assert steps["a"].to_list() == [1.0, 3.0, 4.0, 5.0, 6.0]
    assert_row(steps, 1, {"b": 2.0})
    assert_row(steps, 5, {"b": None})


def test_crlf_line_endings() -> None:
    data = b"step:1 - a:1.0 - b:np.float64(2.5)\r\nnoise\r\nstep:2 - a:2.0 - b:True\r\n"
    steps = parse_log_bytes(data).steps
    assert steps.columns == ["step", "a", "b"]
    assert_row(steps, 1, {"a": 1.0, "b": 2.5})
    assert_row(steps, 2, {"a": 2.0, "b": 1.0})


def test_empty_input() -> None:
    for parsed in (parse_log_bytes(b""), parse_log_text(""), parse_jsonl_bytes(b""), parse_log_bytes(b"\n\n")):
        assert parsed.steps.columns == ["step"]
        assert parsed.steps.height == 0
        assert parsed.steps.schema["step"] == pl.Int64()
        assert parsed.meta.kind == "none"


def test_ten_megabyte_line_without_newline() -> None:
    huge = b"x" * (10 * 1024 * 1024)
    data = b"step:1 - a:1.0\n" + huge + b"\nstep:2 - a:2.0\n" + huge
    steps = parse_log_bytes(data).steps
    assert steps["step"].to_list() == [1, 2]
    assert steps["a"].to_list() == [1.0, 2.0]


def test_binary_input() -> None:
    noise = random.Random(1).randbytes(300_000)
    parsed = parse_log_bytes(noise)
    assert parsed.steps.height == 0
    assert parsed.meta.kind == "none"
    mixed = noise[:1000] + b"\nstep:9 - a:1.5 - b:-2\n" + noise[1000:]
    steps = parse_log_bytes(mixed).steps
    assert steps["step"].to_list() == [9]
    assert_row(steps, 9, {"a": 1.5, "b": -2.0})


def test_damaged_pairs_do_not_lose_the_rest_of_the_line() -> None:
    text = "step:1 - a:1.0 - b:oops - c:np.float64(3.0) - :5 - d:4\nstep:2 - a:2.0 - d:\n"
    steps = parse_log_text(text).steps
    assert_row(steps, 1, {"a": 1.0, "c": 3.0, "d": 4.0})
    assert_row(steps, 2, {"a": 2.0, "d": None})
    assert "b" not in steps.columns or row(steps, 1)["b"] is None


def test_keys_named_like_internal_column_names() -> None:
    # keys are free text (§1.2); a key may happen to equal a name the parser uses for its own bookkeeping
    text = "step:1 - _line:0.5 - a:1.0 - _frame:2.0 - rest:3.0\nstep:2 - _line:1.5 - a:2.0\n"
    steps = parse_log_text(text).steps
    assert steps["step"].to_list() == [1, 2]
    assert_row(steps, 1, {"_line": 0.5, "a": 1.0, "_frame": 2.0, "rest": 3.0})
    assert_row(steps, 2, {"_line": 1.5, "a": 2.0, "_frame": None, "rest": None})


def test_a_key_named_step_is_not_a_crash() -> None:
    parsed = parse_log_text("step:1 - step:5 - a:1.0\nstep:2 - a:2.0\n")
    assert parsed.steps["step"].to_list() == [1, 2]
    assert parsed.steps["a"].to_list() == [1.0, 2.0]


def test_last_progress_bar_wins_over_later_mentions_of_its_title() -> None:
    # a crash traceback can quote the trainer's own source line that creates the bar (§2.3, §6.3)
    text = (
        "(TaskRunner pid=1) Training Progress:  10%|█         | 21/210 [1:30:25<14:38:40, 278.94s/it]\n"
        "(TaskRunner pid=1) step:21 - critic/score/mean:0.5\n"
        "Traceback (most recent call last):\n"
        "    progress_bar = tqdm(total=self.total_training_steps, initial=self.global_steps,"
        ' desc="Training Progress")\n'
        "RuntimeError: CUDA error: an illegal memory access was encountered\n"
    )
    meta = parse_log_text(text).meta
    assert (meta.tqdm_n, meta.tqdm_total) == (21, 210)


def test_one_line_validation_prints_with_numpy_wrappers() -> None:
    # pprint of a string of at most 80 characters stays one double-quoted line (§3.2), np reprs inside
    text = (
        "(TaskRunner pid=4) \"Initial validation metrics: {'val-core/aime24/acc/mean@32': np.float64(0.125)}\"\n"
        "(TaskRunner pid=4) step:0 - val-core/aime24/acc/mean@32:np.float64(0.125)\n"
        "(TaskRunner pid=4) step:1 - critic/score/mean:np.float64(-0.5)\n"
        "(TaskRunner pid=4) \"Final validation metrics: {'val-core/aime24/acc/mean@32': np.float64(0.25)}\"\n"
    )
    meta = parse_log_text(text).meta
    assert meta.initial_validation == {"val-core/aime24/acc/mean@32": 0.125}
    assert meta.final_validation is True
    assert meta.final_validation_metrics == {"val-core/aime24/acc/mean@32": 0.25}


def test_two_bar_renders_on_one_line() -> None:
    # §2.3: `…870/870 [11:59:41<00:00, 56.13s/it]Training Progress: 100%|…` in a text-view copy
    text = (
        "step:870 - critic/score/mean:0.5\n"
        "Training Progress: 100%|██████████| 869/870 [11:58:45<00:56, 56.10s/it]"
        "Training Progress: 100%|██████████| 870/870 [11:59:41<00:00, 56.13s/it]\n"
    )
    meta = parse_log_text(text).meta
    assert (meta.tqdm_n, meta.tqdm_total) == (870, 870)


def test_a_key_repeated_on_one_line_keeps_the_later_value() -> None:
    steps = parse_log_text("step:1 - a:1.0 - b:2.0 - a:3.0\n").steps
    assert_row(steps, 1, {"a": 3.0, "b": 2.0})


def test_jsonl_orjson_style_records(tmp_path: Path) -> None:
    # since 2026-01 verl writes with orjson: no spaces, NaN becomes null, strings stay strings (§7)
    path = tmp_path / "exp" / "run.jsonl"
    path.parent.mkdir()
    path.write_bytes(
        b'{"step":1,"data":{"a":0.5,"b":null,"c":"0.75","d":[1.0],"e":true,"f":7}}\n'
        b'{"step":2,"data":{"a":1e-06,"b":2.5}}\n'
    )
    steps = read_log(path).steps
    assert_contract(steps)
    assert set(steps.columns) == {"step", "a", "b", "e", "f"}
    # "b":null is orjson's NaN: the metric was logged and was not finite, so it is NaN, not missing
    assert_row(steps, 1, {"a": 0.5, "b": math.nan, "e": 1.0, "f": 7.0})
    assert_row(steps, 2, {"a": 1e-06, "b": 2.5, "e": None, "f": None})


# --- wandb output.log: lines cut at 4096 characters; step 0 filled from the Initial validation print -------------
def test_wandb_cut_step0_is_filled_from_the_initial_validation_print() -> None:
    parsed = parse_file("wandb_output_cut_step0.log")
    steps = parsed.steps
    assert_contract(steps)
    assert steps["step"].to_list() == [0, 1, 2]
    # line 126 is exactly 4096 characters and stops at `val-aux/aime_2025/acc/best@2/mean:0.80`; the print
    # (line 3 on) has `'val-aux/aime_2025/acc/best@2/mean': 0.804569484514`: the cut 0.80 must not be read
    assert parsed.meta.cut_lines == 1
    assert parsed.meta.initial_validation_step == 0
    assert len(parsed.meta.initial_validation) == 120  # 6 data sources x 2 vars x 10 metrics in the print
    assert_row(steps, 0, {
        "val-aux/aime_2025/acc/best@2/mean": 0.804569484514,  # from the print only
        "val-aux/aime_2025/acc/std@4": 0.458,  # line 126 (and the print) `...acc/std@4:0.458`
        "val-aux/char_count/acc/worst@4/std": 0.8279131566567798,  # last key of the print (line 125), not on line 126
        "actor/grad_norm": None,
    })  # fmt: skip
    validation = [name for name in steps.columns if name.startswith("val-")]
    assert len(validation) == 120
    assert steps.filter(pl.col("step") == 0).select(validation).null_count().sum_horizontal().item() == 0
    assert steps.filter(pl.col("step") == 1).select(validation).null_count().sum_horizontal().item() == 120
    assert_row(steps, 1, {"actor/grad_norm": 0.3125, "critic/score/mean": 0.5})  # line 127


def test_initial_validation_fills_only_what_the_line_lacks() -> None:
    text = (
        "\"Initial validation metrics: {'val-core/d/acc/mean@1': 0.2513, 'val-aux/d/acc/std@1': 0.5}\"\n"
        "step:0 - val-core/d/acc/mean@1:0.251\n"  # 3-decimal line: its value wins over the print's
        "step:1 - actor/grad_norm:0.5\n"
    )
    steps = parse_log_text(text).steps
    assert_row(steps, 0, {"val-core/d/acc/mean@1": 0.251, "val-aux/d/acc/std@1": 0.5})
    assert_row(steps, 1, {"val-core/d/acc/mean@1": None, "val-aux/d/acc/std@1": None})


def test_initial_validation_fills_the_first_step_line_after_it_among_damaged_lines() -> None:
    # Lines no key template fits (an empty record, a key logged twice) are read pair by pair, their pair
    # counts grouped: the step-1 line (one pair) came before the step-0 line (two pairs), and the print filled
    # step 1. It fills the first step line after it, as when the last line is read apart (a refresh).
    text = (
        "(\"Initial validation metrics: {'v/a': 0.5, 'late': 0.25}\")\n"
        "step:0 - \n"
        "step:0 - a:1.0 - a:2.0\n"
        "step:1 - a:3.0\n"
    )
    steps = parse_log_text(text).steps
    assert_row(steps, 0, {"a": 2.0, "v/a": 0.5, "late": 0.25})  # a key logged twice: the later value
    assert_row(steps, 1, {"a": 3.0, "v/a": None, "late": None})
    assert parse_log_text(text).meta.initial_validation_step == 0


def test_only_a_line_of_exactly_4096_characters_loses_its_last_pair() -> None:
    head = "step:1 - actor/grad_norm:0.5 - critic/score/mean:0.25 - pad:"
    cut = head + "1" * (4096 - len(head))
    whole = head + "1" * (4095 - len(head))
    assert (len(cut), len(whole)) == (4096, 4095)
    cut_log = parse_log_text(cut + "\n")
    assert cut_log.meta.cut_lines == 1
    assert "pad" not in cut_log.steps.columns
    assert_row(cut_log.steps, 1, {"actor/grad_norm": 0.5, "critic/score/mean": 0.25})
    whole_log = parse_log_text(whole + "\n")
    assert whole_log.meta.cut_lines == 0
    assert_row(whole_log.steps, 1, {"pad": float("1" * (4095 - len(head)))})


def _cut_line(last_pair: str) -> str:
    """A step line of exactly 4096 characters (wandb's cut) ending with ``last_pair``."""
    head = "step:50 - actor/grad_norm:np.float64(0.5) - pad:"
    tail = " - " + last_pair
    return head + "1" * (4096 - len(head) - len(tail)) + tail


def test_a_cut_line_keeps_a_last_value_whose_wrapper_closes() -> None:
    # A real wandb output.log lost val-aux/aime_2024/score/best@16/mean on steps 50 and 150 this way: the value
    # ends with its closing parenthesis exactly at the cut, so nothing of it was cut.
    closed = _cut_line("val-aux/aime_2024/score/best@16/mean:np.float64(-0.3725866666666665)")
    assert len(closed) == 4096
    parsed = parse_log_text(closed + "\n")
    assert parsed.meta.cut_lines == 1
    assert_row(parsed.steps, 50, {"actor/grad_norm": 0.5, "val-aux/aime_2024/score/best@16/mean": -0.3725866666666665})
    # cut inside the wrapper (no closing parenthesis), or a bare number: the value may be cut, it is dropped
    for last in ("val-aux/x/best@16/mean:np.float64(-0.37258666", "val-aux/x/best@16/mean:-0.37258666"):
        line = _cut_line(last)
        assert len(line) == 4096
        steps = parse_log_text(line + "\n").steps
        assert "val-aux/x/best@16/mean" not in steps.columns
        assert_row(steps, 50, {"actor/grad_norm": 0.5})


# --- orjson file logger: null is NaN --------------------------------------------------------------------------------
def test_jsonl_orjson_null_is_nan() -> None:
    lines = (DATA / "file_logger_orjson_nulls.jsonl").read_bytes().splitlines(keepends=True)
    assert lines[0].startswith(b"# built from")
    parsed = parse_jsonl_bytes(b"".join(lines[1:]))
    steps = parsed.steps
    assert_contract(steps)
    assert steps["step"].to_list() == [1, 2, 3]
    assert_row(steps, 1, {"actor/grad_norm": 0.3125, "actor/pg_loss": -0.002})
    assert_row(steps, 2, {"actor/grad_norm": math.nan, "actor/pg_loss": math.nan, "critic/score/mean": 0.625})
    assert_row(steps, 3, {"actor/grad_norm": 0.28125, "critic/score/mean": math.nan})


# --- launch command, failure frames and step, 3-decimal values --------------------------------------------------
def test_pasted_launch_command_with_continuations() -> None:
    text = (
        "MODEL_PATH=/models/x\n"
        "python3 -m verl.trainer.main_ppo \\\n"
        "    algorithm.adv_estimator=grpo \\\n"
        "    actor_rollout_ref.model.path=$MODEL_PATH \\\n"
        "    trainer.total_epochs=3\n"
        "Training from scratch\n"
        "step:1 - actor/grad_norm:0.5\n"
    )
    meta = parse_log_text(text).meta
    assert meta.launch_command == (
        "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo actor_rollout_ref.model.path=$MODEL_PATH "
        "trainer.total_epochs=3"
    )
    assert meta.from_scratch


def test_shell_assignments_and_model_names_are_kept() -> None:
    # the three ways a log shows a variable being set: a pasted script, `export`, `set -x` (`+`, `++` nested)
    text = (
        'MODEL_PATH="deepseek-ai/deepseek-llm-7b-chat"\n'
        "TP_VALUE=2 #default:2\n"
        "export CKPT_ROOT=/mnt/ckpt\n"
        "+ RUN='moe lite'\n"
        "++ MODEL_PATH=Qwen/Qwen2.5-3B-Instruct\n"
        "    actor_rollout_ref.model.path=$MODEL_PATH \\\n"  # a command's piece, not an assignment
        "(TaskRunner pid=300) num_prompt_in_batch=200 < prompt_bsz=512\n"  # a worker's message (DAPO), not the shell
        '(WorkerDict pid=7) {"_name_or_path": "Qwen/Qwen2.5-0.5B-Instruct", "architectures": ["Qwen2ForCausalLM"]}\n'
        "step:1 - actor/grad_norm:0.5\n"
    )
    meta = parse_log_text(text).meta
    assert meta.shell_vars == {
        "TP_VALUE": "2",
        "CKPT_ROOT": "/mnt/ckpt",
        "RUN": "moe lite",
        "MODEL_PATH": "Qwen/Qwen2.5-3B-Instruct",  # the later assignment wins
    }
    assert meta.model_names == ["Qwen/Qwen2.5-0.5B-Instruct"]


def test_a_prefixed_assignment_is_a_workers_message_whichever_way_the_line_is_read() -> None:
    # the whole-file pass only offers bare lines as assignments; the collector, which sees any line a chunk sends
    # it closely (after a config dump, say), must agree: `(TaskRunner pid=300) a=b` is DAPO speaking, not a shell
    collector = MetaCollector()
    collector.feed(
        [
            (1, "+ MODEL_PATH=Qwen/Qwen2.5-3B-Instruct"),
            (2, "(TaskRunner pid=300) num_prompt_in_batch=200 < prompt_bsz=512"),
        ],
        [],
    )
    assert collector.meta.shell_vars == {"MODEL_PATH": "Qwen/Qwen2.5-3B-Instruct"}


def test_shell_assignments_on_real_logs(realdata_dir: Path) -> None:
    amd = read_log(realdata_dir / "amd-mi300-deepseek7b-grpo-gsm8k-2025-03.log").meta
    assert amd.shell_vars["MODEL_PATH"] == "deepseek-ai/deepseek-llm-7b-chat"  # line 4
    assert amd.shell_vars["TP_VALUE"] == "2"  # line 5 `TP_VALUE=2 #default:2`
    logic = read_log(realdata_dir / "logicrl-reinforce_plus_plus-raylet-warnings-2025-03.log").meta
    assert logic.shell_vars["MODEL_PATH"] == "Qwen/Qwen2.5-3B-Instruct"  # `+ MODEL_PATH=Qwen/Qwen2.5-3B-Instruct`
    gemma = read_log(realdata_dir / "ehl-gemma2-2b-ppo-gsm8k-v0.1-2024-12.log").meta
    assert gemma.model_names == ["sft_model_path/global_step_58"]  # line 193 `"_name_or_path": "sft_model_path/..."`


def test_failure_frames_and_the_step_it_died_at() -> None:
    text = (
        "(TaskRunner pid=1) step:1 - actor/grad_norm:0.5\n"
        "(TaskRunner pid=1) step:2 - actor/grad_norm:0.25\n"
        "(TaskRunner pid=1) step:2 - val-core/d/acc/mean@1:0.5\n"  # a val-only line is not a training step
        "(WorkerDict pid=2) Traceback (most recent call last):\n"
        '(WorkerDict pid=2)   File "/w/other.py", line 1, in noise\n'
        "Error executing job with overrides: []\n"
        "Traceback (most recent call last):\n"
        '  File "/a/1.py", line 1, in f1\n'
        '  File "/a/2.py", line 2, in f2\n'
        "ray.exceptions.RayTaskError(KeyError): ray::TaskRunner.run() (pid=1)\n"
        '  File "/b/3.py", line 3, in f3\n'
        '(WorkerDict pid=2)   File "/w/other.py", line 9, in noise\n'
        '  File "/b/4.py", line 4, in f4\n'
        "KeyError: 'x'\n"
    )
    meta = parse_log_text(text).meta
    assert (meta.failure, meta.failure_kind, meta.failure_step) == ("KeyError: 'x'", "hydra", 2)
    # the remote traceback after Ray's wrapper (f1, f2 came before it), without the worker's interleaved frame
    assert meta.failure_frames == ["/b/3.py:3 in f3", "/b/4.py:4 in f4"]
    deep = text.replace("KeyError: 'x'\n", "".join(f'  File "/c/{n}.py", line {n}, in g{n}\n' for n in range(5, 9)))
    meta = parse_log_text(deep + "KeyError: 'x'\n").meta
    assert meta.failure_frames == [  # the last 5 of f3, f4, g5..g8
        "/b/4.py:4 in f4",
        "/c/5.py:5 in g5",
        "/c/6.py:6 in g6",
        "/c/7.py:7 in g7",
        "/c/8.py:8 in g8",
    ]


def test_no_failure_no_frames_and_three_decimals() -> None:
    three = "\n".join(f"step:{n} - a:0.{n:03d} - b:1.000 - c:-0.000 - d:nan" for n in range(1, 8)) + "\n"
    meta = parse_log_text(three).meta
    assert (meta.failure, meta.failure_frames, meta.failure_step) == (None, [], None)
    assert meta.three_decimals  # 7 lines x 3 values with exactly 3 decimals (nan does not count)
    assert not parse_log_text(three.replace("a:0.001", "a:0.0011")).meta.three_decimals
    assert not parse_log_text(three.replace("a:0.001", "a:1e-06")).meta.three_decimals
    assert not parse_log_text("step:1 - a:0.125 - b:1.000\n").meta.three_decimals  # too few values to tell


def test_a_few_step_lines_read_as_the_same_lines_among_many() -> None:
    # A refresh reads a line or two, matched against the template in Python; many lines are matched in polars.
    # Both give the same rows: wrappers, a bool, a key holding a colon (its row goes pair by pair), a line whose
    # keys differ from the first one's, and a value that is no number.
    few = [
        "(TaskRunner pid=7) step:1 - a:0.5 - b:np.float64(0.25) - c:True",
        "(TaskRunner pid=7) step:2 - a:1.5 - b:np.float64(1.25) - c:False",
        "(TaskRunner pid=7) step:3 - a:2.5 - x:7 - c:True",
        "(TaskRunner pid=7) step:4 - a:3.5 - b:val:ue - c:1",
        "(TaskRunner pid=7) step:5 - a:oops - b:4.25 - c:0",
    ]
    many = few + [f"(TaskRunner pid=7) step:{step} - a:{step}.5 - b:1.0 - c:1" for step in range(6, 26)]
    small = parse_log_text("\n".join(few) + "\n").steps
    large = parse_log_text("\n".join(many) + "\n").steps
    assert small.rows() == large.head(5).select(small.columns).rows()
    # "b:val:ue" splits at its last colon: key "b:val", whose only value is no number, so no column
    assert small.columns == ["step", "a", "b", "c", "x"]
    assert small.rows() == [
        (1, 0.5, 0.25, 1.0, None),
        (2, 1.5, 1.25, 0.0, None),
        (3, 2.5, None, 1.0, 7.0),
        (4, 3.5, None, 1.0, None),
        (5, None, 4.25, 0.0, None),
    ]
