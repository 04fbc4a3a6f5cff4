"""What the frame hands to the page for this run (:class:`AppState`, built by :func:`frame_state`), and the
visitor's session state."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import streamlit as st

from rlmon.app.guards import escape_markdown
from rlmon.app.loaders import Unreadable, Visit, styled_views
from rlmon.app.server import object_reason
from rlmon.errors import ObjectStoreError, RlmonError
from rlmon.settings import Settings
from rlmon.sources.discovery import Catalog
from rlmon.sources.objstore import PublicPaths, public_paths
from rlmon.sources.rlmon_toml import CONFIG_NAME
from rlmon.text import LANGUAGES, t
from rlmon.views.model import ExperimentView, Lineup

__all__ = ["AppState", "app_state", "frame_state", "lang", "page_state", "set_app_state", "state"]


def state() -> Any:
    """``st.session_state`` (typed loosely for the pages)."""
    return st.session_state


def lang() -> str:
    """The visitor's language (``en``/``zh``), as chosen in the sidebar."""
    value = st.session_state.get("app_lang")
    return value if value in LANGUAGES else "en"


@dataclass(frozen=True)
class AppState:
    """What the frame hands to the pages for this run."""

    settings: Settings
    roots: tuple[Path, ...]
    demo: bool
    catalog: Catalog
    views: tuple[ExperimentView, ...]
    """Every experiment of the catalog (including hidden ones); those of the sidebar's track with the names and
    colours of its :attr:`lineup`."""
    selected: tuple[ExperimentView, ...]
    """The experiments picked in the sidebar, in catalog order."""
    slugs: dict[str, str]
    """Experiment id -> its page's url_path."""
    pages: dict[str, Any]
    """Experiment id -> its ``st.Page``."""
    root_errors: tuple[RlmonError, ...] = ()
    view_errors: tuple[Unreadable, ...] = ()
    """Experiments that could not be read at all."""
    unknown_ids: tuple[str, ...] = ()
    """Experiment ids the URL asked for that the catalog does not hold."""
    hidden_ids: tuple[str, ...] = ()
    """Experiments ``rlmon.toml`` marks hidden: not listed; a link to one says it is hidden."""
    hidden_requested: tuple[str, ...] = ()
    """Hidden experiments the URL asked for (``?exp=``)."""
    live: bool = False
    refresh_s: int = 30
    current_experiment: str | None = None
    """The experiment whose page is being shown, if any."""
    paths: PublicPaths = dataclasses.field(default_factory=PublicPaths)
    """The object-storage mirrors among the roots, shown by their ``s3://`` URLs wherever a path is shown."""
    lineup: Lineup = dataclasses.field(default_factory=Lineup)
    """The names, colours and dashes of the sidebar track's experiments: the view every page shows
    (:meth:`rlmon.app.loaders.Visit.lineup`; :func:`rlmon.app.live.fresh_views` applies it to fresh reads)."""

    def view(self, experiment_id: str) -> ExperimentView | None:
        for view in self.views:
            if view.id == experiment_id:
                return view
        return None

    def unreadable(self, experiment_id: str) -> Unreadable | None:
        """Why the experiment could not be read, when it could not."""
        return next((item for item in self.view_errors if item.id == experiment_id), None)

    def unreadable_notice(self, experiment_id: str, lang: str) -> str | None:
        """Why the experiment could not be read (its folder and the failure, markdown); None when it could."""
        unreadable = self.unreadable(experiment_id)
        if unreadable is None:
            return None
        return t(
            "exp_unreadable", lang, path=escape_markdown(unreadable.path, paths=self.paths),
            reason=escape_markdown(unreadable.reason, paths=self.paths),
        )  # fmt: skip

    def hidden_notice(self, experiment_id: str, lang: str) -> str:
        """The notice for a link to a hidden experiment: it is hidden, and how to list it again (markdown)."""
        found = next((ref for ref in self.catalog.experiments if ref.id == experiment_id), None)
        table = f'[experiments."{found.relative if found else experiment_id}"]'
        toml = str(found.root / CONFIG_NAME) if found else CONFIG_NAME
        return t(
            "hidden_experiment", lang, id=escape_markdown(experiment_id), table=escape_markdown(table),
            toml=escape_markdown(toml),
        )  # fmt: skip


_APP_STATE_KEY = "_rlmon_app_state"


def set_app_state(app: AppState) -> None:
    """Hand the frame's state to the page."""
    st.session_state[_APP_STATE_KEY] = app


def page_state() -> AppState | None:
    """The frame's :class:`AppState` for this run, or None outside the frame's navigation."""
    value = st.session_state.get(_APP_STATE_KEY)
    return value if isinstance(value, AppState) else None


def app_state() -> AppState:
    """The frame's :class:`AppState` for this run (set by ``streamlit_app.py`` before the page runs)."""
    value = st.session_state.get(_APP_STATE_KEY)
    if not isinstance(value, AppState):
        raise RuntimeError("the page was run outside streamlit_app.py's navigation")
    return value


def frame_state(
    visit: Visit,
    *,
    lang: str,
    selected: tuple[ExperimentView, ...],
    slugs: dict[str, str],
    pages: dict[str, Any],
    link_notes: tuple[tuple[str, ...], tuple[str, ...]],
    live: bool,
    refresh_s: int,
    current_experiment: str | None,
    lineup: Lineup | None = None,
) -> AppState:
    """The :class:`AppState` of this run: what the frame read (``visit``), and what the sidebar, the navigation
    and the last link (``link_notes``: unknown and hidden experiment ids it asked for) chose."""
    resolved, loaded = visit.resolved, visit.loaded
    catalog = loaded.catalog
    if resolved.notes:
        catalog = dataclasses.replace(catalog, problems=(*resolved.notes, *catalog.problems))
    object_errors = (
        ObjectStoreError(object_reason(error, lang), path=error.path, kind=error.kind) for error in resolved.errors
    )
    return AppState(
        settings=visit.settings,
        paths=public_paths(visit.settings.cache_dir, visit.settings.log_roots),
        roots=resolved.roots,
        demo=visit.demo,
        catalog=catalog,
        views=visit.views.views if lineup is None else styled_views(visit.views.views, lineup, visit.settings),
        lineup=lineup or Lineup(),
        selected=selected,
        slugs=slugs,
        pages=pages,
        root_errors=(*object_errors, *loaded.root_errors),
        view_errors=visit.unreadable,
        unknown_ids=link_notes[0],
        hidden_ids=visit.hidden_ids,
        hidden_requested=link_notes[1],
        live=live,
        refresh_s=refresh_s,
        current_experiment=current_experiment,
    )
