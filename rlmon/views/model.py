"""The view model the pages and the report share: an experiment ready to draw, chart plans, headline numbers.

Pure (no streamlit). :class:`ExperimentView` (:func:`view_of`) is an experiment with the columns the charts
draw; a chart comes as a :class:`ChartPlan`: its memo key (everything the chart is drawn from, so every visitor
asking for the same chart shares one build) and a builder returning the Vega-Lite spec
(:mod:`rlmon.views.charts`). :class:`TableNumbers` are the headline numbers the tables show.

Names come from folders, ``rlmon.toml`` and log text, so every name shown passes
:func:`rlmon.text.display.display_text`: bidi control characters and characters that draw nothing are taken out
and a name longer than :data:`~rlmon.text.display.NAME_LIMIT` is cut (the experiment page shows an experiment's
whole label, wrapped). The experiments a view shows together (a track, or all of them) get their names and
colours once, as a :class:`Lineup` (:func:`lineup_of`, applied by :func:`styled`): names short enough to read
whole and never two alike (:func:`rlmon.text.names.experiment_names`), colours never shared up to 20 runs
(:func:`rlmon.runs.experiment.view_styles`).

Metric names are the current verl names; each experiment's column is found through
:func:`rlmon.runs.metrics.resolve_key`, so an older log's ``actor/entropy_loss`` is drawn as its entropy.
"""

from __future__ import annotations

import dataclasses
import re
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from rlmon.analysis.signals import Signal
from rlmon.runs.axes import GPU_HOURS, NO_AXIS_FACTS, SAMPLES, TOKENS, AxisFacts, axis_columns, axis_facts
from rlmon.runs.experiment import Experiment, name_entries, short_track_names, tracks_in_labels, view_styles
from rlmon.runs.metrics import (
    VALIDATION_PREFIX,
    add_derived_metrics,
    derived_columns,
    pass_rate_mode_of,
    resolve_key,
    validation_keys,
)
from rlmon.schema import EXPERIMENT, HOURS, LONG_SCHEMA, METRIC, STEP, VALUE
from rlmon.sources.discovery import ExperimentRef
from rlmon.text import metric_title, t, track_name
from rlmon.text.display import NAME_LIMIT, NO_PATHS, display_text
from rlmon.text.names import clean_name, experiment_names, spelled_out

__all__ = [
    "EAGER_CHARTS",
    "STATUS_GLYPHS",
    "ChartPlan",
    "ExperimentView",
    "Focus",
    "Insights",
    "Lineup",
    "LogNotes",
    "TableNumbers",
    "display_labels",
    "family_of",
    "is_validation_key",
    "lineup_of",
    "log_notes",
    "long_frame",
    "match_keys",
    "metric_name",
    "shown_track_names",
    "signal_link",
    "styled",
    "table_numbers",
    "track_suffixes",
    "view_of",
]


_AXIS_COLUMNS = (SAMPLES, TOKENS, GPU_HOURS)
"""The x axes' columns besides ``step`` and ``hours`` (:func:`rlmon.runs.axes.axis_columns`)."""

STATUS_GLYPHS = {"finished": "✓", "running": "▶", "stalled": "⏸", "crashed": "✗", "not started": "○"}


EAGER_CHARTS = 4
"""Charts a page draws at once: its first two rows (see :func:`rlmon.views.overview.overview_eager`)."""


@dataclass(frozen=True)
class ExperimentView:
    """An experiment ready for the pages: the summary plus its step frame with derived metrics and hours.

    The frame (:attr:`steps`, or some of its columns: :meth:`read_steps`) is held in memory when the experiment's
    is (:func:`view_of` of a loaded experiment); else it is read through the experiment's ``step_source`` and its
    derived columns computed again, the same numbers (:func:`rlmon.runs.metrics.derived_columns`, with the
    pass-rate mode of :attr:`pass_rate_mode`).
    """

    ref: ExperimentRef
    experiment: Experiment
    logged_keys: tuple[str, ...]
    derived_keys: tuple[str, ...]
    serial: int = 0
    """Unique per view object: a new version of an experiment gets a new serial (chart memo keys use it)."""
    version: int = 0
    """The serial of the read this view comes from, kept when only its colour or name changes: what is computed
    from the data alone (headline numbers, the signals found in its steps) is keyed by it."""
    name: str = ""
    """The name its view shows it by (:class:`Lineup`, set by :func:`styled`); empty: its label, cleaned."""
    dash: int = 0
    """Its lines' dash in its view (:data:`rlmon.runs.experiment.DASH_PATTERNS`; 0 solid)."""
    axis_facts: AxisFacts = NO_AXIS_FACTS
    """What its settings and keys give the x axes (:mod:`rlmon.runs.axes`)."""
    pass_rate_mode: str = "01"
    """The mode the pass rate is derived with: ``rlmon.toml``'s, else the one the scores show."""
    held_steps: pl.DataFrame | None = field(default=None, repr=False, compare=False)
    """The whole frame, when it is held in memory."""

    @property
    def columns(self) -> tuple[str, ...]:
        """The frame's columns: ``step``, the logged keys, the derived metrics, ``hours`` and the other x axes'
        (nothing is read)."""
        return (STEP, *self.logged_keys, *self.derived_keys, HOURS, *_AXIS_COLUMNS)

    @property
    def steps(self) -> pl.DataFrame:
        """Step frame (schema.py) plus derived metrics (rlmon.runs.metrics) and ``hours`` (elapsed training hours).
        Reading some columns (:meth:`read_steps`) costs less when the frame is not held."""
        return self.read_steps()

    def read_steps(self, columns: Sequence[str] | None = None) -> pl.DataFrame:
        """The frame of :attr:`steps`, or ``step`` and those of ``columns`` it has, in that order."""
        known = set(self.columns)
        wanted = [
            name
            for name in dict.fromkeys(self.columns if columns is None else columns)
            if name in known and name != STEP
        ]
        if self.held_steps is not None:
            return self.held_steps if columns is None else self.held_steps.select(STEP, *wanted)
        derived = derived_columns((STEP, *self.logged_keys), pass_rate_mode=self.pass_rate_mode)
        axes = [name for name in _AXIS_COLUMNS if name in wanted]
        hours = (HOURS in wanted or GPU_HOURS in wanted) and ELAPSED_H in derived
        computed = [derived[name] for name in derived if name in wanted or (hours and name == ELAPSED_H)]
        logged = set(self.logged_keys)
        reads = [name for name in wanted if name in logged and name not in derived]
        if axes:
            # whether a row is a training step depends on every logged key (rlmon.runs.axes.axis_columns)
            reads.extend(self.logged_keys)
        for expression in computed:
            reads.extend(expression.meta.root_names())
        steps = self.experiment.read_steps(list(dict.fromkeys(reads)))
        if STEP in steps.columns:
            steps = steps.sort(STEP)  # as add_derived_metrics sorts (merged frames are sorted already)
        if computed:
            steps = steps.with_columns(computed)
        if HOURS in wanted:
            steps = steps.with_columns(_hours(steps.columns).alias(HOURS))
        if axes:
            steps = steps.with_columns(axis_columns(steps, self.axis_facts, logged_keys=self.logged_keys))
        return steps.select(STEP, *wanted)

    @property
    def id(self) -> str:
        return self.experiment.id

    @property
    def label(self) -> str:
        """The name menus, chips, legends, tables and the summary show: its view's short name, told apart from
        look-alikes (:class:`Lineup`), cut at :data:`NAME_LIMIT`."""
        return display_text(self.name or clean_name(self.experiment.label), limit=NAME_LIMIT)

    @property
    def full_label(self) -> str:
        """The whole label, bidi controls and invisible characters taken out (the experiment page's title), with
        the `` (2)`` that tells it from a look-alike."""
        whole = clean_name(self.experiment.label)
        marker = re.search(r" \(\d+\)$", self.name) if self.name else None
        return whole + marker.group(0) if marker and not whole.endswith(marker.group(0)) else whole

    @property
    def tooltip(self) -> str:
        """What hovering its name shows: the whole label and, when the label does not say it, the id."""
        whole = clean_name(self.experiment.label)
        shown_id = spelled_out(self.id)
        if shown_id == self.id and shown_id in whole:
            return whole
        return f"{whole} — {display_text(shown_id)}"

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


ELAPSED_H = "elapsed_h"
"""The derived metric ``hours`` copies (elapsed training hours)."""


def _hours(columns: Sequence[str]) -> pl.Expr:
    return pl.col(ELAPSED_H) if ELAPSED_H in columns else pl.lit(None, dtype=pl.Float64)


def view_of(ref: ExperimentRef, experiment: Experiment, *, serial: int = 0) -> ExperimentView:
    """The experiment ready for the pages: its derived metrics (:func:`rlmon.runs.metrics.add_derived_metrics`), an
    ``hours`` column (elapsed training hours; null when the log has no step times) and the other x axes'
    columns, ``samples``, ``tokens`` and ``gpu_hours`` (:func:`rlmon.runs.axes.axis_columns`). The frame is held
    when the experiment's is; else the view reads it through the experiment as it is asked for."""
    logged = tuple(name for name in experiment.steps.columns if name != STEP)
    logged_set = set(logged)  # not the tuple: 20,000 keys would cost 400 million comparisons
    if experiment.step_source is not None:
        detect = ["critic/score/min", "critic/rewards/min", "critic/score/mean", "critic/rewards/mean"]
        sample = experiment.read_steps([*detect, *validation_keys(experiment.steps.columns).values()])
        mode = pass_rate_mode_of(sample, experiment.pass_rate_mode)
        derived = tuple(
            name for name in derived_columns((STEP, *logged), pass_rate_mode=mode) if name not in logged_set
        )
        return ExperimentView(
            ref=ref, experiment=experiment, logged_keys=logged, derived_keys=derived, serial=serial, version=serial,
            pass_rate_mode=mode, axis_facts=axis_facts(experiment, (STEP, *logged, *derived)),
        )  # fmt: skip
    mode = pass_rate_mode_of(experiment.steps, experiment.pass_rate_mode)
    steps, _skipped = add_derived_metrics(experiment.steps, pass_rate_mode=mode)
    derived = tuple(name for name in steps.columns if name != STEP and name not in logged_set)
    facts = axis_facts(experiment, steps.columns)
    return ExperimentView(
        ref=ref,
        experiment=experiment,
        logged_keys=logged,
        derived_keys=derived,
        serial=serial,
        version=serial,
        axis_facts=facts,
        pass_rate_mode=mode,
        held_steps=steps.with_columns(
            _hours(steps.columns).alias(HOURS), *axis_columns(steps, facts, logged_keys=logged)
        ),
    )


@dataclass(frozen=True)
class ChartPlan:
    """One chart of a page: ``build()`` returns its Vega-Lite spec; ``key`` is everything it is drawn from."""

    name: str
    """What it shows (a metric key or a chart name); the page's anchor for links to it."""
    key: tuple[Any, ...]
    build: Callable[[], dict[str, Any]]
    note: str | None = None
    """Plain text shown under the chart: why its verl metric is easy to misread, with the source
    (:func:`rlmon.views.lines.metric_note`)."""


@dataclass(frozen=True)
class Focus:
    """A chart a link asked for: metric ``key`` of the experiment, with ``step`` marked (a signal's step)."""

    key: str
    step: int | None = None


@dataclass(frozen=True)
class Insights:
    """What :mod:`rlmon.analysis` says about a set of experiments: its signals, the written summary and
    each experiment's paragraph (by experiment id); ``available`` is False when nothing could be said."""

    available: bool = True
    signals: tuple[Signal, ...] = ()
    summary: tuple[str, ...] = ()
    paragraphs: dict[str, str] = field(default_factory=dict)


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


_VALIDATION = re.compile(r"^(val_score/|val-core/|val-aux/|val/|test_score/)")


def is_validation_key(key: str) -> bool:
    """Validation keys (logged every ``test_freq`` steps) are drawn as points joined per experiment."""
    return bool(_VALIDATION.match(key))


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


def family_of(key: str) -> str:
    """``actor/entropy`` -> ``actor/``; a key without a slash is its own family."""
    return key.split("/", 1)[0] + "/" if "/" in key else key


def long_frame(views: Sequence[ExperimentView], metric: str, *, x: str = STEP) -> pl.DataFrame:
    """The long frame (schema.py) of one metric over several experiments; rows without a value left out.

    Each experiment's column is the metric's logged name there (:func:`rlmon.runs.metrics.resolve_key`). On an x
    axis other than step and hours (:data:`rlmon.runs.axes.X_AXES`) the frame has that axis's column too.
    """
    extra = [pl.col(x).cast(pl.Float64)] if x not in (STEP, HOURS) else []
    parts = []
    for view in views:
        column = resolve_key(metric, view.columns)
        if column is None:
            continue
        parts.append(
            view.read_steps([HOURS, column, *([x] if extra else [])])
            .select(
                pl.lit(view.id, dtype=pl.String).alias(EXPERIMENT),
                pl.col(STEP).cast(pl.Int64),
                pl.col(HOURS).cast(pl.Float64),
                pl.lit(metric, dtype=pl.String).alias(METRIC),
                pl.col(column).cast(pl.Float64).alias(VALUE),
                *extra,
            )
            .filter(pl.col(VALUE).is_not_null())
        )
    if not parts:
        return pl.DataFrame(schema=LONG_SCHEMA | ({x: pl.Float64()} if extra else {}))
    return pl.concat(parts, how="vertical")


def shown_track_names(tracks: Sequence[str], lang: str) -> dict[str, str]:
    """Track -> the short name pages show it by in ``lang`` (:func:`rlmon.runs.experiment.short_track_names` of the
    names :func:`rlmon.text.track_name` gives)."""
    names = list(dict.fromkeys(tracks))
    shown = {name: track_name(name, lang) for name in names}
    short = short_track_names(list(shown.values()))
    return {name: short[shown[name]] for name in names}


def track_suffixes(tracks: Sequence[str], lang: str) -> dict[str, str] | None:
    """Track -> the suffix labels carry (its short name in ``lang``, :func:`shown_track_names`) when labels carry
    their track (:func:`rlmon.runs.experiment.tracks_in_labels`); None when they carry none."""
    if not tracks_in_labels(tracks):
        return None
    short = shown_track_names(tracks, lang)
    return {track: display_text(name, limit=NAME_LIMIT) for track, name in short.items()}


def display_labels(views: Sequence[ExperimentView], lang: str) -> dict[str, str]:
    """Experiment id -> label as legends show it: its name (:attr:`ExperimentView.label`), and `` · 2B`` (the short
    track) when the experiments span several tracks with short names (:func:`track_suffixes`: ``Qwen3.5-4B`` and
    ``Qwen3.5-2B``; tracks of unrelated models keep their names to the track column)."""
    suffixes = track_suffixes([view.experiment.track for view in views], lang)
    if suffixes is None:
        return {view.id: view.label for view in views}
    return {view.id: f"{view.label} · {suffixes[view.experiment.track]}" for view in views}


@dataclass(frozen=True)
class Lineup:
    """The experiments one view shows together (a track, or all tracks), each with the name, colour and dash it
    has there: computed once per view (:func:`lineup_of`) and applied to its views (:func:`styled`), so the
    sidebar, the legend, the charts, the tables, the summary and the report all say the same."""

    names: Mapping[str, str] = field(default_factory=dict)
    """Experiment id -> its name: short, told apart from look-alikes (:func:`rlmon.text.names.experiment_names`)."""
    styles: Mapping[str, tuple[str, int]] = field(default_factory=dict)
    """Experiment id -> (colour, dash): no two alike (:func:`rlmon.runs.experiment.view_styles`)."""


def lineup_of(views: Sequence[ExperimentView]) -> Lineup:
    """The :class:`Lineup` of the experiments of one view, in view order. Names are told apart within a track
    when labels carry their track (:func:`display_labels`), else over the whole view."""
    fixed = {view.id for view in views if view.ref.overrides.color}
    return Lineup(
        names=experiment_names(name_entries([view.experiment for view in views])),
        styles=view_styles([view.experiment for view in views], fixed=fixed),
    )


def styled(view: ExperimentView, lineup: Lineup, *, serial: int | None = None) -> ExperimentView:
    """``view`` with the name, colour and dash ``lineup`` gives it (the same object when they are already its own,
    or when the lineup does not hold it); a new one takes ``serial`` (default: its own)."""
    name = lineup.names.get(view.id)
    style = lineup.styles.get(view.id)
    if name is None or style is None:
        return view
    color, dash = style
    if (name, color, dash) == (view.name, view.color, view.dash):
        return view
    experiment = view.experiment if color == view.color else dataclasses.replace(view.experiment, color=color)
    return dataclasses.replace(
        view, experiment=experiment, name=name, dash=dash, serial=view.serial if serial is None else serial
    )


def metric_name(key: str, lang: str) -> str:
    """A metric's title (:func:`rlmon.text.metric_title`) as a chart or a menu shows it (:func:`display_text`)."""
    return display_text(metric_title(key, lang), limit=NAME_LIMIT)


def signal_link(slug: str, signal: Signal) -> str:
    """The link from a signal to its chart on the experiment page: ``<slug>?focus=<key>&at=<step>``."""
    query: dict[str, str] = {}
    if signal.metric:
        query["focus"] = signal.metric
    if signal.step is not None:
        query["at"] = str(signal.step)
    return slug + ("?" + urllib.parse.urlencode(query) if query else "")


@dataclass(frozen=True)
class LogNotes:
    """What reading the logs noted (lines skipped, files unreadable ...): a title with their count, and the notes
    one a line as plain text."""

    title: str
    text: str


def log_notes(notes: Sequence[str], *, lang: str, paths: Mapping[str, str] = NO_PATHS) -> LogNotes | None:
    """``notes`` for the pages' "notes from reading the logs"; None when there are none. Each note passes
    :func:`display_text` (its folders shown by their public address, ``paths``)."""
    if not notes:
        return None
    return LogNotes(
        title=t("log_notes", lang, count=len(notes)),
        text="\n".join(display_text(note, paths=paths) for note in notes),
    )
