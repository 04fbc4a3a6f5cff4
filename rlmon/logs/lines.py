"""Line helpers every log reader shares: splitting bytes into lines, complete lines, a file's mark, and the
patterns of the noise around verl's records (ANSI colour codes, Ray's ``(Actor pid=N, ip=...)`` prefixes,
step markers). :mod:`rlmon.logs.parse`, :mod:`rlmon.logs.cache` and :mod:`rlmon.logs.samples` read lines
through these, so a line is a line in the same way for all of them (format reference §9).
"""

from __future__ import annotations

import os
import re

import polars as pl

__all__ = [
    "ANSI",
    "ANSI_RE",
    "PREFIX_RE",
    "RAY_PREFIX",
    "STEP_MARK_RE",
    "STEP_START_RE",
    "complete_end",
    "count_lines",
    "file_identity",
    "file_mark",
    "split_lines",
]

ANSI = r"\x1b\[[0-9;?]*[ -/]*[@-~]"
"""An ANSI escape sequence (colours, cursor moves)."""
ANSI_RE = re.compile(ANSI)
RAY_PREFIX = r"\((?:[A-Za-z_][\w:.\-]*(?: [A-Za-z_]\w*)? )?pid=\d*(?:, ip=[\d.]+)?\) ?|\(raylet(?:, ip=[\d.]+)?\) ?"
"""One Ray output prefix: ``(TaskRunner pid=123) ``, ``(WorkerDict pid=7, ip=10.0.0.2) ``, ``(raylet) ``."""
PREFIX_RE = re.compile(rf"^(?:{RAY_PREFIX})+")
"""The Ray prefixes at the start of a line (several when Ray nests them)."""
STEP_MARK_RE = re.compile(r"(?:^|[^\w/])step:(\d+) - ")
"""A step marker anywhere in a line: ``step:N - `` that starts the text or follows a character that is neither
a word character nor ``/`` (``training/global_step:5 - `` and ``timing/step:`` are not markers)."""
STEP_START_RE = re.compile(r"^step:\d+ - ")
"""A line that starts with a step marker (inside a sample print only such a line ends it: a response may say
``step:2 - ``)."""


def split_lines(data: bytes) -> pl.Series:
    """Decode bytes (invalid UTF-8 replaced) and split on ``\\n``, ``\\r\\n`` and lone ``\\r`` (tqdm redraws).

    Returns a String series, one element per line; a final line without a terminator is included.
    """
    if not data:
        return pl.Series("line", [], dtype=pl.String)
    if b"\x1f" in data:  # the column separator read_csv is told to use; never meaningful in a log
        data = data.replace(b"\x1f", b" ")
    frame = pl.read_csv(
        data,
        has_header=False,
        separator="\x1f",
        quote_char=None,
        schema={"line": pl.String},
        encoding="utf8-lossy",
        empty_string_is_null=False,
    )
    lines = frame.get_column("line").fill_null("")
    redraws = lines.str.contains("\r", literal=True)
    if redraws.any():
        # lone carriage returns (tqdm) break lines too; only the few lines holding one are split
        numbered = pl.DataFrame({"line": lines}).with_row_index("_row")
        split = numbered.filter(redraws).with_columns(pl.col("line").str.split("\r")).explode("line")
        lines = pl.concat([numbered.filter(~redraws), split]).sort("_row", maintain_order=True).get_column("line")
    return lines


def count_lines(data: bytes) -> int:
    """Lines in ``data`` (complete lines) as :func:`split_lines` counts them: ``\\n``, ``\\r\\n``
    and a lone ``\\r`` each end one."""
    return data.count(b"\n") + data.count(b"\r") - data.count(b"\r\n")


def complete_end(data: bytes) -> int:
    """Length of the prefix of ``data`` made of complete lines.

    A line ends at ``\\n``, or at a ``\\r`` that is not the last byte (a final ``\\r`` may be the first half of
    ``\\r\\n``, so it waits for the next byte).

    Examples
    --------
    >>> complete_end(b"a\\nb")
    2
    >>> complete_end(b"a\\rb\\r")
    2
    """
    newline = data.rfind(b"\n")
    carriage = data.rfind(b"\r", 0, len(data) - 1) if data else -1
    return max(newline, carriage) + 1


def file_mark(info: os.stat_result) -> tuple[int, int, int]:
    """A file's identity and version: (inode, mtime in ns, size)."""
    return (info.st_ino, info.st_mtime_ns, info.st_size)


def file_identity(path: str | os.PathLike[str]) -> tuple[object, ...]:
    """What tells one version of a log file from another, looked at now: a file renamed over it (another inode) or
    rewritten in place (another change time) differs even when its size and mtime were kept; ``(path, None)``
    when it cannot be looked at."""
    try:
        info = os.stat(path)
    except OSError:
        return (str(path), None)
    return (str(path), info.st_size, info.st_mtime_ns, info.st_ino, info.st_dev, info.st_ctime_ns)
