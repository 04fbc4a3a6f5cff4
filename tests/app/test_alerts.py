"""The Alerts page through the app's navigation: what a watcher on the same cache folder sent (to a real webhook
receiver on loopback), what fails, this server's targets - shown by scheme and host, their secrets nowhere."""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from rlmon.alerts import Watcher, check_targets
from rlmon.alerts.events import AlertEvent
from rlmon.alerts.wording import experiment_link
from rlmon.app.navigation import ALERTS_PATH
from rlmon.logs.cache import LogCache
from rlmon.settings import load_settings
from tests.helpers.alert_logs import GrowingLog
from tests.helpers.apptest import charts, open_page, run_app, texts, unescape
from tests.helpers.receivers import WebhookReceiver


def table(at: AppTest, column: str) -> Any:
    """The page's table that has ``column`` (a pandas frame, as AppTest gives it)."""
    return next(item for item in at.dataframe if column in item.value.columns).value


SECRET = "T0KENs3cret9"


@pytest.fixture
def alerts_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A root whose run crashed after a watcher's first start: one message delivered to a webhook, one kept for a
    webhook that is down."""
    root, cache = tmp_path / "logs", tmp_path / "cache"
    log = GrowingLog(root, "team/grpo_run")
    log.start(20)
    up = WebhookReceiver().start()
    down = WebhookReceiver()
    urls = [f"{up.url}/{SECRET}", f"json://127.0.0.1:{down.port}/hook/{SECRET}"]
    targets, _ = check_targets(urls, "RLMON_ALERT_TARGETS")
    watcher = Watcher([root], settings=load_settings([], {}), cache=LogCache(cache), targets=targets)
    watcher.cycle()
    log.crash()
    watcher.cycle()
    watcher.close()
    up.close()
    down.close()
    monkeypatch.setenv("RLMON_LOG_ROOT", str(root))
    monkeypatch.setenv("RLMON_CACHE_DIR", str(cache))
    monkeypatch.setenv("RLMON_ALERT_TARGETS", " ".join(urls))
    yield root


def test_the_alerts_page_shows_what_was_sent_and_what_fails(alerts_env: Path) -> None:
    at = open_page(run_app(), ALERTS_PATH)
    assert not at.exception
    shown = unescape(texts(at)).replace("\u2060", "")  # the word joiners that keep text from the autolinker
    assert "No process sends alerts for this cache folder now" in shown  # the watcher above has stopped
    assert "json://127.0.0.1: failing since" in shown
    assert "A Connection error occurred sending JSON notification to 127.0.0.1" in shown
    targets = table(at, "waiting")
    assert list(targets["target"]) == ["json://127.0.0.1", "json://127.0.0.1"]
    assert sorted(targets["state"]) == ["delivering", "failing"]
    assert sorted(targets["waiting"]) == [0, 1]
    assert sorted(targets["origin"]) == ["RLMON_ALERT_TARGETS #1", "RLMON_ALERT_TARGETS #2"]
    sent = table(at, "what")
    assert list(sent["what"]) == ["grpo_run · GRPO crashed after step 20"]
    assert list(sent["severity"]) == ["critical"]
    assert "Sent (1)" in shown
    everything = shown + targets.to_string() + sent.to_string()
    assert SECRET not in everything


def test_the_alerts_page_in_chinese(alerts_env: Path) -> None:
    at = open_page(run_app(), ALERTS_PATH, {"lang": "zh"})
    assert not at.exception
    shown = unescape(texts(at))
    assert "当前没有进程为此缓存目录发送告警" in shown
    assert "已发送（1）" in shown
    assert sorted(table(at, "waiting")["state"]) == ["失败", "正常"]
    assert SECRET not in shown


def test_an_alerts_link_opens_the_experiment_page_at_the_events_chart_and_step(alerts_env: Path) -> None:
    event = AlertEvent(
        key="k", kind="spike", severity="warning", experiment="team/grpo_run", relative="team/grpo_run",
        label="grpo_run · GRPO", track="Qwen3-4B", step=10, metric="actor/grad_norm", detail={},
    )  # fmt: skip
    link = urllib.parse.urlsplit(experiment_link("http://rlmon.test", event) or "")
    query = dict(urllib.parse.parse_qsl(link.query))
    assert query == {"id": "team/grpo_run", "focus": "actor/grad_norm", "at": "10"}
    at = open_page(run_app(), link.path.strip("/"), query)
    assert not at.exception
    spec, data = charts(at)[0]
    assert spec["title"] == "grad_norm (from the signal)"
    # the step the link names is marked on it
    assert any("the signal's step 10" in frame.to_pandas().to_string() for frame in data.values())
