"""An experiment view whose frame is not held reads the columns it is asked for through its experiment and computes
its derived metrics and hours again: every column the same as the view of the same experiment held in memory
(whose frame is ``add_derived_metrics`` of the merged logs plus ``hours``)."""

from __future__ import annotations

import dataclasses
import shutil
import time
from pathlib import Path

import polars as pl
from polars.testing import assert_frame_equal

from rlmon.logs.cache import LogCache
from rlmon.runs.loading import let_go_of_steps, load_experiment
from rlmon.schema import HOURS, STEP
from rlmon.settings import Settings
from rlmon.sources.discovery import discover_experiments
from rlmon.views import model
from tests.helpers.generated_roots import write_generated_root

REAL_LOGS = (
    "dstack-ppo-qwen25-7b-resumed-2025-05.log",  # PPO with a critic, validation, resumed
    "gpg-qwen2-7b-fsdp-gsm8k-math-2025-06.log",  # timing_s/* phases, math and gsm8k validation
    "gui-cursor-agentloop-grpo-2026-03.log",  # scores from -1: the pass rate is (mean+1)/2
    "ehl-qwen25-05b-ppo-gsm8k-v0.1-2024-12.log",  # v0.1: timing/* phases, 0-based steps
)


def _pairs(root: Path, cache_dir: Path) -> list[tuple[model.ExperimentView, model.ExperimentView]]:
    cache = LogCache(cache_dir, quiet_s=0, memory_mb=0)
    pairs = []
    for ref in discover_experiments([root]).experiments:
        held = model.view_of(ref, load_experiment(ref, LogCache(None, quiet_s=0), now=time.time(), settings=Settings()))
        slim = model.view_of(ref, let_go_of_steps(load_experiment(ref, cache, now=time.time(), settings=Settings()),
                                                  cache))  # fmt: skip
        pairs.append((held, slim))
    return pairs


def _assert_same_view(held: model.ExperimentView, slim: model.ExperimentView) -> None:
    assert held.held_steps is not None and slim.held_steps is None
    assert (slim.logged_keys, slim.derived_keys, slim.pass_rate_mode) == (
        held.logged_keys, held.derived_keys, held.pass_rate_mode,
    )  # fmt: skip
    assert slim.columns == tuple(held.steps.columns)
    assert_frame_equal(slim.steps, held.steps)
    for column in held.steps.columns:
        assert_frame_equal(slim.read_steps([column]), held.read_steps([column]))
    picked = ["pass_rate", HOURS, "no/such/key", held.logged_keys[0]]
    assert_frame_equal(slim.read_steps(picked), held.read_steps(picked))
    assert slim.read_steps(picked).columns[0] == STEP


def test_views_of_real_logs_read_by_column_are_the_views_held(tmp_path: Path, realdata_dir: Path) -> None:
    for name in REAL_LOGS:
        (tmp_path / "logs" / name).mkdir(parents=True)
        shutil.copy(realdata_dir / name, tmp_path / "logs" / name / name)
    pairs = _pairs(tmp_path / "logs", tmp_path / "cache")
    assert {held.pass_rate_mode for held, _ in pairs} == {"pm1", "01"}
    for held, slim in pairs:
        _assert_same_view(held, slim)


def test_views_of_a_generated_root_read_by_column_are_the_views_held(tmp_path: Path) -> None:
    write_generated_root(tmp_path / "logs")
    for held, slim in _pairs(tmp_path / "logs", tmp_path / "cache"):
        _assert_same_view(held, slim)
        # the generated scores run from -0.2 up: read off its logs, the pass rate is (mean + 1) / 2 in %
        scores = held.experiment.steps.select(STEP, "critic/score/mean").drop_nulls()
        rates = slim.read_steps(["pass_rate"]).join(scores, on=STEP)
        assert (rates["pass_rate"] - (rates["critic/score/mean"] + 1) / 2 * 100).abs().max() < 1e-9  # type: ignore[operator]


def test_long_frame_and_the_view_held_agree(tmp_path: Path) -> None:
    write_generated_root(tmp_path / "logs")
    pairs = _pairs(tmp_path / "logs", tmp_path / "cache")
    for metric in ("pass_rate", "response_length/mean", "actor/entropy", "val_score/aime24", "elapsed_h"):
        assert_frame_equal(
            model.long_frame([slim for _, slim in pairs], metric), model.long_frame([held for held, _ in pairs], metric)
        )


def test_a_view_of_a_frame_let_go_keeps_the_pass_rate_mode_of_rlmon_toml(tmp_path: Path) -> None:
    (tmp_path / "logs" / "run").mkdir(parents=True)
    (tmp_path / "logs" / "run" / "train.log").write_text(
        "(TaskRunner pid=1) step:1 - critic/score/mean:0.5 - critic/score/min:-1.0\n"
        "(TaskRunner pid=1) step:2 - critic/score/mean:0.25 - critic/score/min:-1.0\n",
        encoding="utf-8",
    )
    (tmp_path / "logs" / "rlmon.toml").write_text('[experiments."run"]\npass_rate = "raw"\n', encoding="utf-8")
    ((held, slim),) = _pairs(tmp_path / "logs", tmp_path / "cache")
    assert slim.pass_rate_mode == "raw"
    assert slim.read_steps(["pass_rate"])["pass_rate"].to_list() == [0.5, 0.25]
    _assert_same_view(held, slim)
    other = dataclasses.replace(slim, pass_rate_mode="01")  # the mode decides the derived column, not the frame
    assert other.read_steps(["pass_rate"])["pass_rate"].to_list() == [50.0, 25.0]
    assert pl.Series(slim.read_steps([HOURS])[HOURS]).null_count() == 2  # no step times: no hours
