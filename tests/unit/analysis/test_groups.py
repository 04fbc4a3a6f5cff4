"""Group means, standard deviations, counts and band edges on the repeats root (tests/helpers/repeats_root.py),
worked by hand: run (algorithm a, seed s) has pass rate 100 × (0.1a + 0.01s + 0.001k) = 10a + s + 0.1k at step k;
DAPO's seeds 2 and 3 stop after steps 8 and 6, RLOO's seed 3 crashes after step 5."""

from __future__ import annotations

import math
import re
from pathlib import Path

import polars as pl
import pytest

from rlmon.analysis.groups import group_steps
from rlmon.analysis.summary import write_summary
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


def _group_figures(text: str, name: str, *, unit: str = "seeds") -> tuple[int, float, float, float, float]:
    """(members, start mean, start std, end mean, end std) of a group as the summary's pass rates write it:
    ``DAPO (3 seeds) 12.3 ± 1.0% → 12.5 ± 0.9%``."""
    number = r"([\d.]+) ± ([\d.]+)%"
    found = re.search(re.escape(name) + rf" \((\d+) {unit}\) {number} → {number}", text)
    assert found is not None, (name, text)
    count, *figures = found.groups()
    return (int(count), *(float(figure) for figure in figures))  # type: ignore[return-value]


def test_summary_speaks_of_groups(tmp_path: Path) -> None:
    write_repeats_root(tmp_path / "found")
    experiments = [view.experiment for view in repeat_views(tmp_path / "found")]
    paragraphs = write_summary(experiments, [], lang="en")
    text = "\n".join(paragraphs)
    # the statuses per group, members named only where they differ: GRPO's three seeds all finished 10/10; RLOO's
    # seed 3 crashed after step 5; DAPO's seeds ran 10, 8 and 6 steps (the two short ones still running: their
    # last lines 30 s before the root's "now")
    assert paragraphs[0] == (
        "Qwen3-4B, 9 runs:\n"
        "- DAPO (3 seeds): dapo_seed1 finished 10/10, dapo_seed2 running 8/10, dapo_seed3 running 6/10\n"
        "- GRPO (3 seeds) finished 10/10\n"
        "- RLOO (3 seeds) finished 10/10, except rloo_seed3 crashed 5/10"
    )
    # pass rate = 100 x score = 10a + s + 0.1k at step k: first-5 mean (k = 3) 10a + s + 0.3, so 11.3, 12.3, 13.3
    # -> 12.3 ± 1.0 for DAPO, 1.3, 2.3, 3.3 -> 2.3 ± 1.0 for GRPO, 21.3, 22.3, 23.3 -> 22.3 ± 1.0 for RLOO.
    # last-10-step means: DAPO 11.55, 12.45 (8 steps), 13.35 (6 steps) -> 12.45 ± 0.9; GRPO 1.55, 2.55, 3.55 ->
    # 2.55 ± 1.0; RLOO 21.55, 22.55, 23.3 (5 steps) -> 22.47 ± 0.88 (one decimal: halves may round either way)
    assert paragraphs[1].startswith("Pass rate, first-5 → last-10-step mean: DAPO (3 seeds) 12.3 ± 1.0% → ")
    assert _group_figures(text, "DAPO") == (3, 12.3, 1.0, pytest.approx(12.45, abs=0.051), 0.9)
    assert _group_figures(text, "GRPO") == (3, 2.3, 1.0, pytest.approx(2.55, abs=0.051), 1.0)
    assert _group_figures(text, "RLOO") == (3, 22.3, 1.0, 22.5, 0.9)
    # no member is named in the pass rates
    assert "seed1" not in paragraphs[1] and "seed2" not in paragraphs[1]
    assert "rloo_seed3 (RLOO) crashed after step 5: RLOO's mean leaves it out from then on." in text
    assert "differ by less than their spread" not in text
    # what sets one seed apart from the others is chance: no such lines for a track of repeats
    assert "What sets each run apart" not in text
    zh = write_summary(experiments, [], lang="zh")
    assert zh[0].splitlines()[1:] == [
        "- DAPO (3 个种子)：dapo_seed1 已完成 10/10，dapo_seed2 运行中 8/10，dapo_seed3 运行中 6/10",
        "- GRPO (3 个种子) 已完成 10/10",
        "- RLOO (3 个种子) 已完成 10/10，但 rloo_seed3 崩溃 5/10",
    ]
    assert "RLOO (3 个种子) 22.3 ± 1.0% → 22.5 ± 0.9%" in zh[1]
    # Two groups set in rlmon.toml, "(2 runs)", not seeds: A = grpo seeds 1, 2 (start 1.3, 2.3 -> 1.8 ± 0.7; end
    # 1.55, 2.55 -> 2.05 ± 0.71), B = grpo seed 3 and dapo seed 1 (3.3, 11.3 -> 7.3 ± 5.7; 3.55, 11.55 -> 7.55 ±
    # 5.66): 5.5 apart < 5.66. DAPO's seeds 2 and 3 are still found as a group of their own (12.3, 13.3 -> 12.8 ±
    # 0.7; 12.45, 13.35 -> 12.9 ± 0.64), 4.9 from B's 7.55, within B's spread too.
    toml = "".join(
        f'[experiments.{folder}]\ngroup = "{name}"\n'
        for folder, name in (("grpo_seed1", "A"), ("grpo_seed2", "A"), ("grpo_seed3", "B"), ("dapo_seed1", "B"))
    )
    write_repeats_root(tmp_path / "set", toml=toml)
    experiments = [view.experiment for view in repeat_views(tmp_path / "set")]
    paragraphs = write_summary(experiments, [], lang="en")
    text = "\n".join(paragraphs)
    assert paragraphs[0].splitlines()[1:] == [
        "- B (2 runs) finished 10/10",
        "- DAPO (2 seeds): dapo_seed2 running 8/10, dapo_seed3 running 6/10",
        "- A (2 runs) finished 10/10",
        "- RLOO (3 seeds) finished 10/10, except rloo_seed3 crashed 5/10",
    ]
    assert _group_figures(text, "A", unit="runs") == (2, 1.8, 0.7, pytest.approx(2.05, abs=0.051), 0.7)
    assert _group_figures(text, "B", unit="runs") == (2, 7.3, 5.7, pytest.approx(7.55, abs=0.051), 5.7)
    assert _group_figures(text, "DAPO") == (2, 12.8, 0.7, 12.9, 0.6)
    assert "DAPO and B differ by less than their spread." in text
    assert "A (2 seeds)" not in text and "B (2 seeds)" not in text
    assert "B and A differ by less than their spread." in text
