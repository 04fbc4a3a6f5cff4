"""The tables the pages and the report show, as polars frames of text (and a few numbers): experiments,
signals, what differs between settings, and an experiment's log files."""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import polars as pl

from rlmon.analysis.signals import Signal
from rlmon.runs.experiment import SETTING_GROUPS, settings_diff
from rlmon.runs.groups import find_groups
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
from rlmon.text.lang import join_list
from rlmon.views.model import (
    STATUS_GLYPHS,
    ExperimentView,
    TableNumbers,
    display_labels,
    shown_track_names,
    signal_link,
)

__all__ = [
    "GROUP_COLUMNS",
    "SOURCE_COLUMNS",
    "experiments_frame",
    "grouped_experiments_frame",
    "groups_frame",
    "settings_diff_frame",
    "signals_frame",
    "sources_frame",
]

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


def _group_figure(values: Sequence[float | None], write: Callable[[float | None, str], str], lang: str) -> str:
    """``mean ± std (n = k)`` of the finite ``values`` (a single value has no spread), else the unknown mark."""
    present = [value for value in values if value is not None and math.isfinite(value)]
    if not present:
        return UNKNOWN
    spread = statistics.stdev(present) if len(present) >= 2 else None
    return t("group_figure", lang, mean=write(statistics.fmean(present), lang), std=write(spread, lang),
             n=str(len(present)))  # fmt: skip


def grouped_experiments_frame(
    views: Sequence[ExperimentView], numbers: Mapping[str, TableNumbers], *, slugs: Mapping[str, str], lang: str
) -> tuple[pl.DataFrame, list[str | None]]:
    """The experiments table with each group of repeats (:func:`rlmon.runs.groups.find_groups`) as one row, where
    its first run would be, and every other run as in :func:`experiments_frame` (same columns).

    A group's row: its name and size (``DAPO (3 runs)``), ``n = 3`` and its runs' statuses, the mean progress, and
    the hours and each headline number as mean ± sample standard deviation over its runs with ``n`` (how many have
    the number); no sparkline and no page (its runs have theirs). Returns the frame and, per row, the experiment
    it opens (None for a group's row).
    """
    runs = experiments_frame(views, numbers, slugs=slugs, lang=lang)
    groups = find_groups([view.experiment for view in views])
    group_of = {member: group for group in groups for member in group.members}
    by_id = {view.id: view for view in views}
    labels = {view.id: view.label for view in views}
    rows: list[dict[str, Any]] = []
    opens: list[str | None] = []
    for index, view in enumerate(views):
        group = group_of.get(view.id)
        if group is None:
            rows.append(runs.row(index, named=True))
            opens.append(view.id)
            continue
        if view.id != group.members[0]:
            continue
        members = [by_id[member] for member in group.members]
        headlines = [numbers.get(member) or _NO_NUMBERS for member in group.members]
        statuses: dict[str, int] = {}
        for member in members:
            statuses[member.status] = statuses.get(member.status, 0) + 1
        status = " · ".join(
            [f"n = {len(members)}"]
            + [
                f"{STATUS_GLYPHS.get(state, '')} {count} {t('status_' + state, lang)}"
                for state, count in statuses.items()
            ]
        )
        progress = [
            100.0 * member.experiment.steps_done / member.experiment.total_steps
            for member in members
            if member.experiment.total_steps
        ]
        row = runs.row(index, named=True) | {
            "experiment": t("group_legend", lang, name=display_text(group.name, limit=NAME_LIMIT), n=len(members)),
            "status": status,
            "progress": statistics.fmean(progress) if progress else None,
            "hours": _group_figure([member.experiment.elapsed_h for member in members], format_hours, lang),
            "first5": _group_figure([item.first5_pass for item in headlines], format_percent, lang),
            "last10": _group_figure([item.last10_pass for item in headlines], format_percent, lang),
            "best_val": _group_figure([item.best_val for item in headlines], format_score, lang),
            "last_val": _group_figure([item.last_val for item in headlines], format_score, lang),
            "spark": [],
            "page": "",
            "whole": join_list([labels[member] for member in group.members], lang),
        }
        if "eta" in row:
            row["eta"] = ""
        rows.append(row)
        opens.append(None)
    return pl.DataFrame(rows, schema=runs.schema, orient="row"), opens


GROUP_COLUMNS = ("group", "members", "first5", "last10", "best_val")
"""Columns of :func:`groups_frame`."""


def groups_frame(views: Sequence[ExperimentView], numbers: Mapping[str, TableNumbers], *, lang: str) -> pl.DataFrame:
    """One row per group of repeats among ``views`` (:func:`rlmon.runs.groups.find_groups`; none without
    repeats): ``group`` (its name), ``members`` (its runs' names), and the first-5 and last-10 pass rates and the
    best validation score as mean ± sample standard deviation over its runs with ``n`` (how many runs have the
    number; a single value has no spread)."""
    labels = {view.id: view.label for view in views}
    rows = []
    for group in find_groups([view.experiment for view in views]):
        headlines = [numbers.get(member) or _NO_NUMBERS for member in group.members]

        rows.append(
            {
                "group": display_text(group.name, limit=NAME_LIMIT),
                "members": join_list([labels[member] for member in group.members], lang),
                "first5": _group_figure([item.first5_pass for item in headlines], format_percent, lang),
                "last10": _group_figure([item.last10_pass for item in headlines], format_percent, lang),
                "best_val": _group_figure([item.best_val for item in headlines], format_score, lang),
            }
        )
    return pl.DataFrame(rows, schema=dict.fromkeys(GROUP_COLUMNS, pl.String), orient="row")


def signals_frame(
    views: Sequence[ExperimentView],
    signals: Sequence[Signal],
    *,
    kinds: Mapping[str, Mapping[str, str]],
    slugs: Mapping[str, str],
    lang: str,
) -> pl.DataFrame:
    """The signals table: experiment, severity, kind, step, message, ``rule`` (the rule that found it, with its
    source when it is verl's), and ``chart`` — the link to the signal's
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
                "rule": signal.rule.get(lang) or signal.rule.get("en", ""),
                "chart": signal_link(slugs.get(experiment, ""), signal),
            }
        )
    names = ("experiment", "severity", "kind", "step", "message", "rule", "chart")
    return pl.DataFrame(rows, schema={name: pl.String for name in names}, orient="row")


def settings_diff_frame(views: Sequence[ExperimentView], lang: str) -> pl.DataFrame | None:
    """What differs between the experiments' settings: group, setting, then one column per experiment; None
    when fewer than two experiments, an empty frame when nothing differs.

    With groups of repeats (:func:`rlmon.runs.groups.find_groups`) and something besides one group in view, what
    differs between the groups: one column per group (``DAPO (3 runs)``, its settings its first run's) and per run
    in no group, and a setting that differs between the runs of one group (a seed) is left out."""
    if len(views) < 2:
        return None
    labels = display_labels(views, lang)
    groups = find_groups([view.experiment for view in views])
    group_of = {member: group for group in groups for member in group.members}
    shown = [view for view in views if view.id not in group_of or group_of[view.id].members[0] == view.id]
    if groups and len(shown) >= 2:
        by_id = {view.id: view for view in views}
        within = {
            diff.key
            for group in groups
            for diff in settings_diff([by_id[member].experiment for member in group.members])
        }
        diffs = [diff for diff in settings_diff([view.experiment for view in shown]) if diff.key not in within]
        for view in shown:
            if view.id in group_of:
                group = group_of[view.id]
                labels[view.id] = t("group_legend", lang, name=display_text(group.name, limit=NAME_LIMIT),
                                    n=len(group.members))  # fmt: skip
        views = shown
    else:
        diffs = settings_diff([view.experiment for view in views])
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
