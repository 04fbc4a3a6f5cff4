"""One experiment: identity, status and progress, its paragraph and signals, settings, source files, the
training curves, validation per data source, and an explorer over every logged key.

Every experiment page in the navigation runs this module; the frame says which experiment it is
(``AppState.current_experiment``: the page's url_path, or ``?id=`` on the hidden ``experiment`` page).
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import Any

import polars as pl
import streamlit as st

from rlmon import charts, i18n, ui
from rlmon.experiment import SETTING_GROUPS
from rlmon.metrics import VALIDATION_PREFIX, validation_keys
from rlmon.schema import EXPERIMENT, HOURS, METRIC, STEP, VALUE
from rlmon.smoothing import Smoothing

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
STATUS_COLORS = {"finished": "green", "running": "blue", "stalled": "orange", "crashed": "red", "not started": "gray"}
EXPLORER_LIMIT = 24
SMALL_HEIGHT = 170

app = ui.app_state()
lang = ui.lang()
settings = app.settings


def title_block(view: ui.ExperimentView) -> None:
    experiment = view.experiment
    chip = ui.color_dot(view.color).replace("0.75em", "1.1em")
    st.html(
        f'<div style="display:flex;align-items:center;gap:0.6rem;margin:0.2rem 0 0.1rem 0">{chip}'
        f'<span style="font-size:2rem;font-weight:700;line-height:1.2">{html.escape(view.label)}</span>'
        f'<span style="color:#6b7280;font-size:1.05rem">{html.escape(experiment.algorithm.name)} · '
        f"{html.escape(experiment.track)}</span></div>"
    )
    status = i18n.t("status_" + view.status, lang)
    st.badge(
        f"{ui.STATUS_GLYPHS.get(view.status, '')} {status} · {experiment.progress_text}",
        color=STATUS_COLORS.get(view.status, "gray"),
    )
    if experiment.description:
        # rlmon.toml is the team's own text (markdown); the fallback is rlmon's algorithm description.
        st.markdown(experiment.description)
    total = experiment.total_steps
    if total:
        st.progress(
            min(1.0, experiment.steps_done / total),
            text=i18n.t("exp_progress", lang, done=experiment.steps_done, total=total),
        )
    numbers = ui.headline(view)
    cells = [
        (i18n.t("exp_elapsed", lang), i18n.format_duration(experiment.elapsed_h, lang)),
        (i18n.t("exp_eta", lang), i18n.format_duration(experiment.eta_h, lang)),
        (
            i18n.t("exp_step_time", lang),
            i18n.format_duration((experiment.median_step_s or 0) / 3600, lang) if experiment.median_step_s else "–",
        ),
        (i18n.t("col_first5", lang), i18n.format_percent(numbers.first5_pass, lang)),
        (i18n.t("col_last10", lang), i18n.format_percent(numbers.last10_pass, lang)),
        (
            i18n.t("col_best_val", lang),
            f"{i18n.format_score(numbers.best_val, lang)} @{numbers.best_val_step}"
            if numbers.best_val is not None
            else "–",
        ),
    ]
    for column, (label, value) in zip(st.columns(len(cells)), cells, strict=True):
        column.metric(label, value)
    if experiment.failure:
        st.error(i18n.t("exp_failure", lang), icon=":material/error:")
        st.code(experiment.failure, language=None)
    if experiment.missing_steps:
        shown = ", ".join(str(step) for step in experiment.missing_steps[:20])
        more = " …" if len(experiment.missing_steps) > 20 else ""
        st.warning(i18n.t("exp_missing_steps", lang, count=len(experiment.missing_steps), steps=shown + more))
    if not experiment.steps_done:
        st.info(i18n.t("no_steps_yet", lang))


def paragraph_and_signals(view: ui.ExperimentView, peers: Sequence[ui.ExperimentView]) -> None:
    insights = ui.insights_for(peers, settings, lang)
    if not insights.available:
        return
    paragraph = insights.paragraphs.get(view.id)
    own = [signal for signal in insights.signals if ui.signal_experiment(signal) == view.id]
    if not paragraph and not own:
        return
    with st.container(border=True):
        if paragraph:
            st.markdown(f"**{i18n.t('exp_paragraph_title', lang)}** · " + ui.escape_markdown(paragraph))
        for signal in own:
            severity = str(getattr(signal, "severity", "info"))
            icon = {"critical": ":material/error:", "warning": ":material/warning:"}.get(severity, ":material/info:")
            st.markdown(f"{icon} {ui.escape_markdown(ui.signal_text(signal, lang))}")


def settings_block(view: ui.ExperimentView) -> None:
    st.markdown(f"#### {i18n.t('exp_settings', lang)}")
    groups = [group for group in SETTING_GROUPS if any(item.group == group for item in view.experiment.settings)]
    if not groups:
        st.caption(i18n.t("no_data", lang))
        return
    for start in range(0, len(groups), 3):
        columns = st.columns(3)
        for column, group in zip(columns, groups[start : start + 3], strict=False):
            rows = [item for item in view.experiment.settings if item.group == group]
            with column:
                st.caption(i18n.t("group_" + group, lang))
                st.dataframe(
                    pl.DataFrame(
                        {
                            i18n.t("col_setting", lang): [
                                i18n.setting_label(item.key, item.label, lang) for item in rows
                            ],
                            i18n.t("col_value", lang): [i18n.setting_display(item, lang) for item in rows],
                        }
                    ),
                    hide_index=True,
                    width="stretch",
                    key=f"experiment_settings_{group}",
                )


def sources_block(view: ui.ExperimentView) -> None:
    st.markdown(f"#### {i18n.t('exp_sources', lang)}")
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
                "file": source.name,
                "size": i18n.format_size(source.size, lang),
                "range": span,
                "role": i18n.t(role_key, lang) if role_key in i18n.MESSAGES else source.role,
                "note": source.note,
            }
        )
    st.dataframe(
        pl.DataFrame(rows, schema={name: pl.String for name in ("file", "size", "range", "role", "note")}),
        hide_index=True,
        width="stretch",
        key="experiment_sources",
        column_config={
            "file": st.column_config.TextColumn(i18n.t("col_file", lang)),
            "size": st.column_config.TextColumn(i18n.t("col_size", lang), width="small"),
            "range": st.column_config.TextColumn(i18n.t("col_range", lang), width="small"),
            "role": st.column_config.TextColumn(i18n.t("col_role", lang), width="small"),
            "note": st.column_config.TextColumn(i18n.t("col_note", lang)),
        },
    )


def series_frame(view: ui.ExperimentView, keys: dict[str, str]) -> pl.DataFrame:
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
    if not parts:
        return ui.long_frame([], "")
    return pl.concat(parts)


def first_key(view: ui.ExperimentView, *keys: str) -> str | None:
    return next((key for key in keys if key in view.steps.columns), None)


def curves(view: ui.ExperimentView, smoothing: Smoothing, x: str, signals: Sequence[Any]) -> None:
    colors = {view.id: view.color}
    labels = {view.id: view.label}
    x_title = i18n.t("x_" + x, lang)
    common: dict[str, Any] = {
        "x": x,
        "x_title": x_title,
        "smoothing": smoothing,
        "raw_suffix": i18n.t("raw_suffix", lang),
        "experiment_title": i18n.t("col_experiment", lang),
        "empty_text": i18n.t("no_data", lang),
        "max_points": settings.max_points,
        "marker_title": i18n.t("signal_marker", lang),
        "arrow": True,
    }

    def single(key: str, title: str, **extra: Any) -> Any:
        return charts.metric_chart_spec(
            ui.long_frame([view], key),
            title=title,
            y_title=ui.axis_title(key),
            colors=colors,
            labels=labels,
            markers=ui.signal_markers(signals, key, [view], lang),
            **common,
            **extra,
        )

    def multi(keys: dict[str, str], title: str, palette: Sequence[str]) -> Any:
        present = {key: label for key, label in keys.items() if key in view.steps.columns}
        series_colors = dict(zip(present, palette, strict=False))
        return charts.metric_chart_spec(
            series_frame(view, present),
            title=title,
            y_title="%",
            colors=series_colors,
            labels=present,
            **common,
        )

    cap = view.experiment.setting("max_response_length")
    cap_value = float(cap.value) if cap is not None and isinstance(cap.value, int | float) else None
    cap_label = i18n.t("reference_cap", lang, cap=i18n.setting_display(cap, lang)) if cap is not None else None
    phase_keys = [
        key for phase in PHASES for key in (f"timing_s/{phase}", f"timing/{phase}") if key in view.steps.columns
    ]
    has = view.steps.columns.__contains__
    clip_keys = {"pg_clipfrac_pct": i18n.t("series_upper", lang), "pg_clipfrac_lower_pct": i18n.t("series_lower", lang)}
    # (name, drawn?, builder) in display order; a chart whose metric was not logged is left out.
    plan: list[tuple[str, bool, Any]] = [
        ("pass_rate", has("pass_rate"), lambda: single("pass_rate", i18n.t("chart_pass_rate", lang))),
        (
            "response_length",
            has("response_length/mean"),
            lambda: single(
                "response_length/mean",
                i18n.t("chart_response_length", lang),
                reference=cap_value,
                reference_label=cap_label,
            ),
        ),
        ("clip", has("response_clip_pct"), lambda: single("response_clip_pct", i18n.t("chart_response_clip", lang))),
        ("entropy", has("actor/entropy"), lambda: single("actor/entropy", i18n.t("chart_entropy", lang))),
        ("grad_norm", has("actor/grad_norm"), lambda: single("actor/grad_norm", i18n.t("chart_grad_norm", lang))),
        (
            "clipfrac",
            any(has(key) for key in clip_keys),
            lambda: multi(clip_keys, i18n.t("chart_clipfrac", lang), (view.color, "#9ca3af")),
        ),
        ("kl_loss", has("actor/kl_loss"), lambda: single("actor/kl_loss", i18n.t("chart_kl_loss", lang))),
        ("mismatch", has("rollout_mismatch"), lambda: single("rollout_mismatch", i18n.t("chart_mismatch", lang))),
        (
            "phases",
            bool(phase_keys),
            lambda: charts.stacked_area_chart_spec(
                series_frame(view, dict.fromkeys(phase_keys, "")).with_columns(pl.lit(view.id).alias(EXPERIMENT)),
                title=i18n.t("chart_step_time", lang),
                y_title="s",
                x=x,  # type: ignore[arg-type]
                x_title=x_title,
                total_title=i18n.t("chart_step_total", lang),
                empty_text=i18n.t("no_data", lang),
                max_points=settings.max_points,
                arrow=True,
            ),
        ),
        ("throughput", has("perf/throughput"), lambda: single("perf/throughput", i18n.t("chart_throughput", lang))),
    ]
    marks = tuple((ui.signal_experiment(s), getattr(s, "step", None), getattr(s, "metric", None)) for s in signals)
    drawn = [
        (("experiment", name, view.id, view.serial, smoothing, x, lang, settings.max_points, marks), build)
        for name, present, build in plan
        if present
    ]
    ui.prepare_charts(drawn, legend_columns=2)
    for start in range(0, len(drawn), 3):
        for column, (memo_key, build) in zip(st.columns(3), drawn[start : start + 3], strict=False):
            with column:
                ui.guarded(
                    lambda memo_key=memo_key, build=build: ui.show_chart(build, key=memo_key, legend_columns=2),
                    lang=lang,
                )


def validation_block(view: ui.ExperimentView) -> None:
    st.markdown(f"#### {i18n.t('exp_validation', lang)}")
    sources = validation_keys([name for name in view.logged_keys])
    if not sources:
        st.caption(i18n.t("exp_validation_none", lang))
        return
    columns = st.columns(min(3, len(sources)))
    for index, (source, headline_key) in enumerate(sources.items()):
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
        with columns[index % len(columns)]:
            st.caption(source)
            st.dataframe(table, hide_index=True, width="stretch", key=f"experiment_validation_{index}")
            score = f"{VALIDATION_PREFIX}{source}"
            if score in view.steps.columns:
                ui.show_chart(
                    lambda score=score, source=source: charts.validation_chart_spec(
                        ui.long_frame([view], score),
                        title=i18n.t("chart_validation", lang, source=source),
                        y_title=source,
                        colors={view.id: view.color},
                        labels={view.id: view.label},
                        empty_text=i18n.t("no_data", lang),
                        height=200,
                        arrow=True,
                    ),
                    key=("experiment-validation", score, view.id, view.serial, lang),
                )


def family_of(key: str) -> str:
    return key.split("/", 1)[0] + "/" if "/" in key else key


def explorer(view: ui.ExperimentView, smoothing: Smoothing, x: str) -> None:
    st.markdown(f"#### {i18n.t('exp_explorer', lang)}")
    keys = sorted(view.logged_keys)
    families = list(dict.fromkeys(family_of(key) for key in keys))
    all_label = "*"
    left, right = st.columns([1, 2], vertical_alignment="bottom")
    # Start on the actor's keys (what the team reads first) rather than drawing every key at once.
    st.session_state.setdefault("experiment_family", "actor/" if "actor/" in families else all_label)
    if st.session_state["experiment_family"] not in [all_label, *families]:
        st.session_state["experiment_family"] = all_label
    family = left.selectbox(
        i18n.t("exp_explorer_family", lang),
        [all_label, *families],
        key="experiment_family",
        format_func=lambda value: i18n.t("exp_explorer_all", lang) if value == all_label else value,
        persist_state="session",
    )
    text = right.text_input(
        i18n.t("exp_explorer_filter", lang),
        key="experiment_filter",
        placeholder="actor/ · timing_s/(gen|update)",
        help=i18n.t("exp_explorer_filter_help", lang),
        persist_state="session",
    )
    chosen = [key for key in keys if family == all_label or family_of(key) == family]
    if text:
        try:
            pattern = re.compile(text)
            chosen = [key for key in chosen if pattern.search(key)]
        except re.error:
            chosen = [key for key in chosen if text.lower() in key.lower()]
    st.caption(i18n.t("exp_explorer_count", lang, shown=min(len(chosen), EXPLORER_LIMIT), total=len(keys)))
    colors = {view.id: view.color}
    labels = {view.id: view.label}
    grouped: dict[str, list[str]] = {}
    for key in chosen[:EXPLORER_LIMIT]:
        grouped.setdefault(family_of(key), []).append(key)

    def small_chart(key: str) -> Any:
        return charts.metric_chart_spec(
            ui.long_frame([view], key),
            title=key,
            y_title="",
            colors=colors,
            labels=labels,
            smoothing=smoothing,
            x=x,  # type: ignore[arg-type]
            x_title=i18n.t("x_" + x, lang),
            raw_suffix=i18n.t("raw_suffix", lang),
            empty_text=i18n.t("no_data", lang),
            max_points=min(settings.max_points, 500),
            height=SMALL_HEIGHT,
            arrow=True,
        )

    def memo_key(key: str) -> tuple[Any, ...]:
        return ("experiment-explorer", key, view.id, view.serial, smoothing, x, lang)

    ui.prepare_charts(
        [(memo_key(key), lambda key=key: small_chart(key)) for members in grouped.values() for key in members],
        legend_columns=2,
    )
    for name, members in grouped.items():
        st.markdown(f"**{ui.escape_markdown(name)}**")
        for start in range(0, len(members), 4):
            for column, key in zip(st.columns(4), members[start : start + 4], strict=False):
                with column:
                    ui.show_chart(lambda key=key: small_chart(key), key=memo_key(key), legend_columns=2)
    if len(chosen) > EXPLORER_LIMIT:
        st.caption(i18n.t("exp_explorer_more", lang, shown=EXPLORER_LIMIT))


FIELDS = [
    *ui.view_fields("experiment", settings),
    ui.UrlField(
        "experiment_filter", "f", parse=lambda values: values[-1][:200], render=lambda value: [value], default=""
    ),
]


def body() -> None:
    experiment_id = app.current_experiment
    all_views, _selected = ui.fresh_views(app)
    view = next((item for item in all_views if item.id == experiment_id), None)
    if view is None:
        st.warning(
            i18n.t("unknown_experiment", lang, id=ui.escape_markdown(str(experiment_id))), icon=":material/link_off:"
        )
        return
    peers = [
        item for item in all_views if item.experiment.track == view.experiment.track and not item.experiment.hidden
    ]
    ui.guarded(lambda: title_block(view), lang=lang)
    ui.guarded(lambda: paragraph_and_signals(view, peers), lang=lang)
    ui.guarded(lambda: settings_block(view), lang=lang)
    ui.guarded(lambda: sources_block(view), lang=lang)
    st.markdown(f"#### {i18n.t('exp_charts', lang)}")
    smoothing, x, _log = ui.view_controls("experiment", settings, lang, with_log=False)
    ui.write_url(FIELDS)
    insights = ui.insights_for(peers, settings, lang)
    ui.guarded(lambda: curves(view, smoothing, x, insights.signals), lang=lang)
    ui.guarded(lambda: validation_block(view), lang=lang)
    ui.guarded(lambda: explorer(view, smoothing, x), lang=lang)
    if view.experiment.problems:
        with st.expander(i18n.t("log_notes", lang, count=len(view.experiment.problems)), icon=":material/info:"):
            st.text("\n".join(view.experiment.problems))


def page() -> None:
    if not app.current_experiment:
        st.info(i18n.t("no_experiment_given", lang), icon=":material/info:")
        return
    if app.view(app.current_experiment) is None:
        st.warning(
            i18n.t("unknown_experiment", lang, id=ui.escape_markdown(app.current_experiment)),
            icon=":material/link_off:",
        )
        return
    ui.read_url(FIELDS)
    ui.live_fragment(body, app, key="experiment_live")


ui.guarded(page, lang=lang)
