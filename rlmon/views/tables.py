"""The tables the pages and the report show, as polars frames of text (and a few numbers): experiments,
signals, what differs between settings, and an experiment's log files."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from rlmon.analysis.signals import Signal
from rlmon.runs.experiment import SETTING_GROUPS, settings_diff
from rlmon.text import (
    MESSAGES,
    UNKNOWN,
    format_duration,
    format_hours,
    format_percent,
    format_progress,
    format_score,
    format_size,
    setting_display,
    setting_label,
    t,
)
from rlmon.text.display import NAME_LIMIT, NO_PATHS, display_text
from rlmon.views.model import (
    STATUS_GLYPHS,
    ExperimentView,
    TableNumbers,
    display_labels,
    shown_track_names,
    signal_link,
)

__all__ = ["SOURCE_COLUMNS", "experiments_frame", "settings_diff_frame", "signals_frame", "sources_frame"]

_NO_NUMBERS = TableNumbers()


SOURCE_COLUMNS = ("file", "size", "range", "role", "note")
"""Columns of :func:`sources_frame`."""


def experiments_frame(
    views: Sequence[ExperimentView], numbers: Mapping[str, TableNumbers], *, slugs: Mapping[str, str], lang: str
) -> pl.DataFrame:
    """The overview's experiments table, one row per experiment.

    ``numbers`` maps experiment id -> its headline (:class:`rlmon.views.model.TableNumbers`; an experiment
    missing from it shows none). Columns: ``experiment`` (its name in the view, whole), ``track`` (only when
    several tracks are in view), ``status`` (glyph, status, steps), ``progress`` (0–100), ``hours``, ``eta`` (only
    when a run has one), ``first5``, ``last10``, ``best_val``, ``last_val``, ``spark`` (the pass rate, each on
    its own scale), ``page`` (the experiment page's path), ``whole`` (its whole label and id: what the name
    column's help lists for shortened names).
    """
    tracks = [view.experiment.track for view in views]
    several = len(set(tracks)) > 1
    with_eta = any(view.experiment.eta_h is not None for view in views)
    short = shown_track_names(tracks, lang)
    unknown = UNKNOWN
    rows = []
    for view in views:
        experiment = view.experiment
        headline = numbers.get(view.id) or _NO_NUMBERS
        total = experiment.total_steps
        best_val = headline.best_val
        best = f"{format_score(best_val, lang)} @{headline.best_val_step}" if best_val is not None else unknown
        row: dict[str, Any] = {"experiment": view.label}
        if several:
            row["track"] = display_text(short[experiment.track], limit=NAME_LIMIT)
        row |= {
            "status": f"{STATUS_GLYPHS.get(view.status, '')} {t('status_' + view.status, lang)} "
            f"{format_progress(experiment.steps_done, total, lang)}",
            "progress": 100.0 * experiment.steps_done / total if total else None,
            "hours": format_hours(experiment.elapsed_h, lang),
            "first5": format_percent(headline.first5_pass, lang),
            "last10": format_percent(headline.last10_pass, lang),
            "best_val": best,
            "last_val": format_score(headline.last_val, lang),
            "spark": list(headline.sparkline),
            "page": slugs.get(view.id, ""),
            "whole": view.tooltip,
        }
        if with_eta:
            row["eta"] = format_duration(experiment.eta_h, lang) if experiment.eta_h is not None else ""
        rows.append(row)
    schema: dict[str, Any] = {"experiment": pl.String}
    if several:
        schema["track"] = pl.String
    schema |= {
        "status": pl.String,
        "progress": pl.Float64,
        "hours": pl.String,
        **({"eta": pl.String} if with_eta else {}),
        "first5": pl.String,
        "last10": pl.String,
        "best_val": pl.String,
        "last_val": pl.String,
        "spark": pl.List(pl.Float64),
        "page": pl.String,
        "whole": pl.String,
    }
    return pl.DataFrame([{name: row.get(name) for name in schema} for row in rows], schema=schema, orient="row")


def signals_frame(
    views: Sequence[ExperimentView],
    signals: Sequence[Signal],
    *,
    kinds: Mapping[str, Mapping[str, str]],
    slugs: Mapping[str, str],
    lang: str,
) -> pl.DataFrame:
    """The signals table: experiment, severity, kind, step, message, and ``chart`` — the link to the signal's
    chart on the experiment page, with its step marked (:func:`signal_link`)."""
    labels = display_labels(views, lang)
    rows = []
    for signal in signals:
        experiment = signal.experiment
        if experiment not in labels:
            continue
        step, step_end = signal.step, signal.step_end
        where = "" if step is None else (f"{step}–{step_end}" if step_end not in (None, step) else str(step))
        severity, kind = signal.severity, signal.kind
        rows.append(
            {
                "experiment": labels[experiment],
                "severity": t("severity_" + severity, lang) if f"severity_{severity}" in MESSAGES else severity,
                "kind": kinds.get(kind, {}).get(lang, kind),
                "step": where,
                "message": display_text(signal.text(lang)),
                "chart": signal_link(slugs.get(experiment, ""), signal),
            }
        )
    names = ("experiment", "severity", "kind", "step", "message", "chart")
    return pl.DataFrame(rows, schema={name: pl.String for name in names}, orient="row")


def settings_diff_frame(views: Sequence[ExperimentView], lang: str) -> pl.DataFrame | None:
    """What differs between the experiments' settings: group, setting, then one column per experiment; None
    when fewer than two experiments, an empty frame when nothing differs."""
    if len(views) < 2:
        return None
    diffs = settings_diff([view.experiment for view in views])
    labels = display_labels(views, lang)
    group_names = {group: t("group_" + group, lang) for group in SETTING_GROUPS}
    columns: dict[str, list[str]] = {
        t("col_group", lang): [group_names.get(diff.group, diff.group) for diff in diffs],
        t("col_setting", lang): [setting_label(diff.key, diff.label, lang) for diff in diffs],
    }
    for view in views:
        # labels cut at NAME_LIMIT may meet: a column name must be unique
        name, count = labels[view.id], 2
        while name in columns:
            name, count = f"{labels[view.id]} ({count})", count + 1
        columns[name] = [display_text(setting_display(view.experiment.setting(diff.key), lang)) for diff in diffs]
    return pl.DataFrame(columns, schema={name: pl.String for name in columns})


def sources_frame(view: ExperimentView, lang: str, *, paths: Mapping[str, str] = NO_PATHS) -> pl.DataFrame:
    """The experiment's log files as its page and its report list them: ``file``, ``size``, ``range`` (of
    training steps), ``role`` (in ``lang``) and ``note``, all text; a folder of ``paths`` in a note reads as its
    public name (:func:`rlmon.text.display.display_text`)."""
    rows = []
    for source in view.experiment.sources:
        if source.first_step is None:
            span = UNKNOWN
        elif source.first_step == source.last_step:
            span = str(source.first_step)
        else:
            span = f"{source.first_step}–{source.last_step}"
        role_key = "role_" + source.role
        rows.append(
            {
                "file": display_text(source.name, paths=paths),
                "size": format_size(source.size, lang),
                "range": span,
                "role": t(role_key, lang) if role_key in MESSAGES else source.role,
                "note": display_text(source.note, paths=paths),
            }
        )
    return pl.DataFrame(rows, schema=dict.fromkeys(SOURCE_COLUMNS, pl.String))
