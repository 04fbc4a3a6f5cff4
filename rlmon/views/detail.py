"""The experiment page: its training curves in reading order, its validation panels and the explorer's small
multiples of every logged key."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import polars as pl

from rlmon.analysis.signals import Signal
from rlmon.analysis.smoothing import Smoothing
from rlmon.runs.metrics import VALIDATION_PREFIX, alias_of, resolve_key, validation_keys
from rlmon.schema import EXPERIMENT, HOURS, LONG_SCHEMA, METRIC, STEP, VALUE
from rlmon.text import t
from rlmon.text.display import NAME_LIMIT, display_text
from rlmon.views import charts
from rlmon.views.charts import ChartOptions
from rlmon.views.lines import axis_title, is_fraction, line_builder
from rlmon.views.model import (
    ChartPlan,
    ExperimentView,
    Focus,
    family_of,
    long_frame,
    match_keys,
    metric_name,
)

__all__ = [
    "DETAIL_HEIGHT",
    "EXPLORER_HEIGHT",
    "EXPLORER_LIMIT",
    "Explorer",
    "ValidationPanel",
    "detail_charts",
    "explorer",
    "validation_panels",
]


DETAIL_HEIGHT = 190
"""Plot-area height of an experiment page's charts (px)."""


EXPLORER_HEIGHT = 125
"""Plot-area height of the explorer's small multiples (px)."""


EXPLORER_LIMIT = 24


PHASES = (
    "gen",
    "reward",
    "old_log_prob",
    "ref",
    "values",
    "adv",
    "update_critic",
    "update_actor",
    "update_weights",
    "testing",
    "save_checkpoint",
)
"""verl's top-level step phases (``timing_s/<phase>``, v0.1 ``timing/<phase>``); their sum is the step time."""


_SERIES_GREY = "#9ca3af"


def _series_frame(view: ExperimentView, keys: Mapping[str, str]) -> pl.DataFrame:
    """A long frame with one series per metric key (the ``experiment`` column names the series)."""
    parts = [
        view.steps.select(
            pl.lit(key, dtype=pl.String).alias(EXPERIMENT),
            pl.col(STEP),
            pl.col(HOURS),
            pl.lit(key, dtype=pl.String).alias(METRIC),
            pl.col(key).cast(pl.Float64).alias(VALUE),
        ).filter(pl.col(VALUE).is_not_null())
        for key in keys
        if key in view.steps.columns
    ]
    return pl.concat(parts) if parts else pl.DataFrame(schema=LONG_SCHEMA)


@dataclass(frozen=True)
class _Detail:
    name: str
    key: str | None
    """The metric drawn (single-series charts), for signal markers and links."""
    build: Callable[[], dict[str, Any]]


def detail_charts(
    view: ExperimentView,
    *,
    smoothing: Smoothing,
    x: str,
    signals: Sequence[Signal],
    lang: str,
    max_points: int,
    focus: Focus | None = None,
) -> list[ChartPlan]:
    """An experiment page's training curves, in reading order: pass rate, response length (with the cap),
    clipped responses, entropy, grad norm, clip fractions, KL loss, rollout↔training mismatch (noted when the
    log has 3 decimals), the critic's curves (PPO with a value model), step time by phase, throughput.

    A chart whose metric was not logged is left out. With ``focus`` (a link from a signal), the focused
    metric's chart comes first with the signal's step marked, even when it is none of the above.
    """
    columns = view.steps.columns
    colors = {view.id: view.color}
    labels = {view.id: view.label}
    base = ChartOptions(
        title="",
        y_title="",
        colors=colors,
        labels=labels,
        x=x,  # type: ignore[arg-type]
        x_title=t("x_" + x, lang),
        smoothing=smoothing,
        max_points=max_points,
        height=DETAIL_HEIGHT,
        experiment_title=t("col_experiment", lang),
        raw_suffix=t("raw_suffix", lang),
        marker_title=t("signal_marker", lang),
        total_title=t("chart_step_total", lang),
        empty_text=t("no_data", lang),
        arrow=True,
    )
    signal_marks = tuple(
        (signal.experiment, signal.step, signal.metric) for signal in signals if signal.experiment == view.id
    )

    def single(key: str, title: str, *, note: str | None = None, focus_step: int | None = None) -> _Detail:
        return _Detail(
            key,
            key,
            line_builder(
                key,
                [view],
                replace(base, note=note),
                signals=signals,
                lang=lang,
                title=title,
                focus=None if focus_step is None else (view.id, focus_step),
            ),
        )

    def multi(name: str, keys: Mapping[str, str], title: str, y_title: str) -> _Detail | None:
        present = {key: label for key, label in keys.items() if key in columns}
        if not present:
            return None
        palette = [view.color, _SERIES_GREY, *charts.DEFAULT_PALETTE]
        series_colors = dict(zip(present, palette, strict=False))

        def build() -> dict[str, Any]:
            series_options = replace(
                base,
                title=title,
                y_title=y_title,
                colors=series_colors,
                labels=present,
                experiment_title=t("col_series", lang),
                legend=True,
            )
            return charts.metric_chart_spec(_series_frame(view, present), series_options)

        return _Detail(name, None, build)

    def has(name: str) -> bool:
        return resolve_key(name, columns) is not None

    three_decimals = view.experiment.three_decimals
    phase_keys = [key for phase in PHASES for key in (f"timing_s/{phase}", f"timing/{phase}") if key in columns]
    details: list[_Detail | None] = [
        single("pass_rate", t("chart_pass_rate", lang)) if has("pass_rate") else None,
        single("response_length/mean", t("chart_response_length", lang)) if has("response_length/mean") else None,
        single("response_clip_pct", t("chart_response_clip", lang)) if has("response_clip_pct") else None,
        single("actor/entropy", t("chart_entropy", lang)) if has("actor/entropy") else None,
        single("actor/grad_norm", t("chart_grad_norm", lang)) if has("actor/grad_norm") else None,
        multi(
            "clipfrac",
            {"pg_clipfrac_pct": "pg_clipfrac", "pg_clipfrac_lower_pct": "pg_clipfrac_lower"},
            t("chart_clipfrac", lang),
            "%",
        ),
        single("actor/kl_loss", t("chart_kl_loss", lang)) if has("actor/kl_loss") else None,
        single(
            "rollout_mismatch",
            t("chart_mismatch", lang),
            note=t("note_three_decimals", lang) if three_decimals else None,
        )
        if has("rollout_mismatch")
        else None,
        single("critic/vf_loss", t("chart_vf_loss", lang)) if has("critic/vf_loss") else None,
        single("critic/vf_explained_var", t("chart_vf_explained_var", lang))
        if has("critic/vf_explained_var")
        else None,
        single("critic/grad_norm", t("chart_critic_grad_norm", lang)) if has("critic/grad_norm") else None,
        # Every algorithm logs critic/returns/mean (for GRPO it is the advantage); values exist only with a
        # value model (PPO/GAE).
        multi(
            "critic_values",
            {"critic/vpred_mean": "vpred", "critic/values/mean": "values", "critic/returns/mean": "returns"},
            t("chart_values_returns", lang),
            t("axis_value", lang),
        )
        if has("critic/vpred_mean") or has("critic/values/mean")
        else None,
        _Detail("phases", None, lambda: _phases_spec(view, phase_keys, base, lang=lang)) if phase_keys else None,
        single("perf/throughput", t("chart_throughput", lang)) if has("perf/throughput") else None,
    ]
    drawn = [detail for detail in details if detail is not None]
    if focus is not None and has(focus.key):
        drawn = [detail for detail in drawn if detail.key is None or alias_of(detail.key) != alias_of(focus.key)]
        title = t("chart_focus", lang, metric=metric_name(focus.key, lang))
        drawn.insert(0, single(focus.key, title, focus_step=focus.step))
    identity = (view.id, view.serial, smoothing, x, lang, max_points, signal_marks)
    return [
        ChartPlan(detail.name, ("experiment", detail.name, *identity, focus if index == 0 else None), detail.build)
        for index, detail in enumerate(drawn)
    ]


def _phases_spec(view: ExperimentView, phase_keys: Sequence[str], base: ChartOptions, *, lang: str) -> dict[str, Any]:
    return charts.stacked_area_chart_spec(
        _series_frame(view, dict.fromkeys(phase_keys, "")).with_columns(pl.lit(view.id).alias(EXPERIMENT)),
        replace(base, title=t("chart_step_time", lang), y_title=t("axis_seconds", lang)),
    )


@dataclass(frozen=True)
class ValidationPanel:
    """One validation data source of an experiment: its scores per test step and their chart."""

    source: str
    table: pl.DataFrame
    chart: ChartPlan | None


def validation_panels(view: ExperimentView, *, x: str, lang: str) -> list[ValidationPanel]:
    """Per data source: the headline score and up to 8 related keys per test step (a table), and the
    headline score's chart (in % when the scores are fractions, as the team's page showed them)."""
    panels = []
    for source, headline_key in validation_keys(list(view.logged_keys)).items():
        prefix_core = f"val-core/{source}/"
        related = [
            name
            for name in view.logged_keys
            if name != headline_key and (name.startswith(prefix_core) or name.startswith(f"val-aux/{source}/"))
        ]
        keys = [headline_key, *related[:8]]
        table = (
            view.steps.select(STEP, *keys)
            .filter(pl.any_horizontal(pl.col(key).is_not_null() for key in keys))
            .rename({key: key.removeprefix(prefix_core) for key in keys if key.startswith(prefix_core)})
        )
        score = f"{VALIDATION_PREFIX}{source}"
        chart = None
        if score in view.steps.columns:

            def build(score: str = score, source: str = source) -> dict[str, Any]:
                long = long_frame([view], score)
                options = ChartOptions(
                    title=t("chart_validation", lang, source=display_text(source, limit=NAME_LIMIT)),
                    y_title=axis_title(score, lang),
                    colors={view.id: view.color},
                    labels={view.id: view.label},
                    x=x,  # type: ignore[arg-type]
                    x_title=t("x_" + x, lang),
                    percent=is_fraction(long),
                    height=DETAIL_HEIGHT,
                    experiment_title=t("col_experiment", lang),
                    empty_text=t("no_data", lang),
                    arrow=True,
                )
                return charts.validation_chart_spec(long, options)

            chart = ChartPlan(score, ("experiment-validation", score, view.id, view.serial, x, lang), build)
        panels.append(ValidationPanel(source=source, table=table, chart=chart))
    return panels


@dataclass(frozen=True)
class Explorer:
    """The explorer's choice: the keys matched, the charts drawn (grouped by family) and what to say."""

    families: list[str]
    matched: int
    total: int
    groups: dict[str, list[ChartPlan]] = field(default_factory=dict)
    regex: bool = True
    limited: bool = False
    """More keys matched than are drawn (:data:`EXPLORER_LIMIT`)."""


def explorer(
    view: ExperimentView, *, family: str | None, pattern: str, smoothing: Smoothing, x: str, lang: str, max_points: int
) -> Explorer:
    """Small multiples of every logged key: those of ``family`` (None: all families), or - with a ``pattern`` -
    every key that matches it in any family (:func:`match_keys`)."""
    keys = sorted(view.logged_keys)
    families = list(dict.fromkeys(family_of(key) for key in keys))
    regex = True
    if pattern:
        chosen, regex = match_keys(keys, pattern)
    else:
        chosen = [key for key in keys if family is None or family_of(key) == family]
    small = ChartOptions(
        title="",
        y_title="",
        colors={view.id: view.color},
        labels={view.id: view.label},
        x=x,  # type: ignore[arg-type]
        x_title=t("x_" + x, lang),
        smoothing=smoothing,
        max_points=min(max_points, 500),
        height=EXPLORER_HEIGHT,
        experiment_title=t("col_experiment", lang),
        raw_suffix=t("raw_suffix", lang),
        empty_text=t("no_data", lang),
        arrow=True,
    )
    groups: dict[str, list[ChartPlan]] = {}
    for key in chosen[:EXPLORER_LIMIT]:

        def build(key: str = key) -> dict[str, Any]:
            return charts.metric_chart_spec(
                long_frame([view], key), replace(small, title=display_text(key, limit=NAME_LIMIT))
            )

        plan = ChartPlan(key, ("experiment-explorer", key, view.id, view.serial, smoothing, x, lang), build)
        groups.setdefault(family_of(key), []).append(plan)
    return Explorer(
        families=families,
        matched=len(chosen),
        total=len(keys),
        groups=groups,
        regex=regex,
        limited=len(chosen) > EXPLORER_LIMIT,
    )
