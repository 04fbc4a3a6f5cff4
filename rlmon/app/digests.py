"""What every page shows for each experiment, computed once per experiment version and shared by every
session: its headline numbers, its signals, and the written summary of a selection; and, kept in the cache folder
(:func:`write_digest`, :func:`read_digest`), what a restarted server shows of each experiment before reading any
of its frames.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import threading
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import streamlit as st

from rlmon.app import server
from rlmon.app.guards import LOG
from rlmon.app.server import on_readers
from rlmon.errors import RlmonError
from rlmon.logs.cache import DIGESTS_FOLDER
from rlmon.settings import Settings
from rlmon.sources.discovery import ExperimentRef
from rlmon.views import model
from rlmon.views.model import ExperimentView, Insights, TableNumbers

if TYPE_CHECKING:  # the insights module is imported when first asked for
    from rlmon.analysis.signals import Signal
    from rlmon.logs.cache import LogCache
    from rlmon.runs.experiment import Experiment
    from rlmon.runs.headline import Headline

__all__ = [
    "DIGESTS_FOLDER",
    "DIGEST_FORMAT",
    "digest",
    "digest_key",
    "headline",
    "headlines",
    "insights_for",
    "read_digest",
    "view_signals",
    "views_key",
    "write_digest",
]


class _Memo:
    """Values computed once and shared by every session: a thread-safe dict keyed by experiment versions that holds
    the newest ``per_experiment`` versions of each experiment (the first item of a key is the experiment's id; a
    live run makes a version per refresh, and only the newest are asked for) and at most ``limit`` entries (the
    oldest go first)."""

    def __init__(self, limit: int, *, per_experiment: int = 2) -> None:
        self.limit = limit
        self.per_experiment = per_experiment
        self._lock = threading.Lock()
        self._entries: dict[Any, Any] = {}
        self._building: dict[Any, threading.Event] = {}

    def get(self, key: Any) -> Any | None:
        with self._lock:
            return self._entries.get(key)

    def put(self, key: Any, value: Any) -> None:
        with self._lock:
            self._entries.pop(key, None)
            same = [known for known in self._entries if known[0] == key[0]]
            for known in same[: max(0, len(same) - self.per_experiment + 1)]:
                del self._entries[known]
            while len(self._entries) >= self.limit:
                del self._entries[next(iter(self._entries))]
            self._entries[key] = value

    def get_or_build(self, key: Any, build: Callable[[], Any]) -> Any:
        """The value kept for ``key``, else ``build()`` (run outside the lock), kept. While one thread builds it,
        the others asking for the same key wait for that build instead of doing the same work: when a live log
        grows, every session's next refresh asks for the new version's summary and numbers at about the same time.
        A build that fails leaves nothing kept, and a waiting thread then builds it itself."""
        while True:
            with self._lock:
                if key in self._entries:
                    return self._entries[key]
                building = self._building.get(key)
                if building is None:
                    building = self._building[key] = threading.Event()
                    break
            building.wait()
        try:
            known = build()
            self.put(key, known)
            return known
        finally:
            with self._lock:
                del self._building[key]
            building.set()


_HEADLINES = _Memo(limit=4096)
"""(id, version) -> the table's numbers."""
_FULL_HEADLINES = _Memo(limit=4096)
"""(id, version) -> :class:`~rlmon.runs.headline.Headline` (the summary's and the paragraphs' numbers)."""


def headline(view: ExperimentView) -> TableNumbers:
    """First-5 / last-10 mean pass rate, best validation (with its step) and last validation, from
    :func:`rlmon.runs.headline.headline_numbers` (computed from the view's frame when that fails); computed once
    per experiment version. The pass rate's whole series is left out (no page shows it; a long run's is the
    largest part), its sparkline kept."""

    def build() -> TableNumbers:
        _remember_headline(view.experiment, view)
        numbers = dataclasses.replace(model.table_numbers(view), pass_rate_series=())
        if "pass_rate" in view.columns:
            from rlmon.views.charts import sparkline_values

            rates = view.read_steps(["pass_rate"]).get_column("pass_rate").drop_nulls()
            numbers = dataclasses.replace(numbers, sparkline=tuple(sparkline_values(rates, max_points=80)))
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


def _full_headline(view: ExperimentView) -> Headline:
    """:func:`rlmon.runs.headline.headline_numbers` of the view's experiment (without ``pass_rate_series``), once per
    experiment version."""
    from rlmon.runs.headline import headline_numbers

    def build() -> Headline:
        # without the pass rate's whole series: no page shows it (the table draws a sparkline of 80 points), and
        # that of a 100,000-step run is megabytes in memory and in the cache folder
        return dataclasses.replace(headline_numbers(view.experiment), pass_rate_series=())

    numbers: Headline = _FULL_HEADLINES.get_or_build((view.id, view.version), build)
    return numbers


def _remember_headline(experiment: Experiment, view: ExperimentView) -> None:
    """Let :func:`rlmon.runs.headline.headline_numbers` of ``experiment`` (the view's, or a copy of it under another
    label) answer with the numbers of the view's version (:func:`_full_headline`), computed once."""
    from rlmon.runs.headline import remember_headline

    try:
        numbers = _full_headline(view)
    except RlmonError:  # the numbers are computed from the frame when asked for, and say what went wrong
        return
    if numbers is not None:
        label = experiment.label
        remember_headline(experiment, numbers if numbers.label == label else dataclasses.replace(numbers, label=label))


def views_key(views: Sequence[ExperimentView]) -> tuple[tuple[str, int], ...]:
    """A cheap identity of a set of experiment versions (for memo keys)."""
    return tuple((view.id, view.serial) for view in views)


@st.cache_resource(show_spinner=False)
def _insight_memo() -> _Memo:
    """Insights per set of experiment versions and language."""
    return _Memo(limit=256, per_experiment=256)


_STEP_SIGNALS = _Memo(limit=4096)
"""(id, version, settings) -> the signals found in the steps (they change only with the steps)."""
_SIGNALS = _Memo(limit=4096)
"""(id, serial, settings) -> the signals of the log (the status ones change with the clock: a view per minute)."""
_DUMP_SIGNALS = _Memo(limit=4096)
"""(id, serial, settings) -> what the run's generation dumps show (:func:`_dump_signals`)."""
_DETECT_LOCK = threading.Lock()


def _as_shown(view: ExperimentView) -> Experiment:
    """The view's experiment under the label the page shows (cut, bidi controls out), not a 3,000-character one:
    what the signals and the summary name it by. Its headline numbers are those kept for the view's version."""
    experiment = view.experiment
    if view.label != experiment.label:
        experiment = dataclasses.replace(experiment, label=view.label)
    _remember_headline(experiment, view)
    return experiment


def _step_key(view: ExperimentView, settings: Settings) -> tuple[Any, ...]:
    # Not the name: signals are worked out from the data alone, once, whatever view names the run
    # (:func:`_named` gives them the name).
    return (view.id, view.version, settings)


def _signal_key(view: ExperimentView, settings: Settings) -> tuple[Any, ...]:
    return (view.id, view.serial, settings)  # the serial: those of the status change with the clock


def _step_signals(view: ExperimentView, settings: Settings) -> tuple[Signal, ...]:
    from rlmon.analysis import signals as analysis_signals

    found: tuple[Signal, ...] = _STEP_SIGNALS.get_or_build(
        _step_key(view, settings),
        lambda: tuple(analysis_signals.detect_step_signals(_as_shown(view), settings=settings)),
    )
    return found


def _named(signals: tuple[Signal, ...], view: ExperimentView) -> tuple[Signal, ...]:
    """``signals`` under the name the view shows the experiment by."""
    if all(signal.label == view.label for signal in signals):
        return signals
    return tuple(dataclasses.replace(signal, label=view.label) for signal in signals)


def _detect_signals(view: ExperimentView, settings: Settings) -> tuple[Signal, ...]:
    from rlmon.analysis import signals as analysis_signals

    status = analysis_signals.detect_status_signals(_as_shown(view), settings=settings)
    return (*status, *_step_signals(view, settings))


def _kept_dump_signals(view: ExperimentView, settings: Settings) -> tuple[Signal, ...]:
    """:func:`_dump_signals`, once per experiment version: asked for by a page, never on the readers at start
    (reading a run's dumps, 150 files of 256 records, takes about 0.7 s of a core here, which a first screen
    whose experiments are still being read would wait for)."""
    found: tuple[Signal, ...] = _DUMP_SIGNALS.get_or_build(
        _signal_key(view, settings), partial(_dump_signals, view, settings)
    )
    return found


def _dump_signals(view: ExperimentView, settings: Settings) -> tuple[Signal, ...]:
    """What the run's training generation dumps show (:mod:`rlmon.analysis.outcomes`), read through the server's
    sample cache (a dump file is read again only when it changed); none for a run that does not dump them."""
    from rlmon.app.samples import experiment_training_dumps
    from rlmon.views.outcomes import outcome_signal

    trainer = (view.experiment.config or {}).get("trainer")
    if not isinstance(trainer, dict) or not trainer.get("rollout_data_dir"):
        return ()
    try:
        signal = outcome_signal(view, experiment_training_dumps(view, settings), settings=settings)
    except (OSError, RlmonError):
        return ()
    return () if signal is None else (signal,)


def view_signals(views: Sequence[ExperimentView], settings: Settings) -> list[tuple[Signal, ...]]:
    """Each experiment's signals (:func:`rlmon.analysis.signals.detect_signals`, then its generation dumps'), those
    found in the steps computed once per experiment version (its view's ``version``: the same when only its colour,
    its name or the clock changes), whatever selection it is part of; the missing ones in parallel, one per core
    (their polars work runs outside the GIL)."""
    keys = [_signal_key(view, settings) for view in views]

    def known() -> list[tuple[Signal, ...] | None]:
        return [_SIGNALS.get(key) for key in keys]

    def detect(index: int) -> tuple[Signal, ...]:
        return _detect_signals(views[index], settings)

    found = known()
    if all(signals is not None for signals in found):
        return _with_dump_signals(found, views, settings)
    with _DETECT_LOCK, server.WORK:  # one at a time, as load_views reads: no experiment is looked at twice at once
        found = known()
        missing = [index for index, signals in enumerate(found) if signals is None]
        computed = on_readers(detect, missing)
        for index, signals in zip(missing, computed, strict=True):
            _SIGNALS.put(keys[index], signals)
            found[index] = signals
    return _with_dump_signals(found, views, settings)


def _with_dump_signals(
    found: Sequence[tuple[Signal, ...] | None], views: Sequence[ExperimentView], settings: Settings
) -> list[tuple[Signal, ...]]:
    """Each view's signals of the log, then those of its generation dumps, named as the page names the view."""
    return [
        _named((*(signals or ()), *_kept_dump_signals(view, settings)), view)
        for signals, view in zip(found, views, strict=True)
    ]


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
    _full_headline(view)
    headline(view)
    _SIGNALS.get_or_build(_signal_key(view, settings), partial(_detect_signals, view, settings))


# ------------------------------------------------------------------------------------------ in the cache folder

DIGEST_FORMAT = 1
"""The form of the digests kept in the cache folder; one of another form is not read (the logs are)."""


def digest_key(ref: ExperimentRef, files: Sequence[Any], settings: Settings) -> str:
    """What a digest is valid for: the experiment's files as they are now (``files``: each file's path, size,
    mtime, inode, device and change time), its ``rlmon.toml`` entry, the settings, and the versions of the parser,
    of rlmon and of the digest's form. Anything else gives another key, and the logs are read again."""
    from rlmon import __version__
    from rlmon.logs.parse import PARSER_VERSION

    parts = [DIGEST_FORMAT, PARSER_VERSION, __version__, str(ref.root), ref.id, str(ref.path), list(files)]
    parts += [repr(ref.overrides), repr(settings)]
    return hashlib.sha256(json.dumps(parts, default=str).encode("utf-8", "surrogatepass")).hexdigest()


def _digest_path(cache_dir: Path, ref: ExperimentRef) -> Path:
    name = hashlib.sha1(f"{ref.root}\n{ref.id}".encode("utf-8", "surrogatepass")).hexdigest()[:20]
    return cache_dir / DIGESTS_FOLDER / f"{name}.json"


def write_digest(cache_dir: Path, view: ExperimentView, settings: Settings, *, key: str, read_at: float) -> bool:
    """Keep in the cache folder what the pages show of ``view`` without its frame: the experiment as read at
    ``read_at``, its columns, its headline numbers and the signals found in its steps (computed now when not yet).
    False when it cannot be kept (a config JSON cannot hold, a cache folder that cannot be written): the next
    start reads the logs, nothing else."""
    from rlmon.logs.cache import write_text_atomically
    from rlmon.runs.stored import to_state

    try:
        state = {
            "format": DIGEST_FORMAT,
            "key": key,
            "read_at": read_at,
            "experiment": to_state(view.experiment),
            "view": {
                "logged_keys": list(view.logged_keys),
                "derived_keys": list(view.derived_keys),
                "pass_rate_mode": view.pass_rate_mode,
                "label": view.label,
            },
            "headline": dataclasses.asdict(_full_headline(view)),
            "numbers": dataclasses.asdict(headline(view)),
            "step_signals": [dataclasses.asdict(signal) for signal in _step_signals(view, settings)],
        }
        path = _digest_path(cache_dir, view.ref)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomically(json.dumps(state), path)
    except (OSError, TypeError, ValueError, RlmonError):
        LOG.debug("the digest of %s is not kept in the cache folder", view.id, exc_info=True)
        return False
    return True


def read_digest(
    cache: LogCache, ref: ExperimentRef, settings: Settings, *, key: str, now: float, serial: int
) -> ExperimentView | None:
    """The view :func:`write_digest` kept in ``cache``'s folder for ``ref`` under ``key``, moved to ``now`` (its status
    and time since it last grew: :func:`rlmon.runs.experiment.retimed`), its frame read back through ``cache``; its
    numbers and signals kept for the pages as if computed here. None when there is none for ``key`` or it is not
    what :func:`write_digest` writes."""
    from rlmon.analysis.signals import Signal
    from rlmon.runs.axes import axis_facts
    from rlmon.runs.experiment import retimed
    from rlmon.runs.headline import Headline, ValidationPoint
    from rlmon.runs.stored import experiment_from_state

    if cache.cache_dir is None:
        return None
    try:
        state = json.loads(_digest_path(cache.cache_dir, ref).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(state, dict) or state.get("format") != DIGEST_FORMAT or state.get("key") != key:
        return None
    try:
        experiment = experiment_from_state(state["experiment"], cache=cache)
        experiment = retimed(experiment, now=now, stall_factor=settings.stall_factor, stall_min_s=settings.stall_min_s)
        shown = state["view"]
        logged, derived = _strings(shown["logged_keys"]), _strings(shown["derived_keys"])
        view = ExperimentView(
            ref=ref, experiment=experiment, logged_keys=logged, derived_keys=derived, serial=serial, version=serial,
            pass_rate_mode=str(shown["pass_rate_mode"]), axis_facts=axis_facts(experiment, ("step", *logged, *derived)),
        )  # fmt: skip
        if view.label != shown["label"]:
            return None  # the signals name it by the label shown
        numbers = dict(state["headline"])
        for name in ("best_validation", "last_validation"):
            numbers[name] = tuple(ValidationPoint(**point) for point in numbers[name])
        numbers["pass_rate_series"] = tuple(numbers["pass_rate_series"])
        full = Headline(**numbers)
        table = dict(state["numbers"])
        table["pass_rate_series"] = tuple(table["pass_rate_series"])
        table["sparkline"] = tuple(table["sparkline"])
        signals = tuple(Signal(**item) for item in state["step_signals"])
        table_numbers = TableNumbers(**table)
    except (KeyError, TypeError, ValueError, AttributeError):
        LOG.debug("the digest of %s in the cache folder is not usable", ref.id, exc_info=True)
        return None
    _FULL_HEADLINES.put((view.id, view.version), full)
    _HEADLINES.put((view.id, view.version), table_numbers)
    _STEP_SIGNALS.put(_step_key(view, settings), signals)
    return view


def _strings(values: Any) -> tuple[str, ...]:
    if not isinstance(values, list) or not all(isinstance(value, str) for value in values):
        raise ValueError("not a list of names")
    return tuple(values)
