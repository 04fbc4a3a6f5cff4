"""What the watcher remembers, kept in the cache folder (``alerts/state.json``): it survives a restart, and every
process on one cache folder reads the same (only the one that holds the lease, :mod:`rlmon.alerts.lease`,
writes it).

* per log root: when it was first watched (and each of its experiments), the events seen (sent, queued, or older
  than that first start), the stalls told and not yet resumed, and when messages about it were queued (the
  digest's window);
* the outbox: messages not delivered yet, per target (:attr:`Outgoing.target` is a fingerprint, never the URL);
* per target: when it last took a message, since when it fails and why (scrubbed), when it is tried next;
* the messages sent last (:data:`SENT_KEPT`), and what the watcher cannot use (problems).

The file is written whole through a temporary file and a rename (a reader never sees half of it); a missing
or damaged file reads as an empty state (every root then starts afresh: nothing older is sent).
"""

from __future__ import annotations

import json
import os
import socket
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from rlmon.logs.cache import ALERTS_FOLDER, write_text_atomically

__all__ = [
    "ALERTS_FOLDER",
    "OUTBOX_KEPT",
    "SEEN_KEPT",
    "SENT_KEPT",
    "STATE_NAME",
    "AlertState",
    "Outgoing",
    "RootState",
    "SentRecord",
    "TargetHealth",
    "read_state",
    "state_path",
    "write_state",
]

STATE_NAME = "state.json"
SENT_KEPT = 200
"""Messages sent that the state keeps (the Alerts panel lists them)."""
OUTBOX_KEPT = 500
"""Messages kept per target while it fails; past that the oldest are dropped (and the log says so)."""
SEEN_KEPT = 50_000
"""Event keys kept per root; past that the oldest are forgotten."""


@dataclass
class RootState:
    label: str
    """The root as a person knows it (a folder, ``s3://bucket/prefix``)."""
    since: float
    """When it was first watched: events already there then are not sent."""
    seen: dict[str, float] = field(default_factory=dict)
    """Event key -> when it was first seen."""
    stalls: dict[str, str] = field(default_factory=dict)
    """Experiment id -> the key of its stall that was sent (a resume is told), or ``""`` for a stall that was
    there at the first start (its resume is not)."""
    recent: list[float] = field(default_factory=list)
    """When messages about this root were queued, within the digest's window."""
    known: dict[str, float] = field(default_factory=dict)
    """Experiment id -> when it was first watched."""


@dataclass
class Outgoing:
    """A message waiting for one target."""

    id: str
    target: str
    """The target's fingerprint (:attr:`rlmon.alerts.targets.Target.id`)."""
    shown: str
    root: str
    title: str
    body: str
    severity: str
    kinds: list[str]
    experiments: list[str]
    queued_at: float
    tries: int = 0


@dataclass
class TargetHealth:
    shown: str
    origin: str
    last_sent_at: float | None = None
    failing_since: float | None = None
    last_error: str | None = None
    failures: int = 0
    """Tries that failed in a row."""
    next_try_at: float = 0.0


@dataclass
class SentRecord:
    at: float
    target: str
    """The target as shown (scheme and host)."""
    title: str
    severity: str
    kinds: list[str]
    experiments: list[str]
    root: str
    queued_at: float


@dataclass
class AlertState:
    roots: dict[str, RootState] = field(default_factory=dict)
    outbox: list[Outgoing] = field(default_factory=list)
    targets: dict[str, TargetHealth] = field(default_factory=dict)
    sent: list[SentRecord] = field(default_factory=list)
    """Oldest first."""
    problems: list[str] = field(default_factory=list)
    """What the watcher cannot use now (a target apprise refuses, a root it cannot read), scrubbed."""
    sender: dict[str, Any] = field(default_factory=dict)
    """The process that wrote this: ``pid``, ``host``, ``since`` (when it took the lease)."""
    updated_at: float = 0.0

    def record_sent(self, record: SentRecord) -> None:
        self.sent.append(record)
        del self.sent[:-SENT_KEPT]


def state_path(cache_dir: Path) -> Path:
    return cache_dir / ALERTS_FOLDER / STATE_NAME


def _items(value: Any, kind: type) -> Any:
    return value if isinstance(value, kind) else kind()


def _build(cls: Any, raw: Any) -> Any:
    """``cls(**raw)`` keeping the fields the dataclass ``cls`` has; None when ``raw`` does not fit."""
    if not isinstance(raw, dict):
        return None
    names = {item.name for item in fields(cls)}
    try:
        return cls(**{key: value for key, value in raw.items() if key in names})
    except TypeError:
        return None


def _state_from(raw: Any) -> AlertState:
    if not isinstance(raw, dict):
        return AlertState()
    roots = {}
    for key, value in _items(raw.get("roots"), dict).items():
        root = _build(RootState, value)
        if root is not None:
            roots[key] = root
    targets = {}
    for key, value in _items(raw.get("targets"), dict).items():
        health = _build(TargetHealth, value)
        if health is not None:
            targets[key] = health
    outbox = [item for item in (_build(Outgoing, value) for value in _items(raw.get("outbox"), list)) if item]
    sent = [item for item in (_build(SentRecord, value) for value in _items(raw.get("sent"), list)) if item]
    return AlertState(
        roots=roots,
        outbox=outbox,
        targets=targets,
        sent=sent,
        problems=[str(item) for item in _items(raw.get("problems"), list)],
        sender=_items(raw.get("sender"), dict),
        updated_at=float(raw.get("updated_at") or 0.0),
    )


def read_state(cache_dir: Path) -> AlertState:
    """The state kept in ``cache_dir``; an empty one when there is none or it cannot be read."""
    try:
        text = state_path(cache_dir).read_text(encoding="utf-8")
        return _state_from(json.loads(text))
    except (OSError, ValueError):
        return AlertState()


def write_state(cache_dir: Path, state: AlertState, *, now: float | None = None) -> None:
    """Write ``state`` whole into ``cache_dir``.

    Raises
    ------
    OSError
        The cache folder cannot be written.
    """
    state.updated_at = time.time() if now is None else now
    state.sender.setdefault("pid", os.getpid())
    state.sender.setdefault("host", socket.gethostname())
    for root in state.roots.values():
        if len(root.seen) > SEEN_KEPT:
            kept = sorted(root.seen.items(), key=lambda item: item[1])[-SEEN_KEPT:]
            root.seen = dict(kept)
    path = state_path(cache_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomically(json.dumps(asdict(state), ensure_ascii=False, separators=(",", ":")), path)
