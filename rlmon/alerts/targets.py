"""Alert targets: apprise URLs, which hold secrets (tokens, passwords, webhook keys), and how rlmon shows them.

A :class:`Target` keeps its URL to itself: what rlmon shows, logs and stores is :attr:`Target.shown` (the
scheme and the host, :func:`redact_url`) and :attr:`Target.id` (a fingerprint that tells targets apart without
saying anything of them). Text that may quote a URL's parts (a library's error message) passes
:func:`scrub` before anyone sees it.

>>> redact_url("json://alerts.example.com:8080/hook?token=s3cret")
'json://alerts.example.com'
>>> redact_url("tgram://123456:ABCDEF/-100200")   # the "host" of a Telegram URL is the bot's token
'tgram://…'
>>> redact_url("mailtos://rlmon:pa55@smtp.example.com?to=team@example.com")
'mailtos://smtp.example.com'
"""

from __future__ import annotations

import hashlib
import ipaddress
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, unquote, urlsplit

__all__ = ["HIDDEN", "Target", "make_target", "redact_url", "scrub"]

HIDDEN = "…"
"""What stands for a hidden part of a target."""

_HOST_SCHEMES = frozenset({"json", "jsons", "xml", "xmls", "form", "forms", "mailto", "mailtos"})
"""Schemes whose host is a machine's name even without a dot (an intranet gateway); in many others the "host"
is a token (``tgram://<bot token>``, ``feishu://<token>``, ``discord://<webhook id>``)."""
_LABEL = re.compile(r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$")


@dataclass(frozen=True)
class Target:
    """One place alerts are sent to."""

    url: str = field(repr=False)
    """The apprise URL, secrets and all: handed to apprise only."""
    shown: str
    """Its scheme and host (:func:`redact_url`): what rlmon shows, logs and stores."""
    id: str
    """A fingerprint of the URL (16 hex digits of its SHA-256): which target, without its secrets."""
    origin: str
    """Where it was configured: ``RLMON_ALERT_TARGETS``, ``--notify``, or the ``rlmon.toml`` it is in."""


def make_target(url: str, origin: str) -> Target:
    """A :class:`Target` for ``url`` (its form is not checked here: :func:`rlmon.alerts.delivery.check_targets`)."""
    url = url.strip()
    return Target(url=url, shown=redact_url(url), id=hashlib.sha256(url.encode()).hexdigest()[:16], origin=origin)


def _is_hostname(host: str, scheme: str) -> bool:
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        pass
    labels = host.split(".")
    if not all(_LABEL.match(label) for label in labels):
        return False
    if len(labels) == 1:
        return host == "localhost" or scheme in _HOST_SCHEMES
    return labels[-1].isalpha()


def redact_url(url: str) -> str:
    """``scheme://host`` of a target URL: no user, password, port, path or query; the host too is hidden
    (:data:`HIDDEN`) when it does not look like a machine's name (many services put a token there)."""
    scheme, sep, rest = url.strip().partition("://")
    scheme = scheme.lower()
    if not sep or not re.fullmatch(r"[a-z][a-z0-9+.-]*", scheme):
        return HIDDEN
    try:
        host = (urlsplit("x://" + rest).hostname or "").lower()
    except ValueError:
        host = ""
    return f"{scheme}://{host if host and _is_hostname(host, scheme) else HIDDEN}"


def _secret_parts(target: Target) -> list[str]:
    """The parts of a target's URL that may be secret, as they could appear in a message: the URL whole, its
    user and password, every path part and query value, its host when that is not shown."""
    scheme, _, rest = target.url.partition("://")
    parts = [target.url, rest]
    try:
        split = urlsplit("x://" + rest)
        netloc_user, _, _ = split.netloc.rpartition("@")
        parts += [netloc_user, *netloc_user.split(":")]
        host = split.hostname or ""
        if not target.shown.endswith("://" + host):
            parts += [split.netloc.rpartition("@")[2], host]
        parts += split.path.split("/")
        parts += [value for _, value in parse_qsl(split.query, keep_blank_values=False)]
        parts += [part for part in split.fragment.split("/")]
    except ValueError:
        pass
    found: set[str] = set()
    for part in parts:
        for variant in (part, unquote(part)):
            if len(variant) >= 3 and variant.lower() not in (scheme.lower(), "localhost"):
                found.add(variant)
    return sorted(found, key=len, reverse=True)


def scrub(text: str, targets: Iterable[Target]) -> str:
    """``text`` with every part of the targets' URLs that may be secret replaced by :data:`HIDDEN`.

    >>> hook = make_target("json://hooks.example.com/T0KEN123", "test")
    >>> scrub("403 from hooks.example.com for /T0KEN123", [hook])
    '403 from hooks.example.com for /…'
    """
    for target in targets:
        for part in _secret_parts(target):
            text = text.replace(part, HIDDEN)
    return text
