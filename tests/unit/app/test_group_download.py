"""The per-step download carries each group's mean, standard deviation and count (tests/helpers/repeats_root.py:
pass rate 10a + s + 0.1k for algorithm a, seed s, step k), and nothing new for runs without repeats."""

from __future__ import annotations

import io
from pathlib import Path

import polars as pl
import pytest

from rlmon.analysis.smoothing import Smoothing
from rlmon.app.tables import download_frame
from tests.helpers.repeats_root import repeat_views, write_repeats_root


def test_group_mean_std_and_n_in_csv_and_parquet(tmp_path: Path) -> None:
    write_repeats_root(tmp_path)
    frame = download_frame(repeat_views(tmp_path), ["pass_rate"], Smoothing("ema", weight=0.6))
    # through the bytes the buttons hand out
    csv = pl.read_csv(io.BytesIO(frame.write_csv().encode("utf-8")))
    buffer = io.BytesIO()
    frame.write_parquet(buffer)
    parquet = pl.read_parquet(io.BytesIO(buffer.getvalue()))
    for table in (csv, parquet):
        rows = table.filter(pl.col("step") == 7).sort("experiment")
        columns = ["experiment", "group", "pass_rate (group mean)", "pass_rate (group std)", "pass_rate (group n)"]
        # DAPO at step 7: seeds 1 and 2 (seed 3 stopped after 6) -> 11.7, 12.7; GRPO: 1.7, 2.7, 3.7
        assert rows.select(columns).rows() == [
            ("dapo_seed1", "DAPO", pytest.approx(12.2), pytest.approx(0.5**0.5), 2),
            ("dapo_seed2", "DAPO", pytest.approx(12.2), pytest.approx(0.5**0.5), 2),
            ("grpo_seed1", "GRPO", pytest.approx(2.7), pytest.approx(1.0), 3),
            ("grpo_seed2", "GRPO", pytest.approx(2.7), pytest.approx(1.0), 3),
            ("grpo_seed3", "GRPO", pytest.approx(2.7), pytest.approx(1.0), 3),
            ("rloo_seed1", "RLOO", pytest.approx(22.2), pytest.approx(0.5**0.5), 2),
            ("rloo_seed2", "RLOO", pytest.approx(22.2), pytest.approx(0.5**0.5), 2),
        ]
        assert "pass_rate (smoothed)" in table.columns


def test_no_group_columns_without_repeats(demo_root: Path) -> None:
    views = [view for view in repeat_views(demo_root) if view.experiment.track == "Qwen3.5-4B"]
    frame = download_frame(views, ["pass_rate"], Smoothing("none"))
    assert not [name for name in frame.columns if "group" in name]
