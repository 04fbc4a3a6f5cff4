"""Overview: the selected experiments side by side - header, summary and signals, the experiments table,
comparison charts with metric, smoothing and x-axis choices, what changed, and the per-step download."""

from __future__ import annotations

import io
import re
import time
from collections.abc import Sequence
from typing import Any

import polars as pl
import streamlit as st

from rlmon import charts, i18n, ui
from rlmon.experiment import SETTING_GROUPS, settings_diff
from rlmon.insights import KINDS
from rlmon.metrics import VALIDATION_PREFIX
from rlmon.schema import EXPERIMENT, VALUE
from rlmon.smoothing import Smoothing

HOURS_TOTAL = "hours_total"
"""Pseudo metric: one bar per experiment with its total training hours."""
DEFAULT_METRICS = ("pass_rate", "response_length/mean", "actor/entropy", "actor/grad_norm", HOURS_TOTAL)
CAPPED_KEYS = ("response_length/mean", "response_length/max")
"""Charts drawn with the response cap as a dashed rule."""
_VALIDATION = re.compile(r"^(val_score/|val-core/|val-aux/|val/|test_score/)")
GRID_COLUMNS = 3

app = ui.app_state()
lang = ui.lang()
settings = app.settings


def _is_validation(key: str) -> bool:
    return bool(_VALIDATION.match(key))


def _compress_codes(codes: Sequence[str]) -> str:
    """``E1, E2, E3, E4`` -> ``E1–E4`` when the codes are consecutive numbers with one prefix."""
    parsed = [re.fullmatch(r"([A-Za-z]+)(\d+)", code) for code in codes]
    if len(codes) > 2 and all(parsed):
        prefixes = {match.group(1) for match in parsed if match}
        numbers = [int(match.group(2)) for match in parsed if match]
        if len(prefixes) == 1 and numbers == list(range(numbers[0], numbers[0] + len(numbers))):
            return f"{codes[0]}–{codes[-1]}"
    return ", ".join(codes)


def shared_settings_line(views: Sequence[ui.ExperimentView]) -> str:
    """``4 GPUs · TP=4 · offload off · non-thinking · 16K response · 32×8/step``: what every selected
    experiment shares; a setting they do not share is left out."""

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
    offloads = [common("param_offload"), common("optimizer_offload")]
    known = [item for item in offloads if item is not None]
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


def progress_line(views: Sequence[ui.ExperimentView]) -> str:
    """``E1–E4 finished 150/150 · E5 running 21/150 (4h23m, ETA 27h)``."""
    groups: dict[tuple[str, str], list[ui.ExperimentView]] = {}
    parts: list[str] = []
    for view in views:
        if view.status in ("running", "stalled"):
            detail = i18n.t(
                "progress_detail",
                lang,
                elapsed=i18n.format_duration(view.experiment.elapsed_h, lang),
                eta=i18n.format_duration(view.experiment.eta_h, lang),
            )
            if view.experiment.eta_h is None:
                detail = i18n.format_duration(view.experiment.elapsed_h, lang)
            status = i18n.t("status_" + view.status, lang)
            parts.append(f"{view.code} {status} {view.experiment.progress_text} ({detail})")
            continue
        groups.setdefault((view.status, view.experiment.progress_text), []).append(view)
    grouped = [
        i18n.t(
            "progress_group",
            lang,
            codes=_compress_codes([view.code for view in members]),
            status=i18n.t("status_" + status, lang),
            progress=progress,
        )
        for (status, progress), members in groups.items()
    ]
    return " · ".join(grouped + parts)


def header(views: Sequence[ui.ExperimentView]) -> None:
    tracks = list(dict.fromkeys(view.experiment.track for view in views))
    left, right = st.columns([4, 1], vertical_alignment="center")
    left.markdown(f"## {ui.escape_markdown(' · '.join(tracks))}")
    if app.live:
        right.badge(i18n.t("live_badge", lang, seconds=app.refresh_s), icon=":material/sync:", color="green")
    else:
        right.badge(i18n.t("paused_badge", lang), icon=":material/pause:", color="gray")
    line = shared_settings_line(views)
    if line:
        st.markdown(f"**{ui.escape_markdown(line)}**")
    st.caption(
        ui.escape_markdown(progress_line(views)) + " · " + i18n.t("updated_at", lang, time=time.strftime("%H:%M:%S"))
    )


def kind_name(kind: str) -> str:
    """A signal kind as the reader's language names it (``validation_drop`` -> "validation drop" / "验证回落")."""
    return KINDS.get(kind, {}).get(lang, kind)


def summary_and_signals(views: Sequence[ui.ExperimentView], insights: ui.Insights) -> None:
    with st.container(border=True):
        st.markdown(f"#### {i18n.t('summary_title', lang)}")
        if not insights.available:
            st.caption(i18n.t("summary_pending", lang))
        for paragraph in insights.summary:
            st.markdown(ui.escape_markdown(paragraph))
        if insights.summary:
            st.caption(i18n.t("summary_caption", lang))
        if not insights.available:
            return
        labels = ui.display_labels(views)
        rows = []
        for signal in insights.signals:
            experiment = ui.signal_experiment(signal)
            if experiment not in labels:
                continue
            step = getattr(signal, "step", None)
            step_end = getattr(signal, "step_end", None)
            where = "" if step is None else (f"{step}–{step_end}" if step_end not in (None, step) else str(step))
            severity = str(getattr(signal, "severity", ""))
            rows.append(
                {
                    "experiment": labels[experiment],
                    "severity": i18n.t("severity_" + severity, lang)
                    if f"severity_{severity}" in i18n.MESSAGES
                    else severity,
                    "kind": kind_name(str(getattr(signal, "kind", ""))),
                    "step": where,
                    "message": ui.signal_text(signal, lang),
                    "page": app.slugs.get(experiment, ""),
                }
            )
        with st.expander(i18n.t("signals_title", lang, count=len(rows)), expanded=bool(rows) and len(rows) <= 6):
            if not rows:
                st.caption(i18n.t("signals_none", lang))
                return
            st.dataframe(
                pl.DataFrame(rows),
                hide_index=True,
                width="stretch",
                key="overview_signals",
                column_config={
                    "experiment": st.column_config.TextColumn(i18n.t("col_experiment", lang), width="small"),
                    "severity": st.column_config.TextColumn(i18n.t("col_severity", lang), width="small"),
                    "kind": st.column_config.TextColumn(i18n.t("col_kind", lang), width="small"),
                    "step": st.column_config.TextColumn(i18n.t("col_step", lang), width="small"),
                    "message": st.column_config.TextColumn(i18n.t("col_message", lang), width="large"),
                    "page": st.column_config.LinkColumn(
                        i18n.t("col_open", lang), display_text=i18n.t("open_link", lang), width="small"
                    ),
                },
            )


def experiments_table(views: Sequence[ui.ExperimentView]) -> None:
    st.markdown(f"#### {i18n.t('table_title', lang)}")
    rows = []
    for view in views:
        experiment = view.experiment
        numbers = ui.headline(view)
        total = experiment.total_steps
        fraction = 100.0 * experiment.steps_done / total if total else None
        best = (
            f"{i18n.format_score(numbers.best_val, lang)} @{numbers.best_val_step}"
            if numbers.best_val is not None
            else i18n.t("fmt_unknown", lang)
        )
        spark = list(numbers.sparkline)
        rows.append(
            {
                "experiment": view.label,
                "algorithm": experiment.algorithm.name,
                "status": f"{ui.STATUS_GLYPHS.get(view.status, '')} {i18n.t('status_' + view.status, lang)}",
                "progress": fraction,
                "steps": experiment.progress_text,
                "hours": i18n.format_hours(experiment.elapsed_h, lang),
                "eta": i18n.format_duration(experiment.eta_h, lang) if experiment.eta_h is not None else "",
                "first5": i18n.format_percent(numbers.first5_pass, lang),
                "last10": i18n.format_percent(numbers.last10_pass, lang),
                "best_val": best,
                "last_val": i18n.format_score(numbers.last_val, lang),
                "spark": spark,
                "page": app.slugs.get(view.id, ""),
            }
        )
    frame = pl.DataFrame(
        rows,
        schema={
            "experiment": pl.String,
            "algorithm": pl.String,
            "status": pl.String,
            "progress": pl.Float64,
            "steps": pl.String,
            "hours": pl.String,
            "eta": pl.String,
            "first5": pl.String,
            "last10": pl.String,
            "best_val": pl.String,
            "last_val": pl.String,
            "spark": pl.List(pl.Float64),
            "page": pl.String,
        },
        orient="row",
    )
    event = st.dataframe(
        frame,
        hide_index=True,
        width="stretch",
        key="overview_table",
        on_select="rerun",
        selection_mode="single-row",
        column_config={
            "experiment": st.column_config.TextColumn(i18n.t("col_experiment", lang), pinned=True),
            "algorithm": st.column_config.TextColumn(i18n.t("col_algorithm", lang)),
            "status": st.column_config.TextColumn(i18n.t("col_status", lang)),
            "progress": st.column_config.ProgressColumn(
                i18n.t("col_progress", lang), min_value=0.0, max_value=100.0, format="%.0f%%", width="small"
            ),
            "steps": st.column_config.TextColumn(i18n.t("col_steps", lang), width="small"),
            "hours": st.column_config.TextColumn(i18n.t("col_hours", lang), width="small"),
            "eta": st.column_config.TextColumn(i18n.t("col_eta", lang), width="small"),
            "first5": st.column_config.TextColumn(
                i18n.t("col_first5", lang), help=i18n.t("table_help_first5", lang), width="small"
            ),
            "last10": st.column_config.TextColumn(
                i18n.t("col_last10", lang), help=i18n.t("table_help_last10", lang), width="small"
            ),
            "best_val": st.column_config.TextColumn(i18n.t("col_best_val", lang), width="small"),
            "last_val": st.column_config.TextColumn(i18n.t("col_last_val", lang), width="small"),
            "spark": st.column_config.LineChartColumn(i18n.t("col_sparkline", lang), y_min=0.0, y_max=100.0),
            "page": st.column_config.LinkColumn(i18n.t("col_open", lang), display_text=i18n.t("open_link", lang)),
        },
    )
    chosen = getattr(getattr(event, "selection", None), "rows", None) or []
    if chosen:
        row = int(chosen[0])
        if 0 <= row < len(views) and views[row].id in app.pages:
            # Switching pages from inside the fragment would lose the sidebar's state: let the frame do it.
            st.session_state[ui.GOTO_KEY] = views[row].id
            st.rerun(scope="app")


def metric_options(views: Sequence[ui.ExperimentView]) -> list[str]:
    """Every chartable key of the selected experiments: derived metrics, the hours bars, then logged keys."""
    derived: dict[str, None] = {}
    logged: dict[str, None] = {}
    for view in views:
        derived.update(dict.fromkeys(view.derived_keys))
        logged.update(dict.fromkeys(view.logged_keys))
    ordered_derived = [key for key in derived if key != "elapsed_h"] + (["elapsed_h"] if "elapsed_h" in derived else [])
    return [*ordered_derived, HOURS_TOTAL, *sorted(logged)]


def default_metrics(options: Sequence[str]) -> list[str]:
    chosen = [key for key in DEFAULT_METRICS if key in options]
    chosen += [key for key in options if key.startswith(VALIDATION_PREFIX)][:2]
    return chosen


def metric_controls(views: Sequence[ui.ExperimentView]) -> tuple[list[str], Smoothing, str, bool]:
    options = metric_options(views)
    defaults = default_metrics(options)
    st.session_state.setdefault("overview_metrics", defaults)
    st.session_state["overview_metrics"] = [key for key in st.session_state["overview_metrics"] if key in options]
    pick, search = st.columns([3, 1], vertical_alignment="bottom")
    pattern_text = search.text_input(
        i18n.t("control_filter", lang),
        key="overview_filter",
        placeholder="^actor/|clip",
        help=i18n.t("control_filter_help", lang),
        persist_state="session",
    )
    shown = options
    if pattern_text:
        try:
            pattern = re.compile(pattern_text)
        except re.error as error:
            search.caption(i18n.t("control_filter_bad", lang, reason=ui.escape_markdown(str(error))))
        else:
            chosen = set(st.session_state["overview_metrics"])
            shown = [key for key in options if key in chosen or pattern.search(key)]
            search.caption(i18n.t("control_filter_count", lang, count=sum(1 for key in options if pattern.search(key))))
    metrics = pick.multiselect(
        i18n.t("control_metrics", lang),
        shown,
        key="overview_metrics",
        format_func=lambda key: i18n.metric_title(key, lang) if key != i18n.metric_title(key, lang) else key,
        help=i18n.t("control_metrics_help", lang),
        persist_state="session",
    )
    smoothing, x, log_scale = ui.view_controls("overview", settings, lang, with_log=True)
    return list(metrics), smoothing, x, log_scale


def response_cap(views: Sequence[ui.ExperimentView]) -> tuple[float | None, str | None]:
    caps = [view.experiment.setting("max_response_length") for view in views]
    known = [item for item in caps if item is not None and isinstance(item.value, int | float)]
    if not known:
        return None, None
    top = max(known, key=lambda item: float(item.value))
    return float(top.value), i18n.t("reference_cap", lang, cap=i18n.setting_display(top, lang))


def build_chart(
    key: str,
    views: Sequence[ui.ExperimentView],
    *,
    smoothing: Smoothing,
    x: str,
    log_scale: bool,
    signals: Sequence[Any],
) -> Any:
    colors = {view.id: view.color for view in views}
    labels = ui.display_labels(views)
    title = i18n.metric_title(key, lang)
    x_title = i18n.t("x_" + x, lang)
    common: dict[str, Any] = {
        "colors": colors,
        "labels": labels,
        "experiment_title": i18n.t("col_experiment", lang),
        "empty_text": i18n.t("no_data", lang),
        "arrow": True,
    }
    if key == HOURS_TOTAL:
        values = pl.DataFrame(
            {
                EXPERIMENT: [view.id for view in views],
                VALUE: [view.experiment.elapsed_h for view in views],
            },
            schema={EXPERIMENT: pl.String, VALUE: pl.Float64},
        ).drop_nulls()
        return charts.bar_chart_spec(
            values, title=i18n.t("hours_chart", lang), y_title=i18n.t("hours_axis", lang), **common
        )
    long = ui.long_frame(views, key)
    if _is_validation(key):
        return charts.validation_chart_spec(
            long, title=title, y_title=ui.axis_title(key), x=x, x_title=x_title, log_scale=log_scale,  # type: ignore[arg-type]
            max_points=ui.line_points(settings.max_points, len(views)), **common,
        )  # fmt: skip
    reference, reference_label = (None, None)
    if key in CAPPED_KEYS:
        reference, reference_label = response_cap(views)
    return charts.metric_chart_spec(
        long,
        title=title,
        y_title=ui.axis_title(key),
        smoothing=smoothing,
        x=x,  # type: ignore[arg-type]
        x_title=x_title,
        log_scale=log_scale,
        reference=reference,
        reference_label=reference_label,
        markers=ui.signal_markers(signals, key, views, lang),
        marker_title=i18n.t("signal_marker", lang),
        raw_suffix=i18n.t("raw_suffix", lang),
        max_points=ui.line_points(settings.max_points, len(views)),
        **common,
    )


def chart_key(
    key: str, views: Sequence[ui.ExperimentView], smoothing: Smoothing, x: str, log_scale: bool, signals: Sequence[Any]
) -> tuple[Any, ...]:
    """Everything the chart of ``key`` is drawn from (see :func:`rlmon.ui.show_chart`)."""
    smoothing_part: Any = smoothing
    if key == HOURS_TOTAL or _is_validation(key):
        smoothing_part = None  # these charts do not smooth: a smoothing change keeps them
    marks = tuple(
        (ui.signal_experiment(signal), getattr(signal, "step", None), ui.signal_text(signal, lang))
        for signal in signals
        if getattr(signal, "metric", None) == key
    )
    if key == HOURS_TOTAL:
        return ("overview", key, ui.views_key(views), lang)
    return (
        "overview",
        key,
        ui.views_key(views),
        smoothing_part,
        x,
        log_scale,
        lang,
        ui.line_points(settings.max_points, len(views)),
        marks,
    )


def chart_grid(
    metrics: Sequence[str],
    views: Sequence[ui.ExperimentView],
    smoothing: Smoothing,
    x: str,
    log_scale: bool,
    signals: Sequence[Any],
) -> None:
    def builder(key: str) -> Any:
        return lambda: build_chart(key, views, smoothing=smoothing, x=x, log_scale=log_scale, signals=signals)

    keyed = [(chart_key(key, views, smoothing, x, log_scale, signals), builder(key)) for key in metrics]
    ui.prepare_charts(keyed)
    for start in range(0, len(keyed), GRID_COLUMNS):
        columns = st.columns(GRID_COLUMNS)
        for column, (memo_key, build) in zip(columns, keyed[start : start + GRID_COLUMNS], strict=False):
            with column:
                ui.guarded(lambda memo_key=memo_key, build=build: ui.show_chart(build, key=memo_key), lang=lang)


def what_changed(views: Sequence[ui.ExperimentView]) -> None:
    st.markdown(f"#### {i18n.t('diff_title', lang)}")
    if len(views) < 2:
        st.caption(i18n.t("diff_single", lang))
        return
    diffs = settings_diff([view.experiment for view in views])
    if not diffs:
        st.caption(i18n.t("diff_none", lang))
        return
    labels = ui.display_labels(views)
    group_names = {group: i18n.t("group_" + group, lang) for group in SETTING_GROUPS}
    columns: dict[str, list[str]] = {
        i18n.t("col_group", lang): [group_names.get(diff.group, diff.group) for diff in diffs],
        i18n.t("col_setting", lang): [i18n.setting_label(diff.key, diff.label, lang) for diff in diffs],
    }
    for view in views:
        columns[labels[view.id]] = [i18n.setting_display(view.experiment.setting(diff.key), lang) for diff in diffs]
    st.dataframe(pl.DataFrame(columns), hide_index=True, width="stretch", key="overview_diff")


def line_metrics(metrics: Sequence[str]) -> list[str]:
    """The charted metrics drawn as smoothed lines (not the hours bars, not validation points)."""
    return [key for key in metrics if key != HOURS_TOTAL and not _is_validation(key)]


def downloads(views: Sequence[ui.ExperimentView], metrics: Sequence[str], smoothing: Smoothing) -> None:
    st.markdown(f"#### {i18n.t('download_title', lang)}")
    st.caption(i18n.t("download_caption", lang))

    def as_csv() -> bytes:
        return ui.download_frame(views, line_metrics(metrics), smoothing).write_csv().encode("utf-8")

    def as_parquet() -> bytes:
        buffer = io.BytesIO()
        ui.download_frame(views, line_metrics(metrics), smoothing).write_parquet(buffer)
        return buffer.getvalue()

    left, right = st.columns(2)
    left.download_button(
        i18n.t("download_csv", lang), as_csv, file_name="rlmon-steps.csv", mime="text/csv",
        key="overview_csv", icon=":material/download:", on_click="ignore", width="stretch",
    )  # fmt: skip
    right.download_button(
        i18n.t("download_parquet", lang), as_parquet, file_name="rlmon-steps.parquet",
        mime="application/vnd.apache.parquet", key="overview_parquet", icon=":material/download:",
        on_click="ignore", width="stretch",
    )  # fmt: skip


def notes(views: Sequence[ui.ExperimentView]) -> None:
    lines = [*app.catalog.problems]
    lines += [f"{experiment}: {reason}" for experiment, reason in app.view_errors]
    for view in views:
        lines += [f"{view.label}: {problem}" for problem in view.experiment.problems]
    if not lines:
        return
    with st.expander(i18n.t("log_notes", lang, count=len(lines)), icon=":material/info:"):
        st.text("\n".join(lines))


FIELDS = [
    ui.list_field("overview_metrics", "m", lambda value: bool(value) and len(value) < 300),
    ui.UrlField(
        "overview_filter", "f", parse=lambda values: values[-1][:200], render=lambda value: [value], default=""
    ),
    *ui.view_fields("overview", settings),
    ui.flag_field("overview_log", "log", default=False),
]


def body() -> None:
    _all_views, views = ui.fresh_views(app)
    if not views:
        st.info(i18n.t("no_selection", lang), icon=":material/checklist:")
        return
    ui.guarded(lambda: header(views), lang=lang)
    insights = ui.insights_for(views, settings, lang)
    ui.guarded(lambda: summary_and_signals(views, insights), lang=lang)
    ui.guarded(lambda: experiments_table(views), lang=lang)
    st.markdown(f"#### {i18n.t('charts_title', lang)}")
    metrics, smoothing, x, log_scale = metric_controls(views)
    # Default metrics depend on the experiments; keep them out of the URL unless changed.
    FIELDS[0] = ui.list_field(
        "overview_metrics", "m", lambda value: bool(value) and len(value) < 300,
        default=default_metrics(metric_options(views)),
    )  # fmt: skip
    ui.write_url(FIELDS)
    chart_grid(metrics, views, smoothing, x, log_scale, insights.signals)
    left, right = st.columns([3, 2])
    with left:
        ui.guarded(lambda: what_changed(views), lang=lang)
    with right:
        ui.guarded(lambda: downloads(views, metrics, smoothing), lang=lang)
    notes(views)


def page() -> None:
    for error in app.root_errors:
        st.error(
            i18n.t("error_root_missing", lang, path=ui.escape_markdown(error.path or ""),
                   reason=ui.escape_markdown(error.reason)),
            icon=":material/folder_off:",
        )  # fmt: skip
    if app.unknown_ids:
        st.warning(
            i18n.t("unknown_experiments", lang, ids=", ".join(ui.escape_markdown(value) for value in app.unknown_ids)),
            icon=":material/link_off:",
        )
    if not app.views:
        if not app.root_errors:
            roots = ", ".join(ui.escape_markdown(str(root)) for root in app.roots) or "—"
            st.info(i18n.t("empty_root", lang, roots=roots), icon=":material/folder_open:")
        return
    ui.read_url(FIELDS)
    ui.live_fragment(body, app, key="overview_live")


ui.guarded(page, lang=lang)
