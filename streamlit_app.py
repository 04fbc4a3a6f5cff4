"""rlmon: a live, shared dashboard for verl RL post-training runs.

``streamlit run streamlit_app.py`` serves it; ``-- --log-root DIR`` (repeatable) or ``RLMON_LOG_ROOT`` point it
at the training logs, and with neither it runs on built-in demo data.

This file is the frame: settings, the sidebar (track, experiments, language, live refresh), the navigation over
the pages in ``pages/`` (the overview and one page per experiment, grouped by track), then the current page.
"""

from __future__ import annotations

import dataclasses
import html
import os
import sys
import time
from contextlib import nullcontext
from pathlib import Path

import streamlit as st

from rlmon.app import guards, loaders, markup, navigation, server, sidebar, state, url
from rlmon.errors import ObjectStoreError, RlmonError
from rlmon.runs import experiment as experiment_tracks
from rlmon.text import i18n
from rlmon.views import panels

HERE = Path(__file__).resolve().parent
# A file shipped with rlmon, served by this server: a ":material/...:" icon as page_icon makes every browser fetch
# the favicon from Google's font host (and the app's page icons would become the favicon without one).
ICON = HERE / "rlmon" / "icon.png"


def _serve_without_the_pages_folder_mode() -> None:
    """Serve this script as the app's frame from the first request on (not Streamlit's ``pages/``-folder mode).

    ``streamlit run streamlit_app.py`` finds the ``app`` below and imports this file once as a module when the
    server starts (Streamlit's ``st.App`` mode); every visit then runs it as the script (``__main__``). Streamlit
    decides at its first session whether it serves the legacy ``pages/``-folder mode, and in that mode the first
    request of a process for an experiment's path (a shared link after a restart) got a "Page not found" box:
    the path was looked up among the stems of ``pages/*.py`` before this script's ``st.navigation`` ran. Saying
    here, before any session exists, that the app has its own navigation removes that box.
    """
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # a Streamlit without the legacy mode
        return
    PagesManager.uses_pages_directory = False


if __name__ != "__main__":
    _serve_without_the_pages_folder_mode()
    loaders.read_at_start(sys.argv, os.environ)  # the logs are read while the server starts, not at the first visit
    app = st.App(__file__)
else:
    st.set_page_config(page_title="rlmon", page_icon=str(ICON), layout="wide")

ALL_TRACKS = "*"
# A page's url_path must differ from the stem of its file in pages/: where this file is run without being imported
# first (AppTest, or an older Streamlit), Streamlit resolves pages/*.py by file stem until the first st.navigation
# call of a process and would run the page without this frame.
OVERVIEW_PATH = "home"
GENERIC_PATH = "exp"
SAMPLES_PATH = "generations"


def _pick_language(settings_language: str) -> str:
    if "app_lang" not in st.session_state:
        st.session_state["app_lang"] = i18n.language_from_locale(st.context.locale, default=settings_language)
    return state.lang()


def main() -> None:
    try:
        settings = server.app_settings(sys.argv, os.environ)
    except RlmonError as error:
        st.error(i18n.t("error_settings", "en", reason=guards.escape_markdown(error.describe())))
        st.stop()
        return
    lang_default = i18n.language_from_locale(st.context.locale, default=settings.language)
    lang_field = url.choice_field("app_lang", "lang", i18n.LANGUAGES, lang_default)
    url.read_url([lang_field])
    lang = _pick_language(settings.language)

    demo = not settings.log_roots
    resolved = server.ResolvedRoots(roots=())
    try:
        # s3:// roots -> their mirrors in the cache folder (the first sync downloads every log: say so)
        with st.spinner(i18n.t("object_syncing", lang)) if server.has_object_roots(settings) else nullcontext():
            resolved = server.configured_roots(settings)
    except (RlmonError, OSError) as error:
        if not demo:
            raise
        st.error(i18n.t("error_demo_unwritable", lang, path=guards.escape_markdown(str(settings.cache_dir)),
                        reason=guards.escape_markdown(str(error))))  # fmt: skip
    roots = resolved.roots
    loaded = loaders.load_catalog(roots)
    views_loaded = loaders.load_views(loaded.catalog, settings)
    views = views_loaded.views
    # Hidden (rlmon.toml) means not listed; a link to one says so (the pages check hidden_ids first).
    hidden_ids = tuple(ref.id for ref in loaded.catalog.experiments if ref.overrides.hidden)
    unreadable = tuple(item for item in views_loaded.errors if item.id not in hidden_ids)
    visible = [view for view in views if view.id not in hidden_ids]
    ids = [view.id for view in visible]

    tracks = list(dict.fromkeys(view.experiment.track for view in visible))
    # First screen: the newest track with runs to compare, else every track (rlmon.runs.experiment.default_track).
    default_track = experiment_tracks.default_track([view.experiment for view in visible]) or ALL_TRACKS
    track_choices = [*tracks, ALL_TRACKS] if len(tracks) > 1 else [ALL_TRACKS, *tracks]

    # URL -> state (experiments first: they decide the track when a link names them).
    raw_ids = st.query_params.get_all("exp")
    exp_field = url.list_field("app_experiments", "exp", lambda value: value in ids)
    seen_before = st.session_state.get("_rlmon_url_seen", {}).get("exp")
    url.read_url([exp_field])
    if raw_ids and raw_ids != seen_before:
        known = {*hidden_ids, *(item.id for item in unreadable)}
        st.session_state["_rlmon_unknown_ids"] = [value for value in raw_ids if value not in ids and value not in known]
        st.session_state["_rlmon_hidden_ids"] = [value for value in raw_ids if value in hidden_ids]
        chosen = [view for view in visible if view.id in st.session_state.get("app_experiments", [])]
        chosen_tracks = {view.experiment.track for view in chosen}
        if chosen:
            st.session_state["app_track"] = chosen_tracks.pop() if len(chosen_tracks) == 1 else ALL_TRACKS
    track_field = url.choice_field("app_track", "track", track_choices, default_track)
    url.read_url([track_field])
    if st.session_state.get("app_track") not in track_choices:
        st.session_state["app_track"] = default_track

    def in_track(track: str) -> list[str]:
        return [view.id for view in visible if track == ALL_TRACKS or view.experiment.track == track]

    def forget_link_notes() -> None:
        st.session_state["_rlmon_unknown_ids"] = []
        st.session_state["_rlmon_hidden_ids"] = []

    def on_track_change() -> None:
        st.session_state["app_experiments"] = in_track(st.session_state["app_track"])
        forget_link_notes()

    def keep_language() -> None:
        # A click on the chosen segment clears a segmented control; the language stays what it was.
        if st.session_state.get("app_lang") not in i18n.LANGUAGES:
            st.session_state["app_lang"] = lang

    def on_experiments_change() -> None:
        forget_link_notes()

    # Navigation: the overview, one page per experiment grouped by track, and pages left out of the menu: one
    # for ?id= links, and one per hidden or unreadable experiment (a link to one says what became of it).
    overview = st.Page(
        str(HERE / "pages" / "overview.py"),
        title=i18n.t("nav_overview", lang),
        icon=":material/dashboard:",
        url_path=OVERVIEW_PATH,
        default=True,
    )
    sections: dict[str, list[st.Page]] = {"": [overview]}
    # What the model wrote: one page over every experiment (?id= picks one).
    samples_page = st.Page(
        str(HERE / "pages" / "samples.py"),
        title=i18n.t("nav_samples", lang),
        icon=":material/chat:",
        url_path=SAMPLES_PATH,
    )
    sections[""].append(samples_page)
    slugs = navigation.page_slugs([*(view.id for view in visible), *(item.id for item in unreadable), *hidden_ids])
    pages: dict[str, st.Page] = {}
    for view in visible:
        slug = slugs[view.id]
        # The menu renders titles and section names as markdown: names from folders and logs are escaped.
        page = st.Page(
            str(HERE / "pages" / "experiment.py"),
            title=guards.escape_markdown(view.label),
            icon=navigation.STATUS_ICONS.get(view.status),
            url_path=slug,
        )
        pages[view.id] = page
        track_name = i18n.track_name(view.experiment.track, lang)
        sections.setdefault(guards.escape_markdown(track_name, limit=panels.NAME_LIMIT), []).append(page)
    generic = st.Page(
        str(HERE / "pages" / "experiment.py"),
        title=i18n.t("nav_experiment", lang),
        url_path=GENERIC_PATH,
        visibility="hidden",
    )
    sections[""].append(generic)
    for unlisted in [*(item.id for item in unreadable), *hidden_ids]:
        sections[""].append(
            st.Page(
                str(HERE / "pages" / "experiment.py"),
                title=i18n.t("nav_experiment", lang),
                url_path=slugs[unlisted],
                visibility="hidden",
            )
        )
    # A page asked to open an experiment (a click in the overview's table): switch before any widget of
    # this run exists, so the sidebar keeps its state.
    goto = st.session_state.pop(state.GOTO_KEY, None)
    if goto in pages:
        st.switch_page(pages[goto])

    # The navigation comes before the sidebar so the sidebar can follow the page (position="top": the page
    # menu is drawn in the header whatever the order).
    current = st.navigation(sections, position="top")
    by_slug = {slug: experiment_id for experiment_id, slug in slugs.items()}
    current_experiment = by_slug.get(current.url_path)
    if current.url_path == GENERIC_PATH:
        current_experiment = st.query_params.get("id")
    by_id = {view.id: view for view in visible}
    # Arriving at an experiment's page (menu, link, table click) shows its track with it picked; staying on
    # the page leaves the sidebar to the visitor.
    arrived = st.session_state.get("_rlmon_page") != current.url_path
    st.session_state["_rlmon_page"] = current.url_path
    if arrived and current_experiment in by_id:
        own_track = by_id[current_experiment].experiment.track
        if st.session_state.get("app_track") not in (ALL_TRACKS, own_track):
            st.session_state["app_track"] = own_track
            st.session_state["app_experiments"] = in_track(own_track)
            forget_link_notes()
        elif "app_experiments" in st.session_state and current_experiment not in st.session_state["app_experiments"]:
            st.session_state["app_experiments"] = [*st.session_state["app_experiments"], current_experiment]

    with st.sidebar:
        st.markdown(f"### :material/monitoring: rlmon\n{i18n.t('app_tagline', lang)}")
        track = st.selectbox(
            i18n.t("sidebar_track", lang),
            track_choices,
            key="app_track",
            format_func=lambda value: (
                i18n.t("sidebar_all_tracks", lang)
                if value == ALL_TRACKS
                else panels.display_text(i18n.track_name(value, lang), limit=panels.NAME_LIMIT)
            ),
            on_change=on_track_change,
            persist_state="session",
        )
        options = in_track(track)
        if "app_experiments" not in st.session_state:
            st.session_state["app_experiments"] = options
        st.session_state["app_experiments"] = [
            value for value in st.session_state["app_experiments"] if value in options
        ]
        # One labelling for chips, legend, charts and tables: "E1 · GRPO", plus " · 2B" over several tracks.
        chip_labels = panels.display_labels([by_id[value] for value in options], lang)
        picked = st.multiselect(
            i18n.t("sidebar_experiments", lang),
            options,
            key="app_experiments",
            format_func=lambda value: (
                f"{chip_labels.get(value, value)} {panels.STATUS_GLYPHS.get(by_id[value].status, '')}"
            ),
            help=i18n.t("sidebar_experiments_help", lang),
            on_change=on_experiments_change,
            persist_state="session",
        )
        formatted = {
            value: f"{chip_labels[value]} {panels.STATUS_GLYPHS.get(by_id[value].status, '')}" for value in options
        }
        css = markup.chip_css([by_id[value] for value in options], formatted)
        if css:
            st.html(f"<style>{css}</style>")
        selected = tuple(view for view in visible if view.id in picked)

        any_running = any(view.status == "running" for view in selected)
        live_field = url.flag_field("app_live", "live", default=any_running)
        every_field = url.number_field(
            "app_refresh_s", "every", low=2, high=3600, default=settings.refresh_s, integer=True
        )
        url.read_url([live_field, every_field])
        st.session_state.setdefault("app_live", any_running)
        st.session_state.setdefault("app_refresh_s", settings.refresh_s)
        # The legend redraws itself with every live refresh (the rest of the sidebar waits for a full run).
        legend_every = int(st.session_state["app_refresh_s"]) if st.session_state["app_live"] else None
        sidebar.live_legend(
            roots, settings, [view.id for view in selected], lang, labels=chip_labels, refresh_s=legend_every
        )
        st.divider()
        st.segmented_control(
            i18n.t("sidebar_language", lang),
            list(i18n.LANGUAGES),
            key="app_lang",
            format_func=lambda value: i18n.LANGUAGE_NAMES[value],
            selection_mode="single",
            persist_state="session",
            on_change=keep_language,
        )
        live = st.toggle(
            i18n.t("sidebar_live", lang),
            key="app_live",
            help=i18n.t("sidebar_live_help", lang),
            persist_state="session",
        )
        refresh_s = st.number_input(
            i18n.t("sidebar_refresh_s", lang), min_value=2, max_value=3600, step=1, key="app_refresh_s",
            disabled=not live, persist_state="session",
        )  # fmt: skip
        st.divider()
        cache_problem = server.log_cache(settings.cache_dir).write_problem
        if cache_problem:
            st.warning(i18n.t("notice_cache_unwritable", lang, problem=guards.escape_markdown(cache_problem)))
        if demo:
            st.caption(i18n.t("sidebar_demo", lang))
        else:
            root_list = "<br>".join(html.escape(panels.display_text(label)) for label in resolved.labels)
            st.html(f'<div style="font-size:0.8rem;color:#6b7280;overflow-wrap:anywhere">'
                    f'{html.escape(i18n.t("sidebar_roots", lang))}:<br><code>{root_list}</code></div>')  # fmt: skip

    state.set_app_state(
        state.AppState(
            settings=settings,
            roots=roots,
            demo=demo,
            catalog=(
                dataclasses.replace(loaded.catalog, problems=(*resolved.notes, *loaded.catalog.problems))
                if resolved.notes
                else loaded.catalog
            ),
            views=views,
            selected=selected,
            slugs=slugs,
            pages=pages,
            root_errors=(
                *(
                    ObjectStoreError(server.object_reason(error, lang), path=error.path, kind=error.kind)
                    for error in resolved.errors
                ),
                *loaded.root_errors,
            ),
            view_errors=unreadable,
            unknown_ids=tuple(st.session_state.get("_rlmon_unknown_ids", [])),
            hidden_ids=hidden_ids,
            hidden_requested=tuple(st.session_state.get("_rlmon_hidden_ids", [])),
            live=bool(live),
            refresh_s=int(refresh_s),
            current_experiment=current_experiment,
        )
    )
    # All experiments of the track is the default selection: it stays out of the URL.
    exp_field = url.list_field("app_experiments", "exp", lambda value: value in ids, default=in_track(track))
    url.write_url([lang_field, track_field, exp_field, live_field, every_field])
    for result in resolved.stale:  # an object-storage root that cannot be read now: its last good data, marked
        st.warning(server.stale_notice(result, lang), icon=":material/cloud_off:")
    current.run()


if __name__ == "__main__":
    _started = time.perf_counter()
    try:
        main()
    finally:
        # Server time of this run, for the benchmark (benchmarks/bench_app.py) and the server log.
        st.session_state["_rlmon_run_s"] = time.perf_counter() - _started
