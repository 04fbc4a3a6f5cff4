"""The README's alert section, followed to the letter: its shell block run by bash as written (the mail server's
port, the demo folder and HOME moved into the test's folder), with the mail server it names (``python -m
aiosmtpd``, printing each mail it receives), until the crash it appends arrives there as one mail.

By default ``rlmon`` and ``python`` are this checkout's. With ``RLMON_README_VENV`` set to a fresh venv holding the
installed wheel (``.ci/wheel_check`` does), they are that venv's, and the block's ``pip install aiosmtpd`` installs
the mail server into it: a new user's machine.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers.paths import REPO_ROOT
from tests.helpers.server import free_port

README = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
PORT = "127.0.0.1:8025"
DEMO = "/tmp/rlmon-demo"


def alert_block() -> str:
    """The shell block of the README's "Alerts" section."""
    section = README.split("\n## Alerts\n", 1)[1].split("\n## ", 1)[0]
    return section.split("```bash\n", 1)[1].split("```", 1)[0]


def shims(folder: Path) -> Path:
    """A bin folder whose ``python``, ``pip`` and ``rlmon`` are this checkout's (as ``pip install .`` gives)."""
    folder.mkdir()
    (folder / "python").symlink_to(sys.executable)
    for name, command in (("rlmon", "-m rlmon"), ("pip", "-m pip")):
        script = folder / name
        script.write_text(f'#!/bin/sh\nPYTHONPATH="{REPO_ROOT}" exec "{sys.executable}" {command} "$@"\n')
        script.chmod(0o755)
    return folder


def test_the_readme_alert_section_run_as_written_delivers_the_crash_to_the_mail_server(tmp_path: Path) -> None:
    block = alert_block()
    # the only changes: a free port and folders of this test's own
    assert block.count(PORT) == 2 and block.count(DEMO) == 3, block
    port = free_port()
    demo = tmp_path / "rlmon-demo"
    script = block.replace(PORT, f"127.0.0.1:{port}").replace(DEMO, str(demo))
    venv = os.environ.get("RLMON_README_VENV")
    env = {key: value for key, value in os.environ.items() if not key.startswith(("RLMON_", "PYTHON", "XDG_"))}
    env["HOME"] = str(tmp_path / "home")
    env["PYTHONUNBUFFERED"] = "1"  # the mail server prints as in a terminal, not into a file's buffer
    (tmp_path / "home").mkdir()
    if venv:
        bin_folder = Path(venv) / "bin"
        env["VIRTUAL_ENV"] = venv
    else:
        bin_folder = shims(tmp_path / "bin")
        env["PIP_NO_INDEX"] = "1"  # aiosmtpd is among the dev dependencies: "already satisfied", no download
    env["PATH"] = f"{bin_folder}{os.pathsep}{env.get('PATH', '')}"
    assert shutil.which("rlmon", path=env["PATH"]) == str(bin_folder / "rlmon")
    out, err = tmp_path / "block.out", tmp_path / "block.err"
    with out.open("wb") as stdout, err.open("wb") as stderr:
        shell = subprocess.Popen(
            ["bash", "-e", "-c", script], cwd=tmp_path, env=env, stdout=stdout, stderr=stderr, start_new_session=True
        )
    try:
        code = shell.wait(timeout=180)  # pip, the demo root, the 15 s sleep, the crash appended
        ended = time.monotonic()
        assert code == 0, err.read_text(errors="replace")
        # "within two refreshes" (--refresh-s 5): waited for up to 60 s on a loaded machine
        deadline = ended + 60
        arrived = None
        while time.monotonic() < deadline:
            if arrived is None and "END MESSAGE" in out.read_text(errors="replace"):
                arrived = time.monotonic() - ended
            if arrived is not None and "sent to mailto" in err.read_text(errors="replace"):
                break  # the watcher logs it once the mail server took it
            time.sleep(0.2)
        printed, logged = out.read_text(errors="replace"), err.read_text(errors="replace")
        assert arrived is not None, f"no mail within 60 s\n{logged}"
        print(f"the mail arrived {arrived:.1f} s after the crash line was appended")
    finally:
        os.killpg(shell.pid, signal.SIGTERM)  # the mail server and rlmon watch the block left running (`kill %1 %2`)
    # what the README and docs/alerts.md say arrives, and only that: the demo's older crashes were history
    assert printed.count("---------- MESSAGE FOLLOWS ----------") == 1, printed
    assert "Subject: =?utf-8?q?=5Brlmon=5D_E5_=C2=B7_REINFORCE++_crashed_after_step_21?=" in printed
    assert "To: you@example.com" in printed and "From: rlmon@example.com" in printed
    body = printed.split("---------- MESSAGE FOLLOWS ----------", 1)[1]
    for line in (
        "crashed after step 21: RuntimeError: CUDA out of memory",
        "Track: Qwen3.5-4B",
        "Step: 21",
        "Exception: RuntimeError: CUDA out of memory",
        "Severity: critical",
    ):
        assert line in body, body
    assert f"first start on {demo}: 47 event(s) already in its logs are not sent" in logged
    assert "sent to mailto://127.0.0.1 (--notify #1): [rlmon] E5 · REINFORCE++ crashed after step 21" in logged
    assert (tmp_path / "home" / ".cache" / "rlmon" / "alerts" / "state.json").exists()  # the default cache folder


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q", "-s", "-p", "no:cacheprovider"]))
