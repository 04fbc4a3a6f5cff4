"""Several processes on one cache folder: the lock files (rlmon/logs/locks.py), a writer killed mid-write, a reader that
loses a race with a writer, a reader that waits in vain for another process's lock.

Child processes are real ``python`` processes (a lock held by a thread of this process would prove nothing
about two processes). Expected frames come from a cold parse of the same bytes (:func:`parse_log_bytes`).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import rlmon.logs.cache
from rlmon.logs import locks
from rlmon.logs.cache import LogCache
from rlmon.logs.parse import parse_log_bytes
from tests.helpers.logs import KEYS, assert_same_log, env_file, step_lines
from tests.helpers.paths import REPO_ROOT


def lock_file(cache_dir: Path, log: Path) -> Path:
    """Where LogCache keeps the lock of ``log`` (a hash of its absolute path, as for its cache entry)."""
    digest = hashlib.sha1(os.path.abspath(log).encode()).hexdigest()[:20]
    return cache_dir / "locks" / f"{digest}.lock"


def child(code: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", code, *args], cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def dead_pid() -> int:
    """The pid of a process that ran on this host and is gone."""
    process = subprocess.Popen(["true"])
    process.wait()
    return process.pid


# --- lock files -------------------------------------------------------------------------------------------------------
def write_holder(path: Path, **holder: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(holder))


def test_a_held_lock_is_not_taken_and_release_frees_it(tmp_path: Path) -> None:
    path = tmp_path / "a.lock"
    held = locks.acquire(path, wait_s=0)
    assert held is not None
    holder = json.loads(path.read_text())
    assert holder["pid"] == os.getpid() and holder["host"] == socket.gethostname()
    started = time.monotonic()
    assert locks.acquire(path, wait_s=0.3) is None
    assert time.monotonic() - started >= 0.3
    held.release()
    assert not path.exists()
    assert locks.acquire(path, wait_s=0) is not None


def test_a_lock_older_than_the_stale_timeout_is_broken(tmp_path: Path) -> None:
    path = tmp_path / "a.lock"
    now = time.time()
    # on another host: its pid says nothing here, only its age counts
    write_holder(path, pid=1, host="elsewhere", time=now - 100, token="old")
    assert locks.acquire(path, wait_s=0, stale_s=300) is None
    assert json.loads(path.read_text())["token"] == "old"
    held = locks.acquire(path, wait_s=0, stale_s=60)
    assert held is not None
    assert json.loads(path.read_text())["token"] == held.token
    assert not [item for item in tmp_path.iterdir() if item.name.endswith(".broken")]


def test_a_lock_whose_pid_is_dead_on_this_host_is_broken_at_once(tmp_path: Path) -> None:
    path = tmp_path / "a.lock"
    pid = dead_pid()
    write_holder(path, pid=pid, host=socket.gethostname(), time=time.time(), token="gone")
    (tmp_path / f".a.lock.{pid}.0badf00d.tmp").write_text("{}")  # its own file, not yet removed when killed
    held = locks.acquire(path, wait_s=0)
    assert held is not None and json.loads(path.read_text())["token"] == held.token
    assert sorted(item.name for item in tmp_path.iterdir()) == ["a.lock"]


def test_a_renewed_lock_is_not_stale_and_a_lost_one_is_not_renewed(tmp_path: Path) -> None:
    path = tmp_path / "a.lock"
    now = time.time()
    held = locks.acquire(path, wait_s=0, clock=lambda: now - 100)
    assert held is not None
    assert locks.is_stale(path, stale_s=60, now=now)  # taken 100 s ago, never renewed
    assert locks.renew(held, clock=lambda: now)
    assert not locks.is_stale(path, stale_s=60, now=now)
    assert json.loads(path.read_text())["token"] == held.token
    assert sorted(item.name for item in tmp_path.iterdir()) == ["a.lock"]  # no temporary file left
    # another process broke it (stale on its clock) and took it: this one's renewal fails and writes nothing
    other = locks.acquire(path, wait_s=0, stale_s=60, clock=lambda: now + 100)
    assert other is not None
    assert not locks.renew(held, clock=lambda: now + 101)
    assert json.loads(path.read_text())["token"] == other.token


def test_a_live_pid_on_this_host_keeps_its_lock(tmp_path: Path) -> None:
    path = tmp_path / "a.lock"
    write_holder(path, pid=os.getppid(), host=socket.gethostname(), time=time.time(), token="alive")
    assert locks.acquire(path, wait_s=0.1) is None
    assert json.loads(path.read_text())["token"] == "alive"


def test_a_lock_file_never_written_is_broken_once_it_is_old(tmp_path: Path) -> None:
    # its holder died between creating and writing it: judged by its mtime
    path = tmp_path / "a.lock"
    path.write_bytes(b"")
    assert locks.acquire(path, wait_s=0) is None
    old = time.time() - 60
    os.utime(path, (old, old))
    assert locks.acquire(path, wait_s=0) is not None


def test_without_hard_links_the_lock_file_itself_is_created_exclusively(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    def no_links(*_: Any) -> None:
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    path = tmp_path / "a.lock"
    held = locks.acquire(path, wait_s=0)
    assert held is not None and json.loads(path.read_text())["token"] == held.token
    assert locks.acquire(path, wait_s=0) is None
    assert sorted(item.name for item in tmp_path.iterdir()) == ["a.lock"]  # no file of its own left behind
    held.release()
    assert not path.exists()


def test_release_leaves_a_lock_another_process_took_after_breaking_ours(tmp_path: Path) -> None:
    path = tmp_path / "a.lock"
    held = locks.acquire(path, wait_s=0)
    assert held is not None
    write_holder(path, pid=1, host="elsewhere", time=time.time(), token="theirs")
    held.release()
    assert json.loads(path.read_text())["token"] == "theirs"


# --- two processes, one log -------------------------------------------------------------------------------------------
_READER = """
import json, sys
from pathlib import Path
from rlmon.logs.cache import LogCache
cache = LogCache(Path(sys.argv[1]), quiet_s=0)
print("start", flush=True)
result = cache.read(sys.argv[2])
print(json.dumps({"parses": cache.parses, "rows": result.steps.height, "timeouts": cache.lock_timeouts}), flush=True)
"""


def test_two_processes_reading_one_log_parse_it_once(tmp_path: Path, cache_dir: Path) -> None:
    log = tmp_path / "run.log"
    log.write_bytes(step_lines(1, 3000))
    # this test holds the log's lock until both readers are about to read: both must wait for it
    held = locks.acquire(lock_file(cache_dir, log), wait_s=0)
    assert held is not None
    readers = [child(_READER, str(cache_dir), str(log)) for _ in range(2)]
    for reader in readers:
        assert reader.stdout is not None
        assert reader.stdout.readline().strip() == "start"
    time.sleep(0.5)
    held.release()
    reports = []
    for reader in readers:
        out, err = reader.communicate(timeout=60)
        assert reader.returncode == 0, err
        reports.append(json.loads(out))
    assert sorted(report["parses"] > 0 for report in reports) == [False, True]
    assert [report["rows"] for report in reports] == [3000, 3000]
    assert [report["timeouts"] for report in reports] == [0, 0]


def test_a_reader_that_waits_in_vain_parses_in_memory_and_writes_nothing(tmp_path: Path, cache_dir: Path) -> None:
    log = tmp_path / "run.log"
    data = step_lines(1, 50)
    log.write_bytes(data)
    held = locks.acquire(lock_file(cache_dir, log), wait_s=0)
    assert held is not None
    cache = LogCache(cache_dir, quiet_s=0, lock_wait_s=0.2)
    assert_same_log(cache.read(log), parse_log_bytes(data))
    assert cache.lock_timeouts == 1
    assert not (cache_dir / "logs").exists()
    held.release()
    with log.open("ab") as handle:
        handle.write(step_lines(51, 5))
    # the next read takes the lock and writes the whole entry (the disk held nothing)
    assert_same_log(cache.read(log), parse_log_bytes(log.read_bytes()))
    restarted = LogCache(cache_dir, quiet_s=0)
    assert_same_log(restarted.read(log), parse_log_bytes(log.read_bytes()))
    assert restarted.parses == 0


def test_a_reader_that_loses_a_race_with_a_writer_reads_the_new_state(
    tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the reader reads state.json; before it opens the frame files, another process writes a new entry (and
    # removes the files the old state named); the reader reads the new state and loads what was written
    log = tmp_path / "run.log"
    log.write_bytes(step_lines(1, 40))
    writer = LogCache(cache_dir, quiet_s=0)
    writer.read(log)
    original = rlmon.logs.cache._read_frame
    raced = []

    def read_after_a_write(path: Path, *, rows: int, crc: int) -> Any:
        if not raced:
            raced.append(path.name)
            with log.open("ab") as handle:
                handle.write(step_lines(41, 10))
            writer.read(log)
        return original(path, rows=rows, crc=crc)

    monkeypatch.setattr(rlmon.logs.cache, "_read_frame", read_after_a_write)
    reader = LogCache(cache_dir, quiet_s=0)
    result = reader.read(log)
    assert raced and not (log.parent / raced[0]).exists()
    assert_same_log(result, parse_log_bytes(log.read_bytes()))
    assert reader.parses == 0
    assert result.steps.height == 50


# --- a writer killed mid-write ----------------------------------------------------------------------------------------
_GROWER = """
import sys
from pathlib import Path
import rlmon.logs.cache
rlmon.logs.cache.MAX_DELTAS = 0  # every refresh writes the whole frame anew: most of the time goes to writing
cache = rlmon.logs.cache.LogCache(Path(sys.argv[1]), quiet_s=0)
log = Path(sys.argv[2])
keys = int(sys.argv[3])
step = sum(1 for _ in log.open("rb")) + 1
print("ready", flush=True)
while True:
    lines = []
    for n in range(step, step + 20):
        pairs = " - ".join(f"actor/m{key}:{n + key / 100:.4f}" for key in range(keys))
        lines.append(f"(TaskRunner pid=7) step:{n} - {pairs}\\n")
    with log.open("ab") as handle:
        handle.write("".join(lines).encode())  # one write of whole lines
    step += 20
    cache.read(log)
"""


def test_a_writer_killed_at_random_points_leaves_a_readable_cache(tmp_path: Path, cache_dir: Path) -> None:
    log = tmp_path / "run.log"
    log.write_bytes(step_lines(1, 4000))
    seed = random.randrange(10**6)
    rng = random.Random(seed)
    left_temporaries = 0
    for _ in range(5):
        grower = child(_GROWER, str(cache_dir), str(log), str(KEYS))
        assert grower.stdout is not None
        assert grower.stdout.readline().strip() == "ready", grower.stderr.read() if grower.stderr else ""
        time.sleep(rng.uniform(0.1, 1.0))
        grower.send_signal(signal.SIGKILL)
        grower.communicate(timeout=30)
        assert grower.returncode == -signal.SIGKILL, f"seed {seed}"
        logs = cache_dir / "logs"
        left_temporaries += bool(logs.exists() and any(item.name.endswith(".tmp") for item in logs.rglob("*")))
        # its lock names a dead pid on this host: the fresh cache breaks it at once
        fresh = LogCache(cache_dir, quiet_s=0, lock_wait_s=5)
        assert_same_log(fresh.read(log), parse_log_bytes(log.read_bytes()))
        assert fresh.lock_timeouts == 0, (
            f"seed {seed}, killed pid {grower.pid}: "
            f"{[(item.name, item.read_bytes()) for item in (cache_dir / 'locks').iterdir()]}"
        )
    print(f"seed {seed}: {left_temporaries} of 5 kills left a temporary file behind")
    # the next write removes what killed writers left (temporary files once older than a stale lock) and the
    # frame files no state names
    with log.open("ab") as handle:
        handle.write(step_lines(10**6, 1))
    LogCache(cache_dir, quiet_s=0, lock_stale_s=0).read(log)
    (entry,) = (cache_dir / "logs").iterdir()
    named = [name for name, _, _ in json.loads((entry / "state.json").read_text())["files"]]
    assert sorted(item.name for item in entry.iterdir()) == sorted([*named, "state.json"])


# --- the samples cache on one folder ----------------------------------------------------------------------------------
def samples_log(steps: range) -> bytes:
    """One validation sample print per step, then the step line (as verl prints them)."""
    text = "".join(
        f"(TaskRunner pid=7) [prompt] question {step}\n(TaskRunner pid=7) [response] answer {step}\n"
        f"(TaskRunner pid=7) [ground_truth] {step}\n(TaskRunner pid=7) [score] 1.0\n"
        f"(TaskRunner pid=7) step:{step} - val-core/acc:{step / 100}\n"
        for step in steps
    )
    return text.encode()


def test_samples_a_reader_that_loses_a_race_with_a_writer_reads_the_new_state(
    tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import polars as pl

    import rlmon.logs.samples
    from rlmon.logs.samples import SampleCache

    log = tmp_path / "run.log"
    log.write_bytes(samples_log(range(1, 4)))
    writer = SampleCache(cache_dir)
    assert writer.read(log).samples["step"].to_list() == [1, 2, 3]
    original = pl.read_parquet
    raced: list[str] = []

    def read_after_a_write(source: Any, *args: Any, **kwargs: Any) -> Any:
        if not raced and isinstance(source, Path) and source.name.startswith("samples-"):
            raced.append(source.name)
            with log.open("ab") as handle:
                handle.write(samples_log(range(4, 6)))
            writer.read(log)
        return original(source, *args, **kwargs)

    monkeypatch.setattr(rlmon.logs.samples.pl, "read_parquet", read_after_a_write)
    reader = SampleCache(cache_dir)
    result = reader.read(log)
    assert raced and not list((cache_dir / "samples").rglob(raced[0]))
    assert result.samples["step"].to_list() == [1, 2, 3, 4, 5]
    assert result.samples["prompt"].to_list() == [f"question {step}" for step in range(1, 6)]
    assert reader.reads == 1  # it loaded the writer's entry and read only the last look at the log


def test_samples_a_reader_that_waits_in_vain_writes_nothing(tmp_path: Path, cache_dir: Path) -> None:
    from rlmon.logs.samples import SampleCache

    log = tmp_path / "run.log"
    log.write_bytes(samples_log(range(1, 3)))
    folder = SampleCache(cache_dir)._folder(os.path.abspath(log))
    assert folder is not None
    held = locks.acquire(cache_dir / "locks" / f"samples-{folder.name}.lock", wait_s=0)
    assert held is not None
    cache = SampleCache(cache_dir, lock_wait_s=0.2)
    assert cache.read(log).samples["step"].to_list() == [1, 2]
    assert not (cache_dir / "samples").exists()
    held.release()
    with log.open("ab") as handle:
        handle.write(samples_log(range(3, 4)))
    assert cache.read(log).samples["step"].to_list() == [1, 2, 3]
    # the samples read while the lock was held elsewhere reach the disk with the next write
    assert SampleCache(cache_dir).read(log).samples["step"].to_list() == [1, 2, 3]


# --- the deployment files ---------------------------------------------------------------------------------------------
def test_the_shared_settings_file_names_only_real_settings() -> None:
    from rlmon.settings import SETTINGS

    names = set(env_file(REPO_ROOT / "deploy" / "rlmon.env"))
    rlmon_names = {name for name in names if name.startswith("RLMON_")}
    assert rlmon_names <= {spec.env for spec in SETTINGS}
    assert {
        "RLMON_LOG_ROOT",
        "RLMON_CACHE_DIR",
        "RLMON_REFRESH_S",
        "RLMON_ALLOWED_EMAILS",
        "RLMON_ALLOWED_DOMAINS",
    } <= (rlmon_names)
    assert {"STREAMLIT_SERVER_ENABLE_XSRF_PROTECTION", "STREAMLIT_SERVER_COOKIE_SECRET"} <= names
    assert names <= rlmon_names | {"STREAMLIT_SERVER_ENABLE_XSRF_PROTECTION", "STREAMLIT_SERVER_COOKIE_SECRET"}


def test_the_unit_runs_one_replica_per_port_on_loopback() -> None:
    unit = (REPO_ROOT / "deploy" / "rlmon@.service").read_text()
    (exec_start,) = [line for line in unit.splitlines() if line.startswith("ExecStart=")]
    words = exec_start.removeprefix("ExecStart=").split()
    assert words[:2] == ["/opt/rlmon/.venv/bin/streamlit", "run"] and words[2].endswith("/streamlit_app.py")
    options = dict(zip(words[3::2], words[4::2], strict=True))
    assert options == {
        "--server.port": "%i", "--server.address": "127.0.0.1", "--server.headless": "true",
        # one secrets file for every replica: the sign-in's cookie secret is the same everywhere
        "--secrets.files": "/etc/rlmon/secrets.toml",
    }  # fmt: skip
    assert "EnvironmentFile=/etc/rlmon/rlmon.env" in unit.splitlines()
