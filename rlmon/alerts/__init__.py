"""Alerts: telling a team, in chat or by email, when a run needs them - with no browser open.

The watcher reads the log roots as the app does (discovery, the per-log cache, the experiments and their signals)
and sends each new event once, through apprise. ``rlmon watch`` runs it alone; the app server runs it in-process
when an alert target is set. It reads :mod:`rlmon.analysis` and :mod:`rlmon.runs` and never imports Streamlit.

Modules, from what happened to where it goes:

* :mod:`~rlmon.alerts.events` - the events an experiment holds (crashed, stalled/resumed, NaN/inf, signals of
  warning or above, finished, a new best score), each with a key that makes it the same event tomorrow;
* :mod:`~rlmon.alerts.rules` - which events a log root's alerts are about (settings, ``rlmon.toml`` ``[alerts]``);
* :mod:`~rlmon.alerts.wording` - the messages, in English or Chinese, and the digest of many;
* :mod:`~rlmon.alerts.targets` - target URLs, which hold secrets: shown as scheme and host, scrubbed from text;
* :mod:`~rlmon.alerts.delivery` - one message to one target through apprise;
* :mod:`~rlmon.alerts.state` - what was seen, queued and sent, kept in the cache folder;
* :mod:`~rlmon.alerts.lease` - one sender per cache folder;
* :mod:`~rlmon.alerts.peers` - each watcher's note of itself (its targets, what it cannot use), sender or not;
* :mod:`~rlmon.alerts.watcher` - the refresh that ties them together (:class:`~rlmon.alerts.watcher.Watcher`);
* :mod:`~rlmon.alerts.panel` - what the app's Alerts page shows, from the state and the notes.
"""

from __future__ import annotations

from rlmon.alerts.delivery import check_targets
from rlmon.alerts.targets import Target, redact_url
from rlmon.alerts.watcher import Watcher

__all__ = ["Target", "Watcher", "check_targets", "redact_url"]
