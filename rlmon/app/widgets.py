"""Controls shared by the pages: smoothing, x axis and log scale, kept in the URL; the metric filter; the language
picker (the sidebar's, and the sign-in page's)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import streamlit as st

from rlmon.app.url import UrlField, choice_field, number_field
from rlmon.settings import Settings, setting_range
from rlmon.text import LANGUAGE_NAMES, LANGUAGES, t

if TYPE_CHECKING:  # imported where it is used
    from rlmon.analysis.smoothing import Smoothing

__all__ = [
    "SMOOTHING_METHODS",
    "X_AXES",
    "filter_field",
    "filter_note",
    "language_picker",
    "metric_filter",
    "view_controls",
    "view_fields",
]

SMOOTHING_METHODS = {"none": "none", "ma": "moving_average", "ema": "ema"}
"""URL value -> :class:`~rlmon.analysis.smoothing.Smoothing` method."""
X_AXES = ("step", "hours")


def view_fields(prefix: str, settings: Settings) -> list[UrlField]:
    """URL fields of the smoothing and x-axis controls of a page (``smooth``, ``win``, ``w``, ``x``)."""
    default_method = {"moving_average": "ma"}.get(settings.smoothing, settings.smoothing)
    fewest, most = setting_range("smoothing_window")
    return [
        choice_field(f"{prefix}_smoothing", "smooth", tuple(SMOOTHING_METHODS), default_method),
        number_field(f"{prefix}_window", "win", low=fewest, high=most, default=settings.smoothing_window, integer=True),
        number_field(f"{prefix}_weight", "w", low=0.0, high=0.99, default=settings.smoothing_weight, integer=False),
        choice_field(f"{prefix}_x", "x", X_AXES, "step"),
    ]


def view_controls(prefix: str, settings: Settings, lang: str, *, with_log: bool) -> tuple[Smoothing, str, bool]:
    """Smoothing (none / moving average window / EMA weight), x axis and log scale, keyed ``<prefix>_*``.

    Returns
    -------
    (Smoothing, x axis, log scale)
    """
    from rlmon.analysis.smoothing import Smoothing

    default_method = {"moving_average": "ma"}.get(settings.smoothing, settings.smoothing)
    st.session_state.setdefault(f"{prefix}_smoothing", default_method)
    st.session_state.setdefault(f"{prefix}_window", settings.smoothing_window)
    st.session_state.setdefault(f"{prefix}_weight", float(settings.smoothing_weight))
    st.session_state.setdefault(f"{prefix}_x", "step")
    if with_log:
        st.session_state.setdefault(f"{prefix}_log", False)
    columns = st.columns([2.3, 1.7, 1.7, 1.0], vertical_alignment="bottom")
    method = columns[0].segmented_control(
        t("control_smoothing", lang),
        list(SMOOTHING_METHODS),
        key=f"{prefix}_smoothing",
        format_func=lambda value: t("smoothing_" + SMOOTHING_METHODS[value], lang),
        persist_state="session",
    )
    method = method if method in SMOOTHING_METHODS else "none"
    window = int(st.session_state[f"{prefix}_window"])
    weight = float(st.session_state[f"{prefix}_weight"])
    if method == "ma":
        fewest, most = setting_range("smoothing_window")
        window = int(
            columns[1].number_input(
                t("control_window", lang), min_value=fewest, max_value=most, step=1, key=f"{prefix}_window",
                persist_state="session",
            )
        )  # fmt: skip
    elif method == "ema":
        weight = float(
            columns[1].slider(
                t("control_weight", lang), min_value=0.0, max_value=0.99, step=0.01, key=f"{prefix}_weight",
                help=t("control_weight_help", lang), persist_state="session",
            )
        )  # fmt: skip
    x = columns[2].segmented_control(
        t("control_x", lang),
        list(X_AXES),
        key=f"{prefix}_x",
        format_func=lambda value: t("x_" + value, lang),
        persist_state="session",
    )
    x = x if x in X_AXES else "step"
    log_scale = False
    if with_log:
        log_scale = bool(columns[3].toggle(t("control_log", lang), key=f"{prefix}_log", persist_state="session"))
    smoothing = Smoothing(SMOOTHING_METHODS[method], weight=min(max(weight, 0.0), 0.99), window=max(1, window))  # type: ignore[arg-type]
    return smoothing, x, log_scale


def filter_field(key: str) -> UrlField:
    """The URL field (``f``) of a metric filter keyed ``key``."""
    return UrlField(key, "f", parse=lambda values: values[-1][:200], render=lambda value: [value], default="")


def metric_filter(where: Any, *, key: str, label: str, help: str, placeholder: str) -> str:
    """The one metric filter: a text box in ``where`` (a column) for a regular expression over metric keys
    (matched as plain text when it is not one, :func:`rlmon.views.model.match_keys`). Returns the pattern."""
    pattern = where.text_input(label, key=key, placeholder=placeholder, help=help, persist_state="session")
    return str(pattern or "")


def filter_note(where: Any, text: str, *, regex: bool, lang: str) -> None:
    """What a metric filter matched, in ``where``, and that its pattern was read as plain text when so."""
    if not regex:
        text += " · " + t("exp_explorer_literal", lang)
    where.caption(text)


def _keep_language(chosen: str) -> None:
    # A click on the chosen segment clears a segmented control; the language stays what it was.
    if st.session_state.get("app_lang") not in LANGUAGES:
        st.session_state["app_lang"] = chosen


def language_picker(lang: str) -> None:
    """The interface language (``app_lang``, read from the URL and the browser by ``sidebar.language``)."""
    st.segmented_control(
        t("sidebar_language", lang),
        list(LANGUAGES),
        key="app_lang",
        format_func=lambda value: LANGUAGE_NAMES[value],
        selection_mode="single",
        persist_state="session",
        on_change=_keep_language,
        args=(lang,),
    )
