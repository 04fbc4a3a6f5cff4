"""One sender per cache folder: a lease, kept as a lock file in the cache folder (``alerts/sender.lock``, made
by :mod:`rlmon.logs.locks`, safe on NFS), that the sending process renews at every refresh.

Every watcher on a cache folder (``rlmon watch``, the app replicas' own) tries to take the lease at each
refresh; only its holder reads the logs for alerts, sends and writes the alert state. When the holder dies,
another takes the lease over: at once on the same machine (its pid is gone), else once the lease has not been
renewed for ``stale_s`` seconds.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rlmon.alerts.state import ALERTS_FOLDER
from rlmon.logs.locks import HeldLock, acquire, read_holder, renew

__all__ = ["LEASE_NAME", "Lease", "lease_path"]

LEASE_NAME = "sender.lock"
LOG = logging.getLogger("rlmon.alerts")


def lease_path(cache_dir: Path) -> Path:
    return cache_dir / ALERTS_FOLDER / LEASE_NAME


class Lease:
    """This process's claim to be the one sender of ``cache_dir``'s alerts."""

    def __init__(self, cache_dir: Path, *, stale_s: float, clock: Callable[[], float] = time.time) -> None:
        self.path = lease_path(cache_dir)
        self.stale_s = stale_s
        self._clock = clock
        self._held: HeldLock | None = None
        self.problem: str | None = None
        """Why the lease cannot be taken at all (the cache folder cannot be written), if so."""

    @property
    def held(self) -> bool:
        return self._held is not None

    def hold(self) -> bool:
        """Renew the lease when this process holds it, else try to take it (without waiting); True when this
        process holds it now."""
        if self._held is not None:
            if renew(self._held, clock=self._clock):
                return True
            LOG.warning("the alert lease %s was taken over by another process; this one stops sending", self.path)
            self._held = None
        try:
            self._held = acquire(self.path, wait_s=0, stale_s=self.stale_s, clock=self._clock)
            self.problem = None
        except OSError as error:
            self.problem = f"{self.path.parent}: cannot be written ({error.strerror or error}); no alert is sent"
            return False
        return self._held is not None

    def release(self) -> None:
        if self._held is not None:
            self._held.release()
            self._held = None

    def holder(self) -> dict[str, Any] | None:
        """Who holds the lease (``pid``, ``host``, ``time`` of its last renewal), if anyone."""
        return read_holder(self.path)
