"""Cached loaders shared by every session: discovery of the log roots and the experiments' views.

* :func:`load_catalog` - discovery of the log roots, kept a few seconds so new experiments and files appear
  without a restart;
* :func:`load_views` - each experiment read and summarised once per file identity (path, size, mtime, inode,
  change time) and kept until its files change; frames are never used as cache keys;
* :func:`read_at_start` - the same loaders, run in the background while the server starts.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import threading
import time
import urllib.parse
from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import streamlit as st

from rlmon.app import digests, server
from rlmon.app.digests import digest, headlines, view_signals
from rlmon.app.guards import LOG, escape_markdown
from rlmon.app.server import (
    ResolvedRoots,
    app_settings,
    configured_roots,
    has_object_roots,
    log_cache,
    on_readers,
    warm_table_modules,
)
from rlmon.errors import CatalogError, RlmonError
from rlmon.logs.cache import LogCache
from rlmon.logs.lines import file_identity
from rlmon.runs.experiment import retimed
from rlmon.runs.loading import (
    COLOR_BOOK_NAME,
    ColorBook,
    catalog_colors,
    let_go_of_steps,
    load_experiment,
    peek_track,
)
from rlmon.settings import Settings
from rlmon.sources.discovery import Catalog, ExperimentRef, discover_experiments
from rlmon.text import t
from rlmon.text.messages import unknown_track
from rlmon.views import model
from rlmon.views.model import ExperimentView, Lineup

__all__ = [
    "CATALOG_TTL_S",
    "LoadedCatalog",
    "LoadedViews",
    "Unreadable",
    "Visit",
    "load_catalog",
    "load_views",
    "read_at_start",
    "read_visit",
    "styled_views",
    "view_lineup",
]

CATALOG_TTL_S = 3.0
"""Discovery is repeated at most this often; a new experiment or file shows within this time."""
_SERIALS = itertools.count(1)


@dataclass(frozen=True)
class LoadedCatalog:
    """Discovery of the configured roots: the catalog plus the roots that could not be used."""

    catalog: Catalog
    root_errors: tuple[RlmonError, ...] = ()


@st.cache_resource(show_spinner=False, ttl=CATALOG_TTL_S, max_entries=16)
def load_catalog(roots: tuple[Path, ...]) -> LoadedCatalog:
    """Discover the experiments under ``roots``; a root that vanished or cannot be listed is reported, the
    others are still used."""
    usable: list[Path] = []
    errors: list[RlmonError] = []
    for root in roots:
        if not root.exists():
            errors.append(CatalogError("log root does not exist", path=root))
        elif not root.is_dir():
            errors.append(CatalogError("log root is not a folder", path=root))
        elif not os.access(root, os.R_OK | os.X_OK):
            errors.append(CatalogError("log root cannot be listed (permission denied)", path=root))
        else:
            usable.append(root)
    try:
        catalog = discover_experiments(usable)
    except CatalogError as error:  # a root vanished between the check and the walk
        errors.append(error)
        catalog = Catalog(roots=tuple(usable), experiments=())
    return LoadedCatalog(catalog=catalog, root_errors=tuple(errors))


def _build_view(
    ref: ExperimentRef, cache: LogCache, settings: Settings, now: float, files: tuple[Any, ...]
) -> ExperimentView:
    """The view of ``ref`` as its ``files`` are now.

    A server whose log cache lets frames go (``frame_memory_mb``, a cache folder) keeps no view's frame: the
    view's headline numbers and signals are computed from the frame as it is read, then the frame is let go and
    read back through the cache when a chart or a table asks for its columns; what the pages show of the view
    without its frame is kept in the cache folder (:func:`digests.write_digest`), where a restarted server finds it
    (:func:`digests.read_digest`) instead of reading the logs."""
    kept = _kept_view(ref, cache, settings, now, files)
    if kept is not None:
        return kept
    bounded = _bounded(cache)
    experiment = load_experiment(ref, cache, now=now, settings=settings)
    view = model.view_of(ref, experiment, serial=next(_SERIALS))
    if not bounded:
        return view
    assert cache.cache_dir is not None
    try:
        digest(view, settings)  # from the frame in hand
    except Exception:  # the page meets (and shows) the same problem; nothing is kept for a restart
        LOG.debug("looking at %s after reading it failed", ref.id, exc_info=True)
        return dataclasses.replace(view, experiment=let_go_of_steps(experiment, cache), held_steps=None)
    view = dataclasses.replace(view, experiment=let_go_of_steps(experiment, cache), held_steps=None)
    digests.write_digest(cache.cache_dir, view, settings, key=digests.digest_key(ref, files, settings), read_at=now)
    return view


def _bounded(cache: LogCache) -> bool:
    """Whether views let their frames go (a log cache with a folder and a memory limit)."""
    return cache.cache_dir is not None and cache.memory_bytes is not None


def _kept_view(
    ref: ExperimentRef, cache: LogCache, settings: Settings, now: float, files: tuple[Any, ...]
) -> ExperimentView | None:
    """The view the cache folder keeps for ``ref`` as its ``files`` are now (:func:`digests.read_digest`), else
    None; no log is read."""
    if not _bounded(cache):
        return None
    key = digests.digest_key(ref, files, settings)
    return digests.read_digest(cache, ref, settings, key=key, now=now, serial=next(_SERIALS))


_STYLES_KEPT = 8
"""Styles kept per experiment (its colour in the catalog, its colour and name in the views visitors look at: a
track, all tracks), the oldest dropped first."""

_READ_LOCK = threading.Lock()
"""One reader of the catalog at a time (see :func:`load_views`)."""


@dataclass(frozen=True)
class Unreadable:
    """An experiment that could not be read at all: the others are shown, its page says why."""

    id: str
    path: str
    """The experiment's folder."""
    reason: str
    """What went wrong: an :class:`RlmonError`'s own words, else only the kind of failure (the traceback goes
    to the server log)."""


def _unreadable(ref: ExperimentRef, error: Exception) -> Unreadable:
    if isinstance(error, RlmonError):
        reason = error.reason if error.path == str(ref.path) else error.describe()
    else:
        reason = type(error).__name__
    if not isinstance(error, RlmonError) or error.__cause__ is not None:
        LOG.error("experiment %s (%s) cannot be read", ref.id, ref.path, exc_info=error)
    return Unreadable(id=ref.id, path=str(ref.path), reason=reason)


@dataclass(frozen=True)
class _Memoised:
    ref: ExperimentRef
    """The listing the files were looked at for."""
    files: tuple[Any, ...]
    files_at: float
    """When (``time.monotonic()``)."""
    identity: tuple[Any, ...]
    minute: int
    view: ExperimentView | Unreadable


_Pending = tuple[tuple[str, str], tuple[Any, ...], float, tuple[Any, ...], int]
"""What a view is memoised under: key, files, when they were looked at, identity, minute."""


class _ViewMemo:
    """Experiment id -> :class:`_Memoised`: a view rebuilt only when a file of the experiment changes (its
    :func:`~rlmon.logs.lines.file_identity`, looked at again with each new listing of the catalog and at least every
    :data:`CATALOG_TTL_S`, so a log growing every second is not read again on every run), or - for a run whose
    status depends on the clock (running, stalled, not started) - moved to the current minute, so a quiet run can
    turn 'stalled' (:func:`rlmon.runs.experiment.retimed`: nothing is read; the view keeps its ``version``, so its
    numbers and the signals found in its steps are not computed again). A finished or crashed run stays as it is.
    Holds one view per experiment, not per version.

    An experiment that cannot be read is kept as :class:`Unreadable` until its files change, not read again
    on every run.
    """

    _CLOCK_STATUSES = frozenset({"running", "stalled", "not started"})

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._views: dict[tuple[str, str], _Memoised] = {}
        self._recolored: dict[str, dict[tuple[int, tuple[str, str, int]], ExperimentView]] = {}

    def get(self, ref: ExperimentRef, cache: LogCache, settings: Settings, now: float) -> ExperimentView | Unreadable:
        found, pending = self._lookup(ref, settings, now)
        if found is not None:
            return found
        key, files, files_at, identity, minute = pending
        built: ExperimentView | Unreadable
        try:
            built = _build_view(ref, cache, settings, now, files)
        except Exception as error:  # one experiment never takes the others (or the app) down
            built = _unreadable(ref, error)
        with self._lock:
            self._views[key] = _Memoised(ref, files, files_at, identity, minute, built)
        return built

    def peek(self, ref: ExperimentRef, settings: Settings, now: float) -> ExperimentView | Unreadable | None:
        """The view :meth:`get` would return without reading anything, else None (it must be read)."""
        return self._lookup(ref, settings, now)[0]

    def kept(self, ref: ExperimentRef, cache: LogCache, settings: Settings, now: float) -> ExperimentView | None:
        """The view :meth:`get` would return when it needs no log read: memoised, or kept in the cache folder for
        the files as they are now (then memoised); else None."""
        found, pending = self._lookup(ref, settings, now)
        if found is not None:
            return found if isinstance(found, ExperimentView) else None
        key, files, files_at, identity, minute = pending
        try:
            view = _kept_view(ref, cache, settings, now, files)
        except Exception:  # a digest that cannot be used: the logs are read
            LOG.debug("the kept view of %s cannot be used", ref.id, exc_info=True)
            return None
        if view is not None:
            with self._lock:
                self._views[key] = _Memoised(ref, files, files_at, identity, minute, view)
        return view

    def _lookup(
        self, ref: ExperimentRef, settings: Settings, now: float
    ) -> tuple[ExperimentView | Unreadable | None, _Pending]:
        """(the memoised view while it holds, else None; what a new one is memoised under)."""
        key = (str(ref.root), ref.id)
        with self._lock:
            known = self._views.get(key)
        clock = time.monotonic()
        if known is not None and known.ref is ref and clock - known.files_at < CATALOG_TTL_S:
            files, files_at = known.files, known.files_at  # the same listing, its files looked at just now
        else:
            files, files_at = tuple(file_identity(item.path) for item in ref.files), clock
        identity = (str(ref.path), files, ref.overrides, settings.stall_factor, settings.stall_min_s)
        minute = int(now // 60)
        pending = (key, files, files_at, identity, minute)
        if known is not None and known.identity == identity:
            view = known.view
            if (
                isinstance(view, Unreadable)
                or known.minute == minute
                or view.experiment.status not in self._CLOCK_STATUSES
            ):
                if known.ref is not ref or known.files_at != files_at:
                    with self._lock:
                        self._views[key] = dataclasses.replace(known, ref=ref, files=files, files_at=files_at)
                return view, pending
            # the files are as they were: only the clock moved (a running run may have stalled), and nothing is
            # read to say so - a visit while the read at start reads a large root finds the runs read in an
            # earlier minute as read, not as waiting for the read
            experiment = retimed(
                view.experiment, now=now, stall_factor=settings.stall_factor, stall_min_s=settings.stall_min_s
            )
            moved = dataclasses.replace(view, experiment=experiment, serial=next(_SERIALS))
            with self._lock:
                self._views[key] = _Memoised(ref, files, files_at, identity, minute, moved)
            return moved, pending
        return None, pending

    def recolored(self, view: ExperimentView, color: str) -> ExperimentView:
        """``view`` with the colour the whole catalog assigned it (:meth:`restyled`)."""
        return self.restyled(view, (color, view.name, view.dash))

    def restyled(self, view: ExperimentView, style: tuple[str, str, int]) -> ExperimentView:
        """``view`` with ``style`` (colour, name, dash): the same object while nothing changes, else one kept per
        (version, style) - a new serial, so memoised charts are redrawn - shared by every session showing it so
        (a visitor on a track and one on all tracks each find theirs)."""
        if (view.color, view.name, view.dash) == style:
            return view
        key = (view.serial, style)
        with self._lock:
            known = self._recolored.get(view.id, {})
            if key in known:
                return known[key]
        color, name, dash = style
        experiment = view.experiment if color == view.color else dataclasses.replace(view.experiment, color=color)
        fresh = dataclasses.replace(view, experiment=experiment, name=name, dash=dash, serial=next(_SERIALS))
        with self._lock:
            kept = self._recolored.setdefault(view.id, {})
            while len(kept) >= _STYLES_KEPT:  # the oldest goes (an older version's, or a view no one shows now)
                del kept[next(iter(kept))]
            kept[key] = fresh
        return fresh

    def forget_missing(self, keys: set[tuple[str, str]]) -> None:
        with self._lock:
            for key in [key for key in self._views if key not in keys]:
                del self._views[key]
            ids = {key[1] for key in keys}
            for experiment_id in [item for item in self._recolored if item not in ids]:
                del self._recolored[experiment_id]


@st.cache_resource(show_spinner=False)
def _view_memo(cache_dir: Path) -> _ViewMemo:
    return _ViewMemo()


@st.cache_resource(show_spinner=False)
def _color_book(cache_dir: Path) -> ColorBook:
    """The colours handed out to experiments, one book per cache folder (kept there across restarts)."""
    return ColorBook(cache_dir / COLOR_BOOK_NAME)


@dataclass(frozen=True)
class LoadedViews:
    views: tuple[ExperimentView, ...]
    errors: tuple[Unreadable, ...] = ()
    """The experiments that could not be read at all, in catalog order."""
    pending: int = 0
    """Experiments of the catalog the read at start has not read yet (they are left out until it has)."""


@dataclass
class _StartRead:
    """The read at start of a server (:func:`read_at_start`), while it runs: a visit waits for ``first_screen`` (the
    experiments of the track the first screen shows are read), not for the whole root."""

    first_screen: threading.Event = field(default_factory=threading.Event)
    done: threading.Event = field(default_factory=threading.Event)


_START_READS: dict[Path, _StartRead] = {}
"""Cache folder -> the read at start in progress on it (one server: one)."""
REST_BATCH = 4
"""Experiments the read at start hands the reader pool at a time once the first screen's are read."""
FIRST_SCREEN_WAIT_S = 120.0
"""The longest a visit waits for the read at start to read the experiments of its first screen."""


def load_views(catalog: Catalog, settings: Settings, *, complete: bool = False) -> LoadedViews:
    """Every experiment of the catalog, read through the shared cache (see :class:`_ViewMemo`), each with its
    own colour (:func:`~rlmon.runs.loading.catalog_colors`).

    Experiments are read in parallel, one per core (the parser's polars work runs outside the GIL); the result
    is the same as reading them one after another, and one that cannot be read is :class:`Unreadable` alone.
    Each experiment read is looked at on its reader's core as soon as it is read (:func:`_digested`).

    While the read at start runs, a visit waits for the experiments of the first screen only, unless
    ``complete``: a visit whose address names experiments (a page of one, ``exp=``) waits for all of them.
    """
    cache = log_cache(settings)
    memo = _view_memo(settings.cache_dir)
    now = time.time()
    found_all = [memo.peek(ref, settings, now) for ref in catalog.experiments]
    start = _START_READS.get(settings.cache_dir)
    if start is not None and any(found is None for found in found_all):
        # The read at start reads the root, the experiments of the first screen first: show them once they are
        # read, and the others as they come (a large root takes a while), rather than wait for all.
        awaited = start.done if complete else start.first_screen
        if not awaited.is_set():
            warm_table_modules()
            awaited.wait(timeout=FIRST_SCREEN_WAIT_S)
        found_all = [memo.peek(ref, settings, now) for ref in catalog.experiments]
        if not start.done.is_set():
            return _loaded(catalog, settings, memo, found_all)
    if any(found is None for found in found_all):
        if _READ_LOCK.locked():
            warm_table_modules()  # the wait for the reads in progress pays for them, not the first screen
        # One reader at a time: a session arriving while another (or the start-up read) reads the same logs
        # waits for those reads instead of parsing the same files a second time, then finds them memoised.
        with _READ_LOCK:
            found_all = [
                found if found is not None else memo.peek(ref, settings, now)
                for ref, found in zip(catalog.experiments, found_all, strict=True)
            ]
            # only what must be read goes to the pool
            missing = [index for index, found in enumerate(found_all) if found is None]
            refs = [catalog.experiments[index] for index in missing]
            read: list[ExperimentView | Unreadable] = []
            if refs:
                with server.WORK:
                    read = on_readers(lambda ref: _digested(memo.get(ref, cache, settings, now), settings), refs)
            for index, view in zip(missing, read, strict=True):
                found_all[index] = view
    memo.forget_missing({(str(ref.root), ref.id) for ref in catalog.experiments})
    return _loaded(catalog, settings, memo, found_all)


def _loaded(
    catalog: Catalog, settings: Settings, memo: _ViewMemo, found_all: Sequence[ExperimentView | Unreadable | None]
) -> LoadedViews:
    """The views found (None: not read yet), each with the colour the whole catalog assigns it."""
    views = [found for found in found_all if isinstance(found, ExperimentView)]
    errors = [found for found in found_all if isinstance(found, Unreadable)]
    # Colours are handed out over the whole catalog, so no two experiments in view share one; the book keeps
    # each experiment's colour while others start and go.
    colors = catalog_colors(catalog, [view.experiment for view in views], book=_color_book(settings.cache_dir))
    views = [memo.recolored(view, colors.get(view.id, view.color)) for view in views]
    pending = sum(found is None for found in found_all)
    return LoadedViews(views=tuple(views), errors=tuple(errors), pending=pending)


_LINEUPS_KEPT = 256


@st.cache_resource(show_spinner=False)
def _lineups() -> dict[tuple[Any, ...], Lineup]:
    """Lineups by the identity of their views (see :func:`view_lineup`); emptied when it holds too many."""
    return {}


_LINEUP_LOCK = threading.Lock()


def view_lineup(views: Sequence[ExperimentView]) -> Lineup:
    """The names, colours and dashes of the experiments one view shows together (:func:`rlmon.views.model.lineup_of`),
    computed once per set of experiments (their ids, labels, tracks and catalog colours) and shared by every
    session. ``views`` are the catalog's (:func:`load_views`), in view order."""
    key = tuple(
        (view.id, view.experiment.label, view.experiment.track, view.color, view.experiment.hidden,
         view.experiment.order, bool(view.ref.overrides.color))
        for view in views
    )  # fmt: skip
    kept = _lineups()
    with _LINEUP_LOCK:
        found = kept.get(key)
    if found is None:
        found = model.lineup_of(views)
        with _LINEUP_LOCK:
            if len(kept) >= _LINEUPS_KEPT:
                kept.clear()
            kept[key] = found
    return found


def styled_views(views: Sequence[ExperimentView], lineup: Lineup, settings: Settings) -> tuple[ExperimentView, ...]:
    """``views`` with the name, colour and dash ``lineup`` gives each (the ones it does not hold as they are); a
    restyled view is kept and shared (:meth:`_ViewMemo.restyled`), so charts memoised for it are found again."""
    memo = _view_memo(settings.cache_dir)
    out = []
    for view in views:
        name = lineup.names.get(view.id)
        style = lineup.styles.get(view.id)
        out.append(view if name is None or style is None else memo.restyled(view, (style[0], name, style[1])))
    return tuple(out)


def read_at_start(argv: Sequence[str], env: Mapping[str, str]) -> threading.Thread:
    """Start reading the configured logs in the background as the server starts, so the first visitor after a
    restart finds them read (and each experiment's signals and headline numbers computed) instead of waiting
    for every log to be parsed. The same cached loaders a visit uses; a visit that comes while this runs waits
    for the reads in progress (:func:`load_views`, :func:`view_signals`) rather than repeating them. The cache
    folder is written once the server has had a quiet moment (the first screen drawn), not during the read. A
    failure is logged and left to the first visit, which says what went wrong.

    A server that lets frames go (:func:`_bounded`) first takes what its cache folder keeps of each experiment
    (no log read), then reads the rest, the experiments of the track the first screen shows first
    (:func:`_first_screen_first`): a visit waits for those only, and the others appear as they are read."""
    start: _StartRead | None = None
    try:
        settings = app_settings(argv, env)
        if _bounded(log_cache(settings)):
            # known before the first visit can come: it waits for the first screen's experiments, not all of them
            start = _START_READS.setdefault(settings.cache_dir, _StartRead())
    except Exception:  # the read at start meets (and logs) the same problem
        start = None
    thread = threading.Thread(
        target=_read_at_start, args=(list(argv), dict(env), start), name="rlmon-start", daemon=True
    )
    thread.start()
    return thread


def _read_at_start(argv: list[str], env: dict[str, str], start: _StartRead | None) -> None:
    started = time.perf_counter()
    cache = None
    try:
        settings = app_settings(argv, env)
        cache = log_cache(settings)
        catalog = load_catalog(configured_roots(settings).roots).catalog
        # the cache folder is written once the first screen is drawn (see _write_when_quiet)
        with cache.putting_off_writes():
            if start is not None:
                try:
                    _first_screen_first(catalog, settings, cache, start)
                finally:
                    _finish(start)  # the load_views below sees every experiment read
            views = load_views(catalog, settings).views
        view_signals(views, settings)
        headlines(views)
    except Exception:  # the visits will meet (and show) the same problem
        LOG.warning("reading the logs at start failed; the first visit reads them", exc_info=True)
        return
    finally:
        if start is not None:  # whatever happened: no visit waits for it any more
            _finish(start)
        warm_table_modules()
        if cache is not None:
            threading.Thread(target=_write_when_quiet, args=(cache,), name="rlmon-start-write", daemon=True).start()
    LOG.info("read %d experiments at start in %.1f s", len(views), time.perf_counter() - started)


def _finish(start: _StartRead) -> None:
    start.first_screen.set()
    start.done.set()
    for folder in [folder for folder, known in _START_READS.items() if known is start]:
        _START_READS.pop(folder, None)


def _first_screen_first(
    catalog: Catalog, settings: Settings, cache: LogCache, start: _StartRead
) -> threading.Thread | None:
    """Take what the cache folder keeps of each experiment, then read the others: those of the track the first
    screen will show (:func:`_likely_first_track`) first, newest first, setting ``start.first_screen`` once they
    are read; then the rest, newest first. When the cache folder keeps every experiment (a restart), the frames of
    the first screen's are read on a thread of their own once the first page is sent (the thread returned)."""
    memo = _view_memo(settings.cache_dir)
    now = time.time()
    refs = list(catalog.experiments)
    with server.WORK:
        kept = on_readers(lambda ref: memo.kept(ref, cache, settings, now), refs)
    missing = [ref for ref, view in zip(refs, kept, strict=True) if view is None]
    if not missing:
        # a restart: every experiment is listed; the frames of the first screen's are read from the cache folder
        # while the first visitor's browser connects, not when its charts ask for them
        known = [view for view in kept if view is not None]
        first = _likely_first_track(known, [], [])
        start.first_screen.set()
        warm_table_modules()  # the first screen needs them, before any visitor connects
        ahead = [view for view in known if first is None or view.experiment.track == first]
        reader = threading.Thread(
            target=_warm_frames_after_first_page, args=(ahead, cache), name="rlmon-start-frames", daemon=True
        )
        reader.start()
        return reader
    tracks = on_readers(_guessed_track, missing)
    first = _likely_first_track([view for view in kept if view is not None], missing, tracks)
    ahead = [ref for ref, track in zip(missing, tracks, strict=True) if first is None or track == first]
    rest = [ref for ref, track in zip(missing, tracks, strict=True) if not (first is None or track == first)]

    def read(ref: ExperimentRef) -> ExperimentView | Unreadable:
        return _digested(memo.get(ref, cache, settings, now), settings)

    with server.WORK:
        on_readers(read, sorted(ahead, key=_newest_first))
    start.first_screen.set()
    LOG.info("read the %d experiments of the first screen; reading %d more", len(ahead), len(rest))
    rest.sort(key=_newest_first)
    for index in range(0, len(rest), REST_BATCH):
        # a few at a time: what the visits ask of the reader pool meanwhile waits for a batch, not for all of them;
        # and as work (server.WORK): the samples scan and the charts built ahead wait for the whole read, whose
        # cores they took on a cold start (a 400-experiment root was read in 30.7-34.5 s so, 34.8-36.5 s before)
        with server.WORK:
            on_readers(read, rest[index : index + REST_BATCH])
    return None


def _warm_frames_after_first_page(
    views: Sequence[ExperimentView], cache: LogCache, *, sent: threading.Event | None = None
) -> None:
    """:func:`_warm_frames` once the first visit has its page (``sent``, :data:`server.PAGE_SENT` by default), or
    after :data:`server.PAGE_SENT_LIMIT_S` with no visit: the first screen of a root this size is its table, which
    needs no frame, and reading 20 frames while its run builds it put 0.3-1.0 s on a restart's first screen."""
    (server.PAGE_SENT if sent is None else sent).wait(server.PAGE_SENT_LIMIT_S)
    _warm_frames(views, cache)


def _warm_frames(views: Sequence[ExperimentView], cache: LogCache) -> None:
    """Read the frames of ``views`` (newest first) into ``cache``, a few at a time, while they take at most half of
    its ``frame_memory_mb``: the frames the first screen's charts will ask for, and room for the others."""
    limit = (cache.memory_bytes or 0) / 2
    ordered = sorted(views, key=lambda view: -(view.experiment.last_modified or 0.0))
    for index in range(0, len(ordered), REST_BATCH):
        if cache.held_bytes >= limit:
            return
        try:
            on_readers(lambda view: view.experiment.read_steps([]), ordered[index : index + REST_BATCH])
        except Exception:  # only a head start: the charts read (and say what is wrong) as they would have
            LOG.debug("reading the first screen's frames ahead failed", exc_info=True)
            return


def _newest_first(ref: ExperimentRef) -> float:
    return -(ref.last_modified or 0.0)


def _guessed_track(ref: ExperimentRef) -> str:
    try:
        return peek_track(ref) or unknown_track(ref.id)
    except Exception:  # a guess only: the read says what is wrong with the log
        return unknown_track(ref.id)


def _likely_first_track(
    kept: Sequence[ExperimentView], missing: Sequence[ExperimentRef], tracks: Sequence[str]
) -> str | None:
    """The track :func:`rlmon.runs.experiment.default_track` will likely find once everything is read (None: all
    tracks), from the experiments kept and the tracks guessed for the others (each taken to have logged steps)."""
    entries = [
        (view.experiment.track, view.experiment.last_modified or 0.0, view.experiment.steps_done > 0)
        for view in kept
        if not view.experiment.hidden
    ]
    entries += [
        (track, ref.last_modified or 0.0, True)
        for ref, track in zip(missing, tracks, strict=True)
        if not ref.overrides.hidden
    ]
    names = list(dict.fromkeys(track for track, _, _ in entries))
    if len(names) < 2:
        return None
    newest = {name: max(when for track, when, _ in entries if track == name) for name in names}
    compared = [name for name in names if sum(steps for track, _, steps in entries if track == name) >= 2]
    return max(compared, key=lambda name: (newest[name], name)) if compared else None


def _write_when_quiet(cache: LogCache) -> None:
    """Write what the read at start put off, once the server has been quiet for a moment (:data:`server.WORK`: the
    first screen is drawn), or after server.WORK's limit at the latest."""
    server.WORK.wait()
    try:
        written = cache.write_put_off()
    except Exception:  # a cache that cannot be written costs a parse after a restart, nothing else
        LOG.warning("writing the logs read at start to the cache failed", exc_info=True)
        return
    LOG.info("wrote %d logs read at start to the cache", written)


def _digested(found: ExperimentView | Unreadable, settings: Settings) -> ExperimentView | Unreadable:
    """``found``, with its headline numbers and signals computed while the other experiments are still being read.

    Every page shows them for each experiment it lists, so computing them here, on the reader's core, overlaps
    that Python work with the other reads' polars work, instead of adding it after the last read (on a cold
    start of 50 experiments, 1.1-1.5 s of a first screen). A failure is left to the page, which computes them
    again and says what went wrong.
    """
    if isinstance(found, ExperimentView):
        try:
            digest(found, settings)
        except Exception:  # the page meets (and shows) the same problem
            LOG.debug("looking at %s after reading it failed", found.id, exc_info=True)
    return found


@dataclass(frozen=True)
class Visit:
    """What one run of the frame reads: the roots as folders, their catalog and views, and what is listed.

    Hidden experiments (``rlmon.toml``) are not listed; a link to one says so (the pages check ``hidden_ids``
    first). Unreadable ones are listed by their page only (a link to one says why).
    """

    settings: Settings
    resolved: ResolvedRoots
    loaded: LoadedCatalog
    views: LoadedViews
    hidden_ids: tuple[str, ...]
    unreadable: tuple[Unreadable, ...]
    """The experiments that could not be read, hidden ones left out."""
    visible: tuple[ExperimentView, ...]
    """The experiments listed in the menu and the sidebar, in catalog order."""

    @property
    def demo(self) -> bool:
        return not self.settings.log_roots

    @property
    def ids(self) -> list[str]:
        return [view.id for view in self.visible]

    @property
    def by_id(self) -> dict[str, ExperimentView]:
        return {view.id: view for view in self.visible}

    def lineup(self, ids: Sequence[str]) -> Lineup:
        """The :class:`~rlmon.views.model.Lineup` of the listed experiments ``ids`` shown together (a track, or
        all of them), in catalog order."""
        wanted = set(ids)
        return view_lineup([view for view in self.visible if view.id in wanted])


def _names_experiments() -> bool:
    """Whether this visit's address names experiments: a page other than the overview at the app's root (an
    experiment's page, the samples page), or an ``exp=``/``id=`` selection. Such a visit is shown every experiment
    it names, so it waits for the read at start to finish rather than for the first screen only."""
    if st.query_params.get_all("exp") or st.query_params.get_all("id"):
        return True
    try:
        url = st.context.url or ""
    except Exception:  # no address (a script run without a browser): nothing named
        return False
    path = urllib.parse.urlsplit(url).path.strip("/")
    base = str(st.get_option("server.baseUrlPath") or "").strip("/")
    if base and (path == base or path.startswith(base + "/")):
        path = path[len(base) :].strip("/")
    return bool(path)


def read_visit(settings: Settings, lang: str) -> Visit:
    """Resolve the roots (saying so while object storage syncs), list and read them through the shared loaders.

    A demo that cannot be written to the cache folder is said on the page (the visit goes on without it); any
    other failure to resolve configured roots is raised.
    """
    demo = not settings.log_roots
    resolved = ResolvedRoots(roots=())
    try:
        # s3:// roots -> their mirrors in the cache folder (the first sync downloads every log: say so)
        with st.spinner(t("object_syncing", lang)) if has_object_roots(settings) else nullcontext():
            resolved = configured_roots(settings)
    except (RlmonError, OSError) as error:
        if not demo:
            raise
        st.error(t("error_demo_unwritable", lang, path=escape_markdown(str(settings.cache_dir)),
                        reason=escape_markdown(str(error))))  # fmt: skip
    loaded = load_catalog(resolved.roots)
    views = load_views(loaded.catalog, settings, complete=_names_experiments())
    hidden_ids = tuple(ref.id for ref in loaded.catalog.experiments if ref.overrides.hidden)
    return Visit(
        settings=settings,
        resolved=resolved,
        loaded=loaded,
        views=views,
        hidden_ids=hidden_ids,
        unreadable=tuple(item for item in views.errors if item.id not in hidden_ids),
        visible=tuple(view for view in views.views if view.id not in hidden_ids),
    )
