"""Lock files: one process at a time works on a log's cache entry, across machines sharing a cache folder.

Several app replicas (and the CLI) may share one cache folder, NFS included, where ``flock`` is not to be
trusted. A lock here is a file that exists or not, made atomically: the holder writes its own file (created
with ``O_CREAT | O_EXCL``) and hard-links it to the lock's name, which fails when the lock exists (atomic on
every NFS version; where hard links are not supported, the lock file itself is created with ``O_CREAT |
O_EXCL``, atomic on NFS v3 and later). It holds the holder's pid, host name, the time it was taken and a
random token::

    {"pid": 4242, "host": "node-3", "time": 1764571200.5, "token": "9f2c..."}

A lock is *stale*, and is broken by the next process that wants it, when it is older than ``stale_s``
seconds (its holder hung or its machine died) or when it was taken on this host by a pid that no longer runs
(its holder was killed). Breaking renames the lock file to a name of the breaker's own and then checks that
what it took away is the stale lock it judged; if a third process had meanwhile broken it and taken the lock
afresh, that new lock is put back. A lock file that cannot be read whole (made by hand, or by the fallback
without hard links, its holder killed between creating and writing it) is judged by its mtime.

:func:`acquire` waits a bounded time and returns None when the wait runs out: the caller then works without
the lock (and without writing). Release removes the file only when it still holds the releaser's token.

Examples
--------
>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> held = acquire(folder / "a.lock", wait_s=0)
>>> acquire(folder / "a.lock", wait_s=0) is None
True
>>> held.release()
>>> acquire(folder / "a.lock", wait_s=0) is not None
True
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["STALE_S", "WAIT_S", "HeldLock", "acquire", "is_stale", "pid_runs", "read_holder", "renew"]

STALE_S = 300.0
"""Seconds after which a lock is taken as left behind (longer than the longest parse of one log)."""
WAIT_S = 20.0
"""Seconds a process waits for another's lock on a log before it parses that log in memory, not writing."""
_POLL_S = 0.05
_HOST = socket.gethostname()


@dataclass
class HeldLock:
    """A lock this process holds; :meth:`release` it (or use it as a context manager)."""

    path: Path
    token: str

    def release(self) -> None:
        """Remove the lock file if it is still this one (a lock broken as stale and retaken stays)."""
        holder = read_holder(self.path)
        if holder is not None and holder.get("token") == self.token:
            try:
                self.path.unlink()
            except OSError:
                return

    def __enter__(self) -> HeldLock:
        return self

    def __exit__(self, *_: object) -> None:
        self.release()


def read_holder(path: Path) -> dict[str, Any] | None:
    """What the lock file at ``path`` says of its holder; None when there is no such file or it is not whole."""
    try:
        holder = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return holder if isinstance(holder, dict) else None


def pid_runs(pid: int) -> bool:
    """Whether a process of this host has ``pid`` (one of another user counts as running)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True  # it runs, as another user (or is no pid at all: judged by its age alone)
    return True


def is_stale(path: Path, *, stale_s: float = STALE_S, now: float | None = None) -> bool:
    """Whether the lock at ``path`` is left behind: older than ``stale_s``, or its holder on this host is gone.

    A lock file that does not exist is not stale (there is nothing to break).
    """
    now = time.time() if now is None else now
    holder = read_holder(path)
    try:
        mtime = path.stat().st_mtime
    except OSError:
        return False
    if holder is None:
        return now - mtime > min(stale_s, 10.0)  # created but never written: its holder died at once
    taken = holder.get("time")
    if not isinstance(taken, (int, float)) or isinstance(taken, bool):
        taken = mtime
    if now - float(taken) > stale_s:
        return True
    pid = holder.get("pid")
    if holder.get("host") == _HOST and isinstance(pid, int) and not isinstance(pid, bool):
        return not pid_runs(pid)
    return False


def _break(path: Path, *, stale_s: float, now: float) -> bool:
    """Take a stale lock away (see the module docstring); a lock that is not stale is left alone. True when
    the lock file may be gone (worth trying to take it again at once)."""
    judged = read_holder(path)
    if not is_stale(path, stale_s=stale_s, now=now):
        return False
    aside = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.broken")
    try:
        os.rename(path, aside)
    except FileNotFoundError:
        return True  # another process broke it first
    except OSError:
        return False  # a folder that cannot be written: wait, and work without the lock
    taken = read_holder(aside)
    if judged is not None and taken is not None and taken.get("token") != judged.get("token"):
        # a third process broke the stale lock and took a fresh one between our look and our rename
        with contextlib.suppress(OSError):
            os.link(aside, path)
    with contextlib.suppress(OSError):
        aside.unlink()
    pid = (judged or {}).get("pid")
    if (judged or {}).get("host") == _HOST and isinstance(pid, int) and not pid_runs(pid):
        # the file of its own a killed holder had not removed yet (see _create)
        for left in path.parent.glob(f".{path.name}.{pid}.*.tmp"):
            with contextlib.suppress(OSError):
                left.unlink()
    return True


def acquire(
    path: Path,
    *,
    wait_s: float = WAIT_S,
    stale_s: float = STALE_S,
    clock: Callable[[], float] = time.time,
) -> HeldLock | None:
    """Take the lock at ``path``, waiting up to ``wait_s`` seconds for its holder; None when the wait ran out.

    Raises
    ------
    OSError
        The lock file cannot be created for another reason than that it exists (a read-only or full cache
        folder): the caller decides what working without the lock means.
    """
    token = secrets.token_hex(8)
    deadline = time.monotonic() + wait_s
    path.parent.mkdir(parents=True, exist_ok=True)
    while True:
        holder = {"pid": os.getpid(), "host": _HOST, "time": clock(), "token": token}
        if _create(path, json.dumps(holder).encode("utf-8")):
            return HeldLock(path=path, token=token)
        if _break(path, stale_s=stale_s, now=clock()):
            continue
        if time.monotonic() >= deadline:
            return None
        time.sleep(_POLL_S)


def renew(held: HeldLock, *, clock: Callable[[], float] = time.time) -> bool:
    """Write a fresh time into a lock this process holds, so that it is not judged stale while its work goes on
    (a lock held for long: a lease). False, and nothing written, when the lock is no longer this one (it was
    broken as stale, or removed).

    The new content replaces the file by a rename: the lock's name exists throughout, so nobody can take it
    meanwhile.
    """
    holder = read_holder(held.path)
    if holder is None or holder.get("token") != held.token:
        return False
    holder["time"] = clock()
    fresh = held.path.with_name(f".{held.path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        _write_new(fresh, json.dumps(holder).encode("utf-8"))
        os.replace(fresh, held.path)
    except OSError:
        with contextlib.suppress(OSError):
            fresh.unlink()
        return False
    return True


def _create(path: Path, content: bytes) -> bool:
    """Create the lock file at ``path`` holding ``content``, whole; False when it exists.

    The content goes to a file of this process's own (``O_CREAT|O_EXCL``), which is then hard-linked to
    ``path``: the link is atomic (also on NFS) and the lock file is never seen empty, so a holder killed at any
    point leaves a lock that says whose it was. Where hard links are not supported, ``path`` itself is created
    with ``O_CREAT|O_EXCL`` and written.
    """
    own = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    _write_new(own, content)
    try:
        os.link(own, path)
    except FileExistsError:
        return False
    except OSError as error:
        if _links(own) == 2:
            return True  # NFS: the link was made, but the answer to the request was lost
        if error.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
            raise
        try:
            _write_new(path, content)
        except FileExistsError:
            return False
    finally:
        with contextlib.suppress(OSError):
            own.unlink()
    return True


def _write_new(path: Path, content: bytes) -> None:
    """Create ``path`` (it must not exist) holding ``content``; nothing is left behind if writing fails."""
    # mode "xb" opens with O_CREAT | O_EXCL | O_WRONLY
    with open(path, "xb", buffering=0) as handle:
        try:
            handle.write(content)
        except OSError:
            with contextlib.suppress(OSError):
                path.unlink()
            raise


def _links(path: Path) -> int:
    try:
        return path.stat().st_nlink
    except OSError:
        return 0
