"""The app's pages: the menu over the overview, the samples and each experiment (a readable, unique url_path and a
status icon each), the page a click asked for, and the one Streamlit setting that makes this file's frame the app."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import streamlit as st

from rlmon.app.guards import escape_markdown
from rlmon.app.loaders import Visit
from rlmon.text import display, t, track_name

__all__ = [
    "ALERTS_PATH",
    "GENERIC_PATH",
    "GOTO_KEY",
    "HOME_PATH",
    "OVERVIEW_PATH",
    "SAMPLES_PATH",
    "STATUS_ICONS",
    "Pages",
    "app_pages",
    "experiment_slug",
    "hash_text",
    "open_requested_page",
    "page_slugs",
    "serve_without_the_pages_folder_mode",
]

STATUS_ICONS = {
    "finished": ":material/check_circle:",
    "running": ":material/play_circle:",
    "stalled": ":material/pause_circle:",
    "crashed": ":material/cancel:",
    "not started": ":material/radio_button_unchecked:",
}

_RESERVED_PATHS = {"home", "_overview", "exp", "overview", "experiment", "_stcore", "static", "media", "component",
                   "generations", "samples", "alerts", "notifications"}  # fmt: skip


def experiment_slug(experiment_id: str, taken: Iterable[str] = ()) -> str:
    """A readable, URL-safe page path for an experiment id: ``4B/e2_dapo_4b`` -> ``4b-e2-dapo-4b``.

    Ids with no ASCII letters or digits get ``exp-<hash>``; a slug already in ``taken`` gets ``-2``, ``-3``...
    """
    slug = re.sub(r"[^a-z0-9]+", "-", experiment_id.lower()).strip("-")
    if not slug:
        slug = "exp-" + format(abs(hash_text(experiment_id)) % 16**6, "06x")
    if slug in _RESERVED_PATHS:
        slug += "-run"
    used = set(taken)
    candidate, count = slug, 2
    while candidate in used:
        candidate = f"{slug}-{count}"
        count += 1
    return candidate


def hash_text(text: str) -> int:
    """A stable (process-independent) integer hash of a string."""
    value = 0
    for char in text.encode("utf-8"):
        value = (value * 131 + char) % (1 << 61)
    return value


def page_slugs(experiment_ids: Iterable[str]) -> dict[str, str]:
    """Experiment id -> the url_path of its page (:func:`experiment_slug`, unique in the given order)."""
    slugs: dict[str, str] = {}
    for experiment_id in experiment_ids:
        slugs[experiment_id] = experiment_slug(experiment_id, slugs.values())
    return slugs


# A page's url_path must differ from the stem of its file in pages/: where the frame is run without being imported
# first (AppTest, or an older Streamlit), Streamlit resolves pages/*.py by file stem until the first st.navigation
# call of a process and would run the page without the frame.
OVERVIEW_PATH = "_overview"
"""The overview's own url_path: never in an address (the default page is served at the app's root), but reserved."""
HOME_PATH = "home"
"""A hidden second page of the overview, so an address typed as ``/home`` opens it (no "Page not found" box)."""
GENERIC_PATH = "exp"
SAMPLES_PATH = "generations"
ALERTS_PATH = "notifications"
GOTO_KEY = "_rlmon_goto"
"""Session key a page sets to an experiment id to have the frame open that experiment's page."""


def serve_without_the_pages_folder_mode() -> None:
    """Serve ``streamlit_app.py`` as the app's frame from the first request on (not Streamlit's ``pages/``-folder
    mode).

    ``streamlit run streamlit_app.py`` finds the ``app`` in it and imports that file once as a module when the
    server starts (Streamlit's ``st.App`` mode); every visit then runs it as the script (``__main__``). Streamlit
    decides at its first session whether it serves the legacy ``pages/``-folder mode, and in that mode the first
    request of a process for an experiment's path (a shared link after a restart) got a "Page not found" box:
    the path was looked up among the stems of ``pages/*.py`` before the frame's ``st.navigation`` ran. Saying
    here, before any session exists, that the app has its own navigation removes that box.
    """
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # a Streamlit without the legacy mode
        return
    PagesManager.uses_pages_directory = False


@dataclass(frozen=True)
class Pages:
    """The app's pages: the menu's sections, and each experiment's page and url_path."""

    sections: dict[str, list[Any]]
    """Section title -> its ``st.Page`` list (``""``: the pages above every track)."""
    by_id: dict[str, Any]
    """Listed experiment id -> its ``st.Page``."""
    slugs: dict[str, str]
    """Experiment id (listed, unreadable or hidden) -> its page's url_path."""

    def experiment_of(self, url_path: str) -> str | None:
        """The experiment a page shows: by its url_path, or ``?id=`` on the generic experiment page."""
        if url_path == GENERIC_PATH:
            return st.query_params.get("id")
        by_slug = {slug: experiment_id for experiment_id, slug in self.slugs.items()}
        return by_slug.get(url_path)


def app_pages(folder: Path, visit: Visit, lang: str) -> Pages:
    """The overview, the samples page, the alerts page, one page per experiment grouped by track, and pages left
    out of the menu: one for ``?id=`` links, and one per hidden or unreadable experiment (a link to one says what
    became of it). ``folder`` holds the pages' files."""
    experiment_page = str(folder / "experiment.py")
    overview = st.Page(
        str(folder / "overview.py"), title=t("nav_overview", lang), icon=":material/dashboard:",
        url_path=OVERVIEW_PATH, default=True,
    )  # fmt: skip
    # What the model wrote: one page over every experiment (?id= picks one).
    samples = st.Page(
        str(folder / "samples.py"), title=t("nav_samples", lang), icon=":material/chat:", url_path=SAMPLES_PATH
    )
    # What was sent to the team's chat or email, and what is failing.
    alerts = st.Page(
        str(folder / "alerts.py"), title=t("nav_alerts", lang), icon=":material/notifications:", url_path=ALERTS_PATH
    )
    home = st.Page(
        str(folder / "overview.py"), title=t("nav_overview", lang), icon=":material/dashboard:", url_path=HOME_PATH,
        visibility="hidden",
    )  # fmt: skip
    sections: dict[str, list[Any]] = {"": [overview, samples, alerts, home]}
    unlisted = [*(item.id for item in visit.unreadable), *visit.hidden_ids]
    slugs = page_slugs([*visit.ids, *unlisted])
    pages: dict[str, Any] = {}
    # each track's section names its experiments as that track's view does (short, never two alike)
    by_track: dict[str, list[str]] = {}
    for view in visit.visible:
        by_track.setdefault(view.experiment.track, []).append(view.id)
    names = {key: value for ids in by_track.values() for key, value in visit.lineup(ids).names.items()}
    for view in visit.visible:
        # The menu renders titles and section names as markdown: names from folders and logs are escaped.
        page = st.Page(
            experiment_page, title=escape_markdown(names.get(view.id, view.label), limit=display.NAME_LIMIT),
            icon=STATUS_ICONS.get(view.status), url_path=slugs[view.id],
        )  # fmt: skip
        pages[view.id] = page
        shown_track = track_name(view.experiment.track, lang)
        sections.setdefault(escape_markdown(shown_track, limit=display.NAME_LIMIT), []).append(page)
    title = t("nav_experiment", lang)
    sections[""].append(st.Page(experiment_page, title=title, url_path=GENERIC_PATH, visibility="hidden"))
    for experiment_id in unlisted:
        sections[""].append(st.Page(experiment_page, title=title, url_path=slugs[experiment_id], visibility="hidden"))
    return Pages(sections=sections, by_id=pages, slugs=slugs)


def open_requested_page(pages: Pages) -> None:
    """Open the experiment a page asked for (a click in the overview's table, :data:`GOTO_KEY`): switched before
    any widget of this run exists, so the sidebar keeps its state."""
    goto = st.session_state.pop(GOTO_KEY, None)
    if goto in pages.by_id:
        st.switch_page(pages.by_id[goto])
