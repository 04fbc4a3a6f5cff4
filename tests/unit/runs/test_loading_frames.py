"""An experiment without its frame held: read back through the log cache (``CachedSteps``), kept as JSON
(:mod:`rlmon.runs.stored`), moved to another moment (``retimed``); its track guessed from the start of its logs
(``peek_track``), and the derived metrics computed from some columns (``derived_columns``).

Expected values come from the logs' text (the step lines the tests write: ``actor/m<k>`` at step ``n`` is
``n + k/100``; the model a real log's config dump names) or from the rules written in the docstrings.
"""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
import time
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from rlmon.logs.cache import LogCache
from rlmon.runs.experiment import Experiment, SourceFile, retimed, summarize_progress
from rlmon.runs.loading import CachedSteps, let_go_of_steps, load_experiment, peek_track
from rlmon.runs.metrics import add_derived_metrics, derived_columns, pass_rate_mode_of
from rlmon.runs.stored import experiment_from_state, to_state
from rlmon.schema import STEP, RunMeta
from rlmon.settings import Settings
from rlmon.sources.discovery import discover_experiments
from tests.helpers.experiments import make_experiment
from tests.helpers.logs import step_lines

HEAD = b"(TaskRunner pid=7) {'actor_rollout_ref': {'model': {'path': '/models/Qwen3-4B'}}}\n"


def _root(tmp_path: Path) -> Path:
    """Two experiments: ``a`` in two files (the second resumes at step 8 and overlaps 8-10), ``b`` in one."""
    root = tmp_path / "logs"
    (root / "a").mkdir(parents=True)
    (root / "b").mkdir()
    (root / "a" / "train_20260101_000000.log").write_bytes(HEAD + step_lines(1, 10))
    (root / "a" / "train_20260102_000000.log").write_bytes(
        HEAD + step_lines(8, 8).replace(b"actor/m1:", b"actor/late:")
    )
    (root / "b" / "train_20260101_000000.log").write_bytes(HEAD + step_lines(1, 5))
    return root


def test_an_experiment_let_go_reads_the_same_frame_back(tmp_path: Path) -> None:
    root = _root(tmp_path)
    cache = LogCache(tmp_path / "cache", quiet_s=0, memory_mb=0)
    for ref in discover_experiments([root]).experiments:
        held = load_experiment(ref, LogCache(None, quiet_s=0), now=time.time(), settings=Settings())
        slim = let_go_of_steps(load_experiment(ref, cache, now=time.time(), settings=Settings()), cache)
        assert slim.steps.height == 0
        assert slim.steps.columns == held.steps.columns
        assert_frame_equal(slim.read_steps(), held.steps)
        for column in held.steps.columns:
            assert_frame_equal(slim.read_steps([column]), held.steps.select(STEP, column) if column != STEP else
                               held.steps.select(STEP))  # fmt: skip
    a = let_go_of_steps(
        load_experiment(discover_experiments([root]).experiments[0], cache, now=time.time(), settings=Settings()),
        cache,
    )
    # step 9: both files log it; the later file wins for actor/m0, and only the later one logs actor/late
    row = a.read_steps(["actor/m0", "actor/late", "actor/m1"]).filter(pl.col(STEP) == 9)
    assert row.rows() == [(9, 9.0, 9.01, 9.01)]
    assert a.read_steps(["actor/late"]).filter(pl.col(STEP) == 3).rows() == [(3, None)]
    assert a.read_steps(["no/such"]).columns == [STEP]


def test_cached_steps_of_an_experiment_lists_only_the_files_whose_frames_it_merges() -> None:
    sources = [
        SourceFile(name="a.log", path="/x/a.log", size=1, mtime=0.0, role="steps"),
        SourceFile(name="b.log", path="/x/b.log", size=1, mtime=0.0, role="not RL"),
        SourceFile(name="c.log", path="/x/c.log", size=1, mtime=0.0, role="unreadable"),
        SourceFile(name="d.log", path="/x/d.log", size=1, mtime=0.0, role="start-up only"),
        SourceFile(name="e.log", path="/x/e.log", size=1, mtime=0.0, role="resumed"),
        SourceFile(name="f.log", path="/x/f.log", size=1, mtime=0.0, role="crashed attempt"),
    ]
    assert CachedSteps.of(sources, LogCache(None)).paths == ("/x/a.log", "/x/d.log", "/x/e.log", "/x/f.log")


def test_an_experiment_kept_as_json_comes_back_field_for_field(tmp_path: Path, realdata_dir: Path) -> None:
    shutil.copy(realdata_dir / "dstack-ppo-qwen25-7b-resumed-2025-05.log", tmp_path / "run.log")
    (tmp_path / "two").mkdir()
    for name in ("logicrl-grpo-main_task-startup-crash-2025-02.log", "charcount-grpo-readme-2025-08.log"):
        shutil.copy(realdata_dir / name, tmp_path / "two" / name)
    cache = LogCache(tmp_path / "cache", quiet_s=0)
    for ref in discover_experiments([tmp_path]).experiments:
        experiment = load_experiment(ref, cache, now=time.time(), settings=Settings())
        state = json.loads(json.dumps(to_state(experiment)))
        back = experiment_from_state(state, cache=cache)
        for item in dataclasses.fields(Experiment):
            if item.name in ("steps", "step_source"):
                continue
            assert getattr(back, item.name) == getattr(experiment, item.name), item.name
        assert back.steps.schema == experiment.steps.schema and back.steps.height == 0
        assert_frame_equal(back.read_steps(), experiment.steps)


@pytest.mark.parametrize(
    "damage",
    [
        lambda state: state.pop("label"),
        lambda state: state.update(extra=1),
        lambda state: state.update(steps=[["actor/x", "Float64"]]),
        lambda state: state.update(steps=[["step", "Int64"], ["actor/x", "Utf8"]]),
        lambda state: state.update(sources=[{"name": "a"}]),
        lambda state: state.update(metas=["not a dict"]),
        lambda state: state.update(algorithm=None),
    ],
)
def test_a_damaged_state_is_refused(damage: object) -> None:
    experiment = make_experiment({"actor/x": [1.0, 2.0]})
    state = json.loads(json.dumps(to_state(experiment)))
    damage(state)  # type: ignore[operator]
    with pytest.raises(ValueError):
        experiment_from_state(state, cache=LogCache(None))


def test_a_config_json_cannot_hold_is_not_kept() -> None:
    experiment = make_experiment({"actor/x": [1.0]}, config={"ranks": {1, 2}})
    with pytest.raises(TypeError):
        to_state(experiment)


def _running(*, last_modified: float) -> Experiment:
    steps = pl.DataFrame({"step": [1, 2, 3], "timing_s/step": [60.0, 60.0, 60.0]})
    progress = summarize_progress(
        steps, [RunMeta(kind="rl", total_steps=10)], last_modified=last_modified, now=last_modified + 30
    )
    source = SourceFile(name="a.log", path="/x/a.log", size=1, mtime=last_modified, role="steps", steps=3)
    return dataclasses.replace(
        make_experiment({"timing_s/step": [60.0, 60.0, 60.0]}),
        status=progress.status, steps_done=3, total_steps=10, median_step_s=60.0, eta_h=progress.eta_h,
        idle_s=progress.idle_s, last_modified=last_modified, sources=(source,),
    )  # fmt: skip


def test_a_running_run_turns_stalled_when_the_clock_moves_past_its_quiet_time() -> None:
    experiment = _running(last_modified=1_000.0)
    assert (experiment.status, experiment.idle_s) == ("running", 30.0)
    # 7 steps left x 60 s
    assert math.isclose(experiment.eta_h or 0, 7 * 60 / 3600)
    # stalled after max(3 x 60 s, 600 s) = 600 s of quiet
    later = retimed(experiment, now=1_600.0, stall_factor=3.0, stall_min_s=600.0)
    assert (later.status, later.idle_s, later.eta_h) == ("running", 600.0, experiment.eta_h)
    stalled = retimed(experiment, now=1_601.0, stall_factor=3.0, stall_min_s=600.0)
    assert (stalled.status, stalled.idle_s, stalled.eta_h) == ("stalled", 601.0, None)
    assert retimed(stalled, now=1_700.0, stall_factor=3.0, stall_min_s=600.0).idle_s == 700.0
    assert experiment.status == "running"  # the experiment itself is not changed


def test_retiming_says_what_summarising_the_frame_again_says() -> None:
    steps = pl.DataFrame({"step": [1, 2, 3], "timing_s/step": [60.0, 90.0, 60.0]})
    metas = [RunMeta(kind="rl", total_steps=10)]
    first = _running(last_modified=5_000.0)
    for now in (5_100.0, 5_600.0, 5_601.0, 9_000.0):
        again = summarize_progress(steps, metas, last_modified=5_000.0, now=now)
        moved = retimed(first, now=now, stall_factor=3.0, stall_min_s=600.0)
        assert (moved.status, moved.idle_s, moved.eta_h) == (again.status, again.idle_s, again.eta_h), now


def test_a_run_not_started_turns_stalled_and_a_finished_one_stays_finished() -> None:
    waiting = dataclasses.replace(
        make_experiment({}, status="not started", steps_done=0), last_modified=0.0, idle_s=10.0
    )
    # no step time: stalled after 3 x 600 s
    assert retimed(waiting, now=1_800.0, stall_factor=3.0, stall_min_s=600.0).status == "not started"
    assert retimed(waiting, now=1_801.0, stall_factor=3.0, stall_min_s=600.0).status == "stalled"
    done = dataclasses.replace(make_experiment({"a": [1.0]}, status="finished"), last_modified=0.0)
    assert retimed(done, now=10**9, stall_factor=3.0, stall_min_s=600.0).status == "finished"
    crashed = dataclasses.replace(make_experiment({"a": [1.0]}, status="crashed", failure="E"), last_modified=0.0)
    moved = retimed(crashed, now=10**9, stall_factor=3.0, stall_min_s=600.0)
    assert (moved.status, moved.failure, moved.idle_s) == ("crashed", "E", 10.0**9)


@pytest.mark.parametrize(
    ("log", "track"),
    [
        # 'path': 'Qwen/Qwen2.5-7B-Instruct' in its config dump
        ("dstack-ppo-qwen25-7b-resumed-2025-05.log", "Qwen2.5-7B-Instruct"),
        # a Hugging Face cache path: models--Qwen--Qwen2-7B-Instruct/snapshots/...
        ("gpg-qwen2-7b-fsdp-gsm8k-math-2025-06.log", "Qwen2-7B-Instruct"),
        # no dump: the launch command's actor_rollout_ref.model.path=Qwen/Qwen2.5-0.5B-Instruct
        ("ehl-qwen25-05b-ppo-gsm8k-v0.1-2024-12.log", "Qwen2.5-0.5B-Instruct"),
        # model.path=$MODEL_PATH: the log does not say
        ("amd-mi300-deepseek7b-grpo-gsm8k-2025-03.log", None),
    ],
)
def test_the_track_is_guessed_from_the_start_of_the_logs(
    tmp_path: Path, realdata_dir: Path, log: str, track: str | None
) -> None:
    (tmp_path / "run").mkdir()
    shutil.copy(realdata_dir / log, tmp_path / "run" / log)
    (ref,) = discover_experiments([tmp_path]).experiments
    assert peek_track(ref) == track


def test_the_track_rlmon_toml_sets_is_the_guess(tmp_path: Path) -> None:
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "train.log").write_bytes(HEAD + step_lines(1, 3))
    (tmp_path / "rlmon.toml").write_text('[experiments."run"]\ntrack = "Team 4B"\n', encoding="utf-8")
    (ref,) = discover_experiments([tmp_path]).experiments
    assert peek_track(ref) == "Team 4B"


def test_each_derived_metric_is_computed_from_the_columns_it_names(realdata_dir: Path) -> None:
    cache = LogCache(None, quiet_s=0)
    for name in ("dstack-ppo-qwen25-7b-resumed-2025-05.log", "gpg-qwen2-7b-fsdp-gsm8k-math-2025-06.log",
                 "ehl-qwen25-05b-ppo-gsm8k-v0.1-2024-12.log"):  # fmt: skip
        steps = cache.read(realdata_dir / name).steps
        whole, _skipped = add_derived_metrics(steps)
        expressions = derived_columns(steps.columns, pass_rate_mode=pass_rate_mode_of(steps, None))
        assert list(expressions) == [column for column in whole.columns if column not in steps.columns]
        for column, expression in expressions.items():
            roots = list(dict.fromkeys(expression.meta.root_names()))
            some = steps.select(STEP, *roots).sort(STEP).with_columns(expression)
            assert_frame_equal(some.select(STEP, column), whole.select(STEP, column)), (name, column)


def test_numbers_and_signals_of_an_experiment_let_go_are_those_of_the_frame(tmp_path: Path, realdata_dir: Path) -> None:
    from rlmon.analysis.signals import detect_signals, detect_status_signals, detect_step_signals
    from rlmon.runs.headline import headline_numbers, remember_headline

    for name in ("dstack-ppo-qwen25-7b-resumed-2025-05.log", "tpu-xla-ppo-stalled-at-step0-2025-07.log"):
        folder = tmp_path / name.removesuffix(".log")
        folder.mkdir()
        shutil.copy(realdata_dir / name, folder / name)
    cache = LogCache(tmp_path / "cache", quiet_s=0, memory_mb=0)
    settings = Settings()
    for ref in discover_experiments([tmp_path]).experiments:
        held = load_experiment(ref, LogCache(None, quiet_s=0), now=time.time(), settings=settings)
        slim = let_go_of_steps(load_experiment(ref, cache, now=time.time(), settings=settings), cache)
        assert headline_numbers(slim) == headline_numbers(held)
        signals = detect_signals(slim, settings=settings)
        assert signals == detect_signals(held, settings=settings)
        assert signals == [
            *detect_status_signals(held, settings=settings),
            *detect_step_signals(held, settings=settings),
        ]
    # numbers remembered for an experiment object are its numbers, its frame not read
    other = make_experiment({"actor/x": [1.0]})
    kept = dataclasses.replace(headline_numbers(held), experiment=other.id)
    remember_headline(other, kept)
    assert headline_numbers(other) is kept
