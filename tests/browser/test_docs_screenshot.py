"""tests/helpers/screenshot.py makes the README's picture of the overview: run as the README says, it writes a
1440 x 900 PNG; the README shows the committed picture, and the committed picture shows the controls the overview
has today (docs/images/overview.json, written with it, matches a picture made afresh)."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.paths import REPO_ROOT

pytestmark = pytest.mark.browser

ROOT = REPO_ROOT
IMAGE = "docs/images/overview.png"
CONTROLS = "docs/images/overview.json"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(path: Path) -> tuple[int, int]:
    """(width, height) from a PNG's IHDR chunk."""
    head = path.read_bytes()[:24]
    assert head[:8] == PNG_SIGNATURE, f"{path} is not a PNG"
    assert head[12:16] == b"IHDR", f"{path}: no IHDR chunk first"
    width, height = struct.unpack(">II", head[16:24])
    return width, height


def test_the_script_writes_a_1440_by_900_picture(tmp_path: Path) -> None:
    if not Path("/usr/bin/chromium").exists():
        pytest.skip("/usr/bin/chromium not found (CI installs Debian's chromium with apt)")
    pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    out = tmp_path / "overview.png"
    # run as the README says, from the repository
    done = subprocess.run(
        [sys.executable, "-m", "tests.helpers.screenshot", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert png_size(out) == (1440, 900)
    assert out.stat().st_size > 50_000, "a picture this small shows no charts"
    fresh = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    assert fresh["charts"] >= 4, fresh  # the overview's first chart row and the next, as the README says
    kinds = {kind for kind, _ in fresh["controls"]}
    assert {"stSelectbox", "stMultiSelect"} <= kinds, fresh  # the track picker, the experiments and charts pickers
    committed = json.loads((ROOT / CONTROLS).read_text(encoding="utf-8"))
    assert fresh["controls"] == committed["controls"], (
        f"the overview's controls are no longer those {IMAGE} shows: run `python -m tests.helpers.screenshot` and "
        f"commit {IMAGE} and {CONTROLS}"
    )


def test_the_readme_shows_the_committed_picture() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"]({IMAGE})" in readme, f"README.md does not show {IMAGE}"
    assert png_size(ROOT / IMAGE) == (1440, 900)
