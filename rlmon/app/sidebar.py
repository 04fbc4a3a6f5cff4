"""The sidebar's legend: the picked experiments' colour, status and progress, redrawn with live refresh."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import streamlit as st

from rlmon.app.loaders import load_catalog, load_views
from rlmon.app.markup import legend_html
from rlmon.settings import Settings
from rlmon.views.panels import ExperimentView

__all__ = ["legend_views", "live_legend"]


def legend_views(roots: tuple[Path, ...], settings: Settings, ids: Sequence[str]) -> tuple[ExperimentView, ...]:
    """The experiments ``ids`` as they are now (status, progress), in the order of ``ids``; ids that are gone
    are left out. Reads through the shared loaders, so a refresh costs a stat of the files."""
    views = {view.id: view for view in load_views(load_catalog(roots).catalog, settings).views}
    return tuple(views[experiment_id] for experiment_id in ids if experiment_id in views)


def live_legend(
    roots: tuple[Path, ...],
    settings: Settings,
    ids: Sequence[str],
    lang: str,
    *,
    labels: Mapping[str, str],
    refresh_s: int | None,
) -> None:
    """The sidebar legend (:func:`legend_html`) as a fragment of its own that redraws from fresh views every
    ``refresh_s`` seconds (None: only with the app).

    Live refresh reruns fragments only; without this the legend would keep the status and progress of the
    last full run while the page beside it moves on. Call it inside ``with st.sidebar:``.
    """
    wanted = tuple(ids)

    def draw() -> None:
        views = legend_views(roots, settings, wanted)
        if views:
            st.html(legend_html(views, lang, labels=labels))

    draw.__qualname__ = "sidebar_legend_fragment"
    st.fragment(draw, run_every=refresh_s)()
