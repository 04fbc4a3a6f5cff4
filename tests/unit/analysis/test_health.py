"""verl's own health rules (rlmon.analysis.health) and the signals built on them: each rule on a crafted log on each
side of its threshold, the rule's source in the signal, and the dashed rules the charts draw.

The crafted logs are verl console step lines (``step:N - key:value - ...``) written to a folder of a tmp root and
read as any log is (discovery, parse, load); their values are chosen so the last-window means are known by hand.
The thresholds are verl's: docs/perf/best_practices.rst (clip_ratio > 0.1), docs/faq/faq.rst
(rollout_probs_diff_mean > 0.01), docs/algo/rollout_corr.md (IS weight mean 0.5–2.0, ESS < 0.3, std > 1.0,
|kl| > 0.1, chi2_token > 1.0).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from pathlib import Path

import pytest

from rlmon.analysis.health import RULES, threshold_lines
from rlmon.analysis.signals import Signal, detect_signals
from rlmon.logs.cache import LogCache
from rlmon.runs.loading import load_experiment
from rlmon.settings import Settings
from rlmon.sources.discovery import discover_experiments

SETTINGS = Settings()
_COUNTER = itertools.count()


def _signals(tmp_path: Path, columns: dict[str, Sequence[float]]) -> list[Signal]:
    """The signals of a crafted log holding ``columns`` (one step line per index, steps 1..n)."""
    folder = tmp_path / f"run{next(_COUNTER)}"
    folder.mkdir()
    count = max(len(values) for values in columns.values())
    lines = [
        f"(TaskRunner pid=7) step:{index + 1} - "
        + " - ".join(f"{key}:{values[index]}" for key, values in columns.items())
        + "\n"
        for index in range(count)
    ]
    log = folder / "train.log"
    log.write_text("".join(lines), encoding="utf-8")
    os.utime(log, (1_700_000_000.0, 1_700_000_000.0))
    ref = next(item for item in discover_experiments([tmp_path]).experiments if item.path.name == folder.name)
    experiment = load_experiment(ref, LogCache(None), now=1_700_000_100.0, settings=SETTINGS)
    return detect_signals(experiment, settings=SETTINGS)


def _kinds(signals: list[Signal]) -> list[str]:
    return [signal.kind for signal in signals]


# ------------------------------------------------------------------- verl's performance best practices


def test_clip_ratio_above_verls_tenth_is_truncating_too_much(tmp_path: Path) -> None:
    # 30 steps at 0.12: the last 10 average 0.12 > 0.1
    signals = _signals(tmp_path, {"response_length/clip_ratio": [0.12] * 30})
    assert _kinds(signals) == ["length_cap"]
    assert signals[0].values["clip_ratio_end"] == pytest.approx(0.12)
    assert "12.0%" in signals[0].text("en")
    assert "docs/perf/best_practices.rst" in signals[0].rule["en"]
    assert "docs/perf/best_practices.rst" in signals[0].rule["zh"] and "规则" in signals[0].rule["zh"]
    assert "≤ 0.1" in signals[0].rule["en"]


@pytest.mark.parametrize("value", [0.1, 0.08])
def test_clip_ratio_at_or_below_a_tenth_is_quiet(tmp_path: Path, value: float) -> None:
    assert _signals(tmp_path, {"response_length/clip_ratio": [value] * 30}) == []


# ------------------------------------------------------------------------------------------ verl's FAQ


def test_probs_diff_above_a_hundredth_with_grad_norm_rising(tmp_path: Path) -> None:
    # last 10 of 0.012 > 0.01; grad_norm 0.2 over the first 10 steps, 0.4 over the last 10 (> 0.2 x 1.25)
    signals = _signals(
        tmp_path,
        {"training/rollout_probs_diff_mean": [0.012] * 30, "actor/grad_norm": [0.2] * 10 + [0.3] * 10 + [0.4] * 10},
    )
    assert _kinds(signals) == ["probs_diff_high"]
    signal = signals[0]
    assert signal.values["end"] == pytest.approx(0.012)
    assert signal.values["grad_rising"] == 1.0
    assert "0.012" in signal.text("en") and "grad_norm rises with it (0.200→0.400)" in signal.text("en")
    assert "常见问题文档所说的症状" in signal.text("zh")
    assert "docs/faq/faq.rst" in signal.rule["en"] and "≤ 0.01" in signal.rule["en"]


def test_probs_diff_high_with_grad_norm_steady_says_so(tmp_path: Path) -> None:
    signals = _signals(tmp_path, {"training/rollout_probs_diff_mean": [0.02] * 30, "actor/grad_norm": [0.2] * 30})
    assert _kinds(signals) == ["probs_diff_high"]
    assert "grad_norm does not rise (0.200→0.200)" in signals[0].text("en")


@pytest.mark.parametrize("value", [0.009, 0.004])
def test_probs_diff_at_or_below_a_hundredth_is_quiet(tmp_path: Path, value: float) -> None:
    assert _signals(tmp_path, {"training/rollout_probs_diff_mean": [value] * 30}) == []


# --------------------------------------------------------------------------- verl's rollout-correction doc


@pytest.mark.parametrize(
    ("key", "bad", "good"),
    [
        ("rollout_corr/rollout_is_mean", 0.45, 0.55),
        ("rollout_corr/rollout_is_mean", 2.1, 1.9),
        ("rollout_corr/rollout_is_eff_sample_size", 0.28, 0.32),
        ("rollout_corr/rollout_is_std", 1.1, 0.9),
        ("rollout_corr/kl", -0.12, 0.08),
        ("rollout_corr/kl", 0.12, -0.08),
        ("rollout_corr/chi2_token", 1.2, 0.8),
    ],
)
def test_rollout_correction_rules_on_each_side(tmp_path: Path, key: str, bad: float, good: float) -> None:
    signals = _signals(tmp_path, {key: [bad] * 30})
    assert _kinds(signals) == ["rollout_corr"]
    assert signals[0].metric == key and signals[0].values["end"] == pytest.approx(bad)
    assert f"{bad:.3f}" in signals[0].text("en") and key in signals[0].text("zh")
    assert "docs/algo/rollout_corr.md" in signals[0].rule["en"]
    assert _signals(tmp_path, {key: [good] * 30}) == []


# --------------------------------------------------------------------------------- throughput, collapse


def test_step_time_several_times_its_recent_median(tmp_path: Path) -> None:
    # 25 steps of 60 s then 5 of 190 s: median 190 over the last 5, 60 over the 20 before: 3.17x >= 3
    signals = _signals(tmp_path, {"timing_s/step": [60.0] * 25 + [190.0] * 5})
    assert _kinds(signals) == ["step_time_regression"]
    assert signals[0].values["ratio"] == pytest.approx(190.0 / 60.0)
    assert (signals[0].step, signals[0].step_end) == (26, 30)
    assert "190s per step over the last 5 steps, 3.17× the median 60s of the 20 steps before" in signals[0].text("en")
    assert "step_time_factor" in signals[0].rule["en"]


@pytest.mark.parametrize(
    "times",
    [
        [60.0] * 25 + [170.0] * 5,  # 2.83x: below the factor 3
        [60.0] * 25 + [60.0, 60.0, 400.0, 60.0, 60.0],  # one validation step: the median of the last 5 is 60
    ],
)
def test_step_time_quiet_below_the_factor_and_on_one_slow_step(tmp_path: Path, times: list[float]) -> None:
    assert _signals(tmp_path, {"timing_s/step": times}) == []


def test_collapse_signature_grad_norm_rising_while_score_falls(tmp_path: Path) -> None:
    # window 10 (drift_window, at most half of 40 steps). grad_norm 0.2 over steps 21-30, 0.32 over 31-40:
    # 1.6x >= 1.5. Score 0.2 (steps 1-10), 0.6 (11-30), 0.5 (31-40): range 0.4, fell 0.6 -> 0.5 = 0.1 >= 0.04.
    grad = [0.2] * 30 + [0.32] * 10
    score = [0.2] * 10 + [0.6] * 20 + [0.5] * 10
    signals = _signals(tmp_path, {"actor/grad_norm": grad, "critic/score/mean": score})
    assert _kinds(signals) == ["collapse_signature"]
    assert signals[0].values == pytest.approx(
        {"grad_before": 0.2, "grad_after": 0.32, "score_before": 0.6, "score_after": 0.5}
    )
    assert "grad_norm rises (0.200→0.320) while the score falls (0.600→0.500)" in signals[0].text("en")
    assert "崩溃的征兆" in signals[0].text("zh")


@pytest.mark.parametrize(
    ("grad_after", "score_after"),
    [
        (0.28, 0.5),  # grad_norm 1.4x: below 1.5
        (0.32, 0.59),  # score fell 0.01 of a 0.4 range: below a tenth
        (0.32, 0.7),  # score rose
    ],
)
def test_collapse_signature_quiet(tmp_path: Path, grad_after: float, score_after: float) -> None:
    grad = [0.2] * 30 + [grad_after] * 10
    score = [0.2] * 10 + [0.6] * 20 + [score_after] * 10
    assert _signals(tmp_path, {"actor/grad_norm": grad, "critic/score/mean": score}) == []


# ------------------------------------------------------------------------------------- reference lines


def test_threshold_lines_in_each_charts_units() -> None:
    # the clipped-responses chart draws the clip ratio in percent
    assert [value for value, _ in threshold_lines("response_clip_pct", "en")] == [10.0]
    assert "docs/perf/best_practices.rst" in threshold_lines("response_clip_pct", "en")[0][1]
    probs = threshold_lines("training/rollout_probs_diff_mean", "zh")
    assert [value for value, _ in probs] == [0.01, 0.005]
    assert "正常" in probs[1][1]
    assert [value for value, _ in threshold_lines("rollout_corr/rollout_is_mean", "en")] == [0.5, 2.0]
    assert [value for value, _ in threshold_lines("rollout_corr/kl", "en")] == [0.1, -0.1]
    assert threshold_lines("actor/entropy", "en") == ()
    assert {rule.source for rule in RULES} == {
        "docs/perf/best_practices.rst",
        "docs/faq/faq.rst",
        "docs/algo/rollout_corr.md",
    }


def test_the_step_time_limit_of_one_step_is_that_of_the_limits_of_every_step() -> None:
    from rlmon.analysis.signals import RECENT_STEPS, step_time_limit, step_time_limits

    times = [60.0, 61.0, 59.0, 300.0, 62.0, 58.0, 60.5, 63.0, 190.0, 190.0, 191.0, 57.0, 60.0, 64.0]
    limits = step_time_limits(times, factor=3.0, window=6)
    assert [step_time_limit(times, factor=3.0, window=6, end=end) for end in range(1, len(times) + 1)] == limits
    assert step_time_limit(times, factor=3.0, window=6) == limits[-1]
    # by hand: the last step (14th) looks at the 6 step times before the last 5, steps 4-9 (300, 62, 58, 60.5,
    # 63, 190): median 62.5; the first with a limit is the 10th (5 times before the last 5: 60, 61, 59, 300, 62)
    assert limits[-1] == 3.0 * 62.5
    assert limits[: 2 * RECENT_STEPS - 1] == [None] * 9 and limits[9] == 3.0 * 61.0
