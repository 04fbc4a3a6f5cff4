"""What the experiment page and the overview show as text (rlmon.views: the experiment header, paragraph, setting
groups, explorer notes, log notes and the overview's header and notices), on hand-made experiments."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from rlmon.analysis.signals import Signal
from rlmon.runs.experiment import Setting
from rlmon.sources.discovery import ExperimentRef
from rlmon.views import detail, model, overview
from tests.helpers.experiments import make_experiment


def make_view(**changes: object) -> model.ExperimentView:
    experiment = make_experiment({"pass_rate": [0.2, 0.4, 0.6]}, total_steps=10, status="running")
    experiment = replace(experiment, **changes)  # type: ignore[arg-type]
    ref = ExperimentRef(id=experiment.id, root=Path("/logs"), path=Path(experiment.path), relative=".", files=())
    return model.view_of(ref, experiment)


def signal(experiment: str, severity: str, text: str) -> Signal:
    return Signal("spike", severity, experiment, "actor/grad_norm", 2, 2, values={}, message={"en": text})  # type: ignore[arg-type]


NUMBERS = model.TableNumbers(first5_pass=40.0, last10_pass=62.5, best_val=0.8333, best_val_step=20)


def test_experiment_header_of_a_running_experiment() -> None:
    view = make_view(elapsed_h=32 + 33 / 60, eta_h=0.75, median_step_s=1800.0)
    header = detail.experiment_header(view, NUMBERS, lang="en")
    assert header == detail.ExperimentHeader(
        status="running",
        badge="▶ running · 3/10",
        description="",
        progress=0.3,
        progress_text="3/10 steps",
        cells=(
            ("Elapsed", "32h33m"),
            ("ETA", "45m"),
            ("Step time", "30m"),
            ("first-5 pass", "40.0%"),
            ("last-10 pass", "62.5%"),
            ("best val @step", "0.833 @20"),
        ),
        failure=None,
        failure_lines="",
        missing=None,
        no_steps=None,
    )


def test_experiment_header_of_a_crashed_experiment() -> None:
    view = make_view(
        status="crashed",
        failure="ValueError: bad\u202ereward",
        failure_frames=("reward.py:37 in score",),
        failure_step=2,
        missing_steps=tuple(range(1, 23)),
        description="Our **own** words.",
    )
    header = detail.experiment_header(view, model.TableNumbers(), lang="en")
    assert header.badge == "✗ crashed · 3/10"
    assert header.description == "Our **own** words\\."  # safe markdown (rlmon.text.markdown)
    assert header.cells[2:] == (
        ("Step time", "–"),
        ("first-5 pass", "–"),
        ("last-10 pass", "–"),
        ("best val @step", "–"),
    )
    assert header.failure == "The run failed after step 2. The last frames of the traceback and the error:"
    # the bidi override is taken out of the log's text
    assert header.failure_lines == "reward.py:37 in score\nValueError: badreward"
    assert header.missing == (
        "22 step(s) missing inside the logged range: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,"
        " 19, 20 …"
    )
    assert header.no_steps is None


def test_experiment_header_before_the_first_step() -> None:
    view = make_view(steps_done=0, total_steps=None, failure="boom", failure_step=None, missing_steps=(4, 7))
    header = detail.experiment_header(view, model.TableNumbers(), lang="en")
    assert header.badge == "▶ running · 0 steps"  # no total known: the steps done, never "0/?"
    assert (header.progress, header.progress_text) == (None, "")
    assert header.failure == "First exception line:"
    assert header.failure_lines == "boom"
    assert header.missing == "2 step(s) missing inside the logged range: 4, 7"
    assert header.no_steps == "No training step logged yet."


def test_paragraph_of() -> None:
    view = make_view()
    insights = model.Insights(
        signals=(signal("e1_grpo", "warning", "grad spike"), signal("other", "critical", "theirs")),
        paragraphs={"e1_grpo": "It learns."},
    )
    assert detail.paragraph_of(view, insights, lang="en") == detail.Paragraph(
        title="In short", paragraph="It learns.", signals=(("warning", "grad spike"),)
    )
    assert detail.paragraph_of(view, model.Insights(available=False, paragraphs={"e1_grpo": "x"}), lang="en") is None
    assert detail.paragraph_of(view, model.Insights(paragraphs={"e1_grpo": ""}), lang="en") is None
    only_signal = detail.paragraph_of(view, model.Insights(signals=insights.signals[:1]), lang="en")
    assert only_signal is not None and only_signal.paragraph is None


def test_setting_groups_keep_the_groups_order() -> None:
    lr = Setting(key="lr", label="lr", group="optimisation", value=1e-6, display="1e-6")
    model_path = Setting(key="model", label="model", group="model", value="Qwen", display="Qwen")
    clip = Setting(key="clip", label="clip", group="optimisation", value=0.2, display="0.2")
    view = make_view(settings=(lr, model_path, clip))
    assert detail.setting_groups(view, lang="en") == (
        detail.SettingGroup(group="model", title="Model", settings=(model_path,)),
        detail.SettingGroup(group="optimisation", title="Optimisation", settings=(lr, clip)),
    )
    assert detail.setting_groups(make_view(), lang="en") == ()


def test_explorer_families_and_notes() -> None:
    experiment = make_experiment({"critic/vf": [1.0], "actor/pg_loss": [1.0], "actor/entropy": [1.0], "lr": [1.0]})
    ref = ExperimentRef(id=experiment.id, root=Path("/logs"), path=Path(experiment.path), relative=".", files=())
    view = model.view_of(ref, experiment)
    assert detail.explorer_families(view) == ("actor/", "critic/", "lr")
    found = detail.Explorer(families=[], matched=30, total=40, groups={"actor/": [], "critic/": []}, limited=True)
    assert detail.explorer_notes(found, filtered=True, lang="en") == detail.ExplorerNotes(
        count="30 of 40 keys match the filter, in every family",
        more="Only the first 24 charts are drawn; narrow the filter to see the others.",
    )
    assert detail.explorer_notes(replace(found, limited=False), filtered=False, lang="en") == detail.ExplorerNotes(
        count="0 of 40 keys shown", more=None
    )


def test_log_notes() -> None:
    assert model.log_notes([], lang="en") is None
    notes = model.log_notes(["a\u202eb", "/mnt/logs/e1: skipped"], lang="en", paths={"/mnt/logs": "s3://bucket/logs"})
    assert notes == model.LogNotes(title="Notes on the logs (2)", text="ab\ns3://bucket/logs/e1: skipped")


# --- the overview ----------------------------------------------------------------------------------------


def test_overview_header() -> None:
    first = make_view(status="finished", total_steps=3)
    second = replace(first, experiment=replace(first.experiment, id="e2_grpo", label="E2 · GRPO", track="Model-2B"))
    third = replace(first, experiment=replace(first.experiment, id="e3_grpo", label="E3 · GRPO"))
    header = overview.overview_header([first, second, third], clock="12:00:01", lang="en")
    assert header.tracks == ("Model-4B", "Model-2B")
    assert header.settings_line == ""
    assert header.updated == "updated 12:00:01"
    # one group per track, status and progress; the codes carry the short track when several are in view
    assert header.progress_line == "E1, E3 · 4B finished 3/3 · E2 · 2B finished 3/3"


def test_unknown_metrics() -> None:
    assert overview.unknown_metrics(["pass_rate"], ["pass_rate", "actor/entropy"]) is None
    assert overview.unknown_metrics([], ["pass_rate"]) is None
    assert overview.unknown_metrics(["a", "pass_rate", "b"], ["pass_rate"]) == overview.UnknownMetrics(
        names=("a", "b"), more=False
    )
    many = overview.unknown_metrics([f"k{index}" for index in range(21)], [])
    assert many is not None
    assert many.names == tuple(f"k{index}" for index in range(20))
    assert many.more


def test_download_metrics() -> None:
    chosen = ["pass_rate", "hours_total", "val-core/aime/acc/mean@1", "actor/entropy", "val_score/gsm8k"]
    assert overview.download_metrics(chosen) == ["pass_rate", "actor/entropy"]


@dataclass(frozen=True)
class Unreadable:
    path: str
    reason: str


def test_notice_lines() -> None:
    view = make_view(problems=("skipped 2 lines",))
    lines = overview.notice_lines(["rlmon.toml: bad key"], [Unreadable("/logs/e9", "PermissionError")], [view])
    assert lines == ["rlmon.toml: bad key", "/logs/e9: PermissionError", "E1 · GRPO: skipped 2 lines"]
    assert overview.notice_lines([], [], [make_view()]) == []


def test_focus_of() -> None:
    view = make_view()
    assert detail.focus_of(view, "pass_rate", "12") == model.Focus(key="pass_rate", step=12)
    assert detail.focus_of(view, "pass_rate", "x") == model.Focus(key="pass_rate", step=None)
    assert detail.focus_of(view, "actor/grad_norm", "12") is None
    assert detail.focus_of(view, None, "12") is None
    assert detail.focus_of(view, "", "") is None


def test_track_peers() -> None:
    first = make_view()
    other_track = replace(first, experiment=replace(first.experiment, id="e2", track="Model-2B"))
    hidden = replace(first, experiment=replace(first.experiment, id="e3", hidden=True))
    same = replace(first, experiment=replace(first.experiment, id="e4"))
    peers = detail.track_peers(first, [first, other_track, hidden, same])
    assert [item.id for item in peers] == ["e1_grpo", "e4"]
