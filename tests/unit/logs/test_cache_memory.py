"""The log cache with a memory limit (``memory_mb``): frames beyond it are let go and read back from the cache folder,
every answer the same as without a limit; :meth:`LogCache.read_columns` reads some columns back without holding them.

Values are read off the step lines the tests write (:func:`tests.helpers.logs.step_lines`: ``actor/m<k>`` at step
``n`` is ``n + k/100``), or compared with one cold parse of the same bytes.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from rlmon.logs.cache import LogCache
from rlmon.logs.parse import parse_log_bytes
from tests.helpers.logs import assert_same_log, step_lines

HEAD = b"(TaskRunner pid=7) {'actor_rollout_ref': {'model': {'path': '/m/Qwen3-8B'}}}\n"


def _logs(folder: Path, count: int, *, steps: int = 50) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for number in range(count):
        path = folder / f"run{number}.log"
        path.write_bytes(HEAD + step_lines(1 + number, steps))
        paths.append(path)
    return paths


def _expected_column(first: int, steps: int, key: int) -> list[float]:
    return [round(step + key / 100, 4) for step in range(first, first + steps)]


def test_frames_beyond_the_limit_are_let_go_and_every_answer_stays_the_same(tmp_path: Path) -> None:
    paths = _logs(tmp_path / "logs", 6)
    one_frame = int(parse_log_bytes(paths[-1].read_bytes()).steps.estimated_size())
    cache = LogCache(tmp_path / "cache", quiet_s=0, memory_mb=0)
    for path in paths:
        cache.read(path)
    # the frames are in the cache folder, not in memory: only the one just read, which its reader has in hand
    assert cache.held_bytes <= one_frame
    assert cache.read_backs == 0
    for number, path in enumerate(paths):
        assert_same_log(cache.read(path), parse_log_bytes(path.read_bytes()))
        assert cache.read(path).steps["actor/m3"].to_list() == _expected_column(1 + number, 50, 3)
    assert cache.read_backs >= len(paths)  # read back from the folder, not parsed again
    assert cache.parses == len(paths)


def test_without_a_limit_every_frame_is_held(tmp_path: Path) -> None:
    paths = _logs(tmp_path / "logs", 3)
    cache = LogCache(tmp_path / "cache", quiet_s=0)
    for path in paths:
        cache.read(path)
        cache.read(path)
    assert cache.read_backs == 0
    frame_bytes = sum(int(cache.read(path).steps.estimated_size()) for path in paths)
    assert cache.held_bytes == frame_bytes


def test_the_frames_held_stay_within_the_limit(tmp_path: Path) -> None:
    paths = _logs(tmp_path / "logs", 12, steps=200)
    one_frame = int(parse_log_bytes(paths[0].read_bytes()).steps.estimated_size())
    limit_mb = 3.5 * one_frame / 1e6
    cache = LogCache(tmp_path / "cache", quiet_s=0, memory_mb=limit_mb)
    for path in [*paths, *reversed(paths)]:
        cache.read(path)
        assert cache.held_bytes <= limit_mb * 1e6
    assert cache.held_bytes >= 3 * one_frame  # it holds what fits: the limit is not a reason to hold nothing


def test_some_columns_are_read_back_without_holding_the_frame(tmp_path: Path) -> None:
    (path,) = _logs(tmp_path / "logs", 1, steps=30)
    cache = LogCache(tmp_path / "cache", quiet_s=0, memory_mb=0)
    cache.read(path)
    held = cache.held_bytes
    some = cache.read_columns(path, ["actor/m7", "no/such/key", "actor/m0"])
    assert some.columns == ["step", "actor/m7", "actor/m0"]
    assert some["step"].to_list() == list(range(1, 31))
    assert some["actor/m7"].to_list() == _expected_column(1, 30, 7)
    assert some["actor/m0"].to_list() == _expected_column(1, 30, 0)
    assert cache.held_bytes == held  # not held afterwards
    whole = cache.read_columns(path)
    assert_frame_equal(whole, parse_log_bytes(path.read_bytes()).steps)


def test_a_log_that_grows_after_its_frame_was_let_go(tmp_path: Path) -> None:
    (path,) = _logs(tmp_path / "logs", 1, steps=20)
    cache = LogCache(tmp_path / "cache", quiet_s=0, memory_mb=0)
    cache.read(path)
    for first in (21, 23, 30):
        with path.open("ab") as handle:
            handle.write(step_lines(first, 2))
        parses = cache.parses
        grown = cache.read(path)
        assert cache.parses == parses + 1  # the appended lines only
        assert grown.steps["step"].to_list()[-2:] == [first, first + 1]
        assert_same_log(grown, parse_log_bytes(path.read_bytes()))
        columns = cache.read_columns(path, ["actor/m2"])
        assert columns["actor/m2"].to_list()[-2:] == _expected_column(first, 2, 2)
    # a fresh process on the same folder finds every step (the deltas were written)
    assert_same_log(LogCache(tmp_path / "cache", quiet_s=0).read(path), parse_log_bytes(path.read_bytes()))


def test_the_last_line_still_being_written_is_part_of_the_answer_after_the_frame_goes(tmp_path: Path) -> None:
    (path,) = _logs(tmp_path / "logs", 1, steps=5)
    with path.open("ab") as handle:
        handle.write(b"(TaskRunner pid=7) step:6 - actor/m0:6.0 - actor/m1:6.5 - actor/m2:6")  # no newline yet
    cache = LogCache(tmp_path / "cache", quiet_s=3600, memory_mb=0)
    first = cache.read(path)
    assert first.steps["step"].to_list() == [1, 2, 3, 4, 5, 6]
    assert first.steps["actor/m1"].to_list()[-1] == 6.5
    assert first.steps["actor/m2"].to_list()[-1] is None  # its digits may not be complete
    assert_frame_equal(cache.read(path).steps, first.steps)
    assert cache.read_columns(path, ["actor/m1"])["actor/m1"].to_list() == [1.01, 2.01, 3.01, 4.01, 5.01, 6.5]


def test_a_write_put_off_keeps_its_frame_until_written(tmp_path: Path) -> None:
    paths = _logs(tmp_path / "logs", 3)
    cache = LogCache(tmp_path / "cache", quiet_s=0, memory_mb=1)
    with cache.putting_off_writes():
        for path in paths:
            cache.read(path)
    assert not list((tmp_path / "cache").rglob("*.parquet"))  # nothing written: the frames fit and are held
    assert cache.held_bytes > 0
    assert cache.write_put_off() == 3
    cache.read(paths[0])  # any read lets go of what is over the limit, now that it is in the folder
    for path in paths:
        assert_same_log(cache.read(path), parse_log_bytes(path.read_bytes()))


def test_a_write_put_off_that_does_not_fit_is_written_at_once(tmp_path: Path) -> None:
    paths = _logs(tmp_path / "logs", 4)
    cache = LogCache(tmp_path / "cache", quiet_s=0, memory_mb=0)
    with cache.putting_off_writes():
        for path in paths:
            cache.read(path)
    assert len(list((tmp_path / "cache").rglob("base-*.parquet"))) == 4
    assert cache.held_bytes <= int(parse_log_bytes(paths[-1].read_bytes()).steps.estimated_size())
    assert cache.write_put_off() == 0


def test_columns_are_those_of_the_last_read_until_the_log_is_read_again(tmp_path: Path) -> None:
    (path,) = _logs(tmp_path / "logs", 1, steps=10)
    mine = LogCache(tmp_path / "cache", quiet_s=0, memory_mb=0)
    mine.read(path)
    with path.open("ab") as handle:
        handle.write(step_lines(11, 3))
    LogCache(tmp_path / "cache", quiet_s=0).read(path)  # another process reads what was appended, writes a delta
    assert mine.read_columns(path, ["actor/m1"])["step"].to_list() == list(range(1, 11))  # the log is not looked at
    parses = mine.parses
    assert mine.read(path).steps["step"].to_list() == list(range(1, 14))
    assert mine.parses == parses  # what the other process wrote is loaded, not parsed again
    assert mine.read_columns(path, ["actor/m1"])["actor/m1"].to_list() == _expected_column(1, 13, 1)


def test_frames_another_process_replaced_are_found_again(tmp_path: Path) -> None:
    paths = _logs(tmp_path / "logs", 2, steps=10)
    mine = LogCache(tmp_path / "cache", quiet_s=0, memory_mb=0)
    for path in paths:
        mine.read(path)  # the first log's frame is let go
    # the log is written anew (same size, other values): another process reads it and replaces the entry's files
    paths[0].write_bytes(HEAD + step_lines(1, 10).replace(b"actor/m1:", b"actor/n1:"))
    LogCache(tmp_path / "cache", quiet_s=0).read(paths[0])
    columns = mine.read_columns(paths[0], ["actor/n1"])
    assert columns["actor/n1"].to_list() == _expected_column(1, 10, 1)
    assert_same_log(mine.read(paths[0]), parse_log_bytes(paths[0].read_bytes()))


@pytest.mark.parametrize("damage", ["truncate", "remove"])
def test_a_damaged_frame_file_costs_a_parse_not_a_wrong_answer(tmp_path: Path, damage: str) -> None:
    path, other = _logs(tmp_path / "logs", 2, steps=10)
    cache = LogCache(tmp_path / "cache", quiet_s=0, memory_mb=0)
    cache.read(path)
    (frame_file,) = (tmp_path / "cache").rglob("base-*.parquet")
    cache.read(other)  # the first log's frame is let go
    if damage == "truncate":
        frame_file.write_bytes(frame_file.read_bytes()[:100])
    else:
        frame_file.unlink()
    parses = cache.parses
    assert_same_log(cache.read(path), parse_log_bytes(path.read_bytes()))
    assert cache.parses == parses + 1
    assert cache.read_columns(path, ["actor/m4"])["actor/m4"].to_list() == _expected_column(1, 10, 4)


def test_a_cache_without_a_folder_holds_every_frame_whatever_the_limit(tmp_path: Path) -> None:
    paths = _logs(tmp_path / "logs", 3)
    cache = LogCache(None, quiet_s=0, memory_mb=0)
    for path in paths:
        cache.read(path)
    assert cache.held_bytes == sum(int(cache.read(path).steps.estimated_size()) for path in paths)
    for number, path in enumerate(paths):
        assert cache.read_columns(path, ["actor/m5"])["actor/m5"].to_list() == _expected_column(1 + number, 50, 5)
    assert cache.read_backs == 0


def test_reading_some_columns_of_a_log_not_read_yet_reads_it(tmp_path: Path) -> None:
    (path,) = _logs(tmp_path / "logs", 1, steps=8)
    LogCache(tmp_path / "cache", quiet_s=0).read(path)  # an earlier process
    cache = LogCache(tmp_path / "cache", quiet_s=0, memory_mb=0)
    columns = cache.read_columns(path, ["actor/m9"])
    assert columns.rows() == [(step, round(step + 0.09, 4)) for step in range(1, 9)]
    assert cache.parses == 0  # from the folder: nothing parsed
    assert pl.Series(columns["step"]).is_sorted()
