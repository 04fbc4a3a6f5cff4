"""Headline numbers of one experiment, and the number formats.

Experiments are built by hand (:func:`make_experiment`) from a few columns; every expected value is worked out
in the comments from the input series.
"""

from __future__ import annotations

import dataclasses
import math
import shutil
from pathlib import Path

import polars as pl
import pytest

from rlmon.runs.experiment import Experiment
from rlmon.runs.headline import (
    Headline,
    finite_series,
    headline_numbers,
    percentile,
)
from rlmon.schema import STEP
from tests.helpers.experiments import make_experiment


def test_percentile_linear() -> None:
    values = [float(v) for v in range(1, 22)]  # 1..21: position = 20 * q
    assert percentile(values, 0.05) == pytest.approx(2.0)
    assert percentile(values, 0.95) == pytest.approx(20.0)
    assert percentile([3.0, 1.0], 0.5) == pytest.approx(2.0)
    assert percentile([], 0.5) is None


def test_finite_series_leaves_out_null_steps_and_null_or_non_finite_values() -> None:
    frame = pl.DataFrame(
        {
            STEP: [1, 2, None, 4, 5, 6, 7],
            "x": [0.5, math.nan, 3.0, None, math.inf, -0.0, -math.inf],
        },
        schema={STEP: pl.Int64, "x": pl.Float64},
    )
    steps, values = finite_series(frame, "x")
    assert steps == [1, 6]  # step 2 NaN, step None, step 4 null, step 5 +inf, step 7 -inf: out
    assert values == [0.5, -0.0]
    assert all(type(step) is int for step in steps)


def test_finite_series_reads_whole_numbers_and_columns_of_nulls() -> None:
    frame = pl.DataFrame({STEP: [3, 4], "n": [7, 8], "none": [None, None]})
    assert finite_series(frame, "n") == ([3, 4], [7.0, 8.0])
    assert finite_series(frame, "none") == ([], [])
    assert finite_series(frame, "absent") == ([], [])
    assert finite_series(frame.clear(), "n") == ([], [])


# -------------------------------------------------------------------------------------------- headline


def _pm1_experiment() -> Experiment:
    # Scores in {-1, 1} (min is -1): pass rate = (mean + 1) / 2 * 100.
    # means -0.2, -0.1, 0, 0.1, 0.2 -> 40, 45, 50, 55, 60; then 0.5 x 7 -> 75 x 7.
    score = [-0.2, -0.1, 0.0, 0.1, 0.2] + [0.5] * 7
    length = [1000.0, 2000.0, 3000.0, 4000.0, 5000.0] + [6000.0] * 7
    entropy = [0.30, 0.30, 0.30, 0.30, 0.30, 0.20, 0.20, 0.20, 0.20, 0.20, 0.20, 0.10]
    grad = [0.2, 0.1, 0.3, math.nan, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 1.0, 0.05]
    val = [None, None, None, None, 0.5, None, None, None, None, 0.7, None, 0.6]
    other_val = [None] * 11 + [0.9]
    return make_experiment(
        {
            "critic/score/mean": score,
            "critic/score/min": [-1.0] * 12,
            "response_length/mean": length,
            "response_length/max": [8000.0] * 11 + [16384.0],
            "actor/entropy": entropy,
            "actor/grad_norm": grad,
            "val-core/aime24/acc/mean@1": val,
            "val-core/gsm8k/acc/mean@1": other_val,
        },
        elapsed_h=32.55,
        config={"data": {"max_response_length": 16384}},
    )


def test_headline_start_end_means() -> None:
    headline = headline_numbers(_pm1_experiment())
    assert isinstance(headline, Headline)
    assert headline.steps == 12
    # first 5: (40+45+50+55+60)/5 = 50; last 10: (50+55+60+75*7)/10 = 69
    assert headline.pass_rate_start == pytest.approx(50.0)
    assert headline.pass_rate_end == pytest.approx(69.0)
    # first 5: 3000; last 10: (3000+4000+5000+6000*7)/10 = 5400
    assert headline.response_length_start == pytest.approx(3000.0)
    assert headline.response_length_end == pytest.approx(5400.0)
    assert headline.response_length_max == 16384.0
    assert headline.response_cap == 16384
    # entropy first 5: 0.30; last 10: (0.30*3 + 0.20*6 + 0.10)/10 = 0.22
    assert headline.entropy_key == "actor/entropy"
    assert headline.entropy_start == pytest.approx(0.30)
    assert headline.entropy_end == pytest.approx(0.22)
    assert headline.elapsed_h == 32.55
    assert len(headline.pass_rate_series) == 12
    assert headline.pass_rate_series[0] == pytest.approx(40.0)


def test_headline_grad_norm_skips_non_finite() -> None:
    headline = headline_numbers(_pm1_experiment())
    # finite values: 0.2 0.1 0.3 0.2 0.2 0.2 0.2 0.2 0.2 0.2 1.0 0.05 without the NaN -> 11 values
    assert headline.grad_norm_min == pytest.approx(0.05)
    assert headline.grad_norm_max == pytest.approx(1.0)
    # sorted: 0.05 0.1 0.2*7 0.3 1.0; p05 at position 0.5 -> 0.075; p95 at position 9.5 -> 0.65
    assert headline.grad_norm_p05 == pytest.approx(0.075)
    assert headline.grad_norm_p95 == pytest.approx(0.65)


def test_headline_validation_best_last_and_source() -> None:
    headline = headline_numbers(_pm1_experiment())
    # aime24 is validated 3 times, gsm8k once: aime24 is the headline source.
    assert headline.validation_source == "aime24"
    assert headline.validation_key == "val-core/aime24/acc/mean@1"
    best = headline.best()
    last = headline.last()
    assert best is not None and (best.step, best.value) == (10, 0.7)
    assert last is not None and (last.step, last.value) == (12, 0.6)
    gsm8k = headline.best("gsm8k")
    assert gsm8k is not None and (gsm8k.step, gsm8k.value) == (12, 0.9)
    assert headline.best("nope") is None


def test_headline_best_is_first_step_reaching_it() -> None:
    experiment = make_experiment({"val-core/aime24/acc/mean@1": [0.5, 0.8, 0.8, 0.6], "actor/grad_norm": [0.1] * 4})
    best = headline_numbers(experiment).best()
    assert best is not None and best.step == 2


def test_headline_validation_only_final_row_counts_for_validation_not_training() -> None:
    # v0.2: the final validation is logged on its own row after the last training step.
    experiment = make_experiment(
        {"critic/score/mean": [0.5, 0.6, None], "val/test_score/gsm8k": [None, 0.4, 0.45]}, steps=[1, 2, 3]
    )
    headline = headline_numbers(experiment)
    assert headline.steps == 2
    last = headline.last()
    assert last is not None and (last.step, last.value) == (3, 0.45)
    # scores in {0, 1} (no negative minimum logged): pass = mean * 100 -> (50 + 60) / 2
    assert headline.pass_rate_start == pytest.approx(55.0)


def test_headline_missing_metrics_are_none() -> None:
    headline = headline_numbers(make_experiment({"actor/pg_loss": [0.1, 0.2]}))
    assert headline.pass_rate_start is None and headline.pass_rate_end is None
    assert headline.response_length_start is None and headline.response_cap is None
    assert headline.entropy_key is None and headline.entropy_start is None
    assert headline.grad_norm_min is None and headline.grad_norm_p95 is None
    assert headline.validation_source is None and headline.best() is None and headline.last() is None
    assert headline.pass_rate_series == ()


def test_headline_empty_experiment() -> None:
    headline = headline_numbers(make_experiment({}, status="not started"))
    assert headline.steps == 0
    assert headline.pass_rate_start is None
    assert headline.to_json_dict()["steps"] == 0


def test_headline_old_entropy_name() -> None:
    headline = headline_numbers(make_experiment({"actor/entropy_loss": [0.5, 0.4, 0.3]}))
    assert headline.entropy_key == "actor/entropy_loss"
    assert headline.entropy_start == pytest.approx(0.4)


def test_headline_json_is_plain() -> None:
    data = _pm1_experiment()
    payload = headline_numbers(data).to_json_dict()
    assert payload["experiment"] == "e1_grpo"
    assert payload["best_validation"][0]["data_source"] == "aime24"
    assert isinstance(payload["pass_rate_series"], list)


def test_headline_validation_before_training_is_the_baseline_not_a_result() -> None:
    # val_before_train logs step 0 (validation only); training starts at step 1 (format reference §1.3)
    experiment = make_experiment(
        {"critic/score/mean": [None, 0.5, 0.6], "val-core/aime24/acc/mean@1": [0.9, None, 0.4]}, steps=[0, 1, 2]
    )
    headline = headline_numbers(experiment)
    best, last = headline.best(), headline.last()
    assert best is not None and (best.step, best.value) == (2, 0.4)
    assert last is not None and (last.step, last.value) == (2, 0.4)
    # a run that has only been validated before training has no best or last validation yet
    early = make_experiment(
        {"critic/score/mean": [None, 0.5, 0.6], "val-core/aime24/acc/mean@1": [0.567, None, None]}, steps=[0, 1, 2]
    )
    assert headline_numbers(early).best() is None
    assert headline_numbers(early).last() is None


def test_old_entropy_name_on_a_real_log(realdata_dir: Path, tmp_path: Path) -> None:
    """A March-2025 verl log names the entropy ``actor/entropy_loss``; the headline, the signal and the paragraph
    read that series, the one ``resolve_key("actor/entropy", columns)`` gives a chart. Values from the log's
    step lines, by hand:

    * steps 1-5: ``actor/entropy_loss:0.389``, ``0.392``, ``0.361``, ``0.355``, ``0.295`` -> mean 1.792/5 = 0.3584;
    * steps 1110-1119 (the last training steps; step 1120 is validation only): 0.023, 0.022, 0.023, 0.023,
      0.022, 0.022, 0.023, 0.024, 0.022, 0.022 -> mean 0.226/10 = 0.0226;
    * ``actor/grad_norm`` over the 1119 training steps: lowest 0.008 (step 659), highest 19.057.
    """
    from rlmon.analysis.signals import detect_signals
    from rlmon.analysis.summary import experiment_paragraph, write_summary
    from rlmon.logs.cache import LogCache
    from rlmon.runs.loading import load_experiment
    from rlmon.runs.metrics import resolve_key
    from rlmon.settings import Settings
    from rlmon.sources.discovery import discover_experiments

    name = "amd-mi300-deepseek7b-grpo-gsm8k-2025-03"
    folder = tmp_path / "root" / name
    folder.mkdir(parents=True)
    shutil.copyfile(realdata_dir / f"{name}.log", folder / f"{name}.log")  # a tmp root: the catalog reads folders
    catalog = discover_experiments([tmp_path / "root"])
    now = (folder / f"{name}.log").stat().st_mtime + 60.0
    experiment = load_experiment(catalog.experiments[0], LogCache(None), now=now, settings=Settings())
    assert resolve_key("actor/entropy", experiment.steps.columns) == "actor/entropy_loss"

    headline = headline_numbers(experiment)
    assert headline.entropy_key == "actor/entropy_loss"
    assert headline.entropy_start == pytest.approx(0.3584, abs=1e-9)
    assert headline.entropy_end == pytest.approx(0.0226, abs=1e-9)
    assert (headline.grad_norm_min, headline.grad_norm_max) == (pytest.approx(0.008), pytest.approx(19.057))

    signals = detect_signals(experiment, settings=Settings())
    collapse = [signal for signal in signals if signal.kind == "entropy_collapse"]
    assert [signal.metric for signal in collapse] == ["actor/entropy_loss"]
    assert collapse[0].values["start"] == pytest.approx(0.3584, abs=1e-9)
    assert collapse[0].text("en") == "entropy collapses towards zero (0.358→0.023)"
    paragraph = experiment_paragraph(experiment, signals, lang="en")
    assert "entropy 0.358→0.023" in paragraph
    assert "grad_norm 0.008–19.06" in paragraph
    assert "entropy collapses towards zero (0.358→0.023)" in " ".join(write_summary([experiment], signals))


def test_headline_computed_once_per_experiment_object() -> None:
    experiment = make_experiment({"critic/score/mean": [0.5, 0.5, 0.5]}, label="E1 · GRPO")
    first = headline_numbers(experiment)
    assert headline_numbers(experiment) is first
    # a copy under another label (the pages' cut labels) is another experiment object: its own numbers
    relabelled = dataclasses.replace(experiment, label="E1 · shown")
    assert headline_numbers(relabelled).label == "E1 · shown"
    assert headline_numbers(experiment).label == "E1 · GRPO"
