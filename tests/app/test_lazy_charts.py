"""Charts below the first screen, through AppTest (which runs no JavaScript): with ``draw_all_charts`` off the
first charts of a page are drawn and sent, the others are placeholders with the sentinel that asks for them (the
sentinel itself is exercised in the browser, tests/browser/test_pages.py). Expected charts: the seed dashboard's six
(``../shared/docs/seed-dashboard.md``), as tests/app/test_app.py checks them drawn all at once."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from tests.helpers.apptest import hold_the_minute, record_chart_builds
from tests.helpers.paths import APP

SEED_CHARTS = [
    "pass rate (%)",
    "mean response length (tokens)",
    "policy entropy",
    "grad_norm",
    "Total training hours",
    "aime24 validation score",
]
EAGER = 4
"""Charts the overview draws at once (its first two rows on a laptop screen)."""


def titles(at: AppTest) -> list[str]:
    return [json.loads(element.proto.spec).get("title") for element in at.get("vega_lite_chart")]


def run(monkeypatch: pytest.MonkeyPatch, *, draw_all: bool) -> AppTest:
    monkeypatch.setenv("RLMON_DRAW_ALL_CHARTS", "1" if draw_all else "0")
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["live"] = "0"
    return at.run()


def run_all_tracks(monkeypatch: pytest.MonkeyPatch) -> AppTest:
    """The overview of all tracks (the demo's 9 experiments), charts drawn as they near the view."""
    monkeypatch.setenv("RLMON_DRAW_ALL_CHARTS", "0")
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"live": "0", "track": "*"})
    return at.run()


def test_overview_draws_its_first_rows_and_holds_places_for_the_rest(
    app_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    at = run(monkeypatch, draw_all=False)
    assert not at.exception
    # the first four charts, drawn with their data; the other two are not sent at all
    assert titles(at) == SEED_CHARTS[:EAGER]
    # a placeholder per undrawn chart, each saying it is being drawn, and one sentinel for their row
    pending = [caption for caption in at.caption if caption.value == "drawing…"]
    assert len(pending) == len(SEED_CHARTS) - EAGER
    sentinels = at.get("bidi_component")
    assert len(sentinels) == 1
    assert sentinels[0].key == "rlmon_near_overview_grid_0"


def test_overview_of_many_experiments_draws_its_charts_as_they_near_the_view(
    app_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # All tracks: the demo's 9 experiments; their table and the summary fill a laptop's first screen, so no chart
    # is drawn before the browser says it is near the view.
    at = run_all_tracks(monkeypatch)
    assert not at.exception
    assert titles(at) == []
    assert len([caption for caption in at.caption if caption.value == "drawing…"]) == len(SEED_CHARTS)
    assert [sentinel.key for sentinel in at.get("bidi_component")] == [
        "rlmon_near_overview_grid_0", "rlmon_near_overview_grid_1", "rlmon_near_overview_grid_2"
    ]  # fmt: skip


def test_the_first_charts_below_the_first_screen_are_built_before_they_are_asked_for(
    app_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # All tracks again (no chart drawn at once): the first six charts (a laptop's screen of them once scrolled to:
    # three rows of two) are built on the server in the background, so a visitor who scrolls to them at once waits
    # only for the browser. The overview has six, so all of them. The clock is held: the demo's running E5 moves
    # to each new minute (a new serial), and the builds of one moment would otherwise be split between two keys
    # when a minute starts while they run (a loaded machine takes seconds).
    hold_the_minute(monkeypatch)
    built = record_chart_builds(monkeypatch)
    at = run_all_tracks(monkeypatch)
    assert not at.exception
    assert titles(at) == []

    def by_views() -> dict[Any, list[str]]:
        # the charts of all tracks' 9 experiments: those the app's first run on the default track (4B) builds
        # ahead under other smoothing methods may land here too, once the server is quiet
        names: dict[Any, list[str]] = {}
        for key in list(built):
            if len(key[2][0]) == 9:
                names.setdefault(key[2], []).append(key[1])
        return names

    seed = ["pass_rate", "response_length/mean", "actor/entropy", "actor/grad_norm", "hours_total"]
    deadline = time.monotonic() + 60
    while not any(len(names) == len(SEED_CHARTS) and set(seed) <= set(names) for names in by_views().values()):
        assert time.monotonic() < deadline, f"not built within 60 s: {by_views()}"
        time.sleep(0.1)
    time.sleep(0.5)
    (names,) = [names for names in by_views().values() if set(seed) <= set(names)]
    assert len(names) == len(SEED_CHARTS)  # and the sixth, the aime24 validation chart (named after the log's key)
    (sixth,) = [name for name in names if name not in seed]
    assert sixth.endswith("aime24")


def test_a_page_of_many_charts_builds_six_before_the_scroll_and_waits_for_it_for_the_rest(
    app_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An experiment page: its header, numbers and settings fill the first screen, and 17 or more curves wait below
    # it. The six a visitor scrolls to first are built ahead; the others when their placeholders near the view.
    hold_the_minute(monkeypatch)
    built = record_chart_builds(monkeypatch, page="experiment")  # the page's curves (its grid of metrics)
    at = _experiment_page(monkeypatch, {})
    assert not at.exception, [item.value for item in at.exception]
    assert titles(at) == []
    deadline = time.monotonic() + 60
    while len(built) < 6:
        assert time.monotonic() < deadline, f"not built within 60 s: {built}"
        time.sleep(0.1)
    time.sleep(1.0)
    assert len(built) == 6, built
    assert len({key[1] for key in built}) == 6  # six metrics, each once


def test_draw_all_charts_draws_every_chart_at_once(app_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    at = run(monkeypatch, draw_all=True)
    assert not at.exception
    assert titles(at) == SEED_CHARTS
    assert not [caption for caption in at.caption if caption.value == "drawing…"]
    assert not at.get("bidi_component")


def test_placeholders_speak_the_visitors_language(app_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RLMON_DRAW_ALL_CHARTS", "0")
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"live": "0", "lang": "zh"})
    at.run()
    assert not at.exception
    assert len([caption for caption in at.caption if caption.value == "绘制中…"]) == len(SEED_CHARTS) - EAGER


def _experiment_page(monkeypatch: pytest.MonkeyPatch, query: dict[str, str]) -> AppTest:
    monkeypatch.setenv("RLMON_DRAW_ALL_CHARTS", "0")
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"live": "0", **query})
    at.run()
    [page] = [key for key, info in at._registered_pages.items() if info.get("url_pathname") == "4b-e2-dapo-4b"]
    at._page_hash = page
    return at.run()


def test_experiment_page_draws_its_curves_as_they_near_the_view(app_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The header, numbers, summary, settings and source files fill a laptop's first screen: no curve is drawn
    # (nor its data sent) before the browser says the curves are near the view.
    at = _experiment_page(monkeypatch, {})
    assert not at.exception, [item.value for item in at.exception]
    assert titles(at) == []
    assert len([caption for caption in at.caption if caption.value == "drawing…"]) >= 17
    assert "rlmon_near_experiment_grid_0" in [sentinel.key for sentinel in at.get("bidi_component")]


def test_a_link_to_one_chart_of_an_experiment_draws_it_at_once(app_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A signal's link (?focus=<key>&at=<step>) comes for that chart: it is drawn at once, first, with its row.
    at = _experiment_page(monkeypatch, {"focus": "actor/grad_norm", "at": "43"})
    assert not at.exception, [item.value for item in at.exception]
    drawn = titles(at)
    assert drawn[0] == "grad_norm (from the signal)" and len(drawn) == EAGER, drawn
