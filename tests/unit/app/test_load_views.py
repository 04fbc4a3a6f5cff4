"""``loaders.load_views`` reads the experiments of a catalog in parallel: the same views as one after another, and one
experiment that cannot be read is the only one reported so (the demo root; a failure injected in one folder)."""

from __future__ import annotations

import shutil
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from polars.testing import assert_frame_equal

from rlmon.app import charts, digests, loaders, samples, server
from rlmon.logs.cache import LogCache
from rlmon.settings import load_settings
from rlmon.sources import discovery
from rlmon.sources.discovery import discover_experiments
from rlmon.views import model


def _read(demo_root: Path, cache_dir: Path) -> loaders.LoadedViews:
    settings = load_settings([], {"RLMON_CACHE_DIR": str(cache_dir)})
    return loaders.load_views(discover_experiments([demo_root]), settings)


def _parallel(monkeypatch: pytest.MonkeyPatch, workers: int) -> None:
    monkeypatch.setattr(server, "_READER_COUNT", workers)
    monkeypatch.setattr(server, "_READERS", ThreadPoolExecutor(max_workers=workers))


def test_a_run_read_in_an_earlier_minute_is_found_read_with_its_status_moved_to_now(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the read at start read a minute ago is found by a visit (``peek``: nothing read), not taken as unread:
    a visit while a large root is still read lists it, and a quiet run turns stalled."""
    folder = tmp_path / "logs" / "e1_grpo"
    folder.mkdir(parents=True)
    (folder / "train.log").write_text(
        "".join(f"(TaskRunner pid=1) step:{step} - critic/score/mean:0.5\n" for step in range(1, 6)), encoding="utf-8"
    )
    settings = load_settings([], {"RLMON_CACHE_DIR": str(tmp_path / "cache")})
    (ref,) = discover_experiments([tmp_path / "logs"]).experiments
    memo = loaders._ViewMemo()
    now = time.time()
    read = memo.get(ref, server.log_cache(settings), settings, now)
    assert isinstance(read, model.ExperimentView) and read.experiment.status == "running"
    reads = _count_reads(monkeypatch)
    a_minute_on = memo.peek(ref, settings, now + 60)
    assert isinstance(a_minute_on, model.ExperimentView) and a_minute_on.experiment.status == "running"
    # no step time logged: stalled after 3 x the 600 s floor (settings.stall_factor x stall_min_s) without growing
    later = memo.peek(ref, settings, now + 1_801)
    assert isinstance(later, model.ExperimentView) and later.experiment.status == "stalled"
    assert later.experiment.idle_s is not None and later.experiment.idle_s >= 1_801
    assert later.experiment.steps_done == read.experiment.steps_done == 5
    assert reads == []


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
    real = loaders.load_experiment

    def meet(ref: discovery.ExperimentRef, *args: Any, **kwargs: Any) -> Any:
        if len(met) < 2:
            met.append(True)
            meeting.wait()
        return real(ref, *args, **kwargs)

    monkeypatch.setattr(loaders, "load_experiment", meet)
    loaded = _read(demo_root, tmp_path / "cache")
    assert loaded.errors == ()
    assert len(loaded.views) == len(discover_experiments([demo_root]).experiments)


def test_one_failing_experiment_among_parallel_reads(
    demo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _parallel(monkeypatch, 2)
    real = loaders.load_experiment

    def failing(ref: discovery.ExperimentRef, *args: Any, **kwargs: Any) -> Any:
        if ref.id == "4b/e2_dapo_4b":
            raise MemoryError()
        return real(ref, *args, **kwargs)

    monkeypatch.setattr(loaders, "load_experiment", failing)
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
    monkeypatch.setattr(server, "_READERS", _NoPool())
    again = _read(demo_root, tmp_path / "cache")
    # (the demo's running experiment is moved to the minute when it turns: nothing read, by the pool or not)
    assert [view.id for view in again.views] == [view.id for view in first.views]


# ------------------------------------------------------------------------ background scans wait their turn


def test_the_quiet_gate_opens_only_after_the_work_and_a_quiet_moment() -> None:
    gate = server.QuietGate(quiet_s=0.3, limit_s=5.0)
    opened: list[float] = []
    with gate:
        waiter = threading.Thread(target=lambda: opened.append(time.monotonic()) if gate.wait() else None)
        waiter.start()
        time.sleep(0.5)
        assert opened == [], "the gate opened while work was running"
        released = time.monotonic()
    waiter.join(timeout=5)
    assert len(opened) == 1
    assert opened[0] - released >= 0.3, "the gate opened before the quiet time had passed"


def test_the_quiet_gate_gives_up_waiting_after_its_limit() -> None:
    gate = server.QuietGate(quiet_s=0.1, limit_s=0.3)
    started = time.monotonic()
    with gate:
        assert gate.wait() is False
    assert 0.3 <= time.monotonic() - started < 2.0


def test_reading_logs_counts_as_work(demo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gate = server.QuietGate(quiet_s=30.0, limit_s=60.0)
    monkeypatch.setattr(server, "WORK", gate)
    assert not gate.quiet()  # a fresh gate counts its own creation as the last work
    monkeypatch.setattr(gate, "_since", time.monotonic() - 60)
    assert gate.quiet()
    _read(demo_root, tmp_path / "cache")
    assert not gate.quiet(), "reading the demo's logs left the gate open"


def test_the_samples_scan_waits_while_charts_are_built(
    demo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    view = _read(demo_root, tmp_path / "cache").views[0]
    settings = load_settings([], {"RLMON_CACHE_DIR": str(tmp_path / "cache")})
    gate = server.QuietGate(quiet_s=0.2, limit_s=30.0)
    monkeypatch.setattr(gate, "_since", time.monotonic() - 60)
    monkeypatch.setattr(server, "WORK", gate)
    scanned = threading.Event()
    monkeypatch.setattr(samples, "experiment_samples", lambda *_args: scanned.set())
    with gate:  # a chart build in progress
        assert samples.latest_sample_step(view, settings) is None  # the scan is queued, the page does not wait
        assert not scanned.wait(1.0), "the scan ran while charts were being built"
    assert scanned.wait(60.0), "the scan never ran once the work was done"


def test_building_a_chart_counts_as_work_and_a_memoised_one_does_not(monkeypatch: pytest.MonkeyPatch) -> None:
    gate = server.QuietGate(quiet_s=30.0, limit_s=60.0)
    monkeypatch.setattr(server, "WORK", gate)
    memo = charts._SpecMemo()
    built: list[bool] = []

    def build() -> dict[str, Any]:
        built.append(gate._running == 1)
        return {"mark": "point"}

    memo.get(("k",), build)
    assert built == [True], "the build did not run inside the gate"
    monkeypatch.setattr(gate, "_since", time.monotonic() - 60)
    memo.get(("k",), build)
    assert built == [True]
    assert gate.quiet(), "a memoised chart counted as work"


def test_a_visit_that_reads_nothing_is_not_work(
    demo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _read(demo_root, tmp_path / "cache")
    gate = server.QuietGate(quiet_s=30.0, limit_s=60.0)
    monkeypatch.setattr(gate, "_since", time.monotonic() - 60)
    monkeypatch.setattr(server, "WORK", gate)
    _read(demo_root, tmp_path / "cache")  # every view memoised: nothing is read
    assert gate.quiet()


def test_colours_stay_put_when_an_experiment_starts_and_across_a_restart(demo_root: Path, tmp_path: Path) -> None:
    root = tmp_path / "logs"
    shutil.copytree(demo_root, root)
    before = {view.id: view.color for view in _read(root, tmp_path / "cache").views}
    assert len(set(before.values())) == len(before) == 9
    # a fifth 2B run starts: its own colour (colour 4, E5's) is a 4B run's already
    started = root / "2b" / "e5_grpo_2b"
    started.mkdir()
    shutil.copy(next((root / "2b" / "e1_grpo_2b").glob("*.log")), started / "train.log")
    after = {view.id: view.color for view in _read(root, tmp_path / "cache").views}
    assert {key: after[key] for key in before} == before
    assert after["2b/e5_grpo_2b"] not in before.values()
    # a restarted server (no colour book in memory) reads the colours back from the cache folder
    loaders._color_book.clear()
    assert {view.id: view.color for view in _read(root, tmp_path / "cache").views} == after


# ------------------------------------------------------------------------------ reading at the server's start


def _count_reads(monkeypatch: pytest.MonkeyPatch, *, pause_s: float = 0.0) -> list[str]:
    """Record the id of every experiment read from its logs from now on (each read slowed by ``pause_s``)."""
    reads: list[str] = []
    real = loaders.load_experiment

    def counted(ref: discovery.ExperimentRef, *args: Any, **kwargs: Any) -> Any:
        reads.append(ref.id)
        time.sleep(pause_s)
        return real(ref, *args, **kwargs)

    monkeypatch.setattr(loaders, "load_experiment", counted)
    return reads


def test_two_visits_at_once_read_each_log_once(
    demo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two sessions arrive together on a server that has read nothing (each read takes a while): the second
    # waits for the first one's reads instead of reading the same logs again.
    _parallel(monkeypatch, 2)
    reads = _count_reads(monkeypatch, pause_s=0.05)
    start = threading.Barrier(2, timeout=20)

    def visit() -> loaders.LoadedViews:
        start.wait()
        return _read(demo_root, tmp_path / "cache")

    with ThreadPoolExecutor(max_workers=2) as visitors:
        first, second = list(visitors.map(lambda _: visit(), range(2)))
    experiments = [ref.id for ref in discover_experiments([demo_root]).experiments]
    assert sorted(reads) == sorted(experiments)  # 9 reads, not 18
    assert [view.id for view in first.views] == [view.id for view in second.views] == experiments


def test_the_logs_are_read_as_the_server_starts(
    demo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rlmon.analysis import signals as analysis_signals

    env = {"RLMON_LOG_ROOT": str(demo_root), "RLMON_CACHE_DIR": str(tmp_path / "cache")}
    loaders.read_at_start(["streamlit_app.py"], env).join(timeout=120)
    # The first visit reads no log again (a run whose status follows the clock is moved to the minute, not read)
    # and computes no signal of an experiment already looked at.
    reads = _count_reads(monkeypatch)
    detected: list[str] = []
    real_detect = analysis_signals.detect_signals

    def counted_detect(experiment: Any, **kwargs: Any) -> Any:
        detected.append(experiment.id)
        return real_detect(experiment, **kwargs)

    monkeypatch.setattr(analysis_signals, "detect_signals", counted_detect)
    settings = server.app_settings(["streamlit_app.py"], env)
    loaded = _read(demo_root, tmp_path / "cache")
    assert len(loaded.views) == len(discover_experiments([demo_root]).experiments)
    assert reads == []
    signals = digests.view_signals(loaded.views, settings)
    assert detected == []
    _assert_fresh_signals(loaded.views, signals, real_detect, settings)


def _assert_fresh_signals(views: Any, signals: Any, detect: Any, settings: Any) -> None:
    """The signals kept are those a fresh detection of the steps gives (what the generation dumps say, the demo's
    E1 incorrect-length signal, is read beside them and tested in tests/unit/analysis/test_outcomes.py)."""
    for view, kept in zip(views, signals, strict=True):
        assert [signal.kind for signal in kept if signal.kind != "incorrect_length_growth"] == [
            signal.kind for signal in detect(view.experiment, settings=settings)
        ], view.id


def test_headline_numbers_are_computed_in_parallel_once_per_experiment(
    demo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The first two computations wait for each other: computed one after another, the first would wait in vain.
    from rlmon.views import model

    _parallel(monkeypatch, 2)
    views = _read(demo_root, tmp_path / "cache").views
    monkeypatch.setattr(digests, "_HEADLINES", digests._Memo(limit=4096))  # forget those computed as each was read
    meeting = threading.Barrier(2, timeout=20)
    computed: list[str] = []
    real = model.table_numbers

    def counted(view: Any, *args: Any, **kwargs: Any) -> Any:
        computed.append(view.id)
        if len(computed) <= 2:
            meeting.wait()
        return real(view, *args, **kwargs)

    monkeypatch.setattr(model, "table_numbers", counted)
    numbers = digests.headlines(views)
    assert list(numbers) == [view.id for view in views]
    assert sorted(computed) == sorted(view.id for view in views)
    assert digests.headlines(views) == numbers  # the second time nothing is computed
    assert sorted(computed) == sorted(view.id for view in views)
    for view in views:
        assert numbers[view.id].last10_pass == real(view).last10_pass


def test_a_start_read_that_fails_is_logged_and_left_to_the_first_visit(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    env = {"RLMON_LOG_ROOT": str(tmp_path / "logs"), "RLMON_REFRESH_S": "soon"}
    with caplog.at_level("WARNING", logger="rlmon.app"):
        loaders.read_at_start(["streamlit_app.py"], env).join(timeout=60)
    assert "reading the logs at start failed; the first visit reads them" in caplog.text
    assert "RLMON_REFRESH_S" in caplog.text  # the setting at fault, from the error in the log record


def test_each_experiment_is_looked_at_by_its_reader_as_soon_as_it_is_read(
    demo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Headline numbers and signals are computed on the reader threads, once per experiment, before load_views
    # returns: the pages then find them all and compute nothing.
    from rlmon.analysis import signals as analysis_signals

    _parallel(monkeypatch, 2)
    monkeypatch.setattr(digests, "_HEADLINES", digests._Memo(limit=4096))
    monkeypatch.setattr(digests, "_FULL_HEADLINES", digests._Memo(limit=4096))
    monkeypatch.setattr(digests, "_STEP_SIGNALS", digests._Memo(limit=4096))
    monkeypatch.setattr(digests, "_SIGNALS", digests._Memo(limit=4096))
    main = threading.current_thread()
    numbers_by: list[tuple[str, bool]] = []
    signals_by: list[tuple[str, bool]] = []
    real_numbers, real_detect = model.table_numbers, analysis_signals.detect_step_signals

    def counted_numbers(view: Any, *args: Any, **kwargs: Any) -> Any:
        numbers_by.append((view.id, threading.current_thread() is main))
        return real_numbers(view, *args, **kwargs)

    def counted_detect(experiment: Any, **kwargs: Any) -> Any:
        signals_by.append((experiment.id, threading.current_thread() is main))
        return real_detect(experiment, **kwargs)

    monkeypatch.setattr(model, "table_numbers", counted_numbers)
    monkeypatch.setattr(analysis_signals, "detect_step_signals", counted_detect)
    settings = load_settings([], {"RLMON_CACHE_DIR": str(tmp_path / "cache")})
    views = loaders.load_views(discover_experiments([demo_root]), settings).views
    ids = sorted(view.id for view in views)
    assert len(ids) == 9
    assert sorted(name for name, _ in numbers_by) == ids
    assert sorted(name for name, _ in signals_by) == ids
    assert not any(on_main for _, on_main in numbers_by + signals_by)  # on the readers, not after them
    numbers = digests.headlines(views)
    signals = digests.view_signals(views, settings)
    assert len(numbers_by) == len(signals_by) == 9  # nothing computed again
    for view in views:
        assert numbers[view.id].last10_pass == real_numbers(view).last10_pass
    _assert_fresh_signals(views, signals, analysis_signals.detect_signals, settings)


def test_an_experiment_whose_signals_fail_is_still_read_and_the_page_meets_the_failure(
    demo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rlmon.analysis import signals as analysis_signals

    monkeypatch.setattr(digests, "_STEP_SIGNALS", digests._Memo(limit=4096))
    monkeypatch.setattr(digests, "_SIGNALS", digests._Memo(limit=4096))

    def broken(experiment: Any, **kwargs: Any) -> Any:
        raise ValueError(f"no signals for {experiment.id}")

    monkeypatch.setattr(analysis_signals, "detect_step_signals", broken)
    settings = load_settings([], {"RLMON_CACHE_DIR": str(tmp_path / "cache")})
    loaded = loaders.load_views(discover_experiments([demo_root]), settings)
    assert len(loaded.views) == 9
    assert loaded.errors == ()
    with pytest.raises(ValueError, match="no signals for"):
        digests.view_signals(loaded.views, settings)


_TABLE_MODULES_SCRIPT = """
import sys
from rlmon.app.loaders import read_at_start
modules = ("pyarrow.compute", "streamlit.emojis", "streamlit.material_icon_names", "rlmon.views.overview")
before = [name for name in modules if name in sys.modules]
env = {"RLMON_LOG_ROOT": sys.argv[2], "RLMON_CACHE_DIR": sys.argv[3]}
if sys.argv[1] in ("start", "restart"):
    read_at_start(["streamlit_app.py"], env).join(120)
if sys.argv[1] == "restart":  # a process before this one read the logs; this one finds them kept
    from rlmon.app import loaders, server
    from rlmon.settings import load_settings
    from rlmon.sources.discovery import discover_experiments
    settings = load_settings([], env)
    catalog = discover_experiments([settings.log_roots[0]])
    loaders._view_memo.clear()
    for name in modules:
        sys.modules.pop(name, None)
    start = loaders._StartRead()
    loaders._first_screen_first(catalog, settings, server.log_cache(settings), start)
    assert start.first_screen.is_set()
after = [name for name in modules if name in sys.modules]
print(",".join(before) + "|" + ",".join(after))
"""


@pytest.mark.parametrize(
    ("how", "expected"),
    [
        ("start", "|pyarrow.compute,streamlit.emojis,streamlit.material_icon_names,rlmon.views.overview"),
        ("restart", "|pyarrow.compute,streamlit.emojis,streamlit.material_icon_names,rlmon.views.overview"),
        ("import", "|"),
    ],
)
def test_the_start_read_imports_what_the_first_screen_needs(
    how: str, expected: str, demo_root: Path, tmp_path: Path
) -> None:
    # Streamlit imports pyarrow's compute functions at its first table, its emoji table at the first segmented
    # control (the language picker) and its icon names at the first icon; the overview imports its own modules at
    # its first run. The read at start does that beforehand (in a process of its own: this one has imported them
    # long ago), and a restart, finding every experiment kept, as soon as they are listed. Importing rlmon.app
    # alone imports none of them.
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-c", _TABLE_MODULES_SCRIPT, how, str(demo_root), str(tmp_path / "cache")],
        capture_output=True, text=True, timeout=180, check=True,
    )  # fmt: skip
    assert result.stdout.strip().splitlines()[-1] == expected


def test_a_spec_being_built_is_shared_with_whoever_asks_meanwhile(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server, "WORK", server.QuietGate(quiet_s=30.0, limit_s=60.0))
    memo = charts._SpecMemo()
    started, release = threading.Event(), threading.Event()
    builds: list[str] = []

    def slow() -> dict[str, Any]:
        builds.append("slow")
        started.set()
        assert release.wait(10)
        return {"mark": "point", "description": "slow"}

    with ThreadPoolExecutor(max_workers=2) as pool:
        first = pool.submit(memo.get, ("k",), slow)
        assert started.wait(10)
        assert memo.has(("k",))  # being built counts
        second = pool.submit(memo.get, ("k",), lambda: builds.append("again") or {"mark": "bar"})
        time.sleep(0.2)
        assert not second.done(), "the second ask did not wait for the build in progress"
        release.set()
        assert first.result(10) is second.result(10)
    assert builds == ["slow"]


def test_a_failed_build_leaves_the_next_asker_to_build(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server, "WORK", server.QuietGate(quiet_s=30.0, limit_s=60.0))
    memo = charts._SpecMemo()
    started, release = threading.Event(), threading.Event()

    def failing() -> dict[str, Any]:
        started.set()
        assert release.wait(10)
        raise ValueError("no chart")

    with ThreadPoolExecutor(max_workers=2) as pool:
        first = pool.submit(memo.get, ("k",), failing)
        assert started.wait(10)
        second = pool.submit(memo.get, ("k",), lambda: {"mark": "bar"})
        release.set()
        with pytest.raises(ValueError, match="no chart"):
            first.result(10)
        assert second.result(10)["mark"] == "bar"
    assert memo.has(("k",))


def test_charts_are_built_ahead_once_the_server_is_quiet(monkeypatch: pytest.MonkeyPatch) -> None:

    gate = server.QuietGate(quiet_s=30.0, limit_s=60.0)
    monkeypatch.setattr(server, "WORK", gate)
    monkeypatch.setattr(charts, "AHEAD_QUIET_S", 0.3)
    monkeypatch.setattr(charts, "AHEAD_LIMIT_S", 60.0)
    # pools of its own: a build ahead that an earlier test in this process queued may wait up to AHEAD_LIMIT_S
    # for its own quiet moment in the one shared worker, and the builders may still hold its charts
    monkeypatch.setattr(charts, "_AHEAD_POOL", ThreadPoolExecutor(max_workers=1))
    monkeypatch.setattr(charts, "_BUILDERS", ThreadPoolExecutor(max_workers=2))
    memo = charts._SpecMemo()
    monkeypatch.setattr(charts, "_spec_memo", lambda: memo)
    built: list[str] = []

    def plan(name: str) -> model.ChartPlan:
        return model.ChartPlan(name, ("ahead", name), lambda: built.append(name) or {"mark": "line"})

    memo.get(("ahead", "known"), lambda: {"mark": "point"})  # built already: not again
    with gate:  # a visit's chart being built: the builds ahead wait
        charts.prepare_ahead([plan("a"), plan("known"), plan("b")])
        time.sleep(0.6)
        assert built == []
    released = time.monotonic()
    # generous: on a loaded machine a thread an earlier test in this process left (a read, a build) may hold the
    # gate a while; the builds ahead wait for it, as they should
    deadline = time.monotonic() + 60
    while len(built) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sorted(built) == ["a", "b"]
    assert time.monotonic() - released >= 0.3
    assert memo.has(("ahead", "a")) and memo.has(("ahead", "b"))
    charts.prepare_ahead([plan("a"), plan("b")])  # all built: nothing is queued
    time.sleep(0.5)
    assert sorted(built) == ["a", "b"]


def test_builds_ahead_queued_behind_a_busy_spell_are_dropped_when_their_time_is_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Each request's limit runs from when it was made: three requests queued while the server is busy are all
    # given up about AHEAD_LIMIT_S after they were made, not one after another (3 x the limit).
    gate = server.QuietGate(quiet_s=30.0, limit_s=60.0)
    monkeypatch.setattr(server, "WORK", gate)
    monkeypatch.setattr(charts, "AHEAD_QUIET_S", 0.1)
    monkeypatch.setattr(charts, "AHEAD_LIMIT_S", 1.0)
    pool = ThreadPoolExecutor(max_workers=1)
    monkeypatch.setattr(charts, "_AHEAD_POOL", pool)
    memo = charts._SpecMemo()
    monkeypatch.setattr(charts, "_spec_memo", lambda: memo)
    built: list[str] = []

    def plan(name: str) -> model.ChartPlan:
        return model.ChartPlan(name, ("queued", name), lambda: built.append(name) or {"mark": "line"})

    with gate:  # busy throughout
        asked = time.monotonic()
        for name in ("a", "b", "c"):
            charts.prepare_ahead([plan(name)])
        finished = pool.submit(time.monotonic).result(timeout=30)  # runs once the three ahead of it are done
    assert built == []
    assert 1.0 <= finished - asked < 2.5  # about one limit; one after another would take 3 s or more


def test_the_quiet_gate_waits_for_a_shorter_quiet_moment_when_asked() -> None:
    gate = server.QuietGate(quiet_s=30.0, limit_s=60.0)
    with gate:
        pass
    released = time.monotonic()
    assert gate.wait(quiet_s=0.2, limit_s=5.0) is True
    assert 0.2 <= time.monotonic() - released < 5.0
    assert gate.wait(quiet_s=10.0, limit_s=0.2) is False


def test_the_read_at_start_writes_the_cache_once_the_server_is_quiet(
    demo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = server.QuietGate(quiet_s=0.3, limit_s=60.0)
    monkeypatch.setattr(server, "WORK", gate)
    cache_dir = tmp_path / "cache"
    logs = sorted(demo_root.rglob("*.log"))
    assert len(logs) >= 9

    def states() -> int:
        return len(list((cache_dir / "logs").glob("*/state.json"))) if (cache_dir / "logs").exists() else 0

    env = {"RLMON_LOG_ROOT": str(demo_root), "RLMON_CACHE_DIR": str(cache_dir)}
    with gate:  # the first screen being built: the server is not quiet
        loaders.read_at_start(["streamlit_app.py"], env).join(timeout=120)
        time.sleep(0.6)
        assert states() == 0, "the cache was written before the server had a quiet moment"
    deadline = time.monotonic() + 30
    while states() < len(logs) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert states() == len(logs)
    # a restart finds every log in the cache
    restarted = LogCache(cache_dir)
    for path in logs:
        restarted.read(path)
    assert restarted.parses == 0


def test_sessions_asking_for_a_new_version_at_once_compute_its_summary_once(
    demo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A live log grew: every session's next refresh asks for the written summary of the new version at about the
    # same moment. One computes it, the others wait for it and show the same.
    from rlmon.analysis import summary as analysis_summary

    settings = load_settings([], {"RLMON_CACHE_DIR": str(tmp_path / "cache")})
    views = _read(demo_root, tmp_path / "cache").views[:5]
    monkeypatch.setattr(digests, "_insight_memo", lambda: memo)
    memo = digests._Memo(limit=256, per_experiment=256)
    written: list[int] = []
    real = analysis_summary.write_summary
    all_asked = threading.Barrier(4, timeout=20)

    def slow_summary(*args: Any, **kwargs: Any) -> Any:
        written.append(1)
        time.sleep(0.3)  # the others ask meanwhile
        return real(*args, **kwargs)

    def session() -> Any:
        all_asked.wait()
        return digests.insights_for(views, settings, "en")

    monkeypatch.setattr(analysis_summary, "write_summary", slow_summary)
    with ThreadPoolExecutor(max_workers=4) as sessions:
        shown = list(sessions.map(lambda _: session(), range(4)))
    assert len(written) == 1
    assert all(insights is shown[0] for insights in shown)
    assert shown[0].summary == tuple(real([digests._as_shown(view) for view in views], list(shown[0].signals),
                                          lang="en", settings=settings))  # fmt: skip


def test_a_failed_shared_build_is_done_again_by_the_next_session(monkeypatch: pytest.MonkeyPatch) -> None:
    memo = digests._Memo(limit=8)
    calls: list[str] = []

    def failing() -> str:
        calls.append("fail")
        raise RuntimeError("a log vanished")

    with pytest.raises(RuntimeError):
        memo.get_or_build(("e1", 1), failing)
    assert memo.get_or_build(("e1", 1), lambda: calls.append("ok") or "numbers") == "numbers"
    assert memo.get_or_build(("e1", 1), failing) == "numbers"
    assert calls == ["fail", "ok"]


def test_the_latest_step_with_samples_is_looked_up_once_for_every_session(
    demo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every refresh of every session on the overview asks for each experiment's latest step with samples (its link
    # to the samples page): the run's samples are read once for all of them, again only after LATEST_KEPT_S.
    monkeypatch.setattr(server, "WORK", server.QuietGate(quiet_s=0.0, limit_s=1.0))
    view = next(view for view in _read(demo_root, tmp_path / "cache").views if view.id == "4b/e1_grpo_4b")
    settings = load_settings([], {"RLMON_CACHE_DIR": str(tmp_path / "cache")})
    assert samples.latest_sample_step(view, settings) is None  # not scanned yet: the scan starts
    deadline = time.monotonic() + 60
    while view.id in samples._SAMPLE_SCANS_PENDING and time.monotonic() < deadline:
        time.sleep(0.05)
    reads: list[str] = []
    real = samples.experiment_samples

    def counted(*args: Any) -> Any:
        reads.append(args[0].id)
        return real(*args)

    monkeypatch.setattr(samples, "experiment_samples", counted)
    shown = [samples.latest_sample_step(view, settings) for _ in range(8)]
    assert shown == [150] * 8  # the demo's E1 dumps samples up to its last step, 150
    assert reads == [view.id]
    monkeypatch.setattr(samples, "LATEST_KEPT_S", 0.0)
    assert samples.latest_sample_step(view, settings) == 150
    assert reads == [view.id, view.id]


_FIRST_ELEMENT_SCRIPT = """
import sys, time
from streamlit import delta_generator, runtime
from rlmon.app import server
with_runtime = sys.argv[1] == "runtime"
if with_runtime:  # a runtime made as `streamlit run` makes it, not started (nothing served)
    from streamlit.runtime import Runtime, RuntimeConfig
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
    from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
    Runtime(RuntimeConfig(script_path=sys.argv[2],
        media_file_storage=MemoryMediaFileStorage("/media"), uploaded_file_manager=MemoryUploadedFileManager("/up")))
started = time.monotonic()
server.check_first_element_ahead(limit_s=0.5).join(30)
print(runtime.exists(), delta_generator._use_warning_has_been_displayed, round(time.monotonic() - started) <= 1)
"""


@pytest.mark.parametrize(("how", "expected"), [("runtime", "True True True"), ("none", "False False True")])
def test_streamlits_first_element_check_is_made_ahead_once_its_runtime_exists(
    how: str, expected: str, tmp_path: Path
) -> None:
    # Streamlit walks the calling stack (inspect.stack(), reading every frame's source) when a process sends its
    # first element, to warn a REPL user: 0.16 s of a restarted server's first run. The server makes that check
    # ahead, once the runtime exists; without one (not served) it gives up within its limit and leaves it alone,
    # for the check would then warn that the app is not run with `streamlit run`.
    import subprocess
    import sys

    script = tmp_path / "app.py"
    script.write_text("import streamlit as st\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-c", _FIRST_ELEMENT_SCRIPT, how, str(script)],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    assert result.stdout.strip().splitlines()[-1] == expected
    assert "streamlit run" not in result.stderr
