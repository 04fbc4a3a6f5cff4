"""Smoothing and downsampling of long frames (see :mod:`rlmon.schema`).

Smoothing follows TensorBoard's scalars plugin: a debiased exponential moving average whose weight ``w``
equals ``ewm_mean(alpha=1 - w, adjust=True)``, non-finite points skipped, constant series left as they are.
Each metric is smoothed over its own logged points in step order, so a validation key logged every 25
steps is smoothed over its test steps, not over the gaps between them.

Downsampling keeps, per bucket of the x axis, the point with the smallest value, the one with the largest
value and the last one, plus the series' first point, so spikes and the newest value always survive.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import polars as pl

from rlmon.errors import SettingError
from rlmon.schema import EXPERIMENT, METRIC, STEP, VALUE

__all__ = [
    "SMOOTHED",
    "Smoothing",
    "SmoothingMethod",
    "decimate",
    "downsample",
    "ema",
    "ema_expr",
    "moving_average",
    "moving_average_expr",
    "with_smoothed",
]

SMOOTHED = "smoothed"
"""Name of the column :func:`with_smoothed` adds."""

SmoothingMethod = Literal["none", "ema", "moving_average"]
METHODS: tuple[SmoothingMethod, ...] = ("none", "ema", "moving_average")
_SERIES_KEYS = [EXPERIMENT, METRIC]


@dataclass(frozen=True)
class Smoothing:
    """A smoothing choice: the method and its parameters.

    Parameters
    ----------
    method
        ``"none"``, ``"ema"`` (TensorBoard-compatible debiased EMA) or ``"moving_average"``.
    weight
        EMA weight in ``[0, 1)``; 0 leaves values unchanged, 0.99 smooths hard. TensorBoard's default is 0.6.
    window
        Moving-average window in logged points, at least 1 (the seed dashboard used 5).

    Raises
    ------
    SettingError
        When the method is unknown, the weight is outside ``[0, 1)`` or the window is below 1.

    Examples
    --------
    >>> Smoothing("ema", weight=0.6).label()
    'EMA 0.6'
    """

    method: SmoothingMethod = "none"
    weight: float = 0.6
    window: int = 5

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise SettingError(f"smoothing method {self.method!r} is not one of {', '.join(METHODS)}")
        # bool is an int subclass; reject it so True/False never passes for a number.
        if isinstance(self.weight, bool) or not isinstance(self.weight, int | float):
            raise SettingError(f"smoothing weight {self.weight!r} is not a number")
        if not 0.0 <= float(self.weight) < 1.0:
            raise SettingError(f"smoothing weight {self.weight!r} must be in [0, 1)")
        if isinstance(self.window, bool) or not isinstance(self.window, int):
            raise SettingError(f"moving-average window {self.window!r} is not a whole number")
        if self.window < 1:
            raise SettingError(f"moving-average window {self.window!r} must be at least 1")

    @property
    def enabled(self) -> bool:
        """True when the method changes values (``"none"`` does not)."""
        return self.method != "none"

    def label(self) -> str:
        """A short neutral label: ``none``, ``EMA 0.6`` or ``MA 5``."""
        if self.method == "ema":
            return f"EMA {self.weight:g}"
        if self.method == "moving_average":
            return f"MA {self.window}"
        return "none"


def _finite_or_null(expr: pl.Expr) -> pl.Expr:
    return pl.when(expr.is_finite()).then(expr).otherwise(None)


def ema_expr(expr: pl.Expr, weight: float) -> pl.Expr:
    """TensorBoard-compatible debiased EMA of ``expr`` as a polars expression.

    Non-finite and null points are skipped (later values are computed as if they were absent) and get a
    null result; a series whose finite values are all equal is returned unsmoothed. Use it inside
    ``.over(...)`` for per-series smoothing; rows must already be in step order.

    Parameters
    ----------
    expr
        A Float64 expression.
    weight
        Smoothing weight in ``[0, 1)``.
    """
    _check_weight(weight)
    finite = _finite_or_null(expr)
    smoothed = finite.ewm_mean(alpha=1.0 - weight, adjust=True, ignore_nulls=True)
    constant = finite.min() == finite.max()
    return pl.when(finite.is_null()).then(None).when(constant).then(finite).otherwise(smoothed)


def moving_average_expr(expr: pl.Expr, window: int) -> pl.Expr:
    """Trailing moving average over ``window`` rows, partial windows at the start (``min_samples=1``).

    The window counts rows, so feed it finite values only (as :func:`moving_average` and
    :func:`with_smoothed` do) for the window to count logged points.
    """
    _check_window(window)
    return expr.rolling_mean(window_size=window, min_samples=1)


def ema(values: pl.Series, weight: float) -> pl.Series:
    """TensorBoard-compatible debiased EMA of a series (see :func:`ema_expr`).

    Examples
    --------
    >>> ema(pl.Series([1.0, 2.0, 3.0]), 0.5).to_list()
    [1.0, 1.6666666666666665, 2.4285714285714284]
    """
    frame = pl.DataFrame({"v": values.cast(pl.Float64)})
    return frame.select(ema_expr(pl.col("v"), weight)).to_series().alias(values.name)


def moving_average(values: pl.Series, window: int) -> pl.Series:
    """Trailing moving average over the last ``window`` finite points; non-finite points give null.

    Examples
    --------
    >>> moving_average(pl.Series([1.0, 3.0, 5.0]), 2).to_list()
    [1.0, 2.0, 4.0]
    """
    _check_window(window)
    frame = pl.DataFrame({"v": values.cast(pl.Float64)}).with_row_index("_row")
    finite = frame.filter(pl.col("v").is_finite())
    averaged = finite.select("_row", moving_average_expr(pl.col("v"), window).alias("_avg"))
    joined = frame.join(averaged, on="_row", how="left").sort("_row")
    return joined["_avg"].alias(values.name)


def with_smoothed(
    long: pl.DataFrame,
    *,
    method: SmoothingMethod = "none",
    weight: float = 0.6,
    window: int = 5,
) -> pl.DataFrame:
    """Add a ``smoothed`` column, computed per (experiment, metric) over that metric's points in step order.

    Parameters
    ----------
    long
        A long frame (:mod:`rlmon.schema`); extra columns are kept.
    method, weight, window
        As in :class:`Smoothing` (validated the same way). ``"none"`` copies ``value``.

    Returns
    -------
    pl.DataFrame
        ``long`` sorted by experiment, metric and step, plus ``smoothed`` (Float64). Non-finite or null
        values get a null ``smoothed`` and do not affect their neighbours.
    """
    choice = Smoothing(method, weight=weight, window=window)
    ordered = long.sort([*_SERIES_KEYS, STEP], maintain_order=True)
    value = pl.col(VALUE)
    if not choice.enabled:
        return ordered.with_columns(_finite_or_null(value).alias(SMOOTHED))
    if choice.method == "ema":
        return ordered.with_columns(ema_expr(value, choice.weight).over(_SERIES_KEYS).alias(SMOOTHED))
    # Moving average: compute over finite rows only, so a NaN neither enters nor shortens a window.
    indexed = ordered.with_row_index("_row")
    finite = indexed.filter(value.is_finite())
    averaged = finite.select("_row", moving_average_expr(value, choice.window).over(_SERIES_KEYS).alias(SMOOTHED))
    return indexed.join(averaged, on="_row", how="left").sort("_row").drop("_row")


def downsample(long: pl.DataFrame, *, max_points: int = 2000, x: str = STEP) -> pl.DataFrame:
    """Keep at most about ``max_points`` rows per (experiment, metric), spikes and the last point included.

    Each series is cut into ``(max_points - 1) // 3`` buckets of consecutive points along ``x``; each bucket
    keeps its smallest value, its largest value and its last point, and the series keeps its first point.
    A series with no more than ``max_points`` points is returned whole.

    Parameters
    ----------
    long
        A long frame (:mod:`rlmon.schema`); extra columns (e.g. ``smoothed``) travel with their rows.
    max_points
        Upper bound on the points kept per series (at least 4).
    x
        The x column (``"step"`` or ``"hours"``); rows whose ``x`` is null are dropped.

    Returns
    -------
    pl.DataFrame
        The kept rows, sorted by experiment, metric and ``x``.

    Raises
    ------
    SettingError
        When ``max_points`` is below 4 or ``x`` is not a column of ``long``.
    """
    if max_points < 4:
        raise SettingError(f"max_points {max_points} must be at least 4")
    if x not in long.columns:
        raise SettingError(f"downsampling axis {x!r} is not a column ({', '.join(long.columns)})")
    buckets = (max_points - 1) // 3
    ordered = long.filter(pl.col(x).is_not_null()).sort([*_SERIES_KEYS, x], maintain_order=True)
    # The rows come by series: a series is numbered where its keys change, so the windows below group by one
    # integer instead of hashing the (experiment, metric) texts of every row again and again.
    starts = pl.any_horizontal([pl.col(key).ne_missing(pl.col(key).shift()) for key in _SERIES_KEYS])
    marked = ordered.with_columns(starts.cum_sum().alias("_series")).with_columns(
        pl.int_range(pl.len(), dtype=pl.Int64).over("_series").alias("_idx"),
        pl.len().cast(pl.Int64).over("_series").alias("_n"),
    )
    longest = marked.get_column("_n").max()
    if not isinstance(longest, int) or longest <= max_points:
        return ordered  # every series is short enough: all of it is kept
    position = pl.col("_idx")
    bucket = pl.col("_series").cast(pl.Int64) * buckets + position * buckets // pl.col("_n")
    marked = marked.with_columns(bucket.alias("_bucket"), _finite_or_null(pl.col(VALUE)).alias("_v"))
    keep = (
        (pl.col("_n") <= max_points)
        | (position == 0)
        | (position == position.max().over("_bucket"))
        | (position == position.sort_by(pl.col("_v"), nulls_last=True).first().over("_bucket"))
        | (position == position.sort_by(pl.col("_v"), descending=True, nulls_last=True).first().over("_bucket"))
    )
    return marked.filter(keep).drop("_series", "_idx", "_n", "_v", "_bucket")


def decimate(long: pl.DataFrame, *, columns: int, x: str = STEP) -> pl.DataFrame:
    """Keep, per (experiment, metric) and per pixel column of the plot, the point with the smallest value and the
    one with the largest, plus each series' first and last point: what a line drawn ``columns`` pixels wide shows.

    The x range of the whole frame (the chart's x axis) is cut into ``columns`` equal slices, one per pixel column;
    a line through each slice's lowest and highest point covers the same pixels as the line through all its
    points, so a one-step spike stays drawn. A series of at most ``2 * columns`` points is kept whole (dropping
    points would save nothing). Unlike :func:`downsample`, whose buckets count points, the slices follow ``x``:
    on the hours axis a stretch of many quick steps shares a few columns.

    Parameters
    ----------
    long
        A long frame (:mod:`rlmon.schema`); extra columns travel with their rows.
    columns
        The plot area's width in pixels (at least 1).
    x
        The x column; rows whose ``x`` is null are dropped.

    Returns
    -------
    pl.DataFrame
        The kept rows, sorted by experiment, metric and ``x``: at most ``2 * columns + 2`` per series.

    Raises
    ------
    SettingError
        When ``columns`` is below 1 or ``x`` is not a column of ``long``.

    Examples
    --------
    >>> frame = pl.DataFrame({"experiment": ["e"] * 10, "metric": ["m"] * 10, "step": list(range(10)),
    ...                       "value": [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0, 5.0, 3.0]})
    >>> decimate(frame, columns=2)["step"].to_list()
    [0, 1, 4, 5, 6, 9]
    """
    if columns < 1:
        raise SettingError(f"columns {columns} must be at least 1")
    if x not in long.columns:
        raise SettingError(f"decimation axis {x!r} is not a column ({', '.join(long.columns)})")
    ordered = long.filter(pl.col(x).is_not_null()).sort([*_SERIES_KEYS, x], maintain_order=True)
    if ordered.is_empty():
        return ordered
    low, high = ordered.get_column(x).min(), ordered.get_column(x).max()
    longest = ordered.group_by(_SERIES_KEYS).len().get_column("len").max()
    if not isinstance(longest, int) or longest <= 2 * columns or not high > low:  # type: ignore[operator]
        return ordered
    span = float(high) - float(low)  # type: ignore[arg-type]
    # the slice of an x: floor((x - low) / span * columns), the last x closing the last slice
    column = ((pl.col(x).cast(pl.Float64) - float(low)) * (columns / span)).floor().cast(pl.Int64).clip(0, columns - 1)  # type: ignore[arg-type]
    # The rows come by series: a series is numbered where its keys change, and a slice is one integer (series
    # and column), so the groups below hash integers, not the (experiment, metric) texts of every row.
    starts = pl.any_horizontal([pl.col(key).ne_missing(pl.col(key).shift()) for key in _SERIES_KEYS])
    marked = ordered.with_row_index("_row").with_columns(starts.cum_sum().cast(pl.Int64).alias("_series"))
    marked = marked.with_columns(
        (pl.col("_series") * columns + column).alias("_slice"),
        pl.len().over("_series").alias("_n"),
        _finite_or_null(pl.col(VALUE)).alias("_v"),
    )
    lowest = pl.col("_row").sort_by("_v", nulls_last=True, maintain_order=True).first()
    highest = pl.col("_row").sort_by("_v", descending=True, nulls_last=True, maintain_order=True).first()
    picked = marked.group_by("_slice").agg(lowest.alias("_low"), highest.alias("_high"))
    ends = marked.group_by("_series").agg(pl.col("_row").first().alias("_first"), pl.col("_row").last().alias("_last"))
    kept = pl.concat([picked["_low"], picked["_high"], ends["_first"], ends["_last"]])
    keep = (pl.col("_n") <= 2 * columns) | pl.col("_row").is_in(kept.implode())
    return marked.filter(keep).drop("_row", "_series", "_slice", "_n", "_v")


def _check_weight(weight: float) -> None:
    if not 0.0 <= weight < 1.0:
        raise SettingError(f"smoothing weight {weight!r} must be in [0, 1)")


def _check_window(window: int) -> None:
    if window < 1:
        raise SettingError(f"moving-average window {window!r} must be at least 1")
