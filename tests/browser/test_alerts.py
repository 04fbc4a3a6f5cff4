"""Two app replicas (real ``streamlit run``) on one cache folder with the alert watcher on (an alert target set):
each event is sent by exactly one of them, to real receivers on loopback (a JSON webhook and aiosmtpd); when the
sending replica dies the other takes over; the Alerts page, drawn in headless Chromium, shows the same on both.

Skipped, with the reason, without Chromium and playwright (tests/helpers/server.py).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from rlmon.app.navigation import ALERTS_PATH
from tests.helpers.alert_logs import GrowingLog
from tests.helpers.paths import ARTIFACTS
from tests.helpers.receivers import SmtpReceiver, WebhookReceiver, wait_until
from tests.helpers.server import serve

pytestmark = pytest.mark.browser

SECRET = "T0KENs3cret9"
WAIT_S = 30.0
"""Longest wait for a message: two refreshes are 4 s; the rest is room for two servers on a loaded machine."""


@dataclass
class Replicas:
    root: Path
    cache_dir: Path
    urls: list[str]
    server_logs: list[Path]
    webhook: WebhookReceiver
    smtp: SmtpReceiver
    logs: dict[str, GrowingLog] = field(default_factory=dict)


@pytest.fixture(scope="module")
def replicas(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Replicas]:
    folder = tmp_path_factory.mktemp("alert-replicas")
    root = folder / "logs"
    logs = {name: GrowingLog(root, f"team/{name}") for name in ("grpo_run", "dapo_run")}
    for log in logs.values():
        log.start(30)
    webhook = WebhookReceiver().start()
    smtp = SmtpReceiver().start()
    env = {
        "RLMON_LOG_ROOT": str(root),
        "RLMON_CACHE_DIR": str(folder / "cache"),
        "RLMON_REFRESH_S": "2",
        "RLMON_ALERT_TARGETS": f"json://127.0.0.1:{webhook.port}/hook/{SECRET} {smtp.url()}",
        "RLMON_PUBLIC_URL": "http://rlmon.test",
    }
    found = Replicas(root=root, cache_dir=folder / "cache", urls=[], server_logs=[], webhook=webhook, smtp=smtp,
                     logs=logs)  # fmt: skip
    with contextlib.ExitStack() as stack:
        for index in range(2):
            home = folder / f"replica-{index}"
            home.mkdir()
            found.urls.append(stack.enter_context(serve(home, env, f"server-alert-replica-{index}.log")))
            found.server_logs.append(home / "server.log")
        yield found
    webhook.close()
    smtp.stop()


def holder_pid(replicas: Replicas) -> int | None:
    """The pid in the lease file; None while there is none (a replica that breaks a dead holder's lease renames
    it away before it links its own)."""
    try:
        return int(json.loads((replicas.cache_dir / "alerts" / "sender.lock").read_text())["pid"])
    except (OSError, ValueError):
        return None


def said(path: Path, text: str) -> int:
    return path.read_text(errors="replace").count(text)


def test_each_event_is_sent_by_exactly_one_replica_and_the_other_takes_over(replicas: Replicas) -> None:
    webhook, smtp, logs = replicas.webhook, replicas.smtp, replicas.logs
    assert wait_until(lambda: all(said(path, "rlmon alerts: ") for path in replicas.server_logs), timeout_s=60)
    # one replica took the lease; the other says who sends
    assert wait_until(lambda: sum(said(path, "(lease taken)") for path in replicas.server_logs) == 1, timeout_s=30)
    assert wait_until(
        lambda: sum(said(path, "another process (pid") for path in replicas.server_logs) == 1, timeout_s=30
    )
    logs["grpo_run"].steps(2, grad_norm=5.0)
    logs["dapo_run"].steps(1, grad_norm=float("nan"))
    logs["grpo_run"].crash()
    expected = sorted(
        [
            "[rlmon] grpo_run · GRPO: spike (step 31)",
            "[rlmon] dapo_run · GRPO: NaN/inf in grad_norm at step 31",
            "[rlmon] grpo_run · GRPO crashed after step 32",
        ]
    )
    assert wait_until(lambda: len(webhook.posts) >= 3 and len(smtp.mails) >= 3, timeout_s=WAIT_S)
    wait_until(lambda: False, timeout_s=5)  # two more refreshes of both replicas: nothing may come twice
    assert sorted(webhook.titles()) == expected
    assert sorted(smtp.subjects()) == expected

    # the sender dies (killed: no goodbye); the other replica takes the lease and goes on from the same state
    sender = holder_pid(replicas)
    assert sender is not None
    os.kill(sender, signal.SIGKILL)
    os.waitpid(sender, 0)  # reaped at once, as systemd does: a zombie's pid would still answer
    assert wait_until(lambda: holder_pid(replicas) not in (None, sender), timeout_s=WAIT_S)
    logs["dapo_run"].crash()
    assert wait_until(lambda: len(webhook.posts) >= 4 and len(smtp.mails) >= 4, timeout_s=WAIT_S)
    wait_until(lambda: False, timeout_s=5)
    assert sorted(webhook.titles()) == sorted([*expected, "[rlmon] dapo_run · GRPO crashed after step 31"])
    assert len(smtp.mails) == 4
    for path in replicas.server_logs:
        assert SECRET not in path.read_text(errors="replace")


def live_url(replicas: Replicas) -> str:
    """A replica that still runs (the test above killed one)."""
    import urllib.request

    for url in replicas.urls:
        with contextlib.suppress(OSError), urllib.request.urlopen(f"{url}/_stcore/health", timeout=5):
            return url
    raise AssertionError("no replica answers")


@pytest.mark.parametrize(("width", "height"), [(1440, 900), (390, 844)])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_alerts_page_shows_what_was_sent(
    replicas: Replicas, browser: Any, width: int, height: int, lang: str
) -> None:
    assert wait_until(lambda: len(replicas.webhook.posts) >= 4, timeout_s=WAIT_S)
    page = browser.new_context(viewport={"width": width, "height": height}, locale="en-US").new_page()
    page.goto(f"{live_url(replicas)}/{ALERTS_PATH}?lang={lang}")
    page.locator('[data-testid="stDataFrame"]').nth(1).wait_for(timeout=60_000)
    heading = "Sent (8)" if lang == "en" else "已发送（8）"  # 4 events x 2 targets
    page.get_by_text(heading).wait_for(timeout=30_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    content = page.content()
    assert SECRET not in content
    sender = page.locator('[data-testid="stAlertContentInfo"]').first.inner_text()
    assert ("Sent by this server" if lang == "en" else "由本服务器发送") in sender
    # both tables fit the page's width: nothing drawn past the main column
    main = page.locator('[data-testid="stMain"]').bounding_box()
    for index in range(2):
        box = page.locator('[data-testid="stDataFrame"]').nth(index).bounding_box()
        assert box is not None and main is not None
        assert box["x"] >= main["x"] - 1 and box["x"] + box["width"] <= main["x"] + main["width"] + 1
        assert box["height"] > 60  # a header row and at least one row
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"alerts-{width}x{height}-{lang}.png"))
    page.context.close()


def test_a_replica_whose_only_target_is_bad_takes_no_lease_and_its_alerts_page_says_why(
    tmp_path: Path, browser: Any
) -> None:
    """A replica (real ``streamlit run``) whose one alert target apprise refuses: it says so at start, stays out of
    the lease (a process with a working target may send), and its Alerts page lists both, in English and 中文."""
    root, cache = tmp_path / "logs", tmp_path / "cache"
    GrowingLog(root, "team/grpo_run").start(10)
    env = {
        "RLMON_LOG_ROOT": str(root),
        "RLMON_CACHE_DIR": str(cache),
        "RLMON_REFRESH_S": "2",
        "RLMON_ALERT_TARGETS": f"nosuch://alerts.example.com/{SECRET}",
    }
    bad = "alert target 1 of RLMON_ALERT_TARGETS (nosuch://alerts.example.com) is not a URL apprise can send to"
    with serve(tmp_path, env, "server-alert-bad-target.log") as url:
        server_log = tmp_path / "server.log"
        assert wait_until(lambda: said(server_log, "has no working alert target") == 1, timeout_s=60)
        assert said(server_log, bad) == 1
        wait_until(lambda: False, timeout_s=5)  # more refreshes: still no lease, and nothing said again
        assert not (cache / "alerts" / "sender.lock").exists()
        assert said(server_log, "has no working alert target") == 1
        for lang, heading, sender in (
            ("en", "Failing", "No process sends alerts for this cache folder now"),
            ("zh", "失败", "当前没有进程为此缓存目录发送告警"),
        ):
            page = browser.new_context(viewport={"width": 1440, "height": 900}, locale="en-US").new_page()
            page.goto(f"{url}/{ALERTS_PATH}?lang={lang}")
            errors = page.locator('[data-testid="stAlertContentError"]')
            errors.nth(1).wait_for(timeout=60_000)
            texts = [errors.nth(index).inner_text().replace("\u2060", "") for index in range(errors.count())]
            assert len(texts) == 2, texts
            assert any(bad in text for text in texts), texts
            assert any("has no working alert target, so it sends nothing" in text for text in texts), texts
            assert sender in page.locator('[data-testid="stAlertContentInfo"]').first.inner_text()
            assert page.get_by_text(heading, exact=True).count() >= 1
            assert SECRET not in page.content()
            # not among the targets, as if it waited for a first message: it is among what fails
            assert "no message yet" not in page.inner_text("body") and "尚无消息" not in page.inner_text("body")
            for width, height in ((1440, 900), (390, 844)):
                page.set_viewport_size({"width": width, "height": height})
                page.wait_for_timeout(500)
                main = page.locator('[data-testid="stMain"]').bounding_box()
                box = errors.first.bounding_box()
                assert main is not None and box is not None
                assert box["x"] >= main["x"] - 1 and box["x"] + box["width"] <= main["x"] + main["width"] + 1
                ARTIFACTS.mkdir(exist_ok=True)
                page.screenshot(path=str(ARTIFACTS / f"alerts-bad-target-{width}x{height}-{lang}.png"))
            page.context.close()
    assert SECRET not in server_log.read_text(errors="replace")
