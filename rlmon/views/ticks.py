"""Axis ticks a person can read: 4-7 round numbers per axis, chosen by rlmon rather than left to Vega.

Vega's ``tickCount`` is a hint: d3 picks the step from 1, 2 and 5 times a power of ten closest to it, so a
count of 5 gives anywhere from 3 ticks (pass rate 80-90: "80, 90" once the domain is niced) to 9. rlmon hands
each axis its tick values and the format that writes them, so every axis holds :data:`FEWEST`-:data:`MOST`
ticks at steps of 1, 2, 2.5 or 5 times a power of ten.

Two kinds of axis:

- **value axes** (y of a line chart, a stack): the domain is widened to the ticks just outside the data, so the
  lowest and highest values sit on or inside a labelled tick (:func:`value_ticks`);
- **position axes** (the step or hours axis, a bar's length): the domain stays as it is, so lines reach the
  plot's edges, and the ticks are the round numbers inside it (:func:`position_ticks`).

Examples
--------
>>> value_ticks(0.81, 0.89).values
[0.8, 0.82, 0.84, 0.86, 0.88, 0.9]
>>> position_ticks(1, 150, integer=True).values
[25.0, 50.0, 75.0, 100.0, 125.0, 150.0]
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["FEWEST", "MOST", "Ticks", "position_ticks", "tick_format", "value_ticks"]

FEWEST = 4
"""The fewest ticks an axis gets (when its domain allows that many round numbers)."""
MOST = 7
"""The most ticks an axis gets."""

_MULTIPLIERS = (1.0, 2.0, 2.5, 5.0)
_AIM = 5.5
"""The tick count preferred among those allowed."""


@dataclass(frozen=True)
class Ticks:
    """Tick values of one axis and the domain they go with (``[low, high]``, plain floats for a spec)."""

    values: list[float]
    domain: list[float]
    step: float


def _candidates(span: float, *, integer: bool) -> list[float]:
    exponent = math.floor(math.log10(span / _AIM))
    steps = [m * 10.0**e for e in range(exponent - 1, exponent + 3) for m in _MULTIPLIERS]
    return [step for step in steps if not integer or (step >= 1 and float(step).is_integer())]


def _is_two_and_a_half(step: float) -> bool:
    return math.isclose(step / 10 ** math.floor(math.log10(step)), 2.5)


def _tick_values(first: int, last: int, step: float) -> list[float]:
    digits = max(0, 3 - math.floor(math.log10(step)))
    return [round(index * step, digits) for index in range(first, last + 1)]


def value_ticks(low: float, high: float) -> Ticks | None:
    """Ticks of a value axis over data from ``low`` to ``high``: the domain grows to the round numbers around
    the data. Among the steps giving 4-7 ticks, the one that wastes the least height and lands nearest 5-6
    ticks wins (2.5 steps only when no 1, 2 or 5 step fits as well). None when ``high <= low`` or either is
    not finite (Vega then places ticks around the single value itself).
    """
    if not (math.isfinite(low) and math.isfinite(high) and high > low):
        return None
    span = high - low
    best: tuple[float, Ticks] | None = None
    for step in _candidates(span, integer=False):
        first, last = math.floor(low / step + 1e-9), math.ceil(high / step - 1e-9)
        count = last - first + 1
        if not FEWEST <= count <= MOST:
            continue
        padding = ((last - first) * step - span) / span
        score = abs(count - _AIM) * 0.5 + 4 * padding + (0.6 if _is_two_and_a_half(step) else 0)
        if best is None or score < best[0]:
            values = _tick_values(first, last, step)
            best = (score, Ticks(values=values, domain=[values[0], values[-1]], step=step))
    return None if best is None else best[1]


def position_ticks(low: float, high: float, *, integer: bool = False) -> Ticks | None:
    """Ticks of a position axis whose domain stays ``[low, high]``: the round numbers inside it, 4-7 of them,
    nearest 5-6. ``integer`` keeps steps whole (training steps). None when no step gives 4-7 ticks inside the
    domain (a run of 2 steps) or the domain is empty: Vega then places them.
    """
    if not (math.isfinite(low) and math.isfinite(high) and high > low):
        return None
    best: tuple[float, Ticks] | None = None
    for step in _candidates(high - low, integer=integer):
        first, last = math.ceil(low / step - 1e-9), math.floor(high / step + 1e-9)
        count = last - first + 1
        if not FEWEST <= count <= MOST:
            continue
        score = abs(count - _AIM) + (0.6 if _is_two_and_a_half(step) else 0)
        if best is None or score < best[0]:
            best = (score, Ticks(values=_tick_values(first, last, step), domain=[float(low), float(high)], step=step))
    return None if best is None else best[1]


def tick_format(ticks: Ticks, *, percent: bool = False, si: bool = False) -> str:
    """A d3 format that writes every tick of ``ticks`` whole and short: SI suffixes from 10,000 or with ``si``
    (``7.5k``, ``12.5k``), as many decimals as the step needs below that (``0.25``), exponents for steps under
    0.001; with ``percent``, fractions as percentages (0.825 -> ``82.5%``).

    The precision is always written out: given a format without one, Vega picks it from the tick spacing it
    would have chosen itself, and writes 7,500 as ``8k``.
    """
    step = ticks.step * (100 if percent else 1)
    decimals = 0
    while decimals < 6 and abs(step * 10**decimals - round(step * 10**decimals)) > 1e-6 * step * 10**decimals:
        decimals += 1
    if percent:
        return f".{decimals}%"
    largest = max(abs(value) for value in ticks.values)
    if si or largest >= 10_000:
        return f".{_significant_digits(ticks.values)}~s"
    if step < 0.001:
        return f".{_significant_digits(ticks.values)}~e"
    return f",.{decimals}f"


def _significant_digits(values: list[float]) -> int:
    """The significant digits that write each of ``values`` exactly (12,500 -> 3; 7,500 -> 2)."""
    digits = [len(f"{abs(value):.6e}".split("e")[0].replace(".", "").rstrip("0")) for value in values if value]
    return max([1, *digits])
