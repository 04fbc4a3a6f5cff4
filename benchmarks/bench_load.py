"""Load on the demo: N concurrent sessions against one ``streamlit run streamlit_app.py``, at the protocol level.

    python -m benchmarks.bench_load                                  # 20 then 50 sessions, 60 s each
    python -m benchmarks.bench_load --sessions 5 --duration-s 20     # a quick look

For each N a fresh server is started on the demo data (its own temporary cache folder, a free loopback port,
its output in ``server.log`` in a temporary folder, ``RLMON_REFRESH_S`` = ``--refresh-s``, 10 by default).
One warm-up session opens the overview first (the demo logs are written and parsed: the cold first render),
then N sessions open it, spread over ``--ramp-s`` seconds, and stay ``--duration-s`` seconds each.

A session is what a browser tab does, without the browser: a websocket to ``/_stcore/stream`` carrying
Streamlit's protobuf messages (``streamlit.proto``). It sends a ``rerun_script`` BackMsg (the first render), then,
like the frontend, starts one timer per ``auto_rerun`` ForwardMsg the page sends (the live fragments: the
page body and the sidebar legend) and sends a ``rerun_script`` for that fragment with ``is_auto_rerun`` every
interval. It never touches a widget (a viewer watching the live page), so it sends no widget states.

Measured per N:
- errors: an exception or error box in the page, a page-not-found, a closed websocket, a render or rerun that
  did not finish within ``--timeout-s``;
- first render: from opening the websocket to the ``script_finished`` of the first run (min/median/p95);
- rerun: from sending a fragment's auto-rerun to the ``script_finished`` of a run that included the fragment
  (the ForwardMsg metadata names the fragments of each run) (median/p95);
- server RSS: ``VmRSS`` after the warm-up, and the peak ``VmHWM`` (of the server process and any children) at
  the end, from ``/proc``.

The client runs on the same machine as the server, so it shares the cores with it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

# The protocol's message types only (TID251 bans importing streamlit in rlmon): this client runs no Streamlit code.
from streamlit.proto.Alert_pb2 import Alert  # noqa: TID251
from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: TID251
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: TID251
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import WebSocketException

from tests.helpers.server import free_port

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "streamlit_app.py"
FINISHED = (ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY)


# ------------------------------------------------------------------------------------------------- server


@dataclass(frozen=True)
class Server:
    url: str
    pid: int
    log: Path


@contextlib.contextmanager
def demo_server(folder: Path, *, refresh_s: int, env_extra: dict[str, str] | None = None) -> Iterator[Server]:
    """``streamlit run streamlit_app.py`` on the demo data (or the settings of ``env_extra``: a log root), a free
    loopback port and a cache folder of its own; yields once ``/_stcore/health`` answers. The server's output goes
    to ``folder/server.log``."""
    port = free_port()
    env = {key: value for key, value in os.environ.items() if not key.startswith("RLMON_") and key != "XDG_CACHE_HOME"}
    env |= {"RLMON_CACHE_DIR": str(folder / "cache"), "RLMON_REFRESH_S": str(refresh_s), **(env_extra or {})}
    log_path = folder / "server.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [
                sys.executable, "-m", "streamlit", "run", str(APP),
                "--server.port", str(port), "--server.address", "127.0.0.1", "--server.headless", "true",
            ],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                        if response.status == 200:
                            break
                except OSError:
                    pass
                if process.poll() is not None or time.monotonic() > deadline:
                    log.flush()
                    raise SystemExit(f"streamlit did not come up on {url}:\n{log_path.read_text(errors='replace')}")
                time.sleep(0.3)
            yield Server(url=url, pid=process.pid, log=log_path)
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _status_kb(pid: int, key: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _process_tree(pid: int) -> list[int]:
    pids = [pid]
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        with contextlib.suppress(OSError):
            for child in task.read_text().split():
                pids.extend(_process_tree(int(child)))
    return pids


def rss_mb(pid: int, *, peak: bool) -> float:
    """Resident memory of the server and its children in MB: current (``VmRSS``) or peak (``VmHWM``)."""
    key = "VmHWM" if peak else "VmRSS"
    return sum(_status_kb(item, key) for item in _process_tree(pid)) / 1024


def cpu_s(pid: int) -> float:
    """CPU seconds (user + system) the server and its children have used so far."""
    total = 0.0
    for item in _process_tree(pid):
        with contextlib.suppress(OSError, IndexError, ValueError):
            # the fields after the command name (which may hold spaces): utime and stime are the 12th and 13th
            fields = Path(f"/proc/{item}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


# ------------------------------------------------------------------------------------------------ session


@dataclass
class SessionResult:
    first_render_s: float | None = None
    rerun_s: list[float] = field(default_factory=list)
    interrupted: int = 0
    """Auto-reruns whose run ended early because another rerun request of the session came in."""
    unanswered: int = 0
    """Auto-reruns with no run of their fragment before the fragment's next one was sent (or the session ended)."""
    errors: list[str] = field(default_factory=list)
    received_bytes: int = 0


def _rerun(*, page_script_hash: str, url: str, fragment_id: str = "") -> bytes:
    message = BackMsg()
    state = message.rerun_script
    state.query_string = ""
    state.page_script_hash = page_script_hash
    if fragment_id:
        state.fragment_id = fragment_id
        state.is_auto_rerun = True
    state.context_info.timezone = "UTC"
    state.context_info.timezone_offset = 0
    state.context_info.locale = "en-US"
    state.context_info.url = url
    return message.SerializeToString()


class Session:
    """One viewer on the overview: the first render, then the live fragments' auto-reruns."""

    def __init__(self, server: Server, *, timeout_s: float) -> None:
        self.server = server
        self.timeout_s = timeout_s
        self.result = SessionResult()
        self._page_hash = ""
        self._timers: dict[str, tuple[float, asyncio.Task[None]]] = {}
        self._pending: dict[str, float] = {}
        """Fragment id -> when its auto-rerun was sent, until a run of the fragment ends."""

    async def run(self, *, start_delay_s: float, duration_s: float) -> SessionResult:
        await asyncio.sleep(start_delay_s)
        ws_url = self.server.url.replace("http://", "ws://") + "/_stcore/stream"
        started = time.perf_counter()
        try:
            async with connect(ws_url, subprotocols=["streamlit"], max_size=None, open_timeout=self.timeout_s) as ws:
                await ws.send(_rerun(page_script_hash="", url=self.server.url + "/"))
                await self._receive(ws, until=lambda: self.result.first_render_s is not None, started=started)
                end = time.perf_counter() + duration_s
                await self._receive(ws, until=lambda: time.perf_counter() >= end, started=started, deadline=end)
                self._stop_timers()
                # let the reruns already sent finish (those that never will count as unanswered)
                end = time.perf_counter() + min(self.timeout_s, 15.0)
                await self._receive(ws, until=lambda: not self._pending, started=started, deadline=end)
                self.result.unanswered += len(self._pending)
        except (OSError, WebSocketException, TimeoutError) as error:
            self.result.errors.append(f"connection: {type(error).__name__}: {error}")
        finally:
            self._stop_timers()
        return self.result

    async def _receive(
        self, ws: ClientConnection, *, until: Callable[[], bool], started: float, deadline: float | None = None
    ) -> None:
        """Handle messages until ``until()`` holds or ``deadline`` passes; TimeoutError after ``timeout_s`` of
        silence without a deadline."""
        while not until():
            wait_s = self.timeout_s if deadline is None else max(0.01, deadline - time.perf_counter())
            try:
                raw = await asyncio.wait_for(ws.recv(), timeout=wait_s)
            except TimeoutError:
                if deadline is not None and time.perf_counter() >= deadline:
                    return
                waiting = "first render" if self.result.first_render_s is None else "rerun"
                raise TimeoutError(f"no {waiting} within {self.timeout_s:.0f} s") from None
            if isinstance(raw, str):
                self.result.errors.append("protocol: a text frame")
                continue
            self.result.received_bytes += len(raw)
            self._handle(ws, raw, started)

    def _handle(self, ws: ClientConnection, raw: bytes, started: float) -> None:
        message = ForwardMsg()
        message.ParseFromString(raw)
        kind = message.WhichOneof("type")
        if kind == "new_session":
            self._page_hash = message.new_session.page_script_hash or self._page_hash
        elif kind == "navigation":
            self._page_hash = message.navigation.page_script_hash or self._page_hash
        elif kind == "page_not_found":
            self.result.errors.append(f"page not found: {message.page_not_found.page_name!r}")
        elif kind == "delta" and message.delta.WhichOneof("type") == "new_element":
            element = message.delta.new_element
            element_kind = element.WhichOneof("type")
            if element_kind == "exception":
                self.result.errors.append(f"exception: {element.exception.message[:200]}")
            elif element_kind == "alert" and element.alert.format == Alert.ERROR:
                self.result.errors.append(f"error box: {element.alert.body[:200]}")
        elif kind == "auto_rerun":
            self._start_timer(ws, message.auto_rerun.fragment_id, message.auto_rerun.interval)
        elif kind == "stop_auto_rerun":
            for fragment_id in message.stop_auto_rerun.fragment_ids:
                self._stop_timer(fragment_id)
        elif kind == "script_finished":
            if self.result.first_render_s is None and message.script_finished in FINISHED:
                self.result.first_render_s = time.perf_counter() - started
            self._finished(message)

    def _finished(self, message: ForwardMsg) -> None:
        status = message.script_finished
        if status == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
            self.result.errors.append("script finished with a compile error")
        now = time.perf_counter()
        for fragment_id in message.metadata.run.fragment_ids:
            sent = self._pending.pop(fragment_id, None)
            if sent is None:
                continue
            if status in FINISHED:
                self.result.rerun_s.append(now - sent)
            elif status == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                self.result.interrupted += 1

    def _start_timer(self, ws: ClientConnection, fragment_id: str, interval_s: float) -> None:
        """Like the frontend: one timer per fragment, replaced only when the interval changes."""
        if not fragment_id:
            return
        known = self._timers.get(fragment_id)
        if known is not None and known[0] == interval_s:
            return
        self._stop_timer(fragment_id)
        self._timers[fragment_id] = (interval_s, asyncio.create_task(self._tick(ws, fragment_id, interval_s)))

    async def _tick(self, ws: ClientConnection, fragment_id: str, interval_s: float) -> None:
        while True:
            await asyncio.sleep(interval_s)
            if fragment_id in self._pending:
                self.result.unanswered += 1
            self._pending[fragment_id] = time.perf_counter()
            message = _rerun(page_script_hash=self._page_hash, url=self.server.url + "/", fragment_id=fragment_id)
            with contextlib.suppress(WebSocketException):
                await ws.send(message)

    def _stop_timer(self, fragment_id: str) -> None:
        known = self._timers.pop(fragment_id, None)
        if known is not None:
            known[1].cancel()

    def _stop_timers(self) -> None:
        for fragment_id in list(self._timers):
            self._stop_timer(fragment_id)


# --------------------------------------------------------------------------------------------------- runs


@dataclass(frozen=True)
class LoadResult:
    sessions: int
    cold_first_render_s: float
    idle_rss_mb: float
    peak_rss_mb: float
    server_cores: float
    """Server CPU seconds per second of the measured part (sessions open to last close)."""
    client_cores: float
    """The same for this client process (it shares the machine with the server)."""
    results: tuple[SessionResult, ...]

    @property
    def errors(self) -> list[str]:
        return [error for result in self.results for error in result.errors]

    @property
    def first_renders(self) -> list[float]:
        return sorted(result.first_render_s for result in self.results if result.first_render_s is not None)

    @property
    def reruns(self) -> list[float]:
        return sorted(value for result in self.results for value in result.rerun_s)


def p95(values: list[float]) -> float:
    """The nearest-rank 95th percentile of sorted values."""
    return values[max(0, -(-95 * len(values) // 100) - 1)]


async def _sessions(
    server: Server, count: int, *, ramp_s: float, duration_s: float, timeout_s: float
) -> list[SessionResult]:
    sessions = [Session(server, timeout_s=timeout_s) for _ in range(count)]
    runs = [
        session.run(start_delay_s=ramp_s * index / max(1, count), duration_s=duration_s)
        for index, session in enumerate(sessions)
    ]
    return list(await asyncio.gather(*runs))


def measure(count: int, *, duration_s: float, ramp_s: float, refresh_s: int, timeout_s: float) -> LoadResult:
    folder = Path(tempfile.mkdtemp(prefix="rlmon-bench-load-"))
    try:
        with demo_server(folder, refresh_s=refresh_s) as server:
            [warm] = asyncio.run(_sessions(server, 1, ramp_s=0, duration_s=0, timeout_s=timeout_s))
            if warm.first_render_s is None or warm.errors:
                raise SystemExit(f"the warm-up session failed: {warm.errors}\nserver output: {server.log}")
            idle = rss_mb(server.pid, peak=False)
            wall, server_cpu, client_cpu = time.perf_counter(), cpu_s(server.pid), time.process_time()
            results = asyncio.run(_sessions(server, count, ramp_s=ramp_s, duration_s=duration_s, timeout_s=timeout_s))
            wall = time.perf_counter() - wall
            server_cores = (cpu_s(server.pid) - server_cpu) / wall
            client_cores = (time.process_time() - client_cpu) / wall
            peak = rss_mb(server.pid, peak=True)
            return LoadResult(
                sessions=count,
                cold_first_render_s=warm.first_render_s,
                idle_rss_mb=idle,
                peak_rss_mb=peak,
                server_cores=server_cores,
                client_cores=client_cores,
                results=tuple(results),
            )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


HEADER = (
    "| sessions | errors | first render min / median / p95 | rerun median / p95 | reruns done / interrupted / "
    "unanswered | server RSS after warm-up → peak | server CPU (cores) |\n|---|---|---|---|---|---|---|"
)


def report(load: LoadResult) -> str:
    """One row of :data:`HEADER`."""
    firsts, reruns = load.first_renders, load.reruns
    first = f"{firsts[0]:.2f} / {statistics.median(firsts):.2f} / {p95(firsts):.2f} s" if firsts else "none"
    rerun = f"{statistics.median(reruns) * 1000:.0f} / {p95(reruns) * 1000:.0f} ms" if reruns else "none"
    interrupted = sum(result.interrupted for result in load.results)
    unanswered = sum(result.unanswered for result in load.results)
    return (
        f"| {load.sessions} | {len(load.errors)} | {first} | {rerun} | {len(reruns)} / {interrupted} / {unanswered} "
        f"| {load.idle_rss_mb:.0f} MB → {load.peak_rss_mb:.0f} MB | {load.server_cores:.2f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, nargs="+", default=[20, 50], help="session counts, one run each")
    parser.add_argument("--duration-s", type=float, default=60.0, help="how long each session stays open")
    parser.add_argument("--ramp-s", type=float, default=10.0, help="sessions open spread over this many seconds")
    parser.add_argument("--refresh-s", type=int, default=10, help="the app's live refresh period (RLMON_REFRESH_S)")
    parser.add_argument("--timeout-s", type=float, default=120.0, help="longest wait for a first render")
    args = parser.parse_args()

    print(
        f"{os.cpu_count()} cores; live refresh every {args.refresh_s} s; sessions open over {args.ramp_s:.0f} s "
        f"and stay {args.duration_s:.0f} s"
    )
    rows = []
    for count in args.sessions:
        load = measure(
            count, duration_s=args.duration_s, ramp_s=args.ramp_s, refresh_s=args.refresh_s, timeout_s=args.timeout_s
        )
        rows.append(report(load))
        print(
            f"{count} sessions: cold first render of the warm-up session {load.cold_first_render_s:.2f} s; "
            f"this client used {load.client_cores:.2f} cores and received "
            f"{sum(result.received_bytes for result in load.results) / 1e6:.0f} MB; "
            f"load average now {os.getloadavg()[0]:.1f}"
        )
        for error in sorted(set(load.errors))[:10]:
            print(f"  error ({load.errors.count(error)}x): {error}")
    print(HEADER)
    for row in rows:
        print(row)


if __name__ == "__main__":
    main()
