"""Group means, standard deviations, counts and band edges on the repeats root (tests/helpers/repeats_root.py),
worked by hand: run (algorithm a, seed s) has pass rate 100 × (0.1a + 0.01s + 0.001k) = 10a + s + 0.1k at step k;
DAPO's seeds 2 and 3 stop after steps 8 and 6, RLOO's seed 3 crashes after step 5."""

from __future__ import annotations

import math

import polars as pl
import pytest

from rlmon.analysis.groups import group_steps
from rlmon.runs.groups import find_groups
from rlmon.views import model
from tests.helpers.repeats_root import repeat_views, write_repeats_root


@pytest.fixture(scope="module")
def pass_rates(tmp_path_factory: pytest.TempPathFactory) -> tuple[pl.DataFrame, dict[str, str]]:
    root = tmp_path_factory.mktemp("repeats")
    write_repeats_root(root)
    views = repeat_views(root)
    members = {
        member: group.name for group in find_groups([view.experiment for view in views]) for member in group.members
    }
    return model.long_frame(views, "pass_rate", x="samples"), members


def _at(stats: pl.DataFrame, group: str, step: int) -> dict[str, float | int | None]:
    (row,) = stats.filter(pl.col("group") == group, pl.col("step") == step).to_dicts()
    return row


def test_min_max_band(pass_rates: tuple[pl.DataFrame, dict[str, str]]) -> None:
    long, members = pass_rates
    stats = group_steps(long, members, band="minmax", x="samples")
    # GRPO step 4: 1.4, 2.4, 3.4 -> mean 2.4, sample std 1, band 1.4-3.4, n 3; 32 samples a step -> 128
    row = _at(stats, "GRPO", 4)
    assert (row["mean"], row["std"], row["low"], row["high"], row["n"], row["samples"]) == (
        pytest.approx(2.4),
        pytest.approx(1.0),
        pytest.approx(1.4),
        pytest.approx(3.4),
        3,
        128.0,
    )
    # DAPO step 7: seed 3 stopped after 6 -> 11.7, 12.7: mean 12.2, std sqrt(0.5), band 11.7-12.7, n 2
    row = _at(stats, "DAPO", 7)
    assert (row["mean"], row["std"], row["low"], row["high"], row["n"]) == (
        pytest.approx(12.2),
        pytest.approx(math.sqrt(0.5)),
        pytest.approx(11.7),
        pytest.approx(12.7),
        2,
    )
    # DAPO step 9: seed 1 alone -> its value, no band
    assert _at(stats, "DAPO", 9) == {"group": "DAPO", "step": 9, "samples": 288.0, "mean": pytest.approx(11.9),
                                     "std": None, "low": None, "high": None, "n": 1}  # fmt: skip
    # RLOO: seed 3 crashed after step 5, so from step 6 the mean is seeds 1 and 2 only
    assert _at(stats, "RLOO", 5)["n"] == 3 and _at(stats, "RLOO", 5)["mean"] == pytest.approx(22.5)
    row = _at(stats, "RLOO", 6)
    assert (row["n"], row["mean"], row["low"], row["high"]) == (
        2,
        pytest.approx(22.1),
        pytest.approx(21.6),
        pytest.approx(22.6),
    )


def test_std_band(pass_rates: tuple[pl.DataFrame, dict[str, str]]) -> None:
    long, members = pass_rates
    stats = group_steps(long, members, band="std")
    # DAPO step 8: 11.8, 12.8 -> mean 12.3 ± sqrt(0.5)
    row = _at(stats, "DAPO", 8)
    assert (row["low"], row["high"]) == (pytest.approx(12.3 - math.sqrt(0.5)), pytest.approx(12.3 + math.sqrt(0.5)))
    assert "samples" not in stats.columns
    assert stats.filter(pl.col("group") == "GRPO").height == 10
