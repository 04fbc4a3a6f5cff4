"""rlmon: a live, shared dashboard for verl RL post-training runs.

``streamlit run streamlit_app.py`` serves it; ``-- --log-root DIR`` (repeatable) or ``RLMON_LOG_ROOT`` point it
at the training logs, and with neither it runs on built-in demo data.

This file is the frame: settings, the sidebar (track, experiments, language, live refresh), the navigation over
the pages in ``pages/`` (the overview and one page per experiment, grouped by track), then the current page.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import streamlit as st

import rlmon
from rlmon.app import loaders, navigation, server, sidebar, state

HERE = Path(__file__).resolve().parent
# A file shipped with rlmon, served by this server: a ":material/...:" icon as page_icon makes every browser fetch
# the favicon from Google's font host (and the app's page icons would become the favicon without one).
ICON = Path(rlmon.__file__).resolve().parent / "icon.png"

if __name__ != "__main__":
    navigation.serve_without_the_pages_folder_mode()
    loaders.read_at_start(sys.argv, os.environ)  # the logs are read while the server starts, not at the first visit
    app = st.App(__file__)
else:
    st.set_page_config(page_title="rlmon", page_icon=str(ICON), layout="wide")


def main() -> None:
    settings = server.settings_or_stop(sys.argv, os.environ)
    lang_field, lang = sidebar.language(settings)
    visit = loaders.read_visit(settings, lang)
    track_field = sidebar.read_selection(visit)
    pages = navigation.app_pages(HERE / "pages", visit, lang)
    navigation.open_requested_page(pages)
    # The navigation comes before the sidebar so the sidebar can follow the page (position="top": the page
    # menu is drawn in the header whatever the order).
    current = st.navigation(pages.sections, position="top")
    current_experiment = pages.experiment_of(current.url_path)
    sidebar.follow_page(visit, current.url_path, current_experiment)
    choice = sidebar.draw_sidebar(visit, lang)
    state.set_app_state(
        state.frame_state(
            visit, lang=lang, selected=choice.selected, slugs=pages.slugs, pages=pages.by_id,
            link_notes=sidebar.link_notes(), live=choice.live, refresh_s=choice.refresh_s,
            current_experiment=current_experiment, lineup=choice.lineup,
        )
    )  # fmt: skip
    sidebar.write_selection(visit, lang_field, track_field, choice)
    for result in visit.resolved.stale:  # an object-storage root that cannot be read now: its last good data, marked
        st.warning(server.stale_notice(result, lang), icon=":material/cloud_off:")
    current.run()


if __name__ == "__main__":
    _started = time.perf_counter()
    try:
        main()
    finally:
        # Server time of this run, for the benchmark (benchmarks/bench_app.py) and the server log.
        st.session_state["_rlmon_run_s"] = time.perf_counter() - _started
