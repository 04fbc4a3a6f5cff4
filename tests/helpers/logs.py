"""Helpers for tests of reading logs: a clock moved by hand, comparing two reads of a log, verl step lines with known
values, the deployment env files, and a full cache disk."""

from __future__ import annotations

import errno
import os
import time
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal


class Clock:
    """A clock the test moves by hand (seconds since the epoch, like :func:`time.time`)."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


def assert_same_log(got: Any, expected: Any) -> None:
    """Same step frame (column order included) and metadata (warnings aside: they name line ranges)."""
    assert_frame_equal(got.steps, expected.steps)
    got_meta, want_meta = got.meta.to_json_dict(), expected.meta.to_json_dict()
    got_meta.pop("warnings")
    want_meta.pop("warnings")
    assert got_meta == want_meta


KEYS = 40


def step_lines(first: int, count: int, *, keys: int = KEYS) -> bytes:
    """verl console step lines ``step:N - key:value ...`` with ``keys`` metrics each, values known from N."""
    lines = []
    for step in range(first, first + count):
        pairs = " - ".join(f"actor/m{key}:{step + key / 100:.4f}" for key in range(keys))
        lines.append(f"(TaskRunner pid=7) step:{step} - {pairs}\n")
    return "".join(lines).encode()


def env_file(path: Path) -> dict[str, str]:
    pairs = [line.split("=", 1) for line in path.read_text().splitlines() if line.strip() and not line.startswith("#")]
    return {key: value for key, value in pairs}


def fail_parquet_writes(monkeypatch: pytest.MonkeyPatch, error: Exception) -> None:
    """Every ``write_parquet`` to a file fails the way polars fails on a full disk: the file is created, empty,
    and then the error is raised."""

    def failing(self: pl.DataFrame, file: Any, *args: Any, **kwargs: Any) -> None:
        if isinstance(file, str | os.PathLike):
            Path(file).write_bytes(b"")
        raise error

    monkeypatch.setattr(pl.DataFrame, "write_parquet", failing)


DISK_FULL = {
    "polars": pl.exceptions.ComputeError("No space left on device (os error 28)"),
    "oserror": OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)),
}
