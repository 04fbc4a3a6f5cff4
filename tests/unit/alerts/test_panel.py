"""The Alerts page's content, from a state and a lease written as the watcher writes them."""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path

import polars as pl

from rlmon.alerts.lease import lease_path
from rlmon.alerts.panel import AlertsPanel, SentRow, TargetRow, alerts_panel, sent_table, targets_table
from rlmon.alerts.state import AlertState, Outgoing, SentRecord, TargetHealth, write_state


def _state(now: float) -> AlertState:
    state = AlertState()
    state.targets["aaaa"] = TargetHealth(shown="json://127.0.0.1", origin="RLMON_ALERT_TARGETS", last_sent_at=now - 60)
    state.targets["bbbb"] = TargetHealth(
        shown="mailto://smtp.example.com", origin="--notify", last_sent_at=now - 600, failing_since=now - 300,
        last_error="A Connection error occurred sending Email notification to smtp.example.com.", failures=3,
        next_try_at=now + 120,
    )  # fmt: skip
    state.outbox.append(
        Outgoing(id="1", target="bbbb", shown="mailto://smtp.example.com", root="/data/logs", title="[rlmon] x",
                 body="b", severity="critical", kinds=["crashed"], experiments=["4B/e1"], queued_at=now - 300)
    )  # fmt: skip
    for index, (title, severity) in enumerate(
        [("[rlmon] E1 · GRPO crashed after step 57", "critical"), ("[rlmon] E2 · DAPO stalled at step 12", "warning")]
    ):
        state.record_sent(
            SentRecord(at=now - 120 + 60 * index, target="json://127.0.0.1", title=title, severity=severity,
                       kinds=["crashed"], experiments=["4B/e1"], root="/data/logs", queued_at=now - 121)
        )  # fmt: skip
    state.problems = ["alert target 2 of rlmon.toml:3 (nosuch://…) is not a URL apprise can send to"]
    return state


def _noon() -> float:
    """Noon today, server time: every moment of these tests (within minutes of it) is today."""
    today = time.localtime()
    return time.mktime((today.tm_year, today.tm_mon, today.tm_mday, 12, 0, 0, 0, 0, -1))


def _clock(seconds: float, clock: str = "%H:%M") -> str:
    return time.strftime(clock, time.localtime(seconds))


def test_the_panel_lists_targets_what_fails_and_what_was_sent_newest_first(tmp_path: Path) -> None:
    now = _noon()
    write_state(tmp_path, _state(now), now=now)
    panel = alerts_panel(tmp_path, configured=[("json://127.0.0.1", "RLMON_ALERT_TARGETS")], lang="en", now=now)
    assert panel.targets == (
        TargetRow("json://127.0.0.1", "RLMON_ALERT_TARGETS", "delivering", _clock(now - 60), 0),
        TargetRow("mailto://smtp.example.com", "--notify", "failing", _clock(now - 600), 1),
    )
    assert panel.failing == (
        f"mailto://smtp.example.com: failing since {_clock(now - 300)} (3 tries in a row): A Connection error "
        f"occurred sending Email notification to smtp.example.com. 1 message(s) kept; next try at {_clock(now + 120)}.",
        "alert target 2 of rlmon.toml:3 (nosuch://…) is not a URL apprise can send to",
    )
    assert panel.sent == (
        SentRow(
            _clock(now - 60, "%H:%M:%S"), "json://127.0.0.1", "warning", "E2 · DAPO stalled at step 12", "/data/logs"
        ),
        SentRow(
            _clock(now - 120, "%H:%M:%S"),
            "json://127.0.0.1",
            "critical",
            "E1 · GRPO crashed after step 57",
            "/data/logs",
        ),
    )
    assert panel.sent_count == 2


def test_who_sends(tmp_path: Path) -> None:
    now = _noon()
    assert alerts_panel(tmp_path, lang="en", now=now).sender.startswith("No process sends alerts")
    write_state(tmp_path, AlertState(), now=now)
    lease = lease_path(tmp_path)
    lease.write_text(json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "time": now, "token": "t"}))
    assert alerts_panel(tmp_path, lang="en", now=now).sender == (
        f"Sent by this server (pid {os.getpid()} on {socket.gethostname()}); last refresh {_clock(now)}."
    )
    lease.write_text(json.dumps({"pid": 4242, "host": "node-3", "time": now, "token": "t"}))
    assert alerts_panel(tmp_path, lang="zh", now=now).sender == (
        f"由共用此缓存目录的另一个进程发送（node-3 上的进程 4242）；最近一次刷新 {_clock(now)}。"
    )


def test_a_configured_target_is_listed_before_its_first_message(tmp_path: Path) -> None:
    panel = alerts_panel(tmp_path, configured=[("feishu://…", "RLMON_ALERT_TARGETS")], lang="zh", now=time.time())
    assert panel.configured
    assert panel.targets == (TargetRow("feishu://…", "RLMON_ALERT_TARGETS", "尚无消息", "–", 0),)
    assert panel.sent == () and panel.failing == ()


def test_the_tables_hold_the_panels_rows_and_a_root_column_only_for_more_than_one_root(tmp_path: Path) -> None:
    now = _noon()
    write_state(tmp_path, _state(now), now=now)
    panel = alerts_panel(tmp_path, lang="en", now=now)
    targets = targets_table(panel)
    assert targets.columns == ["target", "state", "last", "waiting", "origin"]
    assert targets.rows() == [
        ("json://127.0.0.1", "delivering", _clock(now - 60), 0, "RLMON_ALERT_TARGETS"),
        ("mailto://smtp.example.com", "failing", _clock(now - 600), 1, "--notify"),
    ]
    sent = sent_table(panel)
    assert sent.columns == ["at", "what", "severity", "target"]  # both messages came from /data/logs
    assert sent.rows() == [
        (_clock(now - 60, "%H:%M:%S"), "E2 · DAPO stalled at step 12", "warning", "json://127.0.0.1"),
        (_clock(now - 120, "%H:%M:%S"), "E1 · GRPO crashed after step 57", "critical", "json://127.0.0.1"),
    ]
    two_roots = AlertsPanel(
        sender="", configured=False, targets=(), failing=(), sent_count=2,
        sent=(SentRow("12:01:00", "json://a", "", "E1 stalled", "/data/a"),
              SentRow("12:00:00", "json://a", "", "E2 stalled", "s3://runs/b")),
    )  # fmt: skip
    assert sent_table(two_roots)["root"].to_list() == ["/data/a", "s3://runs/b"]
    empty = AlertsPanel(sender="", configured=False, targets=(), failing=(), sent=(), sent_count=0)
    assert targets_table(empty).height == 0 and targets_table(empty).schema["waiting"] == pl.Int64
    assert sent_table(empty).columns == ["at", "what", "severity", "target"]
