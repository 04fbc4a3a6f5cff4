"""The only rlmon module that imports streamlit: shared loaders, URL state and small widgets for the pages.

Sharing. Everything expensive is held once per server and shared by every visitor's session:

* :func:`log_cache` - one :class:`~rlmon.logs.cache.LogCache` (thread-safe; re-reads only appended bytes);
* :func:`load_catalog` - discovery of the log roots, kept a few seconds so new experiments and files appear
  without a restart;
* :func:`resolve_log_roots` - object-storage roots (``s3://``) synced into their mirrors in the cache folder,
  at most once per ``refresh_s`` per root (:class:`~rlmon.sources.objstore.RootSyncer`, one per server);
* :func:`load_views` - each experiment read and summarised once per file identity (path, size, mtime, inode,
  change time) and kept until its files change; frames are never used as cache keys.

URL state. The view (page, experiments, metrics, smoothing, x axis, language) lives in the query string, with
short, language-independent values (:class:`UrlField`). Values coming from the URL are only ever matched
against known choices (experiment ids from the catalog, metric keys that exist); nothing from the URL or a
widget becomes a filesystem path.

Errors. :func:`guarded` runs a page part and turns :class:`~rlmon.errors.RlmonError` into an in-page message
with the path, and any other exception into a short message; tracebacks go to the server log only.
"""

from __future__ import annotations

import dataclasses
import html
import importlib
import itertools
import logging
import math
import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import polars as pl
import streamlit as st

from rlmon.errors import CatalogError, ObjectStoreError, RlmonError
from rlmon.logs.cache import LogCache
from rlmon.logs.parse import TracebackText
from rlmon.logs.samples import SampleCache, read_samples
from rlmon.roots import ObjectRoot
from rlmon.runs.loading import COLOR_BOOK_NAME, ColorBook, catalog_colors, load_experiment
from rlmon.schema import EXPERIMENT, STEP
from rlmon.settings import Settings, load_settings
from rlmon.sources.discovery import Catalog, ExperimentRef, discover_experiments
from rlmon.sources.objstore import RootSyncer, SyncResult
from rlmon.sources.rlmon_toml import CONFIG_NAME
from rlmon.text import i18n
from rlmon.views import charts, panels

__all__ = [
    "GOTO_KEY",
    "SMOOTHING_METHODS",
    "STATUS_GLYPHS",
    "STATUS_ICONS",
    "WORK",
    "X_AXES",
    "AppState",
    "ExperimentView",
    "Headline",
    "Insights",
    "LoadedCatalog",
    "LoadedViews",
    "QuietGate",
    "ResolvedRoots",
    "Unreadable",
    "UrlField",
    "app_settings",
    "app_state",
    "build_spec",
    "chart_grid",
    "chip_css",
    "choice_field",
    "clock_time",
    "color_dot",
    "configured_roots",
    "display_labels",
    "download_frame",
    "escape_markdown",
    "experiment_slug",
    "flag_field",
    "fresh_views",
    "guarded",
    "has_object_roots",
    "hash_text",
    "headline",
    "headlines",
    "highlight_legend",
    "insights_for",
    "lang",
    "legend_html",
    "legend_views",
    "list_field",
    "live_fragment",
    "live_legend",
    "load_catalog",
    "load_views",
    "log_cache",
    "number_field",
    "object_reason",
    "object_syncer",
    "page_slugs",
    "prepare_charts",
    "read_at_start",
    "read_url",
    "resolve_log_roots",
    "script_argv",
    "set_app_state",
    "show_chart",
    "show_experiments_table",
    "show_signals_table",
    "signal_experiment",
    "signal_text",
    "stale_notice",
    "start_demo",
    "state",
    "svg_download",
    "view_controls",
    "view_fields",
    "views_key",
    "write_url",
]

_LOG = logging.getLogger("rlmon.app")
_LOG.addFilter(TracebackText())

STATUS_GLYPHS = panels.STATUS_GLYPHS
STATUS_ICONS = {
    "finished": ":material/check_circle:",
    "running": ":material/play_circle:",
    "stalled": ":material/pause_circle:",
    "crashed": ":material/cancel:",
    "not started": ":material/radio_button_unchecked:",
}
CATALOG_TTL_S = 3.0
"""Discovery is repeated at most this often; a new experiment or file shows within this time."""
_SERIALS = itertools.count(1)
_RESERVED_PATHS = {"home", "exp", "overview", "experiment", "_stcore", "static", "media", "component", "generations",
                   "samples"}  # fmt: skip


# ------------------------------------------------------------------------------------------------ settings


def script_argv(argv: Sequence[str]) -> list[str]:
    """The rlmon options in ``sys.argv``: what follows the script under ``streamlit run app.py -- ...``.

    Streamlit sets ``sys.argv`` to ``[script, *options]``; any other process (a test runner) passes none.
    """
    if argv and Path(argv[0]).name == "streamlit_app.py":
        return list(argv[1:])
    return []


@st.cache_resource(show_spinner=False)
def _settings_for(argv: tuple[str, ...], env: tuple[tuple[str, str], ...]) -> Settings:
    return load_settings(list(argv), dict(env))


def app_settings(argv: Sequence[str], env: Mapping[str, str]) -> Settings:
    """Settings from ``sys.argv`` and the environment (cached per distinct value).

    Raises
    ------
    SettingError
        A setting has a value it cannot take.
    """
    relevant = tuple(
        sorted(
            (name, value)
            for name, value in env.items()
            if name.startswith("RLMON_") or name in ("HOME", "XDG_CACHE_HOME")
        )
    )
    return _settings_for(tuple(script_argv(argv)), relevant)


@st.cache_resource(show_spinner=False)
def log_cache(cache_dir: Path) -> LogCache:
    """The per-log cache every session reads through (one per cache folder)."""
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
    except OSError:
        _LOG.warning("cache folder %s cannot be created; parsed logs are kept in memory only", cache_dir)
        return LogCache(None)
    return LogCache(cache_dir)


# ---------------------------------------------------------------------------------------------------- demo


def _advance_forever(root: Path, step_s: float, advance: Callable[[Path], bool]) -> None:
    while True:
        time.sleep(step_s)
        try:
            if not advance(root):
                return
        except Exception:  # the demo must never take the server down
            _LOG.exception("demo: advancing the running experiment failed; stopped")
            return


@st.cache_resource(show_spinner=False)
def start_demo(cache_dir: Path, step_s: float) -> Path:
    """Write the demo log root into the cache folder and keep its running experiment going.

    The root is written afresh at every server start (under a second), so the running experiment starts
    again from its 21st step with a fresh file time instead of looking stalled after a restart.

    One background thread per server appends the running demo experiment's next step every ``step_s``
    seconds; when a run finishes, :func:`rlmon.demo.advance_running` starts the next one, so the demo always
    has a running experiment (the loop stops only if that function returns False or fails).
    """
    from rlmon import demo  # imported lazily: only a server without log roots needs it

    root = Path(demo.default_demo_root(cache_dir))
    demo.write_demo_root(root)
    thread = threading.Thread(
        target=_advance_forever, args=(root, step_s, demo.advance_running), name="rlmon-demo", daemon=True
    )
    thread.start()
    return root


# ------------------------------------------------------------------------------------------------- catalog


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


# -------------------------------------------------------------------------------------- object-storage roots


@st.cache_resource(show_spinner=False)
def object_syncer(cache_dir: Path, refresh_s: int) -> RootSyncer:
    """The server's one :class:`~rlmon.sources.objstore.RootSyncer`: every session shares its throttled syncs."""
    return RootSyncer(cache_dir, refresh_s=refresh_s)


@dataclass(frozen=True)
class ResolvedRoots:
    """The configured roots as local folders: object-storage roots replaced by their mirrors."""

    roots: tuple[Path, ...]
    """Local roots and the mirrors of object-storage roots that hold data, in the configured order."""
    errors: tuple[ObjectStoreError, ...] = ()
    """Object-storage roots without any data to show (never synced), with why."""
    stale: tuple[SyncResult, ...] = ()
    """Object-storage roots whose last sync failed: their mirror shows the data of the last good one."""
    labels: tuple[str, ...] = ()
    """Every configured root as a person knows it (``s3://bucket/prefix`` or the folder)."""
    notes: tuple[str, ...] = ()
    """Objects the last syncs left out, with why (names no folder can hold, objects changed while read)."""


def has_object_roots(settings: Settings) -> bool:
    """True when a configured log root is on object storage."""
    return any(isinstance(root, ObjectRoot) for root in settings.log_roots)


def configured_roots(settings: Settings) -> ResolvedRoots:
    """The roots a visit reads: the built-in demo (started on first use) when no log root is configured, else
    :func:`resolve_log_roots`. The demo's root is not listed in :attr:`ResolvedRoots.labels`.

    Raises
    ------
    RlmonError, OSError
        The demo cannot be written to its folder in the cache folder.
    """
    if not settings.log_roots:
        return ResolvedRoots(roots=(start_demo(settings.cache_dir, settings.demo_step_s),))
    return resolve_log_roots(settings)


def resolve_log_roots(settings: Settings) -> ResolvedRoots:
    """Sync the object-storage roots of ``settings.log_roots`` (when due) and return every root as a folder.

    A root whose sync fails keeps its last good mirror (listed in :attr:`ResolvedRoots.stale`); one that never
    synced is left out and reported in :attr:`ResolvedRoots.errors`. Local roots are passed through.
    """
    roots: list[Path] = []
    errors: list[ObjectStoreError] = []
    stale: list[SyncResult] = []
    notes: list[str] = []
    for root in settings.log_roots:
        if not isinstance(root, ObjectRoot):
            roots.append(root)
            continue
        result = object_syncer(settings.cache_dir, settings.refresh_s).sync(root)
        if result.stats is not None:
            notes.extend(f"{root.scheme}://{root.bucket}/{line}" for line in result.stats.skipped)
        if result.usable:
            roots.append(result.mirror)
            if result.error is not None:
                stale.append(result)
        else:
            errors.append(result.error or ObjectStoreError("not synced yet", path=root.url))
    return ResolvedRoots(
        roots=tuple(roots),
        errors=tuple(errors),
        stale=tuple(stale),
        labels=tuple(str(root) for root in settings.log_roots),
        notes=tuple(notes),
    )


def object_reason(error: ObjectStoreError, lang: str) -> str:
    """Why an object-storage root failed, in ``lang`` (technical failures keep their own English words)."""
    key = "object_" + error.kind
    return i18n.t(key, lang) if key in i18n.MESSAGES else error.reason


def clock_time(seconds: float, *, now: float | None = None) -> str:
    """``08:01`` (server time) for a time today, else ``2026-07-16 08:01``."""
    moment = time.localtime(seconds)
    today = time.localtime(time.time() if now is None else now)
    if moment[:3] == today[:3]:
        return time.strftime("%H:%M", moment)
    return time.strftime("%Y-%m-%d %H:%M", moment)


def stale_notice(result: SyncResult, lang: str) -> str:
    """``s3://b/p: endpoint not reachable since 08:01; showing the data from 07:58.`` (markdown-escaped)."""
    assert result.error is not None and result.synced_at is not None
    return i18n.t(
        "object_stale",
        lang,
        url=escape_markdown(result.root.url),
        reason=escape_markdown(object_reason(result.error, lang)),
        since=clock_time(result.failing_since or result.synced_at),
        synced=clock_time(result.synced_at),
    )


# ----------------------------------------------------------------------------------------------- experiments


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


ExperimentView = panels.ExperimentView


def _build_view(ref: ExperimentRef, cache: LogCache, settings: Settings, now: float) -> ExperimentView:
    experiment = load_experiment(ref, cache, now=now, settings=settings)
    return panels.view_of(ref, experiment, serial=next(_SERIALS))


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
        _LOG.error("experiment %s (%s) cannot be read", ref.id, ref.path, exc_info=error)
    return Unreadable(id=ref.id, path=str(ref.path), reason=reason)


def _file_identity(path: Path) -> tuple[Any, ...]:
    """What tells one version of a log file from another: a file renamed over it (another inode) or rewritten
    in place (another change time) differs even when its size and mtime were kept."""
    try:
        info = os.stat(path)
    except OSError:
        return (str(path), None)
    return (str(path), info.st_size, info.st_mtime_ns, info.st_ino, info.st_dev, info.st_ctime_ns)


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
    :func:`_file_identity`, looked at again with each new listing of the catalog and at least every
    :data:`CATALOG_TTL_S`, so a log growing every second is not read again on every run), or - for a run whose
    status depends on the clock (running, stalled, not started) - each minute, so a quiet run can turn 'stalled'.
    A finished or crashed run stays as it is. Holds one view per experiment, not per version.

    An experiment that cannot be read is kept as :class:`Unreadable` until its files change, not read again
    on every run.
    """

    _CLOCK_STATUSES = frozenset({"running", "stalled", "not started"})

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._views: dict[tuple[str, str], _Memoised] = {}
        self._recolored: dict[str, tuple[tuple[int, str], ExperimentView]] = {}

    def get(self, ref: ExperimentRef, cache: LogCache, settings: Settings, now: float) -> ExperimentView | Unreadable:
        found, pending = self._lookup(ref, settings, now)
        if found is not None:
            return found
        key, files, files_at, identity, minute = pending
        built: ExperimentView | Unreadable
        try:
            built = _build_view(ref, cache, settings, now)
        except Exception as error:  # one experiment never takes the others (or the app) down
            built = _unreadable(ref, error)
        with self._lock:
            self._views[key] = _Memoised(ref, files, files_at, identity, minute, built)
        return built

    def peek(self, ref: ExperimentRef, settings: Settings, now: float) -> ExperimentView | Unreadable | None:
        """The view :meth:`get` would return without reading anything, else None (it must be read)."""
        return self._lookup(ref, settings, now)[0]

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
            files, files_at = tuple(_file_identity(item.path) for item in ref.files), clock
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
        return None, pending

    def recolored(self, view: ExperimentView, color: str) -> ExperimentView:
        """``view`` with the colour the whole catalog assigned it; the same object while neither changes, a
        new one (new serial, so memoised charts are redrawn) when the colour moves."""
        if view.color == color:
            return view
        key = (view.serial, color)
        with self._lock:
            known = self._recolored.get(view.id)
            if known is not None and known[0] == key:
                return known[1]
        experiment = dataclasses.replace(view.experiment, color=color)
        fresh = dataclasses.replace(view, experiment=experiment, serial=next(_SERIALS))
        with self._lock:
            self._recolored[view.id] = (key, fresh)
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


def _reader_count() -> int:
    """Experiments read at once: one per core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on every platform
        return max(1, os.cpu_count() or 1)


_READER_COUNT = _reader_count()
_READERS = ThreadPoolExecutor(max_workers=_READER_COUNT, thread_name_prefix="rlmon-read")
_READ_LOCK = threading.Lock()


def _each(function: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
    """``function`` of each item, in order: on the reader pool, one per core, when there are several (their polars
    work runs outside the GIL); else on the calling thread."""
    if len(items) > 1 and _READER_COUNT > 1:
        return list(_READERS.map(function, items))
    return [function(item) for item in items]


class QuietGate:
    """Background work that can wait (the samples scan) waits here until the server has neither read logs nor
    built charts for ``quiet_s`` seconds, or at most ``limit_s``: on a cold start the first screen gets the
    cores, and the browser drawing it gets time before the scan begins."""

    def __init__(self, *, quiet_s: float, limit_s: float) -> None:
        self.quiet_s = quiet_s
        self.limit_s = limit_s
        self._lock = threading.Lock()
        self._running = 0
        self._since = time.monotonic()

    def __enter__(self) -> None:
        with self._lock:
            self._running += 1

    def __exit__(self, *_exc: object) -> None:
        with self._lock:
            self._running -= 1
            self._since = time.monotonic()

    def quiet(self, quiet_s: float | None = None) -> bool:
        with self._lock:
            return self._running == 0 and time.monotonic() - self._since >= (
                self.quiet_s if quiet_s is None else quiet_s
            )

    def wait(self, *, quiet_s: float | None = None, limit_s: float | None = None) -> bool:
        """Wait for a quiet moment (of ``quiet_s`` instead of the gate's own, when given); False when ``limit_s``
        (or the gate's own) ran out first."""
        deadline = time.monotonic() + (self.limit_s if limit_s is None else limit_s)
        while not self.quiet(quiet_s):
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.1)
        return True


# Log reading and chart building count as work; 3 s covers the browser drawing a first screen after the last
# chart is sent. A server busy for a minute scans anyway.
WORK = QuietGate(quiet_s=3.0, limit_s=60.0)


def load_views(catalog: Catalog, settings: Settings) -> LoadedViews:
    """Every experiment of the catalog, read through the shared cache (see :class:`_ViewMemo`), each with its
    own colour (:func:`~rlmon.runs.loading.catalog_colors`).

    Experiments are read in parallel, one per core (the parser's polars work runs outside the GIL); the result
    is the same as reading them one after another, and one that cannot be read is :class:`Unreadable` alone.
    Each experiment read is looked at on its reader's core as soon as it is read (:func:`_digested`).
    """
    cache = log_cache(settings.cache_dir)
    memo = _view_memo(settings.cache_dir)
    now = time.time()
    views: list[ExperimentView] = []
    errors: list[Unreadable] = []
    found_all = [memo.peek(ref, settings, now) for ref in catalog.experiments]
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
                with WORK:
                    read = _each(lambda ref: _digested(memo.get(ref, cache, settings, now), settings), refs)
            for index, view in zip(missing, read, strict=True):
                found_all[index] = view
    for found in found_all:
        if isinstance(found, Unreadable):
            errors.append(found)
        elif found is not None:
            views.append(found)
    memo.forget_missing({(str(ref.root), ref.id) for ref in catalog.experiments})
    # Colours are handed out over the whole catalog, so no two experiments in view share one; the book keeps
    # each experiment's colour while others start and go.
    colors = catalog_colors(catalog, [view.experiment for view in views], book=_color_book(settings.cache_dir))
    views = [memo.recolored(view, colors.get(view.id, view.color)) for view in views]
    return LoadedViews(views=tuple(views), errors=tuple(errors))


def read_at_start(argv: Sequence[str], env: Mapping[str, str]) -> threading.Thread:
    """Start reading the configured logs in the background as the server starts, so the first visitor after a
    restart finds them read (and each experiment's signals and headline numbers computed) instead of waiting
    for every log to be parsed. The same cached loaders a visit uses; a visit that comes while this runs waits
    for the reads in progress (:func:`load_views`, :func:`view_signals`) rather than repeating them. The cache
    folder is written once the server has had a quiet moment (the first screen drawn), not during the read. A
    failure is logged and left to the first visit, which says what went wrong."""
    thread = threading.Thread(target=_read_at_start, args=(list(argv), dict(env)), name="rlmon-start", daemon=True)
    thread.start()
    return thread


def _read_at_start(argv: list[str], env: dict[str, str]) -> None:
    started = time.perf_counter()
    cache = None
    try:
        settings = app_settings(argv, env)
        cache = log_cache(settings.cache_dir)
        # the cache folder is written once the first screen is drawn (see _write_when_quiet)
        with cache.putting_off_writes():
            views = load_views(load_catalog(configured_roots(settings).roots).catalog, settings).views
        view_signals(views, settings)
        headlines(views)
    except Exception:  # the visits will meet (and show) the same problem
        _LOG.warning("reading the logs at start failed; the first visit reads them", exc_info=True)
        return
    finally:
        warm_table_modules()
        if cache is not None:
            threading.Thread(target=_write_when_quiet, args=(cache,), name="rlmon-start-write", daemon=True).start()
    _LOG.info("read %d experiments at start in %.1f s", len(views), time.perf_counter() - started)


def _write_when_quiet(cache: LogCache) -> None:
    """Write what the read at start put off, once the server has been quiet for a moment (:data:`WORK`: the
    first screen is drawn), or after WORK's limit at the latest."""
    WORK.wait()
    try:
        written = cache.write_put_off()
    except Exception:  # a cache that cannot be written costs a parse after a restart, nothing else
        _LOG.warning("writing the logs read at start to the cache failed", exc_info=True)
        return
    _LOG.info("wrote %d logs read at start to the cache", written)


def _digested(found: ExperimentView | Unreadable, settings: Settings) -> ExperimentView | Unreadable:
    """``found``, with its headline numbers and signals computed while the other experiments are still being read.

    Every page shows them for each experiment it lists, so computing them here, on the reader's core, overlaps
    that Python work with the other reads' polars work, instead of adding it after the last read (on a cold
    start of 50 experiments, 1.1-1.5 s of a first screen). A failure is left to the page, which computes them
    again and says what went wrong.
    """
    if isinstance(found, ExperimentView):
        try:
            headline(found)
            _SIGNALS.get_or_build(_signal_key(found, settings), partial(_detect_signals, found, settings))
        except Exception:  # the page meets (and shows) the same problem
            _LOG.debug("looking at %s after reading it failed", found.id, exc_info=True)
    return found


def warm_table_modules() -> None:
    """Import the modules Streamlit needs for its first table (pandas and pyarrow: about 0.8 s of one core here,
    which the first screen of a freshly started server would otherwise wait for), where that time is free: once
    the logs are read at start, or while a visit waits for those reads. Importing twice costs nothing."""
    for name in _TABLE_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:  # Streamlit says what is missing when it needs it
            continue


_TABLE_MODULES = ("pandas", "pyarrow")


# ---------------------------------------------------------------------------------------------- headline


class _Memo:
    """Values computed once and shared by every session: a thread-safe dict that is emptied when it holds more
    than ``limit`` entries (keys name experiment versions, so old ones are never asked for again)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self._entries: dict[Any, Any] = {}

    def get(self, key: Any) -> Any | None:
        with self._lock:
            return self._entries.get(key)

    def put(self, key: Any, value: Any) -> None:
        with self._lock:
            if len(self._entries) > self.limit:
                self._entries.clear()
            self._entries[key] = value

    def get_or_build(self, key: Any, build: Callable[[], Any]) -> Any:
        """The value kept for ``key``, else ``build()`` (run outside the lock), kept."""
        known = self.get(key)
        if known is None:
            known = build()
            self.put(key, known)
        return known


Headline = panels.TableNumbers

_HEADLINES = _Memo(limit=4096)


def headline(view: ExperimentView) -> Headline:
    """First-5 / last-10 mean pass rate, best validation (with its step) and last validation, from
    :func:`rlmon.runs.headline.headline_numbers` (computed from the view's frame when that fails); computed once
    per experiment version."""

    def build() -> Headline:
        numbers = panels.table_numbers(view)
        if "pass_rate" in view.steps.columns:
            from rlmon.views.charts import sparkline_values

            spark = sparkline_values(view.steps.get_column("pass_rate").drop_nulls(), max_points=80)
            numbers = dataclasses.replace(numbers, sparkline=tuple(spark))
        return numbers

    numbers: Headline = _HEADLINES.get_or_build((view.id, view.version), build)
    return numbers


def headlines(views: Sequence[ExperimentView]) -> dict[str, Headline]:
    """:func:`headline` of each view by id; the ones not computed yet in parallel, one per core."""
    missing = [view for view in views if _HEADLINES.get((view.id, view.version)) is None]
    if missing:
        with WORK:
            _each(headline, missing)
    return {view.id: headline(view) for view in views}


# ---------------------------------------------------------------------------------------------- insights


@dataclass(frozen=True)
class Insights:
    """What :mod:`rlmon.analysis.insights` says about a set of experiments (empty when that module is absent)."""

    available: bool
    signals: tuple[Any, ...] = ()
    summary: tuple[str, ...] = ()
    paragraphs: dict[str, str] = field(default_factory=dict)


@st.cache_resource(show_spinner=False)
def _insight_memo() -> _Memo:
    """Insights per set of experiment versions and language."""
    return _Memo(limit=256)


_SIGNALS = _Memo(limit=4096)
_DETECT_LOCK = threading.Lock()


def _as_shown(view: ExperimentView) -> Any:
    """The view's experiment under the label the page shows (cut, bidi controls out), not a 3,000-character one:
    what the signals and the summary name it by."""
    if view.label == view.experiment.label:
        return view.experiment
    return dataclasses.replace(view.experiment, label=view.label)


def _signal_key(view: ExperimentView, settings: Settings) -> tuple[Any, ...]:
    return (view.id, view.version, view.label, settings)


def _detect_signals(view: ExperimentView, settings: Settings) -> tuple[Any, ...]:
    from rlmon.analysis import insights

    return tuple(insights.detect_signals(_as_shown(view), settings=settings))


def view_signals(views: Sequence[ExperimentView], settings: Settings) -> list[tuple[Any, ...]]:
    """Each experiment's signals (:func:`rlmon.analysis.insights.detect_signals`), computed once per experiment version
    (its view's ``version``: the same when only its colour changes), whatever selection it is part of; the
    missing ones in parallel, one per core (their polars work runs outside the GIL)."""
    keys = [_signal_key(view, settings) for view in views]

    def known() -> list[tuple[Any, ...] | None]:
        return [_SIGNALS.get(key) for key in keys]

    def detect(index: int) -> tuple[Any, ...]:
        return _detect_signals(views[index], settings)

    found = known()
    if all(signals is not None for signals in found):
        return [signals or () for signals in found]
    with _DETECT_LOCK, WORK:  # one at a time, as load_views reads: no experiment is looked at twice at once
        found = known()
        missing = [index for index, signals in enumerate(found) if signals is None]
        computed = _each(detect, missing)
        for index, signals in zip(missing, computed, strict=True):
            _SIGNALS.put(keys[index], signals)
            found[index] = signals
    return [signals or () for signals in found]


def insights_for(views: Sequence[ExperimentView], settings: Settings, lang: str) -> Insights:
    """Signals, the written summary and each experiment's paragraph, computed once per set of experiment
    versions and language and shared by every session."""
    try:
        from rlmon.analysis import insights
    except ImportError:
        return Insights(available=False)
    if getattr(insights, "detect_signals", None) is None:  # (what view_signals calls)
        return Insights(available=False)
    key = (views_key(views), lang)

    def build() -> Insights:
        experiments = [_as_shown(view) for view in views]
        signals = tuple(itertools.chain.from_iterable(view_signals(views, settings)))
        summary: tuple[str, ...] = ()
        writer = getattr(insights, "write_summary", None)
        if writer is not None:
            summary = tuple(writer(experiments, list(signals), lang=lang, settings=settings))
        paragraphs: dict[str, str] = {}
        paragraph = getattr(insights, "experiment_paragraph", None)
        if paragraph is not None:
            for experiment in experiments:
                own = [signal for signal in signals if signal_experiment(signal) == experiment.id]
                paragraphs[experiment.id] = paragraph(experiment, own, lang=lang)
        return Insights(available=True, signals=signals, summary=summary, paragraphs=paragraphs)

    insights_now: Insights = _insight_memo().get_or_build(key, build)
    return insights_now


signal_experiment = panels.signal_experiment
signal_text = panels.signal_text


# -------------------------------------------------------------------------------------------------- state


def state() -> Any:
    """``st.session_state`` (typed loosely for the pages)."""
    return st.session_state


def lang() -> str:
    """The visitor's language (``en``/``zh``), as chosen in the sidebar."""
    value = st.session_state.get("app_lang")
    return value if value in i18n.LANGUAGES else "en"


@dataclass(frozen=True)
class AppState:
    """What the frame hands to the pages for this run."""

    settings: Settings
    roots: tuple[Path, ...]
    demo: bool
    catalog: Catalog
    views: tuple[ExperimentView, ...]
    """Every experiment of the catalog (including hidden ones)."""
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

    def view(self, experiment_id: str) -> ExperimentView | None:
        for view in self.views:
            if view.id == experiment_id:
                return view
        return None

    def unreadable(self, experiment_id: str) -> Unreadable | None:
        """Why the experiment could not be read, when it could not."""
        return next((item for item in self.view_errors if item.id == experiment_id), None)

    def hidden_notice(self, experiment_id: str, lang: str) -> str:
        """The notice for a link to a hidden experiment: it is hidden, and how to list it again (markdown)."""
        found = next((ref for ref in self.catalog.experiments if ref.id == experiment_id), None)
        table = f'[experiments."{found.relative if found else experiment_id}"]'
        toml = str(found.root / CONFIG_NAME) if found else CONFIG_NAME
        return i18n.t(
            "hidden_experiment", lang, id=escape_markdown(experiment_id), table=escape_markdown(table),
            toml=escape_markdown(toml),
        )  # fmt: skip


_APP_STATE_KEY = "_rlmon_app_state"
GOTO_KEY = "_rlmon_goto"
"""Session key a page sets to an experiment id to have the frame open that experiment's page."""


def set_app_state(app: AppState) -> None:
    """Hand the frame's state to the page."""
    st.session_state[_APP_STATE_KEY] = app


def app_state() -> AppState:
    """The frame's :class:`AppState` for this run (set by ``streamlit_app.py`` before the page runs)."""
    value = st.session_state.get(_APP_STATE_KEY)
    if not isinstance(value, AppState):
        raise RuntimeError("the page was run outside streamlit_app.py's navigation")
    return value


# ---------------------------------------------------------------------------------------------- URL state


@dataclass(frozen=True)
class UrlField:
    """A piece of view state kept in the query string.

    ``parse`` turns the URL values into the session value, or returns None to reject them (unknown
    experiments, metrics that do not exist, numbers out of range); ``render`` is its inverse. The value
    equal to ``default`` is left out of the URL to keep links short.
    """

    key: str
    """Session-state (and widget) key."""
    param: str
    """Query parameter."""
    parse: Callable[[list[str]], Any]
    render: Callable[[Any], list[str]]
    default: Any = None


_URL_SEEN = "_rlmon_url_seen"


def read_url(fields: Sequence[UrlField]) -> None:
    """Seed session state from the query string when the URL carries a value this session has not written
    (a pasted link, the browser's back button)."""
    seen: dict[str, list[str]] = st.session_state.setdefault(_URL_SEEN, {})
    for item in fields:
        values = st.query_params.get_all(item.param)
        if not values or values == seen.get(item.param):
            continue
        seen[item.param] = values
        try:
            parsed = item.parse(values)
        except (ValueError, TypeError):
            parsed = None
        if parsed is not None:
            st.session_state[item.key] = parsed


def write_url(fields: Sequence[UrlField]) -> None:
    """Write the current values of ``fields`` into the query string (defaults are removed)."""
    seen: dict[str, list[str]] = st.session_state.setdefault(_URL_SEEN, {})
    for item in fields:
        if item.key not in st.session_state:
            continue
        value = st.session_state[item.key]
        rendered = [] if value is None or value == item.default else item.render(value)
        current = st.query_params.get_all(item.param)
        if rendered == current:
            seen[item.param] = rendered
            continue
        if rendered:
            st.query_params[item.param] = rendered if len(rendered) > 1 else rendered[0]
        elif item.param in st.query_params:
            del st.query_params[item.param]
        seen[item.param] = rendered


def choice_field(key: str, param: str, choices: Sequence[str], default: str) -> UrlField:
    """A single choice among fixed strings."""
    allowed = tuple(choices)
    return UrlField(
        key=key,
        param=param,
        parse=lambda values: values[-1] if values[-1] in allowed else None,
        render=lambda value: [str(value)],
        default=default,
    )


def number_field(key: str, param: str, *, low: float, high: float, default: float, integer: bool) -> UrlField:
    """A number within ``[low, high]``."""

    def parse(values: list[str]) -> Any:
        number = float(values[-1])
        if not math.isfinite(number) or not low <= number <= high:
            return None
        return int(number) if integer else number

    return UrlField(
        key=key,
        param=param,
        parse=parse,
        render=lambda value: [str(int(value)) if integer else f"{float(value):g}"],
        default=default,
    )


def flag_field(key: str, param: str, *, default: bool) -> UrlField:
    """An on/off value (``1``/``0``)."""
    return UrlField(
        key=key,
        param=param,
        parse=lambda values: {"1": True, "0": False}.get(values[-1]),
        render=lambda value: ["1" if value else "0"],
        default=default,
    )


def list_field(key: str, param: str, allowed: Callable[[str], bool], default: Sequence[str] = ()) -> UrlField:
    """Several strings (repeated parameter), each accepted only when ``allowed`` says so."""

    def parse(values: list[str]) -> Any:
        kept = list(dict.fromkeys(value for value in values if value and allowed(value)))
        return kept or None

    return UrlField(key=key, param=param, parse=parse, render=lambda value: list(value), default=list(default))


# ------------------------------------------------------------------------------------------------ guards


_MARKDOWN_SYNTAX = re.compile(r"([\\`*_{}\[\]<>()#+\-.!|~$&:])")
# Streamlit turns ":material/name:" into an icon before markdown sees a backslash, and ":name:" into an emoji
# after it (in the text, escapes gone); an invisible word joiner after the colon leaves neither a shortcode.
_SHORTCODE_START = re.compile(r"\\:(?=[\w+-])")
_WORD_JOINER = "\u2060"


def escape_markdown(text: str, *, limit: int | None = None) -> str:
    """``text`` shown literally wherever Streamlit renders markdown (``st.markdown``, captions, notices, widget
    labels, expander labels, page titles, pills): markdown syntax, HTML, LaTeX and ``:shortcodes:`` escaped, bidi
    controls taken out and cut to ``limit`` characters (:func:`rlmon.views.panels.display_text`). A colon that would
    start a shortcode is followed by an invisible word joiner (U+2060).

    Every piece of text from folders, ``rlmon.toml`` or logs that reaches markdown goes through this.

    >>> escape_markdown("![t](http://h/p.png) :smile:")
    '\\\\!\\\\[t\\\\]\\\\(http\\\\://h/p\\\\.png\\\\) \\\\:\\u2060smile\\\\:'
    """
    escaped = _MARKDOWN_SYNTAX.sub(r"\\\1", panels.display_text(str(text), limit=limit))
    return _SHORTCODE_START.sub(lambda match: match.group(0) + _WORD_JOINER, escaped)


def guarded(render: Callable[[], None], *, lang: str) -> None:
    """Run a page part; an :class:`RlmonError` becomes ``st.error`` with its path, anything else a short
    message (the traceback goes to the server log, never to the browser)."""
    try:
        render()
    except RlmonError as error:
        st.error(escape_markdown(error.describe()))
    except Exception as error:
        _LOG.exception("rlmon page part failed")
        st.error(i18n.t("unexpected_error", lang, kind=type(error).__name__))


def chip_css(views: Sequence[ExperimentView], labels: Mapping[str, str]) -> str:
    """CSS colouring the experiment picker's chips with each experiment's colour.

    ``labels`` maps experiment id -> the text its chip shows. Every interpolated string is CSS-escaped;
    colours are validated ``#rrggbb``.
    """
    rules: list[str] = []
    for view in views:
        color = _css_color(view.color)
        label = labels.get(view.id)
        if label is None:
            continue
        title = _css_string(label)
        rules.append(
            f'[data-testid="stSidebar"] span[data-tag][aria-label="{title}"]'
            f" {{ background-color: {color}; color: #ffffff; }}"
        )
    return "\n".join(rules)


def _css_color(color: str) -> str:
    """``color`` when it is a hex colour (``#rgb`` / ``#rrggbb``), else grey: the only colour text put in CSS."""
    return color if re.fullmatch(r"#[0-9a-fA-F]{3}(?:[0-9a-fA-F]{3})?", color) else "#888888"


def _css_string(text: str) -> str:
    return "".join(char if char.isalnum() or char in " ·-_.,/" else f"\\{ord(char):x} " for char in text)


def color_dot(color: str) -> str:
    """An HTML coloured dot (the colour is validated, nothing else is interpolated)."""
    safe = _css_color(color)
    return f'<span style="display:inline-block;width:0.75em;height:0.75em;border-radius:2px;background:{safe}"></span>'


def legend_html(views: Sequence[ExperimentView], lang: str, *, labels: Mapping[str, str] | None = None) -> str:
    """Colour chip, label, status glyph and progress of each experiment as HTML (labels escaped).

    ``labels`` maps id -> label (default :func:`display_labels` of ``views``)."""
    names = display_labels(views, lang) if labels is None else labels
    items = []
    for view in views:
        status = i18n.t("status_" + view.status, lang)
        # A long name wraps anywhere (a name without spaces would widen the sidebar); the whole label is its
        # tooltip; unicode-bidi keeps right-to-left text from reordering the progress beside it.
        items.append(
            f'<div style="display:flex;gap:0.45em;align-items:center;font-size:0.86rem;line-height:1.5">'
            f'{color_dot(view.color)}<span style="min-width:0;overflow-wrap:anywhere;unicode-bidi:isolate" '
            f'title="{html.escape(view.full_label)}">{html.escape(names.get(view.id, view.label))}</span>'
            f'<span style="margin-left:auto;color:#6b7280;white-space:nowrap" title="{html.escape(status)}">'
            f"{STATUS_GLYPHS.get(view.status, '')} {html.escape(view.experiment.progress_text)}</span></div>"
        )
    return "".join(items)


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


def page_slugs(experiment_ids: Iterable[str]) -> dict[str, str]:
    """Experiment id -> the url_path of its page (:func:`experiment_slug`, unique in the given order)."""
    slugs: dict[str, str] = {}
    for experiment_id in experiment_ids:
        slugs[experiment_id] = experiment_slug(experiment_id, slugs.values())
    return slugs


# ------------------------------------------------------------------------------------------- view controls

SMOOTHING_METHODS = {"none": "none", "ma": "moving_average", "ema": "ema"}
"""URL value -> :class:`~rlmon.analysis.smoothing.Smoothing` method."""
X_AXES = ("step", "hours")


def view_fields(prefix: str, settings: Settings) -> list[UrlField]:
    """URL fields of the smoothing and x-axis controls of a page (``smooth``, ``win``, ``w``, ``x``)."""
    default_method = {"moving_average": "ma"}.get(settings.smoothing, settings.smoothing)
    return [
        choice_field(f"{prefix}_smoothing", "smooth", tuple(SMOOTHING_METHODS), default_method),
        number_field(f"{prefix}_window", "win", low=1, high=500, default=settings.smoothing_window, integer=True),
        number_field(f"{prefix}_weight", "w", low=0.0, high=0.99, default=settings.smoothing_weight, integer=False),
        choice_field(f"{prefix}_x", "x", X_AXES, "step"),
    ]


def view_controls(prefix: str, settings: Settings, lang: str, *, with_log: bool) -> tuple[Any, str, bool]:
    """Smoothing (none / moving average window / EMA weight), x axis and log scale, keyed ``<prefix>_*``.

    Returns
    -------
    (Smoothing, x axis, log scale)
    """
    from rlmon.analysis.smoothing import Smoothing

    default_method = {"moving_average": "ma"}.get(settings.smoothing, settings.smoothing)
    st.session_state.setdefault(f"{prefix}_smoothing", default_method)
    st.session_state.setdefault(f"{prefix}_window", settings.smoothing_window)
    st.session_state.setdefault(f"{prefix}_weight", float(settings.smoothing_weight))
    st.session_state.setdefault(f"{prefix}_x", "step")
    if with_log:
        st.session_state.setdefault(f"{prefix}_log", False)
    columns = st.columns([2.3, 1.7, 1.7, 1.0], vertical_alignment="bottom")
    method = columns[0].segmented_control(
        i18n.t("control_smoothing", lang),
        list(SMOOTHING_METHODS),
        key=f"{prefix}_smoothing",
        format_func=lambda value: i18n.t("smoothing_" + SMOOTHING_METHODS[value], lang),
        persist_state="session",
    )
    method = method if method in SMOOTHING_METHODS else "none"
    window = int(st.session_state[f"{prefix}_window"])
    weight = float(st.session_state[f"{prefix}_weight"])
    if method == "ma":
        window = int(
            columns[1].number_input(
                i18n.t("control_window", lang), min_value=1, max_value=500, step=1, key=f"{prefix}_window",
                persist_state="session",
            )
        )  # fmt: skip
    elif method == "ema":
        weight = float(
            columns[1].slider(
                i18n.t("control_weight", lang), min_value=0.0, max_value=0.99, step=0.01, key=f"{prefix}_weight",
                help=i18n.t("control_weight_help", lang), persist_state="session",
            )
        )  # fmt: skip
    x = columns[2].segmented_control(
        i18n.t("control_x", lang),
        list(X_AXES),
        key=f"{prefix}_x",
        format_func=lambda value: i18n.t("x_" + value, lang),
        persist_state="session",
    )
    x = x if x in X_AXES else "step"
    log_scale = False
    if with_log:
        log_scale = bool(columns[3].toggle(i18n.t("control_log", lang), key=f"{prefix}_log", persist_state="session"))
    smoothing = Smoothing(SMOOTHING_METHODS[method], weight=min(max(weight, 0.0), 0.99), window=max(1, window))  # type: ignore[arg-type]
    return smoothing, x, log_scale


def fresh_views(app: AppState) -> tuple[tuple[ExperimentView, ...], tuple[ExperimentView, ...]]:
    """(all experiments, selected experiments) as they are now - for live refresh inside a fragment.

    A timed refresh reruns the page's fragment only; the sidebar and the navigation (new experiments, status
    icons) follow at the next full run - any sidebar change or page load. Rerunning the whole app from a timed
    fragment run would reset the sidebar's widgets (Streamlit sends only the fragment's widget states).
    """
    resolve_log_roots(app.settings)  # object-storage mirrors synced when due; their folders stay the same
    loaded = load_catalog(app.roots)
    views = load_views(loaded.catalog, app.settings).views
    wanted = {view.id for view in app.selected}
    return views, tuple(view for view in views if view.id in wanted)


display_labels = panels.display_labels


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


class _SpecMemo:
    """Finished Vega-Lite specs, keyed on what they are drawn from (view serials, metric, choices, language).

    A spec depends only on its key, so every session showing the same chart shares one build (and a
    session coming back to an earlier choice gets it at once). The specs are read only: Streamlit copies
    the top level before taking the datasets out. Bounded; the oldest entries go first.
    """

    def __init__(self, size: int = 512) -> None:
        self._lock = threading.Lock()
        self._size = size
        self._specs: dict[tuple[Any, ...], dict[str, Any]] = {}
        self._building: dict[tuple[Any, ...], threading.Event] = {}

    def has(self, key: tuple[Any, ...]) -> bool:
        """Whether the spec of ``key`` is built or being built."""
        with self._lock:
            return key in self._specs or key in self._building

    def get(self, key: tuple[Any, ...], build: Callable[[], Any]) -> dict[str, Any]:
        """The spec of ``key``: kept, else built here - or, while another thread builds it (a chart built ahead
        of a visitor's click, another session's), that thread's once it is done."""
        while True:
            with self._lock:
                known = self._specs.get(key)
                if known is not None:
                    return known
                building = self._building.get(key)
                if building is None:
                    building = self._building[key] = threading.Event()
                    break
            building.wait()  # then look again: a build that failed left no spec, and this thread tries
        try:
            with WORK:
                spec = build_spec(build)
            with self._lock:
                if len(self._specs) >= self._size:
                    for old in list(self._specs)[: self._size // 4]:
                        del self._specs[old]
                self._specs[key] = spec
            return spec
        finally:
            with self._lock:
                del self._building[key]
            building.set()


@st.cache_resource(show_spinner=False)
def _spec_memo() -> _SpecMemo:
    return _SpecMemo()


def _to_spec(chart: Any) -> dict[str, Any]:
    """The chart as a Vega-Lite dict; legend labels are never cut (a legend sits below the plot and grows the
    chart, see :mod:`rlmon.views.charts`).

    ``chart`` is a spec from :mod:`rlmon.views.charts` (a fresh dict, changed in place) or an Altair chart, whose
    JSON-schema validation - the slowest part of turning it into a dict - is skipped: rlmon's builders
    produce valid specs (their tests validate them).
    """
    if isinstance(chart, dict):
        spec: dict[str, Any] = chart
    else:
        from altair.utils.schemapi import debug_mode

        with debug_mode(False):
            spec = chart.to_dict(validate=False)
    config = spec.setdefault("config", {})
    config["legend"] = {**config.get("legend", {}), "labelLimit": 0, "symbolSize": 70, "labelFontSize": 11}
    view = config.get("view")
    if isinstance(view, dict):  # Altair's default view is 300x300; Streamlit sizes the chart itself
        view.pop("continuousWidth", None)
        view.pop("continuousHeight", None)
    return spec


def build_spec(build: Callable[[], Any]) -> dict[str, Any]:
    """The Vega-Lite dict of what ``build()`` returns: a spec from an ``rlmon.views.charts.*_spec`` function
    (best with ``arrow=True``: Streamlit ships Arrow datasets as they are) or an Altair chart."""
    return _to_spec(build())


def views_key(views: Sequence[ExperimentView]) -> tuple[tuple[str, int], ...]:
    """A cheap identity of a set of experiment versions (for memo keys)."""
    return tuple((view.id, view.serial) for view in views)


_BUILDERS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="rlmon-chart")


def prepare_charts(items: Sequence[tuple[tuple[Any, ...], Callable[[], Any]]]) -> None:
    """Build the specs of several charts at once (the polars work of the builders runs in parallel), so the
    :func:`show_chart` calls that follow find them in the memo. A failing build is left for show_chart to
    report in its place."""
    memo = _spec_memo()
    futures = [_BUILDERS.submit(memo.get, key, build) for key, build in items]
    for future in futures:
        future.exception()


def prepare_ahead(plans: Sequence[panels.ChartPlan]) -> None:
    """Build the specs of ``plans`` in the background once the server has had a quiet moment (:data:`AHEAD_QUIET_S`),
    unless they are built or being built: charts a visitor is likely to ask for next are then ready before the
    click. A failing build is left for the visit that asks to report."""
    memo = _spec_memo()
    todo = [(plan.key, plan.build) for plan in plans if not memo.has(plan.key)]
    if todo:
        _AHEAD_POOL.submit(_prepare_when_quiet, todo)


def _prepare_when_quiet(items: list[tuple[tuple[Any, ...], Callable[[], Any]]]) -> None:
    if WORK.wait(quiet_s=AHEAD_QUIET_S, limit_s=AHEAD_LIMIT_S):
        prepare_charts(items)


AHEAD_QUIET_S = 1.0
"""A build ahead waits until no log was read and no chart built for this long: the browser has drawn the charts
just sent (about 0.2 s a chart here), and a visitor has not asked for more."""
AHEAD_LIMIT_S = 30.0
"""A build ahead that has not found its quiet moment by then is dropped (a busy server does what is asked)."""
_AHEAD_POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rlmon-ahead")


def show_chart(build: Callable[[], Any], *, key: tuple[Any, ...] | None = None, renderer: str = "auto") -> None:
    """Draw the chart ``build()`` returns (see :func:`build_spec`) across its column. With a ``key``, the
    finished spec is shared by every session asking for the same key (see :class:`_SpecMemo`). ``renderer``:
    the ``chart_renderer`` setting (``auto`` keeps each chart's own, see :mod:`rlmon.views.charts`)."""
    spec = build_spec(build) if key is None else _spec_memo().get(key, build)
    st.vega_lite_chart(spec=charts.with_renderer(spec, renderer), width="stretch")


def svg_download(spec: dict[str, Any], *, name: str) -> tuple[str, Callable[[], bytes]]:
    """What saves chart ``spec`` as SVG: its file name (from its title, else ``name``, see
    :func:`rlmon.views.report.chart_file_name`) and a callable returning the image, drawn by vl-convert only when it
    is called (:func:`rlmon.views.report.chart_svg`)."""
    from rlmon.views import report

    title = spec.get("title")
    if isinstance(title, dict):
        title = title.get("text")
    if isinstance(title, list):
        title = " ".join(str(line) for line in title)
    file_name = report.chart_file_name(str(title or ""), fallback=name, suffix="svg")
    return file_name, lambda: report.chart_svg(spec).encode("utf-8")


def _grid_chart(plan: panels.ChartPlan, *, key: str, renderer: str, lang: str) -> None:
    """A grid cell: the chart, and over its top right corner a button saving it as SVG. The image is drawn when
    the button is clicked (on a thread of its own), and the click reruns nothing."""
    with st.container(key=f"rlmon_cell_{key}", gap=None):
        show_chart(plan.build, key=plan.key, renderer=renderer)
        file_name, contents = svg_download(_spec_memo().get(plan.key, plan.build), name=plan.name)
        st.download_button(
            i18n.t("svg_save", lang), contents, file_name=file_name, mime="image/svg+xml", key=f"rlmon_svg_{key}",
            help=i18n.t("svg_save_help", lang), on_click="ignore", type="tertiary", icon=":material/download:",
        )  # fmt: skip


# Streamlit's own chart toolbar (PNG, full screen) shows on hover above the chart's top right corner; the SVG
# button sits inside that corner, in the chart's title line (titles start at the left).
_SAVE_CSS = """
[class*="st-key-rlmon_cell_"] { position: relative; }
[class*="st-key-rlmon_svg_"] { position: absolute !important; top: 0; right: 0.25rem; z-index: 1;
    width: auto !important; }
[class*="st-key-rlmon_svg_"] button { min-height: 1.5rem; padding: 0 0.25rem; font-size: 0.8rem; opacity: 0.75; }
"""

_GRID_CSS = """
.st-key-{key} {{ flex-wrap: wrap !important; align-items: flex-start !important; gap: 1rem !important; }}
.st-key-{key} > div {{ flex: 0 0 calc((100% - {narrow_gaps}rem) / {narrow}) !important;
    width: calc((100% - {narrow_gaps}rem) / {narrow}) !important; min-width: 0 !important; }}
@media (min-width: 1600px) {{ .st-key-{key} > div {{ flex-basis: calc((100% - {wide_gaps}rem) / {wide}) !important;
    width: calc((100% - {wide_gaps}rem) / {wide}) !important; }} }}
@media (max-width: 640px) {{ .st-key-{key} > div {{ flex-basis: 100% !important; width: 100% !important; }} }}
"""
# A batch's fragment wraps its charts in blocks of its own: those take no box, so the charts (or their
# placeholders) are the grid's cells like the charts drawn at once. The placeholder holds the chart's height.
_LAZY_CSS = """
.st-key-{key} div:has([class*="st-key-{key}-batch-"]), .st-key-{key} [class*="st-key-{key}-batch-"] {{
    display: contents !important; }}
.st-key-{key} [class*="st-key-{key}-batch-"] > div {{ flex: 0 0 calc((100% - {narrow_gaps}rem) / {narrow}) !important;
    width: calc((100% - {narrow_gaps}rem) / {narrow}) !important; min-width: 0 !important; }}
@media (min-width: 1600px) {{ .st-key-{key} [class*="st-key-{key}-batch-"] > div {{
    flex-basis: calc((100% - {wide_gaps}rem) / {wide}) !important;
    width: calc((100% - {wide_gaps}rem) / {wide}) !important; }} }}
@media (max-width: 640px) {{ .st-key-{key} [class*="st-key-{key}-batch-"] > div {{
    flex-basis: 100% !important; width: 100% !important; }} }}
.st-key-{key} [class*="st-key-rlmon_pending_"] {{ min-height: {height}px !important; background: #f4f6f9;
    border-radius: 0.5rem; justify-content: center !important; align-items: center !important; text-align: center; }}
"""
_EDGE_PX = 94
"""Height a chart element adds to its plot area (title, axes, padding): the placeholder's height is the sum."""
_DRAWN_KEY = "_rlmon_drawn_batches"
"""Session key: the chart batches drawn so far (they stay drawn across reruns and live refreshes)."""

# The sentinel: when the placeholder it sits in comes within a screen of the visible part of the page, it tells
# the server (a trigger, so only its batch's fragment reruns). Streamlit scrolls inside a container, not the
# document: the observer's root is that container, so the margin counts from what is visible. Triggers of
# several sentinels are sent one at a time, 80 ms apart: Streamlit sends widget changes made together as one
# rerun of one fragment. A placeholder still in place and near 3 s after asking, with the app idle (no script
# running), asks again.
_NEAR_JS = """
export default function (component) {
  const { parentElement, setTriggerValue } = component;
  // The placeholder box is watched, not the sentinel inside it (lower down, it could miss the margin).
  const target = parentElement.closest('[class*="st-key-rlmon_pending_"]')
    || parentElement.querySelector('.rlmon-near') || parentElement;
  let root = null;
  for (let up = target.parentElement; up; up = up.parentElement) {
    const style = getComputedStyle(up);
    if (/auto|scroll/.test(style.overflowY) && up.scrollHeight > up.clientHeight) { root = up; break; }
  }
  const queue = (window.__rlmonNear = window.__rlmonNear || { last: 0 });
  let near = false;
  let timer = null;
  const running = () => document.querySelector('[data-testid="stStatusWidget"]') !== null;
  const send = () => {
    if (!near || !target.isConnected) return;
    const wait = Math.max(0, queue.last + 80 - performance.now());
    queue.last = performance.now() + wait;
    timer = setTimeout(() => {
      if (near && target.isConnected) setTriggerValue('near', true);
      timer = setTimeout(retry, 3000);
    }, wait);
  };
  // Asked, and still a placeholder: ask again once the app is idle (the ask was lost), not while it works.
  const retry = () => {
    if (!near || !target.isConnected) { timer = null; return; }
    if (running()) { timer = setTimeout(retry, 1000); return; }
    send();
  };
  const observer = new IntersectionObserver((entries) => {
    const was = near;
    near = entries[entries.length - 1].isIntersecting;
    if (near && !was && timer === null) send();
    if (!near && timer !== null) { clearTimeout(timer); timer = null; }
  }, { root, rootMargin: '100% 0px 100% 0px' });
  observer.observe(target);
  return () => { observer.disconnect(); if (timer !== null) clearTimeout(timer); };
}
"""
_near = st.components.v2.component(
    "rlmon_draw_when_near", html='<div class="rlmon-near"></div>', js=_NEAR_JS, isolate_styles=False
)


def _drawn_batches() -> set[tuple[Any, ...]]:
    drawn = st.session_state.get(_DRAWN_KEY)
    if not isinstance(drawn, set):
        drawn = set()
        st.session_state[_DRAWN_KEY] = drawn
    return drawn


def _draw_batch(
    plans: Sequence[panels.ChartPlan],
    *,
    batch: tuple[Any, ...],
    key: str,
    index: int,
    lang: str,
    renderer: str,
    ahead: Mapping[str, Sequence[panels.ChartPlan]],
) -> None:
    """One batch of a lazy grid (run as a fragment): its charts once the sentinel has reported them near the
    view, else a placeholder per chart and the sentinel."""
    with st.container(key=f"{key}-batch-{index}"):
        if batch in _drawn_batches():
            prepare_charts([(plan.key, plan.build) for plan in plans])
            for position, plan in enumerate(plans):
                cell = f"{key}-{index}-{position}"
                guarded(partial(_grid_chart, plan, key=cell, renderer=renderer, lang=lang), lang=lang)
            prepare_ahead([other for plan in plans for other in ahead.get(plan.name, ())])
            return
        for position, _plan in enumerate(plans):
            with st.container(key=f"rlmon_pending_{key}_{index}_{position}", horizontal_alignment="center"):
                st.caption(i18n.t("chart_pending", lang))
                if position == 0:
                    _near(key=f"rlmon_near_{key}_{index}", on_near_change=partial(_drawn_batches().add, batch))


def chart_grid(
    plans: Sequence[panels.ChartPlan],
    *,
    key: str,
    lang: str,
    wide: int = 3,
    eager: int = 0,
    height: int = charts.PLOT_HEIGHT,
    settings: Settings | None = None,
    ahead: Mapping[str, Sequence[panels.ChartPlan]] | None = None,
) -> None:
    """Draw ``plans`` in a grid: ``wide - 1`` charts per row up to a 1600 px window, ``wide`` beyond, one
    column on a phone (the browser chooses, so a resized window re-flows without a rerun).

    ``ahead`` gives, by plan name, charts a visitor may ask for next instead of that one (the same metric under
    another smoothing): once the plan is drawn they are built in the background (:func:`prepare_ahead`).

    The first ``eager`` charts are drawn at once (the page's first screen). The others come in batches of a
    row (``wide - 1`` charts), each first shown as placeholders ``height`` + the chart's edges tall (so the page
    does not jump), and drawn - their data built and sent - when the batch comes within a screen of the view:
    a sentinel in the browser reruns the batch's fragment only. A drawn batch stays drawn for the session.
    With the ``draw_all_charts`` setting every chart is drawn at once. ``settings`` default to the page's.
    """
    if settings is None:
        settings = app_state().settings
    renderer = settings.chart_renderer
    narrow = wide - 1
    sizes = {"key": key, "narrow": narrow, "narrow_gaps": narrow - 1, "wide": wide, "wide_gaps": wide - 1}
    lazy = not settings.draw_all_charts and len(plans) > eager
    first = list(plans) if not lazy else list(plans[:eager])
    page = st.session_state.get(_APP_STATE_KEY)
    where = (key, getattr(page, "current_experiment", None))
    rest = plans[eager:] if lazy else []
    batches = [list(rest[start : start + narrow]) for start in range(0, len(rest), narrow)]
    names = [(*where, tuple(plan.name for plan in batch)) for batch in batches]
    drawn = _drawn_batches()
    # The specs of every chart this run draws are built together (in parallel), drawn batches included.
    shown = first + [plan for batch, name in zip(batches, names, strict=True) if name in drawn for plan in batch]
    prepare_charts([(plan.key, plan.build) for plan in shown])
    css = _GRID_CSS.format(**sizes) + _SAVE_CSS
    if lazy:
        css += _LAZY_CSS.format(**sizes, height=height + _EDGE_PX)
    st.html("<style>" + css + "</style>")
    ahead = ahead or {}
    with st.container(key=key, horizontal=True, gap="medium"):
        for position, plan in enumerate(first):
            cell = f"{key}-e{position}"
            guarded(partial(_grid_chart, plan, key=cell, renderer=renderer, lang=lang), lang=lang)
        for index, (batch, name) in enumerate(zip(batches, names, strict=True)):
            draw = partial(
                _draw_batch, batch, batch=name, key=key, index=index, lang=lang, renderer=renderer, ahead=ahead
            )
            st.fragment(draw, key=f"{key}-fragment-{index}")()
    # the charts drawn at once; each drawn batch asks for its own (_draw_batch)
    prepare_ahead([other for plan in first for other in ahead.get(plan.name, ())])


def highlight_legend(views: Sequence[ExperimentView], *, key: str, lang: str) -> list[str]:
    """The page's one colour legend: a chip per experiment in its colour; clicking chips highlights those runs
    in every chart of the page (the others are dimmed). Returns the highlighted experiment ids."""
    labels = display_labels(views, lang)
    ids = [view.id for view in views]
    if key in st.session_state:
        st.session_state[key] = [value for value in st.session_state[key] or [] if value in ids]
    rules = []
    for index, view in enumerate(views, start=1):
        color = _css_color(view.color)
        rules.append(
            f".st-key-{key} button:nth-of-type({index})::before {{ content: ''; display: inline-block; "
            f"width: 0.8em; height: 0.8em; border-radius: 2px; margin-right: 0.4em; background: {color}; }}"
        )
    st.html("<style>" + "\n".join(rules) + "</style>")
    picked = st.pills(
        i18n.t("legend_highlight", lang),
        ids,
        selection_mode="multi",
        key=key,
        format_func=lambda value: escape_markdown(labels.get(value) or value),
        help=i18n.t("legend_highlight_help", lang),
        label_visibility="collapsed",
        width="stretch",
    )
    return [value for value in picked or [] if value in ids]


def show_experiments_table(frame: pl.DataFrame, *, key: str, lang: str) -> int | None:
    """The overview's experiments table (:func:`rlmon.views.panels.experiments_frame`); a click on any cell of a
    row - its name included - returns that row's index (the page opens the experiment), else None.

    Column widths are set so every column and its whole header fit a 1440 px window with the sidebar open,
    the track column (shown across tracks) included.
    """
    # The track column's 60 px come from the name and the sparkline: 964 px of columns in about 978.
    across_tracks = "track" in frame.columns
    columns: dict[str, Any] = {
        "experiment": st.column_config.TextColumn(
            i18n.t("col_experiment", lang), pinned=True, width=120 if across_tracks else 150
        ),
        "track": st.column_config.TextColumn(i18n.t("col_track", lang), width=60),
        "status": st.column_config.TextColumn(i18n.t("col_status", lang), width=135),
        "progress": st.column_config.ProgressColumn(
            i18n.t("col_progress", lang), min_value=0.0, max_value=100.0, format="%.0f%%", width=85
        ),
        "hours": st.column_config.TextColumn(i18n.t("col_hours", lang), width=62),
        "eta": st.column_config.TextColumn(i18n.t("col_eta", lang), width=62),
        "first5": st.column_config.TextColumn(
            i18n.t("col_first5", lang), help=i18n.t("table_help_first5", lang), width=95
        ),
        "last10": st.column_config.TextColumn(
            i18n.t("col_last10", lang), help=i18n.t("table_help_last10", lang), width=95
        ),
        "best_val": st.column_config.TextColumn(i18n.t("col_best_val", lang), width=110),
        "last_val": st.column_config.TextColumn(i18n.t("col_last_val", lang), width=70),
        # Each run's sparkline on its own scale: the shape of its curve, not its place on 0-100.
        "spark": st.column_config.LineChartColumn(i18n.t("col_sparkline", lang), width=70 if across_tracks else 100),
        "page": None,
    }
    event = st.dataframe(
        frame,
        hide_index=True,
        width="stretch",
        key=key,
        on_select="rerun",
        selection_mode="single-cell",
        column_config={name: config for name, config in columns.items() if name in frame.columns},
    )
    cells = getattr(getattr(event, "selection", None), "cells", None) or []
    if not cells:
        return None
    row = cells[0][0] if isinstance(cells[0], list | tuple) else getattr(cells[0], "row", None)
    return int(row) if isinstance(row, int) and 0 <= row < frame.height else None


def show_signals_table(frame: pl.DataFrame, *, key: str, lang: str) -> None:
    """The signals table (:func:`rlmon.views.panels.signals_frame`); each row links to its chart."""
    st.dataframe(
        frame,
        hide_index=True,
        width="stretch",
        key=key,
        column_config={
            "experiment": st.column_config.TextColumn(i18n.t("col_experiment", lang), width="small"),
            "severity": st.column_config.TextColumn(i18n.t("col_severity", lang), width="small"),
            "kind": st.column_config.TextColumn(i18n.t("col_kind", lang), width="small"),
            "step": st.column_config.TextColumn(i18n.t("col_step", lang), width="small"),
            "message": st.column_config.TextColumn(i18n.t("col_message", lang), width="large"),
            "chart": st.column_config.LinkColumn(
                i18n.t("col_chart", lang), display_text=i18n.t("chart_link", lang), width="small"
            ),
        },
    )


def download_frame(views: Sequence[ExperimentView], smoothed_metrics: Sequence[str], smoothing: Any) -> pl.DataFrame:
    """The per-step table of ``views`` for download.

    Columns: ``experiment`` (id), ``label``, ``step``, every logged and derived column, ``hours``, and - when
    ``smoothing`` (a :class:`~rlmon.analysis.smoothing.Smoothing`) is on - ``<metric> (smoothed)`` for each of
    ``smoothed_metrics``, smoothed over that metric's logged points as the charts draw it.
    """
    from rlmon.analysis.smoothing import SMOOTHED, with_smoothed

    parts = [
        view.steps.select(
            pl.lit(view.id, dtype=pl.String).alias(EXPERIMENT),
            pl.lit(view.experiment.label, dtype=pl.String).alias("label"),
            pl.all(),
        )
        for view in views
    ]
    if not parts:
        return pl.DataFrame(schema={EXPERIMENT: pl.String, "label": pl.String, STEP: pl.Int64})
    table = pl.concat(parts, how="diagonal_relaxed")
    if not smoothing.enabled:
        return table
    for key in smoothed_metrics:
        long = panels.long_frame(views, key)
        if long.is_empty():
            continue
        smoothed = with_smoothed(long, method=smoothing.method, weight=smoothing.weight, window=smoothing.window)
        table = table.join(
            smoothed.select(EXPERIMENT, STEP, pl.col(SMOOTHED).alias(f"{key} (smoothed)")),
            on=[EXPERIMENT, STEP],
            how="left",
            maintain_order="left",
        )
    return table


# ------------------------------------------------------------------------------------------------- samples


@st.cache_resource(show_spinner=False)
def sample_cache(cache_dir: Path) -> SampleCache:
    """The per-log sample cache every session reads through (one per cache folder): the text of a log's
    samples is held once per server, not in each session."""
    return SampleCache(cache_dir if cache_dir.is_dir() else None)


def experiment_samples(view: ExperimentView, settings: Settings) -> pl.DataFrame:
    """An experiment's samples (:mod:`rlmon.logs.samples`); raises :class:`RlmonError` when a log cannot be read."""
    return read_samples(
        [item.path for item in view.ref.files],
        folder=view.ref.path,
        config=view.experiment.config,
        cache=sample_cache(settings.cache_dir),
    )


_SAMPLE_SCANS = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rlmon-samples")
_SAMPLE_SCANS_PENDING: set[str] = set()
_SAMPLE_SCANS_LOCK = threading.Lock()


def _scan_samples(view: ExperimentView, settings: Settings) -> None:
    try:
        WORK.wait()
        experiment_samples(view, settings)
    except Exception:  # a log that cannot be read shows on its own page; the overview only waits for no scan
        _LOG.warning("samples of %s could not be read", view.id, exc_info=True)
    finally:
        with _SAMPLE_SCANS_LOCK:
            _SAMPLE_SCANS_PENDING.discard(view.id)


def latest_sample_step(view: ExperimentView, settings: Settings) -> int | None:
    """The latest step with samples, when the experiment's logs have been scanned for samples and have not
    changed since; otherwise None, and the scan is started in the background (the overview never waits for
    it: the link shows at the next refresh)."""
    cache = sample_cache(settings.cache_dir)
    paths = [item.path for item in view.ref.files if not str(item.path).lower().endswith((".jsonl", ".ndjson"))]
    if not all(cache.is_current(path) for path in paths):
        with _SAMPLE_SCANS_LOCK:
            if view.id in _SAMPLE_SCANS_PENDING:
                return None
            _SAMPLE_SCANS_PENDING.add(view.id)
        _SAMPLE_SCANS.submit(_scan_samples, view, settings)
        return None
    try:
        steps = experiment_samples(view, settings).get_column(STEP).drop_nulls()
    except RlmonError:
        return None
    return int(steps.max()) if steps.len() else None  # type: ignore[arg-type]


def latest_samples_links(views: Sequence[ExperimentView], settings: Settings, lang: str) -> None:
    """One small link per experiment that has samples, to the samples page at its latest step."""
    latest = [(view, step) for view in views if (step := latest_sample_step(view, settings)) is not None]
    if not latest:
        return
    st.caption(i18n.t("samples_latest", lang))
    columns = st.columns(min(len(latest), 4))
    for index, (view, step) in enumerate(latest):
        with columns[index % len(columns)]:
            st.page_link(
                "pages/samples.py",
                label=i18n.t("samples_latest_link", lang, label=view.label, step=step),
                icon=":material/chat:",
                query_params={"id": view.id, "step": str(step)},
            )
