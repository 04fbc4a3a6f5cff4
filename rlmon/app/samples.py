"""Samples (what the model wrote) read through one cache per server; the overview's links to the latest."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import polars as pl
import streamlit as st

from rlmon.app import server
from rlmon.app.guards import LOG
from rlmon.errors import RlmonError
from rlmon.logs.samples import SampleCache, filter_samples, read_samples, samples_for_prompt
from rlmon.schema import STEP
from rlmon.settings import Settings
from rlmon.text import t
from rlmon.views.model import ExperimentView

__all__ = [
    "browse_rows",
    "experiment_samples",
    "latest_sample_step",
    "latest_samples_links",
    "prompt_steps",
    "prompts_at_several_steps",
    "prompts_latest_first",
    "sample_at",
    "sample_cache",
    "sample_sources",
    "sample_steps",
    "shared_samples",
]


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
        server.WORK.wait()
        experiment_samples(view, settings)
    except Exception:  # a log that cannot be read shows on its own page; the overview only waits for no scan
        LOG.warning("samples of %s could not be read", view.id, exc_info=True)
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
    st.caption(t("samples_latest", lang))
    columns = st.columns(min(len(latest), 4))
    for index, (view, step) in enumerate(latest):
        with columns[index % len(columns)]:
            st.page_link(
                "pages/samples.py",
                label=t("samples_latest_link", lang, label=view.label, step=step),
                icon=":material/chat:",
                query_params={"id": view.id, "step": str(step)},
            )


# What the samples page shows of an experiment's samples (frames of :func:`rlmon.logs.samples.read_samples`).


def sample_steps(samples: pl.DataFrame) -> list[int]:
    """The steps with samples, newest first."""
    return sorted({int(step) for step in samples.get_column(STEP).drop_nulls().to_list()}, reverse=True)


def sample_sources(samples: pl.DataFrame) -> list[str]:
    """The data sources with samples, sorted."""
    return sorted(set(samples.get_column("data_source").drop_nulls().to_list()))


def browse_rows(
    samples: pl.DataFrame, *, step: int | None, data_source: str | None, outcome: str | None, text: str, limit: int
) -> tuple[list[dict[str, Any]], int]:
    """(the first ``limit`` samples passing the filters, newest first - the latest step is what a team asks
    about -, how many pass them)."""
    chosen = filter_samples(samples, step=step, data_source=data_source, outcome=outcome, text=text)
    chosen = chosen.with_row_index("_order").sort([STEP, "_order"], descending=[True, False], nulls_last=False)
    return list(chosen.head(limit).iter_rows(named=True)), chosen.height


def prompts_at_several_steps(samples: pl.DataFrame) -> list[str]:
    """The prompts sampled at more than one step, the most often sampled first."""
    stepped = samples.filter(pl.col(STEP).is_not_null())
    counts = stepped.group_by("prompt").agg(pl.col(STEP).n_unique().alias("steps")).filter(pl.col("steps") > 1)
    prompts: list[str] = counts.sort("steps", descending=True, maintain_order=True).get_column("prompt").to_list()
    return prompts


def prompt_steps(samples: pl.DataFrame, prompt: str) -> list[int]:
    """The steps ``prompt`` was sampled at, in order."""
    rows = samples_for_prompt(samples.filter(pl.col(STEP).is_not_null()), prompt)
    return sorted(set(rows.get_column(STEP).to_list()))


def sample_at(samples: pl.DataFrame, prompt: str, step: int) -> dict[str, Any]:
    """The first sample of ``prompt`` at ``step``."""
    rows = samples_for_prompt(samples.filter(pl.col(STEP).is_not_null()), prompt)
    return samples_for_prompt(rows, prompt, step=step).row(0, named=True)


def shared_samples(samples: pl.DataFrame, theirs: pl.DataFrame) -> pl.DataFrame | None:
    """Another experiment's samples (``theirs``) of the prompts ``samples`` holds too, at known steps; None when
    there are none."""
    mine = set(samples.get_column("prompt").to_list())
    shared = theirs.filter(pl.col("prompt").is_in(list(mine)) & pl.col(STEP).is_not_null())
    return shared if shared.height else None


def prompts_latest_first(samples: pl.DataFrame) -> list[str]:
    """The prompts of ``samples``, the latest sampled first."""
    latest = samples.group_by("prompt", maintain_order=True).agg(pl.col(STEP).max().alias("latest"))
    prompts: list[str] = latest.sort("latest", descending=True, maintain_order=True).get_column("prompt").to_list()
    return prompts
