"""What the pages show (rlmon.views: model, tables, overview, detail): chart plans, tables and header lines, on
hand-made views and on real logs from ``../shared/realdata/verl`` (read in place; skipped with the reason when that
folder is absent)."""

from __future__ import annotations

import shutil
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from rlmon.analysis.signals import Signal
from rlmon.analysis.smoothing import Smoothing
from rlmon.logs.cache import LogCache
from rlmon.runs.loading import load_experiment
from rlmon.schema import STEP
from rlmon.settings import load_settings
from rlmon.sources.discovery import discover_experiments
from rlmon.views import detail, model, overview, tables


def real_view(realdata_dir: Path, tmp_path: Path, name: str) -> model.ExperimentView:
    """One real log as an experiment: its own folder under a root (a link to the file, nothing copied)."""
    folder = tmp_path / "root" / Path(name).stem
    folder.mkdir(parents=True)
    shutil.copy(realdata_dir / name, folder / name)  # a temporary copy: rlmon reads it like any log
    (ref,) = discover_experiments([tmp_path / "root"]).experiments
    settings = load_settings([], {})
    return model.view_of(ref, load_experiment(ref, LogCache(None), now=time.time(), settings=settings))


def demo_views(tmp_path: Path) -> list[model.ExperimentView]:
    from rlmon.demo import write_demo_root

    root = tmp_path / "demo"
    write_demo_root(root)
    settings = load_settings([], {})
    cache = LogCache(None)
    refs = discover_experiments([root]).experiments
    return [model.view_of(ref, load_experiment(ref, cache, now=time.time(), settings=settings)) for ref in refs]


def dataset_rows(spec: dict[str, Any], name: str) -> list[dict[str, Any]]:
    data = spec["datasets"][name]
    return pl.read_ipc_stream(data).to_dicts() if isinstance(data, bytes) else list(data)


def spec_rows(spec: dict[str, Any]) -> list[dict[str, Any]]:
    return dataset_rows(spec, spec["data"]["name"])


# --- labels and header lines ---------------------------------------------------------------------------


def test_labels_say_the_track_when_several_tracks_are_in_view(tmp_path: Path) -> None:
    views = demo_views(tmp_path)
    labels = model.display_labels(views, "en")
    by_folder = {view.experiment.path.rsplit("/", 1)[-1]: labels[view.id] for view in views}
    assert by_folder["e1_grpo_2b"] == "E1 · GRPO · 2B"
    assert by_folder["e1_grpo_4b"] == "E1 · GRPO · 4B"
    four_b = [view for view in views if view.experiment.track == "Qwen3.5-4B"]
    assert model.display_labels(four_b, "en")[four_b[0].id] == "E1 · GRPO"


def test_progress_line_names_the_track_of_each_group_across_tracks(tmp_path: Path) -> None:
    views = demo_views(tmp_path)
    line = overview.progress_line(views, "en")
    # demo: 4B E1–E4 finished 150/150, E5 running at 21/150; 2B E1–E4 finished 150/150 (seed page)
    assert "E1–E4 · 4B finished 150/150" in line
    assert "E1–E4 · 2B finished 150/150" in line
    assert "E5 · 4B running 21/150" in line


def test_experiments_table_has_a_track_column_only_across_tracks(tmp_path: Path) -> None:
    views = demo_views(tmp_path)
    numbers: dict[str, Any] = {}
    both = tables.experiments_frame(views, numbers, slugs={}, lang="en")
    assert both["track"].to_list().count("2B") == 4
    assert both["track"].to_list().count("4B") == 5
    one = tables.experiments_frame([view for view in views if view.experiment.track == "Qwen3.5-2B"], numbers,
                                   slugs={}, lang="zh")  # fmt: skip
    assert "track" not in one.columns
    assert one["status"].to_list() == ["✓ 已完成 150/150"] * 4


def test_hours_bars_mark_a_running_run_and_project_its_end(tmp_path: Path) -> None:
    views = [view for view in demo_views(tmp_path) if view.experiment.track == "Qwen3.5-4B"]
    (plan,) = overview.comparison_charts(
        [overview.HOURS_TOTAL], views, smoothing=Smoothing(), x="step", log_scale=False, signals=[], highlight=[],
        lang="en", max_points=2000,
    )  # fmt: skip
    rows = {row["experiment"].rsplit("/", 1)[-1]: row for row in spec_rows(plan.build())}
    running = rows["e5_reinforce_pp_4b"]
    experiment = next(view.experiment for view in views if view.id.endswith("e5_reinforce_pp_4b"))
    assert experiment.eta_h is not None and experiment.elapsed_h is not None
    assert running["projected"] == pytest.approx(experiment.elapsed_h + experiment.eta_h)
    # seed page: E5 at 21/150 after about 4h23m; its projection is the elapsed time plus the ETA
    assert running["text"].startswith("4.4h\nrunning\n→ ")
    assert rows["e2_dapo_4b"]["projected"] is None
    assert rows["e2_dapo_4b"]["text"] == "32.6h"  # seed: E2 32.6h


# --- metric names across verl versions ------------------------------------------------------------------


def test_entropy_chart_draws_the_older_entropy_loss_key(realdata_dir: Path, tmp_path: Path) -> None:
    view = real_view(realdata_dir, tmp_path, "amd-mi300-deepseek7b-grpo-gsm8k-2025-03.log")
    assert "actor/entropy" not in view.steps.columns
    long = model.long_frame([view], "actor/entropy")
    # "step:1 - ... actor/entropy_loss:0.389 ..." and "step:2 - ... actor/entropy_loss:0.392 ..."
    assert long.filter(pl.col(STEP) <= 2)["value"].to_list() == [0.389, 0.392]
    assert "actor/entropy" in overview.metric_options([view])
    plans = detail.detail_charts(view, smoothing=Smoothing(), x="step", signals=[], lang="en", max_points=2000)
    entropy = next(plan for plan in plans if plan.name == "actor/entropy")
    # sent as Float32 (7 significant digits)
    assert [row["value"] for row in spec_rows(entropy.build())][:2] == pytest.approx([0.389, 0.392], rel=1e-6)


def test_ppo_with_a_critic_gets_critic_charts(realdata_dir: Path, tmp_path: Path) -> None:
    view = real_view(realdata_dir, tmp_path, "amd-mi300-deepseek7b-ppo-gsm8k-2025-03.log")
    names = [plan.name for plan in detail.detail_charts(view, smoothing=Smoothing(), x="step", signals=[],
                                                        lang="zh", max_points=2000)]  # fmt: skip
    assert {"critic/vf_loss", "critic/vf_explained_var", "critic/grad_norm", "critic_values"} <= set(names)
    english = detail.detail_charts(view, smoothing=Smoothing(), x="step", signals=[], lang="en", max_points=2000)
    vf_loss = next(plan for plan in english if plan.name == "critic/vf_loss")
    # "step:1 - ... critic/vf_loss:0.161 ..."
    assert spec_rows(vf_loss.build())[0]["value"] == pytest.approx(0.161, rel=1e-6)  # sent as Float32


def test_grpo_gets_no_values_chart(realdata_dir: Path, tmp_path: Path) -> None:
    # a GRPO run logs critic/returns/mean (the advantage) but has no value model
    view = real_view(realdata_dir, tmp_path, "amd-mi300-deepseek7b-grpo-gsm8k-2025-03.log")
    names = [plan.name for plan in detail.detail_charts(view, smoothing=Smoothing(), x="step", signals=[],
                                                        lang="en", max_points=2000)]  # fmt: skip
    assert "critic_values" not in names
    assert "critic/vf_loss" not in names


# --- signals lead to their chart -------------------------------------------------------------------------


def spike(experiment: str, metric: str, step: int) -> Signal:
    text = f"{metric} spike at step {step}"
    return Signal("spike", "warning", experiment, metric, step, step, values={}, message={"en": text, "zh": text})


def test_a_signal_links_to_its_chart_with_the_step_marked(realdata_dir: Path, tmp_path: Path) -> None:
    view = real_view(realdata_dir, tmp_path, "amd-mi300-deepseek7b-ppo-gsm8k-2025-03.log")
    signal = spike(view.id, "critic/vf_loss", 2)
    assert model.signal_link("ppo", signal) == "ppo?focus=critic%2Fvf_loss&at=2"
    rows = tables.signals_frame([view], [signal], kinds={}, slugs={view.id: "ppo"}, lang="en")
    assert rows["chart"].to_list() == ["ppo?focus=critic%2Fvf_loss&at=2"]
    plans = detail.detail_charts(
        view, smoothing=Smoothing(), x="step", signals=[], lang="en", max_points=2000,
        focus=model.Focus("critic/vf_loss", 2),
    )  # fmt: skip
    first = plans[0].build()
    assert first["title"] == "critic/vf_loss (from the signal)"
    marker_layers = [layer for layer in first["layer"] if layer.get("mark", {}).get("shape") == "triangle-down"]
    (marker,) = marker_layers
    marks = dataset_rows(first, marker["data"]["name"])
    step2 = next(line for line in (realdata_dir / "amd-mi300-deepseek7b-ppo-gsm8k-2025-03.log").open()
                 if "step:2 - " in line)  # fmt: skip
    assert "critic/vf_loss:" in step2
    value = float(step2.split("critic/vf_loss:")[1].split(" ")[0])
    assert [(mark["step"], mark["value"]) for mark in marks] == [(2, pytest.approx(value, rel=1e-6))]
    # the focused key is not drawn twice
    assert [plan.name for plan in plans].count("critic/vf_loss") == 1


# --- the explorer --------------------------------------------------------------------------------------


def test_explorer_filter_searches_every_family(tmp_path: Path) -> None:
    view = demo_views(tmp_path)[0]
    found = detail.explorer(
        view, family="actor/", pattern="timing_s/(gen|update)", smoothing=Smoothing(), x="step", lang="en",
        max_points=2000,
    )  # fmt: skip
    keys = [plan.name for plans in found.groups.values() for plan in plans]
    assert keys and all(key.startswith(("timing_s/gen", "timing_s/update")) for key in keys)
    assert found.matched == len(keys)
    assert found.regex


def test_a_catastrophic_pattern_cannot_hang_the_filter() -> None:
    keys = ["actor/" + "a/" * 40 + "x"] * 2000
    started = time.perf_counter()
    matched, regex = model.match_keys(keys, r"^([\w/]+)+#")
    assert time.perf_counter() - started < 1.0  # Python's re takes minutes on this (nested quantifiers)
    assert matched == [] and regex


def test_an_invalid_pattern_is_matched_as_text() -> None:
    assert model.match_keys(["actor/lr(1e-4)", "critic/lr"], "LR(1E") == (["actor/lr(1e-4)"], False)


def test_explorer_small_multiples_are_tall_enough(tmp_path: Path) -> None:
    view = demo_views(tmp_path)[0]
    found = detail.explorer(view, family="actor/", pattern="", smoothing=Smoothing(), x="step", lang="en",
                            max_points=2000)  # fmt: skip
    spec = next(iter(found.groups.values()))[0].build()
    assert spec["height"] == detail.EXPLORER_HEIGHT >= 110
    assert spec["autosize"]["type"] == "fit-x"


def test_comparison_and_detail_plot_heights_meet_the_floor(tmp_path: Path) -> None:
    views = demo_views(tmp_path)
    plans = overview.comparison_charts(
        ["pass_rate", "val_score/aime24", overview.HOURS_TOTAL], views, smoothing=Smoothing("ema"), x="step",
        log_scale=False, signals=[], highlight=[views[0].id], lang="en", max_points=2000,
    )  # fmt: skip
    assert [plan.build()["height"] for plan in plans] == [overview.COMPARISON_HEIGHT] * 3
    assert overview.COMPARISON_HEIGHT >= 200 and detail.DETAIL_HEIGHT >= 160
    # validation scores (accuracy 0–1) are shown in %, as the team's page did
    validation = plans[1].build()
    line = next(layer for layer in validation["layer"] if layer["mark"]["type"] == "line")
    assert line["encoding"]["y"]["axis"]["format"] == ".0%"


def test_mismatch_chart_says_when_the_log_has_three_decimals(tmp_path: Path) -> None:
    view = demo_views(tmp_path)[0]
    three = replace(view, experiment=replace(view.experiment, three_decimals=True))  # type: ignore[call-arg]
    for candidate, noted in ((view, False), (three, True)):
        plans = detail.detail_charts(candidate, smoothing=Smoothing(), x="step", signals=[], lang="en",
                                     max_points=2000)  # fmt: skip
        spec = next(plan for plan in plans if plan.name == "rollout_mismatch").build()
        subtitle = spec["title"].get("subtitle") if isinstance(spec["title"], dict) else None
        assert (subtitle is not None and "3 decimals" in subtitle) is noted


def test_real_explorer_filter_searches_every_family(realdata_dir: Path, tmp_path: Path) -> None:
    view = real_view(realdata_dir, tmp_path, "amd-mi300-deepseek7b-ppo-gsm8k-2025-03.log")
    # "step:1 - ... timing_s/gen:... timing_s/update_critic:... timing_s/update_actor:..." (a v0.2 PPO log)
    found = detail.explorer(
        view, family="actor/", pattern="timing_s/(gen|update)", smoothing=Smoothing(), x="step", lang="en",
        max_points=2000,
    )  # fmt: skip
    keys = sorted(plan.name for plans in found.groups.values() for plan in plans)
    assert keys == ["timing_s/gen", "timing_s/update_actor", "timing_s/update_critic"]
    assert (found.matched, found.regex, found.limited) == (3, True, False)


def test_real_three_decimal_log_says_so_on_its_mismatch_chart(realdata_dir: Path, tmp_path: Path) -> None:
    # every step value printed with 3 decimals: "step:1 - ... training/rollout_probs_diff_mean:0.003 ..."; without
    # the correlation, the mismatch chart draws that key as logged (with verl's FAQ thresholds)
    view = real_view(realdata_dir, tmp_path, "gpg-qwen2-7b-fsdp-gsm8k-math-2025-06.log")
    assert view.experiment.three_decimals
    for lang, words in (("en", "logged with 3 decimals"), ("zh", "日志只保留 3 位小数")):
        plans = detail.detail_charts(view, smoothing=Smoothing(), x="step", signals=[], lang=lang, max_points=2000)
        spec = next(plan for plan in plans if plan.name == "training/rollout_probs_diff_mean").build()
        assert isinstance(spec["title"], dict) and words in spec["title"]["subtitle"]
        assert spec_rows(spec)[0]["value"] == pytest.approx(0.003)


def test_the_charts_ahead_are_the_overviews_under_each_other_smoothing_method(tmp_path: Path) -> None:
    views = demo_views(tmp_path)
    lines = ["response_length/mean", "actor/entropy", "actor/grad_norm"]
    assert set(lines) <= set(overview.metric_options(views))
    metrics = [*lines, overview.HOURS_TOTAL]
    choices: dict[str, Any] = {
        "x": "step", "log_scale": False, "signals": (), "highlight": (), "lang": "en", "max_points": 300,
    }  # fmt: skip
    chosen = Smoothing("ema", weight=0.8, window=7)
    ahead = overview.comparison_charts_ahead(metrics, views, smoothing=chosen, **choices)
    others = [
        overview.comparison_charts(metrics, views, smoothing=Smoothing(method, weight=0.8, window=7), **choices)
        for method in ("none", "moving_average")
    ]
    assert list(ahead) == metrics
    for index, key in enumerate(metrics):
        assert [plan.key for plan in ahead[key]] == [plans[index].key for plans in others], key
    # the line charts differ from the chosen method's; the hours bars do not depend on smoothing (the same key:
    # the memo has them already, nothing is built)
    chosen_keys = {plan.key for plan in overview.comparison_charts(metrics, views, smoothing=chosen, **choices)}
    assert {name for name, plans in ahead.items() if any(plan.key in chosen_keys for plan in plans)} == {
        overview.HOURS_TOTAL
    }


def test_the_overview_charts_and_those_ahead_come_from_one_set_of_choices(tmp_path: Path) -> None:
    views = demo_views(tmp_path)
    metrics = ["actor/entropy", overview.HOURS_TOTAL]
    chosen = Smoothing("moving_average", weight=0.6, window=5)
    choices = overview.ComparisonChoices(
        smoothing=chosen, x="step", log_scale=True, signals=(), highlight=(), lang="zh", max_points=300,
    )  # fmt: skip
    plans, ahead = overview.overview_charts(metrics, views, choices)
    assert [plan.name for plan in plans] == metrics
    assert list(ahead) == metrics
    # a line chart's key: ("overview", metric, experiments, smoothing, x, log scale, points a line, marks)
    assert plans[0].key[3:6] == (chosen, "step", True)
    # ahead: the same chart under the two other methods, with the chosen window and weight
    assert [plan.key[3] for plan in ahead["actor/entropy"]] == [
        Smoothing("none", weight=0.6, window=5),
        Smoothing("ema", weight=0.6, window=5),
    ]
    assert all(plan.key[4:6] == ("step", True) for plan in ahead["actor/entropy"])
