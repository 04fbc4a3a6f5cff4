"""Two app replicas (real ``streamlit run``) and the CLI on one cache folder, and the deployment recipe's nginx
config in front of the replicas (deploy/nginx-rlmon.conf), driven in headless Chromium.

The replicas run as deploy/rlmon@.service starts them (loopback address, headless) with deploy/rlmon.env's
settings (one cookie secret, XSRF protection on) and this test's log root, cache folder and refresh period.
Skipped, with the reason, without Chromium and playwright (tests/helpers/server.py) or without Debian's nginx.
"""

from __future__ import annotations

import contextlib
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from rlmon.logs.cache import LogCache
from rlmon.logs.parse import parse_log_bytes
from tests.helpers.logs import assert_same_log, env_file, step_lines
from tests.helpers.nginx import health, run_nginx, served_by
from tests.helpers.paths import REPO_ROOT
from tests.helpers.server import CHROMIUM, CHROMIUM_ARGS, free_port, serve

pytestmark = pytest.mark.browser

KEYS = 6
"""Metrics per step line: few charts, so the pages draw quickly."""
HEADER = b"+ python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo\n"


@dataclass
class Replicas:
    log: Path
    cache_dir: Path
    urls: list[str]
    server_logs: list[Path]
    stops: list[contextlib.ExitStack] = field(default_factory=list)


@pytest.fixture(scope="module")
def replicas(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Replicas]:
    """Two replicas on one log root (one experiment, ``team/grpo``) and one cache folder."""
    folder = tmp_path_factory.mktemp("replicas")
    log = folder / "logs" / "team" / "grpo" / "run.log"
    log.parent.mkdir(parents=True)
    log.write_bytes(HEADER + step_lines(1, 200, keys=KEYS))
    # deploy/rlmon.env as shipped (XSRF protection, one cookie secret), with this test's root, cache and period
    env = env_file(REPO_ROOT / "deploy" / "rlmon.env") | {
        "RLMON_LOG_ROOT": str(folder / "logs"),
        "RLMON_CACHE_DIR": str(folder / "cache"),
        "RLMON_REFRESH_S": "2",
    }
    found = Replicas(log=log, cache_dir=folder / "cache", urls=[], server_logs=[])
    with contextlib.ExitStack() as outer:
        for index in range(2):
            home = folder / f"replica-{index}"
            home.mkdir()
            stack = outer.enter_context(contextlib.ExitStack())
            found.urls.append(stack.enter_context(serve(home, env, f"server-replica-{index}.log")))
            found.server_logs.append(home / "server.log")
            found.stops.append(stack)
        yield found


@pytest.fixture(scope="module")
def browser(replicas: Replicas) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield instance
        instance.close()


def new_page(browser: Any) -> Any:
    return browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US").new_page()


def wait_for_charts(page: Any, *, timeout_s: float = 60) -> None:
    page.wait_for_selector('[data-testid="stApp"]', timeout=timeout_s * 1000)
    page.locator('[data-testid="stVegaLiteChart"]').first.wait_for(timeout=timeout_s * 1000)


def steps_shown(page: Any) -> int:
    """Steps done of the one experiment, as the overview's progress caption shows them (``grpo running 340 steps``:
    its total is unknown; ``1,340 steps`` past a thousand)."""
    progress = re.compile(r"(\d[\d,]*) steps?\b")
    text = page.locator('[data-testid="stCaptionContainer"]', has_text=progress).first.inner_text()
    match = progress.search(text)
    assert match, text
    return int(match.group(1).replace(",", ""))


def no_errors(page: Any) -> None:
    assert page.locator('[data-testid="stException"]').count() == 0
    assert "Traceback" not in page.content()


def server_problems(path: Path) -> list[str]:
    return [
        line for line in path.read_text(errors="replace").splitlines() if re.search(r"Traceback|Error|Exception", line)
    ]


def cli_parse(replicas: Replicas, out: Path) -> subprocess.CompletedProcess[str]:
    command = ["parse", str(replicas.log), "--out", str(out), "--cache-dir", str(replicas.cache_dir)]
    return subprocess.run(
        [sys.executable, "-m", "rlmon", *command],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_two_replicas_and_the_cli_on_one_cache_while_a_log_grows(
    replicas: Replicas, browser: Any, tmp_path: Path
) -> None:
    pages = [new_page(browser) for _ in replicas.urls]
    for page, url in zip(pages, replicas.urls, strict=True):
        page.goto(url, wait_until="commit")
    for page in pages:
        wait_for_charts(page)
        assert steps_shown(page) == 200
    stop = threading.Event()
    written = [200]

    def grow() -> None:
        while not stop.is_set() and written[0] < 600:
            if written[0] == 400:
                # half way, the CLI has read the log at least once while it grew (bounded: a loaded machine's
                # parse may take longer than the growth)
                deadline = time.monotonic() + 120
                while not cli_runs and not stop.is_set() and time.monotonic() < deadline:
                    time.sleep(0.1)
            with replicas.log.open("ab") as handle:
                handle.write(step_lines(written[0] + 1, 20, keys=KEYS))
            written[0] += 20
            time.sleep(0.25)

    cli_runs: list[Any] = []
    grower = threading.Thread(target=grow)
    grower.start()
    try:
        while grower.is_alive():
            cli_runs.append(cli_parse(replicas, tmp_path / f"cli-{len(cli_runs)}.parquet"))
            for page in pages:
                page.wait_for_timeout(200)
    finally:
        stop.set()
        grower.join()
    assert written[0] == 600
    assert len(cli_runs) >= 2
    assert [run.returncode for run in cli_runs] == [0] * len(cli_runs), [run.stderr for run in cli_runs]
    assert not [run.stderr for run in cli_runs if run.stderr.strip()]
    final = replicas.log.read_bytes()
    cold = parse_log_bytes(final)
    assert cold.steps["step"].to_list() == list(range(1, 601))
    # each replica shows every step once its next refresh (2 s) has read the rest
    for page in pages:
        deadline = time.monotonic() + 30
        while steps_shown(page) != 600 and time.monotonic() < deadline:
            page.wait_for_timeout(500)
        assert steps_shown(page) == 600
        no_errors(page)
    done = cli_parse(replicas, tmp_path / "cli-final.parquet")
    assert done.returncode == 0 and not done.stderr.strip(), done.stderr
    assert_frame_equal(pl.read_parquet(tmp_path / "cli-final.parquet"), cold.steps)
    # the one entry on disk, which every process wrote a part of, is the cold parse of the final bytes
    restarted = LogCache(replicas.cache_dir)
    assert_same_log(restarted.read(replicas.log), cold)
    assert restarted.parses == 0
    for path in replicas.server_logs:
        assert not server_problems(path), path.read_text(errors="replace")[-3000:]
    for page in pages:
        page.context.close()


def test_the_nginx_recipe_serves_the_replicas(replicas: Replicas, browser: Any, tmp_path: Path) -> None:
    replica_ports = [int(url.rsplit(":", 1)[1]) for url in replicas.urls]
    with run_nginx(tmp_path, listen=free_port(), replica_ports=replica_ports) as proxy:
        page = new_page(browser)
        sockets: list[Any] = []
        received: list[int] = []
        page.on(
            "websocket",
            lambda socket: (sockets.append(socket), socket.on("framereceived", lambda _: received.append(1))),
        )
        page.goto(proxy)
        wait_for_charts(page)
        no_errors(page)
        assert steps_shown(page) >= 200
        assert [socket.url for socket in sockets] == [f"ws{proxy.removeprefix('http')}/_stcore/stream"]
        assert received, "no websocket frame came through the proxy"
        page.goto(f"{proxy}/team-grpo")
        page.get_by_text("Training curves").wait_for(timeout=60_000)
        wait_for_charts(page)
        no_errors(page)
        # one replica stops: the proxy's health check and pages are answered by the other
        replicas.stops[0].close()
        for _ in range(5):
            assert health(proxy) == (200, "ok")
        page.goto(proxy)
        wait_for_charts(page)
        no_errors(page)
        assert steps_shown(page) >= 200
        page.context.close()
        assert any(status == 101 for _, status, _ in served_by(tmp_path))  # the websocket upgrade, through the proxy
