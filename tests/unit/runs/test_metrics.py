"""Derived metrics, each checked by hand on a three-row frame."""

from __future__ import annotations

import math
import re

import polars as pl
import pytest

from rlmon.runs.metrics import (
    DERIVED_METRICS,
    VALIDATION_DESCRIPTION,
    VALIDATION_UNIT,
    add_derived_metrics,
    derived_metric,
    detect_pass_rate_mode,
    validation_keys,
)


def frame(**columns: list[float | None]) -> pl.DataFrame:
    return pl.DataFrame({"step": [1, 2, 3], **columns}, schema_overrides={"step": pl.Int64})


def values(steps: pl.DataFrame, name: str) -> list[float | None]:
    return steps.get_column(name).to_list()


def close(actual: list[float | None], expected: list[float | None]) -> None:
    assert len(actual) == len(expected)
    for got, want in zip(actual, expected, strict=True):
        if want is None:
            assert got is None
        else:
            assert got is not None and math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-12), (got, want)


def test_every_entry_is_documented_and_named_in_snake_case() -> None:
    assert DERIVED_METRICS
    for entry in DERIVED_METRICS:
        assert re.fullmatch(r"[a-z][a-z0-9_]*", entry.name), entry.name
        assert entry.description.strip(), f"{entry.name} has no description"
        assert entry.unit.strip(), f"{entry.name} has no unit"
        assert entry.requires and all(entry.requires), f"{entry.name} names no logged keys"
    assert VALIDATION_DESCRIPTION.strip() and VALIDATION_UNIT.strip()
    names = [entry.name for entry in DERIVED_METRICS]
    assert len(names) == len(set(names))


def test_pass_rate_pm1_detected_from_negative_minimum() -> None:
    # ±1 scores: mean 0.6 -> (0.6+1)/2 = 80%, 0.8 -> 90%, -0.2 -> 40%
    steps = frame(**{"critic/score/mean": [0.6, 0.8, -0.2], "critic/score/min": [-1.0, -1.0, -1.0]})
    out, _ = add_derived_metrics(steps)
    close(values(out, "pass_rate"), [80.0, 90.0, 40.0])
    assert detect_pass_rate_mode(steps) == "pm1"


def test_pass_rate_01_when_minimum_is_zero() -> None:
    steps = frame(**{"critic/score/mean": [0.433, 0.645, 0.69], "critic/score/min": [0.0, 0.0, 0.0]})
    out, _ = add_derived_metrics(steps)
    close(values(out, "pass_rate"), [43.3, 64.5, 69.0])


def test_pass_rate_scale_without_a_logged_minimum() -> None:
    # no score minimum logged: a negative mean means ±1 scores -> (mean+1)/2
    steps = frame(**{"critic/score/mean": [-0.2, 0.2, 0.6]})
    assert detect_pass_rate_mode(steps) == "pm1"
    close(values(add_derived_metrics(steps)[0], "pass_rate"), [40.0, 60.0, 80.0])
    # all means positive: the data source decides; aime* and math_dapo are scored ±1 by verl (§3.4)
    aime = frame(**{"critic/score/mean": [0.6, 0.7, 0.8], "val-core/aime24/acc/mean@1": [0.5, None, 0.6]})
    assert detect_pass_rate_mode(aime) == "pm1"
    close(values(add_derived_metrics(aime)[0], "pass_rate"), [80.0, 85.0, 90.0])
    gsm8k = frame(**{"critic/score/mean": [0.6, 0.7, 0.8], "val-core/openai/gsm8k/acc/mean@1": [0.5, None, 0.6]})
    assert detect_pass_rate_mode(gsm8k) == "01"
    close(values(add_derived_metrics(gsm8k)[0], "pass_rate"), [60.0, 70.0, 80.0])


def test_pass_rate_falls_back_to_rewards_mean_and_its_minimum() -> None:
    steps = frame(**{"critic/rewards/mean": [0.0, 0.5, None], "critic/rewards/min": [-1.0, -1.0, None]})
    out, skipped = add_derived_metrics(steps)
    close(values(out, "pass_rate"), [50.0, 75.0, None])
    assert "pass_rate" not in skipped


def test_pass_rate_mode_override_wins_over_detection() -> None:
    steps = frame(**{"critic/score/mean": [0.2, 0.4, 0.6], "critic/score/min": [-1.0, -1.0, -1.0]})
    close(values(add_derived_metrics(steps, pass_rate_mode="01")[0], "pass_rate"), [20.0, 40.0, 60.0])
    close(values(add_derived_metrics(steps, pass_rate_mode="raw")[0], "pass_rate"), [0.2, 0.4, 0.6])
    close(values(add_derived_metrics(steps, pass_rate_mode="pm1")[0], "pass_rate"), [60.0, 70.0, 80.0])


def test_pass_rate_without_min_column_is_read_as_zero_one() -> None:
    steps = frame(**{"critic/score/mean": [0.25, 0.5, 1.0]})
    close(values(add_derived_metrics(steps)[0], "pass_rate"), [25.0, 50.0, 100.0])


def test_rollout_mismatch_prefers_pearson_correlation() -> None:
    steps = frame(
        **{
            "training/rollout_actor_probs_pearson_corr": [0.9995, 0.999, 1.0],
            "training/rollout_probs_diff_mean": [0.5, 0.5, 0.5],
        }
    )
    out, _ = add_derived_metrics(steps)
    close(values(out, "rollout_mismatch"), [5.0, 10.0, 0.0])


def test_rollout_mismatch_from_probs_diff_mean() -> None:
    steps = frame(**{"training/rollout_probs_diff_mean": [0.003, 0.002, None]})
    out, _ = add_derived_metrics(steps)
    close(values(out, "rollout_mismatch"), [30.0, 20.0, None])


def test_clip_fractions_in_percent() -> None:
    steps = frame(
        **{
            "actor/pg_clipfrac": [0.001, 0.0025, 0.0],
            "actor/pg_clipfrac_lower": [0.0, 0.0001, None],
            "response_length/clip_ratio": [0.036, 0.024, 0.5],
        }
    )
    out, _ = add_derived_metrics(steps)
    close(values(out, "pg_clipfrac_pct"), [0.1, 0.25, 0.0])
    close(values(out, "pg_clipfrac_lower_pct"), [0.0, 0.01, None])
    close(values(out, "response_clip_pct"), [3.6, 2.4, 50.0])


def test_step_time_and_elapsed_hours() -> None:
    steps = frame(**{"timing_s/step": [1800.0, None, 5400.0]})
    out, _ = add_derived_metrics(steps)
    close(values(out, "step_time_min"), [30.0, None, 90.0])
    # cumulative: 0.5 h, still 0.5 h (no time logged), then 0.5 + 1.5 = 2.0 h
    close(values(out, "elapsed_h"), [0.5, 0.5, 2.0])


def test_step_time_v01_key_and_unsorted_input() -> None:
    steps = pl.DataFrame({"step": [2, 0, 1], "timing/step": [360.0, 120.0, 240.0]})
    out, _ = add_derived_metrics(steps)
    assert out.get_column("step").to_list() == [0, 1, 2]
    close(values(out, "step_time_min"), [2.0, 4.0, 6.0])
    close(values(out, "elapsed_h"), [120 / 3600, 360 / 3600, 720 / 3600])


def test_validation_scores_per_data_source() -> None:
    steps = frame(
        **{
            "val-core/aime24/acc/mean@1": [None, 0.633, 0.8],
            "val-core/aime24/reward/mean@1": [None, 0.2, 0.6],
            "val-core/openai/gsm8k/reward/mean@1": [0.864, None, 0.879],
        }
    )
    out, _ = add_derived_metrics(steps)
    close(values(out, "val_score/aime24"), [None, 0.633, 0.8])
    close(values(out, "val_score/openai/gsm8k"), [0.864, None, 0.879])


def test_validation_keys_preference_and_eras() -> None:
    columns = [
        "step",
        "val-core/aime24/reward/mean@32",
        "val-core/aime24/acc/mean@32",
        "val-core/aime24/acc/best@32/mean",
        "val-aux/aime24/score/mean@32",
        "val-core/char_count/reward/mean@3",
        "val-core/char_count/reward/best@3/mean",
        "val/test_score/openai/gsm8k",
        "test_score/openai/gsm8k",
        "test_score/lighteval/MATH",
        "critic/score/mean",
    ]
    assert validation_keys(columns) == {
        "aime24": "val-core/aime24/acc/mean@32",
        "char_count": "val-core/char_count/reward/mean@3",
        "lighteval/MATH": "test_score/lighteval/MATH",
        "openai/gsm8k": "val/test_score/openai/gsm8k",
    }
    assert validation_keys(["val-core/Hothan/OlympiadBench:OE_MM_maths_en_COMP/acc/mean@1"]) == {
        "Hothan/OlympiadBench:OE_MM_maths_en_COMP": "val-core/Hothan/OlympiadBench:OE_MM_maths_en_COMP/acc/mean@1"
    }


def test_missing_keys_are_skipped_and_reported_never_raised() -> None:
    steps = frame(**{"actor/entropy": [0.25, 0.24, 0.22]})
    out, skipped = add_derived_metrics(steps)
    assert set(skipped) == {entry.name for entry in DERIVED_METRICS}
    assert out.columns == ["step", "actor/entropy"]
    empty = pl.DataFrame(schema={"step": pl.Int64})
    out, skipped = add_derived_metrics(empty)
    assert out.height == 0 and len(skipped) == len(DERIVED_METRICS)


def test_derived_metric_lookup() -> None:
    assert derived_metric("pass_rate").unit == "%"
    with pytest.raises(KeyError):
        derived_metric("no_such_metric")


def test_v01_step_time_is_the_sum_of_its_phases() -> None:
    steps = frame(
        **{
            "timing/gen": [10.0, None, 20.0],
            "timing/update_actor": [5.0, None, 4.0],
            "timing/testing": [None, None, 6.0],
            "val/test_score/gsm8k": [None, 0.5, None],
        }
    )
    out, skipped = add_derived_metrics(steps)
    assert "step_time_min" not in skipped
    close(values(out, "step_time_min"), [15 / 60, None, 30 / 60])
    close(values(out, "elapsed_h"), [15 / 3600, 15 / 3600, 45 / 3600])


def test_derived_metrics_of_a_frame_in_step_order_and_of_the_same_frame_shuffled_are_the_same() -> None:
    # a log's frame comes in step order and is not sorted again (only checked); either way the result is in
    # step order and known to be, for what needs a sorted step column
    ordered = pl.DataFrame(
        {"step": [1, 2, 3, 4], "critic/score/mean": [0.0, 0.5, -0.5, 1.0]}, schema_overrides={"step": pl.Int64}
    )
    shuffled = ordered[[2, 0, 3, 1]]
    from_ordered, _ = add_derived_metrics(ordered)
    from_shuffled, _ = add_derived_metrics(shuffled)
    assert from_ordered.equals(from_shuffled)
    assert from_ordered.get_column("step").to_list() == [1, 2, 3, 4]
    assert from_ordered.get_column("step").flags["SORTED_ASC"]
    assert from_shuffled.get_column("step").flags["SORTED_ASC"]
