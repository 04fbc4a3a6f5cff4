"""The watcher, refresh by refresh (``Watcher.cycle``), against a real webhook receiver on loopback: history, the
digest, a root's rlmon.toml, retries with backoff, one sender per cache folder, ``s3://`` roots."""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest

from rlmon.alerts import Watcher, check_targets
from rlmon.alerts.lease import lease_path
from rlmon.alerts.panel import alerts_panel
from rlmon.alerts.peers import note_path
from rlmon.alerts.state import read_state, state_path
from rlmon.logs.cache import LogCache
from rlmon.roots import parse_object_url
from rlmon.settings import Settings, load_settings
from tests.helpers.alert_logs import GrowingLog
from tests.helpers.logs import Clock
from tests.helpers.objstore_server import S3Server, aws_environment
from tests.helpers.paths import REPO_ROOT
from tests.helpers.receivers import WebhookReceiver, free_port, wait_until
from tests.helpers.watch_process import WatchProcess


@pytest.fixture
def webhook() -> Iterator[WebhookReceiver]:
    receiver = WebhookReceiver().start()
    yield receiver
    receiver.close()


def settings(**env: str) -> Settings:
    return load_settings([], {"RLMON_REFRESH_S": "2", **{f"RLMON_{key.upper()}": value for key, value in env.items()}})


def watcher(root: Path, cache: Path, urls: list[str], *, clock: Clock | None = None, **env: str) -> Watcher:
    targets, problems = check_targets(urls, "test")
    assert problems == []
    return Watcher(
        [root], settings=settings(**env), cache=LogCache(cache), targets=targets, **({"clock": clock} if clock else {})
    )


def test_the_first_start_sends_nothing_older_and_says_so(
    tmp_path: Path, webhook: WebhookReceiver, caplog: pytest.LogCaptureFixture
) -> None:
    root = tmp_path / "logs"
    for name in ("a", "b"):
        log = GrowingLog(root, name)
        log.start(30)
        log.crash()
    caplog.set_level(logging.INFO, logger="rlmon.alerts")
    first = watcher(root, tmp_path / "cache", [webhook.url])
    first.cycle()
    assert webhook.posts == []
    assert f"first start on {root}: 2 event(s) already in its logs are not sent" in caplog.text
    # a run copied in with its old file times is history too; a run that starts now is not
    copied = GrowingLog(root, "copied")
    copied.start(5)
    copied.crash()
    old = time.time() - 3600
    os.utime(copied.path, (old, old))
    fresh = GrowingLog(root, "fresh")
    fresh.start(5)
    fresh.crash()
    report = first.cycle()
    assert (report.events, report.delivered) == (1, 1)
    assert webhook.titles() == ["[rlmon] fresh · GRPO crashed after step 5"]


def test_more_than_n_events_about_a_root_become_one_digest(tmp_path: Path, webhook: WebhookReceiver) -> None:
    root = tmp_path / "logs"
    names = [f"run_{letter}" for letter in "abcdefg"]
    logs = [GrowingLog(root, name) for name in names]
    for log in logs:
        log.start(20)
    watch = watcher(root, tmp_path / "cache", [webhook.url], alert_digest_count="3")
    watch.cycle()
    logs[0].crash()
    logs[1].crash()
    watch.cycle()  # two: each its own message
    for log in logs[2:]:
        log.crash()
    watch.cycle()  # five more within the window: 2 + 5 > 3, one digest
    titles = webhook.titles()
    assert titles[:2] == ["[rlmon] run_a · GRPO crashed after step 20", "[rlmon] run_b · GRPO crashed after step 20"]
    assert titles[2:] == [f"[rlmon] 5 alerts about {root}"]
    digest = webhook.messages()[2]["message"].splitlines()
    assert digest[0] == "More than 3 alerts about this log root within 5m, sent together:"
    assert sorted(digest[2:]) == [f"- [critical] {name} · GRPO crashed after step 20" for name in names[2:]]


def test_a_roots_rlmon_toml_adds_targets_and_keeps_to_its_kinds(tmp_path: Path) -> None:
    root = tmp_path / "logs"
    team = WebhookReceiver().start()
    other = WebhookReceiver().start()
    try:
        log = GrowingLog(root, "4B/grpo_run")
        log.start(30)
        GrowingLog(root, "8B/grpo_run").start(30)
        (root / "rlmon.toml").write_text(
            "[alerts]\n"
            f'targets = ["{team.url}", "nosuch://alerts.example.com/T0KEN"]\n'
            'kinds = ["crashed"]\n'
            'experiments = ["4B/*"]\n'
        )
        watch = watcher(root, tmp_path / "cache", [other.url])
        watch.cycle()
        log.steps(2, grad_norm=5.0)  # a spike: not among the root's kinds
        watch.cycle()
        log.crash()
        eight = GrowingLog(root, "8B/grpo_run")
        eight.crash()  # not among the root's experiments
        watch.cycle()
        assert team.titles() == other.titles() == ["[rlmon] grpo_run · GRPO crashed after step 32"]
        state = read_state(tmp_path / "cache")
        assert state.problems == [
            f"alert target 2 of {root / 'rlmon.toml'}:2 (nosuch://alerts.example.com) is not a URL apprise can send "
            "to: unknown scheme 'nosuch' (docs/alerts.md lists the forms)"
        ]
        assert "T0KEN" not in state_path(tmp_path / "cache").read_text()
    finally:
        team.close()
        other.close()


def test_a_receiver_that_is_down_refuses_and_keeps_its_port_from_other_servers() -> None:
    # the retry tests below need "down" to mean refused: with pytest-xdist another test's server could take a port
    # left free, answer, and the failing target would deliver (CI at 9cac760: delivered=1, failed=0)
    receiver = WebhookReceiver()
    try:
        for _ in range(2):  # made, then stopped after it served
            with socket.socket() as other, pytest.raises(OSError):
                other.bind(("127.0.0.1", receiver.port))
            with pytest.raises(ConnectionRefusedError):
                socket.create_connection(("127.0.0.1", receiver.port), timeout=5).close()
            receiver.start()
            socket.create_connection(("127.0.0.1", receiver.port), timeout=5).close()
            receiver.stop()
        held = receiver._held
    finally:
        receiver.close()
    # closed: the socket holding the port is let go (a plain bind of the port is no check here: the connection the
    # server accepted may wait out TCP's TIME_WAIT on it, as it did once in CI)
    assert held is not None and held.fileno() == -1 and receiver._held is None


def test_a_failing_target_is_retried_with_a_doubling_wait_and_keeps_its_messages(tmp_path: Path) -> None:
    root = tmp_path / "logs"
    down = WebhookReceiver()  # not started: connection refused
    log = GrowingLog(root, "grpo_run")
    log.start(20)
    clock = Clock()
    watch = watcher(root, tmp_path / "cache", [down.url], clock=clock, alert_retry_max_s="5")
    watch.cycle()
    log.crash()
    waits = []
    for _ in range(4):
        report = watch.cycle()
        health = next(iter(watch.state.targets.values()))
        waits.append(health.next_try_at - clock.now)
        assert report.failed == 1 and len(watch.state.outbox) == 1
        assert watch.cycle().failed == 0  # before the wait is over: not tried
        clock.now = health.next_try_at
    # 2 s (the refresh), then doubling, up to alert_retry_max_s = 5
    assert waits == [2, 4, 5, 5]
    assert (
        health.failures == 4
        and health.last_error == "A Connection error occurred sending JSON notification to 127.0.0.1."
    )
    down.start()
    try:
        report = watch.cycle()
        assert (report.delivered, watch.state.outbox) == (1, [])
        assert down.titles() == ["[rlmon] grpo_run · GRPO crashed after step 20"]
        assert health.failing_since is None and health.failures == 0
    finally:
        down.close()


def test_a_refusing_target_is_retried_too(tmp_path: Path, webhook: WebhookReceiver) -> None:
    root = tmp_path / "logs"
    log = GrowingLog(root, "grpo_run")
    log.start(20)
    clock = Clock()
    watch = watcher(root, tmp_path / "cache", [webhook.url], clock=clock)
    watch.cycle()
    webhook.status = 500
    log.crash()
    assert watch.cycle().failed == 1
    state = read_state(tmp_path / "cache")
    assert state.targets[watch.targets[0].id].last_error is not None
    assert "500" in state.targets[watch.targets[0].id].last_error
    webhook.status = 200
    clock.now += 2
    assert watch.cycle().delivered == 1
    assert webhook.titles() == ["[rlmon] grpo_run · GRPO crashed after step 20"]


def test_one_sender_per_cache_folder_and_a_take_over_when_it_dies(tmp_path: Path, webhook: WebhookReceiver) -> None:
    root, cache = tmp_path / "logs", tmp_path / "cache"
    log = GrowingLog(root, "grpo_run")
    log.start(20)
    # another process holds the lease: an `rlmon watch` of its own
    env = {key: value for key, value in os.environ.items() if not key.startswith("RLMON_")}
    other = subprocess.Popen(
        [sys.executable, "-m", "rlmon", "watch", str(root), "--notify", webhook.url, "--refresh-s", "2",
         "--cache-dir", str(cache)],
        cwd=REPO_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        assert wait_until(lambda: state_path(cache).exists(), timeout_s=60)
        here = watcher(root, cache, [webhook.url])
        assert here.cycle().sending is False
        log.crash()
        assert wait_until(lambda: len(webhook.posts) == 1, timeout_s=20)
        assert here.cycle().sending is False  # the other process sent it; this one does nothing
        holder = json.loads(lease_path(cache).read_text())
        assert holder["pid"] == other.pid
    finally:
        other.kill()
        other.wait(timeout=30)
    # killed (no release): its pid is gone, so the lease is taken over at once, with the state it left
    report = here.cycle()
    assert report.sending is True and report.events == 0
    assert json.loads(lease_path(cache).read_text())["pid"] == os.getpid()
    assert webhook.titles() == ["[rlmon] grpo_run · GRPO crashed after step 20"]
    second = GrowingLog(root, "dapo_run")
    second.start(4)
    second.crash()
    assert here.cycle().delivered == 1
    here.close()
    assert not lease_path(cache).exists()


def test_an_s3_root_is_watched_through_its_mirror(
    tmp_path: Path, webhook: WebhookReceiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = S3Server()
    server.start()
    try:
        for name, value in aws_environment(server, tmp_path).items():
            monkeypatch.setenv(name, value)
        client = boto3.client("s3", endpoint_url=server.endpoint, region_name="us-east-1")
        client.create_bucket(Bucket="alert-runs")
        local = GrowingLog(tmp_path / "staging", "grpo_run")
        local.start(20)
        client.put_object(Bucket="alert-runs", Key="verl/grpo_run/train.log", Body=local.path.read_bytes())
        targets, _ = check_targets([webhook.url], "test")
        root = parse_object_url("s3://alert-runs/verl")
        watch = Watcher([root], settings=settings(), cache=LogCache(tmp_path / "cache"), targets=targets)
        watch.cycle()
        local.crash()
        client.put_object(Bucket="alert-runs", Key="verl/grpo_run/train.log", Body=local.path.read_bytes())
        assert watch.cycle().delivered == 1
        assert webhook.titles() == ["[rlmon] grpo_run · GRPO crashed after step 20"]
        assert list(read_state(tmp_path / "cache").roots) == ["s3://alert-runs/verl"]
        server.stop()  # the store is unreachable: a problem, named by its URL; the watcher goes on
        watch.cycle()
        problems = read_state(tmp_path / "cache").problems
        assert len(problems) == 1 and problems[0].startswith("s3://alert-runs/verl: ")
    finally:
        server.stop()


def test_a_damaged_state_file_starts_afresh_sending_nothing_older(tmp_path: Path, webhook: WebhookReceiver) -> None:
    root, cache = tmp_path / "logs", tmp_path / "cache"
    log = GrowingLog(root, "grpo_run")
    log.start(20)
    log.crash()
    state_path(cache).parent.mkdir(parents=True)
    state_path(cache).write_text('{"roots": {"', encoding="utf-8")
    watch = watcher(root, cache, [webhook.url])
    watch.cycle()
    assert webhook.posts == []
    assert list(read_state(cache).roots) == [str(root)]


def test_a_stall_is_told_once_and_a_resumed_run_rearms_it(tmp_path: Path, webhook: WebhookReceiver) -> None:
    root = tmp_path / "logs"
    log = GrowingLog(root, "grpo_run")
    log.start(12)
    clock = Clock()
    watch = watcher(root, tmp_path / "cache", [webhook.url], clock=clock, stall_min_s="2", stall_factor="1")
    watch.cycle()  # running: its log was written just now
    clock.now += 10  # quiet for 10 s, past max(1 x 0.5 s a step, 2 s)
    watch.cycle()
    watch.cycle()  # still stalled: told once
    log.chatter()  # the log grows (no new step yet)
    clock.now = time.time()
    watch.cycle()  # it logs again
    clock.now += 10
    watch.cycle()  # and stalls again, at the same step: told again
    assert webhook.titles() == [
        "[rlmon] grpo_run · GRPO stalled at step 12",
        "[rlmon] grpo_run · GRPO is logging again (step 12)",
        "[rlmon] grpo_run · GRPO stalled at step 12",
    ]


def test_messages_for_a_target_out_of_reach_wait_a_week(tmp_path: Path, webhook: WebhookReceiver) -> None:
    root, cache = tmp_path / "logs", tmp_path / "cache"
    log = GrowingLog(root, "grpo_run")
    log.start(20)
    (root / "rlmon.toml").write_text(f'[alerts]\ntargets = ["{webhook.url}"]\n')
    clock = Clock()
    first = watcher(root, cache, [], clock=clock)
    first.cycle()
    webhook.stop()
    log.crash()
    first.cycle()
    first.close()
    assert len(read_state(cache).outbox) == 1
    # a watcher that does not see the root's rlmon.toml (its folder out of reach): the message waits...
    (root / "rlmon.toml").unlink()
    other = watcher(root, cache, [f"json://127.0.0.1:{free_port()}/other"], clock=clock)
    clock.now += 6 * 24 * 3600
    other.cycle()
    assert len(read_state(cache).outbox) == 1
    clock.now += 2 * 24 * 3600  # ... a week at most
    other.cycle()
    assert read_state(cache).outbox == []


APP_LIKE_WATCHER = """
import sys, threading
from pathlib import Path
from rlmon.alerts import Watcher, check_targets
from rlmon.logs.cache import LogCache
from rlmon.settings import load_settings
targets, problems = check_targets(sys.argv[3:], "RLMON_ALERT_TARGETS")
watcher = Watcher([Path(sys.argv[1])], settings=load_settings([], {"RLMON_REFRESH_S": "2"}),
                  cache=LogCache(Path(sys.argv[2])), targets=targets, standing_problems=problems)
watcher.run(threading.Event())
"""
"""A watcher as the app server starts one (rlmon/app/alerts.py): the targets apprise refuses kept as problems."""


def test_a_watcher_whose_only_target_is_bad_leaves_the_lease_to_one_that_works_and_says_why(
    tmp_path: Path, webhook: WebhookReceiver, caplog: pytest.LogCaptureFixture
) -> None:
    root, cache = tmp_path / "logs", tmp_path / "cache"
    log = GrowingLog(root, "grpo_run")
    log.start(20)
    caplog.set_level(logging.INFO, logger="rlmon.alerts")
    # in this process: a replica's watcher with one URL apprise refuses
    _, problems = check_targets(["nosuch://alerts.example.com/T0KEN"], "RLMON_ALERT_TARGETS")
    lost = Watcher([root], settings=settings(), cache=LogCache(cache), standing_problems=problems)
    assert lost.cycle().sending is False
    assert not lease_path(cache).exists()
    said = "this process has no working alert target, so it sends nothing"
    assert said in caplog.text
    assert lost.cycle().sending is False and caplog.text.count(said) == 1  # said once, not at every refresh
    # another process with a working target takes the lease and sends
    env = {key: value for key, value in os.environ.items() if not key.startswith("RLMON_")}
    good = WatchProcess([str(root), "--notify", webhook.url, "--refresh-s", "2", "--cache-dir", str(cache)], env,
                        tmp_path)  # fmt: skip
    try:
        assert good.wait_for("first start on", timeout_s=60), good.err()  # its first refresh is done
        log.crash()
        assert wait_until(lambda: len(webhook.posts) == 1, timeout_s=30), good.err()
        assert webhook.titles() == ["[rlmon] grpo_run · GRPO crashed after step 20"]
        assert lost.cycle().sending is False
        # the Alerts page, whichever replica draws it, lists why this process does not send
        failing = alerts_panel(cache, lang="en").failing
        mine = f"pid {os.getpid()} on {socket.gethostname()}: "
        assert mine + problems[0] in failing
        assert mine + said + f" and leaves the alerts of {cache} to a process that has one" in failing
        assert not any("T0KEN" in line for line in failing)
    finally:
        assert good.stop() == 0
    lost.close()
    assert not note_path(cache).exists()


def test_a_replica_with_a_bad_target_reaches_the_alerts_page_while_another_process_sends(
    tmp_path: Path, webhook: WebhookReceiver
) -> None:
    root, cache = tmp_path / "logs", tmp_path / "cache"
    GrowingLog(root, "grpo_run").start(20)
    here = watcher(root, cache, [webhook.url])
    assert here.cycle().sending is True
    env = {key: value for key, value in os.environ.items() if not key.startswith("RLMON_")}
    replica = subprocess.Popen(
        [sys.executable, "-c", APP_LIKE_WATCHER, str(root), str(cache), "nosuch://alerts.example.com/T0KEN"],
        cwd=REPO_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        assert wait_until(lambda: note_path(cache, pid=replica.pid).exists(), timeout_s=60)
        failing = alerts_panel(cache, lang="en").failing
        assert (
            f"pid {replica.pid} on {socket.gethostname()}: alert target 1 of RLMON_ALERT_TARGETS "
            "(nosuch://alerts.example.com) is not a URL apprise can send to: unknown scheme 'nosuch' (docs/alerts.md "
            "lists the forms)"
        ) in failing
        assert json.loads(lease_path(cache).read_text())["pid"] == os.getpid()  # it never took the lease
        zh = alerts_panel(cache, lang="zh").failing
        assert any(line.startswith(f"{socket.gethostname()} 上的进程 {replica.pid}：alert target 1") for line in zh)
    finally:
        replica.kill()
        replica.wait(timeout=30)
    # killed: its note is no longer read (its pid is gone)
    assert not any(str(replica.pid) in line for line in alerts_panel(cache, lang="en").failing)
    here.close()


def test_a_process_whose_targets_are_not_the_senders_says_they_get_nothing(tmp_path: Path) -> None:
    root, cache = tmp_path / "logs", tmp_path / "cache"
    log = GrowingLog(root, "grpo_run")
    log.start(20)
    first, second = WebhookReceiver().start(), WebhookReceiver().start()
    try:
        here = watcher(root, cache, [first.url])
        assert here.cycle().sending is True
        env = {key: value for key, value in os.environ.items() if not key.startswith("RLMON_")}
        other = WatchProcess([str(root), "--notify", second.url, "--refresh-s", "2", "--cache-dir", str(cache)], env,
                             tmp_path)  # fmt: skip
        try:
            assert other.wait_for("get nothing while", timeout_s=60), other.err()
            host = socket.gethostname()
            said = (
                f"the alert targets json://127.0.0.1 (--notify #1) of this process get nothing while pid {os.getpid()} "
                f"on {host} sends the alerts of {cache} to its own "
                "(json://127.0.0.1): give every process on one cache folder the same targets"
            )
            assert said in other.err()
            assert f"pid {other.process.pid} on {host}: {said}" in alerts_panel(cache, lang="en").failing
            log.crash()
            assert here.cycle().delivered == 1
            assert first.titles() == ["[rlmon] grpo_run · GRPO crashed after step 20"]
            assert second.posts == []  # as documented: the sender's targets only
        finally:
            assert other.stop() == 0
        here.close()
    finally:
        first.close()
        second.close()
