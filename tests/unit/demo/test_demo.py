"""The demo log root reproduces every number of the seed dashboard (../shared/docs/seed-dashboard.md).

Every expected value below is a number written in the seed dashboard (or the issue's demo section), and every
measured value is computed from the written files through the public parser (:func:`rlmon.logs.cache.read_log`),
never from the generator's constants. Definitions: pass rate = (critic/score/mean + 1) / 2; "start" = mean of
the first 5 training steps, "end" = mean of the last 10; hours = sum(timing_s/step) / 3600.
"""

from __future__ import annotations

import os
import pprint
import re
import statistics
import tomllib
from datetime import datetime
from pathlib import Path

import polars as pl
import pytest

from rlmon.analysis.outcomes import detect_length_gap, outcome_table
from rlmon.demo import RUNNING_EXPERIMENT, TOTAL_STEPS, advance_running, default_demo_root, write_demo_root
from rlmon.errors import RlmonError
from rlmon.logs.cache import LogCache, read_log
from rlmon.logs.parse import ParsedLog, merge_steps
from rlmon.logs.samples import SampleCache, read_training_dumps
from rlmon.settings import Settings

NOW = datetime(2026, 7, 20, 11, 0, 0)
FINISHED_4B = ("4b/e1_grpo_4b", "4b/e2_dapo_4b", "4b/e3_drgrpo_4b", "4b/e4_rloo_4b")
FINISHED_2B = ("2b/e1_grpo_2b", "2b/e2_dapo_2b", "2b/e3_drgrpo_2b", "2b/e4_rloo_2b")
ALL = (*FINISHED_4B, RUNNING_EXPERIMENT, *FINISHED_2B)
EXPECTED_FILES = {
    "4b/e1_grpo_4b/train_20260714_125151.log",
    "4b/e2_dapo_4b/train_20260716_021500.log",
    "4b/e2_dapo_4b/train_20260716_023012.log",
    "4b/e3_drgrpo_4b/train_20260717_105706.log",
    "4b/e4_rloo_4b/train_20260718_184125.log",
    "4b/e5_reinforce_pp_4b/train_20260720_063429.log",
}
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
TRAINER_PREFIX = re.compile(r"^\x1b\[36m\(TaskRunner pid=\d+\)\x1b\[0m ")


# ---------------------------------------------------------------------------------------------- helpers


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_demo_root(tmp_path_factory.mktemp("demo") / "root", now=NOW)


_PARSED: dict[tuple[Path, int, int], ParsedLog] = {}


def parsed_log(path: Path) -> ParsedLog:
    """``read_log`` memoised on (path, size, mtime): the shared demo root is read once per file."""
    info = path.stat()
    key = (path, info.st_size, info.st_mtime_ns)
    if key not in _PARSED:
        _PARSED[key] = read_log(path)
    return _PARSED[key]


def logs_of(root: Path, experiment: str) -> list[tuple[Path, ParsedLog]]:
    files = sorted((root / experiment).glob("*.log"))
    return [(path, parsed_log(path)) for path in files]


def steps_of(root: Path, experiment: str) -> pl.DataFrame:
    return merge_steps([parsed.steps for _, parsed in logs_of(root, experiment)])


def training(root: Path, experiment: str) -> pl.DataFrame:
    """Training steps only (step 0 is the validation before training)."""
    return steps_of(root, experiment).filter(pl.col("step") > 0)


def column(root: Path, experiment: str, key: str) -> list[float]:
    return training(root, experiment).get_column(key).to_list()


def start_end(values: list[float]) -> tuple[float, float]:
    return statistics.fmean(values[:5]), statistics.fmean(values[-10:])


def pass_rates(root: Path, experiment: str) -> list[float]:
    return [(score + 1) / 2 * 100 for score in column(root, experiment, "critic/score/mean")]


def hours(root: Path, experiment: str) -> float:
    return sum(column(root, experiment, "timing_s/step")) / 3600


def h_m(hours_value: float) -> str:
    minutes = int(hours_value * 60)
    return f"{minutes // 60}h{minutes % 60:02d}m"


def k_tokens(value: float) -> str:
    return f"{value / 1000:.1f}k"


def aime(root: Path, experiment: str) -> dict[int, float]:
    frame = steps_of(root, experiment).drop_nulls("val-core/aime24/acc/mean@1")
    return dict(zip(frame["step"].to_list(), frame["val-core/aime24/acc/mean@1"].to_list(), strict=True))


def rolling_median_spikes(values: list[float], *, half_window: int = 7, factor: float = 2.5) -> list[int]:
    """Steps (1-based) whose value exceeds ``factor`` x the median of their neighbours (self excluded)."""
    found = []
    for i, value in enumerate(values):
        neighbours = values[max(0, i - half_window) : i] + values[i + 1 : i + 1 + half_window]
        if value > factor * statistics.median(neighbours):
            found.append(i + 1)
    return found


def robust_outliers(values: list[float], *, half_window: int = 10, z_max: float = 6.0) -> list[int]:
    """Steps far above their neighbours: (value - median) / max(1.4826 MAD, 5 % of |median|) > ``z_max``."""
    found = []
    for i, value in enumerate(values):
        neighbours = values[max(0, i - half_window) : i] + values[i + 1 : i + 1 + half_window]
        centre = statistics.median(neighbours)
        mad = statistics.median(abs(v - centre) for v in neighbours)
        if (value - centre) / max(1.4826 * mad, 0.05 * abs(centre), 1e-12) > z_max:
            found.append(i + 1)
    return found


def step_line(path: Path, step: int) -> str:
    for line in path.read_bytes().decode("utf-8").split("\n"):
        if re.search(rf"(?<![\w/])step:{step} - ", line):
            return line
    raise AssertionError(f"no step:{step} line in {path}")


def pairs_of(line: str) -> list[tuple[str, str]]:
    body = ANSI.sub("", line).split(" step:", 1)[1].split(" - ", 1)[1]
    return [tuple(pair.rsplit(":", 1)) for pair in body.split(" - ")]  # type: ignore[misc]


# ---------------------------------------------------------------------------------------------- layout


def test_layout_and_descriptions(root: Path) -> None:
    logs = {path.relative_to(root).as_posix() for path in root.rglob("*.log")}
    assert logs >= EXPECTED_FILES
    assert {name.rsplit("/", 1)[0] for name in logs} == set(ALL)
    assert len(logs) == len(EXPECTED_FILES) + 4  # one file per 2B experiment
    toml = tomllib.loads((root / "rlmon.toml").read_text(encoding="utf-8"))
    assert set(toml["experiments"]) == set(ALL)
    assert (
        "Clip-Higher + Dynamic Sampling + Overlong Reward Shaping, no KL loss"
        in (toml["experiments"]["4b/e2_dapo_4b"]["description"])
    )
    assert "seq-mean-token-sum-norm" in toml["experiments"]["4b/e3_drgrpo_4b"]["description"]
    assert "leave-one-out" in toml["experiments"]["4b/e4_rloo_4b"]["description"]
    assert "mse KL loss" in toml["experiments"]["4b/e5_reinforce_pp_4b"]["description"]


def test_default_demo_root(tmp_path: Path) -> None:
    assert default_demo_root(tmp_path) == tmp_path / "demo"


def test_mtimes_finished_old_running_fresh(root: Path) -> None:
    running = next((root / RUNNING_EXPERIMENT).glob("*.log")).stat().st_mtime
    assert running == pytest.approx(NOW.timestamp(), abs=1e-3)
    for experiment in (*FINISHED_4B, *FINISHED_2B):
        for path in (root / experiment).glob("*.log"):
            assert path.stat().st_mtime < NOW.timestamp() - 3600, path
    first, second = sorted((root / "4b/e2_dapo_4b").glob("*.log"))
    assert first.stat().st_mtime < second.stat().st_mtime


def test_writes_are_byte_identical_and_idempotent(root: Path, tmp_path: Path) -> None:
    other = write_demo_root(tmp_path / "again", now=NOW)
    for path in root.rglob("*"):
        if path.is_file():
            assert (other / path.relative_to(root)).read_bytes() == path.read_bytes(), path
    advance_running(other)
    write_demo_root(other, now=NOW)  # rewriting resets the running run to step 21
    running = next((other / RUNNING_EXPERIMENT).glob("*.log"))
    assert running.read_bytes() == next((root / RUNNING_EXPERIMENT).glob("*.log")).read_bytes()


# ---------------------------------------------------------------------------------------------- format


def test_lines_look_like_a_real_v05_trainer_under_numpy2(root: Path) -> None:
    path = root / "4b/e1_grpo_4b/train_20260714_125151.log"
    text = path.read_bytes().decode("utf-8")
    lines = text.split("\n")
    assert lines[0].startswith("+ python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo ")
    for marker in (
        "Size of train dataloader: ",
        "Total training steps: 150",
        "Training from scratch",
        "(WorkerDict pid=",
        "\rTraining Progress: ",
        "local_global_step_folder: ",
        "\"Initial validation metrics: {'val-aux/aime24/reward/mean@1': \"",
        "(\"Final validation metrics: {'val-aux/aime24/reward/mean@1': \"",
    ):
        assert marker in text, marker
    line = step_line(path, 50)
    assert TRAINER_PREFIX.match(line)
    pairs = dict(pairs_of(line))
    for worker_side in ("actor/pg_loss", "actor/grad_norm", "actor/lr", "actor/kl_loss", "perf/mfu/actor"):
        assert pairs[worker_side].startswith("np.float64("), worker_side
    assert pairs["actor/pg_clipfrac_lower"].startswith("np.float32(")
    assert pairs["val-core/aime24/acc/mean@1"].startswith("np.float64(")
    for driver_side in ("critic/score/mean", "response_length/mean", "timing_s/step", "actor/entropy"):
        assert re.fullmatch(r"-?\d+\.\d+(e-?\d+)?", pairs[driver_side]), driver_side
    assert pairs["training/global_step"] == "50"
    assert pairs["actor/lr"] == "np.float64(1e-06)"


def test_every_trainer_line_is_prefixed(root: Path) -> None:
    text = (root / "4b/e4_rloo_4b/train_20260718_184125.log").read_bytes().decode("utf-8")
    for line in text.split("\n")[2:]:
        if not line:
            continue
        assert line.startswith(("\x1b[36m(TaskRunner pid=", "\x1b[36m(WorkerDict pid=", "\x1b[33m(raylet)")), line


def test_key_order_follows_verl(root: Path) -> None:
    keys = [key for key, _ in pairs_of(step_line(root / "4b/e1_grpo_4b/train_20260714_125151.log", 25))]
    order = [
        "global_seqlen/min",
        "actor/entropy",
        "training/rollout_probs_diff_max",
        "training/rollout_actor_probs_pearson_corr",
        "actor/kl_loss",
        "actor/kl_coef",
        "actor/pg_loss",
        "actor/grad_norm",
        "actor/lr",
        "val-core/aime24/acc/mean@1",
        "training/global_step",
        "training/epoch",
        "critic/score/mean",
        "critic/advantages/mean",
        "response_length/mean",
        "prompt_length/mean",
        "timing_s/gen",
        "timing_s/testing",
        "timing_s/save_checkpoint",
        "timing_s/step",
        "timing_per_token_ms/gen",
        "perf/throughput",
    ]
    positions = [keys.index(key) for key in order]
    assert positions == sorted(positions)


def test_config_dump_is_pformat_of_the_sorted_config(root: Path) -> None:
    path = root / "4b/e3_drgrpo_4b/train_20260717_105706.log"
    config = read_log(path).meta.config
    assert config is not None
    dumped: list[str] = []
    depth = 0
    for line in path.read_bytes().decode("utf-8").split("\n"):
        if not TRAINER_PREFIX.match(line):
            continue
        body = TRAINER_PREFIX.sub("", line)
        if body.startswith("{'actor_rollout_ref'") or dumped:
            dumped.append(body)
            depth += body.count("{") - body.count("}")
            if depth == 0:
                break
    assert "\n".join(dumped) == pprint.pformat(config, width=80)


def test_float32_values_print_as_numpy_does(root: Path) -> None:
    numpy = pytest.importorskip("numpy")
    text = (root / "4b/e2_dapo_4b/train_20260716_023012.log").read_bytes().decode("utf-8")
    printed = re.findall(r"np\.float32\(([^)]*)\)", text)
    assert len(printed) == TOTAL_STEPS
    for value in printed:
        assert repr(numpy.float32(value)) == f"np.float32({value})"


# ---------------------------------------------------------------------------------------------- configs


def test_configs_carry_what_the_seed_says(root: Path) -> None:
    configs = {}
    for experiment in (*FINISHED_4B, RUNNING_EXPERIMENT):
        meta = logs_of(root, experiment)[-1][1].meta
        assert meta.config is not None and meta.total_steps == 150 and meta.from_scratch, experiment
        configs[experiment] = meta.config
        rollout = meta.config["actor_rollout_ref"]["rollout"]
        actor = meta.config["actor_rollout_ref"]["actor"]
        assert meta.config["actor_rollout_ref"]["model"]["path"] == "Qwen/Qwen3.5-4B"
        assert (meta.config["trainer"]["n_gpus_per_node"], meta.config["trainer"]["nnodes"]) == (4, 1)
        assert (rollout["name"], rollout["tensor_model_parallel_size"], rollout["n"]) == ("vllm", 4, 8)
        assert actor["fsdp_config"]["param_offload"] is False
        assert actor["fsdp_config"]["optimizer_offload"] is False
        assert meta.config["data"]["apply_chat_template_kwargs"] == {"enable_thinking": False}
        assert meta.config["data"]["max_response_length"] == 16384
        assert meta.config["data"]["train_batch_size"] == 32
        assert meta.config["trainer"]["test_freq"] == 25
    actor = {name: config["actor_rollout_ref"]["actor"] for name, config in configs.items()}
    algorithm = {name: config["algorithm"] for name, config in configs.items()}
    e1, e2, e3, e4, e5 = (*FINISHED_4B, RUNNING_EXPERIMENT)
    assert algorithm[e1]["adv_estimator"] == "grpo" and algorithm[e1]["norm_adv_by_std_in_grpo"] is True
    assert (actor[e1]["use_kl_loss"], actor[e1]["kl_loss_coef"], actor[e1]["kl_loss_type"]) == (
        True,
        0.001,
        "low_var_kl",
    )
    assert (actor[e2]["clip_ratio_low"], actor[e2]["clip_ratio_high"]) == (0.2, 0.28)
    assert algorithm[e2]["filter_groups"]["enable"] is True
    assert configs[e2]["reward_model"]["overlong_buffer"]["enable"] is True
    assert actor[e2]["use_kl_loss"] is False and actor[e2]["loss_agg_mode"] == "token-mean"
    launch = logs_of(root, e2)[-1][1].meta.launch_command
    assert launch is not None and "-m recipe.dapo.main_dapo" in launch
    assert algorithm[e3]["adv_estimator"] == "grpo" and algorithm[e3]["norm_adv_by_std_in_grpo"] is False
    assert actor[e3]["loss_agg_mode"] == "seq-mean-token-sum-norm" and actor[e3]["use_kl_loss"] is False
    assert algorithm[e4]["adv_estimator"] == "rloo"
    assert (actor[e4]["use_kl_loss"], actor[e4]["kl_loss_coef"], actor[e4]["kl_loss_type"]) == (
        True,
        0.001,
        "low_var_kl",
    )
    assert algorithm[e5]["adv_estimator"] == "reinforce_plus_plus"
    assert (actor[e5]["use_kl_loss"], actor[e5]["kl_loss_type"]) == (True, "mse")
    model_2b = logs_of(root, "2b/e1_grpo_2b")[0][1].meta.config
    assert model_2b is not None and model_2b["actor_rollout_ref"]["model"]["path"] == "Qwen/Qwen3.5-2B"


def test_every_charted_metric_is_logged(root: Path) -> None:
    always = [
        *(f"critic/score/{s}" for s in ("mean", "max", "min")),
        *(f"critic/rewards/{s}" for s in ("mean", "max", "min")),
        *(f"critic/advantages/{s}" for s in ("mean", "max", "min")),
        *(f"response_length/{s}" for s in ("mean", "max", "min", "clip_ratio")),
        *(f"prompt_length/{s}" for s in ("mean", "max", "min")),
        "actor/entropy",
        "actor/grad_norm",
        "actor/pg_loss",
        "actor/pg_clipfrac",
        "actor/pg_clipfrac_lower",
        "actor/ppo_kl",
        "actor/lr",
        "training/rollout_actor_probs_pearson_corr",
        *(f"training/rollout_probs_diff_{s}" for s in ("mean", "max", "std")),
        *(f"timing_s/{s}" for s in ("gen", "reward", "old_log_prob", "adv", "update_actor", "update_weights", "step")),
        "timing_per_token_ms/gen",
        "perf/throughput",
        "perf/mfu/actor",
        "perf/max_memory_allocated_gb",
        "global_seqlen/mean",
        "training/global_step",
        "training/epoch",
    ]
    kl_runs = {"4b/e1_grpo_4b", "4b/e4_rloo_4b", RUNNING_EXPERIMENT, "2b/e1_grpo_2b", "2b/e4_rloo_2b"}
    for experiment in ALL:
        frame = training(root, experiment)
        for key in always:
            assert frame.get_column(key).null_count() == 0, (experiment, key)
        has_kl = "actor/kl_loss" in frame.columns
        assert has_kl == (experiment in kl_runs), experiment
        assert ("timing_s/ref" in frame.columns) == (experiment in kl_runs), experiment
        if has_kl:
            assert frame.get_column("actor/kl_coef").unique().to_list() == [0.001]
        if frame.height < 25:
            continue
        every_25 = frame.filter(pl.col("step") % 25 == 0)
        assert every_25.get_column("timing_s/testing").null_count() == 0
        assert every_25.get_column("timing_s/save_checkpoint").null_count() == 0
        assert every_25.get_column("val-aux/aime24/reward/mean@1").null_count() == 0
        assert frame.filter(pl.col("step") % 25 != 0).get_column("val-core/aime24/acc/mean@1").null_count() == (
            frame.filter(pl.col("step") % 25 != 0).height
        )
        assert set(frame.get_column("critic/score/max").to_list()) == {1.0}
        assert set(frame.get_column("critic/score/min").to_list()) == {-1.0}


def test_dapo_dynamic_sampling(root: Path) -> None:
    (path, second) = logs_of(root, "4b/e2_dapo_4b")[-1]
    frame = second.steps.filter(pl.col("step") > 0)
    rounds = frame.get_column("train/num_gen_batches").to_list()
    assert set(rounds) <= {1, 2, 3} and 10 < sum(r > 1 for r in rounds) < 140
    text = path.read_bytes().decode("utf-8")
    keep = re.findall(r"num_gen_batches=(\d+)\. Keep generating\.\.\.", text)
    assert len(keep) == sum(r - 1 for r in rounds) == second.meta.dapo_keep_generating
    assert len(re.findall(r"num_prompt_in_batch=\d+ < prompt_bsz=32", text)) == len(keep)
    assert "train/num_gen_batches" not in training(root, "4b/e1_grpo_4b").columns


# ---------------------------------------------------------------------------------------------- 4B numbers


def test_e2_first_file_is_start_up_only(root: Path) -> None:
    (first_path, first), (_, second) = logs_of(root, "4b/e2_dapo_4b")
    assert first_path.name == "train_20260716_021500.log"
    assert first.meta.step_lines == 0 and first.steps.height == 0
    assert first.meta.kind == "rl" and first.meta.config is not None and first.meta.total_steps == 150
    steps = second.steps.get_column("step").to_list()
    assert steps == list(range(0, 151))


def test_finished_runs_are_complete(root: Path) -> None:
    for experiment in (*FINISHED_4B, *FINISHED_2B):
        parsed = logs_of(root, experiment)[-1][1]
        assert parsed.steps.get_column("step").to_list() == list(range(0, 151)), experiment
        assert parsed.meta.final_validation and parsed.meta.failure is None, experiment
        assert parsed.meta.last_step == 150


def test_pass_rate_bands_4b(root: Path) -> None:
    ends = []
    for experiment in FINISHED_4B:
        start, end = start_end(pass_rates(root, experiment))
        assert 79.0 <= start <= 81.0, (experiment, start)
        assert 88.8 <= round(end, 1) <= 91.1, (experiment, end)
        ends.append(end)
    assert (round(min(ends), 1), round(max(ends), 1)) == (88.8, 91.1)
    assert len(column(root, "4b/e1_grpo_4b", "critic/score/mean")) == 150


def test_response_length_4b(root: Path) -> None:
    growth = {}
    expected = {
        "4b/e1_grpo_4b": ("5.1k", "9.7k"),
        "4b/e3_drgrpo_4b": ("5.3k", "7.3k"),
        "4b/e4_rloo_4b": ("5.0k", "8.1k"),
    }
    for experiment in FINISHED_4B:
        start, end = start_end(column(root, experiment, "response_length/mean"))
        growth[experiment] = end - start
        if experiment in expected:
            assert (k_tokens(start), k_tokens(end)) == expected[experiment]
    assert max(growth, key=growth.__getitem__) == "4b/e1_grpo_4b"
    assert min(growth, key=growth.__getitem__) == "4b/e3_drgrpo_4b"
    assert growth["4b/e3_drgrpo_4b"] < growth["4b/e2_dapo_4b"] < growth["4b/e1_grpo_4b"]
    for experiment in ALL:  # the 16K cap holds
        assert max(column(root, experiment, "response_length/max")) <= 16384


def test_entropy_4b(root: Path) -> None:
    def ends(experiment: str) -> tuple[float, float]:
        return start_end(column(root, experiment, "actor/entropy"))

    assert [round(v, 3) for v in ends("4b/e3_drgrpo_4b")] == [0.081, 0.048]
    assert [round(v, 3) for v in ends("4b/e2_dapo_4b")] == [0.256, 0.417]
    assert [round(v, 2) for v in ends("4b/e1_grpo_4b")] == [0.25, 0.22]
    e4_start, e4_end = ends("4b/e4_rloo_4b")
    assert e4_end < e4_start and e4_start - e4_end < 0.06  # declines gently
    e3 = column(root, "4b/e3_drgrpo_4b", "actor/entropy")
    for other in ("4b/e1_grpo_4b", "4b/e2_dapo_4b", "4b/e4_rloo_4b"):
        assert max(e3) < min(column(root, other, "actor/entropy"))  # lowest and tightest

    def block_means(experiment: str) -> list[float]:
        values = column(root, experiment, "actor/entropy")
        return [statistics.fmean(values[i : i + 25]) for i in range(0, 150, 25)]

    rising = [b - a for a, b in zip(block_means("4b/e2_dapo_4b"), block_means("4b/e2_dapo_4b")[1:], strict=False)]
    assert all(d > 0 for d in rising)  # rises throughout
    for experiment in ("4b/e1_grpo_4b", "4b/e3_drgrpo_4b", "4b/e4_rloo_4b"):
        assert block_means(experiment)[-1] < block_means(experiment)[0]


def test_grad_norm_4b(root: Path) -> None:
    e3 = column(root, "4b/e3_drgrpo_4b", "actor/grad_norm")
    assert (round(min(e3), 2), round(max(e3), 2)) == (0.03, 0.23)
    for experiment in ("4b/e1_grpo_4b", "4b/e4_rloo_4b"):
        values = column(root, experiment, "actor/grad_norm")
        assert min(values) >= 0.1 and max(values) <= 0.3, experiment
    e2 = column(root, "4b/e2_dapo_4b", "actor/grad_norm")
    assert round(e2[43 - 1], 2) == 0.96 and round(e2[59 - 1], 2) == 1.13
    others = [v for step, v in enumerate(e2, start=1) if step not in (43, 59)]
    assert (round(min(others), 1), round(max(others), 1)) == (0.1, 0.3)
    assert min(others) >= 0.1 and max(others) <= 0.3


def test_spike_detector_finds_exactly_e2s_two(root: Path) -> None:
    for experiment in ALL:
        grad = column(root, experiment, "actor/grad_norm")
        expected = [43, 59] if experiment == "4b/e2_dapo_4b" else []
        assert rolling_median_spikes(grad) == expected, experiment
        assert robust_outliers(grad) == expected, experiment


def test_no_outliers_in_other_metrics(root: Path) -> None:
    watched = ["actor/pg_loss", "actor/entropy", "actor/ppo_kl", "actor/pg_clipfrac", "critic/score/mean",
               "training/rollout_actor_probs_pearson_corr", "training/rollout_probs_diff_mean",
               "response_length/mean"]  # fmt: skip
    for experiment in ALL:
        frame = training(root, experiment)
        for key in [*watched, *(["actor/kl_loss"] if "actor/kl_loss" in frame.columns else [])]:
            assert robust_outliers(frame.get_column(key).to_list()) == [], (experiment, key)


def test_hours_4b(root: Path) -> None:
    elapsed = {experiment: hours(root, experiment) for experiment in FINISHED_4B}
    assert round(elapsed["4b/e2_dapo_4b"], 1) == 32.6 and h_m(elapsed["4b/e2_dapo_4b"]) == "32h33m"
    assert h_m(elapsed["4b/e4_rloo_4b"]) == "35h47m"
    assert round(elapsed["4b/e1_grpo_4b"], 1) == 37.2
    assert round(elapsed["4b/e3_drgrpo_4b"], 1) == 33.9
    ranked = sorted(elapsed, key=elapsed.__getitem__)
    assert ranked[0] == "4b/e2_dapo_4b" and ranked[-1] == "4b/e1_grpo_4b" and ranked[-2] == "4b/e4_rloo_4b"


def test_aime24_4b(root: Path) -> None:
    values = {experiment: aime(root, experiment) for experiment in FINISHED_4B}
    for experiment, by_step in values.items():
        assert sorted(by_step) == [0, 25, 50, 75, 100, 125, 150], experiment
        for value in by_step.values():
            assert abs(value * 30 - round(value * 30)) < 1e-9  # k/30: 30 problems, greedy
    e1, e2, e3, e4 = (values[e] for e in FINISHED_4B)
    assert round(e3[125], 3) == 0.800 and round(e4[125], 3) == 0.833
    assert round(e2[150], 3) == round(e4[150], 3) == 0.767
    assert e3[150] < e2[150] and e1[150] < e2[150]
    assert round(e1[150], 3) == 0.633
    in_training = [v for by_step in values.values() for step, v in by_step.items() if step > 0]
    assert (round(min(in_training), 3), round(max(in_training), 3)) == (0.567, 0.833)
    assert [round(v, 3) for v in in_training].count(0.833) == 1  # E4 at 125 is the best overall
    drops = {e: max(v[s] for s in v if 0 < s < 150) - v[150] for e, v in values.items()}
    assert drops["4b/e1_grpo_4b"] > 0.1
    assert all(drop < 0.1 for e, drop in drops.items() if e != "4b/e1_grpo_4b")  # the only clear drop
    final = logs_of(root, "4b/e2_dapo_4b")[-1][1].meta.final_validation_metrics
    assert round(final["val-core/aime24/acc/mean@1"], 3) == 0.767


def test_running_e5_at_21_steps(root: Path) -> None:
    ((path, parsed),) = logs_of(root, RUNNING_EXPERIMENT)
    assert parsed.steps.get_column("step").to_list() == list(range(0, 22))
    assert not parsed.meta.final_validation and parsed.meta.total_steps == 150
    last_line = path.read_bytes().decode("utf-8").rstrip("\n").rsplit("\n", 1)[-1]
    assert "\x1b[0m step:21 - " in last_line
    rates = pass_rates(root, RUNNING_EXPERIMENT)
    assert (round(min(rates)), round(max(rates))) == (73, 94)
    entropy = column(root, RUNNING_EXPERIMENT, "actor/entropy")
    assert (round(min(entropy), 2), round(max(entropy), 2)) == (0.22, 0.28)
    assert h_m(hours(root, RUNNING_EXPERIMENT)) == "4h23m"
    assert rolling_median_spikes(column(root, RUNNING_EXPERIMENT, "actor/grad_norm")) == []
    assert 79.0 <= start_end(rates)[0] <= 81.0  # starts like the others


# ---------------------------------------------------------------------------------------------- advancing


def test_advance_appends_exactly_the_next_step(root: Path, tmp_path: Path) -> None:
    demo = write_demo_root(tmp_path / "live", now=NOW)
    path = next((demo / RUNNING_EXPERIMENT).glob("*.log"))
    before = path.read_bytes()
    assert advance_running(demo) is True
    after_22 = path.read_bytes()
    assert after_22.startswith(before)
    assert read_log(path).steps.get_column("step").to_list() == list(range(0, 23))
    assert advance_running(demo) is True
    assert path.read_bytes().startswith(after_22)
    parsed = read_log(path)
    assert parsed.steps.get_column("step").to_list() == list(range(0, 24))
    assert "\x1b[0m step:23 - " in path.read_bytes().decode("utf-8").rstrip("\n").rsplit("\n", 1)[-1]
    # a second root advanced the same way holds the same bytes
    twin = write_demo_root(tmp_path / "twin", now=NOW)
    advance_running(twin)
    advance_running(twin)
    assert next((twin / RUNNING_EXPERIMENT).glob("*.log")).read_bytes() == path.read_bytes()


def test_advance_to_the_end(tmp_path: Path) -> None:
    demo = write_demo_root(tmp_path / "full", now=NOW)
    for _ in range(TOTAL_STEPS - 21):
        assert advance_running(demo) is True
    parsed = read_log(next((demo / RUNNING_EXPERIMENT).glob("*.log")))
    assert parsed.steps.get_column("step").to_list() == list(range(0, 151))
    assert parsed.meta.final_validation
    validated = parsed.steps.drop_nulls("val-core/aime24/acc/mean@1").get_column("step").to_list()
    assert validated == [0, 25, 50, 75, 100, 125, 150]
    by_step = dict(parsed.steps.select("step", "val-core/aime24/acc/mean@1").drop_nulls().iter_rows())
    assert max(by_step.values()) < 0.833 and by_step[150] <= 0.767  # E4 stays best, no new tie at 150
    grad = parsed.steps.filter(pl.col("step") > 0).get_column("actor/grad_norm").to_list()
    assert rolling_median_spikes(grad) == [] and robust_outliers(grad) == []


def test_the_demo_always_has_a_running_experiment(tmp_path: Path) -> None:
    """The call that writes E5's last step starts the next run of the 4B track (E6), then written step by step;
    E6's last step starts E7. A restart removes them and puts E5 back at 21/150."""
    from rlmon.runs.loading import load_experiment
    from rlmon.settings import Settings
    from rlmon.sources.discovery import discover_experiments

    def running(root: Path) -> list[tuple[str, str, str, str]]:
        catalog = discover_experiments([root])
        now = max(log.mtime for ref in catalog.experiments for log in ref.files) + 1.0
        loaded = [load_experiment(ref, LogCache(None), now=now, settings=Settings()) for ref in catalog.experiments]
        return [(e.id, e.label, e.track, e.progress_text) for e in loaded if e.status == "running"]

    demo = write_demo_root(tmp_path / "chain", now=NOW)
    for _ in range(TOTAL_STEPS - 22):  # E5: 22 .. 149
        assert advance_running(demo) is True
    assert running(demo) == [(RUNNING_EXPERIMENT, "E5 · REINFORCE++", "Qwen3.5-4B", "149/150")]
    # E5's last step, and in the same call E6 starts (start-up, validation at step 0, step 1)
    assert advance_running(demo) is True
    e6 = next((demo / "4b" / "e6_reinforce_pp_4b").glob("train_*.log"))
    assert read_log(e6).steps.get_column("step").to_list() == [0, 1]
    assert running(demo) == [("4b/e6_reinforce_pp_4b", "E6 · REINFORCE++", "Qwen3.5-4B", "1/150")]
    assert advance_running(demo) is True
    assert read_log(e6).steps.get_column("step").to_list() == [0, 1, 2]
    assert running(demo) == [("4b/e6_reinforce_pp_4b", "E6 · REINFORCE++", "Qwen3.5-4B", "2/150")]
    for _ in range(TOTAL_STEPS - 2):
        assert advance_running(demo) is True
    assert read_log(e6).meta.final_validation
    assert [item[0] for item in running(demo)] == ["4b/e7_reinforce_pp_4b"]
    # E6 is another run, not a copy of E5: its own seed
    e5_text = next((demo / RUNNING_EXPERIMENT).glob("*.log")).read_text(encoding="utf-8")
    assert e5_text.split("step:1 - ", 1)[1][:200] != e6.read_text(encoding="utf-8").split("step:1 - ", 1)[1][:200]
    write_demo_root(demo, now=NOW)
    assert not (demo / "4b" / "e6_reinforce_pp_4b").exists() and not (demo / "4b" / "e7_reinforce_pp_4b").exists()
    assert running(demo) == [(RUNNING_EXPERIMENT, "E5 · REINFORCE++", "Qwen3.5-4B", "21/150")]


def test_advance_without_demo_root(tmp_path: Path) -> None:
    with pytest.raises(RlmonError, match="write the demo root first"):
        advance_running(tmp_path)


# ---------------------------------------------------------------------------------------------- 2B


def test_2b_track(root: Path) -> None:
    starts = {}
    growth = {}
    for experiment in FINISHED_2B:
        start, _ = start_end(pass_rates(root, experiment))
        starts[experiment] = start
        assert 35.0 <= start <= 43.0, (experiment, start)
        length_start, length_end = start_end(column(root, experiment, "response_length/mean"))
        growth[experiment] = length_end - length_start
    elapsed = [hours(root, experiment) for experiment in FINISHED_2B]
    assert (round(min(elapsed), 1), round(max(elapsed), 1)) == (21.2, 26.8)
    assert max(growth, key=growth.__getitem__) == "2b/e3_drgrpo_2b"  # Dr.GRPO grows most on 2B
    assert min(growth, key=growth.__getitem__) == "2b/e1_grpo_2b"
    spread_2b = [start_end(pass_rates(root, e))[1] for e in FINISHED_2B]
    spread_4b = [start_end(pass_rates(root, e))[1] for e in FINISHED_4B]
    assert max(spread_2b) - min(spread_2b) > max(spread_4b) - min(spread_4b)


def test_shutdown_noise_after_some_finished_runs(root: Path) -> None:
    noisy = 0
    for experiment in (*FINISHED_4B, *FINISHED_2B):
        path, parsed = logs_of(root, experiment)[-1]
        text = path.read_bytes().decode("utf-8")
        if "A worker died or was killed" in text:
            noisy += 1
            assert text.index("A worker died") > text.index("Final validation metrics")
            assert parsed.meta.failure is None  # harmless: the run finished first
    assert noisy >= 2
    assert os.path.getsize(next((root / RUNNING_EXPERIMENT).glob("*.log"))) > 0


def test_generation_dumps_fire_the_incorrect_length_signal_on_e1_only(demo_root: Path) -> None:
    # E1 (GRPO) and E3 (Dr.GRPO) dump their training generations: 150 steps of 32 prompts x 8 responses; E1's
    # incorrect responses are drawn 1.1x -> 1.6x as long as its correct ones, E3's 1.1x -> 1.12x.
    fired = {}
    for name in ("e1_grpo_4b", "e2_dapo_4b", "e3_drgrpo_4b"):
        folder = demo_root / "4b" / name
        (log,) = sorted(folder.glob("train_*.log"))[-1:]
        config_dir = "/mnt/rl/verl/rollouts/qwen35_4b_math_rl/" + name + "/rollouts"
        dumped = f"trainer.rollout_data_dir={config_dir}" in log.read_text(encoding="utf-8")
        found = read_training_dumps(
            {"trainer": {"rollout_data_dir": config_dir if dumped else None}}, folder, cache=SampleCache(),
            allowed=[demo_root],
        )  # fmt: skip
        table = outcome_table(found.frame)
        assert found.problems == ()
        assert table.frame.height == (150 if dumped else 0)
        if dumped:
            assert table.frame.select((pl.col("correct") + pl.col("incorrect")).unique()).to_series().to_list() == [256]
            assert table.frame.get_column("groups").unique().to_list() == [32]
        fired[name] = detect_length_gap(table, settings=Settings(), experiment=name) is not None
    assert fired == {"e1_grpo_4b": True, "e2_dapo_4b": False, "e3_drgrpo_4b": False}
