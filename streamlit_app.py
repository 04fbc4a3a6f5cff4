"""rlmon: a live, shared dashboard for verl RL post-training runs.

``streamlit run streamlit_app.py`` serves it; ``-- --log-root DIR`` (repeatable) or ``RLMON_LOG_ROOT`` point it
at the training logs, and with neither it runs on built-in demo data.

This file is the frame: settings, the sign-in (when Streamlit's secrets hold an ``[auth]`` section), the sidebar
(track, experiments, language, live refresh), the navigation over the pages in ``pages/`` (the overview and one page
per experiment, grouped by track), then the current page.
"""

from __future__ import annotations

import base64
import os
import sys
import time
from pathlib import Path

import streamlit as st

import rlmon
from rlmon.app import alerts, live, loaders, navigation, server, sidebar, signin, state

HERE = Path(__file__).resolve().parent
# A file shipped with rlmon, inlined: a ":material/...:" icon as page_icon makes every browser fetch the favicon from
# Google's font host (and the app's page icons would become the favicon without one); served as a file, it would
# be one of the files kept from browsers not signed in (signin.DownloadGate).
ICON = "data:image/png;base64," + base64.b64encode((Path(rlmon.__file__).parent / "icon.png").read_bytes()).decode()

if __name__ != "__main__":
    navigation.serve_without_the_pages_folder_mode()
    loaders.read_at_start(sys.argv, os.environ)  # the logs are read while the server starts, not at the first visit
    server.check_first_element_ahead()  # a once-per-process cost of Streamlit's, paid before the first visit
    signin.check_at_start()
    alerts.start_watcher(sys.argv, os.environ)  # with an alert target set: alerts go out with no browser open
    gate = signin.DownloadGate.middleware(settings=lambda: server.app_settings(sys.argv, os.environ))
    app = st.App(__file__, middleware=[gate])
else:
    st.set_page_config(page_title="rlmon", page_icon=ICON, layout="wide")


def main() -> None:
    settings = server.settings_or_stop(sys.argv, os.environ)
    lang_field, lang = sidebar.language(settings)
    # with sign-in on, only a person on the allow-list gets past this line; anyone else sees one page, no data
    person = signin.admit_or_stop(settings, lang)
    visit = loaders.read_visit(settings, lang)
    track_field = sidebar.read_selection(visit)
    pages = navigation.app_pages(HERE / "pages", visit, lang)
    navigation.open_requested_page(pages)
    # The navigation comes before the sidebar so the sidebar can follow the page (position="top": the page
    # menu is drawn in the header whatever the order).
    current = st.navigation(pages.sections, position="top")
    current_experiment = pages.experiment_of(current.url_path)
    sidebar.follow_page(visit, current.url_path, current_experiment)
    choice = sidebar.draw_sidebar(visit, lang, person)
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
    live.reading_notice(visit, lang)  # a large root read at start: its first screen first, the rest as it comes
    current.run()


if __name__ == "__main__":
    _started = time.perf_counter()
    try:
        main()
    finally:
        # Server time of this run, for the benchmark (benchmarks/bench_app.py) and the server log.
        st.session_state["_rlmon_run_s"] = time.perf_counter() - _started
        server.page_sent()
