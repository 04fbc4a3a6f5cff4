"""``rlmon watch`` as a process of its own, as systemd or a terminal runs it: its output to files (not pipes), read
back while it runs."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.helpers.paths import REPO_ROOT

__all__ = ["WatchProcess"]


class WatchProcess:
    """``python -m rlmon watch ARGS`` started from the repository root, with rlmon's settings from ``env`` only."""

    def __init__(self, args: list[str], env: dict[str, str], folder: Path, name: str = "watch") -> None:
        clean = {key: value for key, value in os.environ.items() if not key.startswith("RLMON_")}
        self.err_path = folder / f"{name}.err"
        self.out_path = folder / f"{name}.out"
        self._err = self.err_path.open("wb")
        self._out = self.out_path.open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "rlmon", "watch", *args],
            cwd=REPO_ROOT,
            env=clean | env,
            stdout=self._out,
            stderr=self._err,
        )

    def err(self) -> str:
        return self.err_path.read_text(encoding="utf-8", errors="replace")

    def out(self) -> str:
        return self.out_path.read_text(encoding="utf-8", errors="replace")

    def wait_for(self, pattern: str, *, timeout_s: float, count: int = 1) -> bool:
        """Wait until stderr holds ``count`` matches of ``pattern`` (True), or the process ends or time runs out."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if len(re.findall(pattern, self.err())) >= count:
                return True
            if self.process.poll() is not None:
                return len(re.findall(pattern, self.err())) >= count
            time.sleep(0.1)
        return False

    def stop(self, *, kill: bool = False) -> int:
        """SIGTERM (a graceful stop, as systemd's) or SIGKILL; returns the exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
        try:
            code = self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait()
        self._err.close()
        self._out.close()
        return code
