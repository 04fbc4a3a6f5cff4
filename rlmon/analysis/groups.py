"""What a group of repeated runs (:mod:`rlmon.runs.groups`) says at each step: the members' mean, their spread
(min–max, or ± one standard deviation) and how many members have a value there.

A member that stopped (crashed, or not yet as far as the others) counts only up to its last step: the mean after
it is the other members' mean, and ``n`` says so. The band needs two members: where only one has a value there is
a mean (that member's value) and no band.

>>> import polars as pl
>>> long = pl.DataFrame({"experiment": ["a", "b", "a"], "step": [1, 1, 2], "value": [1.0, 3.0, 5.0]})
>>> group_steps(long, {"a": "g", "b": "g"}, band="minmax").select("step", "mean", "low", "high", "n").rows()
[(1, 2.0, 1.0, 3.0, 2), (2, 5.0, None, None, 1)]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

import polars as pl

from rlmon.schema import EXPERIMENT, STEP, VALUE

__all__ = ["BAND_KINDS", "GROUP", "Band", "group_steps"]

GROUP = "group"
Band = Literal["minmax", "std"]
BAND_KINDS: tuple[Band, ...] = ("minmax", "std")


def group_steps(
    long: pl.DataFrame, members: Mapping[str, str], *, band: Band, value: str = VALUE, x: str = STEP
) -> pl.DataFrame:
    """One row per group and step: the members' ``mean``, sample standard deviation ``std`` (n - 1; null with
    one member), the band's ``low`` and ``high`` (min and max, or mean ∓ std; null with one member) and ``n``.

    Parameters
    ----------
    long
        Rows of ``experiment``, ``step``, ``value`` (and ``x`` when it is not the step); null values are left out.
    members
        Experiment id -> group key; experiments not in it are left out.
    band
        ``minmax`` or ``std``.
    x
        Another x column (hours, samples, ...): each row gets the members' mean of it at that step.

    Returns
    -------
    pl.DataFrame
        ``group``, ``step``, ``x`` (when not the step), ``mean``, ``std``, ``low``, ``high``, ``n``; sorted by group
        and step.
    """
    rows = long.filter(pl.col(EXPERIMENT).is_in(list(members)), pl.col(value).is_not_null()).with_columns(
        pl.col(EXPERIMENT).replace_strict(dict(members), return_dtype=pl.String).alias(GROUP)
    )
    extra = [pl.col(x).mean().alias(x)] if x != STEP else []
    stats = rows.group_by(GROUP, STEP).agg(
        *extra,
        pl.col(value).mean().alias("mean"),
        pl.col(value).std(ddof=1).alias("std"),
        pl.col(value).min().alias("_min"),
        pl.col(value).max().alias("_max"),
        pl.len().cast(pl.Int64).alias("n"),
    )
    several = pl.col("n") >= 2
    if band == "minmax":
        low, high = pl.col("_min"), pl.col("_max")
    else:
        low, high = pl.col("mean") - pl.col("std"), pl.col("mean") + pl.col("std")
    return (
        stats.with_columns(
            pl.when(several).then(pl.col("std")).alias("std"),
            pl.when(several).then(low).alias("low"),
            pl.when(several).then(high).alias("high"),
        )
        .drop("_min", "_max")
        .select(GROUP, STEP, *([x] if x != STEP else []), "mean", "std", "low", "high", "n")
        .sort(GROUP, STEP)
    )
