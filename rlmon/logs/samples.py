"""What the model wrote: samples from verl's console prints and from its generation dumps.

Two sources (the rule is written out in the README, "Samples"):

Console prints
    verl's reward managers print up to ``num_examine`` examples per data source each time they score a batch
    (validation: 1; training: 0 unless a recipe sets it), one ``print`` per field, so each field starts a line
    with ``[name]`` after the Ray prefix and runs on over the lines that follow (the text keeps its line
    breaks)::

        [prompt] <the chat-templated prompt, many lines>
        [response] <the response, many lines>
        [ground_truth] 18
        [score] 1.0                 (or one [key] value line per key of a dict score: [score], [acc], [pred])

    A block belongs to the step whose metrics come next: the first ``step:N - ...`` line after it, or a
    ``Dumped generations to <dir>/N.jsonl`` line, whichever comes first (verl scores, dumps, validates and
    only then logs the step). It is a validation sample when that step line carries ``val-`` (``val/`` in
    v0.1) keys or when ``Initial validation metrics`` follows it, else a training sample. Continuation lines
    are the lines with the same Ray prefix as the ``[prompt]`` line; lines of other processes in between are
    skipped.

Generation dumps
    With ``trainer.rollout_data_dir`` / ``trainer.validation_data_dir`` set, verl writes ``<dir>/<step>.jsonl``
    per step, one JSON object per sample: ``input``, ``output``, ``gts``, ``score``, ``step`` and every reward
    extra field of the same length (``acc``, ``pred``, ``request_id`` ...). :func:`find_dump_dirs` finds the
    folders, only inside the folders it is allowed (the log roots and the ``dump_roots`` setting: a log naming
    ``/any/folder`` must not make rlmon show that folder's files to every visitor); :func:`read_dump_dir` reads
    them, never writes.

Sample frame (:data:`SAMPLE_SCHEMA`)
    ``step`` (Int64, null while no step line has followed), ``kind`` (``validation`` | ``training`` | null),
    ``origin`` (``log`` | ``dump``), ``file`` (the log or dump file), ``line`` (line of ``[prompt]``, or the
    record's line in the dump), ``data_source`` (dumps only, when recorded), ``prompt``, ``response``,
    ``ground_truth`` (String, null when absent), ``score`` (Float64, null when not a number),
    ``response_tokens`` (Int64, when a dump records ``response_length``), ``extra`` (String: a JSON object of
    the other fields, values as text).

Incremental use: :class:`SampleCache` reads each log once and then only what was appended, carrying a
:class:`SampleCollector` across reads (a block cut by the end of the file is completed when the rest comes),
and keeps its results in its own folder of rlmon's cache folder (``samples/``), never in the log folder.
Processes sharing a cache folder take turns on a log as for the step frames (:mod:`rlmon.logs.cache`): one lock
file per log, and a frame file is never written over (a new name per write, named by ``state.json``).
"""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import json
import math
import os
import re
import secrets
import threading
import time
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from rlmon.errors import LogReadError
from rlmon.logs import locks
from rlmon.logs.cache import LOCKS_FOLDER, SAMPLES_FOLDER
from rlmon.logs.lines import (
    ANSI_RE,
    PREFIX_RE,
    STEP_MARK_RE,
    STEP_START_RE,
    complete_end,
    count_lines,
    file_mark,
    split_lines,
)
from rlmon.logs.parse import BLOCK_BYTES, MAX_LINE_BYTES
from rlmon.text import UNKNOWN

__all__ = [
    "DUMP_KEYS",
    "MAX_FIELD_CHARS",
    "SAMPLE_SCHEMA",
    "DumpFolders",
    "ExperimentSamples",
    "ParsedDump",
    "SampleCache",
    "SampleCollector",
    "empty_samples",
    "filter_samples",
    "find_dump_dirs",
    "parse_dump",
    "parse_dump_jsonl",
    "parse_samples_bytes",
    "passed",
    "read_dump_dir",
    "read_samples",
    "read_training_dumps",
    "samples_for_prompt",
    "to_text",
]

SAMPLE_SCHEMA: dict[str, pl.DataType] = {
    "step": pl.Int64(),
    "kind": pl.String(),
    "origin": pl.String(),
    "file": pl.String(),
    "line": pl.Int64(),
    "data_source": pl.String(),
    "prompt": pl.String(),
    "response": pl.String(),
    "ground_truth": pl.String(),
    "score": pl.Float64(),
    "response_tokens": pl.Int64(),
    "extra": pl.String(),
}
MAX_FIELD_CHARS = 200_000
"""Longest prompt or response kept (characters); the rest is cut and ``"truncated": "true"`` is set in
``extra``. A print without an end (a crashed trainer) must not grow memory without bound."""
DUMP_KEYS = ("rollout_data_dir", "validation_data_dir")
"""The ``trainer.*`` settings that name dump folders, in that order (training, validation)."""
_MAX_DUMP_DIRS = 8
_CACHE_VERSION = 2

_FIELD_RE = re.compile(r"^\[([A-Za-z_][\w./\-]*)\](?: (.*))?$")
_VAL_KEY_RE = re.compile(r"(?:^|[^\w/])step:\d+ - (?:.* - )?val[-/]")
_DUMPED_RE = re.compile(r"Dumped generations to (.+)[/\\](\d+)\.jsonl\s*$")
_INITIAL_VAL = "Initial validation metrics"
_MARKERS = r"\[prompt\]|step:\d+ - |Dumped generations to |Initial validation metrics"
_OPENING_MARKERS = r"\[prompt\]|Dumped generations to "
_OPENING_FIELDS = ("prompt", "response", "ground_truth")
_WINDOW_LINES = 512
_BYTE_MARKERS = (b"[prompt]", b"Dumped generations to ")
"""A chunk holding neither, read while the collector is idle, holds nothing for it (step lines only assign
waiting samples): its lines are counted, not split."""


def _skippable(data: bytes, collector: SampleCollector) -> bool:
    return collector.idle() and not any(marker in data for marker in _BYTE_MARKERS)


def empty_samples() -> pl.DataFrame:
    """A sample frame with no rows."""
    return pl.DataFrame(schema=SAMPLE_SCHEMA)


def _strip(line: str) -> tuple[str, str]:
    """(Ray prefix, text): ANSI codes and the prefix taken off; the text keeps its own spacing."""
    if "\x1b" in line:
        line = ANSI_RE.sub("", line)
    match = PREFIX_RE.match(line)
    if match is None:
        return "", line
    return match.group(0).strip(), line[match.end() :]


def _number(text: str | None) -> float | None:
    if text is None:
        return None
    value = text.strip()
    if value in ("True", "False"):
        return 1.0 if value == "True" else 0.0
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _cut(text: str) -> tuple[str, bool]:
    if len(text) > MAX_FIELD_CHARS:
        return text[:MAX_FIELD_CHARS], True
    return text, False


@dataclass
class SampleCollector:
    """Console lines -> samples, fed line by line across reads (state survives in :meth:`to_state`).

    ``done`` holds finished samples with their step; ``waiting`` those whose step line has not come yet;
    ``block`` the print being read (``stage``: ``prompt``, ``response`` or ``fields``).
    """

    file: str = ""
    done: list[dict[str, Any]] = field(default_factory=list)
    waiting: list[dict[str, Any]] = field(default_factory=list)
    block: dict[str, Any] | None = None
    stage: str = ""
    dump_dirs: list[str] = field(default_factory=list)
    """Folders named by ``Dumped generations to <dir>/<step>.jsonl`` lines, first seen first."""

    # -- state --
    def to_state(self) -> dict[str, Any]:
        return {
            "waiting": self.waiting,
            "block": self.block,
            "stage": self.stage,
            "dump_dirs": self.dump_dirs,
        }

    @classmethod
    def from_state(cls, state: dict[str, Any], *, file: str) -> SampleCollector:
        """Raises ``KeyError``/``TypeError``/``ValueError`` on a state that is not one :meth:`to_state` wrote."""
        waiting = state["waiting"]
        block = state["block"]
        stage = state["stage"]
        dump_dirs = state["dump_dirs"]
        if not isinstance(waiting, list) or not all(isinstance(item, dict) for item in waiting):
            raise TypeError("waiting")
        if block is not None and not isinstance(block, dict):
            raise TypeError("block")
        if stage not in ("", "prompt", "response", "fields"):
            raise ValueError("stage")
        if not isinstance(dump_dirs, list) or not all(isinstance(item, str) for item in dump_dirs):
            raise TypeError("dump_dirs")
        return cls(file=file, waiting=waiting, block=block, stage=stage, dump_dirs=dump_dirs)

    # -- feeding --
    def feed_lines(self, lines: Sequence[str] | pl.Series, *, first_line: int) -> None:
        """Read ``lines`` (complete lines, numbered from ``first_line``).

        Outside a print only the lines holding a marker are looked at (found in one vectorised pass); the
        lines themselves are taken out of the series a window at a time, where they are needed.
        """
        series = lines if isinstance(lines, pl.Series) else pl.Series("line", list(lines), dtype=pl.String)
        count = series.len()
        if not count:
            return
        marked = series.str.contains(_MARKERS).arg_true().to_list()
        # with nothing waiting for a step, only a print or a dump line can matter
        opening = series.str.contains(_OPENING_MARKERS).arg_true().to_list()
        window_start = 0
        window: list[str] = []
        index = 0
        while index < count:
            if self.block is None:
                targets = marked if self.waiting else opening
                at = bisect.bisect_left(targets, index)
                if at == len(targets):
                    return
                index = targets[at]
            if not window_start <= index < window_start + len(window):
                window_start, window = index, series.slice(index, _WINDOW_LINES).to_list()
            self._line(first_line + index, window[index - window_start])
            index += 1

    def idle(self) -> bool:
        """Whether nothing is open or waiting: then lines without a marker cannot matter."""
        return self.block is None and not self.waiting

    def _line(self, number: int, raw: str) -> None:
        prefix, text = _strip(raw)
        if self.block is not None and prefix != self.block["prefix"] and not STEP_START_RE.match(text):
            return  # another process's line inside a print
        if text.startswith("[prompt]") and (len(text) == 8 or text[8] == " "):
            self._finish()
            self.block = {"prefix": prefix, "line": number, "prompt": text[9:], "response": None, "fields": {}}
            self.stage = "prompt"
            return
        if self.block is not None:
            if self._continue(text):
                return
            self._finish()
        self._marker(text)

    def _continue(self, text: str) -> bool:
        """Add ``text`` to the open print; False when it ends the print (the line is then read afresh)."""
        block = self.block
        assert block is not None
        if self.stage == "prompt":
            if text.startswith("[response]") and (len(text) == 10 or text[10] == " "):
                block["response"] = text[11:]
                self.stage = "response"
            elif STEP_START_RE.match(text):
                return False
            else:
                block["prompt"] = _append(block["prompt"], text)
            return True
        if self.stage == "response":
            if text.startswith("[ground_truth]") and (len(text) == 14 or text[14] == " "):
                block["fields"]["ground_truth"] = text[15:]
                self.stage = "fields"
            elif STEP_START_RE.match(text):
                return False
            else:
                block["response"] = _append(block["response"], text)
            return True
        match = _FIELD_RE.match(text)
        if match is None or match.group(1) in _OPENING_FIELDS:
            return False
        block["fields"][match.group(1)] = match.group(2) or ""
        return True

    def _finish(self) -> None:
        """Close the open print; a print cut before its ``[ground_truth]`` is dropped (verl never writes one)."""
        block, stage = self.block, self.stage
        self.block, self.stage = None, ""
        if block is None or stage != "fields":
            return
        self.waiting.append(_record(block, file=self.file))

    def _marker(self, text: str) -> None:
        step_match = STEP_MARK_RE.search(text)
        if step_match is not None:
            kind = "validation" if _VAL_KEY_RE.search(text) else "training"
            self._assign(int(step_match.group(1)), kind)
            return
        dumped = _DUMPED_RE.search(text)
        if dumped is not None:
            folder = dumped.group(1).strip()
            if folder not in self.dump_dirs and len(self.dump_dirs) < _MAX_DUMP_DIRS:
                self.dump_dirs.append(folder)
            self._assign(int(dumped.group(2)), None)
            return
        if _INITIAL_VAL in text:
            for sample in self.waiting:
                sample["kind"] = "validation"

    def _assign(self, step: int, kind: str | None) -> None:
        for sample in self.waiting:
            sample["step"] = step
            if sample["kind"] is None:
                sample["kind"] = kind
        self.done.extend(self.waiting)
        self.waiting = []

    # -- results --
    def take_done(self) -> list[dict[str, Any]]:
        """The finished samples read since the last call."""
        done, self.done = self.done, []
        return done

    def pending(self) -> list[dict[str, Any]]:
        """Samples without a step yet: the waiting ones, plus the print being read once its fields have begun
        (its last ``[key] value`` lines may still be on their way)."""
        pending = [dict(sample) for sample in self.waiting]
        if self.block is not None and self.stage == "fields":
            pending.append(_record(self.block, file=self.file))
        return pending


def _append(text: str | None, line: str) -> str:
    if text is None:
        return line
    if len(text) > MAX_FIELD_CHARS:
        return text
    return f"{text}\n{line}"


def _record(block: dict[str, Any], *, file: str) -> dict[str, Any]:
    fields = dict(block["fields"])
    ground_truth = fields.pop("ground_truth", None)
    score_text = fields.pop("score", None)
    prompt, prompt_cut = _cut(str(block["prompt"] or ""))
    response, response_cut = _cut(str(block["response"] or ""))
    extra = {str(key): str(value) for key, value in fields.items()}
    if score_text is not None and _number(score_text) is None:
        extra["score"] = score_text
    if prompt_cut or response_cut:
        extra["truncated"] = "true"
    return {
        "step": None,
        "kind": None,
        "origin": "log",
        "file": file,
        "line": int(block["line"]),
        "data_source": None,
        "prompt": prompt,
        "response": response,
        "ground_truth": ground_truth,
        "score": _number(score_text),
        "response_tokens": None,
        "extra": json.dumps(extra, ensure_ascii=False, sort_keys=True),
    }


def _frame(records: Sequence[dict[str, Any]]) -> pl.DataFrame:
    if not records:
        return empty_samples()
    return pl.DataFrame(list(records), schema=SAMPLE_SCHEMA, orient="row")


@dataclass(frozen=True)
class SampleLog:
    """One log's samples (:data:`SAMPLE_SCHEMA`, file order) and the dump folders it names."""

    samples: pl.DataFrame
    dump_dirs: tuple[str, ...] = ()


def parse_samples_bytes(data: bytes, *, file: str = "") -> SampleLog:
    """The samples of a whole log (pure).

    Examples
    --------
    >>> log = b"[prompt] 1+1?\\n[response] 2\\n[ground_truth] 2\\n[score] 1.0\\nstep:3 - val-core/a:1.0\\n"
    >>> parse_samples_bytes(log).samples.select("step", "kind", "response", "score").row(0)
    (3, 'validation', '2', 1.0)
    """
    collector = SampleCollector(file=file)
    if not _skippable(data, collector):
        collector.feed_lines(split_lines(data), first_line=1)
    records = [*collector.take_done(), *collector.pending()]
    return SampleLog(samples=_frame(records), dump_dirs=tuple(collector.dump_dirs))


# ------------------------------------------------------------------------------------------------- cache
@dataclass
class _Entry:
    device: int = 0
    inode: int = 0
    size: int = -1
    mtime_ns: int = 0
    ctime_ns: int = 0
    offset: int = 0
    lines: int = 0
    head_crc: int = 0
    tail_crc: int = 0
    collector: SampleCollector = field(default_factory=SampleCollector)
    frames: list[pl.DataFrame] = field(default_factory=list)
    serial: int = 0
    name: str = ""
    """The frame file ``state.json`` names (empty before the first write)."""
    result: SampleLog | None = None
    disk_mark: tuple[int, int, int] | None = None
    """Inode, mtime and size of the ``state.json`` last written or loaded by this process."""


_HEAD_BYTES = 1024
_TAIL_BYTES = 256


class SampleCache:
    """Each log's samples, read once and then only what was appended; thread-safe (one per server).

    The text lives here, once per log, not in each visitor's session. With a ``cache_dir`` the finished
    samples (``samples-N.parquet``) and the reading state (``state.json``) are kept in
    ``<cache_dir>/samples/<hash of the path>/``; a restart goes on from the offset. A file that shrank, was
    replaced or rewritten (its head or the bytes before the offset differ) is read again from the start.
    Writing problems are swallowed: the disk copy only saves a read.
    """

    def __init__(self, cache_dir: Path | None = None, *, lock_wait_s: float = locks.WAIT_S) -> None:
        self.cache_dir = cache_dir
        self.lock_wait_s = lock_wait_s
        self._entries: dict[str, _Entry] = {}
        self._lock = threading.Lock()
        self._path_locks: dict[str, threading.Lock] = {}
        self._dumps: dict[str, tuple[tuple[int, int], ParsedDump]] = {}
        self.reads = 0
        """How many times bytes of a log were read (for tests)."""

    def read(self, path: str | Path) -> SampleLog:
        """The samples of the log at ``path``.

        Raises
        ------
        LogReadError
            The file is missing, not a regular file, or cannot be read.
        """
        key = os.path.abspath(path)
        with self._lock:
            path_lock = self._path_locks.setdefault(key, threading.Lock())
        with path_lock:
            return self._read(key)

    def is_current(self, path: str | Path) -> bool:
        """Whether :meth:`read` would return at once: the log was read and has not changed since."""
        key = os.path.abspath(path)
        entry = self._entries.get(key)
        if entry is None or entry.result is None:
            return False
        try:
            stat = os.stat(key)
        except OSError:
            return False
        return (entry.size, entry.mtime_ns, entry.ctime_ns, entry.inode, entry.device) == (
            stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino, stat.st_dev,
        )  # fmt: skip

    def read_dump(self, path: Path, *, kind: str | None) -> pl.DataFrame:
        """One ``<step>.jsonl`` dump file, read again only when its size or mtime changed; unreadable: empty."""
        return self.read_dump_checked(path, kind=kind).frame

    def read_dump_checked(self, path: Path, *, kind: str | None) -> ParsedDump:
        """:meth:`read_dump` with what could not be read of the file (:class:`ParsedDump`)."""
        key = os.path.abspath(path)
        try:
            info = os.stat(key)
            identity = (info.st_size, info.st_mtime_ns)
            kept = self._dumps.get(key)
            if kept is not None and kept[0] == identity:
                return kept[1]
            with open(key, "rb") as handle:
                data = handle.read(MAX_DUMP_BYTES + 1)
        except OSError as error:
            reason = f"cannot read: {error.strerror or error}"
            return ParsedDump(empty_samples(), (LogReadError(reason, path=key).describe(),))
        parsed = parse_dump(data[:MAX_DUMP_BYTES], file=key, kind=kind)
        if len(data) > MAX_DUMP_BYTES:
            cut = LogReadError(f"larger than {MAX_DUMP_BYTES} bytes: the rest is left out", path=key).describe()
            parsed = ParsedDump(parsed.frame, (*parsed.problems, cut))
        with self._lock:
            self._dumps[key] = (identity, parsed)
        return parsed

    # -- internals --
    def _read(self, key: str) -> SampleLog:
        try:
            stat = os.stat(key)
        except FileNotFoundError as error:
            raise LogReadError("no such file", path=key) from error
        except OSError as error:
            raise LogReadError(f"cannot read: {error.strerror or error}", path=key) from error
        if not os.path.isfile(key):
            raise LogReadError("not a regular file", path=key)
        entry = self._entries.get(key)
        if entry is None:
            entry = self._load(key) or _Entry(collector=SampleCollector(file=key))
            self._entries[key] = entry
        if _current(entry, stat):
            return entry.result  # type: ignore[return-value]
        folder = self._folder(key)
        if folder is None:
            return self._update(key, entry, stat, write=True)
        digest = folder.name
        try:
            held = locks.acquire(
                folder.parent.parent / LOCKS_FOLDER / f"samples-{digest}.lock", wait_s=self.lock_wait_s
            )
            write = held is not None
        except OSError:
            held, write = None, True  # a cache folder that cannot be written: the write fails quietly as well
        try:
            if held is not None:
                entry = self._reloaded(key, entry, folder)
                if _current(entry, stat):
                    return entry.result  # type: ignore[return-value]
            return self._update(key, entry, stat, write=write)
        finally:
            if held is not None:
                held.release()

    def _reloaded(self, key: str, entry: _Entry, folder: Path) -> _Entry:
        """``entry``, or the entry on disk when another process wrote one since this one's last look."""
        try:
            mark = file_mark(os.stat(folder / "state.json"))
        except OSError:
            return entry
        if mark == entry.disk_mark:
            return entry
        loaded = self._load(key)
        if loaded is None or loaded.offset < entry.offset:
            return entry
        self._entries[key] = loaded
        return loaded

    def _update(self, key: str, entry: _Entry, stat: os.stat_result, *, write: bool) -> SampleLog:
        try:
            with open(key, "rb") as handle:
                if not _same_file(entry, stat, handle):
                    entry = _Entry(collector=SampleCollector(file=key))
                    self._entries[key] = entry
                added = self._advance(entry, handle)
        except OSError as error:
            self._entries.pop(key, None)
            raise LogReadError(f"cannot read: {error.strerror or error}", path=key) from error
        entry.size, entry.mtime_ns, entry.ctime_ns = stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns
        entry.inode, entry.device = stat.st_ino, stat.st_dev
        done = pl.concat(entry.frames) if len(entry.frames) > 1 else (entry.frames[0] if entry.frames else None)
        if done is not None:
            entry.frames = [done]
        pending = _frame(entry.collector.pending())
        samples = pending if done is None else pl.concat([done, pending])
        entry.result = SampleLog(samples=samples, dump_dirs=tuple(entry.collector.dump_dirs))
        if write:
            self._persist(key, entry, added=added)
        elif added:
            entry.name = ""  # the disk copy lacks these samples: the next write writes the frame
        return entry.result

    def _advance(self, entry: _Entry, handle: Any) -> bool:
        """Read the complete lines after the offset; True when finished samples were added."""
        self.reads += 1
        handle.seek(entry.offset)
        if entry.offset == 0:
            entry.head_crc = 0
        carry = b""
        added = False
        while True:
            block = handle.read(BLOCK_BYTES)
            if not block:
                break
            data = carry + block
            end = complete_end(data)
            if end == 0 and len(data) > MAX_LINE_BYTES:
                # a line longer than any verl print: counted and passed over, never held
                newline = data.find(b"\n")
                end = len(data) if newline < 0 else newline + 1
            carry = data[end:]
            if end:
                complete = data[:end]
                if _skippable(complete, entry.collector):
                    entry.lines += count_lines(complete)
                else:
                    lines = split_lines(complete)
                    entry.collector.feed_lines(lines, first_line=entry.lines + 1)
                    entry.lines += lines.len()
                entry.offset += end
                done = entry.collector.take_done()
                if done:
                    entry.frames.append(_frame(done))
                    added = True
        handle.seek(0)
        head = handle.read(min(_HEAD_BYTES, entry.offset))
        entry.head_crc = zlib.crc32(head)
        start = max(0, entry.offset - _TAIL_BYTES)
        handle.seek(start)
        entry.tail_crc = zlib.crc32(handle.read(entry.offset - start))
        return added

    def _folder(self, key: str) -> Path | None:
        if self.cache_dir is None:
            return None
        digest = hashlib.sha1(key.encode("utf-8", "surrogatepass")).hexdigest()[:20]
        return self.cache_dir / SAMPLES_FOLDER / digest

    def _persist(self, key: str, entry: _Entry, *, added: bool) -> None:
        """Write the frame (when samples were added) and then the state naming it; a failed write (a full
        disk) leaves the previous files as they were and no temporary file behind."""
        folder = self._folder(key)
        if folder is None:
            return
        # temporary names no other process or thread picks; a frame file is never written over
        unique = f"{os.getpid()}.{threading.get_ident()}.{secrets.token_hex(4)}"
        temporaries = [folder / f".samples.parquet.{unique}.tmp", folder / f".state.json.{unique}.tmp"]
        old = entry.serial
        try:
            folder.mkdir(parents=True, exist_ok=True)
            serial, name = old, entry.name
            if added or not old or not name:
                serial = old + 1
                name = f"samples-{serial}-{os.getpid()}-{secrets.token_hex(6)}.parquet"
                frame = entry.frames[0] if entry.frames else empty_samples()
                frame.write_parquet(temporaries[0])
                os.replace(temporaries[0], folder / name)
            state = {
                "version": _CACHE_VERSION,
                "path": key,
                "device": entry.device,
                "inode": entry.inode,
                "size": entry.size,
                "mtime_ns": entry.mtime_ns,
                "ctime_ns": entry.ctime_ns,
                "offset": entry.offset,
                "lines": entry.lines,
                "head_crc": entry.head_crc,
                "tail_crc": entry.tail_crc,
                "serial": serial,
                "name": name,
                "collector": entry.collector.to_state(),
            }
            temporaries[1].write_text(json.dumps(state, ensure_ascii=False), encoding="utf-8")
            mark = file_mark(os.stat(temporaries[1]))  # a rename keeps the inode and mtime
            os.replace(temporaries[1], folder / "state.json")
            entry.serial, entry.name, entry.disk_mark = serial, name, mark
            now = time.time()
            for stale in folder.iterdir():
                if stale.name.endswith(".parquet") and stale.name != name:
                    stale.unlink(missing_ok=True)
                elif stale.name.endswith(".tmp") and now - stale.stat().st_mtime > locks.STALE_S:
                    stale.unlink(missing_ok=True)  # left by a writer that was killed
        except (OSError, pl.exceptions.PolarsError):
            for temporary in temporaries:
                with contextlib.suppress(OSError):
                    temporary.unlink(missing_ok=True)

    def _load(self, key: str) -> _Entry | None:
        """The entry on disk, or None. A state whose frame file is gone was replaced by another process's
        write after it was read: it is read once more."""
        folder = self._folder(key)
        if folder is None:
            return None
        for _ in range(2):
            try:
                with open(folder / "state.json", "rb") as handle:
                    mark = file_mark(os.fstat(handle.fileno()))
                    state = json.loads(handle.read())
                if not isinstance(state, dict) or state.get("version") != _CACHE_VERSION or state.get("path") != key:
                    return None
                numbers = ("device", "inode", "size", "mtime_ns", "ctime_ns", "offset", "lines", "head_crc",
                           "tail_crc", "serial")  # fmt: skip
                if not all(isinstance(state.get(name), int) and state[name] >= 0 for name in numbers):
                    return None
                name = state.get("name")
                if not isinstance(name, str) or _FRAME_NAME.fullmatch(name) is None:
                    return None
                try:
                    frame = pl.read_parquet(folder / name)
                except FileNotFoundError:
                    continue
                if dict(frame.schema) != SAMPLE_SCHEMA:
                    return None
                collector = SampleCollector.from_state(state["collector"], file=key)
            except (OSError, ValueError, TypeError, KeyError, pl.exceptions.PolarsError):
                return None
            entry = _Entry(collector=collector, frames=[frame], serial=state["serial"], name=name, disk_mark=mark)
            for number in numbers:
                setattr(entry, number, state[number])
            return entry  # no result yet: the file is looked at once (_same_file) and what was appended is read
        return None


_FRAME_NAME = re.compile(r"samples-[0-9]+-[0-9]+-[0-9a-f]+\.parquet")


def _current(entry: _Entry, stat: os.stat_result) -> bool:
    """Whether ``entry.result`` answers for the file as ``stat`` describes it."""
    return entry.result is not None and (entry.size, entry.mtime_ns, entry.ctime_ns, entry.inode, entry.device) == (
        stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino, stat.st_dev,
    )  # fmt: skip


MAX_DUMP_BYTES = 256 * 1024 * 1024
"""Largest dump file read (bytes); the rest of a bigger one is left out."""


def _same_file(entry: _Entry, stat: os.stat_result, handle: Any) -> bool:
    """Whether the bytes read before are still the start of the file (so only the rest needs reading)."""
    if entry.offset == 0:
        return True
    if (entry.inode, entry.device) != (stat.st_ino, stat.st_dev) or stat.st_size < entry.offset:
        return False
    handle.seek(0)
    if zlib.crc32(handle.read(min(_HEAD_BYTES, entry.offset))) != entry.head_crc:
        return False
    start = max(0, entry.offset - _TAIL_BYTES)
    handle.seek(start)
    return zlib.crc32(handle.read(entry.offset - start)) == entry.tail_crc


# ------------------------------------------------------------------------------------------------- dumps
def _as_text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def _score(value: Any) -> float | None:
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float) and math.isfinite(value):
        return float(value)
    return _number(value) if isinstance(value, str) else None


def parse_dump_jsonl(data: bytes, *, file: str = "", kind: str | None = None) -> pl.DataFrame:
    """One verl generation dump (``<step>.jsonl``) -> sample frame (pure).

    Records that are not JSON objects are skipped. ``step`` comes from the record, else from the file name.

    Examples
    --------
    >>> row = b'{"input": "1+1?", "output": "2", "gts": "2", "score": 1.0, "step": 5, "acc": true}\\n'
    >>> parse_dump_jsonl(row, kind="validation").select("step", "score", "extra").row(0)
    (5, 1.0, '{"acc": "true"}')
    """
    return parse_dump(data, file=file, kind=kind).frame


@dataclass(frozen=True)
class ParsedDump:
    """One dump file read: its samples and what could not be read of it."""

    frame: pl.DataFrame
    """The samples of the records that are JSON objects (:data:`SAMPLE_SCHEMA`)."""
    problems: tuple[str, ...] = ()
    """One ``file:line: reason`` per record that is not a JSON object, and one for a file cut at
    :data:`MAX_DUMP_BYTES`."""


def parse_dump(data: bytes, *, file: str = "", kind: str | None = None) -> ParsedDump:
    """:func:`parse_dump_jsonl` with the damaged records named (:attr:`ParsedDump.problems`): a damaged line
    costs that record only."""
    stem = Path(file).stem if file else ""
    file_step = int(stem) if stem.isdigit() else None
    records: list[dict[str, Any]] = []
    problems: list[str] = []
    for number, raw in enumerate(data.decode("utf-8", "replace").splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            item = json.loads(raw)
        except ValueError:
            problems.append(LogReadError("not a JSON record (left out)", path=file, line=number).describe())
            continue
        if not isinstance(item, dict):
            problems.append(LogReadError("not a JSON object (left out)", path=file, line=number).describe())
            continue
        step = item.get("step")
        step = step if isinstance(step, int) and not isinstance(step, bool) else file_step
        tokens = item.get("response_length")
        prompt, prompt_cut = _cut(_as_text(item.get("input")) or "")
        response, response_cut = _cut(_as_text(item.get("output")) or "")
        known = {"input", "output", "gts", "score", "step", "data_source", "response_length"}
        extra = {str(key): _as_text(value) or "" for key, value in item.items() if key not in known}
        if prompt_cut or response_cut:
            extra["truncated"] = "true"
        records.append(
            {
                "step": step,
                "kind": kind,
                "origin": "dump",
                "file": file,
                "line": number,
                "data_source": _as_text(item.get("data_source")),
                "prompt": prompt,
                "response": response,
                "ground_truth": _as_text(item.get("gts")),
                "score": _score(item.get("score")),
                "response_tokens": int(tokens) if isinstance(tokens, int | float) and math.isfinite(tokens) else None,
                "extra": json.dumps(extra, ensure_ascii=False, sort_keys=True),
            }
        )
    return ParsedDump(_frame(records), tuple(problems))


@dataclass(frozen=True)
class DumpFolders:
    """An experiment's dump folders (:func:`find_dump_dirs`)."""

    found: tuple[tuple[Path, str | None], ...] = ()
    """``(folder, kind)`` of each folder read, once each: inside an allowed folder."""
    refused: tuple[Path, ...] = ()
    """Folders the logs name that exist but lie outside every allowed folder (a symlink leaving them counts as
    outside): not read, to be named to the reader with how to allow them."""


def _inside(real: str, allowed: Sequence[str]) -> bool:
    return any(real == folder or real.startswith(folder.rstrip(os.sep) + os.sep) for folder in allowed)


def find_dump_dirs(
    config: dict[str, Any] | None, folder: Path, *, named: Iterable[str] = (), allowed: Sequence[Path]
) -> DumpFolders:
    """Dump folders of an experiment that exist, inside the ``allowed`` folders (the log roots and the
    ``dump_roots`` setting): a log must not make rlmon show any folder of the machine to its visitors.

    Looked for: ``trainer.rollout_data_dir`` (training) and ``trainer.validation_data_dir`` (validation) of
    the config dump, then the folders ``Dumped generations to`` lines name (kind unknown). Each is taken as
    written when it is an existing folder inside an allowed folder (by its real path: a symlink out of them
    is outside), else its last part inside the experiment folder ``folder`` when that is. An existing folder
    outside every allowed folder is :attr:`DumpFolders.refused` (unless another place of the same name was
    read instead).
    """
    wanted: list[tuple[str, str | None]] = []
    trainer = config.get("trainer") if isinstance(config, dict) else None
    if isinstance(trainer, dict):
        for key, dump_kind in zip(DUMP_KEYS, ("training", "validation"), strict=True):
            value = trainer.get(key)
            if isinstance(value, str) and value.strip() and value.strip() != "null":
                wanted.append((value.strip(), dump_kind))
    wanted.extend((name, None) for name in named)
    real_allowed = [os.path.realpath(item) for item in allowed]
    found: list[tuple[Path, str | None]] = []
    refused: list[Path] = []
    seen: set[str] = set()
    for name, kind in wanted:
        outside: Path | None = None
        for candidate in (Path(name), Path(os.path.abspath(folder)) / Path(name).name):
            try:
                if not candidate.is_absolute() or not candidate.is_dir():
                    continue
                real = os.path.realpath(candidate)
            except (OSError, ValueError):
                continue
            if not _inside(real, real_allowed):
                outside = outside or candidate
                continue
            if real not in seen:
                seen.add(real)
                found.append((candidate, kind))
            outside = None
            break
        if outside is not None and outside not in refused:
            refused.append(outside)
    return DumpFolders(found=tuple(found), refused=tuple(refused))


def read_dump_dir(
    folder: Path, *, kind: str | None, cache: SampleCache, problems: list[str] | None = None
) -> pl.DataFrame:
    """Every ``<step>.jsonl`` of a dump folder, in step order (read-only; an unreadable folder: no rows).
    What could not be read (damaged records, unreadable files) is added to ``problems`` when given."""
    try:
        names = sorted(
            (int(entry.name[:-6]), entry.path)
            for entry in os.scandir(folder)
            if entry.name.endswith(".jsonl") and entry.name[:-6].isdigit() and entry.is_file()
        )
    except OSError:
        return empty_samples()
    frames: list[pl.DataFrame] = []
    for _, path in names:
        parsed = cache.read_dump_checked(Path(path), kind=kind)
        frames.append(parsed.frame)
        if problems is not None:
            problems.extend(parsed.problems)
    return pl.concat(frames) if frames else empty_samples()


@dataclass(frozen=True)
class ExperimentSamples:
    """What :func:`read_samples` found of an experiment."""

    frame: pl.DataFrame
    """The samples (:data:`SAMPLE_SCHEMA`)."""
    refused: tuple[Path, ...] = ()
    """Dump folders the logs name outside the allowed folders, not read (:attr:`DumpFolders.refused`)."""
    problems: tuple[str, ...] = ()
    """What could not be read of the dump files: one ``file:line: reason`` each (:attr:`ParsedDump.problems`)."""


def read_samples(
    files: Sequence[Path],
    *,
    folder: Path,
    config: dict[str, Any] | None,
    cache: SampleCache,
    allowed: Sequence[Path],
) -> ExperimentSamples:
    """An experiment's samples: the prints of its console logs (files in order), then the records of its dump
    folders inside the ``allowed`` folders (:func:`find_dump_dirs`). ``.jsonl`` files among ``files`` (verl's
    file logger) hold no prints and are passed over.

    Raises
    ------
    LogReadError
        A log file cannot be read.
    """
    frames: list[pl.DataFrame] = []
    named: list[str] = []
    for path in files:
        if str(path).lower().endswith((".jsonl", ".ndjson")):
            continue
        log = cache.read(path)
        frames.append(log.samples)
        named.extend(log.dump_dirs)
    dumps = find_dump_dirs(config, folder, named=named, allowed=allowed)
    problems: list[str] = []
    for dump_dir, kind in dumps.found:
        frames.append(read_dump_dir(dump_dir, kind=kind, cache=cache, problems=problems))
    frame = pl.concat(frames) if frames else empty_samples()
    return ExperimentSamples(frame, refused=dumps.refused, problems=tuple(problems))


def read_training_dumps(
    config: dict[str, Any] | None, folder: Path, *, cache: SampleCache, allowed: Sequence[Path]
) -> ExperimentSamples:
    """The records of the training dump folder the config names (``trainer.rollout_data_dir``), inside the
    ``allowed`` folders: what :mod:`rlmon.analysis.outcomes` reads, without scanning the console logs."""
    dumps = find_dump_dirs(config, folder, allowed=allowed)
    problems: list[str] = []
    frames = [
        read_dump_dir(dump_dir, kind=kind, cache=cache, problems=problems)
        for dump_dir, kind in dumps.found
        if kind == "training"
    ]
    frame = pl.concat(frames) if frames else empty_samples()
    return ExperimentSamples(frame, refused=dumps.refused, problems=tuple(problems))


# --------------------------------------------------------------------------------------------- choosing
def passed(score: pl.Expr) -> pl.Expr:
    """A sample passes when its score is above 0 (verl's rule-based rewards give 1 or 0, DAPO's 1 or -1)."""
    return score > 0


def filter_samples(
    samples: pl.DataFrame,
    *,
    step: int | None = None,
    data_source: str | None = None,
    outcome: str | None = None,
    text: str = "",
) -> pl.DataFrame:
    """Samples of one step, one data source, passing (``outcome="pass"``) or failing (``"fail"``), holding
    ``text`` (case-insensitive, literal) in the prompt, response or ground truth. None/"" selects all."""
    chosen = samples
    if step is not None:
        chosen = chosen.filter(pl.col("step") == step)
    if data_source:
        chosen = chosen.filter(pl.col("data_source") == data_source)
    if outcome == "pass":
        chosen = chosen.filter(passed(pl.col("score")))
    elif outcome == "fail":
        chosen = chosen.filter(~passed(pl.col("score")))
    needle = text.strip().lower()
    if needle:
        hit = pl.lit(False)
        for column in ("prompt", "response", "ground_truth"):
            hit = hit | pl.col(column).fill_null("").str.to_lowercase().str.contains(needle, literal=True)
        chosen = chosen.filter(hit)
    return chosen


def samples_for_prompt(samples: pl.DataFrame, prompt: str, *, step: int | None = None) -> pl.DataFrame:
    """The samples of one prompt (exact text), optionally at one step; in step order."""
    chosen = samples.filter(pl.col("prompt") == prompt)
    if step is not None:
        chosen = chosen.filter(pl.col("step") == step)
    return chosen.sort("step", nulls_last=True, maintain_order=True)


_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def to_text(samples: pl.DataFrame) -> str:
    """Samples for a terminal: a header line per sample, then each field with its line breaks. Control
    characters (a dump's own escape sequences) are shown as ``\ufffd``, never sent to the terminal."""
    parts: list[str] = []
    for row in samples.iter_rows(named=True):
        step = UNKNOWN if row["step"] is None else str(row["step"])
        score = UNKNOWN if row["score"] is None else f"{row['score']:g}"
        length = (
            f"{row['response_tokens']} tokens"
            if row["response_tokens"] is not None
            else f"{len(row['response'])} chars"
        )
        where = f"{row['file']}:{row['line']}"
        parts.append(f"=== step {step} · {row['kind'] or UNKNOWN} · score {score} · {length} · {where}")
        parts.append(f"[prompt]\n{row['prompt']}")
        parts.append(f"[response]\n{row['response']}")
        parts.append(f"[ground_truth] {row['ground_truth'] if row['ground_truth'] is not None else UNKNOWN}")
        extra = json.loads(row["extra"] or "{}")
        parts.extend(f"[{key}] {value}" for key, value in extra.items())
        parts.append("")
    return _CONTROL_RE.sub("\ufffd", "\n".join(parts))
