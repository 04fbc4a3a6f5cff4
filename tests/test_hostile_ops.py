"""Operating rlmon on large and hostile input: incremental discovery.

Which test covers which case:

Discovery of a large root is not a full rescan on every refresh (``rlmon.catalog``):
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
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import rlmon.catalog as catalog_module
from rlmon.catalog import FULL_WALK_S, discover_experiments

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
        if sys._getframe(1).f_globals.get("__name__") == "rlmon.catalog":  # not shutil's or os.walk's
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
