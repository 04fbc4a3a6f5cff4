"""The sidebar: the track and experiment pickers and the rules that keep them in step with the URL and the page,
the legend (redrawn with live refresh), language, live refresh, and where the logs come from."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import streamlit as st

from rlmon.app.guards import escape_markdown
from rlmon.app.loaders import Visit, load_catalog, load_views, styled_views
from rlmon.app.markup import chip_css, legend_html, roots_html
from rlmon.app.server import cache_folder_problem, log_cache
from rlmon.app.signin import Person, signed_in_block
from rlmon.app.state import lang
from rlmon.app.url import UrlField, choice_field, flag_field, list_field, number_field, read_url, write_url
from rlmon.app.widgets import language_picker
from rlmon.runs import experiment as experiment_tracks
from rlmon.settings import Settings, setting_range
from rlmon.text import LANGUAGES, display, language_from_locale, t, track_name
from rlmon.views import model
from rlmon.views.model import ExperimentView, Lineup

__all__ = [
    "ALL_TRACKS",
    "SidebarChoice",
    "default_track",
    "draw_sidebar",
    "follow_page",
    "in_track",
    "language",
    "legend_views",
    "link_notes",
    "live_legend",
    "read_selection",
    "track_choices",
    "write_selection",
]


def legend_views(
    roots: tuple[Path, ...], settings: Settings, ids: Sequence[str], *, lineup: Lineup | None = None
) -> tuple[ExperimentView, ...]:
    """The experiments ``ids`` as they are now (status, progress), in the order of ``ids``, styled as ``lineup``
    says (their view's names and colours); ids that are gone are left out. Reads through the shared loaders, so
    a refresh costs a stat of the files."""
    views = {view.id: view for view in load_views(load_catalog(roots).catalog, settings).views}
    found = [views[experiment_id] for experiment_id in ids if experiment_id in views]
    return tuple(found) if lineup is None else styled_views(found, lineup, settings)


def live_legend(
    roots: tuple[Path, ...],
    settings: Settings,
    ids: Sequence[str],
    lang: str,
    *,
    labels: Mapping[str, str],
    refresh_s: int | None,
    lineup: Lineup | None = None,
) -> None:
    """The sidebar legend (:func:`legend_html`) as a fragment of its own that redraws from fresh views every
    ``refresh_s`` seconds (None: only with the app).

    Live refresh reruns fragments only; without this the legend would keep the status and progress of the
    last full run while the page beside it moves on. Call it inside ``with st.sidebar:``.
    """
    wanted = tuple(ids)

    def draw() -> None:
        views = legend_views(roots, settings, wanted, lineup=lineup)
        if views:
            st.html(legend_html(views, lang, labels=labels))

    draw.__qualname__ = "sidebar_legend_fragment"
    st.fragment(draw, run_every=refresh_s)()


ALL_TRACKS = "*"
"""The track choice that lists every track."""
_UNKNOWN_IDS = "_rlmon_unknown_ids"
_HIDDEN_IDS = "_rlmon_hidden_ids"
_PAGE = "_rlmon_page"
_ALL_PICKED = "_rlmon_all_picked"
"""Session key: the experiments picked are the track's default, all of it, not the visitor's choice; they follow
the track as experiments appear (a new run, the rest of a root the read at start is still reading)."""
_TRACK_CHOSEN_EARLY = "_rlmon_track_chosen_early"
"""Session key: the track the first run chose for the visitor while the read at start had not read the whole root
(a track read before the others, or "all" while one track is known). Once the root is read it is chosen again,
unless the visitor or a link chose one, or picked experiments, meanwhile."""
_LIVE_CHOSEN = "_rlmon_live_chosen"
"""Session key: the visitor (the toggle) or a link (``live=``) turned live refresh on or off. Until then it is on
exactly when an experiment picked is running, and follows the picks (a run read or started after the first run)."""


def language(settings: Settings) -> tuple[UrlField, str]:
    """The visitor's language: the URL's, else the one chosen before, else the browser's (else the setting's)."""
    from_locale = language_from_locale(st.context.locale, default=settings.language)
    field = choice_field("app_lang", "lang", LANGUAGES, from_locale)
    read_url([field])
    st.session_state.setdefault("app_lang", from_locale)
    return field, lang()


def in_track(visit: Visit, track: str) -> list[str]:
    """The listed experiments of ``track`` (:data:`ALL_TRACKS`: all of them)."""
    return [view.id for view in visit.visible if track == ALL_TRACKS or view.experiment.track == track]


def track_choices(visit: Visit) -> list[str]:
    """The track picker's choices: every track, then all tracks (all first when there is only one)."""
    tracks = list(dict.fromkeys(view.experiment.track for view in visit.visible))
    return [*tracks, ALL_TRACKS] if len(tracks) > 1 else [ALL_TRACKS, *tracks]


def default_track(visit: Visit) -> str:
    """First screen: the newest track with runs to compare, else every track
    (:func:`rlmon.runs.experiment.default_track`)."""
    return experiment_tracks.default_track([view.experiment for view in visit.visible]) or ALL_TRACKS


def link_notes() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(unknown, hidden) experiment ids the last link asked for, until the visitor picks experiments."""
    return tuple(st.session_state.get(_UNKNOWN_IDS, [])), tuple(st.session_state.get(_HIDDEN_IDS, []))


def _forget_link_notes() -> None:
    st.session_state[_UNKNOWN_IDS] = []
    st.session_state[_HIDDEN_IDS] = []


def _on_pick() -> None:
    """The visitor picked experiments: the selection is theirs, and stays as they left it (so does the track: it is
    chosen again only while every experiment of it is picked)."""
    st.session_state[_ALL_PICKED] = False
    _forget_link_notes()


def _on_live_choice() -> None:
    st.session_state[_LIVE_CHOSEN] = True


def _pick_all(visit: Visit, track: str) -> None:
    st.session_state["app_experiments"] = in_track(visit, track)
    st.session_state[_ALL_PICKED] = True


def _on_track_change(visit: Visit) -> None:
    _pick_all(visit, st.session_state["app_track"])
    st.session_state.pop(_TRACK_CHOSEN_EARLY, None)
    _forget_link_notes()


def read_selection(visit: Visit) -> UrlField:
    """URL -> the sidebar's track and experiments (experiments first: they decide the track when a link names
    them); what a link asked for that is unknown or hidden is kept for the overview to say. Returns the track's
    URL field."""
    ids = visit.ids
    raw_ids = st.query_params.get_all("exp")
    linked = read_url([list_field("app_experiments", "exp", lambda value: value in ids)])
    if "exp" in linked:
        if linked["exp"]:  # the link's experiments are picked: the visitor's choice, not the track's default
            st.session_state[_ALL_PICKED] = False
        known = {*visit.hidden_ids, *(item.id for item in visit.unreadable)}
        st.session_state[_UNKNOWN_IDS] = [value for value in raw_ids if value not in ids and value not in known]
        st.session_state[_HIDDEN_IDS] = [value for value in raw_ids if value in visit.hidden_ids]
        chosen = [view for view in visit.visible if view.id in st.session_state.get("app_experiments", [])]
        chosen_tracks = {view.experiment.track for view in chosen}
        if chosen:
            st.session_state["app_track"] = chosen_tracks.pop() if len(chosen_tracks) == 1 else ALL_TRACKS
    choices, default = track_choices(visit), default_track(visit)
    track_field = choice_field("app_track", "track", choices, default)
    if read_url([track_field]).get("track"):
        st.session_state.pop(_TRACK_CHOSEN_EARLY, None)  # a link chose the track
    early = st.session_state.get(_TRACK_CHOSEN_EARLY)
    if early is not None and not visit.views.pending:
        # the whole root is read now: the track chosen from part of it is chosen again
        del st.session_state[_TRACK_CHOSEN_EARLY]
        if st.session_state.get("app_track") == early and st.session_state.get(_ALL_PICKED):
            st.session_state["app_track"] = default
    if st.session_state.get("app_track") not in choices:
        st.session_state["app_track"] = default
        if visit.views.pending:
            st.session_state[_TRACK_CHOSEN_EARLY] = default
    return track_field


def follow_page(visit: Visit, url_path: str, experiment_id: str | None) -> None:
    """Arriving at an experiment's page (menu, link, table click) shows its track with it picked; staying on
    the page leaves the sidebar to the visitor."""
    arrived = st.session_state.get(_PAGE) != url_path
    st.session_state[_PAGE] = url_path
    by_id = visit.by_id
    if not arrived or experiment_id not in by_id:
        return
    own_track = by_id[experiment_id].experiment.track
    if st.session_state.get("app_track") not in (ALL_TRACKS, own_track):
        st.session_state["app_track"] = own_track
        st.session_state.pop(_TRACK_CHOSEN_EARLY, None)
        _pick_all(visit, own_track)
        _forget_link_notes()
    elif "app_experiments" in st.session_state and experiment_id not in st.session_state["app_experiments"]:
        st.session_state["app_experiments"] = [*st.session_state["app_experiments"], experiment_id]


@dataclass(frozen=True)
class SidebarChoice:
    """What the visitor chose in the sidebar."""

    track: str
    selected: tuple[ExperimentView, ...]
    """The experiments picked, in catalog order."""
    live: bool
    refresh_s: int
    url_fields: tuple[UrlField, ...]
    """The URL fields of the live refresh choices."""
    lineup: Lineup = field(default_factory=Lineup)
    """The names and colours of the track's experiments (:meth:`Visit.lineup`): what every page shows them by."""


def draw_sidebar(visit: Visit, lang: str, person: Person | None = None) -> SidebarChoice:
    """The whole sidebar: track, experiments, their legend, language, live refresh, where the logs come from, and
    who is signed in (``person``, when sign-in is on) with a sign-out button."""
    with st.sidebar:
        st.markdown(f"### :material/monitoring: rlmon\n{t('app_tagline', lang)}")
        if person is not None:
            signed_in_block(person, lang)
        track, selected, labels, lineup = _experiment_pickers(visit, lang)
        any_running = any(view.status == "running" for view in selected)
        live_field = flag_field("app_live", "live", default=any_running)
        low, high = setting_range("refresh_s")
        every_field = number_field(
            "app_refresh_s", "every", low=low, high=high, default=visit.settings.refresh_s, integer=True
        )
        if read_url([live_field, every_field]).get("live"):
            st.session_state[_LIVE_CHOSEN] = True  # a link chose it
        if not st.session_state.get(_LIVE_CHOSEN):
            st.session_state["app_live"] = any_running
        st.session_state.setdefault("app_refresh_s", visit.settings.refresh_s)
        # The legend redraws itself with every live refresh (the rest of the sidebar waits for a full run).
        legend_every = int(st.session_state["app_refresh_s"]) if st.session_state["app_live"] else None
        live_legend(
            visit.resolved.roots, visit.settings, [view.id for view in selected], lang, labels=labels,
            refresh_s=legend_every, lineup=lineup,
        )  # fmt: skip
        st.divider()
        live, refresh_s = _language_and_refresh(lang)
        st.divider()
        _where_logs_come_from(visit, lang)
    return SidebarChoice(
        track=track, selected=selected, live=live, refresh_s=refresh_s, url_fields=(live_field, every_field),
        lineup=lineup,
    )  # fmt: skip


def _experiment_pickers(visit: Visit, lang: str) -> tuple[str, tuple[ExperimentView, ...], dict[str, str], Lineup]:
    """The track and experiment pickers: (track, the experiments picked, the label of each experiment offered, the
    lineup of the experiments offered: the view every page shows)."""
    track = st.selectbox(
        t("sidebar_track", lang),
        track_choices(visit),
        key="app_track",
        format_func=lambda value: (
            t("sidebar_all_tracks", lang)
            if value == ALL_TRACKS
            else display.display_text(track_name(value, lang), limit=display.NAME_LIMIT)
        ),
        on_change=_on_track_change,
        args=(visit,),
        persist_state="session",
    )
    options = in_track(visit, track)
    # The track's experiments are one view: their names and colours are computed once for it (never two alike).
    lineup = visit.lineup(options)
    by_id = {view.id: view for view in styled_views([visit.by_id[value] for value in options], lineup, visit.settings)}
    if "app_experiments" not in st.session_state or st.session_state.get(_ALL_PICKED):
        _pick_all(visit, track)
    st.session_state["app_experiments"] = [value for value in st.session_state["app_experiments"] if value in options]
    # One labelling for chips, legend, charts and tables: "E1 · GRPO", plus " · 2B" over several tracks.
    labels = model.display_labels([by_id[value] for value in options], lang)
    chips = {value: f"{labels[value]} {model.STATUS_GLYPHS.get(by_id[value].status, '')}" for value in options}
    picked = st.multiselect(
        t("sidebar_experiments", lang),
        options,
        key="app_experiments",
        format_func=lambda value: chips.get(value, value),
        help=t("sidebar_experiments_help", lang),
        on_change=_on_pick,
        persist_state="session",
    )
    css = chip_css([by_id[value] for value in options], chips)
    if css:
        st.html(f"<style>{css}</style>")
    return track, tuple(by_id[value] for value in options if value in picked), labels, lineup


def _language_and_refresh(lang: str) -> tuple[bool, int]:
    """The language picker and the live refresh toggle and period: (live, refresh_s)."""
    language_picker(lang)
    live = st.toggle(
        t("sidebar_live", lang), key="app_live", help=t("sidebar_live_help", lang), persist_state="session",
        on_change=_on_live_choice,
    )  # fmt: skip
    low, high = setting_range("refresh_s")
    refresh_s = st.number_input(
        t("sidebar_refresh_s", lang), min_value=low, max_value=high, step=1, key="app_refresh_s",
        disabled=not live, persist_state="session",
    )  # fmt: skip
    return bool(live), int(refresh_s)


def _where_logs_come_from(visit: Visit, lang: str) -> None:
    """A cache folder that cannot be written, and the log roots (or that this is the demo)."""
    cache_dir = visit.settings.cache_dir
    unusable = cache_folder_problem(cache_dir)
    cache_problem = log_cache(visit.settings).write_problem
    if unusable:
        st.warning(
            t("notice_cache_unusable", lang, folder=escape_markdown(str(cache_dir)), reason=escape_markdown(unusable))
        )
    elif cache_problem:
        st.warning(t("notice_cache_unwritable", lang, problem=escape_markdown(cache_problem)))
    if visit.demo:
        st.caption(t("sidebar_demo", lang))
    else:
        st.html(roots_html(visit.resolved.labels, t("sidebar_roots", lang)))


def write_selection(visit: Visit, lang_field: UrlField, track_field: UrlField, choice: SidebarChoice) -> None:
    """The sidebar's choices -> the URL (all experiments of the track, the default selection, stay out of it)."""
    ids = visit.ids
    exp_field = list_field("app_experiments", "exp", lambda value: value in ids, default=in_track(visit, choice.track))
    write_url([lang_field, track_field, exp_field, *choice.url_fields])
