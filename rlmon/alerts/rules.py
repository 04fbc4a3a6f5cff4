"""Which events of a log root are sent: the settings' kinds and minimum severity, replaced for a root by its
``rlmon.toml`` ``[alerts]`` table, which may also keep to some tracks or experiments.

>>> from rlmon.settings import Settings
>>> rules = rules_for(Settings(), None)
>>> sorted(rules.kinds)[:3], rules.min_severity
(['crashed', 'finished', 'non_finite'], 'info')
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase

from rlmon.alerts.events import SIGNAL_KINDS, AlertEvent
from rlmon.settings import ALERT_SEVERITIES, Settings
from rlmon.sources.rlmon_toml import AlertsTable

__all__ = ["AlertRules", "rules_for"]


@dataclass(frozen=True)
class AlertRules:
    """What is sent about one root's experiments."""

    kinds: frozenset[str]
    """Among :data:`rlmon.settings.ALERT_KINDS`; ``signals`` stands for every kind of :data:`SIGNAL_KINDS`."""
    min_severity: str
    tracks: tuple[str, ...] | None = None
    """Only these tracks' experiments (None: every track)."""
    experiments: tuple[str, ...] | None = None
    """Only the experiments whose id or folder matches one of these ``fnmatch`` patterns (None: every one)."""

    def wants(self, event: AlertEvent) -> bool:
        """Whether ``event`` is sent under these rules."""
        kind = event.rule_kind
        if kind not in self.kinds and not (kind in SIGNAL_KINDS and "signals" in self.kinds):
            return False
        if ALERT_SEVERITIES.index(event.severity) < ALERT_SEVERITIES.index(self.min_severity):
            return False
        if self.tracks is not None and event.track not in self.tracks:
            return False
        if self.experiments is not None:
            names = (event.experiment, event.relative)
            if not any(fnmatchcase(name, pattern) for pattern in self.experiments for name in names):
                return False
        return True


def rules_for(settings: Settings, table: AlertsTable | None) -> AlertRules:
    """The rules of a root: ``table``'s values where it sets them, else the settings'."""
    table = table or AlertsTable()
    return AlertRules(
        kinds=frozenset(table.kinds if table.kinds is not None else settings.alert_kinds),
        min_severity=table.min_severity or settings.alert_min_severity,
        tracks=table.tracks,
        experiments=table.experiments,
    )
