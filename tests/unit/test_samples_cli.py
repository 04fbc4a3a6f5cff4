"""``rlmon samples``: the prints and dumps of a log or an experiment folder, in the terminal."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from rlmon.cli import main
from tests.helpers.paths import DATA

PRINTS = DATA / "samples_prints.log"


def test_samples_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["samples", str(PRINTS), "--step", "3", "--cache-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    # the last print of the crafted log (lines 35-39), given to step:3 (line 40)
    assert out.splitlines()[0] == f"=== step 3 · training · score 1 · 1 chars · {PRINTS}:35"
    assert "[response]\n5\n" in out


def test_samples_json_experiment_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    experiment = tmp_path / "exp"
    experiment.mkdir()
    shutil.copy(PRINTS, experiment / "train.log")
    shutil.copytree(DATA / "samples_dump", experiment / "rollout_data")
    with (experiment / "train.log").open("a") as handle:
        handle.write("(TaskRunner pid=7) Dumped generations to /elsewhere/rollout_data/5.jsonl\n")
    assert main(["samples", str(experiment), "--json", "--cache-dir", str(tmp_path / "cache")]) == 0
    records = json.loads(capsys.readouterr().out)
    assert [(item["origin"], item["step"]) for item in records] == [
        ("log", 0), ("log", 0), ("log", 2), ("log", 3), ("dump", 5), ("dump", 5), ("dump", 5)
    ]  # fmt: skip
    assert records[2]["extra"] == {"acc": "False", "pred": "6"}
    assert sorted(path.name for path in experiment.iterdir()) == ["rollout_data", "train.log"]


def test_samples_none(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["samples", str(PRINTS), "--step", "99", "--cache-dir", str(tmp_path)]) == 0
    assert capsys.readouterr().out.startswith(f"{PRINTS}: no samples at step 99")


def test_samples_missing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["samples", str(tmp_path / "gone.log")]) == 2
    assert "no such file or folder" in capsys.readouterr().err


def test_escape_sequences_not_sent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "run.log"
    log.write_text("step:1 - a:1\n[prompt] p\n[response] bell\x07 here\n[ground_truth] 1\n[score] 1\nstep:2 - a:1\n")
    assert main(["samples", str(log), "--cache-dir", str(tmp_path / "cache")]) == 0
    out = capsys.readouterr().out
    assert "\x07" not in out
    assert "bell\ufffd here" in out


def test_a_damaged_dump_record_is_named_and_the_others_are_printed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    experiment = tmp_path / "exp"
    experiment.mkdir()
    shutil.copytree(DATA / "outcome_dumps" / "rollouts", experiment / "rollouts")
    (experiment / "train.log").write_text(
        "(TaskRunner pid=7) Dumped generations to /elsewhere/rollouts/2.jsonl\n", encoding="utf-8"
    )
    assert main(["samples", str(experiment), "--json", "--step", "2", "--cache-dir", str(tmp_path / "cache")]) == 0
    captured = capsys.readouterr()
    # outcome_dumps/README.md: 2.jsonl line 3 is a record cut mid-line; its four good records are lines 1, 2, 4, 5
    assert captured.err == f"warning: {experiment / 'rollouts' / '2.jsonl'}:3: not a JSON record (left out)\n"
    assert [item["line"] for item in json.loads(captured.out)] == [1, 2, 4, 5]
