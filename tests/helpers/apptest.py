"""The app through AppTest and the real navigation of streamlit_app.py: running it, opening a page by its URL path, and
reading what it shows (charts with their data, texts)."""

from __future__ import annotations

import io
import json
from typing import Any

import polars as pl
import pyarrow as pa
from streamlit.testing.v1 import AppTest

from tests.helpers.paths import APP

TRACK_4B = ["4b/e1_grpo_4b", "4b/e2_dapo_4b", "4b/e3_drgrpo_4b", "4b/e4_rloo_4b", "4b/e5_reinforce_pp_4b"]


def run_app(query: dict[str, Any] | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    if query:
        at.query_params.update(query)
    at.run()
    return at


def record_chart_builds(monkeypatch: Any, page: str = "overview") -> list[tuple[Any, ...]]:
    """The keys of the chart specs of ``page`` (``overview`` or ``experiment``) built from now on (by any thread, in
    order), until the test ends: ``rlmon.app.charts._SpecMemo.get`` patched to note each key it does not hold
    yet."""
    from rlmon.app import charts as app_charts

    built: list[tuple[Any, ...]] = []
    real_get = app_charts._SpecMemo.get

    def recording_get(memo: Any, key: tuple[Any, ...], build: Any) -> Any:
        if key[0] == page and not memo.has(key):
            built.append(key)
        return real_get(memo, key, build)

    monkeypatch.setattr(app_charts._SpecMemo, "get", recording_get)
    return built


def hold_the_minute(monkeypatch: Any) -> float:
    """Hold the wall clock the app's loaders read (``time.time``) at its value now, until the test ends, and return
    it: a running experiment's view moves to each new minute (a new serial, its charts built again: the hours bars
    say its ETA), so a test comparing the charts of two moments of one run would otherwise fail when a minute
    starts between them (a loaded machine takes seconds per run)."""
    import time
    import types

    from rlmon.app import loaders

    held = time.time()
    clock = types.SimpleNamespace(**{name: getattr(time, name) for name in dir(time) if not name.startswith("_")})
    clock.time = lambda: held
    monkeypatch.setattr(loaders, "time", clock)
    return held


def open_page(at: AppTest, url_path: str, query: dict[str, Any] | None = None) -> AppTest:
    """Open a page registered by st.navigation by its url_path (the way a link to it does)."""
    matches = [key for key, info in at._registered_pages.items() if info.get("url_pathname") == url_path]
    assert matches, f"no page with url_path {url_path!r}"
    at._page_hash = matches[0]
    if query:
        at.query_params.update(query)
    at.run()
    return at


def charts(at: AppTest) -> list[tuple[dict[str, Any], dict[str, pl.DataFrame]]]:
    """Every chart on the page: its Vega-Lite spec and its datasets (decoded from Arrow)."""
    found = []
    for element in at.get("vega_lite_chart"):
        spec = json.loads(element.proto.spec)
        datasets: dict[str, pl.DataFrame] = {}
        for named in element.proto.datasets:
            table = pa.ipc.open_stream(io.BytesIO(named.data.data)).read_all()
            datasets[named.name] = pl.from_arrow(table)  # type: ignore[assignment]
        if element.proto.data.data:
            datasets[""] = pl.from_arrow(pa.ipc.open_stream(io.BytesIO(element.proto.data.data)).read_all())  # type: ignore[assignment]
        found.append((spec, datasets))
    return found


def texts(at: AppTest) -> str:
    parts = [item.value for item in [*at.markdown, *at.caption, *at.info, *at.warning, *at.error]]
    return "\n".join(str(part) for part in parts)


def unescape(text: str) -> str:
    return text.replace("\\", "")
