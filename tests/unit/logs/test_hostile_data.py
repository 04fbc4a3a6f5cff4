"""Hostile data and hostile disks: the data layer stays right, or says what it could not do, and never raises
anything but a :class:`~rlmon.errors.LogReadError` about the log itself.

What covers what:

* A full cache disk (polars raises ComputeError, not OSError): ``test_full_cache_disk_costs_a_reparse_and_one_
  notice`` (ComputeError and ENOSPC injected: one ``write_problem``, no temporary file, cleared by the next
  write), ``test_full_cache_disk_in_the_command_line`` (``rlmon parse``: exit 0, no traceback); a state
  JSON cannot hold: ``test_a_state_json_cannot_hold_costs_only_the_disk_copy``.
* A bad cache entry (``state.json`` of wrong shape, types or ranges; parquet files missing, damaged, of other
  rows or types): ``test_a_bad_cache_entry_is_parsed_again``, ``test_a_bad_delta_file_is_parsed_again``.
* A line still being written: ``test_a_real_step_line_cut_anywhere_never_shows_a_wrong_number`` (real step
  lines of five verl versions, every byte), ``test_a_step_line_of_the_test_data_cut_anywhere_...``,
  ``test_a_value_cut_at_the_end_of_the_file``, ``test_meta_lines_cut_anywhere_never_show_a_wrong_number``,
  ``test_an_unterminated_jsonl_record_is_not_used_until_complete_or_quiet``; the quiet period and the fixed
  ``test_trailing_line_is_provisional_until_completed`` are in tests/unit/logs/test_cache.py.
* A log copied over with the same size and mtime (``cp -p``): ``test_copied_over_with_the_same_size_and_mtime``
  (live and ``..._across_a_restart``); appends stay incremental: ``test_appends_stay_incremental``.
* A line of tens of megabytes: ``test_a_forty_megabyte_line_is_skipped_and_not_read_again``,
  ``test_an_unterminated_long_tail_is_not_held_nor_read_again``, ``test_a_forty_megabyte_line_needs_bounded_
  memory`` (peak RSS in a subprocess), ``test_long_lines_under_a_tiny_limit_split_anywhere``.
* A read-only cache folder (EROFS injected, so it runs as root too; chmod 0o555 when not root):
  ``test_read_only_cache_and_a_rewritten_log``, ``test_read_only_cache_from_the_start``.
* Incremental equals cold, rows and column order: ``test_damaged_step_lines_split_anywhere_give_the_cold_
  answer``, ``test_what_the_damaged_lines_give``; the property tests of tests/unit/logs/test_properties.py split real
  logs, tests/data files and generated damaged logs, with restarts from the disk cache.

Round three (issue 27):

* Temporary files of a writer killed mid-write (kill -9 during a cache write left ``.base-….parquet….tmp``):
  ``test_temporary_files_of_a_killed_writer_are_swept``, ``test_a_running_cache_sweeps_other_logs_folders_while_
  it_writes``; in every folder rlmon writes temporaries in (the digests in ``experiments/`` and the alert state in
  ``alerts/`` stayed), found by running every writer of the cache folder: ``test_the_sweep_covers_every_folder_a_
  writer_puts_temporaries_in``, ``test_every_module_that_makes_temporary_files_is_driven_by_the_sweep_test``.
* Dump folders outside the log roots (a config dump's ``rollout_data_dir``, a ``Dumped generations to`` line):
  ``test_a_dump_folder_outside_the_roots_is_refused``, ``test_a_symlink_out_of_the_root_is_outside``,
  ``test_a_dump_folder_of_the_same_name_inside_the_experiment_is_read_instead``,
  ``test_read_samples_names_the_refused_folder_and_reads_nothing_of_it``.
* Many distinct keys (200 lines x 1,000 new keys took 41.8 s and 2.03 GB): ``test_distinct_keys_past_max_keys_
  are_dropped_from_the_line_they_start``, ``test_the_bound_does_not_depend_on_where_the_file_is_cut``,
  ``test_a_cache_made_under_another_bound_is_parsed_again``, ``test_a_file_logger_record_past_max_keys_is_bounded_
  too``, ``test_many_keys_cost_bounded_memory`` (peak RSS <= 400 MB in a subprocess).
"""

from __future__ import annotations

import builtins
import errno
import io
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rlmon.logs.cache
import rlmon.logs.locks
import rlmon.logs.parse
from rlmon import cli
from rlmon.logs.cache import QUIET_S, LogCache
from rlmon.logs.parse import parse_jsonl_bytes, parse_log_bytes
from rlmon.logs.samples import SampleCache, find_dump_dirs, read_samples
from tests.helpers.logs import DISK_FULL, Clock, assert_same_log, fail_parquet_writes
from tests.helpers.paths import DATA, REPO_ROOT

LOG = (
    b"(TaskRunner pid=7) Total training steps: 4\n"
    b"(TaskRunner pid=7) step:1 - critic/score/mean:0.25 - global_seqlen/min:369821\n"
    b"(TaskRunner pid=7) step:2 - critic/score/mean:0.5 - global_seqlen/min:369822\n"
)

MORE = b"(TaskRunner pid=7) step:3 - critic/score/mean:0.75 - global_seqlen/min:369823\n"


def append(path: Path, data: bytes) -> None:
    with open(path, "ab") as handle:
        handle.write(data)


def temporary_files(folder: Path) -> list[Path]:
    return [item for item in folder.rglob("*") if item.name.endswith(".tmp")]


# --- a full cache disk ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", list(DISK_FULL))
def test_full_cache_disk_costs_a_reparse_and_one_notice(kind: str, tmp_path: Path, cache_dir: Path) -> None:
    path = tmp_path / "run.log"
    path.write_bytes(LOG)
    clock = Clock()
    with pytest.MonkeyPatch.context() as patch:
        fail_parquet_writes(patch, DISK_FULL[kind])
        cache = LogCache(cache_dir, clock=clock)
        first = cache.read(path)
        assert_frame_equal(first.steps, parse_log_bytes(LOG).steps)
        problem = cache.write_problem
        assert problem is not None
        assert problem.startswith(f"cannot write the cache in {cache_dir}: ")
        assert "No space left on device" in problem
        assert "\n" not in problem
        assert temporary_files(cache_dir) == [], "a failed write leaves no temporary file"
        # the log keeps being read incrementally in memory
        parses = cache.parses
        append(path, MORE)
        grown = cache.read(path)
        assert cache.parses == parses + 1
        assert_frame_equal(grown.steps, parse_log_bytes(LOG + MORE).steps)
        assert cache.write_problem == problem
        assert temporary_files(cache_dir) == []
        # a restart costs a parse from the start, nothing else
        restarted = LogCache(cache_dir, clock=clock)
        assert_frame_equal(restarted.read(path).steps, grown.steps)
        assert restarted.parses >= 1
    # space is freed: the next write (after the back-off) works and clears the notice
    clock.now += 3600
    append(path, b"step:4 - critic/score/mean:1.0\n")
    latest = cache.read(path)
    assert cache.write_problem is None
    again = LogCache(cache_dir, clock=clock)
    assert_frame_equal(again.read(path).steps, latest.steps)
    assert again.parses == 0, "the cache written after the disk recovered is complete"


def test_full_cache_disk_in_the_command_line(
    tmp_path: Path, cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "run.log"
    path.write_bytes(LOG)
    with pytest.MonkeyPatch.context() as patch:
        fail_parquet_writes(patch, DISK_FULL["polars"])
        code = cli.main(["parse", str(path), "--out", str(tmp_path / "steps.csv"), "--cache-dir", str(cache_dir)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "Traceback" not in captured.err + captured.out
    assert (tmp_path / "steps.csv").read_text().splitlines()[1:] == ["1,0.25,369821.0", "2,0.5,369822.0"]
    # one warning naming the cache folder, not the log
    warnings = [line for line in captured.err.splitlines() if "warning" in line]
    assert len(warnings) == 1 and str(cache_dir) in warnings[0] and "No space left on device" in warnings[0]


def test_a_state_json_cannot_hold_costs_only_the_disk_copy(tmp_path: Path, cache_dir: Path) -> None:
    # pprint of a set in a config dump reads back as a set, which JSON has no form for
    path = tmp_path / "run.log"
    path.write_bytes(b"(TaskRunner pid=7) {'actor_rollout_ref': {'ids': {1, 2}}}\n" + LOG)
    cache = LogCache(cache_dir)
    parsed = cache.read(path)
    assert parsed.meta.config == {"actor_rollout_ref": {"ids": {1, 2}}}
    assert_frame_equal(parsed.steps, parse_log_bytes(LOG).steps)
    assert cache.write_problem is not None and "not JSON serializable" in cache.write_problem
    assert_frame_equal(LogCache(cache_dir).read(path).steps, parsed.steps)


# --- a read-only cache folder -----------------------------------------------------------------------------------------
def read_only(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """Make every write under ``folder`` fail with EROFS, as on a read-only mount (works as root too)."""
    inside = str(folder.resolve())

    def guard(path: Any) -> None:
        if isinstance(path, str | os.PathLike) and os.path.abspath(os.fspath(path)).startswith(inside):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), os.fspath(path))

    def guarded(function: Callable[..., Any], *, argument: int = 0) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            guard(args[argument])
            return function(*args, **kwargs)

        return call

    real_open = builtins.open

    def guarded_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if any(flag in mode for flag in "wax+"):
            guard(file)
        return real_open(file, mode, *args, **kwargs)

    for name in ("mkdir", "unlink", "remove", "rmdir", "rename", "replace"):
        monkeypatch.setattr(os, name, guarded(getattr(os, name)))
    monkeypatch.setattr(builtins, "open", guarded_open)
    monkeypatch.setattr(io, "open", guarded_open)
    monkeypatch.setattr(pl.DataFrame, "write_parquet", guarded(pl.DataFrame.write_parquet, argument=1))


@pytest.fixture(params=["injected", "chmod"])
def read_only_cache(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[[Path], None]]:
    """A function that turns a cache folder read-only: by injecting EROFS, or (not as root) by chmod 0o555."""
    changed: list[Path] = []

    def make(folder: Path) -> None:
        if request.param == "injected":
            read_only(monkeypatch, folder)
            return
        if os.geteuid() == 0:
            pytest.skip("root ignores file modes; the injected variant covers this")
        for item in [folder, *folder.rglob("*")]:
            item.chmod(0o555 if item.is_dir() else 0o444)
            changed.append(item)

    yield make
    for item in changed:
        item.chmod(0o755 if item.is_dir() else 0o644)


def test_read_only_cache_and_a_rewritten_log(
    tmp_path: Path, cache_dir: Path, read_only_cache: Callable[[Path], None]
) -> None:
    path = tmp_path / "run.log"
    path.write_bytes(LOG)
    LogCache(cache_dir).read(path)  # the cache holds this log
    read_only_cache(cache_dir)
    rewritten = LOG.replace(b"0.25", b"0.35")
    replacement = tmp_path / "replacement.log"
    replacement.write_bytes(rewritten + MORE)
    os.replace(replacement, path)
    cache = LogCache(cache_dir)
    result = cache.read(path)  # never "cannot read: Read-only file system"
    assert_frame_equal(result.steps, parse_log_bytes(rewritten + MORE).steps)
    assert cache.write_problem is not None
    assert str(cache_dir) in cache.write_problem
    # the same cache instance, the log rewritten once more
    path.write_bytes(LOG)
    assert_frame_equal(cache.read(path).steps, parse_log_bytes(LOG).steps)
    assert temporary_files(cache_dir) == []


def test_read_only_cache_from_the_start(
    tmp_path: Path, cache_dir: Path, read_only_cache: Callable[[Path], None]
) -> None:
    path = tmp_path / "run.log"
    path.write_bytes(LOG)
    read_only_cache(cache_dir)
    cache = LogCache(cache_dir)
    assert_frame_equal(cache.read(path).steps, parse_log_bytes(LOG).steps)
    assert cache.write_problem is not None
    assert cache.write_problem.startswith(f"cannot write the cache in {cache_dir}: ")
    append(path, MORE)
    assert_frame_equal(cache.read(path).steps, parse_log_bytes(LOG + MORE).steps)


# --- one bad cache entry ----------------------------------------------------------------------------------------------

CACHED = (
    b"+ python3 -m verl.trainer.main_ppo trainer.total_epochs=2\n"
    b"(TaskRunner pid=7) {'actor_rollout_ref': {'rollout': {'n': 4}},\n"
    b"(TaskRunner pid=7)  'trainer': {'total_epochs': 2}}\n"
    b"(TaskRunner pid=7) Setting global step to 1\n" + LOG + b"(TaskRunner pid=7) Training Progress:  50%|##   | 2/4\n"
)


def cache_entry(cache_dir: Path) -> Path:
    """The one per-log folder of a cache that has read one log."""
    (folder,) = (cache_dir / "logs").iterdir()
    return folder


def edit_state(**changes: Any) -> Callable[[Path], None]:
    def edit(folder: Path) -> None:
        state = json.loads((folder / "state.json").read_text())
        for name, value in changes.items():
            if value is _DROP:
                state.pop(name)
            else:
                state[name] = value
        (folder / "state.json").write_text(json.dumps(state))

    return edit


def write_state(text: str) -> Callable[[Path], None]:
    return lambda folder: (folder / "state.json").write_text(text)


def edit_collector(**changes: Any) -> Callable[[Path], None]:
    def edit(folder: Path) -> None:
        state = json.loads((folder / "state.json").read_text())
        for name, value in changes.items():
            target = state["collector"]["meta"] if name.startswith("meta.") else state["collector"]
            target[name.removeprefix("meta.")] = value
        (folder / "state.json").write_text(json.dumps(state))

    return edit


def edit_file(pattern: str, change: Callable[[bytes], bytes | None]) -> Callable[[Path], None]:
    def edit(folder: Path) -> None:
        (target,) = folder.glob(pattern)
        changed = change(target.read_bytes())
        if changed is None:
            target.unlink()
        else:
            target.write_bytes(changed)

    return edit


def other_parquet(_: bytes) -> bytes:
    """A valid parquet file holding other rows (what a crash between two writes could leave)."""
    buffer = io.BytesIO()
    pl.DataFrame({"step": [1, 2], "critic/score/mean": [9.0, 9.0]}).write_parquet(buffer)
    return buffer.getvalue()


_DROP = object()
BAD_ENTRIES: dict[str, Callable[[Path], None]] = {
    "null": write_state("null"),
    "list": write_state("[]"),
    "string": write_state('"state"'),
    "number": write_state("1e999"),
    "not-json": write_state('{"parser_version": '),
    "deep-nesting": write_state("[" * 100_000 + "]" * 100_000),
    "collector-string": edit_state(collector="x"),
    "only-collector": write_state('{"collector": "x"}'),
    "collector-list": edit_state(collector=[]),
    "collector-meta-list": edit_collector(meta=[]),
    "collector-meta-field-type": edit_collector(**{"meta.resume_steps": "abc"}),
    "collector-meta-warnings-type": edit_collector(**{"meta.warnings": 5}),
    "collector-meta-kind": edit_collector(**{"meta.kind": "gan"}),
    "collector-meta-config": edit_collector(**{"meta.config": [1, 2]}),
    "collector-block-lines": edit_collector(block_lines=5),
    "collector-frames": edit_collector(frames={"": "not a list"}),
    "collector-line-negative": edit_collector(initial_fill_line=-3),
    "collector-line-huge": edit_collector(initial_fill_line=10**30),
    "collector-step-float": edit_collector(last_training_step=1.5),
    "offset-negative": edit_state(offset=-5),
    "offset-past-the-end": edit_state(offset=10**9),
    "offset-float": edit_state(offset=12.0),
    "offset-bool": edit_state(offset=True),
    "offset-missing": edit_state(offset=_DROP),
    "head-len-huge": edit_state(head_len=1e12),
    "head-len-int-huge": edit_state(head_len=10**12),
    "head-len-past-offset": edit_state(head_len=100_000),
    "lines-past-offset": edit_state(lines=10**6),
    "lines-string": edit_state(lines="3"),
    "deltas-huge": edit_state(deltas=10**9),
    "deltas-negative": edit_state(deltas=-1),
    "crc-too-big": edit_state(tail_crc=2**40),
    "device-null": edit_state(device=None),
    "base-missing": edit_file("base-*.parquet", lambda data: None),
    "base-garbage": edit_file("base-*.parquet", lambda data: b"PAR1" + b"\x00" * 100 + b"PAR1"),
    "base-truncated": edit_file("base-*.parquet", lambda data: data[: len(data) // 2]),
    "base-one-byte-changed": edit_file("base-*.parquet", lambda data: data[:40] + bytes([data[40] ^ 0xFF]) + data[41:]),
    "base-other-rows": edit_file("base-*.parquet", other_parquet),
    "base-empty": edit_file("base-*.parquet", lambda data: b""),
    "state-missing": edit_file("state.json", lambda data: None),
}


@pytest.mark.parametrize("name", list(BAD_ENTRIES))
def test_a_bad_cache_entry_is_parsed_again(name: str, tmp_path: Path, cache_dir: Path) -> None:
    path = tmp_path / "run.log"
    path.write_bytes(CACHED)
    cold = parse_log_bytes(CACHED)
    assert cold.meta.total_steps == 4 and cold.meta.resume_steps == [1]
    assert cold.steps["global_seqlen/min"].to_list() == [369821.0, 369822.0]
    LogCache(cache_dir).read(path)
    BAD_ENTRIES[name](cache_entry(cache_dir))
    assert_same_log(LogCache(cache_dir).read(path), cold)
    # and once more after the log grew, through a cache that loaded the repaired entry
    append(path, MORE)
    assert_same_log(LogCache(cache_dir).read(path), parse_log_bytes(CACHED + MORE))


@pytest.mark.parametrize("name", ["delta-missing", "delta-garbage", "delta-other-rows", "delta-wrong-type"])
def test_a_bad_delta_file_is_parsed_again(name: str, tmp_path: Path, cache_dir: Path) -> None:
    path = tmp_path / "run.log"
    path.write_bytes(CACHED)
    cache = LogCache(cache_dir)
    cache.read(path)
    append(path, MORE)
    cache.read(path)
    (delta,) = cache_entry(cache_dir).glob("delta-*.arrow")
    if name == "delta-missing":
        delta.unlink()
    elif name == "delta-garbage":
        delta.write_bytes(b"garbage")
    elif name == "delta-other-rows":
        delta.write_bytes(other_parquet(b""))
    else:
        pl.DataFrame({"step": ["3"], "critic/score/mean": ["x"]}).write_parquet(delta)
    assert_same_log(LogCache(cache_dir).read(path), parse_log_bytes(CACHED + MORE))


# --- a log replaced with the same size and mtime ----------------------------------------------------------------------
# long enough that the head (1 KB) and tail (256 B) fingerprints miss a change in the middle
MIDDLE = b"".join(b"step:%d - critic/score/mean:%d.5 - pad:%s\n" % (n, n, b"x" * 60) for n in range(1, 60))
MIDDLE_CHANGED = MIDDLE.replace(b"step:30 - critic/score/mean:30.5", b"step:30 - critic/score/mean:99.5")


def copy_preserving(source_bytes: bytes, path: Path, tmp_path: Path) -> None:
    """``cp -p`` of a file with these bytes over ``path``: same inode, same size, and the mtime put back."""
    before = path.stat()
    source = tmp_path / "source.log"
    source.write_bytes(source_bytes)
    os.utime(source, ns=(before.st_atime_ns, before.st_mtime_ns))
    time.sleep(0.05)  # past the coarse clock tick of the first write, so the ctime moves
    shutil.copy2(source, path)  # opens the target for writing (same inode), then copies the times
    after = path.stat()
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (before.st_ino, before.st_size, before.st_mtime_ns)
    assert after.st_ctime_ns != before.st_ctime_ns


def test_copied_over_with_the_same_size_and_mtime(tmp_path: Path) -> None:
    path = tmp_path / "run.log"
    path.write_bytes(MIDDLE)
    cache = LogCache()
    assert cache.read(path).steps.filter(pl.col("step") == 30)["critic/score/mean"].to_list() == [30.5]
    copy_preserving(MIDDLE_CHANGED, path, tmp_path)
    assert cache.read(path).steps.filter(pl.col("step") == 30)["critic/score/mean"].to_list() == [99.5]
    assert_same_log(cache.read(path), parse_log_bytes(MIDDLE_CHANGED))


def test_copied_over_with_the_same_size_and_mtime_across_a_restart(tmp_path: Path, cache_dir: Path) -> None:
    path = tmp_path / "run.log"
    path.write_bytes(MIDDLE)
    LogCache(cache_dir).read(path)
    copy_preserving(MIDDLE_CHANGED, path, tmp_path)
    restarted = LogCache(cache_dir)
    assert restarted.read(path).steps.filter(pl.col("step") == 30)["critic/score/mean"].to_list() == [99.5]
    assert_same_log(restarted.read(path), parse_log_bytes(MIDDLE_CHANGED))


def test_appends_stay_incremental(tmp_path: Path, cache_dir: Path, parsed_sizes: list[int]) -> None:
    # an append changes size, mtime and ctime; only the new bytes are parsed, live and after a restart
    path = tmp_path / "run.log"
    path.write_bytes(MIDDLE)
    cache = LogCache(cache_dir)
    cache.read(path)
    fed = parsed_sizes
    fed.clear()  # count from here on
    written = MIDDLE
    for step in (60, 61):
        ctime = path.stat().st_ctime_ns
        time.sleep(0.05)
        line = b"step:%d - critic/score/mean:%d.5\n" % (step, step)
        append(path, line)
        written += line
        assert path.stat().st_ctime_ns != ctime
        assert_same_log(cache.read(path), parse_log_bytes(written))
        assert fed[-1] == len(line)
    fed.clear()
    line = b"step:62 - critic/score/mean:62.5\n"
    append(path, line)
    restarted = LogCache(cache_dir)
    assert_same_log(restarted.read(path), parse_log_bytes(written + line))
    assert fed == [len(line)], "after a restart only the appended bytes are parsed"


# --- a line still being written ---------------------------------------------------------------------------------------
# one step line from each of several verl versions and formats: v0.1 3-decimal with an ANSI-coloured prefix,
# 2025 full precision, 2026 numpy-2 wrappers, the SFT trainer, a resumed PPO run
REAL_LINES = {
    "ehl-gemma2-2b-ppo-gsm8k-v0.1-2024-12.log": 30,
    "amd-mi300-deepseek7b-grpo-gsm8k-2025-03.log": 30,
    "gui-cursor-agentloop-grpo-2026-03.log": 30,
    "charcount-sft-trainer-readme-2025-08.log": 2,
    "dstack-ppo-qwen25-7b-resumed-2025-05.log": 30,
}
"""File -> the first step line with at least this many pairs is taken."""
DATA_LINES = ["v1_trainer_glued.log", "formatter_reference_lines.log", "validation_oneline_v01.log"]
META_LINES = [
    b"(TaskRunner pid=1) Total training steps: 435\n",
    b"(TaskRunner pid=1) Training Progress:  10%|\xe2\x96\x88         | 21/210 [1:30:25<14:38:40, 278.94s/it]\n",
    b"(TaskRunner pid=1) Size of train dataloader: 29, Size of val dataloader: 1\n",
    b"(TaskRunner pid=22) Setting global step to 100\n",
]
STEP_MARK = re.compile(rb"step:\d+ - ")


def step_line(text: bytes, min_pairs: int) -> bytes:
    for line in text.splitlines(keepends=True):
        if STEP_MARK.search(line) and line.count(b" - ") >= min_pairs and line.endswith(b"\n"):
            return line
    raise AssertionError("no such step line")


def same_value(got: float, want: float | None) -> bool:
    return want is not None and (got == want or (math.isnan(got) and math.isnan(want)))


def assert_never_wrong(partial: Any, complete: Any, where: str) -> None:
    """Every step and value ``partial`` shows is one ``complete`` has, with the same value."""
    steps = partial.steps
    full = complete.steps.filter(pl.col("step").is_in(steps["step"].implode()))
    assert steps["step"].to_list() == full["step"].to_list(), where
    for name in steps.columns[1:]:
        assert name in full.columns, (where, name)
        for got, want in zip(steps[name], full[name], strict=True):
            assert got is None or same_value(got, want), (where, name, got, want)
    for name in ("total_steps", "tqdm_n", "tqdm_total", "train_batches"):
        assert getattr(partial.meta, name) in (None, getattr(complete.meta, name)), (where, name)
    assert partial.meta.resume_steps in ([], complete.meta.resume_steps), where


def written_byte_by_byte(path: Path, context: bytes, line: bytes, tmp_path: Path) -> None:
    """The trainer writes ``line`` one byte at a time after ``context``; the log is read after every byte."""
    complete = parse_log_bytes(context + line)
    path.write_bytes(context)
    cache = LogCache()
    cache.read(path)
    with open(path, "ab", buffering=0) as handle:
        for cut in range(len(line)):
            handle.write(line[cut : cut + 1])
            assert_never_wrong(cache.read(path), complete, f"{path.name} cut at {cut + 1}")
    assert_same_log(cache.read(path), complete)


def cut_then_completed(path: Path, context: bytes, line: bytes, cuts: list[int]) -> None:
    """At each cut, a fresh cache reads the line cut there; then the rest arrives at once."""
    complete = parse_log_bytes(context + line)
    for cut in cuts:
        path.write_bytes(context + line[:cut])
        cache = LogCache()
        assert_never_wrong(cache.read(path), complete, f"{path.name} cut at {cut}")
        append(path, line[cut:])
        assert_same_log(cache.read(path), complete)


def test_a_real_step_line_cut_anywhere_never_shows_a_wrong_number(realdata_dir: Path, tmp_path: Path) -> None:
    rng = random.Random(4)
    for name, min_pairs in REAL_LINES.items():
        text = (realdata_dir / name).read_bytes()
        line = step_line(text, min_pairs)
        context = text.splitlines(keepends=True)[0]  # a line before it, no step in it
        assert not STEP_MARK.search(context)
        path = tmp_path / name
        written_byte_by_byte(path, context, line, tmp_path)
        cut_then_completed(path, context, line, sorted(rng.sample(range(1, len(line)), 12)))


def test_a_step_line_of_the_test_data_cut_anywhere_never_shows_a_wrong_number(tmp_path: Path) -> None:
    rng = random.Random(5)
    for name in DATA_LINES:
        text = (DATA / name).read_bytes()
        line = step_line(text, 1)
        context = text[: text.index(line)]
        path = tmp_path / name
        written_byte_by_byte(path, context, line, tmp_path)
        cut_then_completed(path, context, line, sorted(rng.sample(range(1, len(line)), 8)))


def test_a_value_cut_at_the_end_of_the_file(tmp_path: Path) -> None:
    # the file ends inside a value: global_seqlen/min:36 of 369821
    path = tmp_path / "run.log"
    path.write_bytes(LOG + b"(TaskRunner pid=7) step:3 - critic/score/mean:0.75 - global_seqlen/min:36")
    cache = LogCache()
    assert cache.read(path).steps["global_seqlen/min"].to_list() == [369821.0, 369822.0, None]
    assert cache.read(path).steps["critic/score/mean"].to_list() == [0.25, 0.5, 0.75]
    append(path, b"9823\n")
    assert cache.read(path).steps["global_seqlen/min"].to_list() == [369821.0, 369822.0, 369823.0]


def test_meta_lines_cut_anywhere_never_show_a_wrong_number(tmp_path: Path) -> None:
    for index, line in enumerate(META_LINES):
        written_byte_by_byte(tmp_path / f"meta-{index}.log", LOG.split(b"\n", 1)[1], line, tmp_path)


def test_an_unterminated_jsonl_record_is_not_used_until_complete_or_quiet(tmp_path: Path) -> None:
    records = (DATA / "file_logger.jsonl").read_bytes().split(b"\n", 1)[1]
    last = records.rstrip(b"\n").rsplit(b"\n", 1)[1] + b"\n"
    context = records[: len(records) - len(last)]
    complete = parse_jsonl_bytes(records)
    before = parse_jsonl_bytes(context)
    path = tmp_path / "run.jsonl"
    path.write_bytes(context)
    cache = LogCache()
    with open(path, "ab", buffering=0) as handle:
        for cut in range(len(last) - 1):
            handle.write(last[cut : cut + 1])
            partial = cache.read(path)
            assert_frame_equal(partial.steps, before.steps)
            assert partial.meta.warnings == before.meta.warnings, "a record being written is not an error"
        handle.write(last[-1:])
    assert_same_log(cache.read(path), complete)
    # a finished file whose last record lacks its newline: used once the file is quiet
    path.write_bytes(records.rstrip(b"\n"))
    clock = Clock()
    quiet = LogCache(clock=clock)
    assert_frame_equal(quiet.read(path).steps, before.steps)
    clock.now += QUIET_S + 60
    assert_same_log(quiet.read(path), parse_jsonl_bytes(records.rstrip(b"\n")))


# --- a line of tens of megabytes --------------------------------------------------------------------------------------
LONG_MB = 40
BEFORE_LONG = b"step:1 - a:1.0\nstep:2 - a:2.0\n"  # lines 1-2; the long line is line 3
AFTER_LONG = b"step:3 - a:3.0\nstep:4 - a:4.0\n"
LONG_WARNING = "line 3: longer than 16 MB; skipped"


def long_line() -> bytes:
    # a step marker at its start: it would be a step line, were it not too long
    return b"step:9 - a:" + b"9" * (LONG_MB * 1024 * 1024)


class CountingReads:
    """Counts the bytes the cache reads from log files."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.total = 0
        real_open = builtins.open
        counter = self

        class Handle:
            def __init__(self, handle: Any) -> None:
                self.handle = handle

            def read(self, size: int = -1) -> bytes:
                data: bytes = self.handle.read(size)
                counter.total += len(data)
                return data

            def __getattr__(self, name: str) -> Any:
                return getattr(self.handle, name)

            def __enter__(self) -> Handle:
                return self

            def __exit__(self, *exc: object) -> None:
                self.handle.close()

        def counting_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
            handle = real_open(file, mode, *args, **kwargs)
            return Handle(handle) if mode == "rb" else handle

        monkeypatch.setattr(rlmon.logs.cache, "open", counting_open, raising=False)


def test_a_forty_megabyte_line_is_skipped_and_not_read_again(
    tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "run.log"
    data = BEFORE_LONG + long_line() + b"\n" + AFTER_LONG
    path.write_bytes(data)
    cache = LogCache(cache_dir)
    parsed = cache.read(path)
    assert parsed.steps.rows() == [(1, 1.0), (2, 2.0), (3, 3.0), (4, 4.0)]
    assert LONG_WARNING in parsed.meta.warnings
    assert parsed.meta.lines == 5
    assert_same_log(parsed, parse_log_bytes(data))
    assert LONG_WARNING in parse_log_bytes(data).meta.warnings
    # a refresh after an append reads the new bytes only, live and after a restart
    reads = CountingReads(monkeypatch)
    append(path, b"step:5 - a:5.0\n")
    assert cache.read(path).steps["step"].to_list() == [1, 2, 3, 4, 5]
    restarted = LogCache(cache_dir)
    assert restarted.read(path).steps["step"].to_list() == [1, 2, 3, 4, 5]
    assert restarted.read(path).meta.warnings.count(LONG_WARNING) == 1
    assert reads.total < 64 * 1024, f"{reads.total} bytes read for a refresh"


def test_an_unterminated_long_tail_is_not_held_nor_read_again(
    tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "run.log"
    path.write_bytes(BEFORE_LONG + long_line())
    cache = LogCache(cache_dir)
    parsed = cache.read(path)
    assert parsed.steps.rows() == [(1, 1.0), (2, 2.0)]
    assert LONG_WARNING in parsed.meta.warnings
    reads = CountingReads(monkeypatch)
    append(path, b"9" * 1000)  # the line goes on
    assert cache.read(path).steps.rows() == [(1, 1.0), (2, 2.0)]
    assert LogCache(cache_dir).read(path).steps.rows() == [(1, 1.0), (2, 2.0)]
    assert reads.total < 64 * 1024, f"{reads.total} bytes read for a refresh"
    append(path, b"\r\n" + AFTER_LONG)  # and ends
    parsed = cache.read(path)
    assert parsed.steps.rows() == [(1, 1.0), (2, 2.0), (3, 3.0), (4, 4.0)]
    assert parsed.meta.warnings.count(LONG_WARNING) == 1
    assert parsed.meta.lines == 5
    assert_same_log(parsed, parse_log_bytes(path.read_bytes()))
    assert_same_log(LogCache(cache_dir).read(path), parse_log_bytes(path.read_bytes()))


MEMORY_PROBE = """
import resource, sys
from pathlib import Path
from rlmon.logs.cache import LogCache


def peak_kb():
    try:  # Linux: the high-water mark since it was reset
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def current_kb():
    try:
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


try:
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")  # forget the peak of the imports
except OSError:
    pass
before = current_kb()
parsed = LogCache(None).read(Path(sys.argv[1]))
print(parsed.steps.height, (peak_kb() - before) // 1024)
"""


def test_a_forty_megabyte_line_needs_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "run.log"
    path.write_bytes(BEFORE_LONG + long_line() + b"\n" + AFTER_LONG)
    repo = REPO_ROOT
    env = {**os.environ, "PYTHONPATH": str(repo)}
    output = subprocess.run(
        [sys.executable, "-c", MEMORY_PROBE, str(path)], capture_output=True, text=True, env=env, check=True
    ).stdout
    rows, extra_mb = (int(word) for word in output.split())
    assert rows == 4
    assert extra_mb < 200, f"{extra_mb} MB more peak memory to read a log with a {LONG_MB} MB line"


def long_warnings(parsed: Any) -> list[str]:
    return [warning for warning in parsed.meta.warnings if "longer than" in warning]


TINY_LIMIT = (
    b"step:1 - a:1.0\n"
    + b"x" * 70  # longer than the limit (64)
    + b"\r\nstep:2 - a:2.0\r"  # a lone \r ends a line too
    + b"y" * 63  # 63 + \n: exactly the limit, kept
    + b"\nstep:3 - a:3.0\n"
    + b"step:4 - a:"
    + b"4" * 100  # a step line over the limit
    + b"\r"
    + b"z" * 64  # 64 + \r\n: one over
    + b"\r\nstep:5 - a:5.0\n"
    + b"w" * 80  # unterminated over-long tail
)


@pytest.mark.parametrize("restart", [False, True])
def test_long_lines_under_a_tiny_limit_split_anywhere(
    restart: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rlmon.logs.parse, "MAX_LINE_BYTES", 64)
    monkeypatch.setattr(rlmon.logs.cache, "MAX_LINE_BYTES", 64)
    monkeypatch.setattr(rlmon.logs.cache, "BLOCK_BYTES", 16)
    cold = parse_log_bytes(TINY_LIMIT)
    # read off the text: lines 2 (72 bytes), 6 (112) and 7 (66) are over the limit, and so is the tail, line 9
    assert cold.steps.rows() == [(1, 1.0), (2, 2.0), (3, 3.0), (5, 5.0)]
    assert long_warnings(cold) == [f"line {n}: longer than 0 MB; skipped" for n in (2, 6, 7, 9)]
    assert cold.meta.lines == 9
    for cut in range(1, len(TINY_LIMIT), 4 if restart else 1):
        path = tmp_path / f"split-{cut}.log"
        path.write_bytes(TINY_LIMIT[:cut])
        cache_dir = tmp_path / f"cache-{cut}"
        cache = LogCache(cache_dir if restart else None, quiet_s=0)
        cache.read(path)
        append(path, TINY_LIMIT[cut:])
        if restart:
            cache = LogCache(cache_dir, quiet_s=0)
        result = cache.read(path)
        assert_same_log(result, cold)
        assert long_warnings(result) == long_warnings(cold), cut


# --- an incremental parse equals a cold one, rows and column order included -------------------------------------------
# Step lines that hold no usable value, keys whose values are all damaged in one part of the file but not in
# another, an initial-validation fill: each split at every offset must give the cold answer.
DAMAGED = {
    "pairs-all-unreadable": b"step:1 - a:1.0 - b c\nstep:2 - zzz\n",
    "bare-marker": b"step:1 - \nstep:2 - a:1\n",
    "trailing-separator": b"step:1 - a:1 - \nstep:2 - a:1\n",
    "value-unreadable-first": b"step:1 - a:xyz\nstep:2 - b:1.0\nstep:3 - a:2.0\n",
    "key-damaged-then-fine": b"step:1 - a:1.0 - k:bad\nstep:2 - b:1.0 - c:1\nstep:3 - k:2.0\n",
    "none-values": b"step:1 - a:None - b:None\nstep:2 - a:0.5\nstep:1 - c:None\n",
    "fill-moves-a-key": (
        b"step:0 - x:1.0\n"
        b"(\"Initial validation metrics: {'v/a': 0.5, 'late': 0.25}\")\n"
        b"step:1 - y:2.0\n"
        b"step:2 - late:3.0 - z:1.0\n"
    ),
}


@pytest.mark.parametrize("name", list(DAMAGED))
def test_damaged_step_lines_split_anywhere_give_the_cold_answer(name: str, tmp_path: Path) -> None:
    data = DAMAGED[name]
    cold = parse_log_bytes(data)
    for cut in range(1, len(data)):
        path = tmp_path / f"split-{cut}.log"
        path.write_bytes(data[:cut])
        cache = LogCache(quiet_s=0)
        cache.read(path)
        append(path, data[cut:])
        assert_same_log(cache.read(path), cold)


def test_what_the_damaged_lines_give() -> None:
    """The cold answers, read off the text: a step row needs one value; columns come in the order their
    first value was logged."""
    rows = {name: parse_log_bytes(data).steps for name, data in DAMAGED.items()}
    assert rows["pairs-all-unreadable"].rows() == [(1, 1.0)]
    assert rows["bare-marker"].rows() == [(2, 1.0)]
    assert rows["value-unreadable-first"].columns == ["step", "b", "a"]
    assert rows["value-unreadable-first"].rows() == [(2, 1.0, None), (3, None, 2.0)]
    assert rows["key-damaged-then-fine"].columns == ["step", "a", "b", "c", "k"]
    assert rows["none-values"].rows() == [(2, 0.5)]
    # the print fills step 1's row (the first step line after it): its keys come after y, as if logged there
    fill = rows["fill-moves-a-key"]
    assert fill.columns == ["step", "x", "y", "v/a", "late", "z"]
    assert fill.rows() == [
        (0, 1.0, None, None, None, None),
        (1, None, 2.0, 0.5, 0.25, None),
        (2, None, None, None, 3.0, 1.0),
    ]


# --- temporary files a writer killed mid-write left -----------------------------------------------------------------
# A writer whose rename never comes: the process is killed with its temporary files on disk (kill -9 mid-write).
_KILLED_WRITER = """
import os, sys, time
from pathlib import Path
from rlmon.logs.cache import LogCache
real_replace = os.replace
def stuck(source, target):
    if str(source).endswith(".tmp") and sys.argv[3] in str(target):
        print("writing", flush=True)
        time.sleep(600)
    real_replace(source, target)
os.replace = stuck
LogCache(Path(sys.argv[2])).read(sys.argv[1])
"""


@pytest.mark.parametrize("stuck_on", [".parquet", "state.json"])
def test_temporary_files_of_a_killed_writer_are_swept(tmp_path: Path, cache_dir: Path, stuck_on: str) -> None:
    # Repro: kill -9 of `rlmon parse` during a cache write left `.base-….parquet….tmp` files no later run removed.
    path = tmp_path / "run.log"
    path.write_bytes(LOG)
    writer = subprocess.Popen(
        [sys.executable, "-c", _KILLED_WRITER, str(path), str(cache_dir), stuck_on],
        cwd=REPO_ROOT, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert writer.stdout is not None and writer.stdout.readline() == "writing\n"
    finally:
        writer.kill()
        writer.wait(timeout=30)
    left = temporary_files(cache_dir)
    assert left, "the killed writer left its temporary file"
    # younger than a stale lock: it may be another writer's, mid-write, and stays
    LogCache(cache_dir).read(path)
    assert all(item.exists() for item in left)
    # older: the next cache to start removes it, though this log never changes again
    old = time.time() - 2 * rlmon.logs.locks.STALE_S
    for item in left:
        os.utime(item, (old, old))
    LogCache(cache_dir)
    assert temporary_files(cache_dir) == []


def test_a_running_cache_sweeps_other_logs_folders_while_it_writes(tmp_path: Path, cache_dir: Path) -> None:
    clock = Clock()
    cache = LogCache(cache_dir, clock=clock, quiet_s=0)
    quiet, busy = tmp_path / "quiet.log", tmp_path / "busy.log"
    quiet.write_bytes(LOG)
    busy.write_bytes(LOG)
    cache.read(quiet)
    cache.read(busy)
    # a killed process's leftovers beside the log that no longer changes, and in the colour book's folder
    (folder,) = [item for item in (cache_dir / "logs").iterdir() if item.joinpath("state.json").read_text().count(
        str(quiet))]  # fmt: skip
    leftovers = [folder / ".base-1-ab.parquet.99.1.ab12.tmp", cache_dir / ".colors.json.99.1.cd34.tmp"]
    old = time.time() - 2 * rlmon.logs.locks.STALE_S
    for item in leftovers:
        item.write_bytes(b"x" * 1000)
        os.utime(item, (old, old))
    append(busy, MORE)
    cache.read(busy)
    assert all(item.exists() for item in leftovers), "swept at most every SWEEP_S seconds"
    clock.now += rlmon.logs.cache.SWEEP_S + 1
    append(busy, b"(TaskRunner pid=7) step:4 - critic/score/mean:1.0\n")
    cache.read(busy)
    assert not any(item.exists() for item in leftovers)


SAMPLE_LOG = (
    "(TaskRunner pid=7) Total training steps: 2\n"
    "(TaskRunner pid=7) [prompt] What is 2+2?\n"
    "(TaskRunner pid=7) [response] 4\n"
    "(TaskRunner pid=7) [ground_truth] 4\n"
    "(TaskRunner pid=7) [score] 1.0\n"
    "(TaskRunner pid=7) step:1 - critic/score/mean:0.5 - actor/grad_norm:0.2\n"
    "(TaskRunner pid=7) step:2 - critic/score/mean:0.6 - actor/grad_norm:0.2\n"
)
WRITERS = {
    "rlmon/logs/cache.py": "LogCache: each log's state and frames",
    "rlmon/logs/locks.py": "the lock files",
    "rlmon/logs/samples.py": "SampleCache: each log's samples",
    "rlmon/runs/loading.py": "the colour book",
    "rlmon/app/digests.py": "the experiments' digests",
    "rlmon/alerts/state.py": "the alert state",
    "rlmon/alerts/lease.py": "the alert sender's lease",
    "rlmon/alerts/peers.py": "each watcher's note of itself",
}
"""Every module of rlmon that writes in the cache folder through temporary files, and what it writes: the test
below drives each of them."""
NOT_IN_THE_CACHE = {
    "rlmon/cli.py": "the file of --out, beside it",
    "rlmon/sources/objstore.py": "the object-store mirror, a log root",
}
"""Modules that make temporary files outside the folders the sweep covers."""
_MAKES_TEMPORARIES = re.compile(
    r"write_text_atomically\(|_write_frame\(|\.tmp\"|\bacquire\(|NamedTemporaryFile|mkstemp"
)


def _run_every_writer(root: Path, cache_dir: Path) -> None:
    """What rlmon writes in a cache folder, each writer once: a log read, its samples, the colour book, an
    experiment's digest, the alert state, the sender's lease and a watcher's note."""
    from rlmon.alerts.lease import Lease
    from rlmon.alerts.peers import write_note
    from rlmon.alerts.state import AlertState, write_state
    from rlmon.app import digests
    from rlmon.runs.loading import COLOR_BOOK_NAME, ColorBook, load_experiment
    from rlmon.settings import load_settings
    from rlmon.sources.discovery import discover_experiments
    from rlmon.views import model

    settings = load_settings([], {"RLMON_LOG_ROOT": str(root), "RLMON_CACHE_DIR": str(cache_dir)})
    (ref,) = discover_experiments([root]).experiments
    experiment = load_experiment(ref, LogCache(cache_dir), now=time.time(), settings=settings)
    ColorBook(cache_dir / COLOR_BOOK_NAME).assign([experiment], fixed={})
    assert SampleCache(cache_dir).read(root / "e1" / "train.log").samples.height == 1
    view = model.view_of(ref, experiment)
    assert digests.write_digest(cache_dir, view, settings, key="k", read_at=time.time())
    write_state(cache_dir, AlertState())
    assert Lease(cache_dir, stale_s=60).hold()
    write_note(cache_dir, sending=True, targets=(), problems=(), stale_s=60)


def test_the_sweep_covers_every_folder_a_writer_puts_temporaries_in(
    tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Repro: 1,000-second-old .tmp files in every folder of the cache: a new cache removed all but those in
    # experiments/ (the digests) and alerts/ (the alert state).
    root = tmp_path / "logs"
    (root / "e1").mkdir(parents=True)
    (root / "e1" / "train.log").write_text(SAMPLE_LOG, encoding="utf-8")
    written: set[Path] = set()
    real_replace, real_link = os.replace, os.link

    def note(source: Any) -> None:
        name = os.path.basename(os.fspath(source))
        if name.startswith(".") and name.endswith(".tmp"):
            written.add(Path(os.fspath(source)).parent)

    def replace(source: Any, target: Any, **kwargs: Any) -> None:
        note(source)
        real_replace(source, target, **kwargs)

    def link(source: Any, target: Any, **kwargs: Any) -> None:
        note(source)
        real_link(source, target, **kwargs)

    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(os, "link", link)
    _run_every_writer(root, cache_dir)
    monkeypatch.undo()
    # each log's own folder under logs/ and samples/ counts as that folder (one entry per log)
    folders = {
        "/".join(parts[:1] if parts[:1] in (("logs",), ("samples",)) else parts)
        for parts in (folder.relative_to(cache_dir).parts for folder in written)
    }
    assert folders == {"", "locks", "logs", "samples", "experiments", "alerts", "alerts/processes"}
    assert folders == set(rlmon.logs.cache.CACHE_FOLDERS)
    # an old temporary (1,000 s) and a young one in each folder written; the log root is never touched
    old, young = time.time() - 1000, time.time() - 10
    stale, fresh = [], []
    for folder in [*sorted(written), root / "e1"]:
        for made, files, mark in ((old, stale, "0ld0"), (young, fresh, "f4e5")):
            item = folder / f".state.json.99.1.{mark}.tmp"
            item.write_text("{")
            os.utime(item, (made, made))
            files.append(item)
    beside_the_log = stale.pop()
    LogCache(cache_dir)  # a cache starting sweeps the whole cache folder
    assert [item for item in stale if item.exists()] == []
    assert all(item.exists() for item in fresh), "younger than a stale lock: maybe another process's, mid-write"
    assert beside_the_log.exists(), "rlmon never writes into a log folder"


def test_every_module_that_makes_temporary_files_is_driven_by_the_sweep_test() -> None:
    # A new writer of the cache folder goes into WRITERS and _run_every_writer, so the test above sees its folder.
    found = set()
    for path in (REPO_ROOT / "rlmon").rglob("*.py"):
        if _MAKES_TEMPORARIES.search(path.read_text(encoding="utf-8")):
            found.add(path.relative_to(REPO_ROOT).as_posix())
    assert found == set(WRITERS) | set(NOT_IN_THE_CACHE)


# --- dump folders outside the log roots -------------------------------------------------------------------------------


@pytest.fixture
def outside_dumps(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(log root, its experiment folder, a dump folder outside the root holding a verl dump)."""
    root = tmp_path / "root"
    experiment = root / "e1"
    experiment.mkdir(parents=True)
    elsewhere = tmp_path / "any" / "folder"
    shutil.copytree(DATA / "samples_dump", elsewhere)
    return root, experiment, elsewhere


def test_a_dump_folder_outside_the_roots_is_refused(outside_dumps: tuple[Path, Path, Path]) -> None:
    # Repro: `rollout_data_dir: '/any/folder'` in a config dump, or a `Dumped generations to /any/folder/5.jsonl`
    # line, made the samples page and `rlmon samples` read that folder's <int>.jsonl records for every visitor.
    root, experiment, elsewhere = outside_dumps
    config = {"trainer": {"rollout_data_dir": str(elsewhere)}}
    for named in ([], [str(elsewhere)]):
        found = find_dump_dirs(config if not named else None, experiment, named=named, allowed=[root])
        assert found.found == ()
        assert found.refused == (elsewhere,)
    # the same folder listed in dump_roots (or a folder above it) is read
    found = find_dump_dirs(config, experiment, allowed=[root, elsewhere.parent])
    assert found.found == ((elsewhere, "training"),) and found.refused == ()


def test_a_symlink_out_of_the_root_is_outside(outside_dumps: tuple[Path, Path, Path]) -> None:
    root, experiment, elsewhere = outside_dumps
    (experiment / "rollouts").symlink_to(elsewhere, target_is_directory=True)
    found = find_dump_dirs({"trainer": {"rollout_data_dir": str(experiment / "rollouts")}}, experiment, allowed=[root])
    assert found.found == () and found.refused == (experiment / "rollouts",)


def test_a_dump_folder_of_the_same_name_inside_the_experiment_is_read_instead(
    outside_dumps: tuple[Path, Path, Path],
) -> None:
    # the training machine's path exists here too, outside the root; the copy beside the log is what is read
    root, experiment, elsewhere = outside_dumps
    shutil.copytree(elsewhere, experiment / "folder")
    found = find_dump_dirs({"trainer": {"validation_data_dir": str(elsewhere)}}, experiment, allowed=[root])
    assert found.found == ((experiment / "folder", "validation"),) and found.refused == ()


def test_read_samples_names_the_refused_folder_and_reads_nothing_of_it(outside_dumps: tuple[Path, Path, Path]) -> None:
    root, experiment, elsewhere = outside_dumps
    log = experiment / "train.log"
    log.write_text(
        "(TaskRunner pid=7) step:1 - critic/score/mean:0.5\n"
        f"(TaskRunner pid=7) Dumped generations to {elsewhere}/5.jsonl\n",
        encoding="utf-8",
    )
    found = read_samples([log], folder=experiment, config=None, cache=SampleCache(), allowed=[root])
    assert found.refused == (elsewhere,)
    assert found.frame.is_empty()


# --- many distinct keys -----------------------------------------------------------------------------------------------
# Repro: 200 step lines with 1,000 new keys each (200,001 keys, 3.6 MB): `rlmon parse` took 41.8 s and 2.03 GB.
# Each line here brings NEW_KEYS keys no line before it had, after one key every line has.
NEW_KEYS = 40


def wide_log(lines: int, new_keys: int = NEW_KEYS) -> bytes:
    text = "(TaskRunner pid=1) Total training steps: 50\n"
    for step in range(1, lines + 1):
        pairs = [f"critic/score/mean:{step / 100}", *(f"k/{step}_{index}:{index}.5" for index in range(new_keys))]
        text += f"(TaskRunner pid=1) step:{step} - " + " - ".join(pairs) + "\n"
    return text.encode()


def test_distinct_keys_past_max_keys_are_dropped_from_the_line_they_start() -> None:
    # by hand: line 1 is the total; step s is line s+1 and brings 40 keys; after step 12 (line 13) 1 + 12 x 40 =
    # 481 keys are kept, so step 13 (line 14) may add 19 of its 40 and every later key is dropped
    parsed = parse_log_bytes(wide_log(50), max_keys=500)
    expected = ["step", "critic/score/mean"]
    expected += [f"k/{step}_{index}" for step in range(1, 13) for index in range(NEW_KEYS)]
    expected += [f"k/13_{index}" for index in range(19)]
    assert parsed.steps.columns == expected
    assert parsed.meta.keys_dropped_line == 14
    # every step is still there, with the key every line logs
    assert parsed.steps.get_column("critic/score/mean").to_list() == [step / 100 for step in range(1, 51)]
    assert parsed.steps.row(12, named=True)["k/13_18"] == 18.5


@pytest.mark.parametrize("block_bytes", [1 << 10, 7_777, 1 << 14])
def test_the_bound_does_not_depend_on_where_the_file_is_cut(block_bytes: int, tmp_path: Path) -> None:
    data = wide_log(50)
    cold = parse_log_bytes(data, max_keys=500)
    # cut into blocks (read on a worker thread one block ahead of the keys kept: the stale-budget path)
    assert_same_log(parse_log_bytes(data, block_bytes=block_bytes, max_keys=500), cold)
    # appended in pieces, through the cache and its disk copy
    path = tmp_path / "run.log"
    path.write_bytes(b"")
    for start in range(0, len(data), block_bytes):
        append(path, data[start : start + block_bytes])
        LogCache(tmp_path / "cache", quiet_s=0, max_keys=500).read(path)
    assert_same_log(LogCache(tmp_path / "cache", quiet_s=0, max_keys=500).read(path), cold)


def test_a_cache_made_under_another_bound_is_parsed_again(tmp_path: Path) -> None:
    path = tmp_path / "run.log"
    path.write_bytes(wide_log(20))
    assert LogCache(tmp_path / "cache", max_keys=500).read(path).steps.width == 501
    again = LogCache(tmp_path / "cache", max_keys=200)
    assert again.read(path).steps.width == 201 and again.parses == 1


def test_a_file_logger_record_past_max_keys_is_bounded_too() -> None:
    records = [
        json.dumps({"step": step, "data": {"actor/entropy": 0.5, **{f"e/{step}_{i}": i for i in range(NEW_KEYS)}}})
        for step in range(1, 21)
    ]
    parsed = parse_jsonl_bytes(("\n".join(records) + "\n").encode(), max_keys=100)
    # line 1 brings 41 keys, line 2 40 more (81), line 3 19 of its 40: dropped from line 3 on
    assert parsed.steps.width == 101 and parsed.meta.keys_dropped_line == 3
    assert parsed.steps.columns[-1] == "e/3_18"


def test_many_keys_cost_bounded_memory(tmp_path: Path) -> None:
    # the issue's log: 200 step lines x 1,000 new keys (200,001 keys): at most 400 MB (it took 2.03 GB)
    path = tmp_path / "wide.log"
    path.write_bytes(wide_log(200, new_keys=1000))
    # the child's own peak (VmHWM): ru_maxrss would carry over the high-water mark of the process that started it
    # (Linux keeps it across the exec), and a test worker that ran the browser tests may hold gigabytes
    script = (
        "import sys\nfrom rlmon.logs.cache import LogCache\n"
        "parsed = LogCache(None).read(sys.argv[1])\n"
        "peak = next(line.split()[1] for line in open('/proc/self/status') if line.startswith('VmHWM:'))\n"
        "print(parsed.steps.width, parsed.meta.keys_dropped_line, peak)"
    )
    done = subprocess.run([sys.executable, "-c", script, str(path)], cwd=REPO_ROOT, capture_output=True, text=True,
                          timeout=600, check=True)  # fmt: skip
    width, dropped_line, peak_kb = done.stdout.split()
    # 20,000 keys kept (the default bound): 1 + 19 x 1,000 after step 19, 999 of step 20's (line 21)
    assert (int(width), int(dropped_line)) == (20_001, 21)
    assert int(peak_kb) / 1024 <= 400, f"peak RSS {int(peak_kb) / 1024:.0f} MB"
