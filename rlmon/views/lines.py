"""The line charts both pages draw: one metric over experiments (smoothed, raw beneath, signal markers, the
response cap) and validation scores at their test steps, with the axis titles and formats they share."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import polars as pl

from rlmon.analysis.health import threshold_lines
from rlmon.analysis.signals import Signal
from rlmon.runs.experiment import config_get
from rlmon.runs.metrics import VALIDATION_PREFIX, alias_of, resolve_key
from rlmon.schema import EXPERIMENT, STEP, VALUE
from rlmon.text import MESSAGES, setting_display, t
from rlmon.views import charts
from rlmon.views.charts import ChartOptions
from rlmon.views.model import ExperimentView, long_frame, metric_name

__all__ = [
    "CAPPED_KEYS",
    "COLLAPSE_KEYS",
    "Build",
    "axis_title",
    "collapse_spans",
    "is_fraction",
    "line_builder",
    "metric_note",
    "signal_markers",
    "v1_trainer",
    "validation_builder",
]

Build = Callable[[], dict[str, Any]]
"""A chart's builder: returns its Vega-Lite spec (:attr:`rlmon.views.model.ChartPlan.build`)."""


CAPPED_KEYS = ("response_length/mean", "response_length/max")
"""Charts drawn with the response cap as a dashed rule."""


def axis_title(key: str, lang: str) -> str:
    """A short y-axis title for a metric, in ``lang`` (the chart title says what the metric is)."""
    if key == "pass_rate" or key.endswith("_pct"):
        return "%"
    if key.startswith("response_length/"):
        return t("axis_tokens", lang)
    if key.startswith(VALIDATION_PREFIX):
        return t("axis_score", lang)
    known = "axis_" + key.replace("/", "_")
    if known in MESSAGES:
        return t(known, lang)
    return key.rsplit("/", 1)[-1]


def _axis_format(key: str) -> str | None:
    if key.startswith("response_length/") or key in ("perf/throughput", "perf/total_num_tokens"):
        return "~s"
    return None


def is_fraction(long: pl.DataFrame) -> bool:
    values = long.get_column(VALUE).filter(long.get_column(VALUE).is_finite())
    return bool(values.len()) and float(values.min()) >= 0.0 and float(values.max()) <= 1.0  # type: ignore[arg-type]


def _response_cap(views: Sequence[ExperimentView], lang: str) -> tuple[float | None, str | None]:
    caps = [view.experiment.setting("max_response_length") for view in views]
    known = [item for item in caps if item is not None and isinstance(item.value, int | float)]
    if not known:
        return None, None
    top = max(known, key=lambda item: float(item.value))
    return float(top.value), t("reference_cap", lang, cap=setting_display(top, lang))


_NOTE_OF = {
    "actor/grad_norm": "note_grad_norm",
    "response_clip_pct": "note_clip_ratio",
    "response_length/clip_ratio": "note_clip_ratio",
}
"""Charts of a verl metric that is easy to misread, and the note under their title. Sources: grad_norm is what
``clip_grad_norm_`` returns in verl's ``verl/workers/actor/dp_actor.py`` (the total norm before clipping, as
PyTorch documents it); the clip ratio of verl's V1 trainer is measured against the batch's longest response
(verl issue #7817, fix proposed in PR #7821; the V0 trainer pads to the configured length and is unaffected), so
its note is shown only for runs of that trainer (:func:`v1_trainer`)."""


def metric_note(key: str, views: Sequence[ExperimentView], lang: str) -> str | None:
    """The note under the title of ``key``'s chart, in ``lang``: why the metric is easy to misread, with its source;
    for the entropy, only when a run logged it under its old name ``actor/entropy_loss`` (an entropy, not a loss:
    verl's ``dp_actor.py`` logs the aggregated token entropy)."""
    if alias_of(key) == "actor/entropy":
        old = any(resolve_key("actor/entropy", view.columns) == "actor/entropy_loss" for view in views)
        return t("note_entropy_loss", lang) if old else None
    message = _NOTE_OF.get(key)
    if message == "note_clip_ratio" and not any(v1_trainer(view.experiment.config) for view in views):
        return None  # the V0 trainer pads to the configured length: its clip ratio is right
    return None if message is None else t(message, lang)


def v1_trainer(config: Mapping[str, Any] | None) -> bool:
    """The run's config says it ran verl's V1 trainer (``trainer.use_v1``: true, the default since v0.9.0), whose
    ``response_length/clip_ratio`` is measured against the batch's longest response (verl issue #7817). A log with
    neither a config dump nor that override does not say."""
    return config_get(config, "trainer.use_v1") is True


def signal_markers(
    signals: Sequence[Signal],
    metric: str,
    views: Sequence[ExperimentView],
    lang: str,
    *,
    focus: tuple[str, int] | None = None,
) -> pl.DataFrame | None:
    """Marker rows (experiment, step, value, text) for the signals about ``metric`` (or its older name), then
    with ``focus`` (experiment id, step: where a link asked to look) a marker there, drawn like a signal's."""
    marks = [
        (signal.experiment, signal.step, signal.text(lang))
        for signal in signals
        if signal.metric is not None and alias_of(signal.metric) == alias_of(metric)
    ]
    if focus is not None:
        marks.append((focus[0], focus[1], t("focus_marker", lang, step=focus[1])))
    rows: list[dict[str, Any]] = []
    by_id = {view.id: view for view in views}
    for experiment, step, text in marks:
        view = by_id.get(experiment)
        column = None if view is None else resolve_key(metric, view.columns)
        if view is None or step is None or column is None:
            continue
        found = view.read_steps([column]).filter(pl.col(STEP) == step).get_column(column)
        value = found[0] if found.len() else None
        if value is None:
            continue
        rows.append({EXPERIMENT: view.id, STEP: step, VALUE: float(value), "text": text})
    if not rows:
        return None
    return pl.DataFrame(
        rows, schema={EXPERIMENT: pl.String, STEP: pl.Int64, VALUE: pl.Float64, "text": pl.String}, orient="row"
    )


def validation_builder(key: str, views: Sequence[ExperimentView], options: ChartOptions, *, lang: str) -> Build:
    """The builder of ``key``'s validation chart over ``views``: ``options`` (what the page's charts share) with
    the metric's title, axis title and percent scale (for fractions)."""

    def build() -> dict[str, Any]:
        long = long_frame(views, key, x=options.x)
        return charts.validation_chart_spec(
            long,
            replace(options, title=metric_name(key, lang), y_title=axis_title(key, lang), percent=is_fraction(long)),
        )

    return build


def line_builder(
    key: str,
    views: Sequence[ExperimentView],
    options: ChartOptions,
    *,
    signals: Sequence[Signal],
    lang: str,
    title: str | None = None,
    focus: tuple[str, int] | None = None,
) -> Build:
    """The builder of ``key``'s line chart over ``views``: ``options`` (what the page's charts share: colours,
    labels, axis, smoothing, points, size, tooltip texts) with the metric's title (``title``, else its name),
    axis title and format, the response cap (:data:`CAPPED_KEYS`), verl's health thresholds
    (:func:`rlmon.analysis.health.threshold_lines`) and the markers of ``signals`` about it (and
    of ``focus``, :func:`signal_markers`)."""

    def build() -> dict[str, Any]:
        reference, reference_label = _response_cap(views, lang) if key in CAPPED_KEYS else (None, None)
        markers = signal_markers(signals, key, views, lang, focus=focus)
        metric_options = replace(
            options,
            title=title or metric_name(key, lang),
            y_title=axis_title(key, lang),
            reference=reference,
            reference_label=reference_label,
            thresholds=threshold_lines(key, lang),
            axis_format=_axis_format(key),
        )
        long = long_frame(views, key, x=options.x)
        metric_options = replace(
            metric_options,
            threshold_above=t("rule_far_above", lang),
            threshold_below=t("rule_far_below", lang),
            threshold_spans=collapse_spans(signals, key, long, x=options.x, lang=lang, named=len(views) > 1),
            threshold_span_tag=t("rule_collapse_tag", lang),
        )
        return charts.metric_chart_spec(long, metric_options, markers=markers)

    return build


COLLAPSE_KEYS = ("actor/grad_norm", "pass_rate", "critic/score/mean", "critic/rewards/mean")
"""Charts that shade the steps of a collapse signature (grad_norm rising while the score falls): the grad norm's
and the score's (the pass rate is read from the score)."""


def collapse_spans(
    signals: Sequence[Signal], key: str, long: pl.DataFrame, *, x: str, lang: str, named: bool
) -> tuple[tuple[float, float, str], ...]:
    """The x ranges (from, to, label) of the collapse signatures among ``signals`` on ``key``'s chart (drawn from
    ``long``, which has the ``x`` column): from the first step of the signal's last window to its last step, on
    that run's x values; the label names the rule (and the run when ``named``)."""
    if alias_of(key) not in COLLAPSE_KEYS:
        return ()
    spans: list[tuple[float, float, str]] = []
    for signal in signals:
        if signal.kind != "collapse_signature" or signal.step is None:
            continue
        end = signal.step if signal.step_end is None else signal.step_end
        rows = long.filter((pl.col(EXPERIMENT) == signal.experiment) & pl.col(STEP).is_between(signal.step, end))
        values = (
            rows.get_column(x).drop_nulls().cast(pl.Float64) if x in rows.columns else pl.Series([], dtype=pl.Float64)
        )
        if values.is_empty():
            continue
        label = t("rule_collapse_span", lang, step=signal.step)
        spans.append((float(values.min()), float(values.max()), f"{signal.label}: {label}" if named else label))  # type: ignore[arg-type]
    return tuple(spans)
