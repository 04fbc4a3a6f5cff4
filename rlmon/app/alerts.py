"""The alert watcher inside the app server: started with the server when an alert target is set
(``RLMON_ALERT_TARGETS`` / ``--alert-target``), it reads the roots the app shows and sends alerts with no browser
open. Several replicas on one cache folder each run one; the lease in the cache folder lets exactly one of them
send (:mod:`rlmon.alerts.lease`), and another takes over when it stops.

The watcher shares the server's log cache and object-storage syncer, so a log is parsed once for the pages and the
alerts. Its log lines go to the server's output.
"""

from __future__ import annotations

import functools
import logging
import sys
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from rlmon.alerts import Watcher, check_targets
from rlmon.alerts.watcher import LOG as ALERT_LOG
from rlmon.app.guards import LOG
from rlmon.app.server import app_settings, log_cache, object_syncer, start_demo
from rlmon.roots import ObjectRoot
from rlmon.settings import Settings

__all__ = ["AppWatcher", "configured_targets", "start_watcher"]

ORIGIN = "RLMON_ALERT_TARGETS"


@dataclass(frozen=True)
class AppWatcher:
    watcher: Watcher
    thread: threading.Thread
    stop: threading.Event


def configured_targets(settings: Settings) -> list[tuple[str, str]]:
    """This server's own targets that apprise can send to, as the Alerts page lists them: (scheme and host, where
    they are set). The others are listed among what fails (:mod:`rlmon.alerts.peers`)."""
    return list(_working_targets(tuple(settings.alert_targets)))


@functools.cache
def _working_targets(urls: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    good, _ = check_targets(urls, ORIGIN)
    return tuple((target.shown, target.origin) for target in good)


def _say_in_server_log() -> None:
    if not ALERT_LOG.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s rlmon alerts: %(message)s", "%Y-%m-%d %H:%M:%S"))
        ALERT_LOG.addHandler(handler)
        ALERT_LOG.setLevel(logging.INFO)
        ALERT_LOG.propagate = False


@st.cache_resource(show_spinner=False)
def _app_watcher(settings: Settings) -> AppWatcher:
    """The server's one watcher, on its own thread (daemon: it ends with the server)."""
    _say_in_server_log()
    targets, problems = check_targets(settings.alert_targets, ORIGIN)
    for problem in problems:
        ALERT_LOG.warning("%s", problem)  # one clear line each, at start; the Alerts page lists them too
    roots: Sequence[Path | ObjectRoot] = settings.log_roots or (start_demo(settings.cache_dir, settings.demo_step_s),)
    watcher = Watcher(
        roots,
        settings=settings,
        cache=log_cache(settings),
        targets=targets,
        syncer=object_syncer(settings.cache_dir, settings.refresh_s),
        standing_problems=problems,
    )
    stop = threading.Event()
    thread = threading.Thread(target=watcher.run, args=(stop,), name="rlmon-alerts", daemon=True)
    thread.start()
    return AppWatcher(watcher=watcher, thread=thread, stop=stop)


def start_watcher(argv: Sequence[str], env: Mapping[str, str]) -> AppWatcher | None:
    """Start the server's watcher when an alert target is set (a second call finds the first); None when no
    target is set or the settings cannot be read (the first visit says why)."""
    try:
        settings = app_settings(argv, env)
        if not settings.alert_targets:
            return None
        return _app_watcher(settings)
    except Exception:  # the pages must come up whatever the alerts meet
        LOG.warning("the alert watcher could not start", exc_info=True)
        return None
