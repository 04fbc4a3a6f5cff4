"""What rlmon reasons from the runs: smoothing, run-health signals and the written summary.

* :mod:`rlmon.analysis.smoothing` — moving average and debiased EMA of the charted metrics, and downsampling;
* :mod:`rlmon.analysis.health` — verl's own health rules (thresholds from verl's docs, each with its file);
* :mod:`rlmon.analysis.signals` — :func:`detect_signals` finds :class:`Signal` s (spikes, entropy drift,
  validation drops, crashes, ...) in one experiment, :func:`detect_all` in several;
* :mod:`rlmon.analysis.summary` — :func:`write_summary` and :func:`experiment_paragraph` write them up in
  English or Chinese; :func:`summary_for_root` is ``rlmon summary ROOT``.
"""

from __future__ import annotations

from rlmon.analysis.signals import KINDS, SEVERITIES, Severity, Signal, detect_all, detect_signals
from rlmon.analysis.smoothing import Smoothing
from rlmon.analysis.summary import experiment_paragraph, summary_for_root, write_summary

__all__ = [
    "KINDS",
    "SEVERITIES",
    "Severity",
    "Signal",
    "Smoothing",
    "detect_all",
    "detect_signals",
    "experiment_paragraph",
    "summary_for_root",
    "write_summary",
]
