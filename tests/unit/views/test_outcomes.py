"""The experiment page's "From what the model wrote" section, on the hand-written dump in
tests/data/outcome_dumps (its README holds the per-step table the expected values come from)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from rlmon.logs.cache import LogCache
from rlmon.logs.samples import SampleCache, read_training_dumps
from rlmon.runs.loading import load_experiment
from rlmon.settings import Settings, load_settings
from rlmon.sources.discovery import discover_experiments
from rlmon.views import model, outcomes
from tests.helpers.paths import DATA

DUMPS = DATA / "outcome_dumps" / "rollouts"


def _view(tmp_path: Path) -> model.ExperimentView:
    folder = tmp_path / "root" / "run"
    folder.mkdir(parents=True)
    (folder / "train.log").write_text("(TaskRunner pid=7) step:1 - actor/grad_norm:0.2\n", encoding="utf-8")
    (ref,) = discover_experiments([tmp_path / "root"]).experiments
    return model.view_of(ref, load_experiment(ref, LogCache(None), now=time.time(), settings=load_settings([], {})))


def _raw(spec: dict[str, Any]) -> dict[tuple[str, int], float]:
    """(series label, step) -> value drawn."""
    return {(row["label"], row["step"]): row["value"] for row in spec["datasets"]["rlmon_raw"]}


def test_two_charts_the_signal_and_the_damaged_line_from_the_dump(tmp_path: Path) -> None:
    view = _view(tmp_path)
    found = read_training_dumps(
        {"trainer": {"rollout_data_dir": str(DUMPS)}}, view.ref.path, cache=SampleCache(), allowed=[DATA]
    )
    for lang, title, incorrect in (("en", "Length of correct and incorrect responses (tokens)", "incorrect"),
                                   ("zh", "正确与错误回答的长度（词元）", "错误")):  # fmt: skip
        block = outcomes.outcome_block(view, found, settings=Settings(), lang=lang, paths={})
        assert block is not None
        lengths, share = (plan.build() for plan in block.charts)
        assert lengths["title"] == title
        correct = "correct" if lang == "en" else "正确"
        drawn = _raw(lengths)
        assert [drawn[correct, step] for step in (1, 2, 3, 4)] == [100.0, 100.0, 110.0, 110.0]
        assert [drawn[incorrect, step] for step in (1, 2, 3, 4)] == [200.0, 200.0, 300.0, 300.0]
        assert outcomes.INCORRECT_COLOR in str(lengths) and outcomes.CORRECT_COLOR in str(lengths)
        assert sorted(_raw(share).values()) == [0.0, 0.0, 0.5, 0.5]
        assert block.signal is not None and block.signal.kind == "incorrect_length_growth"
        assert block.notes is not None and "2.jsonl:3: not a JSON record" in block.notes.text


def test_no_section_without_a_training_dump(tmp_path: Path) -> None:
    view = _view(tmp_path)
    found = read_training_dumps(None, view.ref.path, cache=SampleCache(), allowed=[DATA])
    assert outcomes.outcome_block(view, found, settings=Settings(), lang="en", paths={}) is None
