"""The samples page's view model (rlmon.views.samples) on a small hand-made sample frame."""

from __future__ import annotations

from typing import Any

import polars as pl

from rlmon.logs.samples import SAMPLE_SCHEMA
from rlmon.views import samples as view_samples
from rlmon.views.samples import SampleCard, SampleSet, Side


def row(**values: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "step": 3, "kind": "validation", "origin": "log", "file": "/logs/e1/train.log", "line": 12,
        "data_source": None, "prompt": "user\nWhat is 2+3?\nassistant", "response": "5", "ground_truth": "5",
        "score": 1.0, "response_tokens": None, "extra": None,
    }  # fmt: skip
    base.update(values)
    return base


def sample_set(rows: list[dict[str, Any]]) -> SampleSet:
    return SampleSet(pl.DataFrame(rows, schema=SAMPLE_SCHEMA))


ROWS = [
    row(step=1, prompt="Q1", response="a", score=0.0, line=1, data_source="math"),
    row(step=1, prompt="Q2", response="b", score=1.0, line=2, data_source="gsm8k"),
    row(step=2, prompt="Q1", response="c", score=1.0, line=3, data_source="math"),
    row(step=None, kind=None, prompt="Q3", response="d", score=None, line=4),
    row(step=3, prompt="Q1", response="e", score=-1.0, line=5, data_source="math"),
]


def test_step_text() -> None:
    assert view_samples.step_text(7, "en") == "step 7"
    assert view_samples.step_text(None, "en") == "step pending"


def test_header_text_and_length() -> None:
    assert view_samples.header_text(row(), "en") == (
        "step 3 · validation · score 1 · length 1 (characters) · console print"
    )
    dumped = row(step=None, kind=None, origin="dump", score=None, response_tokens=12345)
    assert view_samples.header_text(dumped, "en") == "step pending · score – · length 12,345 (tokens) · generation dump"
    assert view_samples.length_text(row(response="x" * 1500), "en") == "length 1,500 (characters)"


def test_extra_fields() -> None:
    assert view_samples.extra_fields('{"acc": 1, "pred": "5"}') == [("acc", "1"), ("pred", "5")]
    assert view_samples.extra_fields(None) == []
    assert view_samples.extra_fields("not json") == []
    assert view_samples.extra_fields("[1, 2]") == []


def test_card_of() -> None:
    card = view_samples.card_of(row(extra='{"acc": "1.0"}'), "en")
    assert card == SampleCard(
        header="step 3 · validation · score 1 · length 1 (characters) · console print",
        where="train.log:12",
        passed=True,
        prompt="user\nWhat is 2+3?\nassistant",
        response="5",
        ground_truth="5",
        extra="acc: 1.0",
    )
    failed = view_samples.card_of(row(score=0.0, ground_truth=None), "en")
    assert (failed.passed, failed.ground_truth, failed.extra) == (False, "–", None)
    assert view_samples.card_of(row(score=None), "en").passed is None


def test_prompt_label() -> None:
    assert view_samples.prompt_label("system\nBe brief.\nuser\nWhat is 2+3?\nassistant\n") == "Be brief. What is 2+3?"
    assert view_samples.prompt_label("user\nassistant") == "user assistant"
    assert view_samples.prompt_label("  \n") == "–"
    assert view_samples.prompt_label("x" * 200) == "x" * 120


def test_browse_choices_and_rows() -> None:
    samples = sample_set(ROWS)
    assert view_samples.browse_choices(samples) == view_samples.BrowseChoices(
        steps=(3, 2, 1), sources=("gsm8k", "math")
    )
    rows, total = view_samples.browse_rows(samples, step=None, data_source=None, outcome=None, text="", limit=10)
    # the pending sample first (no step yet), then newest step first, log order within a step
    assert [item["line"] for item in rows] == [4, 5, 3, 1, 2]
    assert total == 5
    rows, total = view_samples.browse_rows(samples, step=1, data_source=None, outcome="pass", text="", limit=10)
    assert ([item["line"] for item in rows], total) == ([2], 1)


def test_browse() -> None:
    samples = sample_set(ROWS)
    shown = view_samples.browse(samples, step=None, data_source="math", outcome=None, text="", limit=2, lang="en")
    assert [card.response for card in shown.cards] == ["e", "c"]
    assert shown.count == "2 of 3 samples"
    assert shown.more == "The first 2 are shown; narrow the choice to see the others."
    everything = view_samples.browse(samples, step=None, data_source=None, outcome=None, text="", limit=30, lang="en")
    assert everything.count == "5 of 5 samples"
    assert everything.more is None


def test_prompts_and_steps() -> None:
    samples = sample_set(ROWS)
    assert view_samples.prompts_at_several_steps(samples) == ["Q1"]
    assert view_samples.prompt_steps(samples, "Q1") == [1, 2, 3]
    assert view_samples.prompt_steps(samples, "Q3") == []
    assert view_samples.sample_at(samples, "Q1", 2)["response"] == "c"
    # as the page calls it: on samples at known steps (shared_samples)
    stepped = sample_set([item for item in ROWS if item["step"] is not None])
    assert view_samples.prompts_latest_first(stepped) == ["Q1", "Q2"]


def test_shared_samples() -> None:
    mine = sample_set(ROWS[:2])
    theirs = sample_set([row(step=4, prompt="Q2", line=9), row(step=4, prompt="Q9"), row(step=None, prompt="Q1")])
    shared = view_samples.shared_samples(mine, theirs)
    assert shared is not None
    assert shared.frame.get_column("line").to_list() == [9]
    assert view_samples.shared_samples(mine, sample_set([row(prompt="Q9")])) is None


def test_pair_steps() -> None:
    assert view_samples.pair_steps([2, 6], [1, 4, 8]) == (6, 4)
    # a tie goes to the earlier step
    assert view_samples.pair_steps([5], [7, 3]) == (5, 3)


def test_side() -> None:
    samples = sample_set(ROWS)
    assert view_samples.side(samples, "Q1", 2, lang="en").title == "step 2"
    labelled = view_samples.side(samples, "Q1", 3, lang="en", label="E1 · GRPO")
    assert labelled == Side(title="E1 · GRPO · step 3", card=view_samples.card_of(ROWS[4], "en"))
    assert labelled.card.passed is False
