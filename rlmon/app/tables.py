"""The overview's tables (experiments, signals) and the per-step table for download."""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import polars as pl
import streamlit as st

from rlmon.app.guards import escape_markdown
from rlmon.runs.experiment import Setting
from rlmon.schema import EXPERIMENT, STEP
from rlmon.text import display, setting_display, setting_label, t
from rlmon.views import model
from rlmon.views.model import ExperimentView

if TYPE_CHECKING:  # imported where it is used
    from rlmon.analysis.smoothing import Smoothing

__all__ = [
    "download_frame",
    "name_column_px",
    "name_lines",
    "settings_frame",
    "show_experiments_table",
    "show_signals_table",
    "show_table",
    "text_column_px",
    "whole_names_help",
    "wrapped_row_px",
]


def show_table(frame: pl.DataFrame, **options: Any) -> Any:
    """``st.dataframe`` of ``frame`` (``options`` as it takes them), sent whole as an Arrow table: Streamlit turns
    any other frame into a pandas one first, and looks for a lazy source unless told not to (importing pandas
    either way, 0.4 s of one core here, on a fresh server's first screen). Sent with Arrow's long-standing types
    (``large_string``, not polars's string views) for the browser's reader. Returns what ``st.dataframe`` returns
    (its selection, with ``on_select``)."""
    return st.dataframe(frame.to_arrow(compat_level=pl.CompatLevel.oldest()), lazy=False, **options)


def show_experiments_table(frame: pl.DataFrame, *, key: str, lang: str) -> int | None:
    """The overview's experiments table (:func:`rlmon.views.tables.experiments_frame`); a click on any cell of a
    row - its name included - returns that row's index (the page opens the experiment), else None.

    Column widths are set so every column and its whole header fit a 1440 px window with the sidebar open,
    the track column (shown across tracks) included; the name column is as wide as its names need (shown whole),
    the sparkline giving way to it down to :data:`SPARK_MIN_PX`. Past that, the columns beside the name column
    (pinned) scroll. A name wider than :data:`NAME_COLUMN_MAX_PX` wraps: the rows grow to the lines the widest
    name needs (:func:`name_lines`), so every name is shown whole. The whole label and id of each name shown
    shorter are in the column header's tooltip (:func:`whole_names_help`): Streamlit's table draws no tooltip of
    a cell's own (a pandas Styler's ``set_tooltips`` shows its ``<span class="pd-t">`` as text in it).
    """
    across_tracks = "track" in frame.columns
    names = frame.get_column("experiment").to_list()
    widths = {
        "experiment": name_column_px(names, 120 if across_tracks else 150),
        "track": 60, "status": text_column_px(frame.get_column("status").to_list(), 120), "progress": 85,
        "hours": 62, "eta": 62, "first5": 95, "last10": 95, "best_val": 104, "last_val": 70,
    }  # fmt: skip
    for name in ("hours", "first5", "last10", "best_val", "last_val"):
        # a group of repeats' row writes mean ± std (n = 3): those cells widen their columns; others keep theirs
        spread = [text for text in frame.get_column(name).to_list() if text and "±" in text]
        widths[name] = text_column_px(spread, widths[name])
    taken = sum(width for name, width in widths.items() if name in frame.columns)
    widths["spark"] = max(SPARK_MIN_PX, min(SPARK_MAX_PX, TABLE_PX - taken))
    columns: dict[str, Any] = {
        "experiment": st.column_config.TextColumn(
            t("col_experiment", lang),
            pinned=True,
            width=widths["experiment"],
            help=whole_names_help(names, frame.get_column("whole").to_list(), lang),
        ),
        "track": st.column_config.TextColumn(t("col_track", lang), width=widths["track"]),
        "status": st.column_config.TextColumn(t("col_status", lang), width=widths["status"]),
        "progress": st.column_config.ProgressColumn(
            t("col_progress", lang), min_value=0.0, max_value=100.0, format="%.0f%%", width=widths["progress"]
        ),
        "hours": st.column_config.TextColumn(t("col_hours", lang), width=widths["hours"]),
        "eta": st.column_config.TextColumn(t("col_eta", lang), width=widths["eta"]),
        "first5": st.column_config.TextColumn(
            t("col_first5", lang), help=t("table_help_first5", lang), width=widths["first5"]
        ),
        "last10": st.column_config.TextColumn(
            t("col_last10", lang), help=t("table_help_last10", lang), width=widths["last10"]
        ),
        "best_val": st.column_config.TextColumn(t("col_best_val", lang), width=widths["best_val"]),
        "last_val": st.column_config.TextColumn(t("col_last_val", lang), width=widths["last_val"]),
        # Each run's sparkline on its own scale: the shape of its curve, not its place on 0-100.
        "spark": st.column_config.LineChartColumn(t("col_sparkline", lang), width=widths["spark"]),
        "page": None,
        "whole": None,
    }
    lines = name_lines(names)
    event = show_table(
        frame,
        hide_index=True,
        width="stretch",
        key=key,
        row_height=wrapped_row_px(lines) if lines > 1 else None,
        on_select="rerun",
        selection_mode="single-cell",
        column_config={name: config for name, config in columns.items() if name in frame.columns},
    )
    cells = getattr(getattr(event, "selection", None), "cells", None) or []
    if not cells:
        return None
    row = cells[0][0] if isinstance(cells[0], list | tuple) else getattr(cells[0], "row", None)
    return int(row) if isinstance(row, int) and 0 <= row < frame.height else None


NAME_COLUMN_MAX_PX = 320
NAME_MAX_LINES = 3
"""Lines a name wraps to, at most, in the experiments table (names are short: :mod:`rlmon.text.names`)."""
WRAP_SLACK_PX = 40
_CELL_PADDING_PX = 26
TABLE_PX = 978
"""The experiments table's width in a 1440 px window with the sidebar open (tests/browser/test_pages.py)."""
SPARK_MIN_PX = 48
SPARK_MAX_PX = 100


_NARROW = frozenset(".,:;·'|!il ")
_HALF = frozenset("-()[]/frjt")


def _char_px(char: str) -> float:
    """About how wide ``char`` is in the table's 14 px Source Sans (measured in Chromium: lower case 3.4-11.6 px,
    upper case 6.7-11, digits 7, ``…`` 13.3, CJK 14)."""
    if unicodedata.east_asian_width(char) in "WF":
        return 14.0
    if char in _NARROW:
        return 3.6
    if char in _HALF:
        return 4.6
    if char == "…":
        return 13.3
    if char in "mwMW@":
        return 11.2
    if char.isdigit():
        return 7.0
    if char.islower():
        return 6.9
    if char.isupper():
        return 8.4
    return 8.6


def text_column_px(texts: Sequence[str], least: int) -> int:
    """Pixels a text column needs to show every one of ``texts`` whole (:func:`_char_px` each, and the cell's
    padding), at least ``least`` and at most :data:`NAME_COLUMN_MAX_PX`."""
    widest = max((sum(_char_px(char) for char in text) for text in texts), default=0.0)
    return int(min(NAME_COLUMN_MAX_PX, max(least, math.ceil(widest + _CELL_PADDING_PX - 1e-6))))


def name_column_px(names: Sequence[str], least: int) -> int:
    """Pixels the experiments table's name column needs to show every name whole (:func:`text_column_px`): at most
    :data:`NAME_COLUMN_MAX_PX`, a wider name wrapping (:func:`name_lines`)."""
    return text_column_px(names, least)


def name_lines(names: Sequence[str]) -> int:
    """Lines the widest of ``names`` takes in a name column :data:`NAME_COLUMN_MAX_PX` wide (1 when it fits on one,
    at most :data:`NAME_MAX_LINES`): a wrapped line breaks at a word, so each line is counted
    :data:`WRAP_SLACK_PX` short of the column's text width."""
    widest = max((sum(_char_px(char) for char in name) for name in names), default=0.0)
    if widest + _CELL_PADDING_PX <= NAME_COLUMN_MAX_PX:
        return 1
    per_line = NAME_COLUMN_MAX_PX - _CELL_PADDING_PX - WRAP_SLACK_PX
    return min(NAME_MAX_LINES, -int(-widest // per_line))


def wrapped_row_px(lines: int) -> int:
    """The row height that shows ``lines`` lines of a wrapped cell (Streamlit's table wraps text only in rows
    taller than 64 px): 20 px a line and the cell's padding, at least 66."""
    return max(66, 20 * lines + 26)


def whole_names_help(names: Sequence[str], wholes: Sequence[str], lang: str) -> str:
    """The name column's help: its tooltip, listing the whole label and id of each name shown shorter (markdown,
    every name escaped)."""
    pairs = [(name, whole) for name, whole in zip(names, wholes, strict=True) if whole != name]
    if not pairs:
        return t("table_help_names", lang)
    shown = pairs[:_HELP_NAMES]
    lines = [f"- {escape_markdown(name)}: {escape_markdown(whole)}" for name, whole in shown]
    if len(pairs) > len(shown):
        lines.append(f"- {t('more_names', lang, count=len(pairs) - len(shown))}")
    return t("table_help_names_whole", lang) + "\n\n" + "\n".join(lines)


_HELP_NAMES = 30


def show_signals_table(frame: pl.DataFrame, *, key: str, lang: str) -> None:
    """The signals table (:func:`rlmon.views.tables.signals_frame`); each row links to its chart. Its name column is
    pinned and as wide as its names need (:func:`name_column_px`), a wider name wrapping, as in the experiments
    table."""
    names = frame.get_column("experiment").to_list() if "experiment" in frame.columns else []
    lines = name_lines(names)
    show_table(
        frame,
        hide_index=True,
        width="stretch",
        key=key,
        row_height=wrapped_row_px(lines) if lines > 1 else None,
        column_config={
            "experiment": st.column_config.TextColumn(
                t("col_experiment", lang), width=name_column_px(names, 75), pinned=True
            ),
            "severity": st.column_config.TextColumn(t("col_severity", lang), width="small"),
            "kind": st.column_config.TextColumn(t("col_kind", lang), width="small"),
            "step": st.column_config.TextColumn(t("col_step", lang), width="small"),
            "message": st.column_config.TextColumn(t("col_message", lang), width="large"),
            "rule": st.column_config.TextColumn(t("col_rule", lang), width="medium", help=t("col_rule_help", lang)),
            "chart": st.column_config.LinkColumn(
                t("col_chart", lang), display_text=t("chart_link", lang), width="small"
            ),
        },
    )


def download_frame(
    views: Sequence[ExperimentView], smoothed_metrics: Sequence[str], smoothing: Smoothing
) -> pl.DataFrame:
    """The per-step table of ``views`` for download.

    Columns: ``experiment`` (id), ``label``, ``step``, every logged and derived column, ``hours``, and - when
    ``smoothing`` (a :class:`~rlmon.analysis.smoothing.Smoothing`) is on - ``<metric> (smoothed)`` for each of
    ``smoothed_metrics``, smoothed over that metric's logged points as the charts draw it. When the runs hold
    groups of repeats (:func:`rlmon.views.overview.repeat_groups`): ``group`` (its name; null for a run of no
    group) and, for each of ``smoothed_metrics``, ``<metric> (group mean)``, ``(group std)`` and ``(group n)`` at
    that step (:func:`rlmon.analysis.groups.group_steps`, on the logged values), on every member's row.
    """
    from rlmon.analysis.groups import GROUP, group_steps
    from rlmon.analysis.smoothing import SMOOTHED, with_smoothed
    from rlmon.views.overview import repeat_groups

    parts = [
        view.steps.select(
            pl.lit(view.id, dtype=pl.String).alias(EXPERIMENT),
            pl.lit(view.experiment.label, dtype=pl.String).alias("label"),
            pl.all(),
        )
        for view in views
    ]
    if not parts:
        return pl.DataFrame(schema={EXPERIMENT: pl.String, "label": pl.String, STEP: pl.Int64})
    table = pl.concat(parts, how="diagonal_relaxed")
    groups = repeat_groups(views)
    if groups:
        # joined by the group's key (one name set in rlmon.toml in two tracks is two groups), shown by its name
        members = {member: group.key for group in groups for member in group.members}
        names = {group.key: group.name for group in groups}
        table = table.with_columns(
            pl.col(EXPERIMENT).replace_strict(members, default=None, return_dtype=pl.String).alias("_group_key")
        ).with_columns(pl.col("_group_key").replace_strict(names, default=None, return_dtype=pl.String).alias(GROUP))
        for key in smoothed_metrics:
            stats = group_steps(model.long_frame(views, key), members, band="minmax")
            table = table.join(
                stats.select(
                    pl.col(GROUP).alias("_group_key"), STEP, pl.col("mean").alias(f"{key} (group mean)"),
                    pl.col("std").alias(f"{key} (group std)"), pl.col("n").alias(f"{key} (group n)"),
                ),
                on=["_group_key", STEP], how="left", maintain_order="left",
            )  # fmt: skip
        table = table.drop("_group_key")
    if not smoothing.enabled:
        return table
    for key in smoothed_metrics:
        long = model.long_frame(views, key)
        if long.is_empty():
            continue
        smoothed = with_smoothed(long, method=smoothing.method, weight=smoothing.weight, window=smoothing.window)
        table = table.join(
            smoothed.select(EXPERIMENT, STEP, pl.col(SMOOTHED).alias(f"{key} (smoothed)")),
            on=[EXPERIMENT, STEP],
            how="left",
            maintain_order="left",
        )
    return table


def settings_frame(settings: Sequence[Setting], lang: str) -> pl.DataFrame:
    """One group of an experiment's settings as a two-column table: the setting's name and its value, in ``lang``
    (columns named by ``col_setting`` and ``col_value``)."""
    return pl.DataFrame(
        {
            t("col_setting", lang): [
                display.display_text(setting_label(item.key, item.label, lang)) for item in settings
            ],
            t("col_value", lang): [display.display_text(setting_display(item, lang)) for item in settings],
        }
    )
