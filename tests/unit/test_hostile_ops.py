"""Operating rlmon on large and hostile input: incremental discovery and the command line's errors.

Which test covers which case:

Discovery of a large root is not a full rescan on every refresh (``rlmon.sources.discovery``):
- nothing changed -> no folder listed again:        test_refresh_with_nothing_changed_lists_no_folder
- only the folders whose mtime/ctime moved:         test_refresh_lists_only_the_folder_that_changed,
                                                    test_permission_change_lists_the_folder_again
- a new experiment folder is found:                 test_new_experiment_folder_is_found_on_the_next_refresh
- a deleted experiment folder is gone:              test_deleted_experiment_folder_is_gone_on_the_next_refresh
- an appended log's new size is seen:               test_appended_log_shows_its_new_size_without_listing
- a file growing into a verl log is found:          test_file_growing_into_a_verl_log_is_found_without_listing
- problems and ignored files are kept:              test_problems_and_ignored_files_survive_a_refresh
- folders changed very recently are listed again:   test_recently_changed_folders_are_listed_again
- folders holding symlinks are listed again:        test_folder_with_a_symlink_is_listed_every_time
- a full walk every FULL_WALK_S (or on request):    test_full_walk_after_full_walk_s, test_full_walk_on_request
- one memo serves concurrent callers:               test_concurrent_discoveries_agree

The command line's exit codes and messages (``rlmon.cli``; 2 = cannot start, 1 = failed while working):
- ``summary`` on a missing root exits 2:            test_summary_of_a_missing_root_exits_2 (+ as a module)
- ``info``/``summary`` of an empty root:            test_info_of_an_empty_root_says_so_and_exits_2 (+ as a
                                                    module), test_summary_of_an_empty_root_exits_2,
                                                    test_root_with_only_other_logs_counts_them
- ``--out`` checked before any parsing:             test_out_is_checked_before_parsing
- no traceback on hostile input, one line each:     test_hostile_inputs_give_one_line (python -m rlmon:
                                                    a folder named like a log, a FIFO, /dev/null, /dev/full,
                                                    a symlink to /dev/full, a file as a root...),
                                                    test_unreadable_input_is_named_before_parsing,
                                                    test_interrupt_and_os_errors_are_one_line

Round three (issue 27):
- a refresh period beyond the picker's range:       test_a_setting_above_its_widgets_range_is_refused,
                                                    test_the_widgets_offer_the_settings_range
- bidi controls printed by ``info``/``samples``:    test_the_command_line_prints_no_bidi_control,
                                                    test_an_error_line_prints_no_bidi_control
- ``rlmon parse`` of a binary .log:                 test_a_binary_log_is_refused_naming_it,
                                                    test_a_file_without_verl_output_among_logs_is_left_out_with_a_
                                                    warning, test_a_run_that_logged_no_step_yet_parses_to_an_empty_
                                                    table
- ``rlmon samples`` and dump folders outside:       test_rlmon_samples_reads_no_dump_folder_outside_the_roots
- a JSONL record of 100k keys called SFT:           test_a_file_logger_record_of_many_keys_is_not_taken_for_an_sft_log
- the benchmark's data (first-5 pass 346.9%):       test_the_benchmark_root_reads_as_a_real_run
- names that look alike (E1, E1 + U+200B, Cyrillic  test_info_and_summary_of_a_root_tell_names_that_look_alike_apart
  Е1) in ``rlmon info`` and ``rlmon summary``:      (the app's places: tests/app/test_hostile.py)
- no name becomes a link in ``rlmon report``:       test_no_name_in_the_report_becomes_a_link (the app's report
                                                    download: tests/browser/test_hostile.py)
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import rlmon.cli
import rlmon.sources.discovery as catalog_module
from rlmon.cli import main
from rlmon.errors import SettingError
from rlmon.logs.cache import LogCache
from rlmon.settings import load_settings, setting_range
from rlmon.sources.discovery import FULL_WALK_S, discover_experiments
from tests.helpers.generated_roots import (
    LINKISH,
    LINKISH_FAILURE,
    LINKISH_KEYS,
    LINKISH_SOURCE,
    LINKISH_TRACK,
    WIKI,
    write_hostile_root,
)
from tests.helpers.html_page import parse
from tests.helpers.paths import REPO_ROOT
from tests.helpers.realdata_root import write_look_alike_root

STEP_LINES = "".join(
    f"(TaskRunner pid=7) step:{step} - actor/grad_norm:0.2 - critic/score/mean:0.5 - timing_s/step:60.0\n"
    for step in (1, 2)
)

STEP_3 = "(TaskRunner pid=7) step:3 - actor/grad_norm:0.2 - critic/score/mean:0.5 - timing_s/step:60.0\n"


# ------------------------------------------------------------------------------------------- discovery


def settle(root: Path) -> None:
    """Date every folder under ``root`` a minute back: none counts as recently changed any more."""
    past = time.time() - 60
    for folder, _, _ in os.walk(root):
        os.utime(folder, (past, past))


@pytest.fixture
def listed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The folders discovery lists (its ``os.scandir`` calls), in order; clear it between calls."""
    calls: list[str] = []
    real_scandir = os.scandir

    def scandir(path: Any) -> Any:
        if sys._getframe(1).f_globals.get("__name__") == "rlmon.sources.discovery":  # not shutil's or os.walk's
            calls.append(os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(catalog_module.os, "scandir", scandir)
    return calls


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """root/track/e1 (a log and ckpt/actor inside) and root/track/e2 (a log): 6 folders, settled."""
    root = tmp_path / "root"
    (root / "track" / "e1" / "ckpt" / "actor").mkdir(parents=True)
    (root / "track" / "e2").mkdir()
    (root / "track" / "e1" / "train.log").write_text(STEP_LINES, encoding="utf-8")
    (root / "track" / "e2" / "train.log").write_text(STEP_LINES, encoding="utf-8")
    settle(root)
    return root


def names(root: Path, paths: list[str]) -> list[str]:
    return sorted(Path(path).relative_to(root).as_posix() for path in paths)


def test_refresh_with_nothing_changed_lists_no_folder(tree: Path, listed: list[str]) -> None:
    first = discover_experiments([tree])
    assert names(tree, listed) == [".", "track", "track/e1", "track/e1/ckpt", "track/e1/ckpt/actor", "track/e2"]
    listed.clear()
    again = discover_experiments([tree])
    assert listed == []
    assert again.ids == first.ids == ("track/e1", "track/e2")
    assert again.experiments == first.experiments


def test_refresh_lists_only_the_folder_that_changed(tree: Path, listed: list[str]) -> None:
    discover_experiments([tree])
    listed.clear()
    (tree / "track" / "e1" / "ckpt" / "notes.txt").write_text("a new file changes its folder's mtime\n")
    assert discover_experiments([tree]).ids == ("track/e1", "track/e2")
    assert names(tree, listed) == ["track/e1/ckpt"]


def test_permission_change_lists_the_folder_again(tree: Path, listed: list[str]) -> None:
    discover_experiments([tree])
    listed.clear()
    (tree / "track" / "e2").chmod(0o700)  # moves the folder's ctime only
    discover_experiments([tree])
    assert names(tree, listed) == ["track/e2"]


def test_new_experiment_folder_is_found_on_the_next_refresh(tree: Path, listed: list[str]) -> None:
    discover_experiments([tree])
    listed.clear()
    (tree / "track" / "e3").mkdir()
    (tree / "track" / "e3" / "train.log").write_text(STEP_LINES, encoding="utf-8")
    assert discover_experiments([tree]).ids == ("track/e1", "track/e2", "track/e3")
    assert names(tree, listed) == ["track", "track/e3"]


def test_deleted_experiment_folder_is_gone_on_the_next_refresh(tree: Path, listed: list[str]) -> None:
    discover_experiments([tree])
    listed.clear()
    shutil.rmtree(tree / "track" / "e1")
    assert discover_experiments([tree]).ids == ("track/e2",)
    assert names(tree, listed) == ["track"]


def test_appended_log_shows_its_new_size_without_listing(tree: Path, listed: list[str]) -> None:
    log = tree / "track" / "e2" / "train.log"
    first = discover_experiments([tree])
    assert first.get("track/e2").files[0].size == len(STEP_LINES)
    listed.clear()
    with log.open("a", encoding="utf-8") as handle:
        handle.write(STEP_3)
    os.utime(log, (time.time() + 5, time.time() + 5))  # a later mtime whatever the clock's tick
    refreshed = discover_experiments([tree]).get("track/e2").files[0]
    assert listed == []  # appending does not touch the folder
    assert refreshed.size == len(STEP_LINES) + len(STEP_3)
    assert refreshed.mtime == log.stat().st_mtime > first.get("track/e2").files[0].mtime


def test_file_growing_into_a_verl_log_is_found_without_listing(tree: Path, listed: list[str]) -> None:
    pending = tree / "track" / "e4" / "run.log"
    pending.parent.mkdir()
    pending.write_text("+ pip install -e .\n", encoding="utf-8")
    settle(tree)
    assert discover_experiments([tree]).ids == ("track/e1", "track/e2")
    listed.clear()
    with pending.open("a", encoding="utf-8") as handle:
        handle.write(STEP_LINES)
    assert discover_experiments([tree]).ids == ("track/e1", "track/e2", "track/e4")
    assert listed == []


def test_problems_and_ignored_files_survive_a_refresh(tree: Path, listed: list[str]) -> None:
    (tree / "track" / "e2" / "pip.log").write_text("Collecting numpy\n", encoding="utf-8")
    (tree / "sft").mkdir()
    (tree / "sft" / "train.log").write_text("step:1 - train/loss:0.5 - train/lr(1e-3):0.001\n", encoding="utf-8")
    settle(tree)
    first = discover_experiments([tree])
    listed.clear()
    again = discover_experiments([tree])
    assert listed == []
    assert again.ignored == first.ignored == (str(tree / "sft" / "train.log"), str(tree / "track" / "e2" / "pip.log"))
    assert again.problems == first.problems
    assert any("SFT" in problem for problem in again.problems)


def test_recently_changed_folders_are_listed_again(tmp_path: Path, listed: list[str]) -> None:
    # Not settled: every folder changed within RECENT_CHANGE_S, so a change in the same clock tick could hide.
    (tmp_path / "e1").mkdir()
    (tmp_path / "e1" / "train.log").write_text(STEP_LINES, encoding="utf-8")
    discover_experiments([tmp_path])
    listed.clear()
    discover_experiments([tmp_path])
    assert names(tmp_path, listed) == [".", "e1"]


def test_folder_with_a_symlink_is_listed_every_time(tree: Path, listed: list[str]) -> None:
    # e2/latest.log points at a file of e1 that does not exist yet; creating it changes e1, not e2
    (tree / "track" / "e2" / "latest.log").symlink_to(tree / "track" / "e1" / "next.log")
    settle(tree)
    first = discover_experiments([tree])
    assert any("latest.log" in problem and "broken symlink" in problem for problem in first.problems)
    (tree / "track" / "e1" / "next.log").write_text(STEP_LINES + STEP_3, encoding="utf-8")
    listed.clear()
    again = discover_experiments([tree])
    assert "track/e2" in names(tree, listed)
    assert not any("broken symlink" in problem for problem in again.problems)
    # no time in the names: ordered by mtime, and the link's target was written last
    files = again.get("track/e2").files
    assert [(item.name, item.size) for item in files] == [
        ("train.log", len(STEP_LINES)),
        ("latest.log", len(STEP_LINES + STEP_3)),
    ]


def test_full_walk_after_full_walk_s(tree: Path, listed: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [1000.0]
    monkeypatch.setattr(catalog_module.time, "monotonic", lambda: clock[0])
    discover_experiments([tree])
    clock[0] += FULL_WALK_S - 1
    listed.clear()
    discover_experiments([tree])
    assert listed == []
    clock[0] += 1
    discover_experiments([tree])
    assert len(listed) == 6


def test_full_walk_on_request(tree: Path, listed: list[str]) -> None:
    discover_experiments([tree])
    listed.clear()
    discover_experiments([tree], full_walk_s=0)
    assert len(listed) == 6


def test_concurrent_discoveries_agree(tree: Path) -> None:
    discover_experiments([tree])
    (tree / "track" / "e3").mkdir()
    (tree / "track" / "e3" / "train.log").write_text(STEP_LINES, encoding="utf-8")
    results: list[tuple[str, ...]] = []
    failures: list[BaseException] = []

    def discover() -> None:
        try:
            results.append(discover_experiments([tree]).ids)
        except BaseException as error:  # reported below, not lost in the thread
            failures.append(error)

    threads = [threading.Thread(target=discover) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert results == [("track/e1", "track/e2", "track/e3")] * 8


# ------------------------------------------------------------------------------------------- command line


def run_module(*args: str, timeout_s: float = 60) -> subprocess.CompletedProcess[str]:
    """``python -m rlmon ARGS`` from the repository, with a time limit (a FIFO must not hang it)."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "rlmon", *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout_s,
    )


def one_line(stderr: str, *needles: str) -> str:
    """The single stderr line, checked to hold each needle and no traceback."""
    assert "Traceback" not in stderr, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def test_summary_of_a_missing_root_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "no-such-root"
    assert main(["summary", str(missing)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    one_line(captured.err, str(missing), "does not exist")


def test_summary_of_a_missing_root_exits_2_as_a_module(tmp_path: Path) -> None:
    done = run_module("summary", str(tmp_path / "no-such-root"))
    assert done.returncode == 2
    one_line(done.stderr, "no-such-root", "does not exist")


def test_info_of_an_empty_root_says_so_and_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty-root"
    empty.mkdir()
    for args in (["info", str(empty)], ["info", str(empty), "--json"]):
        assert main(args) == 2
        captured = capsys.readouterr()
        assert captured.out == ""
        one_line(captured.err, str(empty), "no verl logs found")


def test_info_of_an_empty_root_as_a_module(tmp_path: Path) -> None:
    done = run_module("info", str(tmp_path))
    assert done.returncode == 2
    assert done.stdout == ""
    one_line(done.stderr, str(tmp_path), "no verl logs found")


def test_summary_of_an_empty_root_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "ckpt").mkdir()
    assert main(["summary", str(tmp_path), "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    one_line(captured.err, str(tmp_path), "no verl logs found")


def test_root_with_only_other_logs_counts_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "pip.log").write_text("Collecting numpy\n", encoding="utf-8")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "notes.jsonl").write_text('{"note": 1}\n', encoding="utf-8")
    assert main(["info", str(tmp_path)]) == 2
    one_line(capsys.readouterr().err, str(tmp_path), "2 .log/.jsonl file(s) without verl RL content")


@pytest.fixture
def one_log(tmp_path: Path) -> Path:
    log = tmp_path / "run" / "train.log"
    log.parent.mkdir()
    log.write_text(STEP_LINES, encoding="utf-8")
    return log


def out_cases(tmp_path: Path) -> list[tuple[str, Path, str]]:
    """(case, --out, words the message holds); each must be refused before anything is parsed."""
    a_file = tmp_path / "plain-file"
    a_file.write_text("x")
    folder = tmp_path / "steps.csv"
    folder.mkdir()
    cases = [
        ("unsupported suffix", tmp_path / "steps.xlsx", "must end in .parquet or .csv"),
        ("no suffix", tmp_path / "steps", "must end in .parquet or .csv"),
        ("a folder", folder, "is a folder"),
        ("missing folder", tmp_path / "nowhere" / "steps.parquet", "does not exist"),
        ("folder is a file", a_file / "steps.parquet", "is not a folder"),
        ("/dev/full", Path("/dev/full"), "must end in .parquet or .csv"),
    ]
    if Path("/proc/self").is_dir():  # procfs takes no new files, not even from root
        cases.append(("read-only folder", Path("/proc/steps.csv"), "cannot be written"))
    return cases


def test_out_is_checked_before_parsing(
    one_log: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def no_parsing(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the logs were parsed before --out was checked")

    monkeypatch.setattr(rlmon.cli, "read_logs", no_parsing)
    for case, out, words in out_cases(tmp_path):
        assert main(["parse", str(one_log), "--out", str(out)]) == 2, case
        captured = capsys.readouterr()
        assert captured.out == "", case
        one_line(captured.err, str(out), words)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["plain-file", "run", "steps.csv"]  # no probe left


def test_out_in_an_unwritable_folder(one_log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        if os.access(locked, os.W_OK):
            pytest.skip("running as root: a mode-555 folder is writable")
        assert main(["parse", str(one_log), "--out", str(locked / "steps.csv")]) == 2
        one_line(capsys.readouterr().err, str(locked / "steps.csv"), "cannot be written")
    finally:
        locked.chmod(0o755)


def hostile_cases(tmp_path: Path, one_log: Path) -> list[tuple[list[str], int, list[str]]]:
    """(arguments, exit code, words of the one stderr line)."""
    folder_log = tmp_path / "folder.log"
    folder_log.mkdir()
    fifo = tmp_path / "pipe.log"
    os.mkfifo(fifo)
    cases: list[tuple[list[str], int, list[str]]] = [
        (["info", str(folder_log)], 2, [str(folder_log), "no verl logs found"]),
        (["parse", str(folder_log), "--out", str(tmp_path / "o.csv")], 2, [str(folder_log), "no verl .log"]),
        (["info", str(fifo)], 2, [str(fifo), "not a regular file (a FIFO)"]),
        (["parse", str(fifo), "--out", str(tmp_path / "o.csv")], 2, [str(fifo), "FIFO"]),
        (["summary", str(one_log)], 2, [str(one_log), "not a folder"]),
        (["summary", str(fifo)], 2, [str(fifo), "not a folder"]),
        (["demo", str(one_log)], 2, [str(one_log), "not a folder"]),
        (["parse", str(one_log), "--out", "/dev/full"], 2, ["/dev/full", ".parquet or .csv"]),
    ]
    if Path("/dev/null").exists():
        cases.append((["info", "/dev/null"], 2, ["/dev/null", "character device"]))
    if Path("/dev/full").exists():
        full = tmp_path / "full.csv"
        full.symlink_to("/dev/full")  # passes every early check; the write itself fails: exit 1
        cases.append((["parse", str(one_log), "--out", str(full)], 1, [str(full), "No space left on device"]))
    return cases


def test_hostile_inputs_give_one_line(tmp_path: Path, one_log: Path) -> None:
    for args, code, words in hostile_cases(tmp_path, one_log):
        done = run_module(*args, timeout_s=60)
        assert done.returncode == code, (args, done.stderr)
        assert done.stdout == "", args
        one_line(done.stderr, *words)


def test_unreadable_input_is_named_before_parsing(
    one_log: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "run" / "later.log"
    other.write_text(STEP_LINES, encoding="utf-8")
    other.chmod(0)
    real_open = Path.open

    def guarded_open(self: Path, *args: Any, **kwargs: Any) -> Any:
        if self == other:  # as root the kernel would allow it: fail the open as it fails for a user
            raise PermissionError(13, "Permission denied", str(self))
        return real_open(self, *args, **kwargs)

    def no_parsing(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("parsing started before every input was checked")

    monkeypatch.setattr(Path, "open", guarded_open)
    monkeypatch.setattr(rlmon.cli, "read_logs", no_parsing)
    try:
        assert main(["parse", str(one_log), str(other), "--out", str(tmp_path / "o.csv")]) == 2
        one_line(capsys.readouterr().err, str(other), "Permission denied")
    finally:
        other.chmod(0o644)


@pytest.mark.parametrize(
    ("raised", "code", "words"),
    [
        (KeyboardInterrupt(), 130, ["interrupted"]),
        (OSError(28, "No space left on device", "/cache/rlmon/x.parquet"), 1, ["/cache/rlmon/x.parquet", "space"]),
    ],
)
def test_interrupt_and_os_errors_are_one_line(
    one_log: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    raised: BaseException,
    code: int,
    words: list[str],
) -> None:
    def failing(*args: Any, **kwargs: Any) -> Any:
        raise raised

    failing_reader: Callable[..., Any] = failing
    monkeypatch.setattr(rlmon.cli, "read_logs", failing_reader)
    assert main(["parse", str(one_log), "--out", str(tmp_path / "o.csv")]) == code
    one_line(capsys.readouterr().err, *words)


# ----------------------------------------------------------------------- settings out of the widgets' range


@pytest.mark.parametrize(
    ("name", "env", "value"),
    [
        ("refresh_s", "RLMON_REFRESH_S", "4000"),
        ("refresh_s", "RLMON_REFRESH_S", "99999999999999999999"),
        ("smoothing_window", "RLMON_SMOOTHING_WINDOW", "501"),
    ],
)
def test_a_setting_above_its_widgets_range_is_refused(name: str, env: str, value: str) -> None:
    # Repro: RLMON_REFRESH_S=4000 was accepted, and the sidebar's picker (2 to 3600) then refreshed every 2 s.
    with pytest.raises(SettingError) as caught:
        load_settings([], {env: value})
    assert name in str(caught.value)
    assert "above the maximum" in str(caught.value)


def test_the_widgets_offer_the_settings_range() -> None:
    assert setting_range("refresh_s") == (2, 3600)
    assert load_settings([], {"RLMON_REFRESH_S": "3600"}).refresh_s == 3600
    assert setting_range("smoothing_window") == (1, 500)


# ------------------------------------------------------------------ bidi controls in the command line's output

RLO = "\u202e"
BIDI_LOG = (
    "(TaskRunner pid=7) Total training steps: 4\n"
    f"(TaskRunner pid=7) [prompt] Say {RLO}evil\n"
    f"(TaskRunner pid=7) [response] {RLO}evil\n"
    "(TaskRunner pid=7) [ground_truth] live\n"
    "(TaskRunner pid=7) [score] 1.0\n" + STEP_LINES
)


@pytest.fixture
def bidi_root(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    log = root / f"e4_{RLO}gnp.exe" / "train.log"
    log.parent.mkdir(parents=True)
    log.write_text(BIDI_LOG, encoding="utf-8")
    return root


@pytest.mark.parametrize("command", ["info-root", "info-log", "samples", "samples-json", "info-json"])
def test_the_command_line_prints_no_bidi_control(
    bidi_root: Path, tmp_path: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Repro: `rlmon info` and `rlmon samples` printed U+202E raw, so "evil" showed as "live" in the terminal.
    folder = bidi_root / f"e4_{RLO}gnp.exe"
    args = {
        "info-root": ["info", str(bidi_root)],
        "info-json": ["info", str(bidi_root), "--json"],
        "info-log": ["info", str(folder / "train.log")],
        "samples": ["samples", str(folder)],
        "samples-json": ["samples", str(folder), "--json"],
    }[command]
    assert main([*args, "--cache-dir", str(tmp_path / "cache")]) == 0
    out = capsys.readouterr().out
    assert RLO not in out
    assert "\\u202e" in out  # shown as its escape: the reader sees the name holds one
    if command.endswith("json"):
        # the same data once read: the escape is JSON's own
        assert f"e4_{RLO}gnp.exe" in json.dumps(json.loads(out), ensure_ascii=False)


def test_an_error_line_prints_no_bidi_control(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / f"no{RLO}such"
    assert main(["summary", str(missing)]) == 2
    line = one_line(capsys.readouterr().err, "does not exist")
    assert RLO not in line and "no\\u202esuch" in line


# --------------------------------------------------------------------------- a file holding no verl output


def test_a_binary_log_is_refused_naming_it(tmp_path: Path) -> None:
    # Repro: `rlmon parse` on a binary .log exited 0 with "0 steps (None–None)".
    binary = tmp_path / "core.log"
    binary.write_bytes(bytes(range(256)) * 64)
    out = tmp_path / "steps.csv"
    done = run_module("parse", str(binary), "--out", str(out), "--cache-dir", str(tmp_path / "cache"))
    assert done.returncode == 2
    assert done.stdout == ""
    one_line(done.stderr, str(binary), "no verl output in it (binary data)")
    assert not out.exists()
    # `rlmon info` says what the file is (exit 0: an empty log may be a run that has not written yet)
    done = run_module("info", str(binary), "--cache-dir", str(tmp_path / "cache"))
    assert done.returncode == 0
    assert done.stdout.strip() == f"{binary}: no verl output in it (binary data)"


def test_a_file_without_verl_output_among_logs_is_left_out_with_a_warning(
    one_log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "notes.log"
    notes.write_text("pip install verl\nDone.\n", encoding="utf-8")
    out = tmp_path / "steps.csv"
    assert main(["parse", str(notes), str(one_log), "--out", str(out), "--cache-dir", str(tmp_path / "cache")]) == 0
    captured = capsys.readouterr()
    assert captured.out.strip() == f"{out}: 2 steps (1–2), 3 keys from 1 file(s)"
    one_line(captured.err, str(notes), "no verl output in it; left out")


def test_a_run_that_logged_no_step_yet_parses_to_an_empty_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    started = tmp_path / "train.log"
    started.write_text("(TaskRunner pid=7) Total training steps: 40\n", encoding="utf-8")
    out = tmp_path / "steps.csv"
    assert main(["parse", str(started), "--out", str(out), "--cache-dir", str(tmp_path / "cache")]) == 0
    assert capsys.readouterr().out.strip() == f"{out}: 0 steps, 0 keys from 1 file(s)"


# ------------------------------------------------------------------- rlmon samples and dump folders outside


def test_rlmon_samples_reads_no_dump_folder_outside_the_roots(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Repro: a `Dumped generations to /any/folder/5.jsonl` line made `rlmon samples` print that folder's records.
    monkeypatch.delenv("RLMON_LOG_ROOT", raising=False)
    monkeypatch.delenv("RLMON_DUMP_ROOT", raising=False)
    elsewhere = tmp_path / "any" / "folder"
    shutil.copytree(REPO_ROOT / "tests" / "data" / "samples_dump", elsewhere)
    experiment = tmp_path / "root" / "e1"
    experiment.mkdir(parents=True)
    (experiment / "train.log").write_text(
        STEP_LINES + f"(TaskRunner pid=7) Dumped generations to {elsewhere}/5.jsonl\n", encoding="utf-8"
    )
    cache = ["--cache-dir", str(tmp_path / "cache")]
    assert main(["samples", str(experiment), "--json", *cache]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out) == []
    one_line(captured.err, "dump folder outside the log roots", str(elsewhere), "--dump-root")
    # allowed by the option (or RLMON_DUMP_ROOT): its three records, and no warning
    for allow in (["--dump-root", str(elsewhere.parent)], []):
        if not allow:
            monkeypatch.setenv("RLMON_DUMP_ROOT", str(elsewhere))
        assert main(["samples", str(experiment), "--json", *cache, *allow]) == 0
        captured = capsys.readouterr()
        assert [record["response"] for record in json.loads(captured.out)][:1] == ["5"]
        assert len(json.loads(captured.out)) == 3 and captured.err == ""


# ----------------------------------------------------------------------- a file-logger record of many keys


def test_a_file_logger_record_of_many_keys_is_not_taken_for_an_sft_log(tmp_path: Path) -> None:
    # Repro: a 9.6 MB JSONL with 100k keys per record was listed as "a verl SFT trainer log": its RL keys lay
    # past the 64 KB head the catalog reads.
    folder = tmp_path / "root" / "e1"
    folder.mkdir(parents=True)
    data = {**{f"extra/{index:06d}": 0.5 for index in range(100_000)}, "actor/entropy": 0.4}
    (folder / "metrics.jsonl").write_text(json.dumps({"step": 1, "data": data}) + "\n", encoding="utf-8")
    catalog = discover_experiments([tmp_path / "root"])
    assert [ref.id for ref in catalog.experiments] == ["e1"]
    assert not [problem for problem in catalog.problems if "SFT" in problem]
    # the SFT trainer's own file logger still is one
    sft = tmp_path / "sft" / "e2"
    sft.mkdir(parents=True)
    record = {"step": 1, "data": {"train/loss": 1.2, "train/lr(1e-3)": 0.1}}
    (sft / "metrics.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    assert discover_experiments([tmp_path / "sft"]).experiments == ()


# ------------------------------------------------------------------- the benchmark's data looks like a run


def test_the_benchmark_root_reads_as_a_real_run(tmp_path: Path) -> None:
    # Repro: benchmark pages showed "first-5 pass 346.9%", token counts as response_length/clip_ratio and
    # negative grad norms. Read through rlmon, its numbers stay in the ranges verl logs (and the demo shows).
    from rlmon.runs.loading import load_experiment
    from rlmon.settings import Settings
    from rlmon.views.model import table_numbers, view_of
    from tests.helpers.benchmark_root import MAX_RESPONSE_LENGTH, write_benchmark_root

    write_benchmark_root(tmp_path / "root", experiments=2, steps=200)
    cache = LogCache(None)
    for ref in discover_experiments([tmp_path / "root"]).experiments:
        experiment = load_experiment(ref, cache, now=time.time(), settings=Settings())
        numbers = table_numbers(view_of(ref, experiment))
        for rate in (numbers.first5_pass, numbers.last10_pass):
            assert rate is not None and 0.0 <= rate <= 100.0, rate  # percent
        ranges = {
            "critic/score/": (-1.0, 1.0),
            "response_length/clip_ratio": (0.0, 1.0),
            "response_length/": (0.0, MAX_RESPONSE_LENGTH),
            "actor/grad_norm": (1e-9, 100.0),
            "actor/entropy": (1e-9, 10.0),
            "actor/pg_clipfrac": (0.0, 1.0),
            "prompt_length/": (1.0, MAX_RESPONSE_LENGTH),
            "perf/": (1.0, 1e6),
        }
        for prefix, (low, high) in ranges.items():
            for name in (name for name in experiment.steps.columns if name.startswith(prefix)):
                column = experiment.steps.get_column(name).drop_nulls()
                assert low <= column.min() and column.max() <= high, (name, column.min(), column.max())  # type: ignore[operator]


# ------------------------------------------------------------------------------------------- names


def test_info_and_summary_of_a_root_tell_names_that_look_alike_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # folders E1, E1 + U+200B and a Cyrillic Е1 all read "E1 · GRPO": the root's names tell them apart
    root = write_look_alike_root(tmp_path / "logs")
    assert main(["info", str(root), "--cache-dir", str(tmp_path / "cache")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(": ", 1)[1] for line in lines] == [
        "E1 · GRPO · finished · 3/3",
        "E1 · GRPO (2) · finished · 3/3",
        "\u04151 · GRPO (3) · finished · 3/3",
    ]
    assert main(["info", str(root), "--json", "--cache-dir", str(tmp_path / "cache")]) == 0
    described = json.loads(capsys.readouterr().out)["experiments"]
    assert [item["name"] for item in described] == ["E1 · GRPO", "E1 · GRPO (2)", "\u04151 · GRPO (3)"]
    assert [item["id"] for item in described] == ["E1", "E1\u200b", "\u04151"]  # ids as they are: for --exp
    assert main(["summary", str(root), "--cache-dir", str(tmp_path / "cache")]) == 0
    # the three logs differ only in their folders: repeats of one setting, told as one group of 3 runs (not seeds:
    # no seed differs); `info` above names each
    assert "Qwen3-4B: GRPO (3 runs) finished 3/3." in capsys.readouterr().out


def test_no_name_in_the_report_becomes_a_link(tmp_path: Path) -> None:
    # Repro (issue 27, point 2): labels, folder and track names must not become links anywhere, the report
    # included; the only link is the one a description writes as [text](url), shown with its target.
    root = write_hostile_root(tmp_path / "logs")
    out = tmp_path / "out" / "report.html"
    out.parent.mkdir()
    args = ["report", str(root.root), "--out", str(out), "--cache-dir", str(tmp_path / "cache")]
    for experiment in (root.markup, root.folder, root.rlo, root.linkish):
        args += ["--exp", experiment]
    assert main([*args, "--metric", LINKISH_KEYS[0], "--metric", "pass_rate"]) == 0
    page = parse(out.read_text(encoding="utf-8"))
    links = [attrs.get("href") or "" for tag, attrs in page.tags if tag == "a"]
    # the report's own links to its sections, then the description's
    assert [href for href in links if not href.startswith("#exp-")] == [WIKI]
    for shown in (LINKISH, LINKISH_TRACK, LINKISH_FAILURE, LINKISH_SOURCE):
        assert shown in page.all_text, shown
    assert f"the wiki ({WIKI})" in page.all_text
