"""Charts a person can read on a generated root of 20 experiments in two tracks (12 in one), some with labels
over 30 characters: the overview (one track and all tracks) and an experiment page at 1440x900 and 390x844, in
English, measured in the rendered SVG by the checks of tests/browser/test_pages.py (the demo root's tests there
measure the same pages in Chinese too).

A file of its own so that the two test processes share the browser tier (each takes whole files)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers.browser_pages import check_experiment_page, check_overview, measure_both_widths, overview_url
from tests.helpers.generated_roots import GeneratedRoot, write_generated_root
from tests.helpers.server import serve

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, GeneratedRoot]]:
    """The app on a generated root of 20 experiments in two tracks, some with labels over 30 characters."""
    folder = tmp_path_factory.mktemp("browser-generated")
    written = write_generated_root(folder / "logs")
    env = {"RLMON_LOG_ROOT": str(written.root), "RLMON_CACHE_DIR": str(folder / "cache"), "RLMON_CHART_RENDERER": "svg"}
    with serve(folder, env, "server-generated.log") as url:
        yield url, written


@pytest.mark.parametrize("view", ["track", "all-tracks"])
def test_generated_overview_charts_are_readable(browser: Any, generated: tuple[str, GeneratedRoot], view: str) -> None:
    """Generated root: the newest track (12 experiments, long labels) or all tracks (20 series)."""
    url, written = generated
    all_tracks = view == "all-tracks"
    measured = measure_both_widths(
        browser, overview_url(url, all_tracks=all_tracks, lang="en"), f"geometry-generated-overview-{view}-en"
    )
    check_overview(measured, experiments=len(written.experiments) if all_tracks else len(written.tracks["Qwen3-8B"]))


def test_generated_experiment_page_charts_are_readable(browser: Any, generated: tuple[str, GeneratedRoot]) -> None:
    """Generated root, the page of an experiment whose label is over 50 characters."""
    url, _ = generated
    check_experiment_page(
        measure_both_widths(browser, f"{url}/qwen3-8b-e02-dapo", "geometry-generated-experiment-en", explorer=True)
    )
