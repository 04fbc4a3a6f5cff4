"""One experiment: identity, status and progress, its paragraph and signals, settings, source files, the
training curves, validation per data source, and an explorer over every logged key.

Every experiment page in the navigation runs this module; the frame says which experiment it is
(``AppState.current_experiment``: the page's url_path, or ``?id=`` on the hidden ``experiment`` page).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import streamlit as st

from rlmon.analysis.signals import Signal
from rlmon.analysis.smoothing import Smoothing
from rlmon.app import charts, digests, guards, live, markup, samples, state, tables, url, widgets
from rlmon.text import display, t
from rlmon.views import axes, detail, model, outcomes, report
from rlmon.views import tables as view_tables

BadgeColor = Literal["red", "orange", "yellow", "blue", "green", "violet", "gray", "grey", "primary"]
STATUS_COLORS: dict[str, BadgeColor] = {
    "finished": "green",
    "running": "blue",
    "stalled": "orange",
    "crashed": "red",
    "not started": "gray",
}

app = state.app_state()
lang = state.lang()
settings = app.settings


SEVERITY_ICONS = {"critical": ":material/error:", "warning": ":material/warning:"}


def title_block(view: model.ExperimentView) -> None:
    st.html(markup.title_html(view, lang))
    header = detail.experiment_header(view, digests.headline(view), lang=lang)
    st.badge(header.badge, color=STATUS_COLORS.get(header.status, "gray"))
    if header.description:
        # rlmon.toml is the team's own text, made safe markdown by the view; the fallback is rlmon's own words.
        st.markdown(header.description)
    if header.progress is not None:
        st.progress(header.progress, text=header.progress_text)
    # Two rows of three: each number has room to be read whole, in either language.
    for start in range(0, len(header.cells), 3):
        for column, (label, value) in zip(st.columns(3), header.cells[start : start + 3], strict=False):
            column.metric(label, value)
    if header.failure is not None:
        st.error(header.failure, icon=":material/error:")
        st.code(header.failure_lines, language=None, wrap_lines=True)
    if header.missing is not None:
        st.warning(header.missing)
    if header.no_steps is not None:
        st.info(header.no_steps)


def paragraph_and_signals(view: model.ExperimentView, peers: Sequence[model.ExperimentView]) -> None:
    said = detail.paragraph_of(view, digests.insights_for(peers, settings, lang), lang=lang)
    if said is None:
        return
    with st.container(border=True):
        if said.paragraph:
            st.markdown(f"**{said.title}** · " + guards.escape_markdown(said.paragraph))
        for severity, text in said.signals:
            st.markdown(f"{SEVERITY_ICONS.get(severity, ':material/info:')} {guards.escape_markdown(text)}")


def settings_block(view: model.ExperimentView) -> None:
    st.markdown(f"#### {t('exp_settings', lang)}")
    groups = detail.setting_groups(view, lang=lang)
    if not groups:
        st.caption(t("no_data", lang))
        return
    for start in range(0, len(groups), 3):
        for column, group in zip(st.columns(3), groups[start : start + 3], strict=False):
            with column:
                st.caption(group.title)
                tables.show_table(
                    tables.settings_frame(group.settings, lang),
                    hide_index=True,
                    width="stretch",
                    key=f"experiment_settings_{group.group}",
                )


def sources_block(view: model.ExperimentView) -> None:
    st.markdown(f"#### {t('exp_sources', lang)}")
    tables.show_table(
        view_tables.sources_frame(view, lang, paths=app.paths),
        hide_index=True,
        width="stretch",
        key="experiment_sources",
        column_config={
            "file": st.column_config.TextColumn(t("col_file", lang)),
            "size": st.column_config.TextColumn(t("col_size", lang), width="small"),
            "range": st.column_config.TextColumn(t("col_range", lang), width="small"),
            "role": st.column_config.TextColumn(t("col_role", lang), width="small"),
            "note": st.column_config.TextColumn(t("col_note", lang)),
        },
    )


def curves(view: model.ExperimentView, smoothing: Smoothing, x: str, signals: Sequence[Signal]) -> None:
    # a link from a signal: ?focus=<key>&at=<step>
    focus = detail.focus_of(view, st.query_params.get("focus"), st.query_params.get("at", ""))
    plans = detail.detail_charts(
        view, smoothing=smoothing, x=x, signals=signals, lang=lang, max_points=settings.max_points, focus=focus,
        settings=settings,
    )  # fmt: skip
    # The header, numbers, summary and settings fill a laptop's first screen: the curves below are drawn as they
    # near the view, not while that screen is being built; a link to one chart (a signal's) draws it at once.
    eager = model.EAGER_CHARTS if focus is not None else 0
    charts.chart_grid(
        plans, key="experiment_grid", lang=lang, eager=eager, height=detail.DETAIL_HEIGHT, settings=settings
    )


def rollout_corr_block(view: model.ExperimentView, smoothing: Smoothing, x: str, signals: Sequence[Signal]) -> None:
    plans = detail.rollout_corr_charts(
        view, smoothing=smoothing, x=x, signals=signals, lang=lang, max_points=settings.max_points
    )
    if not plans:
        return
    st.markdown(f"#### {t('exp_rollout_corr', lang)}")
    # verl's doc draws these 2×3: three a row on a laptop (wide=4: wide - 1 up to 1600 px)
    charts.chart_grid(
        plans, key="experiment_rollout_corr", lang=lang, wide=4, height=detail.DETAIL_HEIGHT, settings=settings
    )


def outcomes_block(view: model.ExperimentView) -> None:
    block = outcomes.outcome_block(
        view, samples.experiment_training_dumps(view, settings), settings=settings, lang=lang, paths=app.paths
    )
    if block is None:
        return
    st.markdown(f"#### {block.title}")
    st.caption(block.caption)
    charts.chart_grid(
        block.charts, key="experiment_outcomes", lang=lang, height=detail.DETAIL_HEIGHT, settings=settings
    )
    if block.notes is not None:
        with st.expander(block.notes.title, icon=":material/info:"):
            st.text(block.notes.text)


def validation_block(view: model.ExperimentView, x: str) -> None:
    st.markdown(f"#### {t('exp_validation', lang)}")
    found = detail.validation_panels(view, x=x, lang=lang)
    if not found:
        st.caption(t("exp_validation_none", lang))
        return
    charts.chart_grid(
        [item.chart for item in found if item.chart is not None], key="experiment_validation", lang=lang,
        height=detail.DETAIL_HEIGHT, settings=settings,
    )  # fmt: skip
    for index, item in enumerate(found):
        source = guards.escape_markdown(item.source, limit=display.NAME_LIMIT)
        with st.expander(t("exp_validation_table", lang, source=source)):
            tables.show_table(item.table, hide_index=True, width="stretch", key=f"experiment_validation_{index}")


def explorer(view: model.ExperimentView, smoothing: Smoothing, x: str) -> None:
    st.markdown(f"#### {t('exp_explorer', lang)}")
    families = detail.explorer_families(view)
    all_label = "*"
    start = detail.EXPLORER_START if detail.EXPLORER_START in families else all_label
    st.session_state.setdefault("experiment_family", start)
    if st.session_state["experiment_family"] not in [all_label, *families]:
        st.session_state["experiment_family"] = all_label
    left, right = st.columns([1, 2], vertical_alignment="bottom")
    text = widgets.metric_filter(
        right, key="experiment_filter", label=t("exp_explorer_filter", lang),
        help=t("exp_explorer_filter_help", lang), placeholder="actor/ · timing_s/(gen|update)",
    )  # fmt: skip
    family = left.selectbox(
        t("exp_explorer_family", lang),
        [all_label, *families],
        key="experiment_family",
        format_func=lambda value: (
            t("exp_explorer_all", lang) if value == all_label else display.display_text(value, limit=display.NAME_LIMIT)
        ),
        persist_state="session",
        disabled=bool(text),
    )
    found = detail.explorer(
        view, family=None if family == all_label else family, pattern=text, smoothing=smoothing, x=x, lang=lang,
        max_points=settings.max_points,
    )  # fmt: skip
    notes = detail.explorer_notes(found, filtered=bool(text), lang=lang)
    if text:
        widgets.filter_note(st, notes.count, regex=found.regex, lang=lang)
    else:
        st.caption(notes.count)
    for index, (name, plans) in enumerate(found.groups.items()):
        st.markdown(f"**{guards.escape_markdown(name, limit=display.NAME_LIMIT)}**")
        charts.chart_grid(
            plans, key=f"experiment_explorer_{index}", lang=lang, wide=4, height=detail.EXPLORER_HEIGHT,
            settings=settings,
        )  # fmt: skip
    if notes.more is not None:
        st.caption(notes.more)


def report_download(view: model.ExperimentView, smoothing: Smoothing, x: str) -> None:
    options = report.ReportOptions(
        lang=lang, smoothing=smoothing, x=x, max_points=settings.max_points, renderer=settings.chart_renderer
    )

    def as_html() -> bytes:
        insights = digests.insights_for([view], settings, lang)
        numbers = {view.id: digests.headline(view)}
        return report.render_report(
            [view], numbers=numbers, insights=insights, options=options, paths=app.paths
        ).encode("utf-8")

    st.download_button(
        t("report_download", lang), as_html, file_name="rlmon-report.html", mime="text/html",
        key="experiment_report", icon=":material/description:", on_click="ignore",
        help=t("report_download_help", lang),
    )  # fmt: skip


FIELDS = [
    *widgets.view_fields("experiment", settings),
    widgets.filter_field("experiment_filter"),
    url.UrlField("experiment_family", "fam", parse=lambda values: values[-1][:200], render=lambda value: [value]),
]


def body() -> None:
    experiment_id = app.current_experiment
    all_views, _selected = live.fresh_views(app)
    view = next((item for item in all_views if item.id == experiment_id), None)
    if view is None:
        st.warning(
            t("unknown_experiment", lang, id=guards.escape_markdown(str(experiment_id), limit=display.NAME_LIMIT)),
            icon=":material/link_off:",
        )
        return
    peers = detail.track_peers(view, all_views)
    guards.guarded(lambda: title_block(view), lang=lang, paths=app.paths)
    guards.guarded(lambda: paragraph_and_signals(view, peers), lang=lang, paths=app.paths)
    guards.guarded(lambda: settings_block(view), lang=lang, paths=app.paths)
    guards.guarded(lambda: sources_block(view), lang=lang, paths=app.paths)
    # A fragment of its own: a change of smoothing or axis reruns the charts, not the blocks above.
    st.fragment(charts_section, key="experiment_charts")(view, peers)


def charts_section(view: model.ExperimentView, peers: Sequence[model.ExperimentView]) -> None:
    """The experiment's charts with their choices, the report of those choices, and the log's notes."""
    st.markdown(f"#### {t('exp_charts', lang)}")
    smoothing, x, _log = widgets.view_controls("experiment", settings, lang, with_log=False)
    url.write_url(FIELDS)
    widgets.axis_caption(axes.axis_notes([view], x, lang), paths=app.paths)
    guards.guarded(lambda: report_download(view, smoothing, x), lang=lang, paths=app.paths)
    insights = digests.insights_for(peers, settings, lang)
    guards.guarded(lambda: curves(view, smoothing, x, insights.signals), lang=lang, paths=app.paths)
    guards.guarded(lambda: rollout_corr_block(view, smoothing, x, insights.signals), lang=lang, paths=app.paths)
    guards.guarded(lambda: outcomes_block(view), lang=lang, paths=app.paths)
    guards.guarded(lambda: validation_block(view, x), lang=lang, paths=app.paths)
    guards.guarded(lambda: explorer(view, smoothing, x), lang=lang, paths=app.paths)
    notes = model.log_notes(view.experiment.problems, lang=lang, paths=app.paths)
    if notes is not None:
        with st.expander(notes.title, icon=":material/info:"):
            st.text(notes.text)


def page() -> None:
    if not app.current_experiment:
        st.info(t("no_experiment_given", lang), icon=":material/info:")
        return
    if app.current_experiment in app.hidden_ids:
        st.info(app.hidden_notice(app.current_experiment, lang), icon=":material/visibility_off:")
        return
    unreadable = app.unreadable_notice(app.current_experiment, lang)
    if unreadable is not None:
        st.error(unreadable, icon=":material/error:")
        return
    if app.view(app.current_experiment) is None:
        st.warning(
            t("unknown_experiment", lang, id=guards.escape_markdown(app.current_experiment, limit=display.NAME_LIMIT)),
            icon=":material/link_off:",
        )
        return
    url.read_url(FIELDS)
    live.live_fragment(body, app, key="experiment_live")


guards.guarded(page, lang=lang, paths=app.paths)
