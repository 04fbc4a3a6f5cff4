"""What each watcher on a cache folder says of itself, sender or not: ``alerts/processes/<host>-<pid>.json``, one
small file per process, rewritten at every refresh and removed when it stops.

Only the process that holds the lease writes the alert state (:mod:`rlmon.alerts.state`), so what a process that
does not send has to say would reach nobody: a target URL apprise refuses, no working target at all (it then
stays out of the lease), targets other than the sender's (they get nothing while the other sends). Each process
writes it here; the Alerts page of every replica reads all of them (:func:`read_notes`) and the watchers read the
sender's targets from its note.

A note is current while its process runs: renewed within its ``stale_s`` (three refreshes, at least a minute),
and on this host its pid still running.
"""

from __future__ import annotations

import json
import os
import re
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rlmon.logs.cache import ALERT_NOTES_FOLDER, write_text_atomically
from rlmon.logs.locks import pid_runs

__all__ = ["NOTES_FOLDER", "ProcessNote", "note_path", "read_notes", "remove_note", "write_note"]

NOTES_FOLDER = ALERT_NOTES_FOLDER.rsplit("/", 1)[-1]
_FORGOTTEN_S = 24 * 3600.0
"""Notes older than this (a process killed on another host) are removed by the next writer."""


@dataclass(frozen=True)
class ProcessNote:
    pid: int
    host: str
    time: float
    """When it was last written."""
    stale_s: float
    sending: bool
    """It held the lease when it wrote this."""
    targets: tuple[tuple[str, str], ...]
    """Its own targets (setting or ``--notify``): (fingerprint, scheme and host) each."""
    problems: tuple[str, ...]
    """What it cannot use (scrubbed of secrets)."""


def _folder(cache_dir: Path) -> Path:
    return cache_dir / ALERT_NOTES_FOLDER


def note_path(cache_dir: Path, *, pid: int | None = None, host: str | None = None) -> Path:
    """This process's note (or another's, by ``pid`` and ``host``)."""
    host = re.sub(r"[^A-Za-z0-9.-]", "_", host or socket.gethostname())[:100]
    return _folder(cache_dir) / f"{host}-{os.getpid() if pid is None else pid}.json"


def write_note(
    cache_dir: Path,
    *,
    sending: bool,
    targets: tuple[tuple[str, str], ...],
    problems: tuple[str, ...],
    stale_s: float,
    now: float | None = None,
) -> None:
    """Write this process's note (and remove notes left for a day by processes gone).

    Raises
    ------
    OSError
        The cache folder cannot be written.
    """
    now = time.time() if now is None else now
    path = note_path(cache_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    note = {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "time": now,
        "stale_s": stale_s,
        "sending": sending,
        "targets": [list(item) for item in targets],
        "problems": list(problems),
    }
    write_text_atomically(json.dumps(note, ensure_ascii=False), path)
    for other in path.parent.glob("*.json"):
        try:
            if now - other.stat().st_mtime > _FORGOTTEN_S:
                other.unlink()
        except OSError:
            continue


def remove_note(cache_dir: Path) -> None:
    try:
        note_path(cache_dir).unlink()
    except OSError:
        return


def _note(raw: Any) -> ProcessNote | None:
    if not isinstance(raw, dict):
        return None
    try:
        return ProcessNote(
            pid=int(raw["pid"]),
            host=str(raw["host"]),
            time=float(raw["time"]),
            stale_s=float(raw["stale_s"]),
            sending=bool(raw.get("sending")),
            targets=tuple((str(item[0]), str(item[1])) for item in raw.get("targets") or ()),
            problems=tuple(str(item) for item in raw.get("problems") or ()),
        )
    except (KeyError, TypeError, ValueError, IndexError):
        return None


def read_notes(cache_dir: Path, *, now: float | None = None) -> list[ProcessNote]:
    """The notes of the processes that run now (by host and pid)."""
    now = time.time() if now is None else now
    here = socket.gethostname()
    notes: list[ProcessNote] = []
    try:
        paths = sorted(_folder(cache_dir).glob("*.json"))
    except OSError:
        return []
    for path in paths:
        try:
            note = _note(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            continue
        if note is None or now - note.time > note.stale_s:
            continue
        if note.host == here and not pid_runs(note.pid):
            continue
        notes.append(note)
    return notes
