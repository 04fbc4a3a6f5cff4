"""Where the tests find the repository, its app, the data excerpts and the real verl logs: one place, so a test's
depth under tests/ never decides a path."""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent.parent
APP = REPO_ROOT / "streamlit_app.py"
DATA = REPO_ROOT / "tests" / "data"
# CI lays ../shared beside the clone; tests that need the real logs skip (``realdata_dir`` fixture) when it is absent
REALDATA = REPO_ROOT.parent / "shared" / "realdata" / "verl"
ARTIFACTS = REPO_ROOT / "test-artifacts"
