"""A first visit while the read at start is still reading the root: the sidebar's choices made for the visitor from
part of the root are made again once all of it is read, and the visitor's own choices stay.

The root: track Qwen3-1.7B written a day ago, track Qwen3-8B today, three runs each with five steps. Read whole, the
first screen is Qwen3-8B (the newest track with two runs that logged steps) with its three runs. While only
Qwen3-8B's runs are read, one track is known, so the first run's choice is every track."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from rlmon.app import loaders, server
from rlmon.settings import Settings, load_settings
from rlmon.sources.discovery import discover_experiments
from tests.helpers.paths import APP

OLD, NEW = "Qwen3-1.7B", "Qwen3-8B"


def _write_root(root: Path) -> dict[str, list[str]]:
    ids: dict[str, list[str]] = {OLD: [], NEW: []}
    for model_name, when in ((OLD, time.time() - 86_400), (NEW, time.time())):
        for number in range(3):
            folder = root / f"{model_name.lower().replace('.', '')}_{number}"
            folder.mkdir(parents=True)
            log = folder / "train.log"
            log.write_text(
                f"(TaskRunner pid=1) {{'actor_rollout_ref': {{'model': {{'path': '/m/{model_name}'}}}}}}\n"
                + "".join(f"(TaskRunner pid=1) step:{step} - critic/score/mean:0.5\n" for step in range(1, 6)),
                encoding="utf-8",
            )
            os.utime(log, (when + number, when + number))
            ids[model_name].append(folder.name)
    return ids


class _ReadAtStart:
    """A read at start held after the newest track: what a first visit finds on a large root's first seconds."""

    def __init__(self, root: Path, settings: Settings, ids: dict[str, list[str]]) -> None:
        self.settings = settings
        self.refs = {ref.id: ref for ref in discover_experiments([root]).experiments}
        self.ids = ids
        self.start = loaders._StartRead()

    def read(self, track: str) -> None:
        memo = loaders._view_memo(self.settings.cache_dir)
        cache = server.log_cache(self.settings)
        for experiment_id in self.ids[track]:
            memo.get(self.refs[experiment_id], cache, self.settings, time.time())

    def finish(self) -> None:
        self.read(OLD)
        loaders._finish(self.start)


@pytest.fixture
def reading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[_ReadAtStart]:
    st.cache_resource.clear()
    root = tmp_path / "logs"
    ids = _write_root(root)
    env = {"RLMON_LOG_ROOT": str(root), "RLMON_CACHE_DIR": str(tmp_path / "cache"), "RLMON_LANGUAGE": "en"}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    settings = load_settings([], env)
    held = _ReadAtStart(root, settings, ids)
    monkeypatch.setitem(loaders._START_READS, settings.cache_dir, held.start)
    held.read(NEW)
    held.start.first_screen.set()
    yield held
    loaders._finish(held.start)
    st.cache_resource.clear()


def _run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, [item.value for item in at.exception]
    return at


def test_the_choices_made_from_part_of_the_root_are_made_again_once_it_is_read(reading: _ReadAtStart) -> None:
    at = _run(AppTest.from_file(APP, default_timeout=60))
    # one track read: every track, and the three runs read
    assert at.selectbox(key="app_track").value == "*"
    assert at.multiselect(key="app_experiments").value == reading.ids[NEW]
    reading.finish()
    _run(at)
    assert at.selectbox(key="app_track").value == NEW
    assert at.multiselect(key="app_experiments").value == reading.ids[NEW]
    # the choices are the defaults again: the address names neither
    assert "track" not in at.query_params and "exp" not in at.query_params


def test_a_run_read_later_joins_the_default_selection(reading: _ReadAtStart) -> None:
    """The visitor picked the track; its runs are all picked, and a run read after the first visit joins them."""
    at = _run(AppTest.from_file(APP, default_timeout=60))
    reading.finish()
    _run(at)
    at.selectbox(key="app_track").set_value(OLD)
    _run(at)
    assert at.multiselect(key="app_experiments").value == reading.ids[OLD]
    # a day old, none of them runs: no live refresh
    assert at.toggle(key="app_live").value is False
    new_folder = reading.refs[reading.ids[OLD][0]].root / "qwen3-17b_new"
    new_folder.mkdir()
    (new_folder / "train.log").write_text(
        f"(TaskRunner pid=1) {{'actor_rollout_ref': {{'model': {{'path': '/m/{OLD}'}}}}}}\n"
        "(TaskRunner pid=1) step:1 - critic/score/mean:0.5\n",
        encoding="utf-8",
    )
    loaders.load_catalog.clear()  # the catalog's time to live has passed
    _run(at)
    assert at.selectbox(key="app_track").value == OLD
    assert at.multiselect(key="app_experiments").value == [*reading.ids[OLD], "qwen3-17b_new"]
    # the new run logged a step just now: it runs, and live refresh comes on with it (the address says nothing)
    assert at.toggle(key="app_live").value is True
    assert "live" not in at.query_params


def test_live_refresh_turned_off_by_the_visitor_stays_off(reading: _ReadAtStart) -> None:
    at = _run(AppTest.from_file(APP, default_timeout=60))
    reading.finish()
    _run(at)
    # today's track: its runs logged steps just now
    assert at.toggle(key="app_live").value is True
    at.toggle(key="app_live").set_value(False)
    _run(at)
    at.selectbox(key="app_track").set_value("*")
    _run(at)
    assert at.toggle(key="app_live").value is False
    assert at.query_params["live"] == "0"


def test_what_the_visitor_picked_while_the_root_was_read_stays(reading: _ReadAtStart) -> None:
    at = _run(AppTest.from_file(APP, default_timeout=60))
    at.multiselect(key="app_experiments").set_value(reading.ids[NEW][:1])
    _run(at)
    reading.finish()
    _run(at)
    assert at.selectbox(key="app_track").value == "*"
    assert at.multiselect(key="app_experiments").value == reading.ids[NEW][:1]
    assert at.query_params["exp"] == reading.ids[NEW][0]
