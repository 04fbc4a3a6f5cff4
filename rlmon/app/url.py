"""URL state. The view (page, experiments, metrics, smoothing, x axis, language) lives in the query string, with
short, language-independent values (:class:`UrlField`). Values coming from the URL are only ever matched
against known choices (experiment ids from the catalog, metric keys that exist); nothing from the URL or a
widget becomes a filesystem path.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import streamlit as st

__all__ = ["UrlField", "choice_field", "flag_field", "list_field", "number_field", "read_url", "write_url"]


@dataclass(frozen=True)
class UrlField:
    """A piece of view state kept in the query string.

    ``parse`` turns the URL values into the session value, or returns None to reject them (unknown
    experiments, metrics that do not exist, numbers out of range); ``render`` is its inverse. The value
    equal to ``default`` is left out of the URL to keep links short.
    """

    key: str
    """Session-state (and widget) key."""
    param: str
    """Query parameter."""
    parse: Callable[[list[str]], Any]
    render: Callable[[Any], list[str]]
    default: Any = None


_URL_SEEN = "_rlmon_url_seen"


def read_url(fields: Sequence[UrlField]) -> dict[str, bool]:
    """Seed session state from the query string when the URL carries a value this session has not written
    (a pasted link, the browser's back button). Returns, for each parameter that carried such a value, whether
    the value was valid and is now the session's: what a link asked for, and what it chose."""
    seen: dict[str, list[str]] = st.session_state.setdefault(_URL_SEEN, {})
    linked: dict[str, bool] = {}
    for item in fields:
        values = st.query_params.get_all(item.param)
        if not values or values == seen.get(item.param):
            continue
        seen[item.param] = values
        try:
            parsed = item.parse(values)
        except (ValueError, TypeError):
            parsed = None
        if parsed is not None:
            st.session_state[item.key] = parsed
        linked[item.param] = parsed is not None
    return linked


def write_url(fields: Sequence[UrlField]) -> None:
    """Write the current values of ``fields`` into the query string (defaults are removed)."""
    seen: dict[str, list[str]] = st.session_state.setdefault(_URL_SEEN, {})
    for item in fields:
        if item.key not in st.session_state:
            continue
        value = st.session_state[item.key]
        rendered = [] if value is None or value == item.default else item.render(value)
        current = st.query_params.get_all(item.param)
        if rendered == current:
            seen[item.param] = rendered
            continue
        if rendered:
            st.query_params[item.param] = rendered if len(rendered) > 1 else rendered[0]
        elif item.param in st.query_params:
            del st.query_params[item.param]
        seen[item.param] = rendered


def choice_field(key: str, param: str, choices: Sequence[str], default: str) -> UrlField:
    """A single choice among fixed strings."""
    allowed = tuple(choices)
    return UrlField(
        key=key,
        param=param,
        parse=lambda values: values[-1] if values[-1] in allowed else None,
        render=lambda value: [str(value)],
        default=default,
    )


def number_field(key: str, param: str, *, low: float, high: float, default: float, integer: bool) -> UrlField:
    """A number within ``[low, high]``."""

    def parse(values: list[str]) -> Any:
        number = float(values[-1])
        if not math.isfinite(number) or not low <= number <= high:
            return None
        return int(number) if integer else number

    return UrlField(
        key=key,
        param=param,
        parse=parse,
        render=lambda value: [str(int(value)) if integer else f"{float(value):g}"],
        default=default,
    )


def flag_field(key: str, param: str, *, default: bool) -> UrlField:
    """An on/off value (``1``/``0``)."""
    return UrlField(
        key=key,
        param=param,
        parse=lambda values: {"1": True, "0": False}.get(values[-1]),
        render=lambda value: ["1" if value else "0"],
        default=default,
    )


def list_field(key: str, param: str, allowed: Callable[[str], bool], default: Sequence[str] = ()) -> UrlField:
    """Several strings (repeated parameter), each accepted only when ``allowed`` says so."""

    def parse(values: list[str]) -> Any:
        kept = list(dict.fromkeys(value for value in values if value and allowed(value)))
        return kept or None

    return UrlField(key=key, param=param, parse=parse, render=lambda value: list(value), default=list(default))
