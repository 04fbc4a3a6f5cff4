"""Correct and incorrect response lengths, groups with all-equal rewards and the incorrect-length signal, on the
hand-written dump in tests/data/outcome_dumps (its README holds the table the expected values come from)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import polars as pl
import pytest

from rlmon.analysis.outcomes import detect_length_gap, outcome_table
from rlmon.logs.samples import SampleCache, read_samples
from rlmon.settings import Settings
from tests.helpers.paths import DATA

FOLDER = DATA / "outcome_dumps"
CONFIG = {"trainer": {"rollout_data_dir": str(FOLDER / "rollouts")}}


def _samples() -> tuple[pl.DataFrame, tuple[str, ...]]:
    found = read_samples([], folder=FOLDER, config=CONFIG, cache=SampleCache(), allowed=[FOLDER])
    return found.frame, found.problems


def test_per_step_lengths_and_equal_share_match_the_hand_table() -> None:
    frame, _ = _samples()
    table = outcome_table(frame)
    assert table.unit == "tokens"
    rows = table.frame.select("step", "correct_length", "incorrect_length", "groups", "equal_groups", "equal_share")
    assert rows.rows() == [
        (1, 100.0, 200.0, 2, 0, 0.0),
        (2, 100.0, 200.0, 2, 1, 0.5),
        (3, 110.0, 300.0, 2, 1, 0.5),
        (4, 110.0, 300.0, 2, 0, 0.0),
    ]


def test_a_damaged_record_is_named_by_file_and_line_and_costs_nothing_else() -> None:
    frame, problems = _samples()
    damaged = str((FOLDER / "rollouts" / "2.jsonl").resolve())
    assert problems == (f"{damaged}:3: not a JSON record (left out)",)
    # every good record is read: 4 per step, step 2's four around the cut line included
    assert frame.group_by("step").len().sort("step").rows() == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_validation_samples_and_single_responses_are_left_out() -> None:
    frame = pl.DataFrame(
        {
            "step": [1, 1, 1],
            "kind": ["validation", "training", "training"],
            "origin": ["dump", "dump", "dump"],
            "prompt": ["A", "A", "B"],
            "response": ["aaaa", "bb", "c"],
            "score": [0.0, 1.0, -1.0],
            "response_tokens": [None, None, None],
        },
        schema_overrides={"response_tokens": pl.Int64},
    )
    table = outcome_table(frame)
    assert table.unit == "characters"
    # the validation row (4 characters, incorrect) is not counted; A and B hold one training response each
    assert table.frame.select("correct_length", "incorrect_length", "groups", "equal_share").row(0) == (
        2.0, 1.0, 0, None,
    )  # fmt: skip


# start = mean of the first 2 steps, end = of the last 2 (4 steps): correct 100 -> 110 (x1.1), incorrect
# 200 -> 300 (x1.5); 1.5 / 1.1 = 1.364 against length_gap_ratio, 0.5 growth against length_gap_min_growth.
@pytest.mark.parametrize(
    ("ratio", "growth", "fires"),
    [(1.25, 0.1, True), (1.36, 0.1, True), (1.37, 0.1, False), (1.25, 0.5, True), (1.25, 0.51, False)],
)
def test_signal_fires_on_its_side_of_each_threshold(ratio: float, growth: float, fires: bool) -> None:
    frame, _ = _samples()
    settings = dataclasses.replace(Settings(), length_gap_ratio=ratio, length_gap_min_growth=growth)
    signal = detect_length_gap(outcome_table(frame), settings=settings, experiment="x")
    assert (signal is not None) is fires


def test_signal_text_states_the_hand_numbers_in_both_languages() -> None:
    frame, _ = _samples()
    signal = detect_length_gap(outcome_table(frame), settings=Settings(), experiment="x", label="E1")
    assert signal is not None
    assert (signal.kind, signal.severity, signal.step, signal.step_end) == ("incorrect_length_growth", "info", 1, 4)
    assert signal.values["ratio"] == pytest.approx(1.5 / 1.1)
    assert "200→300 tokens (+50.0%) against 100→110 (+10.0%), first and last 2 dumped steps" in signal.text("en")
    assert "200→300 词元（+50.0%），正确回答 100→110（+10.0%）" in signal.text("zh")
    assert "length_gap_ratio" in signal.rule["en"]


def test_fewer_than_four_steps_with_both_kinds_give_no_signal(tmp_path: Path) -> None:
    frame, _ = _samples()
    table = outcome_table(frame.filter(pl.col("step") <= 3))
    assert detect_length_gap(table, settings=Settings(), experiment="x") is None
