"""The x axes besides step and hours: samples seen, tokens and GPU-hours, worked by hand from a crafted log
(tests/data/x_axes.log), from hand-made experiments and from a real verl log."""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest

from rlmon.logs.cache import LogCache
from rlmon.runs.axes import GPU_HOURS, SAMPLES, TOKENS, axis_facts, missing_for_axis
from rlmon.runs.loading import load_experiments
from rlmon.settings import Settings
from rlmon.sources.discovery import discover_experiments
from rlmon.views import model
from rlmon.views.axes import axis_notes
from tests.helpers.experiments import make_experiment
from tests.helpers.paths import DATA


def _view_of_log(log: Path, tmp_path: Path) -> model.ExperimentView:
    """The one experiment of a folder holding ``log``, read as the app reads it."""
    folder = tmp_path / "root" / "run"
    folder.mkdir(parents=True)
    shutil.copy(log, folder / "train.log")
    catalog = discover_experiments([tmp_path / "root"])
    (experiment,) = load_experiments(
        catalog, LogCache(tmp_path / "cache"), now=log.stat().st_mtime, settings=Settings()
    )
    return model.view_of(catalog.experiments[0], experiment)


def _axes(view: model.ExperimentView) -> list[tuple[int, float | None, float | None, float | None]]:
    return view.steps.select("step", SAMPLES, TOKENS, GPU_HOURS).rows()


def test_crafted_log_on_each_axis(tmp_path: Path) -> None:
    view = _view_of_log(DATA / "x_axes.log", tmp_path)
    # 4 prompts x 2 responses = 8 samples a training step; step:0 is validation only and adds nothing.
    # Tokens: perf/total_num_tokens 1500, (step 2 did not log it: +0), 2500.
    # GPU-hours: 8 GPUs x 2 nodes = 16 x elapsed hours (360 s = 0.1 h, +720 s = 0.3 h, +1080 s = 0.6 h).
    assert _axes(view) == [
        (0, 0.0, 0.0, 0.0),
        (1, 8.0, 1500.0, pytest.approx(1.6)),
        (2, 16.0, 1500.0, pytest.approx(4.8)),
        (3, 24.0, 4000.0, pytest.approx(9.6)),
    ]
    assert view.axis_facts.token_source == "total_num_tokens"
    long = model.long_frame([view], "response_length/mean", x=TOKENS)
    assert long.select("step", TOKENS, "value").rows() == [(1, 1500.0, 100.0), (2, 1500.0, 150.0), (3, 4000.0, 200.0)]


def test_response_tokens_when_total_not_logged() -> None:
    config = {"data": {"train_batch_size": 3}, "actor_rollout_ref": {"rollout": {"n": 4}}}
    experiment = make_experiment({"response_length/mean": [10.0, None, 20.0]}, config=config)
    facts = axis_facts(experiment, experiment.steps.columns)
    assert (facts.samples_per_step, facts.gpus, facts.token_source) == (12, None, "response_length")
    view = model.view_of(None, experiment)  # type: ignore[arg-type]
    # Row 2 logged nothing at all: not a training step. 12 x 10 = 120, then 120 + 12 x 20 = 360.
    assert view.steps.select(SAMPLES, TOKENS, GPU_HOURS).rows() == [
        (12.0, 120.0, None),
        (12.0, 120.0, None),
        (24.0, 360.0, None),
    ]
    assert missing_for_axis(facts, "gpu_hours", has_hours=False) == "axis_missing_step_times"
    assert missing_for_axis(facts, "samples", has_hours=False) is None


def test_runs_lacking_what_an_axis_needs_are_named() -> None:
    bare = make_experiment({"critic/score/mean": [0.1, 0.2], "timing_s/step": [60.0, 60.0]}, label="E7 · GRPO")
    config = {
        "data": {"train_batch_size": 2},
        "actor_rollout_ref": {"rollout": {"n": 2}},
        "trainer": {"n_gpus_per_node": 4, "nnodes": 1},
    }
    full = make_experiment(
        {"critic/score/mean": [0.1, 0.2], "timing_s/step": [60.0, 60.0], "response_length/mean": [5.0, 5.0]},
        experiment_id="e8",
        label="E8 · DAPO",
        config=config,
    )
    views = [model.view_of(None, item) for item in (bare, full)]  # type: ignore[arg-type]
    assert axis_notes(views, "step", "en") == ()
    samples = axis_notes(views, "samples", "en")
    assert samples[0] == (
        "Not on the samples seen axis: E7 · GRPO (no prompts × samples per step, data.train_batch_size × "
        "actor_rollout_ref.rollout.n, in its settings)."
    )
    assert "counted from each log's first training step" in samples[-1]
    tokens = axis_notes(views, "tokens", "en")
    assert tokens[1] == "Tokens: response tokens of each step, response_length/mean × prompts × samples, summed."
    assert axis_notes(views, "gpu_hours", "zh")[0].startswith("未画在「GPU 小时」横轴上：E7 · GRPO")
    # E8 on the GPU-hours axis: 4 GPUs x (60 s, 120 s) = 4/60 and 8/60 GPU-hours
    assert views[1].steps[GPU_HOURS].to_list() == pytest.approx([4 / 60, 8 / 60])


def test_real_log_on_each_axis(realdata_dir: Path, tmp_path: Path) -> None:
    view = _view_of_log(realdata_dir / "gpg-qwen2-7b-fsdp-gsm8k-math-2025-06.log", tmp_path)
    # From the log: data.train_batch_size=1024, actor_rollout_ref.rollout.n=5, trainer.n_gpus_per_node=8,
    # trainer.nnodes=1; step:0 is the initial validation; step:1 perf/total_num_tokens:2094523.000
    # timing_s/step:252.485, step:2 perf/total_num_tokens:1939128.000 timing_s/step:238.206.
    rows = view.steps.filter(pl.col("step") <= 2).select("step", SAMPLES, TOKENS, GPU_HOURS, "hours").rows()
    assert rows[0] == (0, 0.0, 0.0, 0.0, 0.0)
    assert rows[1] == (1, 5120.0, 2094523.0, pytest.approx(252.485 / 3600 * 8), pytest.approx(252.485 / 3600))
    assert rows[2] == (
        2,
        10240.0,
        4033651.0,
        pytest.approx((252.485 + 238.206) / 3600 * 8),
        pytest.approx((252.485 + 238.206) / 3600),
    )
    # global_seqlen/mean:261815.375 at step 1 is the same total split over its 8 data-parallel ranks
    assert 261815.375 * 8 == 2094523.0
    for axis in ("step", "hours", "samples", "tokens", "gpu_hours"):
        long = model.long_frame([view], "pass_rate", x=axis)
        assert long.height == 210, axis  # every training step, on every axis
