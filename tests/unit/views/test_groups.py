"""Groups of repeats drawn in the overview's line charts (tests/helpers/repeats_root.py: pass rate 10a + s + 0.1k
for algorithm a, seed s, step k): one colour per group for its band, mean line and faint members; a view without
repeats draws as it always did."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from rlmon.analysis.smoothing import Smoothing
from rlmon.settings import Settings
from rlmon.text import UNKNOWN
from rlmon.views import model, overview, report, tables
from tests.helpers.repeats_root import repeat_views, write_repeats_root


def _pass_rate_spec(views: list[model.ExperimentView], *, band: str = "minmax") -> dict[str, Any]:
    (plan,) = overview.comparison_charts(
        ["pass_rate"], views, smoothing=Smoothing("none"), x="step", log_scale=False, signals=(), highlight=(),
        lang="en", max_points=2000, band=band,  # type: ignore[arg-type]
    )  # fmt: skip
    return plan.build()


def _dataset(spec: dict[str, Any], name: str) -> pl.DataFrame:
    return pl.read_ipc_stream(io.BytesIO(spec["datasets"][name]))


def test_band_and_mean_in_the_groups_colour(tmp_path: Path) -> None:
    write_repeats_root(tmp_path)
    views = repeat_views(tmp_path)
    spec = _pass_rate_spec(views)
    marks = [layer["mark"]["type"] for layer in spec["layer"]]
    assert marks[:3] == ["line", "area", "line"]  # the runs, the bands, the means
    lines, band, mean = spec["layer"][:3]
    scale = lines["encoding"]["color"]["scale"]
    # the band and the mean line use the lines' own scale: a group's label gets its first member's colour
    assert band["encoding"]["color"]["scale"] == scale == mean["encoding"]["color"]["scale"]
    colour = dict(zip(scale["domain"], scale["range"], strict=True))
    by_id = {view.id: view for view in views}
    for algorithm in ("grpo", "dapo", "rloo"):
        first = by_id[f"{algorithm}_seed1"]
        assert {colour[by_id[f"{algorithm}_seed{seed}"].label] for seed in (1, 2, 3)} == {first.color}
    rows = _dataset(spec, band["data"]["name"])
    grpo = rows.filter(pl.col("label") == by_id["grpo_seed1"].label).sort("step")
    # GRPO step 4: 1.4, 2.4, 3.4 -> mean 2.4, band 1.4-3.4, n 3
    assert grpo.row(3, named=True) == {"label": grpo["label"][0], "step": 4, "mean": pytest.approx(2.4),
                                       "low": pytest.approx(1.4), "high": pytest.approx(3.4), "n": 3}  # fmt: skip
    dapo = rows.filter(pl.col("label") == by_id["dapo_seed1"].label).sort("step")
    # DAPO step 10: seed 1 alone: its value 12.0, no band (the band layer filters out rows without one)
    assert dapo.row(9, named=True)["mean"] == pytest.approx(12.0) and dapo.row(9, named=True)["low"] is None
    assert band["transform"] == [{"filter": "isValid(datum.low)"}]
    # members drawn faint, by a column of the data (no name in an expression)
    assert lines["encoding"]["opacity"]["condition"][0] == {"test": "datum._member", "value": 0.35}
    std = _dataset(_pass_rate_spec(views, band="std"), "rlmon_groups")
    row = std.filter(pl.col("label") == by_id["dapo_seed1"].label, pl.col("step") == 8).row(0, named=True)
    assert (row["low"], row["high"]) == (pytest.approx(12.3 - 0.5**0.5), pytest.approx(12.3 + 0.5**0.5))


def test_a_view_without_repeats_draws_as_always(demo_root: Path) -> None:
    views = [view for view in repeat_views(demo_root) if view.experiment.track == "Qwen3.5-4B"]
    assert overview.repeat_groups(views) == []
    spec = _pass_rate_spec(views)
    assert "area" not in [layer["mark"]["type"] for layer in spec["layer"]]
    assert "rlmon_groups" not in spec["datasets"]
    assert "_member" not in _dataset(spec, spec["data"]["name"]).columns
    assert spec["layer"][0]["encoding"]["opacity"] == {"value": 1.0}


def test_groups_table_and_report(tmp_path: Path) -> None:
    write_repeats_root(tmp_path)
    views = repeat_views(tmp_path)
    numbers = {view.id: report.report_numbers(view) for view in views}
    frame = tables.groups_frame(views, numbers, lang="en")
    # first-5 means: GRPO 1.3, 2.3, 3.3 -> 2.3 ± 1.0; DAPO 11.3, 12.3, 13.3; RLOO 21.3, 22.3, 23.3 (its crashed
    # seed 3 logged 5 steps: its first-5 mean counts); no validation logged
    assert frame.select("group", "first5", "best_val").rows() == [
        ("DAPO", "12.3% ± 1.0% (n = 3)", UNKNOWN),
        ("GRPO", "2.3% ± 1.0% (n = 3)", UNKNOWN),
        ("RLOO", "22.3% ± 1.0% (n = 3)", UNKNOWN),
    ]
    assert frame["members"][1] == "grpo_seed1 · GRPO, grpo_seed2 · GRPO and grpo_seed3 · GRPO"
    insights = report.report_insights(views, Settings(), "zh")
    page = report.render_report(views, numbers=numbers, insights=insights, options=report.ReportOptions(lang="zh"))
    assert "<h2>重复运行</h2>" in page and "<td>2.3% ± 1.0%（n = 3）</td>" in page
    assert tables.groups_frame(repeat_views(tmp_path)[:1], numbers, lang="en").height == 0
