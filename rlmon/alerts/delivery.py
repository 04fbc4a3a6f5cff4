"""Sending one message to one target, through apprise (Feishu/Lark, DingTalk, WeCom, Slack, Discord, Telegram,
Matrix, email, generic JSON webhooks ... one URL form each: https://github.com/caronc/apprise/wiki).

apprise is imported when a target is first checked or used, not with rlmon (it takes a fifth of a second).
Its own log lines can quote a target's URL parts, so its logger does not pass them on to the process's handlers:
:func:`send` captures them, and the reason it returns is :func:`~rlmon.alerts.targets.scrub`\\ bed.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rlmon.alerts.targets import Target, make_target, scrub

__all__ = ["CONNECT_TIMEOUT_S", "READ_TIMEOUT_S", "Delivery", "check_targets", "send"]

CONNECT_TIMEOUT_S = 5.0
READ_TIMEOUT_S = 10.0
"""Bounds on one try, so a target that hangs costs a cycle of the watcher seconds, not minutes."""

_NOTIFY_TYPES = {"info": "info", "warning": "warning", "critical": "failure"}
"""Severity -> apprise's notification type (the colour or icon a chat service shows)."""


def _apprise() -> Any:
    import apprise

    quiet = logging.getLogger("apprise")
    quiet.propagate = False  # its lines may hold secrets; send() reports failures itself, scrubbed
    return apprise


@dataclass(frozen=True)
class Delivery:
    """How one try went."""

    ok: bool
    reason: str | None = None
    """Why it failed, scrubbed of the target's secrets."""


def check_targets(urls: Iterable[str], origin: str) -> tuple[list[Target], list[str]]:
    """The targets apprise can send to, and one problem for each URL it cannot use.

    A problem names the target by its place and :attr:`~rlmon.alerts.targets.Target.shown` form, never the URL:
    ``alert target 2 of --notify (foo://…) is not a URL apprise can send to: unknown scheme 'foo'``.
    """
    apprise = _apprise()
    from apprise.manager_plugins import NotificationManager

    services = NotificationManager()  # type: ignore[no-untyped-call]
    good: list[Target] = []
    problems: list[str] = []
    for index, url in enumerate(urls, start=1):
        # "#2": which of the list it is, so two targets on one host (shown alike) can be told apart
        target = make_target(url, f"{origin} #{index}")
        scheme = target.url.partition("://")[0].lower()
        plugin = apprise.Apprise.instantiate(target.url, suppress_exceptions=True) if scheme else None
        if plugin is None:
            known = scheme in services
            reason = "its parts do not fit that service's URL form" if known else f"unknown scheme {scheme!r}"
            problems.append(
                f"alert target {index} of {origin} ({target.shown}) is not a URL apprise can send to: {reason} "
                "(docs/alerts.md lists the forms)"
            )
            continue
        good.append(target)
    return good, problems


def send(target: Target, *, title: str, body: str, severity: str) -> Delivery:
    """Send one message to one target (plain text); never raises.

    Parameters
    ----------
    target
        Where.
    title, body
        The message (:class:`rlmon.alerts.wording.AlertMessage`).
    severity
        ``info``, ``warning`` or ``critical``: the notification type apprise gives the service.
    """
    apprise = _apprise()
    try:
        plugin = apprise.Apprise.instantiate(target.url, suppress_exceptions=True)
        if plugin is None:
            return Delivery(False, f"{target.shown} is not a URL apprise can send to")
        for name, value in (("socket_connect_timeout", CONNECT_TIMEOUT_S), ("socket_read_timeout", READ_TIMEOUT_S)):
            if hasattr(plugin, name):
                setattr(plugin, name, value)
        with apprise.LogCapture(level=logging.WARNING) as captured:
            ok = bool(
                plugin.notify(
                    body=body,
                    title=title,
                    notify_type=_NOTIFY_TYPES.get(severity, "info"),
                    body_format=apprise.NotifyFormat.TEXT,
                )
            )
            said = captured.getvalue()
    except Exception as error:  # a plugin failing in a way apprise did not catch: this target fails, not the watcher
        return Delivery(False, scrub(f"{type(error).__name__}: {error}", [target]))
    if ok:
        return Delivery(True)
    return Delivery(False, scrub(_last_reason(said) or "the service did not accept the message", [target]))


def _last_reason(log_text: str) -> str:
    """The last line apprise logged, without its time and level (``2026-12-03 08:25:26,581 - WARNING - ...``)."""
    lines = [line.strip() for line in log_text.splitlines() if line.strip()]
    if not lines:
        return ""
    return lines[-1].split(" - ", 2)[-1]
