"""Samples: verl's console prints and generation dumps -> the sample frame (rlmon.logs.samples).

Expected values are read off the log text: counts per step were taken with an awk pass over each real log
(count ``[response] `` lines, hand them to the next ``step:N - `` or ``Dumped generations to .../N.jsonl``
line), independent of rlmon.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import polars as pl
import pytest

from rlmon.logs.samples import (
    MAX_FIELD_CHARS,
    SampleCache,
    SampleCollector,
    filter_samples,
    find_dump_dirs,
    parse_dump_jsonl,
    parse_samples_bytes,
    read_dump_dir,
    samples_for_prompt,
    to_text,
)
from tests.helpers.paths import DATA

PRINTS = DATA / "samples_prints.log"
DUMP = DATA / "samples_dump"


# ------------------------------------------------------------------------------------------- real logs
def _every(start: int, stop: int, by: int, count: int) -> dict[int, int]:
    return dict.fromkeys(range(start, stop + 1, by), count)


REAL = {
    # 86 `[response]` lines, two per validation (gsm8k and MATH), steps 0 (initial validation), 5, ..., 210
    "gpg-qwen2-7b-fsdp-gsm8k-math-2025-06.log": _every(0, 210, 5, 2),
    # 112 each, one per validation at steps 10, 20, ..., 1120 (the log has no initial validation)
    "amd-mi300-deepseek7b-grpo-gsm8k-2025-03.log": _every(10, 1120, 10, 1),
    "amd-mi300-deepseek7b-ppo-gsm8k-2025-03.log": _every(10, 1120, 10, 1),
    # resumed at 100: validations at 110, ..., 430 and the last step 435 (is_last_step validates)
    "dstack-ppo-qwen25-7b-resumed-2025-05.log": {**_every(110, 430, 10, 1), 435: 1},
    # no step lines: training prints (num_examine > 0), each followed by `Dumped generations to .../N.jsonl`;
    # the 31st `[prompt]` is cut by the end of the file (no `[response]`), so it is not a sample
    "walar-grpo-wandb-only-no-step-lines-2025-06.log": _every(1, 30, 1, 1),
}


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_log_blocks_per_step(realdata_dir: Path, name: str) -> None:
    samples = SampleCache().read(realdata_dir / name).samples
    counts = dict(samples.group_by("step").len().iter_rows())
    assert counts == REAL[name]
    assert samples.filter(pl.col("prompt") == "").height == 0


def test_real_log_first_block_text(realdata_dir: Path) -> None:
    # gpg fsdp, lines 905-921 (`grep -n`): the initial validation's gsm8k example. rlmon counts a lone \r as a
    # line break too (rlmon.schema.RunMeta), and 30 tqdm redraws come before it: line 935 in rlmon's numbering.
    samples = SampleCache().read(realdata_dir / "gpg-qwen2-7b-fsdp-gsm8k-math-2025-06.log").samples
    first = samples.row(0, named=True)
    assert first["line"] == 905 + 30
    assert first["step"] == 0
    assert first["kind"] == "validation"
    assert first["prompt"].startswith("system\nYou are a helpful assistant.\nuser\nJanet\u2019s ducks lay 16 eggs")
    assert first["prompt"].endswith("assistant\n")
    assert first["response"].startswith("Janet's ducks lay 16 eggs per day.")
    assert first["response"].endswith("The answer is $####18$.")
    assert first["ground_truth"] == "18"
    assert first["score"] == 0.0
    # line 928: a response that starts with "\(y" keeps its backslashes and line breaks
    second = samples.row(1, named=True)
    assert "\\[x^2 + x - 6 = (x + 3)(x - 2)\\]" in second["response"].split("\n")
    assert second["score"] == 1.0


def test_real_log_interleaved_lines_left_out(realdata_dir: Path) -> None:
    # dstack lines 416-432: tqdm redraws of stderr (no Ray prefix) are not part of the print
    samples = SampleCache().read(realdata_dir / "dstack-ppo-qwen25-7b-resumed-2025-05.log").samples
    first = samples.row(0, named=True)
    assert first["step"] == 110
    assert first["response"].endswith("#### 18")
    assert "Training Progress" not in first["response"]


def test_walar_dump_folder_named(realdata_dir: Path) -> None:
    log = SampleCache().read(realdata_dir / "walar-grpo-wandb-only-no-step-lines-2025-06.log")
    assert log.dump_dirs == ("/mnt/gemini/data1/yifengliu/qe-lr/log/rollout_data",)
    # line 499: `[score] -5.375`
    assert log.samples.row(0, named=True)["score"] == -5.375


# ------------------------------------------------------------------------------------------- crafted log
def test_crafted_log() -> None:
    samples = parse_samples_bytes(PRINTS.read_bytes(), file="x.log").samples
    assert samples.get_column("step").to_list() == [0, 0, 2, 3]
    # the initial validation's prints, then a training step with val- keys, then one without
    assert samples.get_column("kind").to_list() == ["validation", "validation", "validation", "training"]
    assert samples.get_column("score").to_list() == [1.0, 0.0, 0.0, 1.0]
    first = samples.row(0, named=True)
    # the WorkerDict line (another Ray prefix) between the prompt's lines is not part of it
    assert first["prompt"] == "system\nYou are a helpful assistant.\nuser\nWhat is 2+3?\nassistant\n"
    assert first["response"] == "2+3 = 5\n\n#### 5"
    assert first["line"] == 3
    # a dict score: [score], then its other keys
    assert json.loads(samples.row(2, named=True)["extra"]) == {"acc": "False", "pred": "6"}


def test_hostile_text_kept_as_text() -> None:
    samples = parse_samples_bytes(PRINTS.read_bytes()).samples
    hostile = samples.row(1, named=True)
    assert hostile["response"].startswith("<script>alert(1)</script> ![img](http://evil.example/x.png)")
    assert hostile["response"].endswith("```python\ndef f(x):\n    return x * 2\n```")


@pytest.mark.parametrize("split", [1, 50, 200, 400, 700, 900, 1100, 1300])
def test_block_cut_across_two_appends(tmp_path: Path, split: int) -> None:
    whole = PRINTS.read_bytes()
    assert split < len(whole)
    log = tmp_path / "run.log"
    log.write_bytes(whole[:split])
    cache = SampleCache(tmp_path / "cache")
    cache.read(log)
    with log.open("ab") as handle:
        handle.write(whole[split:])
    os.utime(log, ns=(1, 2))  # another mtime even on a coarse clock
    assert cache.read(log).samples.equals(parse_samples_bytes(whole, file=str(log)).samples)
    # a restart reads the state from the cache folder and gives the same
    assert SampleCache(tmp_path / "cache").read(log).samples.equals(cache.read(log).samples)


def test_every_line_split_matches_cold_read(tmp_path: Path) -> None:
    whole = PRINTS.read_bytes()
    cold = parse_samples_bytes(whole, file="run.log").samples
    log = tmp_path / "run.log"
    log.write_bytes(b"")
    cache = SampleCache()
    ends = [index + 1 for index, byte in enumerate(whole) if byte == ord("\n")]
    for number, end in enumerate(ends):
        log.write_bytes(whole[:end])
        os.utime(log, ns=(number, number))
        cache.read(log)
    assert cache.read(log).samples.drop("file").equals(cold.drop("file"))


def test_pending_block_shown_before_its_step(tmp_path: Path) -> None:
    whole = PRINTS.read_bytes()
    cut = whole.index(b"[acc] False")
    log = tmp_path / "run.log"
    log.write_bytes(whole[:cut])
    samples = SampleCache().read(log).samples
    # the third print has its fields but no step line yet: shown without a step
    assert samples.get_column("step").to_list() == [0, 0, None]
    assert samples.row(2, named=True)["score"] == 0.0


def test_rewritten_log_read_again(tmp_path: Path) -> None:
    log = tmp_path / "run.log"
    log.write_bytes(PRINTS.read_bytes())
    cache = SampleCache()
    assert cache.read(log).samples.height == 4
    log.write_bytes(b"x" * 10 + PRINTS.read_bytes()[10:200])
    assert cache.read(log).samples.height == 0


def test_unended_print_bounded() -> None:
    collector = SampleCollector()
    collector.feed_lines(["[prompt] p", "[response] start", *(["y" * 1000] * 400)], first_line=1)
    collector.feed_lines(["[ground_truth] 1", "[score] 0", "step:1 - a:1"], first_line=403)
    (sample,) = collector.take_done()
    assert len(sample["response"]) <= MAX_FIELD_CHARS
    assert json.loads(sample["extra"]) == {"truncated": "true"}


def test_thirty_thousand_character_response() -> None:
    text = "z" * 30_000
    data = f"[prompt] p\n[response] {text}\n[ground_truth] 1\n[score] 1.0\nstep:4 - a:1\n".encode()
    (sample,) = parse_samples_bytes(data).samples.iter_rows(named=True)
    assert sample["response"] == text


# ------------------------------------------------------------------------------------------- dumps
def test_dump_jsonl_fields() -> None:
    frame = parse_dump_jsonl((DUMP / "5.jsonl").read_bytes(), file=str(DUMP / "5.jsonl"), kind="validation")
    assert frame.height == 3
    assert frame.get_column("step").to_list() == [5, 5, 5]
    assert frame.get_column("score").to_list() == [1.0, 0.0, -1.0]
    assert frame.get_column("ground_truth").to_list() == ["5", "42", '["2", "3"]']
    assert frame.get_column("origin").unique().to_list() == ["dump"]
    assert json.loads(frame.row(0, named=True)["extra"]) == {"acc": "true", "pred": "5"}
    assert len(frame.row(2, named=True)["response"]) == 30_000
    assert frame.row(1, named=True)["response"] == "<script>alert(1)</script> 41"


def test_dump_bad_records_skipped() -> None:
    data = b'not json\n[1, 2]\n{"input": "a", "output": "b", "gts": "c", "score": "nan"}\n'
    frame = parse_dump_jsonl(data, file="/x/7.jsonl")
    assert frame.height == 1
    assert frame.row(0, named=True)["step"] == 7  # from the file name
    assert frame.row(0, named=True)["score"] is None


def test_find_and_read_dump_folder(tmp_path: Path) -> None:
    experiment = tmp_path / "exp"
    experiment.mkdir()
    shutil.copytree(DUMP, experiment / "val_dumps")
    config = {"trainer": {"validation_data_dir": "/somewhere/else/val_dumps", "rollout_data_dir": None}}
    found = find_dump_dirs(config, experiment, allowed=[tmp_path])
    assert found.found == ((experiment / "val_dumps", "validation"),)
    before = sorted(path.name for path in (experiment / "val_dumps").iterdir())
    frame = read_dump_dir(experiment / "val_dumps", kind="validation", cache=SampleCache())
    assert frame.height == 3
    assert sorted(path.name for path in (experiment / "val_dumps").iterdir()) == before  # never written to


def test_find_dump_dirs_absolute_and_named(tmp_path: Path) -> None:
    shutil.copytree(DUMP, tmp_path / "rollouts")
    config = {"trainer": {"rollout_data_dir": str(tmp_path / "rollouts")}}
    found = find_dump_dirs(config, tmp_path / "nowhere", allowed=[tmp_path])
    assert found.found == ((tmp_path / "rollouts", "training"),)
    assert find_dump_dirs(None, tmp_path, named=["/gone/rollouts"], allowed=[tmp_path]).found == (
        (tmp_path / "rollouts", None),
    )
    assert find_dump_dirs(None, tmp_path / "nowhere", named=["relative/only"], allowed=[tmp_path]).found == ()


# ------------------------------------------------------------------------------------------- choosing
def test_filters_and_prompt_compare() -> None:
    samples = parse_samples_bytes(PRINTS.read_bytes()).samples
    assert filter_samples(samples, step=0).height == 2
    assert filter_samples(samples, outcome="pass").get_column("step").to_list() == [0, 3]
    assert filter_samples(samples, outcome="fail").height == 2
    assert filter_samples(samples, text="SCRIPT").height == 1
    assert filter_samples(samples, text="[a link]").height == 1  # literal, not a pattern
    same = samples_for_prompt(samples, "system\nWhat is 2+3?")
    assert same.get_column("step").to_list() == [2, 3]
    assert samples_for_prompt(samples, "system\nWhat is 2+3?", step=3).get_column("response").to_list() == ["5"]


def test_to_text() -> None:
    samples = parse_samples_bytes(PRINTS.read_bytes(), file="x.log").samples
    text = to_text(samples.slice(2, 1))
    assert text.splitlines()[0] == "=== step 2 · validation · score 0 · 8 chars · x.log:27"
    assert "[pred] 6" in text.splitlines()


def test_line_count_matches_the_step_parser() -> None:
    from rlmon.logs.lines import count_lines, split_lines

    for data in (b"a\nb\n", b"a\r\nb\rc\n", b"x\r\r\n", b"\n\n\r", b"tqdm 1\rtqdm 2\rdone\n"):
        assert count_lines(data) == split_lines(data).len(), data


def test_cache_folder_holds_one_frame_per_log(tmp_path: Path) -> None:
    log = tmp_path / "run.log"
    whole = PRINTS.read_bytes()
    log.write_bytes(whole[:600])
    cache_dir = tmp_path / "cache"
    SampleCache(cache_dir).read(log)
    with log.open("ab") as handle:
        handle.write(whole[600:])
    SampleCache(cache_dir).read(log)  # a restart, then an append
    log.write_bytes(b"rewritten\n")
    assert SampleCache(cache_dir).read(log).samples.height == 0
    (folder,) = (cache_dir / "samples").iterdir()
    names = sorted(path.name for path in folder.iterdir())
    assert [name.partition("-")[0] for name in names] == ["samples", "state.json"]
    assert sorted(path.name for path in tmp_path.iterdir()) == ["cache", "run.log"]  # nothing in the log folder


def test_full_disk_costs_only_the_disk_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import errno

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(pl.DataFrame, "write_parquet", full)
    cache_dir = tmp_path / "cache"
    samples = SampleCache(cache_dir).read(PRINTS).samples
    assert samples.height == 4
    assert not [path for path in cache_dir.rglob("*") if path.is_file()]
