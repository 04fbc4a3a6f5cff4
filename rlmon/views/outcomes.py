"""The experiment page's "From what the model wrote" section: per step, the mean length of correct and of
incorrect responses (two lines, the Dr.GRPO paper's plot) and the share of groups whose responses all got the
same reward, from the training generation dumps (:mod:`rlmon.analysis.outcomes`), with the signal when
incorrect responses grow much faster than correct ones."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

import polars as pl

from rlmon.analysis.outcomes import OutcomeTable, detect_length_gap, outcome_table
from rlmon.analysis.signals import Signal
from rlmon.logs.samples import ExperimentSamples
from rlmon.schema import EXPERIMENT, HOURS, LONG_SCHEMA, METRIC, STEP, VALUE
from rlmon.settings import Settings
from rlmon.text import t
from rlmon.views import charts
from rlmon.views.charts import ChartOptions
from rlmon.views.model import ChartPlan, ExperimentView, LogNotes, log_notes

__all__ = ["CORRECT_COLOR", "INCORRECT_COLOR", "OutcomeBlock", "outcome_block", "outcome_signal"]

CORRECT_COLOR = "#54a24b"
INCORRECT_COLOR = "#e45756"
_HEIGHT = 190


@dataclass(frozen=True)
class OutcomeBlock:
    """What the section shows: its title and caption, the two charts, the signal (if it fired) and the notes on
    dump records that could not be read."""

    title: str
    caption: str
    charts: tuple[ChartPlan, ...]
    signal: Signal | None
    notes: LogNotes | None


def _long(table: OutcomeTable, columns: dict[str, str]) -> pl.DataFrame:
    """One series per column of ``table.frame`` (its name in the ``experiment`` column), over steps."""
    parts = [
        table.frame.select(
            pl.lit(column, dtype=pl.String).alias(EXPERIMENT),
            pl.col("step").alias(STEP),
            pl.lit(None, dtype=pl.Float64).alias(HOURS),
            pl.lit(column, dtype=pl.String).alias(METRIC),
            pl.col(column).cast(pl.Float64).alias(VALUE),
        ).filter(pl.col(VALUE).is_not_null())
        for column in columns
    ]
    return pl.concat(parts) if parts else pl.DataFrame(schema=LONG_SCHEMA)


def _options(lang: str, *, max_points: int) -> ChartOptions:
    return ChartOptions(
        title="",
        y_title="",
        x="step",
        x_title=t("x_step", lang),
        max_points=max_points,
        height=_HEIGHT,
        experiment_title=t("col_experiment", lang),
        raw_suffix=t("raw_suffix", lang),
        empty_text=t("no_data", lang),
    )


def outcome_signal(view: ExperimentView, found: ExperimentSamples, *, settings: Settings) -> Signal | None:
    """The ``incorrect_length_growth`` signal of ``view`` from its samples ``found``, or None."""
    return detect_length_gap(outcome_table(found.frame), settings=settings, experiment=view.id, label=view.label)


def outcome_block(
    view: ExperimentView, found: ExperimentSamples, *, settings: Settings, lang: str, paths: Mapping[str, str]
) -> OutcomeBlock | None:
    """The section of ``view`` from its samples ``found``; None when no training dump holds a scored sample.

    The length chart draws correct responses in green and incorrect ones in red (one line each, per step);
    the share chart the groups with all-equal rewards, in percent."""
    table = outcome_table(found.frame)
    if table.empty:
        return None
    unit = t(f"outcome_unit_{table.unit}", lang)
    base = _options(lang, max_points=settings.max_points)
    lengths = {"correct_length": t("outcome_correct", lang), "incorrect_length": t("outcome_incorrect", lang)}
    length_options = replace(
        base,
        title=t("outcome_chart_title", lang, unit=unit),
        y_title=unit,
        labels=lengths,
        colors={"correct_length": CORRECT_COLOR, "incorrect_length": INCORRECT_COLOR},
        legend=True,
    )
    share_label = t("outcome_equal_share", lang)
    share_options = replace(
        base,
        title=t("outcome_equal_title", lang),
        y_title=share_label,
        labels={"equal_share": share_label},
        colors={"equal_share": view.color},
        percent=True,
    )
    identity = (view.id, view.serial, table.frame.height, lang, settings.max_points)
    length_long = _long(table, lengths)
    share_long = _long(table, {"equal_share": share_label})
    plans = (
        ChartPlan(
            "outcome_lengths",
            ("outcome_lengths", *identity),
            lambda: charts.metric_chart_spec(length_long, length_options),
        ),
        ChartPlan(
            "outcome_equal_share",
            ("outcome_equal_share", *identity),
            lambda: charts.metric_chart_spec(share_long, share_options),
        ),
    )
    signal = detect_length_gap(table, settings=settings, experiment=view.id, label=view.label)
    return OutcomeBlock(
        title=t("outcome_section", lang),
        caption=t("outcome_caption", lang),
        charts=plans,
        signal=signal,
        notes=log_notes(found.problems, lang=lang, paths=paths),
    )
