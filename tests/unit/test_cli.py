"""The command line: ``rlmon parse LOG [LOG ...] --out FILE`` and ``rlmon info LOG --json``.

Run both in-process (``rlmon.cli.main`` with capsys) and as ``python -m rlmon`` in a subprocess.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import rlmon.logs.cache
from rlmon.cli import build_parser, main
from tests.helpers.paths import DATA, REPO_ROOT

FIRST = (
    b"(TaskRunner pid=1) Total training steps: 4\n"
    b"(TaskRunner pid=1) step:1 - critic/score/mean:0.5 - actor/pg_loss:np.float64(0.25) - x:nan\n"
    b"(TaskRunner pid=1) step:2 - critic/score/mean:0.625 - actor/pg_loss:np.float64(0.125)\n"
    b"(TaskRunner pid=1) step:3 - critic/score/mean:0.75 - actor/pg_loss:np.float64(0.0625)\n"
)
SECOND = (
    b"(TaskRunner pid=2) Setting global step to 2\n"
    b"(TaskRunner pid=2) Resuming from /ckpt/global_step_2\n"
    b"(TaskRunner pid=2) step:3 - critic/score/mean:0.875 - val-core/openai/gsm8k/acc/mean@1:0.5\n"
    b"(TaskRunner pid=2) step:4 - critic/score/mean:1.0 - actor/pg_loss:-inf\n"
)


def run_module(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m rlmon ARGS`` from the repo root."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "rlmon", *args], cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def two_logs(tmp_path: Path) -> tuple[Path, Path]:
    folder = tmp_path / "logs"
    folder.mkdir()
    first, second = folder / "attempt1.log", folder / "attempt2.log"
    first.write_bytes(FIRST)
    second.write_bytes(SECOND)
    return first, second


def _check_merged(steps: pl.DataFrame) -> None:
    """FIRST then SECOND: step 3 from SECOND where it logged a key, FIRST's pg_loss kept."""
    assert steps["step"].to_list() == [1, 2, 3, 4]
    assert steps["critic/score/mean"].to_list() == [0.5, 0.625, 0.875, 1.0]
    assert steps["actor/pg_loss"].to_list() == [0.25, 0.125, 0.0625, -math.inf]
    assert steps["val-core/openai/gsm8k/acc/mean@1"].to_list() == [None, None, 0.5, None]
    x = steps["x"].to_list()
    assert math.isnan(x[0]) and x[1:] == [None, None, None]
    assert set(steps.columns) == {
        "step",
        "critic/score/mean",
        "actor/pg_loss",
        "x",
        "val-core/openai/gsm8k/acc/mean@1",
    }


# --- parse ------------------------------------------------------------------------------------------------------
def test_parse_to_parquet(two_logs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "steps.parquet"
    assert main(["parse", str(two_logs[0]), str(two_logs[1]), "--out", str(out)]) == 0
    steps = pl.read_parquet(out)
    assert steps.schema["step"] == pl.Int64()
    assert all(dtype == pl.Float64() for name, dtype in steps.schema.items() if name != "step")
    _check_merged(steps)
    captured = capsys.readouterr()
    assert str(out) in captured.out


def test_parse_order_given_decides_the_winner(two_logs: tuple[Path, Path], tmp_path: Path) -> None:
    out = tmp_path / "reverse.parquet"
    assert main(["parse", str(two_logs[1]), str(two_logs[0]), "--out", str(out)]) == 0
    steps = pl.read_parquet(out)
    # FIRST is now the later file: its step 3 value wins
    assert steps.filter(pl.col("step") == 3)["critic/score/mean"].to_list() == [0.75]
    assert steps.filter(pl.col("step") == 3)["val-core/openai/gsm8k/acc/mean@1"].to_list() == [0.5]


def test_parse_to_csv(two_logs: tuple[Path, Path], tmp_path: Path) -> None:
    out = tmp_path / "steps.CSV"
    assert main(["parse", str(two_logs[0]), str(two_logs[1]), "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    header = text.splitlines()[0]
    assert header.split(",")[0] == "step"
    assert "val-core/openai/gsm8k/acc/mean@1" in header
    columns = header.split(",")
    steps = pl.read_csv(out, schema={name: pl.Int64() if name == "step" else pl.Float64() for name in columns})
    _check_merged(steps)


def test_parse_jsonl_input(tmp_path: Path) -> None:
    records = (DATA / "file_logger.jsonl").read_bytes().split(b"\n", 1)[1]
    path = tmp_path / "run.jsonl"
    path.write_bytes(records)
    out = tmp_path / "steps.parquet"
    assert main(["parse", str(path), "--out", str(out)]) == 0
    steps = pl.read_parquet(out)
    assert steps["step"].to_list() == [1, 2, 3]
    assert steps["critic/score/mean"].to_list() == [0.5, 0.625, 0.75]
    assert steps["flag"].to_list() == [1.0, None, 0.0]


def test_parse_with_cache_dir(two_logs: tuple[Path, Path], tmp_path: Path) -> None:
    cache_dir = tmp_path / "rlmon-cache"
    logs_before = sorted(p.name for p in two_logs[0].parent.iterdir())
    outs = [tmp_path / "a.parquet", tmp_path / "b.parquet"]
    for out in outs:
        args = ["parse", str(two_logs[0]), str(two_logs[1]), "--out", str(out), "--cache-dir", str(cache_dir)]
        assert main(args) == 0
    assert any(cache_dir.rglob("*.parquet")), "the cache folder was used"
    assert sorted(p.name for p in two_logs[0].parent.iterdir()) == logs_before, "nothing written beside the logs"
    first, second = (pl.read_parquet(out) for out in outs)
    assert first.equals(second)
    _check_merged(second)


def test_parse_as_a_module(two_logs: tuple[Path, Path], tmp_path: Path) -> None:
    out = tmp_path / "steps.parquet"
    done = run_module("parse", str(two_logs[0]), str(two_logs[1]), "--out", str(out))
    assert done.returncode == 0, done.stderr
    _check_merged(pl.read_parquet(out))


def test_parse_bad_out_suffix_is_one_line(two_logs: tuple[Path, Path], tmp_path: Path) -> None:
    done = run_module("parse", str(two_logs[0]), "--out", str(tmp_path / "steps.xlsx"))
    assert done.returncode == 2  # a usage error, found before anything is read
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "steps.xlsx" in done.stderr


def test_parse_out_into_a_missing_folder_is_not_a_crash(two_logs: tuple[Path, Path], tmp_path: Path) -> None:
    out = tmp_path / "no-such-folder" / "steps.parquet"
    done = run_module("parse", str(two_logs[0]), "--out", str(out))
    assert done.returncode == 2
    assert "Traceback" not in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "steps.parquet" in done.stderr


# --- info -------------------------------------------------------------------------------------------------------------
def test_info_json(two_logs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", str(two_logs[1]), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["kind"] == "rl"
    assert info["resume_steps"] == [2]
    assert info["resume_paths"] == ["/ckpt/global_step_2"]
    assert info["first_step"] == 3
    assert info["last_step"] == 4
    assert info["steps"] == 2
    assert info["step_lines"] == 2
    assert info["failure"] is None


def test_info_json_of_a_real_failure(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", str(DATA / "actor_died.log"), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["total_steps"] == 10
    assert info["failure_kind"] == "actor_died"
    assert "ActorDiedError" in info["failure"]


def test_info_json_several_files(two_logs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", str(two_logs[0]), str(two_logs[1]), "--json"]) == 0
    infos = json.loads(capsys.readouterr().out)
    assert isinstance(infos, list) and len(infos) == 2
    assert infos[0]["total_steps"] == 4
    assert infos[0]["last_step"] == 3
    assert infos[1]["resume_steps"] == [2]


def test_info_json_as_a_module(tmp_path: Path) -> None:
    done = run_module("info", str(DATA / "dapo_dynamic_sampling.log"), "--json")
    assert done.returncode == 0, done.stderr
    info = json.loads(done.stdout)
    assert info["dapo_keep_generating"] == 3
    assert info["total_steps"] == 4
    assert info["steps"] == 3


def test_info_of_a_root_gives_each_experiment_its_own_colour(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from rlmon.demo import write_demo_root

    root = write_demo_root(tmp_path / "demo")
    assert main(["info", str(root), "--json"]) == 0
    colors = {item["id"]: item["color"] for item in json.loads(capsys.readouterr().out)["experiments"]}
    # 2B sorts before 4B: its E1-E4 keep palette colours 0-3, 4B's E5 keeps colour 4, 4B's E1-E4 take 5-8
    assert colors == {
        "2b/e1_grpo_2b": "#4c78a8",
        "2b/e2_dapo_2b": "#f58518",
        "2b/e3_drgrpo_2b": "#54a24b",
        "2b/e4_rloo_2b": "#e45756",
        "4b/e5_reinforce_pp_4b": "#72b7b2",
        "4b/e1_grpo_4b": "#b279a2",
        "4b/e2_dapo_4b": "#eeca3b",
        "4b/e3_drgrpo_4b": "#9d755d",
        "4b/e4_rloo_4b": "#ff9da6",
    }


def test_info_of_files_without_steps(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.log"
    empty.write_bytes(b"")
    binary = tmp_path / "binary.log"
    binary.write_bytes(bytes(range(256)) * 64)
    for path in (empty, binary):
        assert main(["info", str(path), "--json"]) == 0
        info = json.loads(capsys.readouterr().out)
        assert info["kind"] == "none"
        assert info["steps"] == 0


def test_info_text(two_logs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", str(two_logs[1])]) == 0
    out = capsys.readouterr().out
    assert str(two_logs[1]) in out
    assert "2 steps (3–4)" in out
    assert "resumed at step 2" in out


# --- missing or unreadable input: exit 2, one line naming the path ---------------------------------------------
def _assert_one_clean_line(stderr: str, name: str) -> None:
    assert "Traceback" not in stderr, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert name in lines[0]


@pytest.mark.parametrize("command", ["parse", "info"])
def test_missing_input_in_process(command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "missing-run.log"
    args = [command, str(missing)] + (["--out", str(tmp_path / "o.parquet")] if command == "parse" else [])
    assert main(args) == 2
    captured = capsys.readouterr()
    _assert_one_clean_line(captured.err, "missing-run.log")
    assert not (tmp_path / "o.parquet").exists()


@pytest.mark.parametrize("command", ["parse", "info"])
def test_missing_input_as_a_module(command: str, tmp_path: Path) -> None:
    missing = tmp_path / "missing-run.log"
    args = [command, str(missing)] + (["--out", str(tmp_path / "o.parquet")] if command == "parse" else [])
    done = run_module(*args)
    assert done.returncode == 2
    _assert_one_clean_line(done.stderr, "missing-run.log")


def test_one_missing_among_several(two_logs: tuple[Path, Path], tmp_path: Path) -> None:
    done = run_module("parse", str(two_logs[0]), str(tmp_path / "gone.log"), "--out", str(tmp_path / "o.parquet"))
    assert done.returncode == 2
    _assert_one_clean_line(done.stderr, "gone.log")


def test_dangling_symlink_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    link = tmp_path / "dangling.log"
    link.symlink_to(tmp_path / "nowhere.log")
    assert main(["info", str(link), "--json"]) == 2
    _assert_one_clean_line(capsys.readouterr().err, "dangling.log")


def test_folder_without_logs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "empty-experiment"
    folder.mkdir()
    (folder / "notes.txt").write_text("not a log")
    assert main(["parse", str(folder), "--out", str(tmp_path / "o.parquet")]) == 2
    _assert_one_clean_line(capsys.readouterr().err, "empty-experiment")


def test_unreadable_input(
    two_logs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = two_logs[0]
    path.chmod(0)
    try:
        if os.access(path, os.R_OK):
            # running as root, the kernel would let us read it: fail the open as it fails for a user
            real_open = open

            def guarded_open(file: Any, *args: Any, **kwargs: Any) -> Any:
                if os.path.abspath(file) == os.path.abspath(path):
                    raise PermissionError(13, "Permission denied", str(file))
                return real_open(file, *args, **kwargs)

            monkeypatch.setattr(rlmon.logs.cache, "open", guarded_open, raising=False)
        for command in ("parse", "info"):
            args = [command, str(path)] + (["--out", str(tmp_path / "o.parquet")] if command == "parse" else [])
            assert main(args) == 2
            _assert_one_clean_line(capsys.readouterr().err, path.name)
    finally:
        path.chmod(0o644)


def test_report_band_defaults_to_std() -> None:
    """``rlmon report``'s band of repeats: mean ± 1 std unless ``--band minmax`` (papers report repeats so)."""
    assert build_parser().parse_args(["report", "logs", "--out", "r.html"]).band == "std"
    assert build_parser().parse_args(["report", "logs", "--band", "minmax", "--out", "r.html"]).band == "minmax"
