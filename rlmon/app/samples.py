"""Samples (what the model wrote) read through one cache per server; the overview's links to the latest.

What the samples page makes of them is :mod:`rlmon.views.samples` (pure)."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import streamlit as st

from rlmon.app import server
from rlmon.app.guards import LOG, escape_markdown
from rlmon.errors import RlmonError
from rlmon.logs.samples import ExperimentSamples, SampleCache, read_samples, read_training_dumps
from rlmon.schema import STEP
from rlmon.settings import Settings
from rlmon.text import t
from rlmon.text.display import NAME_LIMIT
from rlmon.views.model import ExperimentView
from rlmon.views.samples import SampleSet, shared_samples

__all__ = [
    "dump_folders_allowed",
    "experiment_samples",
    "experiment_training_dumps",
    "latest_sample_step",
    "latest_samples_links",
    "sample_cache",
    "sample_set",
    "shared_sample_sets",
]


@st.cache_resource(show_spinner=False)
def sample_cache(cache_dir: Path) -> SampleCache:
    """The per-log sample cache every session reads through (one per cache folder): the text of a log's
    samples is held once per server, not in each session."""
    return SampleCache(cache_dir if cache_dir.is_dir() else None)


def dump_folders_allowed(view: ExperimentView, settings: Settings) -> list[Path]:
    """Where an experiment's dump folders may be read: its log root (an object store's mirror folder for an
    ``s3://`` root), the other local log roots, and the ``dump_roots`` setting."""
    local_roots = [root for root in settings.log_roots if isinstance(root, Path)]
    return [view.ref.root, *local_roots, *settings.dump_roots]


def experiment_samples(view: ExperimentView, settings: Settings) -> ExperimentSamples:
    """An experiment's samples (:mod:`rlmon.logs.samples`) and the dump folders its logs name that were not read
    (outside :func:`dump_folders_allowed`); raises :class:`RlmonError` when a log cannot be read."""
    return read_samples(
        [item.path for item in view.ref.files],
        folder=view.ref.path,
        config=view.experiment.config,
        cache=sample_cache(settings.cache_dir),
        allowed=dump_folders_allowed(view, settings),
    )


def experiment_training_dumps(view: ExperimentView, settings: Settings) -> ExperimentSamples:
    """The records of an experiment's training dump folder (``trainer.rollout_data_dir``) inside
    :func:`dump_folders_allowed`, read through the server's sample cache; its console logs are not scanned."""
    return read_training_dumps(
        view.experiment.config,
        view.ref.path,
        cache=sample_cache(settings.cache_dir),
        allowed=dump_folders_allowed(view, settings),
    )


_SAMPLE_SCANS = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rlmon-samples")
_SAMPLE_SCANS_PENDING: set[str] = set()
_SAMPLE_SCANS_LOCK = threading.Lock()


def _scan_samples(view: ExperimentView, settings: Settings) -> None:
    try:
        server.WORK.wait()
        experiment_samples(view, settings)
    except Exception:  # a log that cannot be read shows on its own page; the overview only waits for no scan
        LOG.warning("samples of %s could not be read", view.id, exc_info=True)
    finally:
        with _SAMPLE_SCANS_LOCK:
            _SAMPLE_SCANS_PENDING.discard(view.id)


LATEST_KEPT_S = 3.0
"""Seconds the latest step with samples found for a view is kept for every session (as long as the loaders keep a
log's size and times before looking at them again): each refresh of each session asked for it, reading the run's
dump folder each time."""
_LATEST: dict[str, tuple[int, float, int | None]] = {}
"""Experiment id -> (view serial, when it was found, the latest step with samples)."""
_LATEST_LOCK = threading.Lock()


def latest_sample_step(view: ExperimentView, settings: Settings) -> int | None:
    """The latest step with samples, when the experiment's logs have been scanned for samples and have not
    changed since; otherwise None, and the scan is started in the background (the overview never waits for
    it: the link shows at the next refresh). What was found is kept for :data:`LATEST_KEPT_S` for the view,
    shared by every session."""
    now = time.monotonic()
    with _LATEST_LOCK:
        known = _LATEST.get(view.id)
    if known is not None and known[0] == view.serial and now - known[1] < LATEST_KEPT_S:
        return known[2]
    cache = sample_cache(settings.cache_dir)
    paths = [item.path for item in view.ref.files if not str(item.path).lower().endswith((".jsonl", ".ndjson"))]
    if not all(cache.is_current(path) for path in paths):
        with _SAMPLE_SCANS_LOCK:
            if view.id in _SAMPLE_SCANS_PENDING:
                return None
            _SAMPLE_SCANS_PENDING.add(view.id)
        _SAMPLE_SCANS.submit(_scan_samples, view, settings)
        return None  # not kept: the scan's result shows at the next refresh
    try:
        steps = experiment_samples(view, settings).frame.get_column(STEP).drop_nulls()
    except RlmonError:
        return None
    step = int(steps.max()) if steps.len() else None  # type: ignore[arg-type]
    with _LATEST_LOCK:
        if len(_LATEST) >= 4096:
            _LATEST.clear()
        _LATEST[view.id] = (view.serial, now, step)
    return step


def latest_samples_links(views: Sequence[ExperimentView], settings: Settings, lang: str) -> None:
    """One small link per experiment that has samples, to the samples page at its latest step."""
    latest = [(view, step) for view in views if (step := latest_sample_step(view, settings)) is not None]
    if not latest:
        return
    st.caption(t("samples_latest", lang))
    columns = st.columns(min(len(latest), 4))
    for index, (view, step) in enumerate(latest):
        with columns[index % len(columns)]:
            st.page_link(
                "pages/samples.py",
                label=t("samples_latest_link", lang, label=escape_markdown(view.label, limit=NAME_LIMIT), step=step),
                icon=":material/chat:",
                query_params={"id": view.id, "step": str(step)},
            )


def sample_set(view: ExperimentView, settings: Settings) -> SampleSet:
    """:func:`experiment_samples` as the samples page's view model takes them; raises :class:`RlmonError` when a
    log cannot be read."""
    found = experiment_samples(view, settings)
    return SampleSet(found.frame, refused=tuple(str(folder) for folder in found.refused))


def shared_sample_sets(
    samples: SampleSet, others: Sequence[ExperimentView], settings: Settings
) -> dict[str, SampleSet]:
    """Experiment id -> the samples of ``others`` of the prompts ``samples`` holds too
    (:func:`rlmon.views.samples.shared_samples`); an experiment whose logs cannot be read, or that shares no
    prompt, is left out."""
    shared_sets: dict[str, SampleSet] = {}
    for other in others:
        try:
            theirs = sample_set(other, settings)
        except RlmonError:
            continue
        shared = shared_samples(samples, theirs)
        if shared is not None:
            shared_sets[other.id] = shared
    return shared_sets
