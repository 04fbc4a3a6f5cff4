"""``rlmon watch`` end to end: a real process watching a log a test grows as a trainer would, sending through apprise
to real receivers on loopback (a JSON webhook server and aiosmtpd's SMTP server).

A spike, a NaN, a stall (and its resume) and a crash arrive once each at both receivers, with their fields; a
restart sends nothing twice; a receiver that is down gets its message once it is back (and the other target is not
held up meanwhile); target secrets appear nowhere. Stall thresholds and refreshes are seconds here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from rlmon.cli import main
from tests.helpers.alert_logs import CRASH_EXCEPTION, CRASH_FRAME, GrowingLog
from tests.helpers.logs import env_file
from tests.helpers.paths import REPO_ROOT
from tests.helpers.receivers import SmtpReceiver, WebhookReceiver, wait_until
from tests.helpers.watch_process import WatchProcess

SECRET = "T0KENs3cret9"
"""A secret in the webhook's URL path, as chat webhooks carry theirs."""
WAIT_S = 20.0
"""Longest wait for a message: two refreshes are 4 s; the rest is room for a loaded machine."""


@pytest.fixture
def receivers() -> Iterator[tuple[WebhookReceiver, SmtpReceiver]]:
    webhook = WebhookReceiver().start()
    smtp = SmtpReceiver().start()
    yield webhook, smtp
    webhook.close()
    smtp.stop()


def _env(cache: Path) -> dict[str, str]:
    return {
        "RLMON_CACHE_DIR": str(cache),
        "RLMON_STALL_MIN_S": "4",
        "RLMON_STALL_FACTOR": "1",
        "RLMON_PUBLIC_URL": "http://rlmon.test:8501",
        "RLMON_ALERT_DIGEST_COUNT": "20",
    }


def test_watch_sends_each_event_once_to_both_receivers_and_survives_a_restart_and_a_receiver_down(
    tmp_path: Path, receivers: tuple[WebhookReceiver, SmtpReceiver]
) -> None:
    webhook, smtp = receivers
    root, cache = tmp_path / "logs", tmp_path / "cache"
    log = GrowingLog(root, "team/grpo_run")
    log.start(30)  # history: there before the first start, never sent
    hook_url = f"json://127.0.0.1:{webhook.port}/hook/{SECRET}"
    args = [str(root), "--notify", hook_url, "--notify", smtp.url(), "--refresh-s", "2"]
    watch = WatchProcess(args, _env(cache), tmp_path, "first")
    try:
        with log.alive():
            assert watch.wait_for("first start on", timeout_s=60), watch.err()
            assert "0 event(s) already in its logs are not sent" in watch.err()

            log.steps(2, grad_norm=5.0)  # a spike at step 31: 25x the steps before
            assert wait_until(lambda: len(webhook.posts) >= 1 and len(smtp.mails) >= 1, timeout_s=WAIT_S), watch.err()
            spike = webhook.messages()[0]
            assert spike["title"] == "[rlmon] grpo_run · GRPO: spike (step 31)"
            assert spike["type"] == "warning"
            # the summary's own words: steps 11-30 hold 0.20 x7, 0.21 x6, 0.22 x7, median 0.21, and 5 / 0.21 = 23.81;
            # the other steps span 0.2-0.22, a band the summary rounds outward to 0.2-0.3
            assert spike["message"].startswith(
                "grad_norm spike at step 31: 5 (23.81× the median of the 20 steps before; otherwise 0.2–0.3)\n"
            )
            assert "Experiment: team/grpo_run · grpo_run · GRPO" in spike["message"]
            assert "Track: Qwen3-4B" in spike["message"]
            assert "\nStep: 31\n" in spike["message"]
            assert (
                "Open: http://rlmon.test:8501/exp?id=team%2Fgrpo_run&focus=actor%2Fgrad_norm&at=31" in spike["message"]
            )
            assert smtp.mails[0].subject == spike["title"]
            assert smtp.mails[0].recipients == ("team@example.com",)

            log.steps(1, grad_norm=float("nan"))  # step 33
            assert wait_until(lambda: len(webhook.posts) >= 2 and len(smtp.mails) >= 2, timeout_s=WAIT_S)
            nan = webhook.messages()[1]
            assert nan["title"] == "[rlmon] grpo_run · GRPO: NaN/inf in grad_norm at step 33"
            assert nan["type"] == "failure"
            assert "grad_norm is not finite (NaN/inf) at 1 step(s), first at step 33" in nan["message"]

        # quiet: past the 4 s threshold the run is stalled at step 33
        assert wait_until(lambda: len(webhook.posts) >= 3 and len(smtp.mails) >= 3, timeout_s=WAIT_S), watch.err()
        stalled = webhook.messages()[2]
        assert stalled["title"] == "[rlmon] grpo_run · GRPO stalled at step 33"
        assert "stalled at 33/200: the log has not grown for" in stalled["message"]

        with log.alive():
            log.steps(1)  # step 34: it resumes
            assert wait_until(lambda: len(webhook.posts) >= 4 and len(smtp.mails) >= 4, timeout_s=WAIT_S)
            assert webhook.messages()[3]["title"] == "[rlmon] grpo_run · GRPO is logging again (step 34)"
            log.crash()
            assert wait_until(lambda: len(webhook.posts) >= 5 and len(smtp.mails) >= 5, timeout_s=WAIT_S)
        crash = webhook.messages()[4]
        assert crash["title"] == "[rlmon] grpo_run · GRPO crashed after step 34"
        assert crash["type"] == "failure"
        assert f"Exception: {CRASH_EXCEPTION}" in crash["message"]
        assert f"Last frame: {CRASH_FRAME}" in crash["message"]
        assert "Open: http://rlmon.test:8501/exp?id=team%2Fgrpo_run&at=34" in crash["message"]
        crash_mail = smtp.mails[4]
        assert crash_mail.subject == crash["title"]
        assert f"Exception: {CRASH_EXCEPTION}" in crash_mail.body
    finally:
        assert watch.stop() == 0  # SIGTERM: a clean stop
    expected = [
        "[rlmon] grpo_run · GRPO: spike (step 31)",
        "[rlmon] grpo_run · GRPO: NaN/inf in grad_norm at step 33",
        "[rlmon] grpo_run · GRPO stalled at step 33",
        "[rlmon] grpo_run · GRPO is logging again (step 34)",
        "[rlmon] grpo_run · GRPO crashed after step 34",
    ]
    assert webhook.titles() == expected
    assert smtp.subjects() == expected

    # a restart: the state in the cache folder says all five were sent
    again = WatchProcess(args, _env(cache), tmp_path, "second")
    try:
        assert again.wait_for("lease taken", timeout_s=60), again.err()
        webhook.stop()  # down for a while
        second = GrowingLog(root, "team/dapo_run")  # a new run starts after the watcher's first start ...
        second.start(12)
        second.crash()  # ... and crashes while the webhook is down
        assert again.wait_for(r"json://127.0.0.1 \(--notify #1\) failing: ", timeout_s=WAIT_S), again.err()
        # the mail target is not held up by the failing webhook
        assert wait_until(lambda: len(smtp.mails) == 6, timeout_s=WAIT_S)
        assert smtp.mails[5].subject == "[rlmon] dapo_run · GRPO crashed after step 12"
        webhook.start()  # back, on the same port: the kept message goes out at the next try
        assert wait_until(lambda: len(webhook.posts) == 6, timeout_s=WAIT_S + 10), again.err()
        assert again.wait_for(r"json://127.0.0.1 \(--notify #1\) takes messages again", timeout_s=WAIT_S)
        wait_until(lambda: False, timeout_s=5)  # two more refreshes: nothing else may come
    finally:
        assert again.stop() == 0
    assert webhook.titles() == [*expected, "[rlmon] dapo_run · GRPO crashed after step 12"]
    assert len(smtp.mails) == 6

    # the secret is in no output, log or state file
    outputs = [watch.err(), watch.out(), again.err(), again.out()]
    outputs += [path.read_text(errors="replace") for path in (cache / "alerts").iterdir() if path.is_file()]
    assert not [text for text in outputs if SECRET in text]
    assert "json://127.0.0.1" in again.err()
    state = json.loads((cache / "alerts" / "state.json").read_text())
    assert [record["target"] for record in state["sent"]].count("json://127.0.0.1") == 6
    assert state["outbox"] == []


def test_a_restart_after_everything_was_sent_sends_nothing(
    tmp_path: Path, receivers: tuple[WebhookReceiver, SmtpReceiver]
) -> None:
    webhook, _ = receivers
    root, cache = tmp_path / "logs", tmp_path / "cache"
    log = GrowingLog(root, "team/grpo_run")
    log.start(30)
    args = [str(root), "--notify", webhook.url, "--refresh-s", "2", "--once"]
    first = WatchProcess(args, _env(cache), tmp_path, "first")
    assert first.process.wait(timeout=60) == 0
    log.crash()
    second = WatchProcess(args, _env(cache), tmp_path, "second")
    assert second.process.wait(timeout=60) == 0, second.err()
    assert webhook.titles() == ["[rlmon] grpo_run · GRPO crashed after step 30"]
    for name in ("third", "fourth"):  # restarted twice more: the crash is not sent again
        assert WatchProcess(args, _env(cache), tmp_path, name).process.wait(timeout=60) == 0
    assert webhook.titles() == ["[rlmon] grpo_run · GRPO crashed after step 30"]


def test_a_bad_target_is_one_clear_line_at_start_without_its_secret(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "logs"
    GrowingLog(root, "team/grpo_run").start(3)
    code = main(
        ["watch", str(root), "--notify", f"nosuchservice://{SECRET}@alerts.example.com/x", "--cache-dir", str(tmp_path)]
    )
    captured = capsys.readouterr()
    assert code == 2
    assert captured.err.count("\n") == 1
    assert captured.err.startswith(
        "rlmon: alert target 1 of --notify (nosuchservice://alerts.example.com) is not a URL"
    )
    assert "unknown scheme 'nosuchservice'" in captured.err
    assert SECRET not in captured.err


def test_without_any_target_watch_says_how_to_give_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "logs"
    GrowingLog(root, "team/grpo_run").start(3)
    assert main(["watch", str(root), "--cache-dir", str(tmp_path / "cache")]) == 2
    assert re.match(r"rlmon: no alert target: give --notify URL, set RLMON_ALERT_TARGETS", capsys.readouterr().err)


def test_dry_run_prints_what_would_be_sent_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, cache = tmp_path / "logs", tmp_path / "cache"
    log = GrowingLog(root, "team/grpo_run")
    log.start(30)
    log.crash()
    args = ["watch", str(root), "--dry-run", "--once", "--cache-dir", str(cache)]
    assert main(args) == 0
    out = capsys.readouterr().out
    # a first start sends nothing older than itself: the dry run lists what it leaves out
    assert "not sent (already in the logs at the first start): [critical] grpo_run · GRPO crashed after step 30" in out
    assert not (cache / "alerts" / "state.json").exists()
    assert not (cache / "alerts" / "sender.lock").exists()


def test_the_systemd_unit_runs_rlmon_watch_on_the_replicas_settings_and_stops_cleanly(
    tmp_path: Path, receivers: tuple[WebhookReceiver, SmtpReceiver]
) -> None:
    webhook, _ = receivers
    unit = (REPO_ROOT / "deploy" / "rlmon-watch.service").read_text().splitlines()
    assert "ExecStart=/opt/rlmon/.venv/bin/rlmon watch" in unit
    assert "EnvironmentFile=/etc/rlmon/rlmon.env" in unit  # the replicas' file (deploy/rlmon@.service)
    assert "KillSignal=SIGTERM" in unit
    # a watcher that cannot start (exit code 2: a bad URL) is not restarted every RestartSec to say it again
    assert "Restart=on-failure" in unit and "RestartPreventExitStatus=2" in unit
    # as the unit starts it: no argument, the settings from deploy/rlmon.env (with this test's root, cache, target)
    root, cache = tmp_path / "logs", tmp_path / "cache"
    GrowingLog(root, "team/grpo_run").start(5)
    env = env_file(REPO_ROOT / "deploy" / "rlmon.env") | {
        "RLMON_LOG_ROOT": str(root),
        "RLMON_CACHE_DIR": str(cache),
        "RLMON_REFRESH_S": "2",
        "RLMON_ALERT_TARGETS": webhook.url,
    }
    service = WatchProcess([], env, tmp_path, "service")
    assert service.wait_for("lease taken", timeout_s=60), service.err()
    assert (cache / "alerts" / "sender.lock").exists()
    assert service.stop() == 0  # SIGTERM, as systemctl stop sends
    assert not (cache / "alerts" / "sender.lock").exists()  # let go: another process may send at once
    # as the unit starts it with a bad URL: exit code 2, the one RestartPreventExitStatus names
    bad = WatchProcess([], env | {"RLMON_ALERT_TARGETS": "nosuch://alerts.example.com/T0KEN"}, tmp_path, "bad")
    assert bad.process.wait(timeout=60) == 2
    bad.stop()
    assert "alert target 1 of RLMON_ALERT_TARGETS (nosuch://alerts.example.com) is not a URL" in bad.err()


def test_a_missing_root_cannot_be_watched_but_an_empty_one_can(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nowhere"
    assert main(["watch", str(missing), "--dry-run", "--once", "--cache-dir", str(tmp_path / "cache")]) == 2
    assert capsys.readouterr().err == f"rlmon: {missing}: log root does not exist or is not a folder\n"
    empty = tmp_path / "logs"
    empty.mkdir()
    assert main(["watch", str(empty), "--dry-run", "--once", "--cache-dir", str(tmp_path / "cache")]) == 0
