"""verl's health thresholds on the experiment page's charts: the dashed rules (rlmon.analysis.health), the
probability-difference chart of a log without the correlation, the rollout-correction grid, and the signals
table's rule column."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from rlmon.analysis.signals import detect_signals
from rlmon.analysis.smoothing import Smoothing
from rlmon.logs.cache import LogCache
from rlmon.runs.loading import load_experiment
from rlmon.settings import load_settings
from rlmon.sources.discovery import discover_experiments
from rlmon.views import detail, model, overview, tables
from rlmon.views.charts import THRESHOLD_COLOR


def _view(root: Path) -> model.ExperimentView:
    (ref,) = discover_experiments([root]).experiments
    return model.view_of(ref, load_experiment(ref, LogCache(None), now=time.time(), settings=load_settings([], {})))


def _crafted_view(tmp_path: Path, columns: dict[str, Sequence[float]]) -> model.ExperimentView:
    folder = tmp_path / "root" / "run"
    folder.mkdir(parents=True)
    count = max(len(values) for values in columns.values())
    text = "".join(
        f"(TaskRunner pid=7) step:{index + 1} - "
        + " - ".join(f"{key}:{values[index]}" for key, values in columns.items())
        + "\n"
        for index in range(count)
    )
    (folder / "train.log").write_text(text, encoding="utf-8")
    return _view(tmp_path / "root")


def _layers(spec: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for layer in spec.get("layer", []):
        yield layer
        yield from _layers(layer)


def _threshold_rules(spec: dict[str, Any]) -> list[float]:
    """The y values of the threshold-coloured dashed rules of a chart spec."""
    return [
        layer["encoding"]["y"]["datum"]
        for layer in _layers(spec)
        if isinstance(layer.get("mark"), dict)
        and layer["mark"].get("type") == "rule"
        and layer["mark"].get("color") == THRESHOLD_COLOR
    ]


def test_real_gpg_log_draws_verls_faq_and_best_practice_thresholds(realdata_dir: Path, tmp_path: Path) -> None:
    # gpg-qwen2-7b-fsdp logs training/rollout_probs_diff_mean (no correlation) and response_length/clip_ratio
    name = "gpg-qwen2-7b-fsdp-gsm8k-math-2025-06.log"
    folder = tmp_path / "root" / "gpg"
    folder.mkdir(parents=True)
    shutil.copy(realdata_dir / name, folder / name)
    view = _view(tmp_path / "root")
    plans = {plan.name: plan for plan in detail.detail_charts(view, smoothing=Smoothing(), x="step", signals=[],
                                                              lang="en", max_points=2000)}  # fmt: skip
    assert "training/rollout_probs_diff_mean" in plans and "rollout_mismatch" not in plans
    # verl FAQ: above 0.01 a precision problem, below 0.005 normal
    assert _threshold_rules(plans["training/rollout_probs_diff_mean"].build()) == [0.01, 0.005]
    # verl best practices: clip_ratio above 0.1, drawn in percent on the clipped-responses chart
    assert _threshold_rules(plans["response_clip_pct"].build()) == [10.0]
    # no rule on a chart verl gives no threshold for
    assert _threshold_rules(plans["actor/entropy"].build()) == []


def test_rollout_correction_grid_in_verls_order_with_its_bounds(tmp_path: Path) -> None:
    view = _crafted_view(
        tmp_path,
        {
            "rollout_corr/chi2_token": [0.2] * 12,
            "rollout_corr/kl": [-0.02, 0.04]
            * 6,  # both bounds within 4 spans of the data (charts draw no rule further)
            "rollout_corr/rollout_is_mean": [1.0] * 12,
            "rollout_corr/rollout_is_eff_sample_size": [0.8] * 12,
            "rollout_corr/ppl_ratio": [1.01] * 12,
        },
    )
    plans = detail.rollout_corr_charts(view, smoothing=Smoothing(), x="step", signals=[], lang="zh", max_points=2000)
    assert [plan.name for plan in plans] == [
        "rollout_corr/rollout_is_mean",
        "rollout_corr/rollout_is_eff_sample_size",
        "rollout_corr/kl",
        "rollout_corr/ppl_ratio",
        "rollout_corr/chi2_token",
    ]
    bounds = [_threshold_rules(plan.build()) for plan in plans]
    assert bounds == [[0.5, 2.0], [0.3], [0.1, -0.1], [], [1.0]]


def test_no_rollout_correction_grid_without_its_keys(tmp_path: Path) -> None:
    view = _crafted_view(tmp_path, {"actor/grad_norm": [0.2] * 12})
    assert detail.rollout_corr_charts(view, smoothing=Smoothing(), x="step", signals=[], lang="en", max_points=9) == []


def test_signals_table_names_the_rule_and_its_source(tmp_path: Path) -> None:
    view = _crafted_view(tmp_path, {"rollout_corr/rollout_is_std": [1.3] * 20, "actor/grad_norm": [0.2] * 20})
    signals = detect_signals(view.experiment, settings=load_settings([], {}))
    for lang in ("en", "zh"):
        frame = tables.signals_frame([view], signals, kinds={}, slugs={}, lang=lang)
        (rule,) = frame.get_column("rule").to_list()
        assert "docs/algo/rollout_corr.md" in rule and "rollout_corr/rollout_is_std ≤ 1" in rule


def test_metric_notes_under_the_charts_easy_to_misread(realdata_dir: Path, tmp_path: Path) -> None:
    # amd-mi300-deepseek7b-grpo logs the entropy under its old name: "step:1 - ... actor/entropy_loss:0.389 ..."
    name = "amd-mi300-deepseek7b-grpo-gsm8k-2025-03.log"
    folder = tmp_path / "root" / "amd"
    folder.mkdir(parents=True)
    shutil.copy(realdata_dir / name, folder / name)
    view = _view(tmp_path / "root")
    for lang, entropy_words, grad_words in (
        ("en", "the entropy itself, not a loss", "measured before clipping"),
        ("zh", "它就是熵，不是损失", "裁剪前的值"),
    ):
        plans = {plan.name: plan for plan in detail.detail_charts(view, smoothing=Smoothing(), x="step", signals=[],
                                                                  lang=lang, max_points=2000)}  # fmt: skip
        assert entropy_words in (plans["actor/entropy"].note or "")
        assert "dp_actor.py" in (plans["actor/entropy"].note or "")
        assert grad_words in (plans["actor/grad_norm"].note or "")
        # a run of 2025-03, before verl's V1 trainer: its clip ratio is right, no note (test_rule_charts.py has one)
        assert plans["response_clip_pct"].note is None
        assert plans["pass_rate"].note is None


def test_no_entropy_note_when_the_run_logs_actor_entropy(tmp_path: Path) -> None:
    view = _crafted_view(tmp_path, {"actor/entropy": [0.3] * 12, "actor/grad_norm": [0.2] * 12})
    plans = {plan.name: plan for plan in detail.detail_charts(view, smoothing=Smoothing(), x="step", signals=[],
                                                              lang="en", max_points=2000)}  # fmt: skip
    assert plans["actor/entropy"].note is None
    assert "measured before clipping" in (plans["actor/grad_norm"].note or "")


def test_overview_comparison_charts_carry_the_metric_notes(tmp_path: Path) -> None:
    view = _crafted_view(tmp_path, {"actor/grad_norm": [0.2] * 12, "critic/score/mean": [0.5] * 12})
    for lang, words in (("en", "measured before clipping"), ("zh", "裁剪前的值")):
        plans = overview.comparison_charts(
            ["actor/grad_norm", "critic/score/mean"], [view], smoothing=Smoothing(), x="step", log_scale=False,
            signals=[], highlight=[], lang=lang, max_points=2000,
        )  # fmt: skip
        notes = {plan.name: plan.note for plan in plans}
        assert words in (notes["actor/grad_norm"] or "")
        assert notes["critic/score/mean"] is None


def test_a_threshold_far_off_the_data_is_not_drawn(tmp_path: Path) -> None:
    # clipped responses near 0.4% (0.002-0.004): verl's 10% is 24 spans of 0.2% above them, past the 4 spans a rule
    # may lie from the data before the curve would fill less than a fifth of the plot; at 2-4% it is 3 spans above
    near = _crafted_view(tmp_path / "near", {"response_length/clip_ratio": [0.002, 0.003, 0.004]})
    plans = {plan.name: plan for plan in detail.detail_charts(near, smoothing=Smoothing(), x="step", signals=[],
                                                              lang="en", max_points=2000)}  # fmt: skip
    assert _threshold_rules(plans["response_clip_pct"].build()) == []
    close = _crafted_view(tmp_path / "close", {"response_length/clip_ratio": [0.02, 0.03, 0.04]})
    plans = {plan.name: plan for plan in detail.detail_charts(close, smoothing=Smoothing(), x="step", signals=[],
                                                              lang="en", max_points=2000)}  # fmt: skip
    assert _threshold_rules(plans["response_clip_pct"].build()) == [10.0]
