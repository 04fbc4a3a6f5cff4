"""What the app's Alerts page shows, pure: read from the alert state and the lease in the cache folder, so every
replica on one cache folder shows the same, whichever process sends.

:func:`alerts_panel` returns an :class:`AlertsPanel`: who sends, each target (shown as scheme and host only) with
how it fares, what is failing (the sender's problems from the state, every other watcher's from its note,
:mod:`rlmon.alerts.peers`), and the messages sent, newest first; :func:`targets_table` and :func:`sent_table`
are its two tables as the page shows them.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from rlmon.alerts.lease import lease_path
from rlmon.alerts.peers import read_notes
from rlmon.alerts.state import AlertState, read_state
from rlmon.logs.locks import read_holder
from rlmon.text.display import NAME_LIMIT, display_text
from rlmon.text.messages import UNKNOWN, t
from rlmon.text.numbers import format_clock

__all__ = ["AlertsPanel", "SentRow", "TargetRow", "alerts_panel", "sent_table", "targets_table"]

_TITLE_PREFIX = "[rlmon] "


@dataclass(frozen=True)
class TargetRow:
    target: str
    """Scheme and host."""
    origin: str
    state: str
    """``delivering``, ``failing`` or ``waiting for a first message``, in the page's language."""
    last_sent: str
    waiting: int
    """Messages kept for it."""


@dataclass(frozen=True)
class SentRow:
    at: str
    target: str
    severity: str
    what: str
    root: str


@dataclass(frozen=True)
class AlertsPanel:
    sender: str
    """Who sends: this server, another process, or nobody (one sentence)."""
    configured: bool
    """This server has alert targets of its own."""
    targets: tuple[TargetRow, ...]
    failing: tuple[str, ...]
    """What is failing: a sentence per failing target, then the watcher's problems (scrubbed)."""
    sent: tuple[SentRow, ...]
    """Newest first."""
    sent_count: int


def _sender(state: AlertState, holder: dict[str, object] | None, lang: str, now: float) -> str:
    if holder is None:
        return t("alerts_sender_none", lang)
    pid, host = holder.get("pid", "?"), holder.get("host", "?")
    here = pid == os.getpid() and host == socket.gethostname()
    moment = state.updated_at or holder.get("time")
    seen = format_clock(float(moment), now=now) if isinstance(moment, (int, float)) and moment else UNKNOWN
    return t("alerts_sender_here" if here else "alerts_sender_other", lang, pid=pid, host=host, time=seen)


def alerts_panel(
    cache_dir: Path, *, configured: Sequence[tuple[str, str]] = (), lang: str, now: float | None = None
) -> AlertsPanel:
    """The Alerts page's content.

    Parameters
    ----------
    cache_dir
        The cache folder (its ``alerts/`` state and lease).
    configured
        This server's own targets, (shown form, origin) each: listed even before a first message.
    lang
        ``en`` or ``zh``.
    now
        Seconds since the epoch (times of today read as a clock).
    """
    now = time.time() if now is None else now
    state = read_state(cache_dir)
    holder = read_holder(lease_path(cache_dir))
    waiting: dict[str, int] = {}
    for item in state.outbox:
        waiting[item.target] = waiting.get(item.target, 0) + 1
    rows: list[TargetRow] = []
    failing: list[str] = []
    listed: set[str] = set()
    for target_id, health in state.targets.items():
        listed.add(health.shown)
        if health.failing_since is not None:
            word = t("alerts_state_failing", lang)
            failing.append(
                t(
                    "alerts_target_failing",
                    lang,
                    target=health.shown,
                    since=format_clock(health.failing_since, now=now),
                    tries=health.failures,
                    error=display_text(health.last_error or UNKNOWN).rstrip("."),
                    waiting=waiting.get(target_id, 0),
                    next=format_clock(health.next_try_at, now=now),
                )
            )
        elif health.last_sent_at is not None:
            word = t("alerts_state_ok", lang)
        else:
            word = t("alerts_state_new", lang)
        last = format_clock(health.last_sent_at, now=now) if health.last_sent_at else UNKNOWN
        rows.append(TargetRow(health.shown, health.origin, word, last, waiting.get(target_id, 0)))
    for shown, origin in configured:
        if shown not in listed:
            rows.append(TargetRow(shown, origin, t("alerts_state_new", lang), UNKNOWN, 0))
            listed.add(shown)
    failing.extend(display_text(problem) for problem in state.problems)
    # the processes that do not send: what they cannot use reaches the page through their own notes
    sender = (holder.get("pid"), holder.get("host")) if holder is not None else None
    for note in read_notes(cache_dir, now=now):
        if (note.pid, note.host) == sender:
            continue
        failing.extend(
            t("alerts_process_problem", lang, pid=note.pid, host=display_text(note.host), problem=display_text(problem))
            for problem in note.problems
        )
    sent = tuple(
        SentRow(
            at=format_clock(record.at, now=now, with_seconds=True),
            target=record.target,
            severity=t(f"severity_{record.severity}", lang)
            if record.severity in ("info", "warning", "critical")
            else "",
            what=display_text(record.title.removeprefix(_TITLE_PREFIX), limit=2 * NAME_LIMIT),
            root=display_text(record.root, limit=NAME_LIMIT),
        )
        for record in reversed(state.sent)
    )
    return AlertsPanel(
        sender=_sender(state, holder, lang, now),
        configured=bool(configured),
        targets=tuple(rows),
        failing=tuple(failing),
        sent=sent,
        sent_count=len(sent),
    )


def targets_table(panel: AlertsPanel) -> pl.DataFrame:
    """The targets as the page's table: ``target``, ``state``, ``last``, ``waiting``, ``origin``, one row each."""
    return pl.DataFrame(
        {
            "target": [row.target for row in panel.targets],
            "state": [row.state for row in panel.targets],
            "last": [row.last_sent for row in panel.targets],
            "waiting": [row.waiting for row in panel.targets],
            "origin": [row.origin for row in panel.targets],
        },
        schema={"target": pl.String, "state": pl.String, "last": pl.String, "waiting": pl.Int64, "origin": pl.String},
    )


def sent_table(panel: AlertsPanel) -> pl.DataFrame:
    """The messages sent as the page's table, newest first: ``at``, ``what``, ``severity``, ``target``, and ``root``
    only when they came from more than one root (from one, the column would say the same on every row)."""
    columns: dict[str, list[str]] = {
        "at": [row.at for row in panel.sent],
        "what": [row.what for row in panel.sent],
        "severity": [row.severity for row in panel.sent],
        "target": [row.target for row in panel.sent],
    }
    if len({row.root for row in panel.sent}) > 1:
        columns["root"] = [row.root for row in panel.sent]
    return pl.DataFrame(columns, schema=dict.fromkeys(columns, pl.String))
