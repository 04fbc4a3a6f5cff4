"""The one number family (rlmon.text.numbers): counts, hours, durations, scores, percents, values, ranges."""

from __future__ import annotations

import math

from rlmon.text.numbers import (
    format_count,
    format_duration,
    format_hours,
    format_percent,
    format_progress,
    format_range,
    format_score,
    format_value,
    format_whole,
)


def test_format_count() -> None:
    assert format_count(5123, "en") == "5.1k"
    assert format_count(9700, "en") == "9.7k"
    assert format_count(16384, "en") == "16.4k"
    assert format_count(512, "en") == "512"
    assert format_count(999.4, "en") == "999"
    assert format_count(999.6, "en") == "1.0k"
    assert format_count(1_234_567, "en") == "1.2M"
    assert format_count(None, "en") == "–"
    assert format_count(math.nan, "en") == "–"
    # a count takes the next unit once its figure would round to it: 999,949 is 999.9k, 999,950 would be 1000.0k
    assert format_count(999_949, "en") == "999.9k"
    assert format_count(999_950, "en") == "1.0M"
    assert format_count(5100, "zh") == "5.1千"
    assert format_count(9_949, "zh") == "9.9千"
    assert format_count(9_960, "zh") == "1.0万"


def test_format_whole_and_progress() -> None:
    # exact, every unit shown: a sample's 12,345 tokens, a run's 1,120 of 1,120 steps
    assert format_whole(12_345, "en") == "12,345"
    assert format_whole(12_345, "zh") == "12,345"
    assert format_whole(999, "en") == "999"
    assert format_whole(None, "en") == "–"
    assert format_progress(1120, 1120, "en") == "1,120/1,120"
    assert format_progress(1120, None, "zh") == "1,120 步"


def test_format_hours_and_duration() -> None:
    assert format_hours(32.56, "en") == "32.6h"
    assert format_hours(21.2, "en") == "21.2h"
    assert format_hours(None, "en") == "–"
    # 32h33m = 32.55 h; 4h23m = 4.3833 h
    assert format_duration(32 + 33 / 60, "en") == "32h33m"
    assert format_duration(4 + 23 / 60, "en") == "4h23m"
    assert format_duration(0.75, "en") == "45m"
    assert format_duration(None, "en") == "–"
    # 51 h = 2 days 3 h; 0.005 h = 18 s; a negative duration (a clock step back) reads as none
    assert format_duration(51.0, "en") == "2d3h"
    assert format_duration(0.005, "en") == "18s"
    assert format_duration(-1.0, "en") == "0s"
    assert format_duration(4 + 23 / 60, "zh") == "4小时23分"


def test_format_score_percent_value_range() -> None:
    assert format_score(0.8333333, "en") == "0.833"
    assert format_score(0.6333, "en") == "0.633"
    assert format_score(0.048, "en") == "0.048"
    assert format_percent(88.84, "en") == "88.8%"
    assert format_percent(91.06, "en") == "91.1%"
    assert format_percent(None, "en") == "–"
    assert format_value(0.96, "en") == "0.96"
    assert format_value(1.13, "en") == "1.13"
    assert format_value(0.1, "en") == "0.1"
    assert format_value(0.30, "en") == "0.3"
    assert format_value(0.0042, "en") == "0.0042"
    assert format_value(0.0, "en") == "0"
    assert format_value(37.0, "en") == "37"
    assert format_value(5123.0, "en") == "5.1k"
    assert format_value(math.nan, "en") == "nan"
    assert format_value(-math.inf, "en") == "-inf"
    assert format_range(0.1, 0.3, "en") == "0.1–0.3"
    assert format_range(0.03, 0.23, "en") == "0.03–0.23"
    assert format_range(88.84, 91.06, "en", unit="%") == "88.8–91.1%"
    assert format_range(None, 1.0, "en") == "–"
