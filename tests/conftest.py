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

BROWSER_TIER = Path(__file__).resolve().parent / "browser"


# before `-m` selects: a test under tests/browser/ is a browser test whatever its module says
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.is_relative_to(BROWSER_TIER):
            item.add_marker(pytest.mark.browser)


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
