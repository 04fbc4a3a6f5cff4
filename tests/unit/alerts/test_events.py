"""The events an experiment holds, the rules that pick the ones sent, and the words they are sent in."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from rlmon.alerts.events import SIGNAL_KINDS, AlertEvent, experiment_events, resumed_event
from rlmon.alerts.rules import AlertRules, rules_for
from rlmon.alerts.wording import EXPERIMENT_PATH, digest_message, event_message, experiment_link
from rlmon.analysis.signals import KINDS, detect_signals
from rlmon.app.navigation import GENERIC_PATH
from rlmon.logs.cache import LogCache
from rlmon.runs.experiment import Experiment
from rlmon.runs.loading import load_experiment
from rlmon.settings import ALERT_KINDS, Settings, load_settings
from rlmon.sources.discovery import discover_experiments
from rlmon.sources.rlmon_toml import AlertsTable
from tests.helpers.alert_logs import CRASH_EXCEPTION, CRASH_FRAME, GrowingLog
from tests.helpers.experiments import make_experiment

SETTINGS = load_settings([], {"RLMON_STALL_MIN_S": "1", "RLMON_STALL_FACTOR": "1"})


def read(root: Path, *, now: float | None = None) -> tuple[Experiment, list[AlertEvent]]:
    ref = discover_experiments([root]).experiments[0]
    experiment = load_experiment(ref, LogCache(None), now=time.time() if now is None else now, settings=SETTINGS)
    return experiment, experiment_events(
        experiment, detect_signals(experiment, settings=SETTINGS), relative=ref.relative
    )


def test_the_alert_kinds_cover_every_signal_of_warning_or_above() -> None:
    # every signal kind is known to analysis; the ones of their own (crash, stall, NaN) are not among SIGNAL_KINDS
    assert set(SIGNAL_KINDS) <= set(KINDS)
    assert not {"crashed", "stalled", "non_finite", "spikes", "length_growth", "mismatch_rising"} & set(SIGNAL_KINDS)
    assert set(ALERT_KINDS) == {"crashed", "stalled", "non_finite", "finished", "best", "signals", *SIGNAL_KINDS}
    # the detectors' warning-or-above kinds (rlmon.analysis.signals' docstring) are all sent
    assert set(SIGNAL_KINDS) == {
        "spike", "entropy_rising", "entropy_collapse", "validation_drop", "length_cap", "mismatch_high",
        "pass_rate_collapse", "kl_blowup",
    }  # fmt: skip


def test_a_link_opens_the_apps_experiment_page() -> None:
    assert EXPERIMENT_PATH == GENERIC_PATH


def test_events_of_a_growing_log_keep_their_keys(tmp_path: Path) -> None:
    log = GrowingLog(tmp_path, "team/grpo_run")
    log.start(30)
    _, quiet = read(tmp_path)
    assert quiet == []
    log.steps(2, grad_norm=5.0)
    _, spiked = read(tmp_path)
    assert [(event.kind, event.step, event.severity) for event in spiked] == [("spike", 31, "warning")]
    assert spiked[0].key == "spike|team/grpo_run|actor/grad_norm|31"
    log.steps(3, grad_norm=float("nan"))
    log.crash()
    _, crashed = read(tmp_path)
    assert [event.kind for event in crashed] == ["crashed", "non_finite", "spike"]
    crash = crashed[0]
    # its exception is line 44 of the file: 2 header lines, 35 steps, then the 7th line of the failure block
    assert crash.key == "crashed|team/grpo_run|1|44"
    assert (crash.step, crash.exception, crash.frame) == (35, CRASH_EXCEPTION, CRASH_FRAME)
    assert crash.detail["en"] == f"crashed after step 35: {CRASH_EXCEPTION} (in {CRASH_FRAME})"
    assert crash.track == "Qwen3-4B" and crash.relative == "team/grpo_run"
    assert crashed[1].key == "non_finite|team/grpo_run|actor/grad_norm|33"
    assert crashed[2].key == spiked[0].key  # the same spike, one refresh later: the same event
    # the run is resumed in the same file and fails again further down: another crash
    log.steps(2)
    log.crash()
    _, again = read(tmp_path)
    # after the first block's last 2 lines (45, 46) and 2 steps (47, 48), the new block's exception is line 55
    assert again[0].kind == "crashed" and again[0].key == "crashed|team/grpo_run|1|55"


def test_a_stall_and_its_resume(tmp_path: Path) -> None:
    log = GrowingLog(tmp_path, "team/grpo_run")
    log.start(12)
    experiment, events = read(tmp_path, now=time.time() + 30)  # quiet for 30 s, past the 1 s threshold
    assert experiment.status == "stalled"
    assert [(event.kind, event.key, event.step) for event in events] == [("stalled", "stalled|team/grpo_run|12", 12)]
    assert events[0].detail["en"].startswith("stalled at 12/200: the log has not grown for")
    resumed = resumed_event(experiment, relative="team/grpo_run", stalled_key=events[0].key)
    assert (resumed.kind, resumed.severity, resumed.rule_kind) == ("resumed", "warning", "stalled")
    assert resumed.detail == {
        "en": "The log grows again after the stall; the run is at 12/200.",
        "zh": "停滞之后日志又开始增长；当前进度 12/200。",
    }


def test_a_window_signal_is_one_event_however_its_window_moves() -> None:
    # entropy falls from 1.0 to 0.1: a collapse (last window below 0.3 x the first), its window ending at the last step
    entropy = [1.0] * 10 + [0.1] * 10
    first = make_experiment({"actor/entropy": entropy})
    later = make_experiment({"actor/entropy": [*entropy, 0.1, 0.1]})
    keys = []
    for experiment in (first, later):
        events = experiment_events(experiment, detect_signals(experiment, settings=Settings()), relative="e1_grpo")
        collapse = [event for event in events if event.kind == "entropy_collapse"]
        assert len(collapse) == 1
        keys.append(collapse[0].key)
    assert keys == ["entropy_collapse|e1_grpo|actor/entropy"] * 2


def test_finished_and_new_best_scores() -> None:
    scores = [0.3, None, 0.5, None, 0.4, None, 0.6]
    experiment = make_experiment(
        {"critic/score/mean": [0.1] * 7, "val-core/aime24/acc/mean@1": scores}, steps=[0, 1, 2, 3, 4, 5, 6]
    )
    events = experiment_events(experiment, [], relative="e1_grpo")
    assert [(event.kind, event.step) for event in events] == [("finished", 6), ("best", 2), ("best", 6)]
    finished = events[0]
    assert finished.key == "finished|e1_grpo|0|6"
    assert finished.detail["en"].startswith("E1 (GRPO): finished 6/6 in")
    assert "aime24 best 0.600 at step 6, last 0.600 at step 6" in finished.detail["en"]
    assert events[1].detail["en"] == "aime24: 0.500 at step 2, above the best before it (0.300 at step 0)."
    assert events[2].detail["zh"] == "aime24：step 6 为 0.600，高于此前最佳（step 2 的 0.500）。"


def _event(kind: str, severity: str, *, track: str = "Qwen3-4B", experiment: str = "4B/e1") -> AlertEvent:
    return AlertEvent(
        key=f"{kind}|{experiment}", kind=kind, severity=severity, experiment=experiment, relative=experiment,  # type: ignore[arg-type]
        label="E1 · GRPO", track=track, step=3, metric=None, detail={"en": "x", "zh": "x"},
    )  # fmt: skip


def test_rules_from_the_settings_and_a_roots_table() -> None:
    default = rules_for(Settings(), None)
    assert default.wants(_event("crashed", "critical"))
    assert default.wants(_event("spike", "warning"))  # "signals" covers every signal kind
    assert default.wants(_event("finished", "info"))
    assert not default.wants(_event("best", "info"))  # opt-in
    assert default.wants(_event("resumed", "warning"))  # with its stall
    table = AlertsTable(tracks=("Qwen3-4B",), experiments=("4B/*",), kinds=("crashed", "spike"), min_severity="warning")
    rules = rules_for(Settings(), table)
    assert rules == AlertRules(frozenset({"crashed", "spike"}), "warning", ("Qwen3-4B",), ("4B/*",))
    assert rules.wants(_event("crashed", "critical"))
    assert rules.wants(_event("spike", "warning"))
    assert not rules.wants(_event("kl_blowup", "warning"))  # not among its kinds
    assert not rules.wants(_event("stalled", "warning"))
    assert not rules.wants(_event("crashed", "critical", track="Qwen3-8B"))
    assert not rules.wants(_event("crashed", "critical", experiment="8B/e1"))
    critical = rules_for(load_settings([], {"RLMON_ALERT_MIN_SEVERITY": "critical"}), None)
    assert critical.wants(_event("non_finite", "critical")) and not critical.wants(_event("stalled", "warning"))


@pytest.mark.parametrize(
    ("lang", "title", "fields"),
    [
        (
            "en",
            "[rlmon] E1 · GRPO crashed after step 3",
            ["Experiment: 4B/e1 · E1 · GRPO", "Track: Qwen3-4B", "Step: 3"],
        ),
        (
            "zh",
            "[rlmon] E1 · GRPO 在 step 3 之后崩溃",
            ["实验：4B/e1 · E1 · GRPO", "赛道：Qwen3-4B", "Step：3", "级别：严重"],
        ),
    ],
)
def test_a_message_in_each_language(lang: str, title: str, fields: list[str]) -> None:
    event = _event("crashed", "critical")
    message = event_message(event, lang=lang, public_url="https://rlmon.example.com/team")
    assert message.title == title
    assert message.severity == "critical"
    lines = message.body.splitlines()
    assert lines[0] == "x"
    for field in fields:
        assert field in lines
    assert lines[-1].endswith("https://rlmon.example.com/team/exp?id=4B%2Fe1&at=3")
    assert "http" not in event_message(event, lang=lang).body  # no public address: no link


def test_a_link_focuses_the_events_metric_at_its_step() -> None:
    event = AlertEvent(
        key="k", kind="spike", severity="warning", experiment="4B/e1 & co", relative="x", label="E1", track="t",
        step=31, metric="actor/grad_norm", detail={},
    )  # fmt: skip
    assert experiment_link("http://host:8501", event) == (
        "http://host:8501/exp?id=4B%2Fe1+%26+co&focus=actor%2Fgrad_norm&at=31"
    )
    assert experiment_link("", event) is None


def test_a_digest_lists_every_event_most_severe_first() -> None:
    events = [_event("spike", "warning", experiment=f"4B/e{index}") for index in range(3)]
    events.append(_event("crashed", "critical", experiment="4B/e9"))
    message = digest_message(events, root="/data/logs", lang="en", public_url="", limit=3, window_s=300)
    assert message.title == "[rlmon] 4 alerts about /data/logs"
    assert message.severity == "critical"
    assert message.body.splitlines() == [
        "More than 3 alerts about this log root within 5m, sent together:",
        "",
        "- [critical] E1 · GRPO crashed after step 3",
        "- [warning] E1 · GRPO: spike (step 3)",
        "- [warning] E1 · GRPO: spike (step 3)",
        "- [warning] E1 · GRPO: spike (step 3)",
    ]
    zh = digest_message(events[:1], root="/data/logs", lang="zh", public_url="http://h", limit=3, window_s=300)
    assert zh.title == "[rlmon] /data/logs 的 1 条告警"
    assert zh.body.splitlines()[2] == "- 【警告】E1 · GRPO：尖峰（step 3） — http://h/exp?id=4B%2Fe0&at=3"
