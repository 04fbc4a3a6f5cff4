"""The lines the metadata collector reads (``_candidate_rows``): after a block opener (a config dump, a validation
print, a fatal signature) only the lines of its window that can change the metadata go through the collector's
Python code; the rest (step lines, above all) are left out. What the collector finds must be what it found when
it read every line of the window: these cases put the lines that still matter deep inside such windows.

Every expected value is read off the case text.
"""

from __future__ import annotations

import ast
import logging
import threading
import time
from typing import Any

import polars as pl
import pytest

from rlmon.logs import parse
from rlmon.logs.parse import _candidate_rows, parse_log_text

CONFIG = "(TaskRunner pid=1) {'actor_rollout_ref': {'model': {'path': 'Qwen/Qwen3-8B'}}, 'trainer': {'nnodes': 1}}"


def step_line(step: int) -> str:
    return f"(TaskRunner pid=1) step:{step} - actor/pg_loss:0.5 - critic/score/mean:0.25"


def lines_of(text: str) -> pl.Series:
    return pl.Series("line", text.split("\n"), dtype=pl.String)


def test_step_lines_after_a_config_dump_are_not_read_by_the_collector() -> None:
    lines = [CONFIG, *(step_line(step) for step in range(1, 11))]
    assert _candidate_rows(lines_of("\n".join(lines)), head=0) == [0]


def test_lines_that_can_matter_in_a_config_window_are_read() -> None:
    lines = [
        "(TaskRunner pid=1) {'actor_rollout_ref': {'model': {'path': 'Qwen/Qwen3-8B'},",  # 0: opens the block
        "(TaskRunner pid=1)  'trainer': {'nnodes': 1}}",  # 1: a pprint continuation line
        step_line(1),  # 2
        "(TaskRunner pid=1) ValueError: boom",  # 3: an exception line
        "\x1b[36m(TaskRunner pid=1)\x1b[0m Total\x1b[0m training steps: 7",  # 4: a marker behind ANSI codes
        step_line(2),  # 5
        "\tnot a continuation, but indented",  # 6
        "(WorkerDict pid=2) Training Progress:  50%|#####     | 1/2",  # 7: a tqdm bar, not the last
        "Training Progress: 100%|##########| 2/2",  # 8: the last tqdm bar
        step_line(3),  # 9
    ]
    assert _candidate_rows(lines_of("\n".join(lines)), head=0) == [0, 1, 3, 4, 6, 7, 8]


def test_head_and_command_windows_are_read_whole() -> None:
    lines = [
        step_line(1),  # 0, 1: the head (a block left open by the previous chunk)
        step_line(2),
        CONFIG,  # 2
        "+ python3 -m verl.trainer.main_ppo \\",  # 3: a launch command continued with a backslash
        step_line(3),  # 4, 5: in the command's window
        step_line(4),
    ]
    assert _candidate_rows(lines_of("\n".join(lines)), head=2) == [0, 1, 2, 3, 4, 5]


def test_total_steps_behind_ansi_codes_in_a_config_window() -> None:
    text = "\n".join([CONFIG, step_line(1), "\x1b[36m(TaskRunner pid=1)\x1b[0m Total\x1b[0m training steps: 7"])
    meta = parse_log_text(text + "\n").meta
    assert meta.total_steps == 7
    assert meta.config == {"actor_rollout_ref": {"model": {"path": "Qwen/Qwen3-8B"}}, "trainer": {"nnodes": 1}}


def test_failure_named_far_after_its_signature_inside_a_config_window() -> None:
    # The Hydra wrapper line makes a failure pending; the exception line that names it comes 500 lines later,
    # beyond the signature's own window but inside the config dump's.
    lines = [
        "Error executing job with overrides: ['trainer.nnodes=1']",
        CONFIG,
        *("(TaskRunner pid=1) waiting for workers" for _ in range(500)),
        "ValueError: boom",
    ]
    meta = parse_log_text("\n".join(lines) + "\n").meta
    assert meta.failure == "ValueError: boom"
    assert meta.failure_kind == "hydra"
    assert meta.failure_line == 503


def test_failure_not_named_by_indented_or_ordinary_lines() -> None:
    lines = [
        "Error executing job with overrides: []",
        CONFIG,
        *("(TaskRunner pid=1) waiting for workers" for _ in range(450)),
        "    raise ValueError(boom)",  # indented: a source line of the traceback, not the exception line
    ]
    meta = parse_log_text("\n".join(lines) + "\n").meta
    assert meta.failure == "Error executing job with overrides: []"
    assert meta.failure_kind == "hydra"
    assert meta.failure_line == 1


def test_long_command_takes_its_200_continuation_lines_from_a_config_window() -> None:
    # A launch command goes on while its lines end with a backslash, for at most 200 more lines; the step lines
    # of the config window it runs into are taken as its pieces, as they were when every line was read.
    pieces = [f"x{index}=1 \\" for index in range(199)]
    lines = [CONFIG, "python3 -m verl.trainer.main_ppo \\", *pieces, step_line(1), step_line(2), step_line(3)]
    meta = parse_log_text("\n".join(lines) + "\n").meta
    expected = " ".join(
        ["python3 -m verl.trainer.main_ppo", *(f"x{index}=1" for index in range(199)), step_line(1)[19:]]
    )
    assert meta.launch_command == expected


def test_config_dumps_are_evaluated_one_thread_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    # CPython 3.11 keeps the AST constructor's recursion depth per interpreter, not per thread: two threads in
    # ast.literal_eval at once can fail with "SystemError: AST constructor recursion depth mismatch", and logs
    # are read in parallel. The evaluation holds a lock; this stand-in for it notes how many are inside at once.
    inside: list[int] = [0]
    most: list[int] = [0]
    guard = threading.Lock()
    real = ast.literal_eval

    def watched(text: str) -> Any:
        with guard:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        time.sleep(0.005)
        try:
            return real(text)
        finally:
            with guard:
                inside[0] -= 1

    monkeypatch.setattr(parse.ast, "literal_eval", watched)
    text = "\n".join([CONFIG, step_line(1)]) + "\n"
    configs: list[Any] = []

    def read() -> None:
        for _ in range(10):
            configs.append(parse_log_text(text).meta.config)

    threads = [threading.Thread(target=read) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert most[0] == 1
    assert configs == [{"actor_rollout_ref": {"model": {"path": "Qwen/Qwen3-8B"}}, "trainer": {"nnodes": 1}}] * 40


def test_a_config_dump_is_read_after_a_transient_ast_depth_mismatch(monkeypatch: pytest.MonkeyPatch) -> None:
    # Other code builds ASTs too (Python 3.11's traceback parses each line it prints), outside the lock; the
    # CPython bug then fails the dump's evaluation once. The depth is reset at every call, so it is tried again.
    real = ast.literal_eval
    calls: list[str] = []

    def flaky(text: str) -> Any:
        calls.append(text)
        if len(calls) < 3:
            raise SystemError("AST constructor recursion depth mismatch (before=72, after=71)")
        return real(text)

    monkeypatch.setattr(parse.ast, "literal_eval", flaky)
    parsed = parse_log_text("\n".join([CONFIG, step_line(1)]) + "\n")
    assert parsed.meta.config == {"actor_rollout_ref": {"model": {"path": "Qwen/Qwen3-8B"}}, "trainer": {"nnodes": 1}}
    assert len(calls) == 3
    assert parsed.steps["step"].to_list() == [1]


def test_another_system_error_in_a_config_dump_is_not_hidden(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(text: str) -> Any:
        raise SystemError("something else")

    monkeypatch.setattr(parse.ast, "literal_eval", broken)
    with pytest.raises(SystemError, match="something else"):
        parse_log_text("\n".join([CONFIG, step_line(1)]) + "\n")


def test_a_logged_traceback_is_formatted_while_no_config_dump_is_evaluated(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # rlmon's log records carry their traceback text before a handler sees them, formatted under the lock the
    # dumps are evaluated under, so the traceback module's ast.parse never runs beside a dump's evaluation.
    from rlmon.app import guards

    held: list[bool] = []
    real = logging.Formatter.formatException

    def noting(self: logging.Formatter, exc_info: Any) -> str:
        held.append(parse._AST_LOCK.locked())
        return real(self, exc_info)

    monkeypatch.setattr(logging.Formatter, "formatException", noting)
    try:
        raise ValueError("a broken log")
    except ValueError:
        with caplog.at_level(logging.ERROR, logger="rlmon.app"):
            guards.LOG.exception("rlmon page part failed")
    (record,) = caplog.records
    assert held[0] is True
    assert "ValueError: a broken log" in record.exc_text
    assert 'raise ValueError("a broken log")' in caplog.text
