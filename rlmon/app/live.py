"""Live refresh: page parts that rerun on a timer, and the experiments as they are now."""

from __future__ import annotations

import time
from collections.abc import Callable

import streamlit as st

from rlmon.app.loaders import Visit, load_catalog, load_views, styled_views
from rlmon.app.server import resolve_log_roots
from rlmon.app.state import AppState
from rlmon.text import t
from rlmon.views.model import ExperimentView

__all__ = ["READING_CHECK_S", "fresh_views", "live_fragment", "reading_notice"]

READING_CHECK_S = 2
"""While the read at start goes on, seconds between looks at how far it got."""


def fresh_views(app: AppState) -> tuple[tuple[ExperimentView, ...], tuple[ExperimentView, ...]]:
    """(all experiments, selected experiments) as they are now - for live refresh inside a fragment.

    A timed refresh reruns the page's fragment only; the sidebar and the navigation (new experiments, status
    icons) follow at the next full run - any sidebar change or page load. Rerunning the whole app from a timed
    fragment run would reset the sidebar's widgets (Streamlit sends only the fragment's widget states).
    """
    resolve_log_roots(app.settings)  # object-storage mirrors synced when due; their folders stay the same
    loaded = load_catalog(app.roots)
    # with the names and colours of the view the frame chose (the sidebar's track)
    views = styled_views(load_views(loaded.catalog, app.settings).views, app.lineup, app.settings)
    wanted = {view.id for view in app.selected}
    return views, tuple(view for view in views if view.id in wanted)


def live_fragment(body: Callable[[], None], app: AppState, *, key: str) -> None:
    """Run ``body`` as a fragment that reruns on its own every ``refresh_s`` while live refresh is on."""
    run_every = app.refresh_s if app.live else None

    def timed() -> None:
        started = time.perf_counter()
        try:
            body()
        finally:
            # What a widget change inside the page costs the server (the fragment reruns, not the frame).
            st.session_state["_rlmon_fragment_s"] = time.perf_counter() - started

    timed.__qualname__ = f"{key}_fragment"
    st.fragment(timed, run_every=run_every, key=key)()


def reading_notice(visit: Visit, lang: str) -> None:
    """While the read at start has not read every experiment of the roots (a large root, a first start): how many
    it has read, looked at again every :data:`READING_CHECK_S`; once it has read them all, the whole page runs
    again, so the sidebar and the pages list them."""
    if not visit.views.pending:
        return

    def draw() -> None:
        loaded = load_views(load_catalog(visit.resolved.roots).catalog, visit.settings)
        if not loaded.pending:
            st.rerun(scope="app")
        read = len(loaded.views) + len(loaded.errors)
        st.info(t("reading_root", lang, read=read, total=read + loaded.pending), icon=":material/hourglass_top:")

    draw.__qualname__ = "reading_notice_fragment"
    st.fragment(draw, run_every=READING_CHECK_S)()
