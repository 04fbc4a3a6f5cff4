"""The messages sent: one per event (:func:`event_message`), or one digest for many (:func:`digest_message`), in
English or Chinese, as plain text (every service shows it as written).

An event's message names the experiment, its track and step, says what happened in the words of the written
summary (the signal's own sentence, the experiment's paragraph for a finished run), adds the exception and its
last frame for a crash, and links to the experiment's page at that step when the app's public address is set
(:func:`experiment_link`). Names from folders and logs pass :func:`rlmon.text.display.display_text` (no control
or bidi characters).
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Sequence
from dataclasses import dataclass

from rlmon.alerts.events import AlertEvent
from rlmon.analysis.signals import KINDS, Severity, short_metric
from rlmon.text.display import NAME_LIMIT, display_text
from rlmon.text.lang import LANGUAGES
from rlmon.text.messages import t, track_name
from rlmon.text.numbers import format_duration

__all__ = ["EXPERIMENT_PATH", "AlertMessage", "digest_message", "event_message", "event_title", "experiment_link"]

EXPERIMENT_PATH = "exp"
"""The app's page that opens any experiment by ``?id=`` (``rlmon.app.navigation.GENERIC_PATH``)."""


@dataclass(frozen=True)
class AlertMessage:
    """One message as it is sent."""

    title: str
    body: str
    severity: Severity
    """The most severe of its events."""


def experiment_link(public_url: str, event: AlertEvent) -> str | None:
    """The experiment's page, its chart of the event's metric marked at the event's step
    (``https://rlmon.example.com/exp?id=4B%2Fe2_dapo&focus=actor%2Fgrad_norm&at=57``); None without a public URL."""
    if not public_url:
        return None
    query = {"id": event.experiment}
    if event.metric:
        query["focus"] = event.metric
    if event.step is not None:
        query["at"] = str(event.step)
    return f"{public_url.rstrip('/')}/{EXPERIMENT_PATH}?{urllib.parse.urlencode(query)}"


def _name(event: AlertEvent) -> str:
    return display_text(event.label or event.experiment, limit=NAME_LIMIT)


def event_title(event: AlertEvent, lang: str) -> str:
    """The one line that says what happened: ``E2 · DAPO crashed after step 57``."""
    name = _name(event)
    step = event.step
    if event.kind in ("crashed", "stalled") and step is None:
        return t(f"alert_title_{event.kind}_start", lang, name=name)
    if event.kind in ("crashed", "stalled", "resumed", "finished", "best"):
        return t(f"alert_title_{event.kind}", lang, name=name, step=step if step is not None else "?")
    if event.kind == "non_finite":
        metric = display_text(short_metric(event.metric or ""), limit=NAME_LIMIT)
        return t("alert_title_non_finite", lang, name=name, metric=metric, step=step)
    kind = KINDS.get(event.kind, {}).get(lang, event.kind)
    if step is None:
        return t("alert_title_signal_nostep", lang, name=name, kind=kind)
    return t("alert_title_signal", lang, name=name, kind=kind, step=step)


def _field(key: str, value: object, lang: str) -> str:
    return t("alert_field", lang, label=t("alert_field_" + key, lang), value=value)


def event_message(event: AlertEvent, *, lang: str, public_url: str = "") -> AlertMessage:
    """The message for one event (see the module docstring)."""
    lang = lang if lang in LANGUAGES else "en"
    lines = [display_text(event.detail.get(lang) or event.detail.get("en", "")), ""]
    lines.append(_field("experiment", display_text(f"{event.experiment} · {event.label}"), lang))
    lines.append(_field("track", display_text(track_name(event.track, lang), limit=NAME_LIMIT), lang))
    if event.step is not None:
        lines.append(_field("step", event.step, lang))
    if event.exception:
        lines.append(_field("exception", display_text(event.exception), lang))
    if event.frame:
        lines.append(_field("frame", display_text(event.frame), lang))
    lines.append(_field("severity", t(f"severity_{event.severity}", lang), lang))
    link = experiment_link(public_url, event)
    if link is not None:
        lines.append(_field("link", link, lang))
    return AlertMessage(
        title=t("alert_title", lang, title=event_title(event, lang)), body="\n".join(lines), severity=event.severity
    )


_ORDER = {"info": 0, "warning": 1, "critical": 2}


def digest_message(
    events: Sequence[AlertEvent], *, root: str, lang: str, public_url: str = "", limit: int, window_s: float
) -> AlertMessage:
    """One message for many events about one log root: a line each (severity, what happened, link), most severe
    first."""
    lang = lang if lang in LANGUAGES else "en"
    ordered = sorted(events, key=lambda event: -_ORDER[event.severity])
    shown_root = display_text(root)
    lines = [t("alert_digest_intro", lang, limit=limit, window=format_duration(window_s / 3600, lang)), ""]
    for event in ordered:
        link = experiment_link(public_url, event)
        line = t("alert_digest_line", lang, severity=t(f"severity_{event.severity}", lang),
                 title=event_title(event, lang))  # fmt: skip
        lines.append(line if link is None else t("alert_digest_link", lang, line=line, link=link))
    severity: Severity = ordered[0].severity if ordered else "info"
    title = t("alert_title", lang, title=t("alert_digest_title", lang, count=len(events), root=shown_root))
    return AlertMessage(title=title, body="\n".join(lines), severity=severity)
