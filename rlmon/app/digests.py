"""What every page shows for each experiment, computed once per experiment version and shared by every
session: its headline numbers, its signals, and the written summary of a selection.
"""

from __future__ import annotations

import dataclasses
import itertools
import threading
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

import streamlit as st

from rlmon.app import server
from rlmon.app.server import on_readers
from rlmon.settings import Settings
from rlmon.views import model
from rlmon.views.model import ExperimentView, Insights, TableNumbers

if TYPE_CHECKING:  # the insights module is imported when first asked for
    from rlmon.analysis.signals import Signal
    from rlmon.runs.experiment import Experiment

__all__ = ["digest", "headline", "headlines", "insights_for", "view_signals", "views_key"]


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


_HEADLINES = _Memo(limit=4096)


def headline(view: ExperimentView) -> TableNumbers:
    """First-5 / last-10 mean pass rate, best validation (with its step) and last validation, from
    :func:`rlmon.runs.headline.headline_numbers` (computed from the view's frame when that fails); computed once
    per experiment version."""

    def build() -> TableNumbers:
        numbers = model.table_numbers(view)
        if "pass_rate" in view.steps.columns:
            from rlmon.views.charts import sparkline_values

            spark = sparkline_values(view.steps.get_column("pass_rate").drop_nulls(), max_points=80)
            numbers = dataclasses.replace(numbers, sparkline=tuple(spark))
        return numbers

    numbers: TableNumbers = _HEADLINES.get_or_build((view.id, view.version), build)
    return numbers


def headlines(views: Sequence[ExperimentView]) -> dict[str, TableNumbers]:
    """:func:`headline` of each view by id; the ones not computed yet in parallel, one per core."""
    missing = [view for view in views if _HEADLINES.get((view.id, view.version)) is None]
    if missing:
        with server.WORK:
            on_readers(headline, missing)
    return {view.id: headline(view) for view in views}


def views_key(views: Sequence[ExperimentView]) -> tuple[tuple[str, int], ...]:
    """A cheap identity of a set of experiment versions (for memo keys)."""
    return tuple((view.id, view.serial) for view in views)


@st.cache_resource(show_spinner=False)
def _insight_memo() -> _Memo:
    """Insights per set of experiment versions and language."""
    return _Memo(limit=256)


_SIGNALS = _Memo(limit=4096)
_DETECT_LOCK = threading.Lock()


def _as_shown(view: ExperimentView) -> Experiment:
    """The view's experiment under the label the page shows (cut, bidi controls out), not a 3,000-character one:
    what the signals and the summary name it by."""
    if view.label == view.experiment.label:
        return view.experiment
    return dataclasses.replace(view.experiment, label=view.label)


def _signal_key(view: ExperimentView, settings: Settings) -> tuple[Any, ...]:
    # Not the name: signals are worked out from the data alone, once, whatever view names the run
    # (:func:`_named` gives them the name).
    return (view.id, view.version, settings)


def _named(signals: tuple[Signal, ...], view: ExperimentView) -> tuple[Signal, ...]:
    """``signals`` under the name the view shows the experiment by."""
    if all(signal.label == view.label for signal in signals):
        return signals
    return tuple(dataclasses.replace(signal, label=view.label) for signal in signals)


def _detect_signals(view: ExperimentView, settings: Settings) -> tuple[Signal, ...]:
    from rlmon.analysis import signals as analysis_signals

    return tuple(analysis_signals.detect_signals(_as_shown(view), settings=settings))


def view_signals(views: Sequence[ExperimentView], settings: Settings) -> list[tuple[Signal, ...]]:
    """Each experiment's signals (:func:`rlmon.analysis.signals.detect_signals`), computed once per experiment version
    (its view's ``version``: the same when only its colour or name changes), whatever selection it is part of; the
    missing ones in parallel, one per core (their polars work runs outside the GIL)."""
    keys = [_signal_key(view, settings) for view in views]

    def known() -> list[tuple[Signal, ...] | None]:
        return [_SIGNALS.get(key) for key in keys]

    def detect(index: int) -> tuple[Signal, ...]:
        return _detect_signals(views[index], settings)

    found = known()
    if all(signals is not None for signals in found):
        return [_named(signals or (), view) for signals, view in zip(found, views, strict=True)]
    with _DETECT_LOCK, server.WORK:  # one at a time, as load_views reads: no experiment is looked at twice at once
        found = known()
        missing = [index for index, signals in enumerate(found) if signals is None]
        computed = on_readers(detect, missing)
        for index, signals in zip(missing, computed, strict=True):
            _SIGNALS.put(keys[index], signals)
            found[index] = signals
    return [_named(signals or (), view) for signals, view in zip(found, views, strict=True)]


def insights_for(views: Sequence[ExperimentView], settings: Settings, lang: str) -> Insights:
    """Signals, the written summary and each experiment's paragraph, computed once per set of experiment
    versions and language and shared by every session."""
    from rlmon.analysis import summary as analysis_summary

    key = (views_key(views), lang)

    def build() -> Insights:
        experiments = [_as_shown(view) for view in views]
        signals = tuple(itertools.chain.from_iterable(view_signals(views, settings)))
        summary = tuple(analysis_summary.write_summary(experiments, list(signals), lang=lang, settings=settings))
        paragraphs: dict[str, str] = {}
        for experiment in experiments:
            own = [signal for signal in signals if signal.experiment == experiment.id]
            paragraphs[experiment.id] = analysis_summary.experiment_paragraph(
                experiment, own, lang=lang, peers=experiments, settings=settings
            )
        return Insights(available=True, signals=signals, summary=summary, paragraphs=paragraphs)

    insights_now: Insights = _insight_memo().get_or_build(key, build)
    return insights_now


def digest(view: ExperimentView, settings: Settings) -> None:
    """Compute (and keep) the view's headline numbers and signals, as :func:`headline` and :func:`view_signals`
    would."""
    headline(view)
    _SIGNALS.get_or_build(_signal_key(view, settings), partial(_detect_signals, view, settings))
