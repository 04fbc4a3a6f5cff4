"""A server in bounded memory (``frame_memory_mb``): its views hold no frame, show what the views of the unbounded
path show (every experiment read through an in-memory cache and held), survive a restart through the digests kept
in the cache folder (nothing parsed, no frame read), move with the clock without reading, and read a large root's
first screen first.

Expected values are read off the generated logs' text where a number is checked by itself (the pass rate of the
last 10 steps, the best validation and its step) and otherwise come from the unbounded path, which the other tests
check against the logs.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import streamlit as st
from polars.testing import assert_frame_equal

from rlmon.analysis import summary as analysis_summary
from rlmon.analysis.signals import detect_signals
from rlmon.app import digests, loaders, server
from rlmon.logs.cache import LogCache
from rlmon.runs.loading import load_experiment
from rlmon.settings import Settings, load_settings
from rlmon.sources.discovery import discover_experiments
from rlmon.views import model
from tests.helpers.generated_roots import GeneratedRoot, write_generated_root


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> GeneratedRoot:
    return write_generated_root(tmp_path_factory.mktemp("generated") / "logs")


def _settings(root: Path, cache_dir: Path, **more: str) -> Settings:
    env = {"RLMON_LOG_ROOT": str(root), "RLMON_CACHE_DIR": str(cache_dir), "RLMON_FRAME_MEMORY_MB": "0", **more}
    return load_settings([], env)


def _restart() -> None:
    """What a new server process starts without: the memoised views and log cache, the numbers and signals."""
    st.cache_resource.clear()
    for memo in (digests._HEADLINES, digests._FULL_HEADLINES, digests._STEP_SIGNALS, digests._SIGNALS):
        memo._entries.clear()


def _unbounded(root: Path, settings: Settings) -> dict[str, model.ExperimentView]:
    cache = LogCache(None)
    now = time.time()
    return {
        ref.id: model.view_of(ref, load_experiment(ref, cache, now=now, settings=settings))
        for ref in discover_experiments([root]).experiments
    }


def _summary(view: model.ExperimentView) -> dict[str, Any]:
    return {key: value for key, value in view.experiment.to_summary_dict().items() if key not in ("idle_s", "color")}


def _assert_same_as_unbounded(
    views: tuple[model.ExperimentView, ...], expected: dict[str, model.ExperimentView], settings: Settings
) -> None:
    assert [view.id for view in views] == list(expected)
    numbers = digests.headlines(views)
    signals = digests.view_signals(views, settings)
    for view, found in zip(views, signals, strict=True):
        held = expected[view.id]
        assert view.held_steps is None and view.experiment.step_source is not None
        assert _summary(view) == _summary(held)
        assert_frame_equal(view.steps, held.steps)
        want = dataclasses.replace(model.table_numbers(held), pass_rate_series=())
        assert dataclasses.replace(numbers[view.id], sparkline=()) == want
        assert list(found) == detect_signals(held.experiment, settings=settings)
    shown = digests.insights_for(views, settings, "en")
    experiments = [held.experiment for held in expected.values()]
    flat = [signal for view in views for signal in detect_signals(expected[view.id].experiment, settings=settings)]
    assert list(shown.summary) == analysis_summary.write_summary(experiments, flat, lang="en", settings=settings)


def _last10_pass_and_best_validation(log: Path) -> tuple[float, float, int]:
    """Read off a generated log: the mean pass rate of its last 10 steps ((score + 1) / 2 in %: its scores run from
    -1), and its best validation score with the first step it was reached."""
    scores: list[float] = []
    validations: list[tuple[float, int]] = []
    for line in log.read_text(encoding="utf-8").splitlines():
        step = re.search(r"step:(\d+) ", line)
        score = re.search(r"critic/score/mean:(-?[\d.]+)", line)
        if step and score:
            scores.append(float(score.group(1)))
        value = re.search(r"val-core/[^:]+/acc/mean@1:(-?[\d.]+)", line)
        if step and value:
            validations.append((float(value.group(1)), int(step.group(1))))
    best = max(value for value, _ in validations)
    first_step = min(step for value, step in validations if value == best)
    return sum((score + 1) / 2 * 100 for score in scores[-10:]) / 10, best, first_step


def test_a_bounded_server_shows_what_the_unbounded_path_shows(generated: GeneratedRoot, tmp_path: Path) -> None:
    _restart()
    settings = _settings(generated.root, tmp_path / "cache")
    loaded = loaders.load_views(discover_experiments([generated.root]), settings)
    assert loaded.errors == () and loaded.pending == 0
    _assert_same_as_unbounded(loaded.views, _unbounded(generated.root, settings), settings)
    cache = server.log_cache(settings)
    assert cache.held_bytes <= max(int(view.steps.estimated_size()) for view in loaded.views)
    view = loaded.views[0]
    last10, best, best_step = _last10_pass_and_best_validation(next(Path(view.experiment.path).glob("*.log")))
    numbers = digests.headline(view)
    assert numbers.last10_pass == pytest.approx(last10, abs=1e-9)
    assert (numbers.best_val, numbers.best_val_step) == (pytest.approx(best), best_step)


def test_a_restart_shows_every_experiment_from_the_cache_folder_reading_no_log(
    generated: GeneratedRoot, tmp_path: Path
) -> None:
    _restart()
    settings = _settings(generated.root, tmp_path / "cache")
    catalog = discover_experiments([generated.root])
    before = loaders.load_views(catalog, settings).views
    digests.view_signals(before, settings)
    assert len(list((tmp_path / "cache" / digests.DIGESTS_FOLDER).glob("*.json"))) == len(before)
    _restart()
    views = loaders.load_views(catalog, settings).views
    cache = server.log_cache(settings)
    assert [view.id for view in views] == [view.id for view in before]
    for view, earlier in zip(views, before, strict=True):
        assert view is not earlier
        assert _summary(view) == _summary(earlier)
        assert view.color == earlier.color
    digests.headlines(views)
    digests.view_signals(views, settings)
    digests.insights_for(views, settings, "zh")
    assert (cache.parses, cache.read_backs) == (0, 0)  # no log parsed, no frame read: numbers and signals kept
    assert cache.held_bytes == 0
    _assert_same_as_unbounded(views, _unbounded(generated.root, settings), settings)


def test_a_digest_that_does_not_answer_for_the_logs_as_they_are_is_not_used(
    generated: GeneratedRoot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _restart()
    settings = _settings(generated.root, tmp_path / "cache")
    catalog = discover_experiments([generated.root])
    loaders.load_views(catalog, settings)
    read: list[str] = []
    real_load = loaders.load_experiment

    def counted_load(ref: Any, *args: Any, **kwargs: Any) -> Any:
        read.append(ref.id)
        return real_load(ref, *args, **kwargs)

    monkeypatch.setattr(loaders, "load_experiment", counted_load)
    digest_files = sorted((tmp_path / "cache" / digests.DIGESTS_FOLDER).glob("*.json"))
    digest_files[0].write_text("{not json", encoding="utf-8")
    state = json.loads(digest_files[1].read_text(encoding="utf-8"))
    state["experiment"]["steps_done"] = "many"
    digest_files[1].write_text(json.dumps(state), encoding="utf-8")
    _restart()
    views = loaders.load_views(catalog, settings).views
    assert len(read) == 2  # those two are read from the logs (their parsed frames), the others from their digests
    for path in digest_files[:2]:  # and kept again as they should be
        assert isinstance(json.loads(path.read_text(encoding="utf-8"))["experiment"]["steps_done"], int)
    _assert_same_as_unbounded(views, _unbounded(generated.root, settings), settings)
    # another setting (a signal's threshold) gives another key: every experiment is read again
    _restart()
    read.clear()
    other = _settings(generated.root, tmp_path / "cache", RLMON_SPIKE_FACTOR="4")
    loaders.load_views(catalog, other)
    assert sorted(read) == sorted(view.id for view in views)


def _running_root(root: Path) -> Path:
    folder = root / "run"
    folder.mkdir(parents=True)
    lines = [
        "(TaskRunner pid=1) {'actor_rollout_ref': {'model': {'path': '/m/Qwen3-4B'}}}",
        "Total training steps: 100",
    ]
    lines += [f"(TaskRunner pid=1) step:{step} - critic/score/mean:0.5 - timing_s/step:60.0" for step in range(1, 21)]
    log = folder / "train.log"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return log


def test_a_running_run_turns_stalled_with_the_clock_without_a_read(tmp_path: Path) -> None:
    _restart()
    log = _running_root(tmp_path / "logs")
    settings = _settings(tmp_path / "logs", tmp_path / "cache")
    (ref,) = discover_experiments([tmp_path / "logs"]).experiments
    memo = loaders._view_memo(settings.cache_dir)
    cache = server.log_cache(settings)
    written = log.stat().st_mtime
    view = memo.get(ref, cache, settings, written + 60)
    assert isinstance(view, model.ExperimentView) and view.status == "running"
    assert [signal.kind for signal in digests.view_signals([view], settings)[0]] == []
    parses, read_backs = cache.parses, cache.read_backs
    # 20 steps of 60 s: stalled after max(3 x 60 s, 600 s) = 600 s without growing
    later = memo.get(ref, cache, settings, written + 601)
    assert isinstance(later, model.ExperimentView)
    assert (later.status, later.experiment.idle_s, later.version) == ("stalled", pytest.approx(601.0), view.version)
    assert later.serial != view.serial
    assert [signal.kind for signal in digests.view_signals([later], settings)[0]] == ["stalled"]
    assert (cache.parses, cache.read_backs) == (parses, read_backs)
    # a restart an hour later: the kept digest moved to that moment
    _restart()
    restarted = loaders._view_memo(settings.cache_dir).get(ref, server.log_cache(settings), settings, written + 3600)
    assert isinstance(restarted, model.ExperimentView)
    assert (restarted.status, restarted.experiment.idle_s) == ("stalled", pytest.approx(3600.0))
    assert [signal.kind for signal in digests.view_signals([restarted], settings)[0]] == ["stalled"]
    assert server.log_cache(settings).parses == 0


def _two_tracks(root: Path) -> dict[str, list[str]]:
    """Track A written long ago, track B of today: the first screen shows B."""
    ids: dict[str, list[str]] = {"A": [], "B": []}
    for track, model_name, when in (("A", "Qwen3-1.7B", time.time() - 86_400), ("B", "Qwen3-8B", time.time())):
        for number in range(3):
            folder = root / f"{track.lower()}{number}"
            folder.mkdir(parents=True)
            log = folder / "train.log"
            log.write_text(
                "(TaskRunner pid=1) {'actor_rollout_ref': {'model': {'path': '/m/"
                + model_name
                + "'}}}\n"
                + "".join(f"(TaskRunner pid=1) step:{step} - critic/score/mean:0.5\n" for step in range(1, 6)),
                encoding="utf-8",
            )
            os.utime(log, (when + number, when + number))
            ids[track].append(folder.name)
    return ids


def test_a_start_read_reads_the_first_screen_first_and_a_visit_waits_for_it_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _restart()
    ids = _two_tracks(tmp_path / "logs")
    settings = _settings(tmp_path / "logs", tmp_path / "cache")
    catalog = discover_experiments([tmp_path / "logs"])
    start = loaders._StartRead()
    read_order: list[str] = []
    release = threading.Event()
    real = loaders._build_view

    def build(ref: Any, *args: Any) -> Any:
        if ref.id in ids["A"]:
            assert start.first_screen.is_set(), "an experiment of another track was read before the first screen's"
            assert release.wait(30)
        read_order.append(ref.id)
        return real(ref, *args)

    monkeypatch.setattr(loaders, "_build_view", build)
    monkeypatch.setitem(loaders._START_READS, settings.cache_dir, start)
    cache = server.log_cache(settings)
    reader = threading.Thread(target=loaders._first_screen_first, args=(catalog, settings, cache, start))
    reader.start()
    assert start.first_screen.wait(30)
    visit = loaders.load_views(catalog, settings)  # while track A is still being read
    assert sorted(view.id for view in visit.views) == sorted(ids["B"])
    assert visit.pending == len(ids["A"])
    assert {view.experiment.track for view in visit.views} == {"Qwen3-8B"}
    release.set()
    reader.join(60)
    start.done.set()
    assert sorted(read_order[:3]) == sorted(ids["B"]) and sorted(read_order[3:]) == sorted(ids["A"])
    complete = loaders.load_views(catalog, settings)
    assert complete.pending == 0 and len(complete.views) == 6


def test_the_server_is_not_quiet_while_the_read_at_start_reads_the_rest_of_the_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What waits for a quiet moment (the samples scan, the charts built ahead of a scroll) waits for the whole read,
    not only for the first screen's part: on 2 cores it took the read's time."""
    _restart()
    ids = _two_tracks(tmp_path / "logs")
    settings = _settings(tmp_path / "logs", tmp_path / "cache")
    catalog = discover_experiments([tmp_path / "logs"])
    start = loaders._StartRead()
    quiet_while_read: dict[str, bool] = {}
    real = loaders._build_view

    def build(ref: Any, *args: Any) -> Any:
        quiet_while_read[ref.id] = server.WORK.quiet(0.0)
        return real(ref, *args)

    monkeypatch.setattr(loaders, "_build_view", build)
    loaders._first_screen_first(catalog, settings, server.log_cache(settings), start)
    assert start.first_screen.is_set()
    assert sorted(quiet_while_read) == sorted(ids["A"] + ids["B"])
    assert not any(quiet_while_read.values())
    assert server.WORK.quiet(0.0)  # and quiet once it has read them


def test_the_first_screen_is_guessed_from_what_is_kept_and_the_start_of_the_others(tmp_path: Path) -> None:
    _restart()
    ids = _two_tracks(tmp_path / "logs")
    refs = {ref.id: ref for ref in discover_experiments([tmp_path / "logs"]).experiments}
    assert loaders._likely_first_track([], list(refs.values()), ["Qwen3-1.7B"] * 3 + ["Qwen3-8B"] * 3) == "Qwen3-8B"
    # one run of the newest track: nothing to compare there, the track before it
    lone = [refs[ids["A"][0]], refs[ids["A"][1]], refs[ids["B"][2]]]
    assert loaders._likely_first_track([], lone, ["Qwen3-1.7B", "Qwen3-1.7B", "Qwen3-8B"]) == "Qwen3-1.7B"
    # one track: all tracks
    assert loaders._likely_first_track([], lone[:2], ["Qwen3-1.7B", "Qwen3-1.7B"]) is None


def test_a_visit_as_the_server_starts_finds_the_start_read_already_known(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The read at start is known before its thread runs: a visit coming at once waits for the first screen's
    experiments, and does not read the whole root itself."""
    _restart()
    _two_tracks(tmp_path / "logs")
    env = {"RLMON_LOG_ROOT": str(tmp_path / "logs"), "RLMON_CACHE_DIR": str(tmp_path / "cache")}
    handed: list[Any] = []
    monkeypatch.setattr(loaders, "_read_at_start", lambda argv, env, start: handed.append(start))
    monkeypatch.setattr(loaders, "_START_READS", {})
    loaders.read_at_start(["streamlit_app.py"], env).join(30)
    (start,) = handed
    assert {load_settings([], env).cache_dir: start} == loaders._START_READS
    assert not start.first_screen.is_set()


def test_what_a_visit_asks_of_the_readers_does_not_wait_for_the_rest_of_the_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _restart()
    ids = _two_tracks(tmp_path / "logs")
    settings = _settings(tmp_path / "logs", tmp_path / "cache")
    catalog = discover_experiments([tmp_path / "logs"])
    start = loaders._StartRead()
    events: list[str] = []
    first_of_rest = threading.Event()
    visit_asked = threading.Event()
    real = loaders._build_view

    def build(ref: Any, *args: Any) -> Any:
        if ref.id in ids["A"]:
            events.append(f"read {ref.id}")
            if not first_of_rest.is_set():
                first_of_rest.set()
                assert visit_asked.wait(30)
                time.sleep(0.2)  # the visit's work is queued on the reader pool by now
        return real(ref, *args)

    monkeypatch.setattr(loaders, "_build_view", build)
    monkeypatch.setattr(loaders, "REST_BATCH", 1)
    cache = server.log_cache(settings)
    reader = threading.Thread(target=loaders._first_screen_first, args=(catalog, settings, cache, start))
    reader.start()
    assert first_of_rest.wait(30)
    visit = threading.Thread(target=lambda: server.on_readers(lambda item: events.append(f"visit {item}"), [1, 2]))
    visit.start()
    visit_asked.set()
    visit.join(30)
    reader.join(60)
    # the visit's two items ran before the second experiment of the rest was read
    assert [event.split()[0] for event in events[:3]] == ["read", "visit", "visit"]
    assert len([event for event in events if event.startswith("read")]) == 3


def test_a_restart_reads_the_first_screens_frames_once_the_first_page_is_sent_and_no_other(
    generated: GeneratedRoot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _restart()
    settings = _settings(generated.root, tmp_path / "cache", RLMON_FRAME_MEMORY_MB="128")
    catalog = discover_experiments([generated.root])
    loaders.load_views(catalog, settings)
    _restart()
    sent = threading.Event()
    monkeypatch.setattr(server, "PAGE_SENT", sent)
    cache = server.log_cache(settings)
    start = loaders._StartRead()
    reader = loaders._first_screen_first(catalog, settings, cache, start)
    assert start.first_screen.is_set() and reader is not None
    # the first visit's run builds its page from what is kept; no frame is read meanwhile
    reader.join(0.5)
    assert reader.is_alive() and cache._held == {} and cache.read_backs == 0
    sent.set()
    reader.join(60)
    assert not reader.is_alive()
    held = {Path(path).parent.name for path in cache._held}
    # the generated root's newest track is Qwen3-8B (written last): its 12 experiments' frames, from the folder
    newest = {path.name for path in (generated.root / "qwen3-8b").iterdir() if path.is_dir()}
    assert len(newest) == 12 and held == newest
    assert cache.parses == 0
