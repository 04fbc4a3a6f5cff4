"""The overview page: the metrics it offers, its comparison charts (one metric over every experiment in view)
and its header lines (what every experiment shares, how far each has come)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

import polars as pl

from rlmon.analysis.groups import Band
from rlmon.analysis.signals import Signal
from rlmon.analysis.smoothing import METHODS, Smoothing
from rlmon.runs.experiment import STATUS_ORDER
from rlmon.runs.groups import Group, find_groups
from rlmon.runs.metrics import VALIDATION_PREFIX, alias_of
from rlmon.schema import EXPERIMENT, VALUE
from rlmon.text import format_duration, format_hours, setting_display, t, track_name
from rlmon.text.display import NAME_LIMIT, display_text
from rlmon.text.lang import join_values
from rlmon.text.numbers import format_progress
from rlmon.views import charts
from rlmon.views.charts import ChartOptions
from rlmon.views.lines import line_builder, metric_note, validation_builder
from rlmon.views.model import (
    EAGER_CHARTS,
    ChartPlan,
    ExperimentView,
    display_labels,
    is_validation_key,
    match_keys,
    track_suffixes,
)

__all__ = [
    "COMPARISON_HEIGHT",
    "DEFAULT_METRICS",
    "HOURS_TOTAL",
    "PICKER_LIMIT",
    "UNKNOWN_SHOWN",
    "ComparisonChoices",
    "MetricPicker",
    "OverviewHeader",
    "UnknownMetrics",
    "Unreadable",
    "chip_colors",
    "comparison_charts",
    "comparison_charts_ahead",
    "crashed_member_note",
    "default_metrics",
    "download_metrics",
    "line_points",
    "metric_options",
    "metric_picker",
    "notice_lines",
    "overview_charts",
    "overview_eager",
    "overview_header",
    "progress_line",
    "repeat_groups",
    "shared_settings_line",
    "unknown_metrics",
]


HOURS_TOTAL = "hours_total"
"""Pseudo metric: one bar per experiment with its total training hours."""


DEFAULT_METRICS = ("pass_rate", "response_length/mean", "actor/entropy", "actor/grad_norm", HOURS_TOTAL)


COMPARISON_HEIGHT = 230
"""Plot-area height of the overview's comparison charts (px)."""


CHART_POINTS = 4_000
"""Points one comparison chart ships at most, over all its lines: with many experiments each line gets fewer
points (never more than the ``max_points`` setting, never fewer than :data:`MIN_LINE_POINTS`). What a browser
takes to draw a chart follows its points: 4 charts of 40 runs at 100 points a line were drawn 0.4-0.5 s sooner
than at 200 (benchmarks/README.md, "Chart floor"), and looked the same (each bucket keeps its lowest, highest and
last value, so spikes stay)."""


MIN_LINE_POINTS = 100


TALL_TABLE = 6
"""Experiments above which the overview's table and summary fill a laptop's first screen."""


def overview_eager(experiments: int) -> int:
    """How many of the overview's charts are drawn at once, the rest coming as they near the view: its first two
    rows (4), which a laptop's first screen shows under a table of a few experiments; none when more than
    :data:`TALL_TABLE` experiments' rows and the summary fill that screen (drawing charts nobody sees yet only
    delays the first screen: on 20 experiments, 3.4-6.5 s against 1.5-2.1 s in the browser)."""
    return EAGER_CHARTS if experiments <= TALL_TABLE else 0


def line_points(max_points: int, lines: int) -> int:
    """Points per line for a chart of ``lines`` lines (downsampling keeps each bucket's min, max and last)."""
    return max(min(max_points, MIN_LINE_POINTS), min(max_points, CHART_POINTS // max(1, lines)))


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


PICKER_LIMIT = 300
"""Most keys the metric picker offers at once, besides those chosen: a picker of one option per key stops
working in the browser somewhere past 100,000 keys, and a person reads a few hundred at most. The filter
(a regular expression) finds the others."""


@dataclass(frozen=True)
class MetricPicker:
    """What the comparison charts' metric picker offers (:func:`metric_picker`)."""

    shown: list[str]
    """The options: the chosen keys, then the first keys the filter matches (all keys without a filter), at
    most :data:`PICKER_LIMIT` of those."""
    matched: int | None
    """How many keys the filter matched; None without a filter."""
    regex: bool
    """Whether the filter was read as a regular expression (else as plain text)."""
    more: int
    """Keys matched (or, without a filter, keys at all) that the picker leaves out: to be found by the filter."""


def metric_picker(options: Sequence[str], chosen: Sequence[str], pattern: str) -> MetricPicker:
    """The picker's options for the keys ``options`` (:func:`metric_options`), the keys ``chosen`` and the filter
    ``pattern`` (empty: none); however many keys the experiments log, it offers at most :data:`PICKER_LIMIT` of
    them besides the chosen ones, in ``options``' order.

    >>> keys = [f"k/{index}" for index in range(1000)]
    >>> picker = metric_picker(keys, ["k/999"], "")
    >>> len(picker.shown), picker.shown[-2:], picker.matched, picker.more
    (301, ['k/299', 'k/999'], None, 699)
    >>> picker = metric_picker(keys, ["k/999"], "^k/1")
    >>> len(picker.shown), picker.shown[:3], picker.matched, picker.more
    (112, ['k/1', 'k/10', 'k/11'], 111, 0)
    """
    matched: int | None = None
    regex = True
    candidates: Sequence[str] = options
    if pattern:
        found, regex = match_keys(options, pattern)
        candidates, matched = found, len(found)
    kept = set(chosen)
    others = [key for key in candidates if key not in kept]
    offered = set(others[:PICKER_LIMIT])
    shown = [key for key in options if key in kept or key in offered]
    return MetricPicker(shown=shown, matched=matched, regex=regex, more=max(0, len(others) - PICKER_LIMIT))


def _views_key(views: Sequence[ExperimentView]) -> tuple[tuple[str, int], ...]:
    return tuple((view.id, view.serial) for view in views)


def _hours_bars(views: Sequence[ExperimentView], lang: str) -> pl.DataFrame:
    """One row per experiment with elapsed hours; a run that has not finished says its status in the word the
    table uses (``stalled``, ``crashed`` ...), and a running one also gets its projected total."""
    rows = []
    for view in views:
        experiment = view.experiment
        if experiment.elapsed_h is None:
            continue
        projected = None
        text = format_hours(experiment.elapsed_h, lang)
        if view.status != "finished":
            status = t("status_" + view.status, lang)
            if view.status == "running" and experiment.eta_h is not None:
                projected = experiment.elapsed_h + experiment.eta_h
                text = t("bar_status_projection", lang, hours=text, status=status, total=format_hours(projected, lang))
            else:
                text = t("bar_status", lang, hours=text, status=status)
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
    signals: Sequence[Signal],
    highlight: Sequence[str],
    lang: str,
    max_points: int,
    band: Band = "minmax",
) -> list[ChartPlan]:
    """The overview's charts of ``metrics`` over ``views``: lines (smoothed, raw faded beneath, signal markers,
    the response cap; each group of repeats, :func:`repeat_groups`, as its mean line and ``band``), validation
    points, or the hours bars for :data:`HOURS_TOTAL`."""
    colors = {view.id: view.color for view in views}
    found = repeat_groups(views)
    members = {member: group.key for group in found for member in group.members}
    group_names = {
        group.key: t("group_legend", lang, name=display_text(group.name, limit=NAME_LIMIT), n=len(group.members))
        for group in found
    }
    crash_note = crashed_member_note(views, found, lang)
    labels = display_labels(views, lang)
    points = line_points(max_points, len(views))
    base = ChartOptions(
        title="",
        y_title="",
        colors=colors,
        labels=labels,
        dashes={view.id: view.dash for view in views if view.dash},
        x=x,  # type: ignore[arg-type]
        x_title=t("x_" + x, lang),
        smoothing=smoothing,
        log_scale=log_scale,
        max_points=points,
        height=COMPARISON_HEIGHT,
        highlight=tuple(highlight),
        experiment_title=t("col_experiment", lang),
        raw_suffix=t("raw_suffix", lang),
        marker_title=t("signal_marker", lang),
        projected_title=t("bar_projected", lang),
        empty_text=t("no_data", lang),
        arrow=True,
        groups=members,
        band=band,
        group_names=group_names,
        group_titles=(t("group_tip_group", lang), t("group_tip_mean", lang), t("band_" + band, lang),
                      t("group_tip_runs", lang)),
    )  # fmt: skip
    identity = (
        _views_key(views),
        tuple(labels.values()),
        tuple(highlight),
        lang,
        tuple(members.items()),
        tuple(group_names.items()),
        band,
    )
    plans: list[ChartPlan] = []
    for key in metrics:
        if key == HOURS_TOTAL:
            plans.append(
                ChartPlan(
                    key,
                    ("overview", key, identity),
                    lambda: charts.bar_chart_spec(
                        _hours_bars(views, lang),
                        # a group's runs in its colour, as the lines and chips draw them
                        replace(
                            base, title=t("hours_chart", lang), y_title=t("hours_axis", lang), colors=chip_colors(views)
                        ),
                    ),
                )
            )
            continue
        marks = tuple(
            (signal.experiment, signal.step, signal.text(lang))
            for signal in signals
            if signal.metric is not None and alias_of(signal.metric) == alias_of(key)
        )
        if is_validation_key(key):
            validation = validation_builder(key, views, base, lang=lang)
            plans.append(ChartPlan(key, ("overview", key, identity, x, log_scale, points), validation, crash_note))
            continue
        plans.append(
            ChartPlan(
                key,
                ("overview", key, identity, smoothing, x, log_scale, points, marks),
                line_builder(key, views, base, signals=signals, lang=lang),
                note=_joined(metric_note(key, views, lang), crash_note),
            )
        )  # fmt: skip
    return plans


def comparison_charts_ahead(
    metrics: Sequence[str],
    views: Sequence[ExperimentView],
    *,
    smoothing: Smoothing,
    x: str,
    log_scale: bool,
    signals: Sequence[Signal],
    highlight: Sequence[str],
    lang: str,
    max_points: int,
    band: Band = "minmax",
) -> dict[str, list[ChartPlan]]:
    """What a click on the smoothing control asks for next: by metric, the overview's chart of it
    (:func:`comparison_charts`, the same choices) under each smoothing method but ``smoothing``'s, with its
    window and weight."""
    ahead: dict[str, list[ChartPlan]] = {key: [] for key in metrics}
    for method in METHODS:
        if method != smoothing.method:
            plans = comparison_charts(
                metrics, views, smoothing=replace(smoothing, method=method), x=x, log_scale=log_scale,
                signals=signals, highlight=highlight, lang=lang, max_points=max_points, band=band,
            )  # fmt: skip
            for plan in plans:
                ahead[plan.name].append(plan)
    return ahead


@dataclass(frozen=True)
class ComparisonChoices:
    """What the overview's comparison charts are drawn with besides the metrics and the experiments: the visitor's
    smoothing, x axis, log scale, highlight and band, the signals marked, the language and the points a line may
    have (``settings.max_points``)."""

    smoothing: Smoothing
    x: str
    log_scale: bool
    signals: Sequence[Signal]
    highlight: Sequence[str]
    lang: str
    max_points: int
    band: Band = "minmax"


def overview_charts(
    metrics: Sequence[str], views: Sequence[ExperimentView], choices: ComparisonChoices
) -> tuple[list[ChartPlan], dict[str, list[ChartPlan]]]:
    """The overview's comparison charts (:func:`comparison_charts`) and, by metric, the same under the other
    smoothing methods, built ahead (:func:`comparison_charts_ahead`): both from one set of ``choices``."""
    plans = comparison_charts(
        metrics, views, smoothing=choices.smoothing, x=choices.x, log_scale=choices.log_scale,
        signals=choices.signals, highlight=choices.highlight, lang=choices.lang, max_points=choices.max_points,
        band=choices.band,
    )  # fmt: skip
    ahead = comparison_charts_ahead(
        metrics, views, smoothing=choices.smoothing, x=choices.x, log_scale=choices.log_scale,
        signals=choices.signals, highlight=choices.highlight, lang=choices.lang, max_points=choices.max_points,
        band=choices.band,
    )  # fmt: skip
    return plans, ahead


def _joined(*notes: str | None) -> str | None:
    """The notes under one chart as one text (a metric's note first), None when there is none."""
    return " ".join(note for note in notes if note) or None


def crashed_member_note(views: Sequence[ExperimentView], groups: Sequence[Group], lang: str) -> str | None:
    """The note under the charts that draw ``groups``: each member that crashed, the step after which its group's
    mean and band leave it out (its line still drawn up to there); None when no member crashed."""
    labels = display_labels(views, lang)
    by_id = {view.id: view for view in views}
    notes = [
        t("chart_group_crashed", lang, member=labels.get(member, member), step=by_id[member].experiment.failure_step,
          group=display_text(group.name, limit=NAME_LIMIT))
        for group in groups
        for member in group.members
        if by_id[member].status == "crashed" and by_id[member].experiment.failure_step is not None
    ]  # fmt: skip
    return " ".join(notes) or None


def chip_colors(views: Sequence[ExperimentView]) -> dict[str, str]:
    """Experiment id -> the colour its chip above the charts is drawn in: its group's (its first run's, as the
    charts draw every run of a group of repeats), else its own."""
    colors = {view.id: view.color for view in views}
    for group in repeat_groups(views):
        for member in group.members:
            colors[member] = colors[group.members[0]]
    return colors


def repeat_groups(views: Sequence[ExperimentView]) -> list[Group]:
    """The groups of repeated runs among ``views`` (:func:`rlmon.runs.groups.find_groups`): none in a view without
    repeats, which then looks as it always did."""
    return find_groups([view.experiment for view in views])


def _compress_codes(codes: Sequence[str], lang: str) -> str:
    """``E1, E2, E3, E4`` -> ``E1–E4`` when the codes are consecutive numbers with one prefix (else ``E1, E3`` /
    ``E1、E3``)."""
    parsed = [re.fullmatch(r"([A-Za-z]+)(\d+)", code) for code in codes]
    if len(codes) > 2 and all(parsed):
        prefixes = {match.group(1) for match in parsed if match}
        numbers = [int(match.group(2)) for match in parsed if match]
        if len(prefixes) == 1 and numbers == list(range(numbers[0], numbers[0] + len(numbers))):
            return f"{codes[0]}–{codes[-1]}"
    return join_values(codes, lang)


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
        parts.append(t("shared_gpus", lang, n=gpus.value))
    tp = common("rollout_tp")
    if tp is not None:
        parts.append(f"TP={tp.value}")
    known = [item for item in (common("param_offload"), common("optimizer_offload")) if item is not None]
    if known:
        on = any(bool(item.value) for item in known)
        parts.append(t("shared_offload_on" if on else "shared_offload_off", lang))
    thinking = common("thinking")
    if thinking is not None:
        parts.append(t("shared_thinking" if thinking.value else "shared_non_thinking", lang))
    cap = common("max_response_length")
    if cap is not None:
        parts.append(t("shared_response", lang, cap=setting_display(cap, lang)))
    batch = common("batch")
    if batch is not None:
        parts.append(t("shared_batch", lang, batch=setting_display(batch, lang)))
    return " · ".join(parts)


PROGRESS_PARTS = 6
"""Parts the overview's progress line names one by one; past that it counts the runs of each status (the table
below names every one)."""


def progress_line(views: Sequence[ExperimentView], lang: str) -> str:
    """``E1–E4 finished 150/150 · E5 running 21/150 (4h23m, ETA 27h)``; codes carry the short track when the
    experiments span several tracks whose short names are short (``E1 · 2B``, :func:`display_labels`). Past
    :data:`PROGRESS_PARTS` parts: how many runs have each status (``9 finished · 2 running · 3 crashed``)."""
    suffixes = track_suffixes([view.experiment.track for view in views], lang) or {}
    every_code = [(view.code, suffixes.get(view.experiment.track, "")) for view in views]
    # a code two runs of a track share (amd-mi300… · GRPO and amd-mi300… · PPO) would not say which: their names
    shown = {
        view.id: view.label if every_code.count((view.code, suffixes.get(view.experiment.track, ""))) > 1 else view.code
        for view in views
    }
    groups: dict[tuple[str, str, str], list[ExperimentView]] = {}
    parts: list[str] = []
    for view in views:
        track = suffixes.get(view.experiment.track, "")
        code = f"{shown[view.id]} · {track}" if track else shown[view.id]
        progress = format_progress(view.experiment.steps_done, view.experiment.total_steps, lang)
        if view.status in ("running", "stalled"):
            elapsed = format_duration(view.experiment.elapsed_h, lang)
            detail = (
                elapsed
                if view.experiment.eta_h is None
                else t("progress_detail", lang, elapsed=elapsed, eta=format_duration(view.experiment.eta_h, lang))
            )
            status = t("status_" + view.status, lang)
            parts.append(f"{code} {status} {progress} ({detail})")
            continue
        groups.setdefault((track, view.status, progress), []).append(view)
    if len(groups) + len(parts) > PROGRESS_PARTS:
        counts: dict[str, int] = {}
        for view in views:
            counts[view.status] = counts.get(view.status, 0) + 1
        return " · ".join(
            t("progress_count", lang, count=count, status=t("status_" + status, lang))
            for status, count in sorted(counts.items(), key=lambda item: STATUS_ORDER.index(item[0]))
        )
    grouped = []
    for (track, status, progress), members in groups.items():
        codes = _compress_codes([shown[view.id] for view in members], lang)
        grouped.append(
            t(
                "progress_group",
                lang,
                codes=f"{codes} · {track}" if track else codes,
                status=t("status_" + status, lang),
                progress=progress,
            )
        )
    return " · ".join(grouped + parts)


@dataclass(frozen=True)
class OverviewHeader:
    """The overview's header: the tracks in view (their names as the logs and ``rlmon.toml`` give them: escape
    before markdown), what every experiment shares, how far each has come, and when the page was drawn."""

    tracks: tuple[str, ...]
    settings_line: str
    progress_line: str
    updated: str


HEADER_TRACKS = 3
"""Tracks the overview's title names; past that it says how many tracks are in view."""


def overview_header(views: Sequence[ExperimentView], *, clock: str, lang: str) -> OverviewHeader:
    """The header of the overview of ``views``, drawn at ``clock`` (``HH:MM:SS``): the tracks in view (how many,
    past :data:`HEADER_TRACKS`), what every experiment shares, how far each has come."""
    tracks = tuple(track_name(track, lang) for track in dict.fromkeys(view.experiment.track for view in views))
    return OverviewHeader(
        tracks=tracks if len(tracks) <= HEADER_TRACKS else (t("header_tracks", lang, count=len(tracks)),),
        settings_line=shared_settings_line(views, lang),
        progress_line=progress_line(views, lang),
        updated=t("updated_at", lang, time=clock),
    )


UNKNOWN_SHOWN = 20
"""Metric names a link asked for that are named in the overview's warning at most."""


@dataclass(frozen=True)
class UnknownMetrics:
    """The metrics a link asked for that no experiment in view logs: the first :data:`UNKNOWN_SHOWN`, and
    whether there are more."""

    names: tuple[str, ...]
    more: bool


def unknown_metrics(linked: Sequence[str], options: Sequence[str]) -> UnknownMetrics | None:
    """The names of ``linked`` (a link's ``?m=``) that are not among ``options``; None when all are."""
    known = set(options)
    unknown = [key for key in linked if key not in known]
    if not unknown:
        return None
    return UnknownMetrics(names=tuple(unknown[:UNKNOWN_SHOWN]), more=len(unknown) > UNKNOWN_SHOWN)


def download_metrics(metrics: Sequence[str]) -> list[str]:
    """The chosen metrics the per-step download holds: every line metric (not the hours bars, not validation)."""
    return [key for key in metrics if key != HOURS_TOTAL and not is_validation_key(key)]


class Unreadable(Protocol):
    """An experiment that could not be read (``rlmon.app.loaders.Unreadable``): its folder and why."""

    @property
    def path(self) -> str: ...

    @property
    def reason(self) -> str: ...


def notice_lines(
    problems: Sequence[str], unreadable: Sequence[Unreadable], views: Sequence[ExperimentView]
) -> list[str]:
    """The overview's notes on the logs: the catalog's ``problems``, each unreadable experiment
    (``<folder>: <reason>``) and each problem of the experiments in view (``<label>: <problem>``), in that order
    (:func:`rlmon.views.model.log_notes` shows them)."""
    lines = [*problems]
    lines += [f"{item.path}: {item.reason}" for item in unreadable]
    for view in views:
        lines += [f"{view.label}: {problem}" for problem in view.experiment.problems]
    return lines
