"""What the pages show, assembled from experiment views: chart plans, table frames and header lines.

Pure (no streamlit): the pages pick widgets, call one or two functions here and render what they get.

* Overview: :func:`metric_options`, :func:`default_metrics`, :func:`comparison_charts`,
  :func:`shared_settings_line`, :func:`progress_line`, :func:`experiments_frame`, :func:`signals_frame`,
  :func:`settings_diff_frame`.
* Experiment page: :func:`detail_charts`, :func:`validation_panels`, :func:`explorer`.
* Both: :class:`ExperimentView` (:func:`view_of`), an experiment with the columns the charts draw.

Names come from folders, ``rlmon.toml`` and log text, so every name shown passes :func:`display_text`: bidi
control characters are taken out (they would reverse the text around them) and a name longer than
:data:`NAME_LIMIT` is cut (the experiment page shows an experiment's whole label, wrapped).

A chart comes as a :class:`ChartPlan`: its memo key (everything the chart is drawn from, so every visitor
asking for the same chart shares one build) and a builder returning the Vega-Lite spec
(:mod:`rlmon.views.charts`). Metric names are the current verl names; each experiment's column is found through
:func:`rlmon.runs.metrics.resolve_key`, so an older log's ``actor/entropy_loss`` is drawn as its entropy.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import polars as pl

from rlmon.analysis.smoothing import METHODS, Smoothing
from rlmon.runs.experiment import SETTING_GROUPS, Experiment, settings_diff, short_track_names
from rlmon.runs.metrics import VALIDATION_PREFIX, add_derived_metrics, alias_of, resolve_key, validation_keys
from rlmon.schema import EXPERIMENT, HOURS, LONG_SCHEMA, METRIC, STEP, VALUE
from rlmon.sources.discovery import ExperimentRef
from rlmon.sources.objstore import public_text
from rlmon.text import i18n
from rlmon.views import charts

__all__ = [
    "COMPARISON_HEIGHT",
    "DEFAULT_METRICS",
    "DETAIL_HEIGHT",
    "EXPLORER_HEIGHT",
    "HOURS_TOTAL",
    "STATUS_GLYPHS",
    "ChartPlan",
    "ExperimentView",
    "Explorer",
    "Focus",
    "ValidationPanel",
    "axis_title",
    "comparison_charts",
    "default_metrics",
    "description_text",
    "detail_charts",
    "display_labels",
    "display_text",
    "experiments_frame",
    "explorer",
    "is_validation_key",
    "line_points",
    "long_frame",
    "match_keys",
    "metric_name",
    "metric_options",
    "progress_line",
    "settings_diff_frame",
    "shared_settings_line",
    "signal_experiment",
    "signal_link",
    "signal_markers",
    "signal_text",
    "signals_frame",
    "validation_panels",
    "view_of",
]

HOURS_TOTAL = "hours_total"
"""Pseudo metric: one bar per experiment with its total training hours."""
DEFAULT_METRICS = ("pass_rate", "response_length/mean", "actor/entropy", "actor/grad_norm", HOURS_TOTAL)
CAPPED_KEYS = ("response_length/mean", "response_length/max")
"""Charts drawn with the response cap as a dashed rule."""
COMPARISON_HEIGHT = 230
"""Plot-area height of the overview's comparison charts (px)."""
DETAIL_HEIGHT = 190
"""Plot-area height of an experiment page's charts (px)."""
EXPLORER_HEIGHT = 125
"""Plot-area height of the explorer's small multiples (px)."""
EXPLORER_LIMIT = 24
CHART_POINTS = 6_000
"""Points one comparison chart ships at most, over all its lines: with many experiments each line gets fewer
points (never more than the ``max_points`` setting, never fewer than :data:`MIN_LINE_POINTS`)."""
MIN_LINE_POINTS = 200
SOURCE_COLUMNS = ("file", "size", "range", "role", "note")
"""Columns of :func:`sources_frame`."""
EAGER_CHARTS = 4
"""Charts a page draws at once: its first two rows (see :func:`overview_eager`)."""
TALL_TABLE = 6
"""Experiments above which the overview's table and summary fill a laptop's first screen."""
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
_VALIDATION = re.compile(r"^(val_score/|val-core/|val-aux/|val/|test_score/)")
_SERIES_GREY = "#9ca3af"
STATUS_GLYPHS = {"finished": "✓", "running": "▶", "stalled": "⏸", "crashed": "✗", "not started": "○"}
NAME_LIMIT = 80
"""Characters of a name (label, track, metric key, data source) shown where space is short: menus, chips,
legends, chart titles. Longer names are cut with an ellipsis."""
_BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_DISPLAY = {
    **dict.fromkeys(map(ord, _BIDI_CONTROLS)),
    **{code: " " for code in [*range(0x00, 0x20), *range(0x7F, 0xA0)] if code != 0x0A},
}


def description_text(experiment: Experiment, lang: str) -> str:
    """The experiment's description in ``lang``: the team's ``rlmon.toml`` text as written, else rlmon's own
    description of its algorithm (``algo_<key>`` in :mod:`rlmon.text.i18n`) in the reader's language; ``""`` when
    there is neither."""
    own = experiment.algorithm.description
    key = f"algo_{experiment.algorithm.key}"
    # rlmon.toml text word for word rlmon's own English description is taken for it (and translated).
    if experiment.description and experiment.description == own and key in i18n.MESSAGES:
        return i18n.t(key, lang)
    return experiment.description


def display_text(text: str, *, limit: int | None = None) -> str:
    """``text`` as rlmon shows names from folders and logs: without bidi control characters (U+202A-U+202E,
    U+2066-U+2069, U+200E/U+200F, U+061C: each reorders the text around it), other control characters but
    the line break as spaces, and cut to ``limit`` characters with an ellipsis. The folder of an object-storage
    mirror reads as its ``s3://`` URL (:func:`rlmon.sources.objstore.public_text`).

    >>> display_text("e4_\u202egnp.exe")
    'e4_gnp.exe'
    >>> display_text("E3_" + "long" * 750, limit=12)
    'E3_longlong…'
    """
    shown = public_text(str(text)).translate(_DISPLAY)  # an object-storage mirror's path reads as its s3:// URL
    if limit is not None and len(shown) > limit:
        return shown[: limit - 1] + "…"
    return shown


@dataclass(frozen=True)
class ExperimentView:
    """An experiment ready for the pages: the summary plus its step frame with derived metrics and hours."""

    ref: ExperimentRef
    experiment: Experiment
    steps: pl.DataFrame
    """Step frame (schema.py) plus derived metrics (rlmon.runs.metrics) and ``hours`` (elapsed training hours)."""
    logged_keys: tuple[str, ...]
    derived_keys: tuple[str, ...]
    serial: int = 0
    """Unique per view object: a new version of an experiment gets a new serial (chart memo keys use it)."""
    version: int = 0
    """The serial of the read this view comes from, kept when only its colour changes: what is computed from the
    data alone (headline numbers, signals) is keyed by it."""

    @property
    def id(self) -> str:
        return self.experiment.id

    @property
    def label(self) -> str:
        """The label as menus, chips, legends and tables show it (:func:`display_text`, cut at
        :data:`NAME_LIMIT`)."""
        return display_text(self.experiment.label, limit=NAME_LIMIT)

    @property
    def full_label(self) -> str:
        """The whole label, bidi controls taken out (for the experiment page's title and tooltips)."""
        return display_text(self.experiment.label)

    @property
    def color(self) -> str:
        return self.experiment.color

    @property
    def status(self) -> str:
        return self.experiment.status

    @property
    def code(self) -> str:
        """The short code of the label (``E2`` of ``E2 · DAPO``)."""
        return self.label.split(" · ")[0]


def view_of(ref: ExperimentRef, experiment: Experiment, *, serial: int = 0) -> ExperimentView:
    """The experiment ready for the pages: its derived metrics (:func:`rlmon.runs.metrics.add_derived_metrics`) and
    an ``hours`` column (elapsed training hours; null when the log has no step times)."""
    logged = tuple(name for name in experiment.steps.columns if name != STEP)
    steps, _skipped = add_derived_metrics(experiment.steps, pass_rate_mode=experiment.pass_rate_mode)
    derived = tuple(name for name in steps.columns if name != STEP and name not in logged)
    hours = pl.col("elapsed_h") if "elapsed_h" in steps.columns else pl.lit(None, dtype=pl.Float64)
    return ExperimentView(
        ref=ref,
        experiment=experiment,
        steps=steps.with_columns(hours.alias(HOURS)),
        logged_keys=logged,
        derived_keys=derived,
        serial=serial,
        version=serial,
    )


@dataclass(frozen=True)
class ChartPlan:
    """One chart of a page: ``build()`` returns its Vega-Lite spec; ``key`` is everything it is drawn from."""

    name: str
    """What it shows (a metric key or a chart name); the page's anchor for links to it."""
    key: tuple[Any, ...]
    build: Callable[[], dict[str, Any]]


@dataclass(frozen=True)
class Focus:
    """A chart a link asked for: metric ``key`` of the experiment, with ``step`` marked (a signal's step)."""

    key: str
    step: int | None = None


# ----------------------------------------------------------------------------------------------- shared


def is_validation_key(key: str) -> bool:
    """Validation keys (logged every ``test_freq`` steps) are drawn as points joined per experiment."""
    return bool(_VALIDATION.match(key))


def overview_eager(experiments: int) -> int:
    """How many of the overview's charts are drawn at once, the rest coming as they near the view: its first two
    rows (4), which a laptop's first screen shows under a table of a few experiments; none when more than
    :data:`TALL_TABLE` experiments' rows and the summary fill that screen (drawing charts nobody sees yet only
    delays the first screen: on 20 experiments, 3.4-6.5 s against 1.5-2.1 s in the browser)."""
    return EAGER_CHARTS if experiments <= TALL_TABLE else 0


def line_points(max_points: int, lines: int) -> int:
    """Points per line for a chart of ``lines`` lines (downsampling keeps each bucket's min, max and last)."""
    return max(min(max_points, MIN_LINE_POINTS), min(max_points, CHART_POINTS // max(1, lines)))


def long_frame(views: Sequence[ExperimentView], metric: str) -> pl.DataFrame:
    """The long frame (schema.py) of one metric over several experiments; rows without a value left out.

    Each experiment's column is the metric's logged name there (:func:`rlmon.runs.metrics.resolve_key`).
    """
    parts = []
    for view in views:
        column = resolve_key(metric, view.steps.columns)
        if column is None:
            continue
        parts.append(
            view.steps.select(
                pl.lit(view.id, dtype=pl.String).alias(EXPERIMENT),
                pl.col(STEP).cast(pl.Int64),
                pl.col(HOURS).cast(pl.Float64),
                pl.lit(metric, dtype=pl.String).alias(METRIC),
                pl.col(column).cast(pl.Float64).alias(VALUE),
            ).filter(pl.col(VALUE).is_not_null())
        )
    if not parts:
        return pl.DataFrame(schema=LONG_SCHEMA)
    return pl.concat(parts, how="vertical")


def shown_track_names(tracks: Sequence[str], lang: str) -> dict[str, str]:
    """Track -> the short name pages show it by in ``lang`` (:func:`rlmon.runs.experiment.short_track_names` of the
    names :func:`rlmon.text.i18n.track_name` gives)."""
    names = list(dict.fromkeys(tracks))
    shown = {name: i18n.track_name(name, lang) for name in names}
    short = short_track_names(list(shown.values()))
    return {name: short[shown[name]] for name in names}


def display_labels(views: Sequence[ExperimentView], lang: str) -> dict[str, str]:
    """Experiment id -> label; ``E1 · GRPO · 2B`` (the short track) when the experiments span several tracks."""
    tracks = [view.experiment.track for view in views]
    if len(set(tracks)) <= 1:
        return {view.id: view.label for view in views}
    short = shown_track_names(tracks, lang)
    return {view.id: f"{view.label} · {display_text(short[view.experiment.track], limit=NAME_LIMIT)}" for view in views}


def metric_name(key: str, lang: str) -> str:
    """A metric's title (:func:`rlmon.text.i18n.metric_title`) as a chart or a menu shows it (:func:`display_text`)."""
    return display_text(i18n.metric_title(key, lang), limit=NAME_LIMIT)


def axis_title(key: str, lang: str) -> str:
    """A short y-axis title for a metric, in ``lang`` (the chart title says what the metric is)."""
    if key == "pass_rate" or key.endswith("_pct"):
        return "%"
    if key.startswith("response_length/"):
        return i18n.t("axis_tokens", lang)
    if key.startswith(VALIDATION_PREFIX):
        return i18n.t("axis_score", lang)
    known = "axis_" + key.replace("/", "_")
    if known in i18n.MESSAGES:
        return i18n.t(known, lang)
    return key.rsplit("/", 1)[-1]


def _axis_format(key: str) -> str | None:
    if key.startswith("response_length/") or key in ("perf/throughput", "perf/total_num_tokens"):
        return "~s"
    return None


def _is_fraction(long: pl.DataFrame) -> bool:
    values = long.get_column(VALUE).filter(long.get_column(VALUE).is_finite())
    return bool(values.len()) and float(values.min()) >= 0.0 and float(values.max()) <= 1.0  # type: ignore[arg-type]


def signal_link(slug: str, signal: Any) -> str:
    """The link from a signal to its chart on the experiment page: ``<slug>?focus=<key>&at=<step>``."""
    query: dict[str, str] = {}
    metric = getattr(signal, "metric", None)
    if metric:
        query["focus"] = str(metric)
    step = getattr(signal, "step", None)
    if step is not None:
        query["at"] = str(int(step))
    return slug + ("?" + urllib.parse.urlencode(query) if query else "")


# ------------------------------------------------------------------------------------------------ overview


def metric_options(views: Sequence[ExperimentView]) -> list[str]:
    """Every chartable key of the experiments: derived metrics, the hours bars, then logged keys by their
    current verl name."""
    derived: dict[str, None] = {}
    logged: dict[str, None] = {}
    for view in views:
        derived.update(dict.fromkeys(view.derived_keys))
        logged.update(dict.fromkeys(alias_of(key) for key in view.logged_keys))
    ordered = [key for key in derived if key != "elapsed_h"] + (["elapsed_h"] if "elapsed_h" in derived else [])
    return [*ordered, HOURS_TOTAL, *sorted(logged)]


def default_metrics(options: Sequence[str]) -> list[str]:
    """The seed page's charts that the experiments allow, then their first two validation scores."""
    chosen = [key for key in DEFAULT_METRICS if key in options]
    chosen += [key for key in options if key.startswith(VALIDATION_PREFIX)][:2]
    return chosen


def match_keys(keys: Sequence[str], pattern: str) -> tuple[list[str], bool]:
    """The keys matching ``pattern`` and whether it was used as a regular expression.

    The pattern runs in polars' regex engine (linear time: no pattern a visitor types can hang the server);
    one it rejects is matched as plain text, case-insensitively.

    >>> match_keys(["actor/entropy", "timing_s/gen", "timing_s/update_actor"], "timing_s/(gen|update)")
    (['timing_s/gen', 'timing_s/update_actor'], True)
    >>> match_keys(["actor/lr(1e-4)"], "lr(1e")
    (['actor/lr(1e-4)'], False)
    """
    series = pl.Series("key", list(keys), dtype=pl.String)
    try:
        found = series.str.contains(pattern)
        regex = True
    except pl.exceptions.PolarsError:
        found = series.str.to_lowercase().str.contains(pattern.lower(), literal=True)
        regex = False
    return series.filter(found).to_list(), regex


def _response_cap(views: Sequence[ExperimentView], lang: str) -> tuple[float | None, str | None]:
    caps = [view.experiment.setting("max_response_length") for view in views]
    known = [item for item in caps if item is not None and isinstance(item.value, int | float)]
    if not known:
        return None, None
    top = max(known, key=lambda item: float(item.value))
    return float(top.value), i18n.t("reference_cap", lang, cap=i18n.setting_display(top, lang))


def signal_markers(
    signals: Sequence[Any], metric: str, views: Sequence[ExperimentView], lang: str
) -> pl.DataFrame | None:
    """Marker rows (experiment, step, value, text) for the signals about ``metric`` (or its older name)."""
    rows: list[dict[str, Any]] = []
    by_id = {view.id: view for view in views}
    for signal in signals:
        if alias_of(str(getattr(signal, "metric", None))) != alias_of(metric):
            continue
        view = by_id.get(signal_experiment(signal))
        step = getattr(signal, "step", None)
        column = None if view is None else resolve_key(metric, view.steps.columns)
        if view is None or step is None or column is None:
            continue
        found = view.steps.filter(pl.col(STEP) == int(step)).get_column(column)
        value = found[0] if found.len() else None
        if value is None:
            continue
        rows.append({EXPERIMENT: view.id, STEP: int(step), VALUE: float(value), "text": signal_text(signal, lang)})
    if not rows:
        return None
    return pl.DataFrame(
        rows, schema={EXPERIMENT: pl.String, STEP: pl.Int64, VALUE: pl.Float64, "text": pl.String}, orient="row"
    )


def signal_experiment(signal: Any) -> str:
    """The experiment id a signal is about (it may carry the id or the experiment)."""
    experiment = getattr(signal, "experiment", "")
    return str(getattr(experiment, "id", experiment))


def signal_text(signal: Any, lang: str) -> str:
    """A signal's message in ``lang``."""
    text = getattr(signal, "text", None)
    if callable(text):
        return str(text(lang))
    message = getattr(signal, "message", {})
    if isinstance(message, Mapping):
        return str(message.get(lang) or message.get("en") or "")
    return str(message)


def _views_key(views: Sequence[ExperimentView]) -> tuple[tuple[str, int], ...]:
    return tuple((view.id, view.serial) for view in views)


def _hours_bars(views: Sequence[ExperimentView], lang: str) -> pl.DataFrame:
    """One row per experiment with elapsed hours; a running run also gets its projected total and says so."""
    rows = []
    for view in views:
        experiment = view.experiment
        if experiment.elapsed_h is None:
            continue
        projected = None
        text = i18n.format_hours(experiment.elapsed_h, lang)
        if view.status in ("running", "stalled"):
            if experiment.eta_h is not None:
                projected = experiment.elapsed_h + experiment.eta_h
                text = i18n.t("bar_running_projection", lang, hours=text, total=i18n.format_hours(projected, lang))
            else:
                text = i18n.t("bar_running", lang, hours=text)
        rows.append({EXPERIMENT: view.id, VALUE: experiment.elapsed_h, "projected": projected, "text": text})
    return pl.DataFrame(
        rows,
        schema={EXPERIMENT: pl.String, VALUE: pl.Float64, "projected": pl.Float64, "text": pl.String},
        orient="row",
    )


def comparison_charts(
    metrics: Sequence[str],
    views: Sequence[ExperimentView],
    *,
    smoothing: Smoothing,
    x: str,
    log_scale: bool,
    signals: Sequence[Any],
    highlight: Sequence[str],
    lang: str,
    max_points: int,
) -> list[ChartPlan]:
    """The overview's charts of ``metrics`` over ``views``: lines (smoothed, raw faded beneath, signal markers,
    the response cap), validation points, or the hours bars for :data:`HOURS_TOTAL`."""
    colors = {view.id: view.color for view in views}
    labels = display_labels(views, lang)
    points = line_points(max_points, len(views))
    common: dict[str, Any] = {
        "colors": colors,
        "labels": labels,
        "experiment_title": i18n.t("col_experiment", lang),
        "empty_text": i18n.t("no_data", lang),
        "height": COMPARISON_HEIGHT,
        "highlight": tuple(highlight),
        "arrow": True,
    }
    identity = (_views_key(views), tuple(labels.values()), tuple(highlight), lang)
    plans: list[ChartPlan] = []
    for key in metrics:
        if key == HOURS_TOTAL:
            plans.append(
                ChartPlan(
                    key,
                    ("overview", key, identity),
                    lambda: charts.bar_chart_spec(
                        _hours_bars(views, lang),
                        title=i18n.t("hours_chart", lang),
                        y_title=i18n.t("hours_axis", lang),
                        projected_title=i18n.t("bar_projected", lang),
                        **common,
                    ),
                )
            )
            continue
        marks = tuple(
            (signal_experiment(signal), getattr(signal, "step", None), signal_text(signal, lang))
            for signal in signals
            if alias_of(str(getattr(signal, "metric", None))) == alias_of(key)
        )
        if is_validation_key(key):
            plans.append(
                ChartPlan(key, ("overview", key, identity, x, log_scale, points), _validation_builder(
                    key, views, x=x, log_scale=log_scale, lang=lang, points=points, common=common
                ))
            )  # fmt: skip
            continue
        plans.append(
            ChartPlan(
                key,
                ("overview", key, identity, smoothing, x, log_scale, points, marks),
                _line_builder(
                    key, views, smoothing=smoothing, x=x, log_scale=log_scale, signals=signals, lang=lang,
                    points=points, common=common,
                ),
            )
        )  # fmt: skip
    return plans


def comparison_charts_ahead(
    metrics: Sequence[str], views: Sequence[ExperimentView], *, smoothing: Smoothing, **choices: Any
) -> dict[str, list[ChartPlan]]:
    """What a click on the smoothing control asks for next: by metric, the overview's chart of it
    (:func:`comparison_charts`, the same ``choices``) under each smoothing method but ``smoothing``'s, with its
    window and weight."""
    ahead: dict[str, list[ChartPlan]] = {key: [] for key in metrics}
    for method in METHODS:
        if method != smoothing.method:
            for plan in comparison_charts(metrics, views, smoothing=replace(smoothing, method=method), **choices):
                ahead[plan.name].append(plan)
    return ahead


def _validation_builder(
    key: str,
    views: Sequence[ExperimentView],
    *,
    x: str,
    log_scale: bool,
    lang: str,
    points: int,
    common: dict[str, Any],
) -> Callable[[], dict[str, Any]]:
    def build() -> dict[str, Any]:
        long = long_frame(views, key)
        return charts.validation_chart_spec(
            long, title=metric_name(key, lang), y_title=axis_title(key, lang), x=x,  # type: ignore[arg-type]
            x_title=i18n.t("x_" + x, lang), log_scale=log_scale, percent=_is_fraction(long), max_points=points,
            **common,
        )  # fmt: skip

    return build


def _line_builder(
    key: str,
    views: Sequence[ExperimentView],
    *,
    smoothing: Smoothing,
    x: str,
    log_scale: bool,
    signals: Sequence[Any],
    lang: str,
    points: int,
    common: dict[str, Any],
    title: str | None = None,
    note: str | None = None,
    focus_step: int | None = None,
) -> Callable[[], dict[str, Any]]:
    def build() -> dict[str, Any]:
        reference, reference_label = _response_cap(views, lang) if key in CAPPED_KEYS else (None, None)
        markers = signal_markers(signals, key, views, lang)
        return charts.metric_chart_spec(
            long_frame(views, key),
            title=title or metric_name(key, lang),
            y_title=axis_title(key, lang),
            smoothing=smoothing,
            x=x,  # type: ignore[arg-type]
            x_title=i18n.t("x_" + x, lang),
            log_scale=log_scale,
            reference=reference,
            reference_label=reference_label,
            markers=markers,
            marker_title=i18n.t("signal_marker", lang),
            raw_suffix=i18n.t("raw_suffix", lang),
            max_points=points,
            axis_format=_axis_format(key),
            note=note,
            **common,
        )

    return build


# ---------------------------------------------------------------------------------------------- table numbers


@dataclass(frozen=True)
class TableNumbers:
    """The numbers the experiments table and the experiment header show (and a report's table)."""

    first5_pass: float | None = None
    last10_pass: float | None = None
    best_val: float | None = None
    best_val_step: int | None = None
    last_val: float | None = None
    last_val_step: int | None = None
    val_source: str | None = None
    pass_rate_series: tuple[float, ...] = ()
    sparkline: tuple[float, ...] = ()
    """The pass rate thinned for a table cell (spikes and the last value kept); set by the app."""


def table_numbers(view: ExperimentView) -> TableNumbers:
    """First-5 / last-10 mean pass rate, best validation (with its step) and last validation, from
    :func:`rlmon.runs.headline.headline_numbers`; computed from the view's frame when that fails."""
    from rlmon.errors import RlmonError
    from rlmon.runs.headline import headline_numbers

    try:
        numbers = headline_numbers(view.experiment)
    except RlmonError:
        return _frame_numbers(view)
    best = numbers.best()
    last = numbers.last()
    return TableNumbers(
        first5_pass=numbers.pass_rate_start,
        last10_pass=numbers.pass_rate_end,
        best_val=None if best is None else best.value,
        best_val_step=None if best is None else best.step,
        last_val=None if last is None else last.value,
        last_val_step=None if last is None else last.step,
        val_source=numbers.validation_source,
        pass_rate_series=tuple(numbers.pass_rate_series),
    )


def _frame_numbers(view: ExperimentView) -> TableNumbers:
    steps = view.steps
    first5 = last10 = None
    if "pass_rate" in steps.columns:
        rates = steps.filter(pl.col("pass_rate").is_not_null() & pl.col("pass_rate").is_finite())["pass_rate"]
        if rates.len():
            first5 = float(rates.head(5).mean())  # type: ignore[arg-type]
            last10 = float(rates.tail(10).mean())  # type: ignore[arg-type]
    val_columns = [name for name in steps.columns if name.startswith(VALIDATION_PREFIX)]
    if not val_columns:
        return TableNumbers(first5_pass=first5, last10_pass=last10)
    column = val_columns[0]
    source = column.removeprefix(VALIDATION_PREFIX)
    points = steps.select(STEP, column).filter(pl.col(column).is_not_null() & pl.col(column).is_finite())
    if not points.height:
        return TableNumbers(first5_pass=first5, last10_pass=last10, val_source=source)
    best_step, best = points.sort([column, STEP], descending=[True, False]).row(0)
    last_step, last = points.sort(STEP).row(-1)
    return TableNumbers(
        first5_pass=first5, last10_pass=last10, best_val=float(best), best_val_step=int(best_step),
        last_val=float(last), last_val_step=int(last_step), val_source=source,
    )  # fmt: skip


def sources_frame(view: ExperimentView, lang: str) -> pl.DataFrame:
    """The experiment's log files as its page and its report list them: ``file``, ``size``, ``range`` (of
    training steps), ``role`` (in ``lang``) and ``note``, all text."""
    rows = []
    for source in view.experiment.sources:
        if source.first_step is None:
            span = "—"
        elif source.first_step == source.last_step:
            span = str(source.first_step)
        else:
            span = f"{source.first_step}–{source.last_step}"
        role_key = "role_" + source.role
        rows.append(
            {
                "file": display_text(source.name),
                "size": i18n.format_size(source.size, lang),
                "range": span,
                "role": i18n.t(role_key, lang) if role_key in i18n.MESSAGES else source.role,
                "note": display_text(source.note),
            }
        )
    return pl.DataFrame(rows, schema=dict.fromkeys(SOURCE_COLUMNS, pl.String))


# -------------------------------------------------------------------------------------------- header lines


def _compress_codes(codes: Sequence[str]) -> str:
    """``E1, E2, E3, E4`` -> ``E1–E4`` when the codes are consecutive numbers with one prefix."""
    parsed = [re.fullmatch(r"([A-Za-z]+)(\d+)", code) for code in codes]
    if len(codes) > 2 and all(parsed):
        prefixes = {match.group(1) for match in parsed if match}
        numbers = [int(match.group(2)) for match in parsed if match]
        if len(prefixes) == 1 and numbers == list(range(numbers[0], numbers[0] + len(numbers))):
            return f"{codes[0]}–{codes[-1]}"
    return ", ".join(codes)


def shared_settings_line(views: Sequence[ExperimentView], lang: str) -> str:
    """``4 GPUs · TP=4 · offload off · non-thinking · 16K response · 32×8/step``: what every experiment
    shares; a setting they do not share is left out."""

    def common(key: str) -> Any:
        found = [view.experiment.setting(key) for view in views]
        if any(item is None for item in found):
            return None
        values = {repr(item.value) for item in found if item is not None}
        return found[0] if len(values) == 1 else None

    parts: list[str] = []
    gpus = common("gpus")
    if gpus is not None:
        parts.append(i18n.t("shared_gpus", lang, n=gpus.value))
    tp = common("rollout_tp")
    if tp is not None:
        parts.append(f"TP={tp.value}")
    known = [item for item in (common("param_offload"), common("optimizer_offload")) if item is not None]
    if known:
        on = any(bool(item.value) for item in known)
        parts.append(i18n.t("shared_offload_on" if on else "shared_offload_off", lang))
    thinking = common("thinking")
    if thinking is not None:
        parts.append(i18n.t("shared_thinking" if thinking.value else "shared_non_thinking", lang))
    cap = common("max_response_length")
    if cap is not None:
        parts.append(i18n.t("shared_response", lang, cap=i18n.setting_display(cap, lang)))
    batch = common("batch")
    if batch is not None:
        parts.append(i18n.t("shared_batch", lang, batch=i18n.setting_display(batch, lang)))
    return " · ".join(parts)


def progress_line(views: Sequence[ExperimentView], lang: str) -> str:
    """``E1–E4 finished 150/150 · E5 running 21/150 (4h23m, ETA 27h)``; codes carry the short track when the
    experiments span several tracks (``E1 · 2B``)."""
    tracks = [view.experiment.track for view in views]
    short = shown_track_names(tracks, lang) if len(set(tracks)) > 1 else {}
    groups: dict[tuple[str, str, str], list[ExperimentView]] = {}
    parts: list[str] = []
    for view in views:
        track = display_text(short.get(view.experiment.track, ""), limit=NAME_LIMIT)
        code = f"{view.code} · {track}" if track else view.code
        if view.status in ("running", "stalled"):
            elapsed = i18n.format_duration(view.experiment.elapsed_h, lang)
            detail = (
                elapsed
                if view.experiment.eta_h is None
                else i18n.t(
                    "progress_detail", lang, elapsed=elapsed, eta=i18n.format_duration(view.experiment.eta_h, lang)
                )
            )
            status = i18n.t("status_" + view.status, lang)
            parts.append(f"{code} {status} {view.experiment.progress_text} ({detail})")
            continue
        groups.setdefault((track, view.status, view.experiment.progress_text), []).append(view)
    grouped = []
    for (track, status, progress), members in groups.items():
        codes = _compress_codes([view.code for view in members])
        grouped.append(
            i18n.t(
                "progress_group",
                lang,
                codes=f"{codes} · {track}" if track else codes,
                status=i18n.t("status_" + status, lang),
                progress=progress,
            )
        )
    return " · ".join(grouped + parts)


# ----------------------------------------------------------------------------------------------- tables


def experiments_frame(
    views: Sequence[ExperimentView], numbers: Mapping[str, Any], *, slugs: Mapping[str, str], lang: str
) -> pl.DataFrame:
    """The overview's experiments table, one row per experiment.

    ``numbers`` maps experiment id -> its headline (``first5_pass``, ``last10_pass``, ``best_val``,
    ``best_val_step``, ``last_val``, ``sparkline``; see :class:`rlmon.app.ui.Headline`). Columns: ``experiment``
    (label), ``track`` (only when several tracks are in view), ``status`` (glyph, status, steps), ``progress``
    (0–100), ``hours``, ``eta``, ``first5``, ``last10``, ``best_val``, ``last_val``, ``spark`` (the pass rate,
    each on its own scale), ``page`` (the experiment page's path).
    """
    tracks = [view.experiment.track for view in views]
    several = len(set(tracks)) > 1
    short = shown_track_names(tracks, lang)
    unknown = i18n.t("fmt_unknown", lang)
    rows = []
    for view in views:
        experiment = view.experiment
        headline = numbers.get(view.id)
        total = experiment.total_steps
        best_val = getattr(headline, "best_val", None)
        best = (
            f"{i18n.format_score(best_val, lang)} @{getattr(headline, 'best_val_step', '')}"
            if best_val is not None
            else unknown
        )
        row: dict[str, Any] = {"experiment": view.label}
        if several:
            row["track"] = display_text(short[experiment.track], limit=NAME_LIMIT)
        row |= {
            "status": f"{STATUS_GLYPHS.get(view.status, '')} {i18n.t('status_' + view.status, lang)} "
            f"{experiment.progress_text}",
            "progress": 100.0 * experiment.steps_done / total if total else None,
            "hours": i18n.format_hours(experiment.elapsed_h, lang),
            "eta": i18n.format_duration(experiment.eta_h, lang) if experiment.eta_h is not None else "",
            "first5": i18n.format_percent(getattr(headline, "first5_pass", None), lang),
            "last10": i18n.format_percent(getattr(headline, "last10_pass", None), lang),
            "best_val": best,
            "last_val": i18n.format_score(getattr(headline, "last_val", None), lang),
            "spark": list(getattr(headline, "sparkline", ()) or ()),
            "page": slugs.get(view.id, ""),
        }
        rows.append(row)
    schema: dict[str, Any] = {"experiment": pl.String}
    if several:
        schema["track"] = pl.String
    schema |= {
        "status": pl.String,
        "progress": pl.Float64,
        "hours": pl.String,
        "eta": pl.String,
        "first5": pl.String,
        "last10": pl.String,
        "best_val": pl.String,
        "last_val": pl.String,
        "spark": pl.List(pl.Float64),
        "page": pl.String,
    }
    return pl.DataFrame(rows, schema=schema, orient="row")


def signals_frame(
    views: Sequence[ExperimentView],
    signals: Sequence[Any],
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
        experiment = signal_experiment(signal)
        if experiment not in labels:
            continue
        step = getattr(signal, "step", None)
        step_end = getattr(signal, "step_end", None)
        where = "" if step is None else (f"{step}–{step_end}" if step_end not in (None, step) else str(step))
        severity = str(getattr(signal, "severity", ""))
        kind = str(getattr(signal, "kind", ""))
        rows.append(
            {
                "experiment": labels[experiment],
                "severity": i18n.t("severity_" + severity, lang)
                if f"severity_{severity}" in i18n.MESSAGES
                else severity,
                "kind": kinds.get(kind, {}).get(lang, kind),
                "step": where,
                "message": display_text(signal_text(signal, lang)),
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
    group_names = {group: i18n.t("group_" + group, lang) for group in SETTING_GROUPS}
    columns: dict[str, list[str]] = {
        i18n.t("col_group", lang): [group_names.get(diff.group, diff.group) for diff in diffs],
        i18n.t("col_setting", lang): [i18n.setting_label(diff.key, diff.label, lang) for diff in diffs],
    }
    for view in views:
        # labels cut at NAME_LIMIT may meet: a column name must be unique
        name, count = labels[view.id], 2
        while name in columns:
            name, count = f"{labels[view.id]} ({count})", count + 1
        columns[name] = [display_text(i18n.setting_display(view.experiment.setting(diff.key), lang)) for diff in diffs]
    return pl.DataFrame(columns, schema={name: pl.String for name in columns})


# -------------------------------------------------------------------------------------- experiment page


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
    signals: Sequence[Any],
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
    x_title = i18n.t("x_" + x, lang)
    common: dict[str, Any] = {
        "colors": colors,
        "labels": labels,
        "experiment_title": i18n.t("col_experiment", lang),
        "empty_text": i18n.t("no_data", lang),
        "height": DETAIL_HEIGHT,
        "arrow": True,
    }
    signal_marks = tuple(
        (signal_experiment(signal), getattr(signal, "step", None), getattr(signal, "metric", None))
        for signal in signals
        if signal_experiment(signal) == view.id
    )

    def single(key: str, title: str, *, note: str | None = None, focus_step: int | None = None) -> _Detail:
        marked = list(signals)
        if focus_step is not None:
            marked.append(_FocusMark(experiment=view.id, metric=key, step=focus_step))
        return _Detail(
            key,
            key,
            _line_builder(
                key, [view], smoothing=smoothing, x=x, log_scale=False, signals=marked, lang=lang,
                points=max_points, common=common, title=title, note=note,
            ),
        )  # fmt: skip

    def multi(name: str, keys: Mapping[str, str], title: str, y_title: str) -> _Detail | None:
        present = {key: label for key, label in keys.items() if key in columns}
        if not present:
            return None
        palette = [view.color, _SERIES_GREY, *charts.DEFAULT_PALETTE]
        series_colors = dict(zip(present, palette, strict=False))

        def build() -> dict[str, Any]:
            return charts.metric_chart_spec(
                _series_frame(view, present), title=title, y_title=y_title, colors=series_colors,
                labels=present, smoothing=smoothing, x=x, x_title=x_title,  # type: ignore[arg-type]
                raw_suffix=i18n.t("raw_suffix", lang), empty_text=i18n.t("no_data", lang),
                experiment_title=i18n.t("col_series", lang), max_points=max_points, height=DETAIL_HEIGHT,
                legend=True, arrow=True,
            )  # fmt: skip

        return _Detail(name, None, build)

    def has(name: str) -> bool:
        return resolve_key(name, columns) is not None

    three_decimals = bool(getattr(view.experiment, "three_decimals", False))
    phase_keys = [key for phase in PHASES for key in (f"timing_s/{phase}", f"timing/{phase}") if key in columns]
    details: list[_Detail | None] = [
        single("pass_rate", i18n.t("chart_pass_rate", lang)) if has("pass_rate") else None,
        single("response_length/mean", i18n.t("chart_response_length", lang)) if has("response_length/mean") else None,
        single("response_clip_pct", i18n.t("chart_response_clip", lang)) if has("response_clip_pct") else None,
        single("actor/entropy", i18n.t("chart_entropy", lang)) if has("actor/entropy") else None,
        single("actor/grad_norm", i18n.t("chart_grad_norm", lang)) if has("actor/grad_norm") else None,
        multi(
            "clipfrac",
            {"pg_clipfrac_pct": "pg_clipfrac", "pg_clipfrac_lower_pct": "pg_clipfrac_lower"},
            i18n.t("chart_clipfrac", lang),
            "%",
        ),
        single("actor/kl_loss", i18n.t("chart_kl_loss", lang)) if has("actor/kl_loss") else None,
        single(
            "rollout_mismatch",
            i18n.t("chart_mismatch", lang),
            note=i18n.t("note_three_decimals", lang) if three_decimals else None,
        )
        if has("rollout_mismatch")
        else None,
        single("critic/vf_loss", i18n.t("chart_vf_loss", lang)) if has("critic/vf_loss") else None,
        single("critic/vf_explained_var", i18n.t("chart_vf_explained_var", lang))
        if has("critic/vf_explained_var")
        else None,
        single("critic/grad_norm", i18n.t("chart_critic_grad_norm", lang)) if has("critic/grad_norm") else None,
        # Every algorithm logs critic/returns/mean (for GRPO it is the advantage); values exist only with a
        # value model (PPO/GAE).
        multi(
            "critic_values",
            {"critic/vpred_mean": "vpred", "critic/values/mean": "values", "critic/returns/mean": "returns"},
            i18n.t("chart_values_returns", lang),
            i18n.t("axis_value", lang),
        )
        if has("critic/vpred_mean") or has("critic/values/mean")
        else None,
        _Detail("phases", None, lambda: _phases_spec(view, phase_keys, x=x, lang=lang, max_points=max_points))
        if phase_keys
        else None,
        single("perf/throughput", i18n.t("chart_throughput", lang)) if has("perf/throughput") else None,
    ]
    drawn = [detail for detail in details if detail is not None]
    if focus is not None and has(focus.key):
        drawn = [detail for detail in drawn if detail.key is None or alias_of(detail.key) != alias_of(focus.key)]
        title = i18n.t("chart_focus", lang, metric=metric_name(focus.key, lang))
        drawn.insert(0, single(focus.key, title, focus_step=focus.step))
    identity = (view.id, view.serial, smoothing, x, lang, max_points, signal_marks)
    return [
        ChartPlan(detail.name, ("experiment", detail.name, *identity, focus if index == 0 else None), detail.build)
        for index, detail in enumerate(drawn)
    ]


@dataclass(frozen=True)
class _FocusMark:
    """A marker at the step a link asked for (drawn like a signal's marker)."""

    experiment: str
    metric: str
    step: int
    kind: str = "focus"

    def text(self, lang: str) -> str:
        return i18n.t("focus_marker", lang, step=self.step)


def _phases_spec(
    view: ExperimentView, phase_keys: Sequence[str], *, x: str, lang: str, max_points: int
) -> dict[str, Any]:
    return charts.stacked_area_chart_spec(
        _series_frame(view, dict.fromkeys(phase_keys, "")).with_columns(pl.lit(view.id).alias(EXPERIMENT)),
        title=i18n.t("chart_step_time", lang),
        y_title=i18n.t("axis_seconds", lang),
        x=x,  # type: ignore[arg-type]
        x_title=i18n.t("x_" + x, lang),
        total_title=i18n.t("chart_step_total", lang),
        empty_text=i18n.t("no_data", lang),
        max_points=max_points,
        height=DETAIL_HEIGHT,
        arrow=True,
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
                return charts.validation_chart_spec(
                    long, title=i18n.t("chart_validation", lang, source=display_text(source, limit=NAME_LIMIT)),
                    y_title=axis_title(score, lang), colors={view.id: view.color}, labels={view.id: view.label},
                    x=x,  # type: ignore[arg-type]
                    x_title=i18n.t("x_" + x, lang), percent=_is_fraction(long), empty_text=i18n.t("no_data", lang),
                    experiment_title=i18n.t("col_experiment", lang), height=DETAIL_HEIGHT, arrow=True,
                )  # fmt: skip

            chart = ChartPlan(score, ("experiment-validation", score, view.id, view.serial, x, lang), build)
        panels.append(ValidationPanel(source=source, table=table, chart=chart))
    return panels


def family_of(key: str) -> str:
    """``actor/entropy`` -> ``actor/``; a key without a slash is its own family."""
    return key.split("/", 1)[0] + "/" if "/" in key else key


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
    points = min(max_points, 500)
    groups: dict[str, list[ChartPlan]] = {}
    for key in chosen[:EXPLORER_LIMIT]:

        def build(key: str = key) -> dict[str, Any]:
            return charts.metric_chart_spec(
                long_frame([view], key), title=display_text(key, limit=NAME_LIMIT), y_title="",
                colors={view.id: view.color}, labels={view.id: view.label}, smoothing=smoothing, x=x,  # type: ignore[arg-type]
                x_title=i18n.t("x_" + x, lang), raw_suffix=i18n.t("raw_suffix", lang),
                empty_text=i18n.t("no_data", lang), experiment_title=i18n.t("col_experiment", lang),
                max_points=points, height=EXPLORER_HEIGHT, arrow=True,
            )  # fmt: skip

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
