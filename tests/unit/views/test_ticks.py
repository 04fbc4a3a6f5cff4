"""Axis ticks (rlmon.views.ticks): expected values worked out by hand from the rules in the module docstring."""

from __future__ import annotations

import math

import pytest

from rlmon.views.ticks import FEWEST, MOST, Ticks, position_ticks, tick_format, value_ticks


def test_value_ticks_grow_the_domain_to_round_numbers_around_the_data() -> None:
    # 0.31-0.87: steps of 0.1 give 0.3-0.9 (7 ticks, 7 % more height); 0.2 would give 0.2-1.0 (43 % more)
    found = value_ticks(0.31, 0.87)
    assert found is not None
    assert found.values == [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
    assert found.domain == [0.3, 0.9]
    # E3's grad norm 0.03-0.23: steps of 0.05 give 0-0.25 (6 ticks)
    found = value_ticks(0.03, 0.23)
    assert found is not None and found.values == [0.0, 0.05, 0.1, 0.15, 0.2, 0.25]
    # a range across zero
    found = value_ticks(-0.5, 0.2)
    assert found is not None and found.values == [-0.6, -0.4, -0.2, 0.0, 0.2]


def test_position_ticks_stay_inside_the_domain_and_keep_steps_whole() -> None:
    found = position_ticks(1, 150, integer=True)
    assert found is not None
    assert found.values == [25.0, 50.0, 75.0, 100.0, 125.0, 150.0]
    assert found.domain == [1.0, 150.0]
    found = position_ticks(1, 7, integer=True)
    assert found is not None and found.values == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
    # 0.1-31.7 hours: every 5 h
    found = position_ticks(0.1, 31.7)
    assert found is not None and found.values == [5.0, 10.0, 15.0, 20.0, 25.0, 30.0]
    # two steps hold no 4 whole ticks: Vega's own
    assert position_ticks(0, 2, integer=True) is None


@pytest.mark.parametrize("empty", [(1.0, 1.0), (2.0, 1.0), (math.nan, 1.0), (0.0, math.inf)])
def test_no_ticks_for_an_empty_or_non_finite_domain(empty: tuple[float, float]) -> None:
    assert value_ticks(*empty) is None
    assert position_ticks(*empty) is None


@pytest.mark.parametrize("high", [1.7e-5, 0.0093, 0.42, 3.3, 97.0, 1234.0, 88_000.0, 3.1e9])
@pytest.mark.parametrize("low_fraction", [0.0, 0.2, 0.75, 0.97])
def test_every_domain_gets_4_to_7_ticks_that_cover_or_sit_inside_it(high: float, low_fraction: float) -> None:
    low = high * low_fraction
    grown = value_ticks(low, high)
    assert grown is not None
    assert FEWEST <= len(grown.values) <= MOST
    assert grown.domain[0] <= low and grown.domain[1] >= high
    inside = position_ticks(low, high)
    assert inside is not None
    assert FEWEST <= len(inside.values) <= MOST
    assert low <= inside.values[0] and inside.values[-1] <= high
    for found in (grown, inside):
        steps = {round(b - a, 12) for a, b in zip(found.values, found.values[1:], strict=False)}
        assert len({f"{step:.6g}" for step in steps}) == 1, found.values  # evenly spaced
        mantissa = found.step / 10 ** math.floor(math.log10(found.step))
        assert any(math.isclose(mantissa, m) for m in (1.0, 2.0, 2.5, 5.0))


def test_tick_format_writes_every_tick_whole() -> None:
    assert tick_format(value_ticks(0.81, 0.89), percent=True) == ".0%"  # type: ignore[arg-type]  # 80%, 82%
    assert tick_format(value_ticks(0.801, 0.899), percent=False) == ",.2f"  # type: ignore[arg-type]  # 0.80, 0.82
    quarter = Ticks(values=[0.0, 0.025, 0.05, 0.075, 0.1], domain=[0.0, 0.1], step=0.025)
    assert tick_format(quarter, percent=True) == ".1%"  # 2.5%
    assert tick_format(quarter) == ",.3f"  # 0.025
    assert tick_format(value_ticks(12_000, 58_000)) == ".1~s"  # type: ignore[arg-type]  # 10k, 20k, ...
    # tokens 5,000-17,500 in steps of 2,500: 7.5k and 12.5k need 2 and 3 digits (a bare "~s" wrote 8k, 13k)
    tokens = value_ticks(5_000, 17_000)
    assert tokens is not None and tokens.values == [5000.0, 7500.0, 10000.0, 12500.0, 15000.0, 17500.0]
    assert tick_format(tokens, si=True) == ".3~s"
    assert tick_format(position_ticks(1, 2000, integer=True), si=True) == ".2~s"  # type: ignore[arg-type]  # 1.5k
    assert tick_format(value_ticks(1e-6, 3e-5)) == ".2~e"  # type: ignore[arg-type]
