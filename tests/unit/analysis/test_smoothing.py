"""Smoothing and downsampling: expected values are hand calculations, written out in the comments."""

from __future__ import annotations

import math

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_series_equal

from rlmon.analysis.smoothing import Smoothing, decimate, downsample, ema, moving_average, with_smoothed
from rlmon.errors import SettingError
from rlmon.schema import LONG_SCHEMA

NAN = float("nan")


def long_frame(rows: list[tuple[str, int, str, float | None]]) -> pl.DataFrame:
    """(experiment, step, metric, value) rows -> a long frame; hours = step / 10."""
    return pl.DataFrame(
        [(exp, step, step / 10, metric, value) for exp, step, metric, value in rows],
        schema=LONG_SCHEMA,
        orient="row",
    )


def tensorboard_ema(values: list[float], weight: float) -> list[float | None]:
    """TensorBoard's scalars-plugin smoothing loop, transcribed (non-finite -> None here)."""
    last = 0.0
    count = 0
    out: list[float | None] = []
    finite = [v for v in values if math.isfinite(v)]
    constant = len(set(finite)) <= 1
    for value in values:
        if not math.isfinite(value):
            out.append(None)
            continue
        if constant:
            out.append(value)
            continue
        last = last * weight + (1 - weight) * value
        count += 1
        out.append(last / (1 - weight**count))
    return out


# --- ema ---------------------------------------------------------------------------------------------


def test_ema_hand_calculation_with_debiasing() -> None:
    # w = 0.5: accumulators 0.5, 1.25, 2.125; debias by 1 - 0.5**k = 0.5, 0.75, 0.875
    result = ema(pl.Series([1.0, 2.0, 3.0]), 0.5).to_list()
    assert result == pytest.approx([1.0, 1.25 / 0.75, 2.125 / 0.875])
    assert result == pytest.approx([1.0, 5 / 3, 17 / 7])


def test_ema_weight_zero_is_identity() -> None:
    assert ema(pl.Series([4.0, -1.0, 9.0]), 0.0).to_list() == pytest.approx([4.0, -1.0, 9.0])


def test_ema_skips_nan_and_null_without_poisoning_later_values() -> None:
    # Skipping the NaN and the null leaves [1, 3, 5] at w = 0.5:
    # acc 0.5 -> 1.0; acc 0.25 + 1.5 = 1.75 / 0.75 = 7/3; acc 0.875 + 2.5 = 3.375 / 0.875 = 27/7
    result = ema(pl.Series([1.0, NAN, 3.0, None, 5.0]), 0.5).to_list()
    assert result[1] is None
    assert result[3] is None
    assert [result[0], result[2], result[4]] == pytest.approx([1.0, 7 / 3, 27 / 7])


def test_ema_skips_infinities() -> None:
    result = ema(pl.Series([2.0, math.inf, -math.inf, 4.0]), 0.5).to_list()
    # [2, 4] at w = 0.5: 2, then (0.5 + 2) / 0.75 = 10/3
    assert result[1] is None and result[2] is None
    assert [result[0], result[3]] == pytest.approx([2.0, 10 / 3])


def test_ema_constant_series_is_left_unsmoothed() -> None:
    assert ema(pl.Series([0.25, 0.25, NAN, 0.25]), 0.9).to_list() == [0.25, 0.25, None, 0.25]


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(
        st.one_of(
            st.floats(min_value=-1e6, max_value=1e6, allow_nan=False),
            st.sampled_from([NAN, math.inf]),
        ),
        min_size=1,
        max_size=40,
    ),
    weight=st.floats(min_value=0.0, max_value=0.99),
)
def test_ema_matches_tensorboard_loop(values: list[float], weight: float) -> None:
    expected = tensorboard_ema(values, weight)
    result = ema(pl.Series(values, dtype=pl.Float64), weight).to_list()
    assert len(result) == len(expected)
    for got, want in zip(result, expected, strict=True):
        if want is None:
            assert got is None
        else:
            assert got == pytest.approx(want, rel=1e-9, abs=1e-6)


# --- moving average ----------------------------------------------------------------------------------


def test_moving_average_window_two_partial_start() -> None:
    # [1], [1, 3], [3, 5]
    assert moving_average(pl.Series([1.0, 3.0, 5.0]), 2).to_list() == [1.0, 2.0, 4.0]


def test_moving_average_skips_nan_in_the_middle() -> None:
    # finite points [1, 5, 7] with window 2: 1, (1+5)/2, (5+7)/2; the NaN row gets null
    assert moving_average(pl.Series([1.0, NAN, 5.0, 7.0]), 2).to_list() == [1.0, None, 3.0, 6.0]


def test_moving_average_window_one_is_identity() -> None:
    assert moving_average(pl.Series([3.0, 1.0, 2.0]), 1).to_list() == [3.0, 1.0, 2.0]


def test_moving_average_keeps_series_name() -> None:
    result = moving_average(pl.Series("pass", [1.0, 3.0]), 5)
    assert_series_equal(result, pl.Series("pass", [1.0, 2.0]))


# --- Smoothing ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {"method": "ema", "weight": 1.0},
        {"method": "ema", "weight": -0.1},
        {"method": "moving_average", "window": 0},
        {"method": "moving_average", "window": 2.5},
        {"method": "gaussian"},
        {"method": "ema", "weight": True},
    ],
)
def test_smoothing_rejects_bad_settings(kwargs: dict[str, object]) -> None:
    with pytest.raises(SettingError):
        Smoothing(**kwargs)  # type: ignore[arg-type]


def test_smoothing_labels_and_enabled() -> None:
    assert Smoothing().label() == "none"
    assert not Smoothing().enabled
    assert Smoothing("ema", weight=0.6).label() == "EMA 0.6"
    assert Smoothing("moving_average", window=5).label() == "MA 5"
    assert Smoothing("ema").enabled


def test_smoothing_is_frozen() -> None:
    choice = Smoothing("ema")
    with pytest.raises(AttributeError):
        choice.weight = 0.2  # type: ignore[misc]


def test_series_functions_reject_bad_parameters() -> None:
    with pytest.raises(SettingError):
        ema(pl.Series([1.0]), 1.0)
    with pytest.raises(SettingError):
        moving_average(pl.Series([1.0]), 0)


# --- with_smoothed -----------------------------------------------------------------------------------


def test_with_smoothed_per_experiment_and_metric_in_step_order() -> None:
    # Rows deliberately out of order and interleaved; each series is smoothed on its own.
    long = long_frame(
        [
            ("b", 2, "m", 3.0),
            ("a", 3, "m", 5.0),
            ("a", 1, "m", 1.0),
            ("b", 1, "m", 1.0),
            ("a", 2, "m", 3.0),
            ("a", 1, "val", 10.0),
            ("a", 25, "val", 20.0),
        ]
    )
    result = with_smoothed(long, method="moving_average", window=2)
    got = {(r["experiment"], r["metric"], r["step"]): r["smoothed"] for r in result.iter_rows(named=True)}
    assert got == {
        ("a", "m", 1): 1.0,
        ("a", "m", 2): 2.0,
        ("a", "m", 3): 4.0,
        ("b", "m", 1): 1.0,
        ("b", "m", 2): 2.0,
        # a validation key is averaged over its own points (steps 1 and 25), not over the gap
        ("a", "val", 1): 10.0,
        ("a", "val", 25): 15.0,
    }
    assert result.columns == [*LONG_SCHEMA, "smoothed"]


def test_with_smoothed_ema_matches_series_function() -> None:
    long = long_frame([("a", 3, "m", 3.0), ("a", 1, "m", 1.0), ("a", 2, "m", 2.0), ("b", 1, "m", 7.0)])
    result = with_smoothed(long, method="ema", weight=0.5)
    a = result.filter(pl.col("experiment") == "a")
    assert a["step"].to_list() == [1, 2, 3]
    assert a["smoothed"].to_list() == pytest.approx([1.0, 5 / 3, 17 / 7])
    # a single point is its own smoothed value
    assert result.filter(pl.col("experiment") == "b")["smoothed"].to_list() == [7.0]


def test_with_smoothed_nan_row_does_not_shorten_window() -> None:
    long = long_frame([("a", 1, "m", 1.0), ("a", 2, "m", NAN), ("a", 3, "m", 5.0)])
    result = with_smoothed(long, method="moving_average", window=2)
    assert result["smoothed"].to_list() == [1.0, None, 3.0]
    assert math.isnan(result["value"][1])  # the raw value is kept as logged


def test_with_smoothed_none_copies_finite_values() -> None:
    long = long_frame([("a", 1, "m", 1.0), ("a", 2, "m", math.inf)])
    assert with_smoothed(long)["smoothed"].to_list() == [1.0, None]


def test_with_smoothed_empty_frame() -> None:
    empty = pl.DataFrame(schema=LONG_SCHEMA)
    for method in ("none", "ema", "moving_average"):
        result = with_smoothed(empty, method=method)  # type: ignore[arg-type]
        assert result.height == 0
        assert "smoothed" in result.columns


def test_with_smoothed_rejects_bad_weight() -> None:
    with pytest.raises(SettingError):
        with_smoothed(long_frame([("a", 1, "m", 1.0)]), method="ema", weight=1.0)


# --- downsample --------------------------------------------------------------------------------------


def spike_series(n: int, spike_step: int) -> pl.DataFrame:
    steps = pl.int_range(1, n + 1, eager=True)
    return pl.DataFrame(
        {
            "experiment": "a",
            "step": steps,
            "hours": steps.cast(pl.Float64) / 100,
            "metric": "actor/grad_norm",
            # a gentle sawtooth with one spike
            "value": pl.Series([0.1 + (i % 7) * 0.01 for i in range(n)]),
        }
    ).with_columns(pl.when(pl.col("step") == spike_step).then(50.0).otherwise(pl.col("value")).alias("value"))


def test_downsample_keeps_spike_first_and_last_within_bound() -> None:
    long = spike_series(100_000, 54_321)
    result = downsample(long, max_points=2000)
    assert result.height <= 2000
    assert result.height > 1000  # not thinned far below the budget
    assert result.filter(pl.col("value") == 50.0)["step"].to_list() == [54_321]
    assert result["step"][0] == 1
    assert result["step"][-1] == 100_000
    assert result["step"].is_sorted()


def test_downsample_keeps_a_dip_too() -> None:
    long = spike_series(10_000, 10).with_columns(
        pl.when(pl.col("step") == 7_777).then(-3.0).otherwise(pl.col("value")).alias("value")
    )
    result = downsample(long, max_points=100)
    assert result.height <= 100
    assert -3.0 in result["value"].to_list()


def test_downsample_short_series_unchanged() -> None:
    long = spike_series(50, 3)
    assert downsample(long, max_points=50).equals(long)


def test_downsample_bounds_each_series_separately() -> None:
    long = pl.concat(
        [
            spike_series(5_000, 100),
            spike_series(300, 7).with_columns(pl.lit("b").alias("experiment")),
            spike_series(5_000, 4_000).with_columns(pl.lit("entropy").alias("metric")),
        ]
    )
    result = downsample(long, max_points=400)
    counts = {(e, m): n for e, m, n in result.group_by("experiment", "metric").len().iter_rows()}
    assert counts[("b", "actor/grad_norm")] == 300  # short run kept whole
    assert 200 < counts[("a", "actor/grad_norm")] <= 400
    assert 200 < counts[("a", "entropy")] <= 400
    assert result.filter(pl.col("metric") == "entropy", pl.col("value") == 50.0)["step"].to_list() == [4_000]


def test_downsample_thins_each_series_in_its_own_buckets() -> None:
    # Run "a" logs entropy (1,000 points, a spike at step 501) and grad_norm (60 points: under the budget, kept
    # whole); run "c" has a higher spike one step later, in the same place of its own buckets. Each series keeps
    # its own spike, and the short one is not thinned for sharing a run with a long one.
    entropy = spike_series(1_000, 501).with_columns(pl.lit("actor/entropy").alias("metric"))
    short = spike_series(60, 30)
    other = spike_series(1_000, 502).with_columns(
        pl.lit("c").alias("experiment"),
        pl.lit("actor/entropy").alias("metric"),
        pl.when(pl.col("step") == 502).then(90.0).otherwise(pl.col("value")).alias("value"),
    )
    result = downsample(pl.concat([other, short, entropy]), max_points=100)
    spikes = result.filter(pl.col("value") >= 50.0).select("experiment", "metric", "step").rows()
    assert sorted(spikes) == [("a", "actor/entropy", 501), ("a", "actor/grad_norm", 30), ("c", "actor/entropy", 502)]
    counts = {(e, m): n for e, m, n in result.group_by("experiment", "metric").len().iter_rows()}
    assert counts[("a", "actor/grad_norm")] == 60
    assert counts[("a", "actor/entropy")] <= 100
    assert counts[("c", "actor/entropy")] <= 100


def test_downsample_on_hours_drops_null_hours_and_keeps_extra_columns() -> None:
    long = spike_series(3_000, 1_500).with_columns(
        pl.when(pl.col("step") <= 10).then(None).otherwise(pl.col("hours")).alias("hours"),
        (pl.col("value") * 2).alias("smoothed"),
    )
    result = downsample(long, max_points=300, x="hours")
    assert result["hours"].null_count() == 0
    assert result["step"][0] == 11
    assert result["step"][-1] == 3_000
    assert (result["smoothed"] == result["value"] * 2).all()


def test_downsample_nan_does_not_hide_the_spike() -> None:
    long = spike_series(1_000, 500).with_columns(
        pl.when(pl.col("step") == 501).then(NAN).otherwise(pl.col("value")).alias("value")
    )
    result = downsample(long, max_points=40)
    assert 50.0 in result["value"].to_list()


def test_downsample_rejects_bad_arguments() -> None:
    long = spike_series(10, 2)
    with pytest.raises(SettingError):
        downsample(long, max_points=3)
    with pytest.raises(SettingError, match="wall"):
        downsample(long, x="wall")


def test_downsample_empty() -> None:
    assert downsample(pl.DataFrame(schema=LONG_SCHEMA)).height == 0


def series(experiment: str, steps: list[int], values: list[float], *, hours: list[float] | None = None) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "experiment": experiment,
            "step": steps,
            "hours": hours if hours is not None else [float(step) for step in steps],
            "metric": "m",
            "value": values,
        },
        schema=LONG_SCHEMA,
    )


def test_decimate_keeps_each_pixel_columns_lowest_and_highest_point_and_the_ends() -> None:
    # Steps 0-9 over 2 pixel columns: column floor(step * 2 / 9), the last step closing the last column, so
    # steps 0-4 and 5-9. Column 0 holds 3, 1, 4, 1, 5: lowest 1 at step 1 (the first of the two), highest 5 at
    # step 4; column 1 holds 9, 2, 6, 5, 3: highest 9 at step 5, lowest 2 at step 6. With the first and last steps.
    long = series("a", list(range(10)), [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0, 5.0, 3.0])
    assert decimate(long, columns=2)["step"].to_list() == [0, 1, 4, 5, 6, 9]


def test_decimate_keeps_a_one_step_spike_of_a_long_line() -> None:
    # 100,000 steps on 800 columns: at most 2 points a column and the two ends; the spike is its column's highest
    long = spike_series(100_000, 54_321)
    result = decimate(long, columns=800)
    assert result.height <= 2 * 800 + 2
    assert result.filter(pl.col("value") == 50.0)["step"].to_list() == [54_321]
    assert (result["step"][0], result["step"][-1]) == (1, 100_000)


def test_decimate_cuts_the_x_range_the_series_share_and_keeps_short_series_whole() -> None:
    # Run "a" spans steps 0-8 (9 points), run "b" steps 0-3 (4 points, at most 2 x 2: kept whole). On 2 columns
    # of the shared range 0-8 (steps 0-3 and 4-8; 8 closes the last), "a" keeps step 0 (first), its column 0's
    # lowest (step 1: 0.0) and highest (step 2: 7.0), its column 1's highest (step 4: 6.0) and lowest (step 7:
    # -1.0), and step 8 (last).
    a = series("a", list(range(9)), [2.0, 0.0, 7.0, 3.0, 6.0, 1.0, 5.0, -1.0, 4.0])
    b = series("b", [0, 1, 2, 3], [1.0, 2.0, 3.0, 4.0])
    result = decimate(pl.concat([b, a]), columns=2)
    assert result.filter(pl.col("experiment") == "a")["step"].to_list() == [0, 1, 2, 4, 7, 8]
    assert result.filter(pl.col("experiment") == "b")["step"].to_list() == [0, 1, 2, 3]


def test_decimate_on_hours_follows_x_not_the_point_count() -> None:
    # Eight quick steps in the first hour, then two slow ones at hours 9 and 10: on 2 columns of hours 0-10
    # (0-5 and 5-10) the eight share column 0 (keeping 0.0 at step 1, the first, 8.0 at step 4 the highest, and
    # -2.0 at step 6 the lowest) and column 1 keeps both slow steps.
    hours = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 9.0, 10.0]
    values = [0.0, 1.0, 2.0, 8.0, 3.0, -2.0, 4.0, 5.0, 6.0, 7.0]
    long = series("a", list(range(1, 11)), values, hours=hours)
    assert decimate(long, columns=2, x="hours")["step"].to_list() == [1, 4, 6, 9, 10]


def test_decimate_rejects_bad_arguments_and_takes_an_empty_frame() -> None:
    with pytest.raises(SettingError):
        decimate(spike_series(10, 2), columns=0)
    with pytest.raises(SettingError, match="wall"):
        decimate(spike_series(10, 2), columns=2, x="wall")
    assert decimate(pl.DataFrame(schema=LONG_SCHEMA), columns=5).height == 0
