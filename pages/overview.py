"""Overview: the selected experiments side by side - header, summary and signals, the experiments table,
comparison charts with metric, smoothing and x-axis choices, what changed, and the per-step download."""

from __future__ import annotations

import io
import time
from collections.abc import Sequence

import streamlit as st

from rlmon.analysis.signals import KINDS
from rlmon.analysis.smoothing import Smoothing
from rlmon.analysis.summary import paragraph_parts as summary_parts
from rlmon.app import charts, digests, guards, live, navigation, samples, state, tables, url, widgets
from rlmon.text import UNKNOWN, display, format_count, t
from rlmon.views import axes, model, overview, report
from rlmon.views import tables as view_tables

app = state.app_state()
lang = state.lang()
settings = app.settings


def header(views: Sequence[model.ExperimentView]) -> None:
    shown = overview.overview_header(views, clock=time.strftime("%H:%M:%S"), lang=lang)
    left, right = st.columns([4, 1], vertical_alignment="center")
    left.markdown("## " + " · ".join(guards.escape_markdown(track, limit=display.NAME_LIMIT) for track in shown.tracks))
    if app.live:
        right.badge(t("live_badge", lang, seconds=app.refresh_s), icon=":material/sync:", color="green")
    else:
        right.badge(t("paused_badge", lang), icon=":material/pause:", color="gray")
    if shown.settings_line:
        st.markdown(f"**{guards.escape_markdown(shown.settings_line)}**")
    st.caption(guards.escape_markdown(shown.progress_line) + " · " + shown.updated)


def summary_and_signals(views: Sequence[model.ExperimentView], insights: model.Insights) -> None:
    with st.container(border=True):
        st.markdown(f"#### {t('summary_title', lang)}")
        if not insights.available:
            st.caption(t("summary_pending", lang))
            return
        for paragraph in insights.summary:
            lead, items = summary_parts(paragraph)
            # a paragraph that lists runs: one a line (escaped one by one: the list marks are the page's own)
            st.markdown(
                "\n".join([guards.escape_markdown(lead), *(f"- {guards.escape_markdown(item)}" for item in items)])
            )
        if insights.summary:
            st.caption(t("summary_caption", lang))
        rows = view_tables.signals_frame(views, insights.signals, kinds=KINDS, slugs=app.slugs, lang=lang)
        with st.expander(t("signals_title", lang, count=rows.height), expanded=0 < rows.height <= 6):
            if rows.is_empty():
                st.caption(t("signals_none", lang))
                return
            tables.show_signals_table(rows, key="overview_signals", lang=lang)


def experiments_table(views: Sequence[model.ExperimentView]) -> None:
    numbers = digests.headlines(views)
    st.markdown(f"#### {t('table_title', lang)}")
    groups = overview.repeat_groups(views)
    if not groups:
        frame = view_tables.experiments_frame(views, numbers, slugs=app.slugs, lang=lang)
        opened = tables.show_experiments_table(frame, key="overview_table", lang=lang)
        open_page(views[opened].id if opened is not None else None)
        return
    # A group of repeats is one row; its runs are listed, with their own rows and pages, in its expander below
    # (Streamlit's tables have no expandable rows).
    st.caption(t("table_groups_caption", lang))
    frame, opens = view_tables.grouped_experiments_frame(views, numbers, slugs=app.slugs, lang=lang)
    opened = tables.show_experiments_table(frame, key="overview_table", lang=lang)
    open_page(opens[opened] if opened is not None else None)
    by_id = {view.id: view for view in views}
    for index, group in enumerate(groups):
        name = guards.escape_markdown(group.name, limit=display.NAME_LIMIT)
        with st.expander(t("group_runs", lang, name=name, n=len(group.members)), icon=":material/stacks:"):
            members = [by_id[member] for member in group.members]
            runs = view_tables.experiments_frame(members, numbers, slugs=app.slugs, lang=lang)
            opened = tables.show_experiments_table(runs, key=f"overview_table_group_{index}", lang=lang)
            open_page(members[opened].id if opened is not None else None)


def open_page(experiment_id: str | None) -> None:
    """Open the page of the experiment a click in a table chose (None: the click chose none)."""
    if experiment_id is not None and experiment_id in app.pages:
        # Switching pages from inside the fragment would lose the sidebar's state: let the frame do it.
        st.session_state[navigation.GOTO_KEY] = experiment_id
        st.rerun(scope="app")


def metric_controls(views: Sequence[model.ExperimentView]) -> list[str]:
    options = overview.metric_options(views)
    st.session_state.setdefault("overview_metrics", overview.default_metrics(options))
    st.session_state["overview_metrics"] = [key for key in st.session_state["overview_metrics"] if key in options]
    unknown = overview.unknown_metrics(st.session_state.get(LINKED_METRICS, []), options)
    if unknown is not None:
        names = ", ".join(guards.escape_markdown(key, limit=display.NAME_LIMIT) for key in unknown.names)
        st.warning(
            t("unknown_metrics", lang, metrics=names + (" …" if unknown.more else "")), icon=":material/link_off:"
        )
    pick, search = st.columns([3, 1], vertical_alignment="bottom")
    pattern = widgets.metric_filter(
        search, key="overview_filter", label=t("control_filter", lang), help=t("control_filter_help", lang),
        placeholder="^actor/|clip",
    )  # fmt: skip
    # the filter first: whatever the number of keys, the picker offers a few hundred (the chosen ones kept)
    picker = overview.metric_picker(options, st.session_state["overview_metrics"], pattern)
    if picker.matched is not None:
        count = t("control_filter_count", lang, count=picker.matched)
        widgets.filter_note(search, count, regex=picker.regex, lang=lang)
    if picker.more:
        more = format_count(picker.more, lang)
        pick.caption(t("control_metrics_more", lang, count=more, shown=overview.PICKER_LIMIT))
    metrics = pick.multiselect(
        t("control_metrics", lang),
        picker.shown,
        key="overview_metrics",
        format_func=lambda key: model.metric_name(key, lang),
        help=t("control_metrics_help", lang),
        persist_state="session",
        on_change=lambda: st.session_state.pop(LINKED_METRICS, None),
    )
    return list(metrics)


def what_changed(views: Sequence[model.ExperimentView]) -> None:
    st.markdown(f"#### {t('diff_title', lang)}")
    table = view_tables.settings_diff_frame(views, lang)
    if table is None:
        st.caption(t("diff_single", lang))
    elif table.is_empty():
        st.caption(t("diff_none", lang))
    else:
        tables.show_table(table, hide_index=True, width="stretch", key="overview_diff")


def downloads(views: Sequence[model.ExperimentView], metrics: Sequence[str], smoothing: Smoothing) -> None:
    st.markdown(f"#### {t('download_title', lang)}")
    st.caption(t("download_caption", lang))
    lines = overview.download_metrics(metrics)

    def as_csv() -> bytes:
        return tables.download_frame(views, lines, smoothing).write_csv().encode("utf-8")

    def as_parquet() -> bytes:
        buffer = io.BytesIO()
        tables.download_frame(views, lines, smoothing).write_parquet(buffer)
        return buffer.getvalue()

    left, right = st.columns(2)
    left.download_button(
        t("download_csv", lang), as_csv, file_name="rlmon-steps.csv", mime="text/csv",
        key="overview_csv", icon=":material/download:", on_click="ignore", width="stretch",
    )  # fmt: skip
    right.download_button(
        t("download_parquet", lang), as_parquet, file_name="rlmon-steps.parquet",
        mime="application/vnd.apache.parquet", key="overview_parquet", icon=":material/download:",
        on_click="ignore", width="stretch",
    )  # fmt: skip


def report_download(views: Sequence[model.ExperimentView], options: report.ReportOptions) -> None:
    def as_html() -> bytes:
        numbers = digests.headlines(views)
        insights = digests.insights_for(views, settings, lang)
        page = report.render_report(views, numbers=numbers, insights=insights, options=options, paths=app.paths)
        return page.encode("utf-8")

    st.download_button(
        t("report_download", lang), as_html, file_name="rlmon-report.html", mime="text/html",
        key="overview_report", icon=":material/description:", on_click="ignore", width="stretch",
        help=t("report_download_help", lang),
    )  # fmt: skip


def notes(views: Sequence[model.ExperimentView]) -> None:
    lines = overview.notice_lines(app.catalog.problems, app.view_errors, views)
    shown = model.log_notes(lines, lang=lang, paths=app.paths)
    if shown is not None:
        with st.expander(shown.title, icon=":material/info:"):
            st.text(shown.text)


LINKED_METRICS = "_overview_linked_metrics"
"""Session key: the metric names the last link asked for (``?m=``), until the visitor picks metrics."""
FIELDS = [
    url.list_field("overview_metrics", "m", lambda value: bool(value) and len(value) < 300),
    widgets.filter_field("overview_filter"),
    *widgets.view_fields("overview", settings),
    url.flag_field("overview_log", "log", default=False),
    widgets.band_field("overview"),
]


def body() -> None:
    _all_views, views = live.fresh_views(app)
    if not views:
        st.info(t("no_selection", lang), icon=":material/checklist:")
        return
    guards.guarded(lambda: header(views), lang=lang, paths=app.paths)
    insights = digests.insights_for(views, settings, lang)
    guards.guarded(lambda: summary_and_signals(views, insights), lang=lang, paths=app.paths)
    guards.guarded(lambda: experiments_table(views), lang=lang, paths=app.paths)
    guards.guarded(lambda: samples.latest_samples_links(views, settings, lang), lang=lang, paths=app.paths)
    # A fragment of its own: a change of metric, smoothing or axis reruns the charts, not the table above.
    st.fragment(charts_section, key="overview_charts")(views, insights)


def charts_section(views: Sequence[model.ExperimentView], insights: model.Insights) -> None:
    """The comparison charts' metric choice, then the charts in a fragment of their own."""
    st.markdown(f"#### {t('charts_title', lang)}")
    metrics = metric_controls(views)
    # Default metrics depend on the experiments; keep them out of the URL unless changed.
    FIELDS[0] = url.list_field(
        "overview_metrics", "m", lambda value: bool(value) and len(value) < 300,
        default=overview.default_metrics(overview.metric_options(views)),
    )  # fmt: skip
    st.fragment(chart_views, key="overview_chart_views")(views, insights, metrics)


def chart_views(views: Sequence[model.ExperimentView], insights: model.Insights, metrics: list[str]) -> None:
    """Smoothing, axis and highlight choices, the charts, and what follows from those choices."""
    smoothing, x, log_scale = widgets.view_controls("overview", settings, lang, with_log=True)
    url.write_url(FIELDS)
    widgets.axis_caption(axes.axis_notes(views, x, lang), paths=app.paths)
    band = widgets.band_choice("overview", lang) if overview.repeat_groups(views) else "minmax"
    highlight = charts.highlight_legend(views, key="overview_highlight", lang=lang, colors=overview.chip_colors(views))
    choices = overview.ComparisonChoices(
        smoothing=smoothing, x=x, log_scale=log_scale, signals=insights.signals, highlight=highlight, lang=lang,
        max_points=settings.max_points, band=band,
    )  # fmt: skip
    plans, ahead = overview.overview_charts(metrics, views, choices)
    # The first two rows are drawn at once when they can be in the first screen; the rest as they come into view.
    # Each drawn chart is built ahead under the other smoothing methods: a click there waits only for the browser.
    charts.chart_grid(
        plans, key="overview_grid", lang=lang, eager=overview.overview_eager(len(views)),
        height=overview.COMPARISON_HEIGHT, settings=settings,
        ahead=ahead,
    )  # fmt: skip
    left, right = st.columns([3, 2])
    with left:
        guards.guarded(lambda: what_changed(views), lang=lang, paths=app.paths)
    with right:
        guards.guarded(lambda: downloads(views, metrics, smoothing), lang=lang, paths=app.paths)
        options = report.ReportOptions(
            lang=lang, smoothing=smoothing, metrics=tuple(metrics), x=x, log_scale=log_scale,
            max_points=settings.max_points, renderer=settings.chart_renderer, band=band,
        )  # fmt: skip
        guards.guarded(lambda: report_download(views, options), lang=lang, paths=app.paths)
    notes(views)


def page() -> None:
    for error in app.root_errors:
        st.error(
            t("error_root_missing", lang, path=guards.escape_markdown(error.path or "", paths=app.paths),
                   reason=guards.escape_markdown(error.reason, paths=app.paths)),
            icon=":material/folder_off:",
        )  # fmt: skip
    if app.unknown_ids:
        st.warning(
            t(
                "unknown_experiments",
                lang,
                ids=", ".join(guards.escape_markdown(value, limit=display.NAME_LIMIT) for value in app.unknown_ids),
            ),
            icon=":material/link_off:",
        )
    for experiment_id in app.hidden_requested:
        st.info(app.hidden_notice(experiment_id, lang), icon=":material/visibility_off:")
    for item in app.view_errors:
        st.warning(
            t(
                "exp_unreadable",
                lang,
                path=guards.escape_markdown(item.path, paths=app.paths),
                reason=guards.escape_markdown(item.reason, paths=app.paths),
            ),
            icon=":material/error:",
        )
    if not app.views:
        if not app.root_errors:
            roots = ", ".join(guards.escape_markdown(str(root), paths=app.paths) for root in app.roots) or UNKNOWN
            st.info(t("empty_root", lang, roots=roots), icon=":material/folder_open:")
        return
    linked = st.query_params.get_all("m")
    if linked and linked != st.session_state.get("_rlmon_url_seen", {}).get("m"):
        # A link's metrics: those the experiments do not log are named above the charts (read_url drops them).
        st.session_state[LINKED_METRICS] = linked
    url.read_url(FIELDS)
    live.live_fragment(body, app, key="overview_live")


guards.guarded(page, lang=lang, paths=app.paths)
