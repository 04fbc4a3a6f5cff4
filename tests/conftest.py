"""Shared fixtures: where the real verl logs live, and a tmp cache folder."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
REALDATA = ROOT.parent / "shared" / "realdata" / "verl"
DATA = Path(__file__).resolve().parent / "data"


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
