"""The per-log cache: unchanged files cost nothing, grown files cost only their new bytes, a changed file is
read again from the start, the cache survives a restart, and no split of the bytes changes the answer.

The reference answer for a byte string is always one cold :func:`rlmon.logs.parse.parse_log_bytes` of all of it.
A cold parse reads a last line without a newline in full; the cache does so once the file is quiet
(:data:`rlmon.logs.cache.QUIET_S`), so tests of finished files read them with ``quiet_s=0`` or move a clock on.
"""

from __future__ import annotations

import json
import math
import os
import random
import shutil
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import rlmon.logs.cache
from rlmon.errors import LogReadError
from rlmon.logs.cache import QUIET_S, LogCache, read_log, read_logs
from rlmon.logs.lines import complete_end
from rlmon.logs.parse import ParsedLog, merge_steps, parse_jsonl_bytes, parse_log_bytes
from tests.helpers.logs import Clock
from tests.helpers.paths import DATA

# A small log in the shape of a real one (format reference §2, §3.2, §5.1, §6.1): ANSI-coloured prefixes, a
# config dump, tqdm redraws with \r, CRLF, multi-byte characters, a wrapped validation print, resume markers,
# steps out of order and repeated, and a last step line without a final newline.
SAMPLE = (
    b"+ python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo\n"
    b"\x1b[36m(TaskRunner pid=7)\x1b[0m {'actor_rollout_ref': {'rollout': {'n': 4}},\n"
    b"(WorkerDict pid=8) \xe4\xb8\xad\xe6\x96\x87 warning: \xe2\x96\x88\n"
    b"(TaskRunner pid=7)  'algorithm': {'adv_estimator': 'grpo'},\n"
    b"(TaskRunner pid=7)  'trainer': {'total_epochs': 2}}\n"
    b"(TaskRunner pid=7) Total training steps: 6\r\n"
    b"(TaskRunner pid=7) Setting global step to 2\n"
    b"(TaskRunner pid=7) Resuming from /ckpt/global_step_2\n"
    b"(TaskRunner pid=7) (\"Initial validation metrics: {'val-core/openai/gsm8k/acc/mean@1': \"\n"
    b"(TaskRunner pid=7)  'np.float64(0.25)}')\n"
    b"(TaskRunner pid=7) step:2 - val-core/openai/gsm8k/acc/mean@1:np.float64(0.25)\n"
    b"\x1b[36m(TaskRunner pid=7)\x1b[0m \rTraining Progress:  33%|\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88 | 2/6"
    b" [00:00<?, ?it/s]\r"
    b"\x1b[36m(TaskRunner pid=7)\x1b[0m step:3 - critic/score/mean:0.5 - actor/pg_loss:np.float64(-0.125)"
    b" - flag:True - x:nan\r\n"
    b"(TaskRunner pid=7) step:5 - critic/score/mean:0.875 - actor/pg_loss:0.0625 - flag:False - x:inf\n"
    b"(TaskRunner pid=7) Training Progress:  67%|\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88 | 4/6 [01:00<00:30, 15.00s/it]\n"
    b"(TaskRunner pid=7) step:4 - critic/score/mean:0.75 - actor/pg_loss:0.25(WorkerDict pid=8) \xe2\x96\x88\n"
    b"(TaskRunner pid=7) step:3 - critic/score/mean:0.625\n"
    b"(TaskRunner pid=7) step:6 - critic/score/mean:1.0 - actor/pg_loss:-inf"
)


def _sample_expectation(parsed: ParsedLog) -> None:
    """What SAMPLE says, read off its text."""
    steps = parsed.steps
    assert steps["step"].to_list() == [2, 3, 4, 5, 6]
    assert steps["critic/score/mean"].to_list() == [None, 0.625, 0.75, 0.875, 1.0]
    pg_loss = steps["actor/pg_loss"].to_list()
    assert pg_loss[:4] == [None, -0.125, 0.25, 0.0625]
    assert pg_loss[4] == -math.inf
    assert steps["flag"].to_list() == [None, 1.0, None, 0.0, None]
    x = steps["x"].to_list()
    assert math.isnan(x[1]) and x[3] == math.inf
    meta = parsed.meta
    assert meta.total_steps == 6
    assert meta.resume_steps == [2]
    assert meta.config == {
        "actor_rollout_ref": {"rollout": {"n": 4}},
        "algorithm": {"adv_estimator": "grpo"},
        "trainer": {"total_epochs": 2},
    }
    assert meta.initial_validation == {"val-core/openai/gsm8k/acc/mean@1": 0.25}
    assert (meta.tqdm_n, meta.tqdm_total) == (4, 6)


def assert_same_log(got: ParsedLog, expected: ParsedLog) -> None:
    """Same step frame (incl. column order), same metadata (warnings aside: they name line ranges)."""
    assert_frame_equal(got.steps, expected.steps)
    got_meta = got.meta.to_json_dict()
    want_meta = expected.meta.to_json_dict()
    got_meta.pop("warnings")
    want_meta.pop("warnings")
    assert _nan_safe(got_meta) == _nan_safe(want_meta)


def _nan_safe(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    if isinstance(value, dict):
        return {key: _nan_safe(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_nan_safe(item) for item in value]
    return value


def append(path: Path, data: bytes) -> None:
    with open(path, "ab") as handle:
        handle.write(data)


@pytest.fixture
def log_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "logs" / "exp"
    folder.mkdir(parents=True)
    return folder


# --- reference ---------------------------------------------------------------------------------------------------
def test_sample_cold_parse_reads_what_the_text_says() -> None:
    _sample_expectation(parse_log_bytes(SAMPLE))


def test_complete_end() -> None:
    assert complete_end(b"") == 0
    assert complete_end(b"abc") == 0
    assert complete_end(b"a\nb") == 2
    assert complete_end(b"a\nb\n") == 4
    assert complete_end(b"a\r\nb") == 3
    assert complete_end(b"a\r") == 0, "a final \\r may be half of \\r\\n"
    assert complete_end(b"a\rb") == 2


# --- unchanged / grown --------------------------------------------------------------------------------------------
def test_unchanged_file_is_not_parsed_again(log_dir: Path) -> None:
    path = log_dir / "run.log"
    path.write_bytes(SAMPLE)
    cache = LogCache(quiet_s=0)
    first = cache.read(path)
    parses = cache.parses
    assert parses >= 1
    for _ in range(3):
        again = cache.read(path)
        assert cache.parses == parses
        assert_same_log(again, first)
    _sample_expectation(first)


def test_grown_file_parses_only_the_new_bytes(log_dir: Path, parsed_sizes: list[int]) -> None:
    path = log_dir / "run.log"
    head, added = SAMPLE + b"\n", b"(TaskRunner pid=7) step:7 - critic/score/mean:0.5 - new/key:np.int64(3)\n"
    path.write_bytes(head)
    cache = LogCache()
    cache.read(path)
    parses = cache.parses
    fed = parsed_sizes
    fed.clear()  # count from here on
    append(path, added)
    grown = cache.read(path)
    assert cache.parses == parses + 1
    assert fed == [len(added)], "only the appended bytes are parsed"
    assert_same_log(grown, parse_log_bytes(head + added))
    assert grown.steps["step"].to_list() == [2, 3, 4, 5, 6, 7]
    assert grown.steps.filter(pl.col("step") == 7)["new/key"].to_list() == [3.0]


def test_trailing_line_is_provisional_until_completed(log_dir: Path) -> None:
    path = log_dir / "run.log"
    path.write_bytes(b"step:1 - a:1.0\nstep:2 - a:2.0")
    cache = LogCache()
    first = cache.read(path)
    # "a:2.0" may be the start of "a:2.05": no " - " follows it yet, so step 2 has nothing to show
    assert first.steps["step"].to_list() == [1]
    assert first.steps["a"].to_list() == [1.0]
    # the trainer finishes the number and starts the next pair: a is complete now, b is not
    append(path, b"5 - b:1")
    partial = cache.read(path)
    assert partial.steps["a"].to_list() == [1.0, 2.05]
    assert "b" not in partial.steps.columns
    append(path, b".0\n")
    completed = cache.read(path)
    assert completed.steps["a"].to_list() == [1.0, 2.05]
    assert completed.steps["b"].to_list() == [None, 1.0]
    assert_same_log(completed, parse_log_bytes(b"step:1 - a:1.0\nstep:2 - a:2.05 - b:1.0\n"))


def test_unterminated_last_line_counts_in_full_once_the_file_is_quiet(log_dir: Path) -> None:
    path = log_dir / "run.log"
    data = b"step:1 - a:1.0\nstep:2 - a:2.0 - b:36"
    path.write_bytes(data)
    clock = Clock()
    cache = LogCache(clock=clock)
    assert cache.read(path).steps.rows() == [(1, 1.0), (2, 2.0)]
    parses = cache.parses
    clock.now += QUIET_S / 2
    assert cache.read(path).steps.rows() == [(1, 1.0), (2, 2.0)]
    assert cache.parses == parses, "unchanged and not yet quiet: nothing is read"
    clock.now += QUIET_S / 2 + 60
    # a finished log whose last line lacks its newline
    assert_same_log(cache.read(path), parse_log_bytes(data))
    assert cache.read(path).steps["b"].to_list() == [None, 36.0]


def test_trailing_line_split_inside_a_utf8_character(log_dir: Path) -> None:
    path = log_dir / "run.log"
    text = "step:1 - a:1.0\n(TaskRunner pid=1) 进度 █ step:2 - a:2.0 - b:3.0\n".encode()
    cut = text.index("█".encode()) + 1  # one byte into the three-byte character
    path.write_bytes(text[:cut])
    cache = LogCache()
    assert cache.read(path).steps["step"].to_list() == [1]
    append(path, text[cut:])
    assert_same_log(cache.read(path), parse_log_bytes(text))
    assert cache.read(path).steps["b"].to_list() == [None, 3.0]


def test_crlf_split_between_reads(log_dir: Path) -> None:
    path = log_dir / "run.log"
    path.write_bytes(b"step:1 - a:1.0\r")
    cache = LogCache()
    assert cache.read(path).steps["a"].to_list() == [1.0]
    append(path, b"\nstep:2 - a:2.0\r\n")
    result = cache.read(path)
    assert_same_log(result, parse_log_bytes(b"step:1 - a:1.0\r\nstep:2 - a:2.0\r\n"))
    assert result.meta.lines == 2


def test_real_log_whose_last_step_line_has_no_newline(realdata_dir: Path, tmp_path: Path) -> None:
    # ehl-gemma2-2b-ppo-gsm8k-v0.1-2024-12.log ends in `step:105 - timing/gen:48.744 ... prompt_length/min:37.000`
    # with no final newline.
    source = realdata_dir / "ehl-gemma2-2b-ppo-gsm8k-v0.1-2024-12.log"
    assert not source.read_bytes().endswith(b"\n")
    # Its writer may still be inside that line: until the file has been quiet for QUIET_S, only the pairs that a
    # " - " follows count. (Whatever the file's mtime is, e.g. a fresh copy of ../shared, the clock is set here.)
    written_s = source.stat().st_mtime
    fresh = LogCache(clock=lambda: written_s + 1).read(source).steps.filter(pl.col("step") == 105)
    assert fresh["timing/gen"].to_list() == [48.744]
    assert fresh["critic/score/mean"].to_list() == [0.682]
    assert fresh["prompt_length/min"].to_list() == [None]
    last = LogCache(clock=lambda: written_s + QUIET_S + 1).read(source).steps.filter(pl.col("step") == 105)
    assert last.height == 1
    assert last["timing/gen"].to_list() == [48.744]
    assert last["critic/score/mean"].to_list() == [0.682]
    assert last["prompt_length/min"].to_list() == [37.0]
    # the same bytes in a cache, then the trainer writes the newline and one more line
    copy = tmp_path / "live.log"
    shutil.copyfile(source, copy)
    cache = LogCache()
    assert 105 in cache.read(copy).steps["step"].to_list()
    append(copy, b"\n(main_task pid=64899) step:106 - timing/gen:1.5\n")
    refreshed = cache.read(copy)
    assert refreshed.steps.filter(pl.col("step") == 105)["prompt_length/min"].to_list() == [37.0]
    assert refreshed.steps.filter(pl.col("step") == 106)["timing/gen"].to_list() == [1.5]
    assert_frame_equal(refreshed.steps, parse_log_bytes(copy.read_bytes()).steps)


# --- changed files ------------------------------------------------------------------------------------------------
def test_shrunk_file_is_parsed_from_the_start(log_dir: Path) -> None:
    path = log_dir / "run.log"
    path.write_bytes(b"step:1 - a:1.0\nstep:2 - a:2.0\nstep:3 - a:3.0\n")
    cache = LogCache()
    assert cache.read(path).steps.height == 3
    inode = path.stat().st_ino
    with open(path, "r+b") as handle:
        handle.truncate(len(b"step:1 - a:1.0\n"))
    assert path.stat().st_ino == inode
    shrunk = cache.read(path)
    assert shrunk.steps["step"].to_list() == [1]
    assert shrunk.steps["a"].to_list() == [1.0]


def test_replaced_file_is_parsed_from_the_start(log_dir: Path, tmp_path: Path) -> None:
    path = log_dir / "run.log"
    path.write_bytes(b"step:1 - a:1.0\n")
    cache = LogCache()
    assert cache.read(path).steps["a"].to_list() == [1.0]
    replacement = tmp_path / "replacement.log"
    replacement.write_bytes(b"step:1 - a:9.0\nstep:2 - a:2.0\n")
    old_inode = path.stat().st_ino
    os.replace(replacement, path)
    assert path.stat().st_ino != old_inode
    replaced = cache.read(path)
    assert replaced.steps["step"].to_list() == [1, 2]
    assert replaced.steps["a"].to_list() == [9.0, 2.0]


def test_rewritten_with_the_same_size_is_parsed_from_the_start(log_dir: Path) -> None:
    path = log_dir / "run.log"
    path.write_bytes(b"step:1 - a:1.0\n")
    cache = LogCache()
    assert cache.read(path).steps["a"].to_list() == [1.0]
    before = path.stat()
    with open(path, "r+b") as handle:  # same inode, same size, other bytes
        handle.write(b"step:1 - a:7.0\n")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
    assert path.stat().st_size == before.st_size
    assert cache.read(path).steps["a"].to_list() == [7.0]


def test_rewritten_head_then_grown_is_parsed_from_the_start(log_dir: Path) -> None:
    path = log_dir / "run.log"
    path.write_bytes(b"step:1 - a:1.0\n")
    cache = LogCache()
    cache.read(path)
    with open(path, "r+b") as handle:  # same inode; first bytes changed, then more appended
        handle.write(b"step:1 - a:5.0\nstep:2 - a:2.0\n")
    result = cache.read(path)
    assert result.steps["a"].to_list() == [5.0, 2.0]


def test_rewritten_middle_then_grown_is_parsed_from_the_start(log_dir: Path) -> None:
    # a big enough file that the head fingerprint does not cover the changed bytes
    lines = b"".join(b"step:%d - a:%d.0 - pad:%s\n" % (n, n, b"x" * 40) for n in range(1, 200))
    path = log_dir / "run.log"
    path.write_bytes(lines)
    cache = LogCache()
    cache.read(path)
    changed = lines.replace(b"step:198 - a:198.0", b"step:198 - a:999.0") + b"step:200 - a:200.0\n"
    with open(path, "r+b") as handle:
        handle.write(changed)
    result = cache.read(path)
    assert result.steps.filter(pl.col("step") == 198)["a"].to_list() == [999.0]
    assert_same_log(result, parse_log_bytes(changed))


# --- persistence --------------------------------------------------------------------------------------------------
def test_a_new_cache_on_the_same_folder_does_not_parse(log_dir: Path, cache_dir: Path) -> None:
    path = log_dir / "run.log"
    path.write_bytes(SAMPLE)
    first = LogCache(cache_dir, quiet_s=0).read(path)
    restarted = LogCache(cache_dir, quiet_s=0)
    again = restarted.read(path)
    assert restarted.parses == 0 or _only_provisional(restarted, path)
    assert_same_log(again, first)
    _sample_expectation(again)


def _only_provisional(cache: LogCache, path: Path) -> bool:
    """SAMPLE ends without a newline: reading that last line again is the one parse allowed after a restart."""
    return cache.parses == 1 and not path.read_bytes().endswith(b"\n")


def test_restart_with_complete_lines_costs_no_parse(log_dir: Path, cache_dir: Path) -> None:
    path = log_dir / "run.log"
    path.write_bytes(SAMPLE + b"\n")
    first = LogCache(cache_dir).read(path)
    restarted = LogCache(cache_dir)
    again = restarted.read(path)
    assert restarted.parses == 0
    assert_same_log(again, first)


def _entry_files(cache_dir: Path) -> list[str]:
    logs = cache_dir / "logs"
    return sorted(item.name for folder in logs.iterdir() for item in folder.iterdir()) if logs.exists() else []


def _read_putting_off(path: Path, cache_dir: Path) -> LogCache:
    """A cache that has read one line of ``path`` with its writes put off."""
    path.write_bytes(b"step:1 - a:1.0\n")
    cache = LogCache(cache_dir)
    with cache.putting_off_writes():
        cache.read(path)
    return cache


def test_writes_put_off_are_written_later_and_a_restart_parses_nothing(log_dir: Path, cache_dir: Path) -> None:
    path = log_dir / "run.log"
    path.write_bytes(SAMPLE + b"\n")
    cache = LogCache(cache_dir)
    with cache.putting_off_writes():
        first = cache.read(path)
    assert _entry_files(cache_dir) == []  # read, kept in memory, nothing written yet
    assert_same_log(first, parse_log_bytes(SAMPLE + b"\n"))
    assert cache.read(path) is first  # still answered from memory
    assert cache.write_put_off() == 1
    names = _entry_files(cache_dir)
    assert len(names) == 2 and names[0].startswith("base-") and names[1] == "state.json"
    assert cache.write_put_off() == 0  # written once
    restarted = LogCache(cache_dir)
    assert_same_log(restarted.read(path), first)
    assert restarted.parses == 0


@pytest.mark.parametrize("reader", ["this process", "another process"])
def test_a_write_put_off_is_not_made_over_an_entry_written_since(reader: str, log_dir: Path, cache_dir: Path) -> None:
    # The log grew before the put-off write, and its longer entry was written: by this cache's next read
    # (outside the block: the whole entry), or by another process. The put-off write then writes nothing.
    path = log_dir / "run.log"
    cache = _read_putting_off(path, cache_dir)
    append(path, b"step:2 - a:2.0\n")
    (cache if reader == "this process" else LogCache(cache_dir)).read(path)
    written = _entry_files(cache_dir)
    assert written != []
    assert cache.write_put_off() == 0
    assert _entry_files(cache_dir) == written  # not written over with the shorter entry
    restarted = LogCache(cache_dir)
    assert restarted.read(path).steps["a"].to_list() == [1.0, 2.0]
    assert restarted.parses == 0


def test_a_write_put_off_of_a_log_gone_meanwhile_is_dropped(log_dir: Path, cache_dir: Path) -> None:
    path = log_dir / "run.log"
    cache = _read_putting_off(path, cache_dir)
    path.unlink()
    assert cache.write_put_off() == 0
    assert _entry_files(cache_dir) == []


def test_restart_then_growth_parses_only_the_new_bytes(log_dir: Path, cache_dir: Path, parsed_sizes: list[int]) -> None:
    path = log_dir / "run.log"
    path.write_bytes(SAMPLE + b"\n")
    LogCache(cache_dir).read(path)
    added = b"(TaskRunner pid=7) step:7 - critic/score/mean:0.25\n"
    append(path, added)
    fed = parsed_sizes
    fed.clear()  # count from here on
    restarted = LogCache(cache_dir)
    grown = restarted.read(path)
    assert restarted.parses == 1
    assert fed == [len(added)], "after a restart only the appended bytes are parsed"
    assert_same_log(grown, parse_log_bytes(SAMPLE + b"\n" + added))


def test_restart_after_the_file_changed_parses_again(log_dir: Path, cache_dir: Path) -> None:
    path = log_dir / "run.log"
    path.write_bytes(b"step:1 - a:1.0\nstep:2 - a:2.0\n")
    LogCache(cache_dir).read(path)
    path.unlink()
    path.write_bytes(b"step:1 - a:3.0\nstep:2 - a:4.0\nstep:3 - a:5.0\n")
    result = LogCache(cache_dir).read(path)
    assert result.steps["a"].to_list() == [3.0, 4.0, 5.0]


def test_many_refreshes_survive_a_restart(log_dir: Path, cache_dir: Path) -> None:
    # more refreshes than the cache keeps as separate deltas
    path = log_dir / "run.log"
    path.write_bytes(b"")
    cache = LogCache(cache_dir)
    written = b""
    for step in range(1, 41):
        line = b"step:%d - a:%d.5 - b%d:1.0\n" % (step, step, step % 3)
        append(path, line)
        written += line
        cache.read(path)
    restarted = LogCache(cache_dir)
    result = restarted.read(path)
    assert restarted.parses == 0
    assert_same_log(result, parse_log_bytes(written))
    assert result.steps.height == 40


def test_a_hundred_one_step_refreshes_give_the_cold_result(log_dir: Path) -> None:
    # each refresh adds a small piece to the cached frame; past a few dozen they are joined into one, and a step
    # logged again (a resumed run appending to the same log) is merged as in a cold parse
    path = log_dir / "run.log"
    path.write_bytes(b"")
    cache = LogCache(None)
    written = b""
    steps = [*range(1, 81), *range(70, 101)]
    for index, step in enumerate(steps):
        wrapped = b"np.float64(%d.25)" % step if index % 2 else b"%d.25" % step
        line = b"(TaskRunner pid=7) step:%d - a:%s - b:np.int64(%d) - c%d:True\n" % (step, wrapped, index, step % 4)
        append(path, line)
        written += line
        result = cache.read(path)
    assert_same_log(result, parse_log_bytes(written))
    assert result.steps["step"].to_list() == list(range(1, 101))
    assert result.steps["a"].to_list() == [step + 0.25 for step in range(1, 101)]
    assert result.steps["b"].to_list() == [*range(69), *range(80, 111)]


def test_a_restart_reads_the_base_and_one_delta(log_dir: Path, cache_dir: Path) -> None:
    # every refresh since the base is in one delta file: a restart after many refreshes reads two frames
    path = log_dir / "run.log"
    path.write_bytes(b"step:1 - a:1.0\n")
    cache = LogCache(cache_dir)
    cache.read(path)
    for step in range(2, 7):
        append(path, b"step:%d - a:%d.0 - b%d:np.float64(0.5)\n" % (step, step, step % 2))
        cache.read(path)
    (entry,) = (cache_dir / "logs").iterdir()
    names = sorted(item.name for item in entry.iterdir())
    assert [name.partition("-")[0] for name in names] == ["base", "delta", "state.json"]
    assert json.loads((entry / "state.json").read_text())["delta"] == 5
    restarted = LogCache(cache_dir)
    result = restarted.read(path)
    assert restarted.parses == 0
    assert result.steps.rows() == [
        (1, 1.0, None, None),
        (2, 2.0, 0.5, None),
        (3, 3.0, None, 0.5),
        (4, 4.0, 0.5, None),
        (5, 5.0, None, 0.5),
        (6, 6.0, 0.5, None),
    ]
    assert result.steps.columns == ["step", "a", "b0", "b1"]


def test_a_delta_is_an_arrow_file_that_replaces_the_one_before(log_dir: Path, cache_dir: Path) -> None:
    # a refresh writes its few rows as Arrow IPC beside the Parquet base, and removes the delta it replaced and
    # a stray frame file (a writer killed before its state was written)
    path = log_dir / "run.log"
    path.write_bytes(b"step:1 - a:1.0\n")
    cache = LogCache(cache_dir)
    cache.read(path)
    (entry,) = (cache_dir / "logs").iterdir()
    stray = entry / "delta-1-0123456789ab.arrow"
    stray.write_bytes(b"left by a killed writer")
    seen: list[list[str]] = []
    for step in range(2, 5):
        append(path, b"step:%d - a:%d.5\n" % (step, step))
        cache.read(path)
        seen.append(sorted(item.name for item in entry.iterdir() if item != stray))
    for names in seen:
        base, delta, state = names
        assert base.startswith("base-") and base.endswith(".parquet")
        assert delta.startswith("delta-") and delta.endswith(".arrow")
        assert state == "state.json"
    assert len({names[1] for names in seen}) == 3  # a new name each time, the one before removed
    assert pl.read_ipc(entry / seen[-1][1]).rows() == [(2, 2.5), (3, 3.5), (4, 4.5)]
    assert not stray.exists()
    restarted = LogCache(cache_dir)
    assert restarted.read(path).steps["a"].to_list() == [1.0, 2.5, 3.5, 4.5]
    assert restarted.parses == 0


def test_a_cache_whose_delta_is_parquet_still_loads(log_dir: Path, cache_dir: Path) -> None:
    # caches written before deltas were Arrow files name a Parquet delta: a restart reads it, not the log
    path = log_dir / "run.log"
    path.write_bytes(b"step:1 - a:1.0\n")
    cache = LogCache(cache_dir)
    cache.read(path)
    append(path, b"step:2 - a:2.5 - b:7.0\n")
    cache.read(path)
    (entry,) = (cache_dir / "logs").iterdir()
    state = json.loads((entry / "state.json").read_text())
    arrow_name = state["files"][1][0]
    parquet_name = arrow_name.replace(".arrow", ".parquet")
    pl.read_ipc(entry / arrow_name).write_parquet(entry / parquet_name)
    (entry / arrow_name).unlink()
    state["files"][1] = [parquet_name, 1, rlmon.logs.cache._crc((entry / parquet_name).read_bytes())]
    (entry / "state.json").write_text(json.dumps(state))
    restarted = LogCache(cache_dir)
    assert restarted.read(path).steps.rows() == [(1, 1.0, None), (2, 2.5, 7.0)]
    assert restarted.parses == 0


def test_cache_lives_outside_the_log_folder(tmp_path: Path, log_dir: Path, cache_dir: Path) -> None:
    path = log_dir / "run.log"
    path.write_bytes(SAMPLE + b"\n")
    (log_dir / "other.jsonl").write_bytes(b'{"step": 1, "data": {"a": 1}}\n')
    logs_root = tmp_path / "logs"

    def listing() -> list[tuple[str, int]]:
        return sorted((str(item.relative_to(logs_root)), item.stat().st_size) for item in logs_root.rglob("*"))

    before = listing()
    mtime_before = log_dir.stat().st_mtime_ns
    cache = LogCache(cache_dir)
    cache.read(path)
    cache.read(log_dir / "other.jsonl")
    append(path, b"step:9 - a:1.0\n")
    before_grown = listing()
    cache.read(path)
    LogCache(cache_dir).read(path)
    read_log(path, cache_dir=cache_dir)
    assert listing() == before_grown
    assert [name for name, _ in before] == [name for name, _ in before_grown]
    assert log_dir.stat().st_mtime_ns == mtime_before, "nothing created or removed in the log folder"
    assert any(cache_dir.rglob("*")), "the cache folder holds the persisted frames"
    assert not str(cache_dir.resolve()).startswith(str(logs_root.resolve()))


def test_unwritable_cache_folder_still_reads(log_dir: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    path = log_dir / "run.log"
    path.write_bytes(b"step:1 - a:1.0\n")
    assert LogCache(blocker / "cache").read(path).steps["a"].to_list() == [1.0]


# --- any split gives the same table -------------------------------------------------------------------------------
SMALL = (
    b"\x1b[36m(TaskRunner pid=7)\x1b[0m {'actor_rollout_ref': {'rollout': {'n': 4}},\n"
    b"(TaskRunner pid=7)  'trainer': {'total_epochs': 2}}\n"
    b"(TaskRunner pid=7) Setting global step to 1\r\n"
    b"\xe2\x96\x88\rstep:2 - a:np.float64(0.5) - \xe4\xb8\xad/b:True\n"
    b"step:1 - a:1e-06 - c:nan(WorkerDict pid=3) x\r\n"
    b"step:2 - c:-inf\n"
    b"step:3 - a:0.125"
)


def _split_read(path: Path, data: bytes, cuts: list[int]) -> ParsedLog:
    """Write ``data`` in pieces, reading after each; the last read comes once the file is quiet."""
    clock = Clock()
    cache = LogCache(clock=clock)
    path.write_bytes(b"")
    cache.read(path)
    previous = 0
    for cut in [*cuts, len(data)]:
        append(path, data[previous:cut])
        previous = cut
        cache.read(path)
    clock.now += QUIET_S + 60
    return cache.read(path)


def test_every_split_offset_gives_the_cold_result(tmp_path: Path) -> None:
    expected = parse_log_bytes(SMALL)
    assert expected.steps["step"].to_list() == [1, 2, 3]
    assert expected.steps["a"].to_list() == [1e-06, 0.5, 0.125]
    assert expected.steps["\u4e2d/b"].to_list() == [None, 1.0, None]
    assert expected.steps["c"].to_list()[1] == -math.inf
    assert expected.meta.config == {"actor_rollout_ref": {"rollout": {"n": 4}}, "trainer": {"total_epochs": 2}}
    for cut in range(1, len(SMALL)):
        path = tmp_path / f"split-{cut}.log"
        result = _split_read(path, SMALL, [cut])
        assert_same_log(result, expected)


def test_random_multi_way_splits_with_restarts(tmp_path: Path) -> None:
    rng = random.Random(11)
    data = SAMPLE + b"\n" + SAMPLE.replace(b"pid=7", b"pid=9")
    expected = parse_log_bytes(data)
    for trial in range(25):
        cuts = sorted(rng.sample(range(1, len(data)), rng.randint(2, 8)))
        cache_dir = tmp_path / f"cache-{trial}"
        path = tmp_path / f"run-{trial}.log"
        path.write_bytes(b"")
        previous = 0
        result = None
        for cut in [*cuts, len(data)]:
            append(path, data[previous:cut])
            previous = cut
            # every refresh by a fresh process: only the persisted state carries over
            result = LogCache(cache_dir).read(path)
        assert result is not None
        assert_same_log(result, expected)


def test_jsonl_every_split_offset(tmp_path: Path) -> None:
    records = (DATA / "file_logger.jsonl").read_bytes().split(b"\n", 1)[1]
    expected = parse_jsonl_bytes(records)
    assert expected.steps["step"].to_list() == [1, 2, 3]
    for cut in range(1, len(records), 3):
        result = _split_read(tmp_path / f"split-{cut}.jsonl", records, [cut])
        assert_frame_equal(result.steps, expected.steps)


# --- bad input through the reader ---------------------------------------------------------------------------------
BAD_FILES = {
    "empty": (b"", []),
    "crlf": (b"step:1 - a:1.0\r\nstep:2 - a:2.0\r\n", [1, 2]),
    "nul": (b"\x00" * 100 + b"step:1 - a:1.0\n" + b"\x00" * 8192 + b"step:2 - a:2.0\n\x00\x00", [1, 2]),
    "invalid-utf8": (b"\xff\xfe\n\xc3 step:1 - a:1.0\nstep:2 - a:2.0\n\x80", [1, 2]),
    "10mb-no-newline": (b"step:1 - a:1.0\nstep:2 - a:2.0\n" + b"y" * (10 * 1024 * 1024), [1, 2]),
    "binary": (random.Random(3).randbytes(200_000), []),
    "binary-with-steps": (
        random.Random(4).randbytes(50_000)
        + b"\nstep:1 - a:1.0\n"
        + random.Random(5).randbytes(50_000)
        + b"\nstep:2 - a:2.0\n",
        [1, 2],
    ),
}


@pytest.mark.parametrize("name", list(BAD_FILES))
def test_bad_files_are_read_without_error(name: str, log_dir: Path, cache_dir: Path) -> None:
    data, steps = BAD_FILES[name]
    path = log_dir / f"{name}.log"
    path.write_bytes(data)
    for cache in (LogCache(), LogCache(cache_dir), LogCache(cache_dir)):
        parsed = cache.read(path)
        assert parsed.steps.schema["step"] == pl.Int64()
        assert parsed.steps["step"].to_list() == steps
        if steps:
            assert parsed.steps["a"].to_list() == [float(step) for step in steps]
        else:
            assert parsed.meta.kind == "none"


def test_ten_megabyte_line_completed_later(log_dir: Path) -> None:
    path = log_dir / "run.log"
    path.write_bytes(b"step:1 - a:1.0\n" + b"z" * (10 * 1024 * 1024))
    cache = LogCache()
    assert cache.read(path).steps["step"].to_list() == [1]
    append(path, b"\nstep:2 - a:2.0\n")
    assert cache.read(path).steps["step"].to_list() == [1, 2]


def test_sft_log_through_the_reader() -> None:
    parsed = read_log(DATA / "sft_trainer.log")
    assert parsed.meta.kind == "sft"
    assert parsed.steps["train/loss"].to_list() == [1.1166926622390747, 0.5, 0.25]


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.log"
    with pytest.raises(LogReadError) as caught:
        read_log(path)
    assert str(path) in str(caught.value)


def test_dangling_symlink(tmp_path: Path) -> None:
    link = tmp_path / "gone.log"
    link.symlink_to(tmp_path / "target-that-does-not-exist.log")
    with pytest.raises(LogReadError) as caught:
        LogCache().read(link)
    assert "gone.log" in str(caught.value)


def test_directory_given_as_a_file(log_dir: Path) -> None:
    with pytest.raises(LogReadError) as caught:
        LogCache().read(log_dir)
    assert str(log_dir) in str(caught.value)


def deny_reading(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    """Make opening ``path`` fail as a mode-000 file does for an ordinary user (root may read anything)."""
    real_open = open

    def guarded_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        if os.path.abspath(file) == os.path.abspath(path):
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(rlmon.logs.cache, "open", guarded_open, raising=False)


def test_permission_denied(log_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = log_dir / "secret.log"
    path.write_bytes(b"step:1 - a:1.0\n")
    path.chmod(0)
    try:
        if os.access(path, os.R_OK):  # running as root: the kernel would let us read it
            deny_reading(monkeypatch, path)
        with pytest.raises(LogReadError) as caught:
            LogCache().read(path)
        assert str(path) in str(caught.value)
        assert "permission" in str(caught.value).lower()
    finally:
        path.chmod(0o644)


def test_a_file_that_vanishes_after_being_cached(log_dir: Path) -> None:
    path = log_dir / "run.log"
    path.write_bytes(b"step:1 - a:1.0\n")
    cache = LogCache()
    cache.read(path)
    path.unlink()
    with pytest.raises(LogReadError):
        cache.read(path)


# --- merging files of one experiment ------------------------------------------------------------------------------
def test_merge_steps_later_frame_wins_and_nulls_never_win() -> None:
    first = pl.DataFrame({"step": [1, 2, 3], "a": [1.0, 2.0, 3.0], "b": [10.0, None, 30.0]})
    second = pl.DataFrame({"step": [3, 2], "a": [33.0, None], "c": [5.0, 6.0]})
    merged = merge_steps([first, second])
    assert merged.columns == ["step", "a", "b", "c"]
    assert merged.rows() == [(1, 1.0, 10.0, None), (2, 2.0, None, 6.0), (3, 33.0, 30.0, 5.0)]
    assert merged.schema["step"] == pl.Int64()
    assert merge_steps([]).columns == ["step"]


def test_read_logs_later_file_wins(log_dir: Path) -> None:
    first = log_dir / "a.log"
    second = log_dir / "b.log"
    first.write_bytes(b"(TaskRunner pid=1) Total training steps: 10\nstep:1 - a:1.0 - b:1.0\nstep:2 - a:2.0\n")
    second.write_bytes(b"(TaskRunner pid=2) Setting global step to 1\nstep:2 - a:20.0 - c:3.0\nstep:3 - a:30.0\n")
    merged = read_logs([first, second])
    assert merged.steps.rows() == [(1, 1.0, 1.0, None), (2, 20.0, None, 3.0), (3, 30.0, None, None)]
    assert merged.meta.total_steps == 10
    assert merged.meta.resume_steps == [1]
    reverse = read_logs([second, first])
    assert reverse.steps.filter(pl.col("step") == 2)["a"].to_list() == [2.0]


def test_replaced_with_same_size_and_mtime(log_dir: Path, tmp_path: Path) -> None:
    path = log_dir / "run.log"
    path.write_bytes(b"step:1 - a:1.0\n")
    cache = LogCache()
    assert cache.read(path).steps["a"].to_list() == [1.0]
    before = path.stat()
    replacement = tmp_path / "replacement.log"
    replacement.write_bytes(b"step:1 - a:8.0\n")
    os.utime(replacement, ns=(before.st_atime_ns, before.st_mtime_ns))
    os.replace(replacement, path)
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert after.st_ino != before.st_ino
    assert cache.read(path).steps["a"].to_list() == [8.0]


@pytest.mark.parametrize("block_bytes", [1, 7, 64, 1000])
def test_reading_in_small_blocks_gives_the_cold_result(
    block_bytes: int, log_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # large files are read block by block; tiny blocks cut every line (and \r\n pairs, and characters)
    monkeypatch.setattr(rlmon.logs.cache, "BLOCK_BYTES", block_bytes)
    path = log_dir / "run.log"
    path.write_bytes(SAMPLE)
    result = LogCache(quiet_s=0).read(path)
    assert_same_log(result, parse_log_bytes(SAMPLE))
    _sample_expectation(result)


def test_concurrent_readers_agree(log_dir: Path, cache_dir: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    path = log_dir / "run.log"
    path.write_bytes(SAMPLE + b"\n")
    cache = LogCache(cache_dir)
    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(lambda _: cache.read(path), range(24)))
    expected = parse_log_bytes(SAMPLE + b"\n")
    for result in results:
        assert_same_log(result, expected)
    assert cache.parses == 1


def test_read_logs_with_a_missing_file(log_dir: Path) -> None:
    present = log_dir / "a.log"
    present.write_bytes(b"step:1 - a:1.0\n")
    with pytest.raises(LogReadError) as caught:
        read_logs([present, log_dir / "b.log"])
    assert "b.log" in str(caught.value)


# --- state that spans lines: pasted command, initial validation fill, traceback frames ----------------------------
SPANNING = (
    b"python3 -m verl.trainer.main_ppo \\\n"
    b"    algorithm.adv_estimator=grpo \\\n"
    b"    actor_rollout_ref.rollout.n=8\n"
    b"(\"Initial validation metrics: {'val-core/d/acc/mean@1': 0.25, \"\n"
    b" \"'val-aux/d/acc/std@1': 0.5}\")\n"
    b"step:0 - val-core/d/acc/mean@1:0.125\n"
    b"step:1 - actor/grad_norm:0.5 - critic/score/mean:0.25\n"
    b"step:2 - actor/grad_norm:0.75 - critic/score/mean:0.5\n"
    b"Error executing job with overrides: []\n"
    b"Traceback (most recent call last):\n"
    b'  File "/a/main_ppo.py", line 53, in main\n'
    b"    run_ppo(config)\n"
    b'  File "/a/ray_trainer.py", line 996, in fit\n'
    b"    reward_tensor = self.reward_fn(batch)\n"
    b"ValueError: bad reward\n"
)


def test_spanning_state_survives_every_split_and_restart(tmp_path: Path) -> None:
    expected = parse_log_bytes(SPANNING)
    meta = expected.meta
    # what the text says: the command's three lines, the print's keys filled into step 0 where the line
    # lacks them (the line's 0.125 wins over the print's 0.25), the two frames and the last step before the error
    assert meta.launch_command == (
        "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo actor_rollout_ref.rollout.n=8"
    )
    assert expected.steps.filter(pl.col("step") == 0).select("val-core/d/acc/mean@1", "val-aux/d/acc/std@1").row(0) == (
        0.125,
        0.5,
    )
    assert (meta.failure, meta.failure_step) == ("ValueError: bad reward", 2)
    assert meta.failure_frames == ["/a/main_ppo.py:53 in main", "/a/ray_trainer.py:996 in fit"]
    for cut in range(1, len(SPANNING)):
        result = _split_read(tmp_path / f"split-{cut}.log", SPANNING, [cut])
        assert_same_log(result, expected)
    rng = random.Random(5)
    for trial in range(15):
        cuts = sorted(rng.sample(range(1, len(SPANNING)), rng.randint(2, 6)))
        path = tmp_path / f"run-{trial}.log"
        path.write_bytes(b"")
        previous = 0
        result = None
        for cut in [*cuts, len(SPANNING)]:
            append(path, SPANNING[previous:cut])
            previous = cut
            result = LogCache(tmp_path / f"cache-{trial}").read(path)
        assert result is not None
        assert_same_log(result, expected)
