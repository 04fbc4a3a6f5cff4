"""Shared fixtures: where the real verl logs live, a tmp cache folder, the demo root for AppTest, Streamlit secrets of
the tests' own, a record of what the cache hands to the parser, and the browser tests' Chromium
(tests/helpers/server.py). Every test under tests/browser/ is marked ``browser``, so ``-m "not browser"`` leaves
that tier out."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest

import rlmon.logs.cache
from rlmon.demo import write_demo_root
from tests.helpers.paths import REALDATA
from tests.helpers.server import browser  # noqa: F401 (a fixture: registered for every test module)

TESTS = Path(__file__).resolve().parent
BROWSER_TIER = TESTS / "browser"

LONGEST_MODULES = (
    "browser/test_pages.py",
    "browser/test_hostile.py",
    "app/test_app.py",
    "browser/test_report.py",
    "browser/test_signin.py",
    "browser/test_generated_roots.py",
    "browser/test_svg_download.py",
)
"""The modules that take longest (a full run on 2 cores, three workers), run first. The workers take whole modules
(``--dist loadfile``) in collection order (``--no-loadscope-reorder``; xdist's own order puts modules with many tests
first, which left the few long browser modules running alone at the end); then the other browser modules, the
AppTest modules, the rest."""


def run_order(item: pytest.Item) -> int:
    """Where ``item``'s module comes in the run (lower first; a module's tests keep their order)."""
    if not item.path.is_relative_to(TESTS):
        return len(LONGEST_MODULES) + 3  # the doctests of rlmon/
    module = item.path.relative_to(TESTS).as_posix()
    if module in LONGEST_MODULES:
        return LONGEST_MODULES.index(module)
    tier = module.split("/", 1)[0]
    return len(LONGEST_MODULES) + {"browser": 0, "app": 1}.get(tier, 2)


# before `-m` selects: a test under tests/browser/ is a browser test whatever its module says
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.is_relative_to(BROWSER_TIER):
            item.add_marker(pytest.mark.browser)
    items.sort(key=run_order)


@pytest.fixture(autouse=True, scope="session")
def own_secrets(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Streamlit's secrets, for the app run in this process (AppTest), come from a file of the tests' own that does
    not exist (sign-in off), never from the repository's or the home folder's ``.streamlit/secrets.toml``: an
    ``[auth]`` section there would turn every page into a sign-in. Sign-in tests give secrets of their own."""
    from streamlit import config

    path = tmp_path_factory.mktemp("secrets") / "secrets.toml"
    before = config.get_option("secrets.files")
    config.set_option("secrets.files", [str(path)])
    yield path
    config.set_option("secrets.files", before)


@pytest.fixture(autouse=True)
def draw_all_charts(monkeypatch: pytest.MonkeyPatch) -> None:
    """AppTest runs no JavaScript, so charts below the first screen would stay placeholders: the app draws every
    chart at once in tests (tests/app/test_lazy_charts.py checks the placeholders with this turned off)."""
    monkeypatch.setenv("RLMON_DRAW_ALL_CHARTS", "1")


@pytest.fixture(scope="session")
def realdata_dir() -> Path:
    """``../shared/realdata/verl`` beside the repo; tests that need it skip when it is absent."""
    if not REALDATA.is_dir():
        pytest.skip(f"real verl logs not found at {REALDATA} (CI lays ../shared beside the clone)")
    return REALDATA


@pytest.fixture
def cache_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "cache"
    folder.mkdir()
    return folder


@pytest.fixture(scope="module")
def demo_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo log root, written once per test module."""
    return write_demo_root(tmp_path_factory.mktemp("logs") / "demo")


@pytest.fixture
def app_env(demo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The app's settings for AppTest: the demo root, a cache of the test's own, the language from the browser."""
    monkeypatch.setenv("RLMON_LOG_ROOT", str(demo_root))
    monkeypatch.setenv("RLMON_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("RLMON_LANGUAGE", raising=False)
    yield demo_root


@pytest.fixture
def parsed_sizes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The size of every byte string the cache hands to the console parser, in order, during the test."""
    fed: list[int] = []
    real_split = rlmon.logs.cache.split_lines

    def recording_split(data: bytes) -> pl.Series:
        fed.append(len(data))
        return real_split(data)

    monkeypatch.setattr(rlmon.logs.cache, "split_lines", recording_split)
    return fed
