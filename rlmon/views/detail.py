"""The experiment page: its training curves in reading order, its validation panels and the explorer's small
multiples of every logged key."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import polars as pl

from rlmon.analysis.health import PROBS_DIFF_RULE, ROLLOUT_CORR_GRID
from rlmon.analysis.signals import RECENT_STEPS, Signal, step_time_limits
from rlmon.analysis.smoothing import Smoothing
from rlmon.runs.experiment import SETTING_GROUPS, Setting, step_time_column
from rlmon.runs.metrics import VALIDATION_PREFIX, alias_of, resolve_key, validation_keys
from rlmon.schema import EXPERIMENT, HOURS, LONG_SCHEMA, METRIC, STEP, VALUE
from rlmon.settings import Settings
from rlmon.text import UNKNOWN, format_duration, format_percent, format_progress, format_score, t
from rlmon.text.display import NAME_LIMIT, description_text, display_text
from rlmon.text.markdown import safe_markdown
from rlmon.text.numbers import format_value
from rlmon.views import charts
from rlmon.views.charts import ChartOptions
from rlmon.views.lines import axis_title, is_fraction, line_builder, metric_note
from rlmon.views.model import (
    STATUS_GLYPHS,
    ChartPlan,
    ExperimentView,
    Focus,
    Insights,
    TableNumbers,
    family_of,
    long_frame,
    match_keys,
    metric_name,
)

__all__ = [
    "DETAIL_HEIGHT",
    "EXPLORER_HEIGHT",
    "EXPLORER_LIMIT",
    "EXPLORER_START",
    "FAMILY_LIMIT",
    "ExperimentHeader",
    "Explorer",
    "ExplorerNotes",
    "Paragraph",
    "SettingGroup",
    "ValidationPanel",
    "detail_charts",
    "experiment_header",
    "explorer",
    "explorer_families",
    "explorer_notes",
    "focus_of",
    "paragraph_of",
    "rollout_corr_charts",
    "setting_groups",
    "track_peers",
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


def _series_frame(view: ExperimentView, keys: Mapping[str, str], *, x: str) -> pl.DataFrame:
    """A long frame with one series per metric key (the ``experiment`` column names the series), with the ``x``
    axis's column when it is neither step nor hours."""
    extra = [pl.col(x).cast(pl.Float64)] if x not in (STEP, HOURS) else []
    present = [key for key in keys if key in view.columns]
    steps = view.read_steps([HOURS, *present, *([x] if extra else [])])
    parts = [
        steps.select(
            pl.lit(key, dtype=pl.String).alias(EXPERIMENT),
            pl.col(STEP),
            pl.col(HOURS),
            pl.lit(key, dtype=pl.String).alias(METRIC),
            pl.col(key).cast(pl.Float64).alias(VALUE),
            *extra,
        ).filter(pl.col(VALUE).is_not_null())
        for key in present
    ]
    return pl.concat(parts) if parts else pl.DataFrame(schema=LONG_SCHEMA | ({x: pl.Float64()} if extra else {}))


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
    settings: Settings | None = None,
) -> list[ChartPlan]:
    """An experiment page's training curves, in reading order: pass rate, response length (with the cap),
    clipped responses, entropy, grad norm, clip fractions, KL loss, rollout↔training mismatch (noted when the
    log has 3 decimals), the critic's curves (PPO with a value model), step time by phase (with the slower-steps
    rule's limit, from ``settings``: the defaults when None), throughput.

    A chart whose metric was not logged is left out. With ``focus`` (a link from a signal), the focused
    metric's chart comes first with the signal's step marked, even when it is none of the above.
    """
    columns = view.columns
    rules = settings if settings is not None else Settings()
    base = _base_options(view, smoothing=smoothing, x=x, lang=lang, max_points=max_points)
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
            return charts.metric_chart_spec(_series_frame(view, present, x=x), series_options)

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
        # Without the correlation, the mismatch is verl's probability difference x 1e4: that key is drawn as
        # logged instead, with the FAQ's thresholds.
        single(
            PROBS_DIFF_RULE.key,
            t("chart_probs_diff", lang),
            note=t("note_three_decimals", lang) if three_decimals else None,
        )
        if has(PROBS_DIFF_RULE.key) and not has("training/rollout_actor_probs_pearson_corr")
        else single(
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
        _Detail("phases", None, lambda: _phases_spec(view, phase_keys, base, lang=lang, settings=rules))
        if phase_keys
        else None,
        single("perf/throughput", t("chart_throughput", lang)) if has("perf/throughput") else None,
    ]
    drawn = [detail for detail in details if detail is not None]
    if focus is not None and has(focus.key):
        drawn = [detail for detail in drawn if detail.key is None or alias_of(detail.key) != alias_of(focus.key)]
        title = t("chart_focus", lang, metric=metric_name(focus.key, lang))
        drawn.insert(0, single(focus.key, title, focus_step=focus.step))
    identity = (view.id, view.serial, smoothing, x, lang, max_points, signal_marks,
                (rules.step_time_factor, rules.spike_window))  # fmt: skip
    return [
        ChartPlan(
            detail.name,
            ("experiment", detail.name, *identity, focus if index == 0 else None),
            detail.build,
            note=None if detail.key is None else metric_note(detail.key, [view], lang),
        )
        for index, detail in enumerate(drawn)
    ]


def _base_options(view: ExperimentView, *, smoothing: Smoothing, x: str, lang: str, max_points: int) -> ChartOptions:
    """What an experiment page's charts share."""
    return ChartOptions(
        title="",
        y_title="",
        colors={view.id: view.color},
        labels={view.id: view.label},
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


def rollout_corr_charts(
    view: ExperimentView,
    *,
    smoothing: Smoothing,
    x: str,
    signals: Sequence[Signal],
    lang: str,
    max_points: int,
) -> list[ChartPlan]:
    """The rollout-correction grid of verl's rollout-correction doc (``plot_is_metrics``: mean IS weight,
    effective sample size, IS weight std, KL, PPL ratio, chi-squared), each with verl's healthy bounds as dashed
    rules; the keys the run logged, none when it logged no ``rollout_corr/*`` key."""
    base = _base_options(view, smoothing=smoothing, x=x, lang=lang, max_points=max_points)
    present = [key for key in ROLLOUT_CORR_GRID if key in view.columns]
    signal_marks = tuple(
        (signal.experiment, signal.step, signal.metric) for signal in signals if signal.experiment == view.id
    )
    identity = (view.id, view.serial, smoothing, x, lang, max_points, signal_marks)
    return [
        ChartPlan(
            key,
            ("rollout_corr", key, *identity),
            line_builder(key, [view], base, signals=signals, lang=lang, title=key.removeprefix("rollout_corr/")),
        )
        for key in present
    ]


def _phases_spec(
    view: ExperimentView, phase_keys: Sequence[str], base: ChartOptions, *, lang: str, settings: Settings
) -> dict[str, Any]:
    return charts.stacked_area_chart_spec(
        _series_frame(view, dict.fromkeys(phase_keys, ""), x=base.x).with_columns(pl.lit(view.id).alias(EXPERIMENT)),
        replace(base, title=t("chart_step_time", lang), y_title=t("axis_seconds", lang)),
        limit=_step_time_limit(view, x=base.x, settings=settings, lang=lang),
    )


def _step_time_limit(
    view: ExperimentView, *, x: str, settings: Settings, lang: str
) -> tuple[pl.DataFrame, str, str] | None:
    """The slower-steps rule's limit at each step (:func:`rlmon.analysis.signals.step_time_limits` over the step
    times the signal reads) with its label and tag; None without step times or before the rule has a base."""
    key = step_time_column(list(view.columns))
    if key is None:
        return None
    columns = [key] if x == STEP else [key, x]
    if x != STEP and x not in view.columns:
        return None
    rows = view.read_steps(columns).filter(pl.col(key).is_not_null() & pl.col(key).cast(pl.Float64).is_finite())
    limits = step_time_limits(
        rows[key].cast(pl.Float64).to_list(), factor=settings.step_time_factor, window=settings.spike_window
    )
    frame = rows.select(STEP, *([pl.col(x)] if x != STEP else [])).with_columns(
        pl.Series(VALUE, limits, dtype=pl.Float64)
    )
    frame = frame.filter(pl.col(VALUE).is_not_null())
    if frame.is_empty():
        return None
    factor = format_value(settings.step_time_factor, "en")
    label = t("rule_step_time_line", lang, factor=factor, recent=RECENT_STEPS)
    return frame, label, t("rule_step_time_tag", lang, factor=factor)


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
            view.read_steps(keys)
            .filter(pl.any_horizontal(pl.col(key).is_not_null() for key in keys))
            .rename({key: key.removeprefix(prefix_core) for key in keys if key.startswith(prefix_core)})
        )
        score = f"{VALIDATION_PREFIX}{source}"
        chart = None
        if score in view.columns:

            def build(score: str = score, source: str = source) -> dict[str, Any]:
                long = long_frame([view], score, x=x)
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
    small = replace(
        _base_options(view, smoothing=smoothing, x=x, lang=lang, max_points=min(max_points, 500)),
        height=EXPLORER_HEIGHT,
    )
    groups: dict[str, list[ChartPlan]] = {}
    for key in chosen[:EXPLORER_LIMIT]:

        def build(key: str = key) -> dict[str, Any]:
            return charts.metric_chart_spec(
                long_frame([view], key, x=x), replace(small, title=display_text(key, limit=NAME_LIMIT))
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


@dataclass(frozen=True)
class ExperimentHeader:
    """The experiment page's header under its title: status, description, progress, the six numbers and what
    went wrong."""

    status: str
    """The experiment's status (``finished``, ``running`` ...), for the badge's colour."""
    badge: str
    """The status badge: glyph, status and progress (``✓ finished · 200/200 steps``)."""
    description: str
    """The team's ``rlmon.toml`` description or rlmon's description of the algorithm, as safe markdown
    (:func:`rlmon.text.markdown.safe_markdown`: its links shown with their target, no image, HTML or autolink);
    may be empty."""
    progress: float | None
    """Steps done over the planned steps (at most 1); None when the plan is not known."""
    progress_text: str
    cells: tuple[tuple[str, str], ...]
    """(label, value) of elapsed time, ETA, median step time, first-5 and last-10 pass rate, best validation."""
    failure: str | None
    """The failure's title (with its step when known); None when the run did not fail."""
    failure_lines: str
    """The failure's frames and message, one a line, as the log wrote them (bidi controls taken out)."""
    missing: str | None
    """The steps the log skipped (the first 20), None when none were."""
    no_steps: str | None
    """Said while no step has been logged."""


def experiment_header(view: ExperimentView, numbers: TableNumbers, *, lang: str) -> ExperimentHeader:
    """The header of ``view``'s page; ``numbers`` are its headline numbers (:func:`rlmon.views.model.table_numbers`)."""
    experiment = view.experiment
    total = experiment.total_steps
    step_time = format_duration(experiment.median_step_s / 3600, lang) if experiment.median_step_s else UNKNOWN
    best = UNKNOWN
    if numbers.best_val is not None:
        best = f"{format_score(numbers.best_val, lang)} @{numbers.best_val_step}"
    failure = None
    if experiment.failure:
        failure = (
            t("exp_failure_at", lang, step=experiment.failure_step)
            if experiment.failure_step is not None
            else t("exp_failure", lang)
        )
    missing = None
    if experiment.missing_steps:
        shown = ", ".join(str(step) for step in experiment.missing_steps[:20])
        more = " …" if len(experiment.missing_steps) > 20 else ""
        missing = t("exp_missing_steps", lang, count=len(experiment.missing_steps), steps=shown + more)
    return ExperimentHeader(
        status=view.status,
        badge=f"{STATUS_GLYPHS.get(view.status, '')} {t('status_' + view.status, lang)} · "
        f"{format_progress(experiment.steps_done, experiment.total_steps, lang)}",
        description=safe_markdown(
            description_text(
                experiment.description,
                algorithm=experiment.algorithm.key,
                algorithm_description=experiment.algorithm.description,
                lang=lang,
            ),
            links=True,
            math=False,
        ),
        progress=min(1.0, experiment.steps_done / total) if total else None,
        progress_text=t("exp_progress", lang, done=experiment.steps_done, total=total) if total else "",
        cells=(
            (t("exp_elapsed", lang), format_duration(experiment.elapsed_h, lang)),
            (t("exp_eta", lang), format_duration(experiment.eta_h, lang)),
            (t("exp_step_time", lang), step_time),
            (t("col_first5", lang), format_percent(numbers.first5_pass, lang)),
            (t("col_last10", lang), format_percent(numbers.last10_pass, lang)),
            (t("col_best_val", lang), best),
        ),
        failure=failure,
        failure_lines="\n".join(display_text(line) for line in [*experiment.failure_frames, experiment.failure])
        if experiment.failure
        else "",
        missing=missing,
        no_steps=None if experiment.steps_done else t("no_steps_yet", lang),
    )


@dataclass(frozen=True)
class Paragraph:
    """What :mod:`rlmon.analysis` says of one experiment: its paragraph and its own signals."""

    title: str
    paragraph: str | None
    signals: tuple[tuple[str, str], ...]
    """(severity, text) of each of the experiment's signals, in the order they were found."""


def paragraph_of(view: ExperimentView, insights: Insights, *, lang: str) -> Paragraph | None:
    """``view``'s paragraph and signals among ``insights`` (of its track's experiments); None when there is
    nothing to say."""
    if not insights.available:
        return None
    paragraph = insights.paragraphs.get(view.id) or None
    own = tuple((signal.severity, signal.text(lang)) for signal in insights.signals if signal.experiment == view.id)
    if not paragraph and not own:
        return None
    return Paragraph(title=t("exp_paragraph_title", lang), paragraph=paragraph, signals=own)


@dataclass(frozen=True)
class SettingGroup:
    """One group of an experiment's settings (:data:`rlmon.runs.experiment.SETTING_GROUPS`) with its title."""

    group: str
    title: str
    settings: tuple[Setting, ...]


def setting_groups(view: ExperimentView, *, lang: str) -> tuple[SettingGroup, ...]:
    """The groups ``view`` has settings in, in :data:`~rlmon.runs.experiment.SETTING_GROUPS` order."""
    groups = []
    for group in SETTING_GROUPS:
        settings = tuple(item for item in view.experiment.settings if item.group == group)
        if settings:
            groups.append(SettingGroup(group=group, title=t("group_" + group, lang), settings=settings))
    return tuple(groups)


EXPLORER_START = "actor/"
"""The family the explorer starts on (what the team reads first) rather than drawing every key at once."""


FAMILY_LIMIT = 300
"""Most families the explorer's family picker offers (a key without a slash is a family of its own: a log of
20,000 such keys would make a picker of 20,000 options); the filter finds the keys of any family."""


def explorer_families(view: ExperimentView) -> tuple[str, ...]:
    """The families of ``view``'s logged keys (``actor/``, ``critic/`` ...), in key order: the first
    :data:`FAMILY_LIMIT` of them."""
    families = dict.fromkeys(family_of(key) for key in sorted(view.logged_keys))
    return tuple(families)[:FAMILY_LIMIT]


@dataclass(frozen=True)
class ExplorerNotes:
    """What the explorer says of its choice: how many keys it draws, and a note when more matched."""

    count: str
    more: str | None


def explorer_notes(found: Explorer, *, filtered: bool, lang: str) -> ExplorerNotes:
    """The count under the explorer's choice (matched of all with a pattern, else drawn of all)."""
    if filtered:
        count = t("exp_explorer_matched", lang, matched=found.matched, total=found.total)
    else:
        shown = sum(len(plans) for plans in found.groups.values())
        count = t("exp_explorer_count", lang, shown=shown, total=found.total)
    return ExplorerNotes(
        count=count, more=t("exp_explorer_more", lang, shown=EXPLORER_LIMIT) if found.limited else None
    )


def focus_of(view: ExperimentView, key: str | None, at: str) -> Focus | None:
    """The chart a link from a signal asked for (``?focus=<key>&at=<step>``), when ``view`` logs that key;
    ``at`` is the step, ignored unless it is a number."""
    if not key or resolve_key(key, view.columns) is None:
        return None
    return Focus(key=key, step=int(at) if at.isdigit() else None)


def track_peers(view: ExperimentView, views: Sequence[ExperimentView]) -> list[ExperimentView]:
    """The experiments of ``views`` on ``view``'s track that are not hidden (``view`` among them unless hidden):
    what its signals and paragraph are found among."""
    return [item for item in views if item.experiment.track == view.experiment.track and not item.experiment.hidden]
