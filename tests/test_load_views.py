"""``ui.load_views`` reads the experiments of a catalog in parallel: the same views as one after another, and one
experiment that cannot be read is the only one reported so (the demo root; a failure injected in one folder)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from polars.testing import assert_frame_equal

from rlmon import catalog, ui
from rlmon.catalog import discover_experiments
from rlmon.settings import load_settings


def _read(demo_root: Path, cache_dir: Path) -> ui.LoadedViews:
    settings = load_settings([], {"RLMON_CACHE_DIR": str(cache_dir)})
    return ui.load_views(discover_experiments([demo_root]), settings)


def _parallel(monkeypatch: pytest.MonkeyPatch, workers: int) -> None:
    monkeypatch.setattr(ui, "_READER_COUNT", workers)
    monkeypatch.setattr(ui, "_READERS", ThreadPoolExecutor(max_workers=workers))


def test_parallel_reading_gives_what_reading_one_by_one_gives(
    demo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _parallel(monkeypatch, 1)
    one_by_one = _read(demo_root, tmp_path / "sequential")
    _parallel(monkeypatch, 3)
    parallel = _read(demo_root, tmp_path / "parallel")
    assert [view.id for view in parallel.views] == [ref.id for ref in discover_experiments([demo_root]).experiments]
    assert [view.id for view in parallel.views] == [view.id for view in one_by_one.views]
    assert parallel.errors == one_by_one.errors == ()
    for mine, theirs in zip(parallel.views, one_by_one.views, strict=True):
        assert mine.color == theirs.color
        # idle_s counts from the moment each was read
        summary = {key: value for key, value in mine.experiment.to_summary_dict().items() if key != "idle_s"}
        assert summary == {key: value for key, value in theirs.experiment.to_summary_dict().items() if key != "idle_s"}
        assert_frame_equal(mine.experiment.steps, theirs.experiment.steps)


def test_experiments_are_read_at_the_same_time(
    demo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The first two reads wait for each other: read one after another, the first would wait in vain.
    _parallel(monkeypatch, 2)
    meeting = threading.Barrier(2, timeout=20)
    met: list[bool] = []
    real = ui.load_experiment

    def meet(ref: catalog.ExperimentRef, *args: Any, **kwargs: Any) -> Any:
        if len(met) < 2:
            met.append(True)
            meeting.wait()
        return real(ref, *args, **kwargs)

    monkeypatch.setattr(ui, "load_experiment", meet)
    loaded = _read(demo_root, tmp_path / "cache")
    assert loaded.errors == ()
    assert len(loaded.views) == len(discover_experiments([demo_root]).experiments)


def test_one_failing_experiment_among_parallel_reads(
    demo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _parallel(monkeypatch, 2)
    real = ui.load_experiment

    def failing(ref: catalog.ExperimentRef, *args: Any, **kwargs: Any) -> Any:
        if ref.id == "4b/e2_dapo_4b":
            raise MemoryError()
        return real(ref, *args, **kwargs)

    monkeypatch.setattr(ui, "load_experiment", failing)
    loaded = _read(demo_root, tmp_path / "cache")
    ids = [ref.id for ref in discover_experiments([demo_root]).experiments]
    assert [view.id for view in loaded.views] == [item for item in ids if item != "4b/e2_dapo_4b"]
    (unreadable,) = loaded.errors
    assert (unreadable.id, unreadable.reason) == ("4b/e2_dapo_4b", "MemoryError")


class _NoPool:
    """A pool that must not be used."""

    def map(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the pool was asked to read")


def test_memoised_views_are_not_sent_to_the_pool(
    demo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _parallel(monkeypatch, 2)
    first = _read(demo_root, tmp_path / "cache")
    monkeypatch.setattr(ui, "_READERS", _NoPool())
    again = _read(demo_root, tmp_path / "cache")
    # (the demo's running experiment may be read again when the minute turns: one read, not through the pool)
    assert [view.id for view in again.views] == [view.id for view in first.views]
