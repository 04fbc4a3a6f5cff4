"""What a server holds once for every session: settings, the log cache, the demo, the object-storage
mirrors, the reader pool and the quiet gate background work waits at.

* :func:`log_cache` - one :class:`~rlmon.logs.cache.LogCache` (thread-safe; re-reads only appended bytes);
* :func:`resolve_log_roots` - object-storage roots (``s3://``) synced into their mirrors in the cache folder,
  at most once per ``refresh_s`` per root (:class:`~rlmon.sources.objstore.RootSyncer`, one per server);
* :data:`WORK` - log reading and chart building count as work; what can wait, waits for a quiet moment;
* :data:`PAGE_SENT` - set once a page has been sent: what only gets later pages ahead waits for the first one.
"""

from __future__ import annotations

import importlib
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import streamlit as st

from rlmon.app.guards import LOG, escape_markdown
from rlmon.errors import ObjectStoreError, RlmonError
from rlmon.logs.cache import LogCache
from rlmon.roots import ObjectRoot
from rlmon.schema import MAX_KEYS
from rlmon.settings import Settings, load_settings
from rlmon.sources.objstore import RootSyncer, SyncResult
from rlmon.text import MESSAGES, t
from rlmon.text.numbers import format_clock

__all__ = [
    "PAGE_SENT",
    "PAGE_SENT_LIMIT_S",
    "WORK",
    "QuietGate",
    "ResolvedRoots",
    "app_settings",
    "check_first_element_ahead",
    "configured_roots",
    "has_object_roots",
    "log_cache",
    "object_reason",
    "object_syncer",
    "on_readers",
    "page_sent",
    "resolve_log_roots",
    "script_argv",
    "settings_or_stop",
    "stale_notice",
    "start_demo",
    "warm_table_modules",
]


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


def settings_or_stop(argv: Sequence[str], env: Mapping[str, str]) -> Settings:
    """:func:`app_settings`; a setting that cannot take its value is said on the page, which stops there."""
    try:
        return app_settings(argv, env)
    except RlmonError as error:
        st.error(t("error_settings", "en", reason=escape_markdown(error.describe())))
        st.stop()
        raise  # st.stop() ends the run by raising; this line is never reached


def log_cache(settings: Settings) -> LogCache:
    """The per-log cache every session reads through (one per cache folder, bound on keys and frame memory: the
    ``max_keys`` and ``frame_memory_mb`` settings), holding at most ``frame_memory_mb`` of frames in memory (see
    :mod:`rlmon.logs.cache`); in memory only when the folder cannot be made (:func:`cache_folder_problem`)."""
    return _log_cache(settings.cache_dir, settings.frame_memory_mb, settings.max_keys)


def cache_folder_problem(cache_dir: Path) -> str | None:
    """Why ``cache_dir`` cannot be the cache folder (it cannot be made: a file, ``/dev/null``, a denied
    parent), in English; None when it can. Asked once per server: the sidebar says it to every visitor."""
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        reason = "not a folder" if isinstance(error, FileExistsError) else error.strerror or str(error)
        LOG.warning("cache folder %s cannot be used (%s); parsed logs are kept in memory only", cache_dir, reason)
        return reason
    return None


@st.cache_resource(show_spinner=False)
def _log_cache(cache_dir: Path, memory_mb: float, max_keys: int = MAX_KEYS) -> LogCache:
    if cache_folder_problem(cache_dir):
        return LogCache(None, max_keys=max_keys)
    return LogCache(cache_dir, max_keys=max_keys, memory_mb=memory_mb)


def _advance_forever(root: Path, step_s: float, advance: Callable[[Path], bool]) -> None:
    while True:
        time.sleep(step_s)
        try:
            if not advance(root):
                return
        except Exception:  # the demo must never take the server down
            LOG.exception("demo: advancing the running experiment failed; stopped")
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
    return t(key, lang) if key in MESSAGES else error.reason


def stale_notice(result: SyncResult, lang: str) -> str:
    """``s3://b/p: endpoint not reachable since 08:01; showing the data from 07:58.`` (markdown-escaped)."""
    assert result.error is not None and result.synced_at is not None
    return t(
        "object_stale",
        lang,
        url=escape_markdown(result.root.url),
        reason=escape_markdown(object_reason(result.error, lang)),
        since=format_clock(result.failing_since or result.synced_at),
        synced=format_clock(result.synced_at),
    )


def _reader_count() -> int:
    """Experiments read at once: one per core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on every platform
        return max(1, os.cpu_count() or 1)


_READER_COUNT = _reader_count()
_READERS = ThreadPoolExecutor(max_workers=_READER_COUNT, thread_name_prefix="rlmon-read")


def on_readers(function: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
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

PAGE_SENT = threading.Event()
"""Set once the frame has finished a run in this process: a browser has its first page. Work that only gets the
pages after it ahead (the frames a restart reads for the charts below the first screen) waits for it instead of
sharing the two cores with the first visit's run: on a restart of 400 experiments it had put 0.3-1.0 s on the
first screen."""
PAGE_SENT_LIMIT_S = 30.0
"""How long such work waits for a first visit before it goes ahead anyway (the next visitor finds it done)."""


def page_sent() -> None:
    """The frame has sent a page (called at the end of each of its runs)."""
    PAGE_SENT.set()


def warm_table_modules() -> None:
    """Import the modules a fresh server's first run loads on first use: pandas and pyarrow for Streamlit's first
    table (about 0.8 s of one core here); its emoji table, whose one regular expression is compiled when the first
    segmented control (the language picker) is drawn (0.3-0.4 s); its Material icon names; and the pages' own
    chart and table modules (0.05 s of a restart's first run). A freshly started server's first screen would
    otherwise wait for them; they are imported where that time is free: on a restart as soon as the experiments
    are listed, else once the logs are read at start, or while a visit waits for those reads. Importing twice
    costs nothing."""
    for name in _TABLE_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:  # Streamlit says what is missing when it needs it
            continue


_TABLE_MODULES = (
    "pyarrow",
    "pyarrow.compute",
    "streamlit.emojis",
    "streamlit.material_icon_names",
    "streamlit.dataframe.lazy_df_adapters",
    "rlmon.app.charts",
    "rlmon.app.tables",
    "rlmon.views.overview",
    "rlmon.views.report",
)


def check_first_element_ahead(limit_s: float = 10.0) -> threading.Thread:
    """Make, on a thread of its own once Streamlit's runtime exists (within ``limit_s``), the check Streamlit makes
    when a process sends its first element: that it does not run in a REPL, found by ``inspect.stack()``, which
    reads the source of every calling frame (0.16 s of a restarted server's 0.55 s first run). Made before the
    runtime exists, the same check would warn that the app is not run with ``streamlit run``."""
    thread = threading.Thread(target=_check_first_element, args=(limit_s,), name="rlmon-first-element", daemon=True)
    thread.start()
    return thread


def _check_first_element(limit_s: float) -> None:
    from streamlit import delta_generator, runtime

    check = getattr(delta_generator, "_maybe_print_use_warning", None)
    deadline = time.monotonic() + limit_s
    while not runtime.exists():
        if time.monotonic() >= deadline:
            return  # the first run makes the check, as it would have
        time.sleep(0.05)
    if check is not None:
        check()
