"""Per-log cache: a log is parsed once, and a refresh parses only what was appended.

For each log file the cache keeps the step frame and the :class:`~rlmon.logs.parse.MetaCollector` state of every
*complete* line read so far, plus the file's identity (device, inode), its size, mtime and ctime when it was
read, the byte offset where the complete lines end, and fingerprints of the file's head and of the bytes just
before that offset. On :meth:`LogCache.read`:

* same inode, size, mtime and ctime as last time: the cached result is returned, nothing is read;
* the file grew and its fingerprints still match: only the bytes after the offset are read and parsed (an
  append changes size, mtime and ctime alike);
* it shrank, was replaced (other inode) or rewritten (a fingerprint differs), or it has the same size but
  another ctime: it is parsed again from the start. The last rule catches a copy over the file that keeps
  its size and puts its mtime back (``cp -p``): the fingerprints cannot see a change in the middle, but the
  ctime cannot be set back (changing only the mode or owner also moves it, and costs one parse).

A trailing line without a line break is parsed provisionally: it shows in the result but is not folded into
the cached state, so the next refresh reads it again, complete. While the trainer may still be writing it,
a number in it is not shown before its digits are complete: only the ``key:value`` pairs that a `` - ``
separator follows count (``step:7 - a:0.5 - b:36`` shows ``a`` but not ``b``, which may be ``369821`` when
the line is done), and a file-logger (JSONL) line does not count at all. Once the file has not changed for
:data:`QUIET_S` seconds it is taken as finished (a log whose last line lacks its newline) and the whole
line counts; a trainer killed mid-line leaves a cut number that then shows, which no rule can tell apart.

A line longer than :data:`~rlmon.logs.parse.MAX_LINE_BYTES` (16 MB, line break included) is skipped with the warning
``line N: longer than 16 MB; skipped`` in ``RunMeta.warnings``, as a cold parse skips it: memory stays bounded
whatever the file holds, and the offset moves past the line so it is not read again. While such a line has
no end yet, the cache remembers how far it was scanned rather than holding it, and goes on from there.

Persistence (when a cache folder is given, outside the log folders): per log, ``state.json`` plus a base
frame and one delta frame holding the rows the last N refreshes added, so a refresh writes only a few rows
and a restart reads two frames; the delta is folded into the base every :data:`MAX_DELTAS` refreshes.
``state.json`` names its frame files with their row counts and CRC-32s. A frame file is never written over:
each write makes a file of a new name (``base-<pid>-<random>.parquet``, or ``.arrow`` for a frame of thousands of
keys, and ``delta-<pid>-<random>.arrow``: a few rows of many columns, which Arrow IPC writes 5x faster than
Parquet), through a temporary
file of a name unique to the writing process and thread, renamed into place; ``state.json`` is written (the
same way) after the files it names, and the files it no longer names are removed last. So a crash at any
point leaves a consistent cache, and a reader never sees a half-written file. A restart loads the state and
continues from the offset; what it loads is checked first (every field of ``state.json`` for its type and
range, each frame file against the row count and CRC-32 recorded), and an entry that fails any check is
parsed again. rlmon never writes into a log folder. A server reading many logs at start puts these writes off
(:meth:`LogCache.putting_off_writes`) and makes them once its first screen is drawn.

Memory: by default every frame read is held in memory. With ``memory_mb`` (the app's ``frame_memory_mb``
setting), the frames held are counted, and once they pass that size the frames least recently asked for are let
go, those of logs whose cache folder entry holds exactly what memory holds (a log whose write was put off or
failed keeps its frame). What is kept of such a log is small: its identity, offsets, fingerprints, the
metadata collector's state and the rows of a provisional last line. A read of it reads its frames back from
the cache folder (checked as a restart checks them; nothing is parsed again), and
:meth:`LogCache.read_columns` reads only the columns asked for, without holding them. A frame another process
replaced meanwhile (it wrote the log's entry since) is found as a restart finds it.

Several processes (app replicas on several machines, the CLI) may share one cache folder, NFS included. One
process at a time reads a log and writes its entry, holding the log's lock file in ``<cache>/locks/`` (see
:mod:`rlmon.logs.locks`: made atomically, also on NFS; broken when stale). A process that takes the lock first
loads what another process wrote since its own last look, so a log is parsed once for all. One that waited
``lock_wait_s`` in vain reads the log in memory and writes nothing. A reader that loses a race with a writer
(the state it read names files already replaced) reads the state again once, and else parses.

The disk copy is only a saving: a cache folder that cannot be written (full disk, read-only mount) or read
costs a parse from the start after a restart, nothing else. Such errors never reach the caller and are never
blamed on the log; :attr:`LogCache.write_problem` says what went wrong, and writing is tried again after
:data:`WRITE_RETRY_S` seconds. Temporary files of a failed write are removed. Those of a writer that was killed
(``kill -9`` mid-write) are removed once older than a stale lock (:data:`rlmon.logs.locks.STALE_S`: a younger
one may be another process's, mid-write): in the folder being written, on each write, and in the whole cache
folder (:func:`sweep_temporaries`: every folder of :data:`CACHE_FOLDERS`, the digests and the alert state included)
when a cache starts and then at most every :data:`SWEEP_S` seconds of
writing, so one left beside a log that never changes again goes too.
"""

from __future__ import annotations

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
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from rlmon.errors import LogReadError
from rlmon.logs import checksum, locks
from rlmon.logs.lines import complete_end, file_mark, split_lines
from rlmon.logs.parse import (
    BLOCK_BYTES,
    LINE,
    MAX_LINE_BYTES,
    PARSER_VERSION,
    ChunkPipeline,
    MetaCollector,
    ParsedLog,
    bound_keys,
    keys_dropped_warning,
    long_line_warning,
    merge_steps,
    parse_chunk,
    parse_jsonl_chunk,
)
from rlmon.schema import MAX_KEYS, STEP, RunMeta, empty_steps

__all__ = [
    "ALERTS_FOLDER",
    "ALERT_NOTES_FOLDER",
    "CACHE_FOLDERS",
    "DIGESTS_FOLDER",
    "LOCKS_FOLDER",
    "LOGS_FOLDER",
    "MAX_DELTAS",
    "QUIET_S",
    "SAMPLES_FOLDER",
    "SWEEP_S",
    "WRITE_RETRY_S",
    "LogCache",
    "read_log",
    "read_logs",
    "sweep_temporaries",
    "temporary_folders",
    "write_text_atomically",
]

MAX_DELTAS = 16
QUIET_S = 600.0
"""Seconds a file must stay unchanged (by its mtime) before its unterminated last line is read in full.
Long, like the app's ``stall_min_s``: a trainer whose output is block-buffered can leave a line cut
mid-number for as long as a step takes, and a number shown too early is wrong, one shown late only late."""
WRITE_RETRY_S = 60.0
"""After a failed write to the cache folder, seconds before writing is tried again (a full disk should not
cost a failed full write on every refresh)."""
SWEEP_S = 300.0
"""Seconds of writing between two sweeps of the whole cache folder for temporary files killed writers left."""
_HEAD_BYTES = 1024
_TAIL_BYTES = 256
_PARQUET_COLUMNS = 2000
"""Widest base frame written as Parquet; a wider one is written as Arrow IPC (see :meth:`LogCache._persist`)."""
LOCKS_FOLDER = "locks"
"""The lock files of the logs' entries (:mod:`rlmon.logs.locks`)."""
LOGS_FOLDER = "logs"
"""One folder per log: its ``state.json`` and frame files (:class:`LogCache`)."""
SAMPLES_FOLDER = "samples"
"""One folder per dump folder read: its samples frame and state (:mod:`rlmon.logs.samples`)."""
DIGESTS_FOLDER = "experiments"
"""One digest per experiment, what a restart shows before the logs are read again (:mod:`rlmon.app.digests`)."""
ALERTS_FOLDER = "alerts"
ALERT_NOTES_FOLDER = "alerts/processes"
"""Each watcher's note of itself (:mod:`rlmon.alerts.peers`)."""
"""The alert watcher's state and its sender's lease (:mod:`rlmon.alerts.state`, :mod:`rlmon.alerts.lease`)."""
CACHE_FOLDERS: dict[str, bool] = {
    "": False,
    LOCKS_FOLDER: False,
    LOGS_FOLDER: True,
    SAMPLES_FOLDER: True,
    DIGESTS_FOLDER: False,
    ALERTS_FOLDER: False,
    ALERT_NOTES_FOLDER: False,
}
"""Every folder of the cache folder that rlmon writes through temporary files, the cache folder itself (``""``:
the colour book) included, and whether it holds one such folder per entry (True) or the files themselves: the
folders :func:`sweep_temporaries` looks in. A writer names its folder with one of these constants; a new one goes
here. The cache folder's other folders are log roots rlmon made (``demo/``, the object-store mirror
``objects/``): they are never swept, as rlmon never writes into a log folder."""


def temporary_folders(cache_dir: Path) -> list[Path]:
    """The folders of ``cache_dir`` that may hold temporary files (:data:`CACHE_FOLDERS`), those that exist."""
    folders = []
    for name, per_entry in CACHE_FOLDERS.items():
        folder = cache_dir / name if name else cache_dir
        if not per_entry:
            folders.append(folder)
            continue
        with contextlib.suppress(OSError):
            folders.extend(Path(item.path) for item in os.scandir(folder) if item.is_dir(follow_symlinks=False))
    return folders


def sweep_temporaries(cache_dir: Path, *, older_than_s: float = locks.STALE_S, now: float | None = None) -> int:
    """Remove the temporary files (``.<name>.<pid>.<thread>.<random>.tmp``) that writers killed mid-write left in
    ``cache_dir``: in every folder rlmon writes temporaries in (:func:`temporary_folders`: the folder itself, the
    locks, each log's and dump folder's entry, the experiments' digests, the alert state). Only files older than
    ``older_than_s`` seconds go: a younger one may be another process's, mid-write. Folders that cannot be listed
    are passed over. Returns how many files were removed.
    """
    now = time.time() if now is None else now
    removed = 0
    for folder in temporary_folders(cache_dir):
        try:
            items = [item for item in os.scandir(folder) if item.name.startswith(".") and item.name.endswith(".tmp")]
        except OSError:
            continue
        for item in items:
            try:
                if now - item.stat(follow_symlinks=False).st_mtime > older_than_s:
                    os.unlink(item.path)
                    removed += 1
            except OSError:
                continue
    return removed


def _crc(data: bytes) -> int:
    """CRC-32 of ``data``; a frame file's on two threads (:mod:`rlmon.logs.checksum`)."""
    return checksum.crc32(data)


def _file_crc(path: Path) -> int:
    """CRC-32 of the file at ``path`` (as :func:`_crc` of its bytes), read in blocks: a frame just written is not
    read back whole into memory, which for a wide one would add its size to the writer's peak."""
    crc = 0
    with open(path, "rb") as handle:
        while block := handle.read(4 << 20):
            crc = zlib.crc32(block, crc)
    return crc & 0xFFFFFFFF


@dataclass
class _Entry:
    """What the cache knows of one log file."""

    path: str
    device: int = 0
    inode: int = 0
    size: int = 0
    mtime_ns: int = 0
    ctime_ns: int = 0
    offset: int = 0
    """Bytes of complete lines parsed into ``steps``/``collector`` (over-long lines skipped included)."""
    long_line_at: int = 0
    """When the line at ``offset`` is over-long and has no end yet: how far it was scanned (else 0)."""
    lines: int = 0
    """Complete lines parsed (``\\r`` counts as a line break)."""
    head_len: int = 0
    head_crc: int = 0
    tail_crc: int = 0
    steps: pl.DataFrame | None = field(default_factory=empty_steps)
    """The rows of the complete lines; None while they are not held in memory (``files`` holds them)."""
    collector: MetaCollector = field(default_factory=MetaCollector)
    meta: RunMeta | None = None
    """The metadata of the last answer (complete state plus the provisional last line); None before the first."""
    extra: pl.DataFrame | None = None
    """The rows the provisional last line adds to the last answer (None when it adds none)."""
    result: ParsedLog | None = None
    """The last answer, while its frame is held in memory (rebuilt from ``steps``, ``extra`` and ``meta``)."""
    shown: tuple[int, int] = (0, 0)
    """Length and CRC-32 of the part of the unterminated last line that ``result`` holds."""
    held_back: bool = False
    """The result leaves out part of an unterminated last line that may still be being written: once the
    file is quiet, it is read again even if unchanged."""
    deltas: int = 0
    """Refreshes whose rows the persisted delta holds (0: no delta)."""
    files: list[tuple[str, int, int]] = field(default_factory=list)
    """Name, rows and CRC-32 of the persisted base and of the delta, if any."""
    columns: list[tuple[str, ...]] = field(default_factory=list)
    """The columns of each file of ``files`` (what reading some columns back may ask of it)."""
    since_base: pl.DataFrame | None = None
    """The rows the persisted delta holds (merged over the base they give ``steps``); None when there is no delta
    or it is not held in memory."""
    held_bytes: int = 0
    """Bytes of the frames held in memory (as counted against the cache's ``memory_mb``)."""
    disk_stale: bool = False
    """The disk copy lags behind (a write failed): the next write rewrites all of it."""
    disk_mark: tuple[int, int, int] | None = None
    """Inode, mtime and size of the ``state.json`` this process last wrote or loaded: another differs when
    another process wrote the entry since."""


def _is_jsonl(path: str | Path) -> bool:
    return str(path).lower().endswith((".jsonl", ".ndjson"))


class LogCache:
    """Parsed logs, kept in memory and (optionally) on disk, refreshed incrementally.

    Thread-safe: one instance can serve every visitor of the app.

    Parameters
    ----------
    cache_dir
        Folder for the persisted frames (created when needed); ``None`` keeps everything in memory.
    quiet_s
        Seconds a file must stay unchanged before its unterminated last line is read in full (see the module
        docstring); 0 reads it in full at once.
    clock
        Seconds since the epoch, like :func:`time.time` (tests pass a clock they move by hand).
    lock_wait_s
        Seconds to wait while another process holds a log's lock before reading that log in memory only.
    lock_stale_s
        Age in seconds after which another process's lock on a log is broken (see :mod:`rlmon.logs.locks`).
    max_keys
        Most distinct keys a log keeps (the ``max_keys`` setting, :data:`rlmon.schema.MAX_KEYS`): the keys first
        logged once the bound is reached are dropped (``RunMeta.keys_dropped_line``). A disk copy made under
        another bound is parsed again.
    memory_mb
        Megabytes of step frames held in memory; None holds every frame read. Beyond it, the frames least
        recently asked for that are in the cache folder are let go (see "Memory" in the module docstring).
    """

    def __init__(
        self,
        cache_dir: Path | None = None,
        *,
        quiet_s: float = QUIET_S,
        clock: Callable[[], float] = time.time,
        lock_wait_s: float = locks.WAIT_S,
        lock_stale_s: float = locks.STALE_S,
        max_keys: int = MAX_KEYS,
        memory_mb: float | None = None,
    ) -> None:
        self.cache_dir = cache_dir
        self.max_keys = max_keys
        self.memory_bytes = None if memory_mb is None else int(memory_mb * 1e6)
        """The ``memory_mb`` limit in bytes (None: no limit)."""
        self.quiet_s = quiet_s
        self.lock_wait_s = lock_wait_s
        self.lock_stale_s = lock_stale_s
        self._clock = clock
        self._entries: dict[str, _Entry] = {}
        self._lock = threading.Lock()
        self._path_locks: dict[str, threading.Lock] = {}
        self._retry_at = 0.0
        self.parses = 0
        """How many times bytes were parsed (a full parse or an appended chunk); for tests and benchmarks."""
        self.lock_timeouts = 0
        """How many reads found a log's lock held by another process for ``lock_wait_s`` (read, not written)."""
        self.write_problem: str | None = None
        """None when the last write to the cache folder worked; else one English line saying why it did not,
        naming the folder (``cannot write the cache in /x/cache: No space left on device``)."""
        self._putting_off = 0
        self._put_off: set[str] = set()
        self._held: OrderedDict[str, int] = OrderedDict()
        """Log -> bytes of its frames held in memory, the least recently asked for first."""
        self.held_bytes = 0
        """Bytes of step frames held in memory now (the sum of ``_held``)."""
        self.read_backs = 0
        """How many times a frame not held in memory was read back from the cache folder; for tests."""
        self._swept_at = -math.inf
        self._sweep_all()

    def _sweep_all(self) -> None:
        """:func:`sweep_temporaries` over the cache folder, at most every :data:`SWEEP_S` seconds."""
        now = self._clock()
        if self.cache_dir is None or now - self._swept_at < SWEEP_S:
            return
        self._swept_at = now
        sweep_temporaries(self.cache_dir, older_than_s=self.lock_stale_s, now=time.time())

    # -- public --
    def read(self, path: str | Path) -> ParsedLog:
        """The parsed contents of ``path``, reading only what changed since the last call.

        Raises
        ------
        LogReadError
            The file is missing, not a regular file, or cannot be read.
        """
        key = os.path.abspath(path)
        with self._path_lock(key):
            parsed = self._read_again_if_lost(key)
            self._account(key)
        self._keep_within_memory(key)
        return parsed

    def read_columns(self, path: str | Path, columns: Sequence[str] | None = None) -> pl.DataFrame:
        """``step`` and those of ``columns`` the log holds (None: every column), in that order, of the frame the
        last :meth:`read` of ``path`` returned; the log itself is not looked at again (a log not read yet is read
        first). A frame not held in memory is read back from the cache folder, only these columns, and is not
        held afterwards; with ``columns`` None it is held again.

        Raises
        ------
        LogReadError
            The log was not read yet and cannot be read now.
        """
        key = os.path.abspath(path)
        with self._path_lock(key):
            entry = self._entries.get(key)
            steps: pl.DataFrame | None = None
            if entry is not None and entry.meta is not None and entry.result is None and columns is not None:
                try:
                    steps = self._read_back(key, entry, columns)
                except (OSError, _Lost, pl.exceptions.PolarsError):
                    steps = None  # gone or replaced (another process wrote the entry since): read as usual
            if steps is None:
                if entry is not None and entry.meta is not None:
                    try:
                        steps = self._answer(key, entry).steps
                    except _Lost:
                        steps = None
                if steps is None:
                    steps = self._read_again_if_lost(key).steps
                self._account(key)
            else:
                with self._lock:
                    if key in self._held:
                        self._held.move_to_end(key)
        self._keep_within_memory(key)
        if columns is None:
            return steps
        return steps.select(STEP, *[name for name in dict.fromkeys(columns) if name != STEP and name in steps.columns])

    @contextlib.contextmanager
    def putting_off_writes(self) -> Iterator[None]:
        """Within this block, reads keep what they parse in memory and do not write it to the cache folder:
        :meth:`write_put_off` writes it later. A server reading many logs at start puts off about a fifth of
        that work (Parquet encoding, the files' CRCs) until its first screen is drawn; a process that stops
        before it has written them parses those logs again at its next start, nothing else."""
        with self._lock:
            self._putting_off += 1
        try:
            yield
        finally:
            with self._lock:
                self._putting_off -= 1

    def write_put_off(self) -> int:
        """Write the entries that reads put off (:meth:`putting_off_writes`) and nothing has written since;
        return how many were written. Each log's lock is taken as a read takes it: an entry another process has
        written meanwhile (as far into the log, or further) is loaded, not written over."""
        with self._lock:
            keys = sorted(self._put_off)
            self._put_off.clear()
        written = 0
        for key in keys:
            with self._lock:
                path_lock = self._path_locks.setdefault(key, threading.Lock())
            with path_lock:
                entry = self._entries.get(key)
                if entry is None or not entry.disk_stale or self.cache_dir is None:
                    continue
                held, write = self._take_lock(key)
                try:
                    if held is not None:
                        entry = self._reloaded(key, entry, os.stat(key))
                    if write and entry.disk_stale:
                        self._persist(entry, None, full=True)
                        written += not entry.disk_stale
                except OSError:
                    continue  # the log is gone or unreadable: its next read says so
                finally:
                    if held is not None:
                        held.release()
        return written

    def forget(self, path: str | Path) -> None:
        """Drop what is kept in memory for ``path`` (the disk copy stays)."""
        key = os.path.abspath(path)
        with self._lock:
            self._entries.pop(key, None)
            self.held_bytes -= self._held.pop(key, 0)

    # -- memory --
    def _path_lock(self, key: str) -> threading.Lock:
        with self._lock:
            return self._path_locks.setdefault(key, threading.Lock())

    def _read_again_if_lost(self, key: str) -> ParsedLog:
        """:meth:`_read`; when the entry's frames cannot be read back from the cache folder (another process replaced
        them, or they were damaged), the entry is let go and the log read as after a restart."""
        try:
            return self._read(key)
        except _Lost:
            with self._lock:
                self._entries.pop(key, None)
            return self._read(key)

    def _answer(self, key: str, entry: _Entry) -> ParsedLog:
        """The last answer for ``entry``, its frames read back from the cache folder when they are not held.

        Raises
        ------
        _Lost
            They cannot be read back.
        """
        if entry.result is None:
            assert entry.meta is not None
            self._hold(key, entry)
            assert entry.steps is not None
            steps = entry.steps if entry.extra is None else merge_steps([entry.steps, entry.extra])
            entry.result = ParsedLog(steps=steps, meta=entry.meta)
        return entry.result

    def _hold(self, key: str, entry: _Entry) -> None:
        """Read ``entry``'s frames back from the cache folder unless they are held (each file checked against its
        rows and CRC-32, as a restart checks it).

        Raises
        ------
        _Lost
            A file is gone or differs from what the entry records.
        """
        if entry.steps is not None and (entry.deltas == 0 or entry.since_base is not None):
            return
        folder = self._folder(key)
        if folder is None or not entry.files:
            raise _Lost
        frames = []
        for name, rows, crc in entry.files:
            try:
                frame = _read_frame(folder / name, rows=rows, crc=crc)
            except (OSError, pl.exceptions.PolarsError) as error:
                raise _Lost from error
            if frame is None:
                raise _Lost
            frames.append(frame)
        self.read_backs += 1
        entry.steps = merge_steps(frames)
        entry.since_base = frames[1] if len(frames) > 1 else None

    def _read_back(self, key: str, entry: _Entry, columns: Sequence[str]) -> pl.DataFrame:
        """``step`` and ``columns`` of the last answer for ``entry``, read from its files in the cache folder (only
        those columns), whose CRC-32s were checked when this process wrote or loaded them; the frames are not held.

        Raises
        ------
        _Lost
            A file holds another number of rows than the entry records.
        OSError, polars.exceptions.PolarsError
            A file cannot be read.
        """
        folder = self._folder(key)
        if folder is None or len(entry.columns) != len(entry.files):
            raise _Lost
        frames = []
        for (name, rows, _crc), names in zip(entry.files, entry.columns, strict=True):
            wanted = [STEP, *[column for column in columns if column != STEP and column in names]]
            if name.endswith(".arrow"):
                # a delta, or the base of a frame of many keys: only the columns asked for are read
                frame = pl.read_ipc(folder / name, columns=wanted)
            else:
                frame = pl.read_parquet(folder / name, columns=wanted)
            if frame.height != rows:
                raise _Lost
            frames.append(frame)
        if entry.extra is not None:
            frames.append(entry.extra.select(STEP, *[column for column in columns if column in entry.extra.columns]))
        self.read_backs += 1
        return merge_steps(frames)

    def _account(self, key: str) -> None:
        """Count the frames ``key``'s entry holds now as its most recent use (called holding its path lock)."""
        entry = self._entries.get(key)
        size = 0
        if entry is not None:
            frames = {id(frame): frame for frame in (entry.steps, entry.since_base, entry.extra) if frame is not None}
            if entry.result is not None:
                frames.setdefault(id(entry.result.steps), entry.result.steps)
            size = sum(int(frame.estimated_size()) for frame in frames.values())
            entry.held_bytes = size
        with self._lock:
            self.held_bytes += size - self._held.pop(key, 0)
            if size:
                self._held[key] = size

    def _within_memory(self) -> bool:
        return self.memory_bytes is None or self.held_bytes <= self.memory_bytes

    def _keep_within_memory(self, keep: str) -> None:
        """Let go of the frames least recently asked for, but ``keep``'s, until those held fit ``memory_mb``. Only
        frames the cache folder holds as they are in memory go (a log whose write was put off or failed stays), and
        only those of logs no other thread is reading."""
        if self.memory_bytes is None or self.cache_dir is None:
            return
        with self._lock:
            if self.held_bytes <= self.memory_bytes:
                return
            order = [key for key in self._held if key != keep]
        for key in order:
            with self._lock:
                if self.held_bytes <= self.memory_bytes:
                    return
                path_lock = self._path_locks.get(key)
            if path_lock is None or not path_lock.acquire(blocking=False):
                continue
            try:
                entry = self._entries.get(key)
                if entry is None or entry.disk_stale or not entry.files or entry.meta is None:
                    continue
                entry.steps = entry.since_base = None
                entry.result = None
                self._account(key)
            finally:
                path_lock.release()

    # -- internals --
    def _new_entry(self, key: str) -> _Entry:
        return _Entry(path=key, collector=MetaCollector(max_keys=self.max_keys))

    def _read(self, key: str) -> ParsedLog:
        try:
            stat = os.stat(key)
        except FileNotFoundError as error:
            raise LogReadError("no such file", path=key) from error
        except OSError as error:
            raise LogReadError(f"cannot read: {error.strerror or error}", path=key) from error
        if os.path.isdir(key):
            raise LogReadError("is a folder, not a log file", path=key)
        if not os.path.isfile(key):
            raise LogReadError("not a regular file", path=key)
        entry = self._entries.get(key)
        if entry is None:
            entry = self._load(key, stat) or self._new_entry(key)
            self._entries[key] = entry
        if self._current(entry, stat):
            return self._answer(key, entry)
        if self.cache_dir is None:
            return self._update(key, entry, stat, write=True)
        held, write = self._take_lock(key)
        try:
            if held is not None:
                # another process may have read the log and written its entry while this one waited
                stat = os.stat(key)
                entry = self._reloaded(key, entry, stat)
                if self._current(entry, stat):
                    return self._answer(key, entry)
            if write and self._putting_off:
                with self._lock:
                    self._put_off.add(key)
                parsed = self._update(key, entry, stat, write=False)
                self._account(key)
                if not self._within_memory():
                    # a write put off holds the frame in memory until it is written: only while the frames fit
                    self._persist(self._entries[key], None, full=True)
                    with self._lock:
                        self._put_off.discard(key)
                return parsed
            return self._update(key, entry, stat, write=write)
        except FileNotFoundError as error:
            raise LogReadError("no such file", path=key) from error
        except OSError as error:
            raise LogReadError(f"cannot read: {error.strerror or error}", path=key) from error
        finally:
            if held is not None:
                held.release()

    def _current(self, entry: _Entry, stat: os.stat_result) -> bool:
        """Whether the entry's last answer answers for the file as ``stat`` describes it."""
        return (
            entry.meta is not None
            and entry.size == stat.st_size
            and entry.mtime_ns == stat.st_mtime_ns
            and entry.ctime_ns == stat.st_ctime_ns
            and entry.inode == stat.st_ino
            and entry.device == stat.st_dev
            and not (entry.held_back and self._quiet(stat))
        )

    def _take_lock(self, key: str) -> tuple[locks.HeldLock | None, bool]:
        """The log's lock (None when not held) and whether this read may write the entry."""
        assert self.cache_dir is not None
        digest = hashlib.sha1(key.encode("utf-8", "surrogatepass")).hexdigest()[:20]
        try:
            held = locks.acquire(
                self.cache_dir / LOCKS_FOLDER / f"{digest}.lock", wait_s=self.lock_wait_s, stale_s=self.lock_stale_s
            )
        except OSError:
            # a cache folder that cannot be written: the write fails as well, and says why (write_problem)
            return None, True
        if held is None:
            self.lock_timeouts += 1
            return None, False
        return held, True

    def _reloaded(self, key: str, entry: _Entry, stat: os.stat_result) -> _Entry:
        """``entry``, or the entry on disk when another process wrote one since this one's last look."""
        folder = self._folder(key)
        assert folder is not None
        try:
            info = os.stat(folder / "state.json")
        except OSError:
            return entry
        if file_mark(info) == entry.disk_mark:
            return entry
        loaded = self._load(key, stat)
        if loaded is None or loaded.offset < entry.offset:
            entry.disk_stale = True  # the disk holds less than this process knows: rewrite it whole
            return entry
        self._entries[key] = loaded
        return loaded

    def _update(self, key: str, entry: _Entry, stat: os.stat_result, *, write: bool) -> ParsedLog:
        """Read what changed in the log since ``entry``; write the entry to disk when ``write``."""
        # only errors reading the log become LogReadError: the cache's own I/O is guarded where it happens
        try:
            with open(key, "rb") as handle:
                if not self._still_same(entry, stat, handle):
                    entry = self._new_entry(key)
                    self._entries[key] = entry
                    if write:
                        self._drop_disk(key)
                else:
                    self._hold(key, entry)  # what is appended is merged into the frames
                self._advance(entry, handle, stat, write=write)
        except OSError as error:
            self._entries.pop(key, None)  # it may be half updated
            if isinstance(error, PermissionError):
                raise LogReadError("permission denied", path=key) from error
            raise LogReadError(f"cannot read: {error.strerror or error}", path=key) from error
        return self._answer(key, entry)

    def _quiet(self, stat: os.stat_result) -> bool:
        """Whether the file has not changed for :attr:`quiet_s` seconds (its writer is done with it)."""
        return self._clock() - stat.st_mtime_ns / 1e9 >= self.quiet_s

    def _still_same(self, entry: _Entry, stat: os.stat_result, handle: Any) -> bool:
        """Whether the file is the one the entry describes, with bytes only appended since."""
        if entry.offset == 0 and entry.long_line_at == 0:
            return True
        if (stat.st_ino, stat.st_dev) != (entry.inode, entry.device):
            return False
        if stat.st_size < max(entry.offset, entry.long_line_at):
            return False
        if stat.st_size == entry.size and stat.st_ctime_ns != entry.ctime_ns:
            return False  # written over in place without growing (cp -p): the content may be anything
        handle.seek(0)
        if _crc(handle.read(entry.head_len)) != entry.head_crc:
            return False
        start = max(0, entry.offset - _TAIL_BYTES)
        handle.seek(start)
        return _crc(handle.read(entry.offset - start)) == entry.tail_crc

    def _advance(self, entry: _Entry, handle: Any, stat: os.stat_result, *, write: bool = True) -> None:
        """Parse what follows ``entry.offset`` in blocks of complete lines; the rest is provisional.

        A line longer than :data:`MAX_LINE_BYTES` is skipped and never held in memory whole: until its end
        comes, ``entry.long_line_at`` remembers how far it was scanned, and the next read goes on from there.
        """
        jsonl = _is_jsonl(entry.path)
        frames: list[pl.DataFrame] = []
        # console lines go through a pipeline (step lines on a worker thread); entry.lines follows it when synced
        pipeline = None if jsonl else ChunkPipeline(entry.collector, first_line=entry.lines + 1)
        marks = (entry.offset, entry.long_line_at)
        carry = b""  # the unterminated line that starts at entry.offset (when not skipping)
        skipping = entry.long_line_at > 0
        position = entry.long_line_at if skipping else entry.offset  # just past the bytes read
        handle.seek(position)
        # reads no longer than a line may be: only the line a carry starts can grow too long
        read_size = min(BLOCK_BYTES, MAX_LINE_BYTES)
        while block := handle.read(read_size):
            if skipping:
                if block.endswith(b"\r"):
                    block += handle.read(1)  # is the \r half of \r\n?
                end = _line_end(block)
                if end < 0:
                    if block.endswith(b"\r"):  # the last byte of the file: read it again next time
                        entry.long_line_at = position + len(block) - 1
                        break
                    position += len(block)
                    entry.long_line_at = position
                    continue
                position += end
                self._end_long_line(entry, position, pipeline)
                skipping = False
                block = block[end:]
                if not block:
                    continue
            position += len(block)
            if carry:
                # where the carried line ends in this block (a carry holds no line break but a final \r)
                if carry.endswith(b"\r"):
                    first = len(carry) + (block[:1] == b"\n")
                else:
                    first = _line_end(block)
                    first = -1 if first < 0 else len(carry) + first
                if first > MAX_LINE_BYTES:
                    self._end_long_line(entry, entry.offset + first, pipeline)
                    block = block[first - len(carry) :]
                    carry = b""
                elif first < 0 and len(carry) + len(block) > MAX_LINE_BYTES:
                    # no end yet: remember how far it goes instead of holding it
                    skipping, carry = True, b""
                    if block.endswith(b"\r"):
                        position -= 1
                        handle.seek(position)
                    entry.long_line_at = position
                    continue
            data = carry + block if carry else block
            end = complete_end(data)
            complete, carry = data[:end], data[end:]
            if complete:
                self.parses += 1
                if pipeline is None:
                    frames.append(parse_jsonl_chunk(complete, entry.collector, first_line=entry.lines + 1))
                    entry.lines += complete.count(b"\n")
                else:
                    pipeline.add(split_lines(complete))
                entry.offset += end
            del data, complete  # not held while the next block is read
        if pipeline is not None:
            frames = pipeline.finish()
            entry.lines = pipeline.next_line - 1
        fileno = handle.fileno()
        if entry.offset != marks[0]:
            tail = min(_TAIL_BYTES, entry.offset)
            entry.tail_crc = _crc(os.pread(fileno, tail, entry.offset - tail))
        if entry.head_len < min(_HEAD_BYTES, entry.offset):
            # the head fingerprint covers the first bytes parsed, up to _HEAD_BYTES, as the file grows
            entry.head_len = min(_HEAD_BYTES, entry.offset)
            entry.head_crc = _crc(os.pread(fileno, entry.head_len, 0))
        entry.device, entry.inode = stat.st_dev, stat.st_ino
        entry.size, entry.mtime_ns, entry.ctime_ns = stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns
        moved = (entry.offset, entry.long_line_at) != marks
        chunk = None
        if frames:
            chunk = merge_steps(frames) if len(frames) > 1 else frames[0]
            assert entry.steps is not None
            entry.steps = merge_steps([entry.steps, chunk])
        if moved and write:
            self._persist(entry, chunk, full=marks == (0, 0))
        elif moved:
            entry.disk_stale = True
        self._provisional(entry, b"" if skipping else carry, stat, jsonl=jsonl, long_line=skipping, moved=moved)

    def _end_long_line(self, entry: _Entry, end: int, pipeline: ChunkPipeline | None) -> None:
        """An over-long line ends at offset ``end``: count it, warn, and go on after it (the chunks before it
        are finished first: the warning and the line count come in file order)."""
        if pipeline is not None:
            pipeline.finish()
            entry.lines = pipeline.next_line - 1
        entry.lines += 1
        entry.collector.meta.warnings.append(long_line_warning(entry.lines))
        entry.collector.meta.lines = entry.lines
        entry.offset = end
        entry.long_line_at = 0
        if pipeline is not None:
            pipeline.next_line = entry.lines + 1

    def _provisional(
        self, entry: _Entry, carry: bytes, stat: os.stat_result, *, jsonl: bool, long_line: bool, moved: bool
    ) -> None:
        """Set the entry's answer: the complete state plus what the unterminated last line may show."""
        entry.held_back = False
        if carry.strip() and not carry.endswith(b"\r") and not self._quiet(stat):
            # the writer may be in the middle of this line (a final \r ends it: only the \n may be missing)
            entry.held_back = True
            carry = b"" if jsonl else _settled(carry)
        shown = (-1, 0) if long_line else (len(carry), _crc(carry))
        if not moved and entry.meta is not None and shown == entry.shown:
            return  # the line grew, but not by a complete value: the last answer stands
        entry.shown = shown
        assert entry.steps is not None
        steps = entry.steps
        extra_rows: pl.DataFrame | None = None
        collector = entry.collector
        if long_line or carry.strip():
            collector = MetaCollector.from_state(entry.collector.to_state())
            first_line = entry.lines + 1
            if long_line:
                collector.meta.warnings.append(long_line_warning(first_line))
                collector.meta.lines = first_line
            else:
                self.parses += 1
                if jsonl:
                    extra = parse_jsonl_chunk(carry, collector, first_line=first_line)
                else:
                    extra = parse_chunk(split_lines(carry), collector, first_line=first_line)
                if extra.height:
                    extra_rows = extra
                    steps = merge_steps([steps, extra])
        entry.meta = collector.snapshot(steps)
        entry.extra = extra_rows
        entry.result = ParsedLog(steps=steps, meta=entry.meta)

    # -- disk --
    def _folder(self, key: str) -> Path | None:
        if self.cache_dir is None:
            return None
        digest = hashlib.sha1(key.encode("utf-8", "surrogatepass")).hexdigest()[:20]
        return self.cache_dir / LOGS_FOLDER / digest

    def _persist(self, entry: _Entry, chunk: pl.DataFrame | None, *, full: bool) -> None:
        """Write what changed: the whole frame as a new base (``full``, or when deltas are many), or every row
        since the base as a new delta; then the state naming them; then remove the files it no longer names."""
        folder = self._folder(entry.path)
        if folder is None:
            return
        now = self._clock()
        if now < self._retry_at:
            entry.disk_stale = True
            return
        try:
            folder.mkdir(parents=True, exist_ok=True)
            if (
                full
                or entry.disk_stale
                or entry.deltas >= MAX_DELTAS
                or not entry.files
                or not (folder / entry.files[0][0]).exists()
            ):
                assert entry.steps is not None
                # Parquet holds a wide frame in buffers of each column while it writes (100 MB for 20,000 keys):
                # a frame of many keys is written as Arrow IPC, as the deltas are
                suffix = ".arrow" if entry.steps.width > _PARQUET_COLUMNS else ".parquet"
                name = f"base-{_unique()}{suffix}"
                entry.files = [(name, entry.steps.height, _write_frame(entry.steps, folder / name))]
                entry.columns = [tuple(entry.steps.columns)]
                entry.deltas = 0
                entry.since_base = None
            elif chunk is not None:
                # one delta with every row since the base: a restart reads two files, not one per refresh
                delta = chunk.drop(LINE) if LINE in chunk.columns else chunk
                since_base = delta if entry.since_base is None else merge_steps([entry.since_base, delta])
                # Arrow IPC: a delta is a few rows of many columns, which Parquet takes 5x longer to write
                name = f"delta-{_unique()}.arrow"
                crc = _write_frame(since_base, folder / name)
                entry.deltas += 1
                entry.since_base = since_base
                entry.files = [entry.files[0], (name, since_base.height, crc)]
                entry.columns = [entry.columns[0], tuple(since_base.columns)]
            state = {
                "parser_version": PARSER_VERSION,
                "path": entry.path,
                "device": entry.device,
                "inode": entry.inode,
                "size": entry.size,
                "mtime_ns": entry.mtime_ns,
                "ctime_ns": entry.ctime_ns,
                "offset": entry.offset,
                "lines": entry.lines,
                "long_line_at": entry.long_line_at,
                "head_len": entry.head_len,
                "head_crc": entry.head_crc,
                "tail_crc": entry.tail_crc,
                "files": entry.files,
                "delta": entry.deltas,
                "collector": entry.collector.to_state(),
            }
            entry.disk_mark = write_text_atomically(json.dumps(state), folder / "state.json")
            self._sweep(folder, keep={name for name, _, _ in entry.files})
            self._sweep_all()
        except (OSError, pl.exceptions.PolarsError, TypeError, ValueError) as error:
            # TypeError/ValueError: a state json cannot hold (a config dump with a set in it)
            entry.disk_stale = True
            self._retry_at = now + WRITE_RETRY_S
            self._disk_problem("write", error)
            return
        entry.disk_stale = False
        self.write_problem = None

    def _sweep(self, folder: Path, *, keep: set[str]) -> None:
        """Remove the frame files the state no longer names, and temporary files a killed writer left (those
        older than a stale lock: a younger one may be another writer's, mid-write)."""
        now = time.time()
        for item in folder.iterdir():
            if item.name.endswith((".parquet", ".arrow")) and item.name not in keep:
                item.unlink(missing_ok=True)
            elif item.name.endswith(".tmp"):
                try:
                    if now - item.stat().st_mtime > self.lock_stale_s:
                        item.unlink(missing_ok=True)
                except FileNotFoundError:
                    continue

    def _disk_problem(self, verb: str, error: Exception) -> None:
        """Record a failed read or write of the cache folder (one line, naming the folder)."""
        if isinstance(error, OSError):
            reason = error.strerror or str(error)
        else:
            reason = next((line.strip() for line in str(error).splitlines() if line.strip()), type(error).__name__)
        self.write_problem = f"cannot {verb} the cache in {self.cache_dir}: {reason}"

    def _load(self, key: str, stat: os.stat_result) -> _Entry | None:
        """The entry persisted for ``key``, or None when there is none or it fails any check (then the log is
        parsed from the start, and the next write replaces the entry).

        A state whose files are gone or differ from what it records was, most likely, replaced by another
        process's write between reading the state and opening the files: the state is read once more."""
        folder = self._folder(key)
        if folder is None:
            return None
        for attempt in range(2):
            try:
                entry = self._load_once(key, stat, folder)
            except _Replaced:
                if attempt:
                    return None
                continue
            except OSError as error:
                if not isinstance(error, FileNotFoundError):
                    self._disk_problem("read", error)
                return None
            except (ValueError, RecursionError, pl.exceptions.PolarsError, pl.exceptions.PanicException):
                # a damaged file: JSON that does not parse (or nests too deep), a collector state of wrong
                # types, frames polars cannot merge
                return None
            return entry
        return None

    def _load_once(self, key: str, stat: os.stat_result, folder: Path) -> _Entry | None:
        try:
            with open(folder / "state.json", "rb") as handle:
                mark = file_mark(os.fstat(handle.fileno()))
                text = handle.read()
        except FileNotFoundError:
            return None
        state = _checked_state(json.loads(text), key, stat)
        if state is None:
            return None
        frames = []
        for name, rows, crc in state["files"]:
            try:
                frame = _read_frame(folder / name, rows=rows, crc=crc)
            except FileNotFoundError as error:
                raise _Replaced from error
            if frame is None:
                raise _Replaced
            frames.append(frame)
        collector = MetaCollector.from_state(state["collector"])
        if collector.max_keys != self.max_keys:
            return None  # made under another bound on keys: parsed again under this one
        steps = merge_steps(frames)
        return _Entry(
            path=key,
            device=state["device"],
            inode=state["inode"],
            size=state["size"],
            mtime_ns=state["mtime_ns"],
            ctime_ns=state["ctime_ns"],
            offset=state["offset"],
            long_line_at=state["long_line_at"],
            lines=state["lines"],
            head_len=state["head_len"],
            head_crc=state["head_crc"],
            tail_crc=state["tail_crc"],
            deltas=state["delta"],
            files=[(name, rows, crc) for name, rows, crc in state["files"]],
            columns=[tuple(frame.columns) for frame in frames],
            since_base=frames[1] if len(frames) > 1 else None,
            steps=steps,
            collector=collector,
            disk_mark=mark,
        )

    def _drop_disk(self, key: str) -> None:
        folder = self._folder(key)
        if folder is None:
            return
        try:
            if folder.exists():
                for item in folder.iterdir():
                    item.unlink(missing_ok=True)
        except OSError as error:
            # a stale copy that stays behind is caught by the identity checks when it is loaded
            self._disk_problem("write", error)


def _line_end(data: bytes) -> int:
    """Index just past the first line break of ``data`` (``\\r\\n`` is one); -1 when it has none, or when the
    first is a final ``\\r`` (it may be half of ``\\r\\n``)."""
    newline = data.find(b"\n")
    carriage = data.find(b"\r", 0, len(data) if newline < 0 else newline)
    if carriage < 0:
        return -1 if newline < 0 else newline + 1
    if carriage + 1 == len(data):
        return -1
    return carriage + 2 if data[carriage + 1] == 0x0A else carriage + 1


def _settled(line: bytes) -> bytes:
    """The part of a line still being written whose values are complete: up to the last `` - `` separator
    (after it may come a number cut short). ``step:7 - a:0.5 - b:36`` -> ``step:7 - a:0.5``."""
    cut = line.rfind(b" - ")
    return line[:cut] if cut >= 0 else b""


class _Replaced(Exception):
    """A file a state names is gone or differs from what the state records."""


class _Lost(Exception):
    """The frames of an entry whose frames were let go cannot be read back as the entry records them."""


_FRAME_NAME = re.compile(r"(base|delta)-[0-9]+-[0-9a-f]+\.(parquet|arrow)")
"""What a frame file named in ``state.json`` may be called (nothing else is opened as one)."""


def _unique() -> str:
    """A part of a file name no other process or thread writing the same cache folder picks."""
    return f"{os.getpid()}-{secrets.token_hex(6)}"


_STATE_COUNTS = ("device", "inode", "size", "offset", "long_line_at", "lines", "head_len", "head_crc", "tail_crc")
_STATE_TIMES = ("mtime_ns", "ctime_ns")


def _checked_state(state: Any, key: str, stat: os.stat_result) -> dict[str, Any] | None:
    """``state`` (a parsed ``state.json``) if it is one for ``key`` whose every field has its type and range;
    else None. The collector state is checked by :meth:`MetaCollector.from_state`."""
    if not isinstance(state, dict) or state.get("parser_version") != PARSER_VERSION or state.get("path") != key:
        return None
    if not all(_is_count(state.get(name)) for name in _STATE_COUNTS):
        return None
    if not all(_is_int64(state.get(name)) for name in _STATE_TIMES):  # before 1970 is negative
        return None
    offset = state["offset"]
    long_line_at = state["long_line_at"]
    files = state.get("files")
    if not (
        offset <= stat.st_size
        and (long_line_at == 0 or offset < long_line_at <= stat.st_size)
        and state["lines"] <= offset
        and state["head_len"] == min(_HEAD_BYTES, offset)
        and state["head_crc"] <= 0xFFFFFFFF
        and state["tail_crc"] <= 0xFFFFFFFF
        and isinstance(files, list)
        and 1 <= len(files) <= 2
        and _is_count(state.get("delta"))
        and (state["delta"] == 0) == (len(files) == 1)
        and state["delta"] <= MAX_DELTAS
        and all(
            isinstance(item, list)
            and len(item) == 3
            and isinstance(item[0], str)
            and _FRAME_NAME.fullmatch(item[0]) is not None
            and item[0].startswith("base-" if index == 0 else "delta-")
            and all(_is_count(number) for number in item[1:])
            for index, item in enumerate(files)
        )
        and isinstance(state.get("collector"), dict)
    ):
        return None
    return state


def _is_count(value: Any) -> bool:
    """A non-negative int64 (not a bool, not a float)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**63


def _is_int64(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and -(2**63) <= value < 2**63


def _read_frame(path: Path, *, rows: int, crc: int) -> pl.DataFrame | None:
    """A persisted frame (Parquet, or Arrow IPC for a delta), or None when its bytes or its shape are not what
    was written. The bytes are checked before they are parsed."""
    data = path.read_bytes()
    if _crc(data) != crc:
        return None
    frame = pl.read_ipc(data) if path.suffix == ".arrow" else pl.read_parquet(data)
    schema = frame.schema
    if frame.height != rows or not frame.width or frame.columns[0] != STEP or schema[STEP] != pl.Int64():
        return None
    if any(dtype != pl.Float64() for name, dtype in schema.items() if name != STEP):
        return None
    return frame


def _temporary(target: Path) -> Path:
    """A temporary name beside ``target`` that no other process (on any host) or thread picks."""
    return target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}.{secrets.token_hex(4)}.tmp")


def _write_frame(frame: pl.DataFrame, target: Path) -> int:
    """Write ``frame`` to ``target`` (through a temporary file) as Parquet, or as Arrow IPC when ``target`` ends
    in ``.arrow``; return the CRC-32 of the bytes written."""
    temporary = _temporary(target)
    try:
        if target.suffix == ".arrow":
            frame.write_ipc(temporary, compression="uncompressed")
        else:
            # uncompressed: a restart reads the base about twice as fast, for a file about 1.4x the size
            frame.write_parquet(temporary, compression="uncompressed", statistics=False)
        crc = _file_crc(temporary)
        os.replace(temporary, target)
        return crc
    except (OSError, pl.exceptions.PolarsError):
        _remove_quietly(temporary)
        raise


def write_text_atomically(text: str, target: Path) -> tuple[int, int, int]:
    """Write ``text`` to ``target`` through a temporary file of this process and thread, then rename it, so a
    reader sees the old file or the new one, never part of one; return the written file's :func:`file_mark`."""
    temporary = _temporary(target)
    try:
        temporary.write_text(text, encoding="utf-8")
        mark = file_mark(os.stat(temporary))  # a rename keeps the inode and mtime
        os.replace(temporary, target)
        return mark
    except OSError:
        _remove_quietly(temporary)
        raise


def _remove_quietly(path: Path) -> None:
    """Remove a temporary file a failed write left (a full disk leaves empty ones); it may not exist."""
    try:
        path.unlink(missing_ok=True)
    except OSError:
        return


def read_log(path: str | Path, *, cache_dir: Path | None = None) -> ParsedLog:
    """Parse one verl log (console text, or file-logger ``.jsonl``), using the cache in ``cache_dir`` if given.

    Raises
    ------
    LogReadError
        The file is missing, a folder, or unreadable.
    """
    return LogCache(cache_dir).read(path)


def read_logs(paths: Sequence[str | Path], *, cache: LogCache | None = None) -> ParsedLog:
    """Several logs of one experiment, in the order given, merged: a later file wins on a step both hold.

    The metadata is the last file's, with the config, total steps and resume markers of earlier files used
    where the last one lacks them.
    """
    cache = cache or LogCache()
    parsed = [cache.read(path) for path in paths]
    if not parsed:
        return ParsedLog(steps=empty_steps(), meta=RunMeta())
    steps, dropped = bound_keys(merge_steps([log.steps for log in parsed]), cache.max_keys)
    meta = RunMeta.from_json_dict(parsed[-1].meta.to_json_dict())
    for log in parsed[:-1]:
        meta.config = meta.config or log.meta.config
        meta.total_steps = meta.total_steps or log.meta.total_steps
        meta.launch_command = meta.launch_command or log.meta.launch_command
        meta.initial_validation = meta.initial_validation or log.meta.initial_validation
    meta.resume_steps = [step for log in parsed for step in log.meta.resume_steps]
    meta.resume_paths = [item for log in parsed for item in log.meta.resume_paths]
    meta.step_lines = sum(log.meta.step_lines for log in parsed)
    meta.warnings = [warning for log in parsed for warning in log.meta.warnings]
    for path, log in zip(paths, parsed, strict=True):
        if log.meta.keys_dropped_line is not None:
            meta.warnings.append(f"{path}: {keys_dropped_warning(log.meta.keys_dropped_line, cache.max_keys)}")
    if dropped:
        meta.warnings.append(
            f"the logs hold more than {cache.max_keys:,} distinct keys together; {len(dropped):,} of them dropped "
            "(the max_keys setting)"
        )
    if steps.height:
        meta.first_step = int(steps.get_column("step").min())  # type: ignore[arg-type]
        meta.last_step = int(steps.get_column("step").max())  # type: ignore[arg-type]
    if any(log.meta.kind == "rl" for log in parsed):
        meta.kind = "rl"
    return ParsedLog(steps=steps, meta=meta)
