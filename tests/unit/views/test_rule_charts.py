"""rlmon's own rules on the experiment page's charts, each side of its threshold on a crafted log of tests/data: the
slower-steps limit on the step-time chart, the collapse signature's shaded steps on the grad-norm and score charts,
the note naming a verl threshold too far off to be drawn, and the clip-ratio note only on runs of verl's V1
trainer (verl issue #7817)."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rlmon.analysis.signals import detect_signals, step_time_limits
from rlmon.analysis.smoothing import Smoothing
from rlmon.logs.cache import LogCache
from rlmon.runs.loading import load_experiment
from rlmon.settings import load_settings
from rlmon.sources.discovery import discover_experiments
from rlmon.views import detail, model
from rlmon.views.charts import THRESHOLD_COLOR
from tests.helpers.paths import DATA

SETTINGS = load_settings([], {})


def _view(log: Path, tmp_path: Path) -> model.ExperimentView:
    folder = tmp_path / "root" / log.stem
    folder.mkdir(parents=True)
    shutil.copy(log, folder / log.name)
    (ref,) = discover_experiments([tmp_path / "root"]).experiments
    return model.view_of(ref, load_experiment(ref, LogCache(None), now=time.time(), settings=SETTINGS))


def _plans(view: model.ExperimentView, lang: str = "en", **kwargs: Any) -> dict[str, model.ChartPlan]:
    signals = detect_signals(view.experiment, settings=SETTINGS)
    plans = detail.detail_charts(view, smoothing=Smoothing(), x="step", signals=signals, lang=lang, max_points=2000,
                                 **kwargs)  # fmt: skip
    return {plan.name: plan for plan in plans}


def _layers(spec: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for layer in spec.get("layer", []):
        yield layer
        yield from _layers(layer)


def _rows(spec: dict[str, Any], layer: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows of a layer's named dataset (the specs of detail_charts carry Arrow bytes)."""
    import polars as pl

    value = spec["datasets"][layer["data"]["name"]]
    return pl.read_ipc_stream(value).to_dicts() if isinstance(value, bytes) else list(value)


def _limit(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows of the threshold-coloured dashed line (the slower-steps limit)."""
    found = [
        layer
        for layer in _layers(spec)
        if isinstance(layer.get("mark"), dict)
        and layer["mark"].get("type") == "line"
        and layer["mark"].get("color") == THRESHOLD_COLOR
    ]
    assert len(found) <= 1
    return _rows(spec, found[0]) if found else []


def _amber_texts(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """The text layers in the threshold colour (the tags of rlmon's rules)."""
    return [
        layer
        for layer in _layers(spec)
        if isinstance(layer.get("mark"), dict)
        and layer["mark"].get("type") == "text"
        and layer["mark"].get("color") == THRESHOLD_COLOR
    ]


def _spans(spec: dict[str, Any]) -> list[tuple[float, float, str]]:
    """The shaded spans with a tooltip (the strip over the lines) of a chart spec."""
    return [
        (row["_from"], row["_to"], row["_rule"])
        for layer in _layers(spec)
        if isinstance(layer.get("mark"), dict)
        and layer["mark"].get("type") == "rect"
        and layer["mark"].get("color") == THRESHOLD_COLOR
        and "tooltip" in layer.get("encoding", {})
        for row in _rows(spec, layer)
    ]


# step times (health_step_time_*.log): steps 1-12 8 s, 13-25 10 s. The limit at step k is 3 (step_time_factor) x
# the median of steps max(1, k-24) .. k-5 (the spike_window of 20 before the last 5), from step 10 on (5 steps):
# k=10..26 the base holds no more than 10 steps of 10 s among its 20 (k=26: steps 2-21, 11 x 8 s + 9 x 10 s):
# median 8, limit 24; k=27: steps 3-22, 10 x 8 + 10 x 10: median 9, limit 27; k=28..30: 10 of 10 s past the
# middle: median 10, limit 30
HAND_LIMITS = [(k, 24.0) for k in range(10, 27)] + [(27, 27.0), (28, 30.0), (29, 30.0), (30, 30.0)]


def test_step_time_limits_worked_by_hand() -> None:
    values = [8.0] * 12 + [10.0] * 13 + [35.0] * 5
    limits = step_time_limits(values, factor=3.0, window=20)
    assert limits[:9] == [None] * 9
    assert [(index + 1, limit) for index, limit in enumerate(limits) if limit is not None] == HAND_LIMITS


def test_slower_steps_limit_drawn_on_the_step_time_chart_each_side(tmp_path: Path) -> None:
    # the last 5 steps at 35 s: their median 35 >= the limit 30 at step 30 -> the signal; at 25 s: 25 < 30, none
    for name, fires in (("health_step_time_slower.log", True), ("health_step_time_steady.log", False)):
        view = _view(DATA / name, tmp_path / name)
        kinds = [signal.kind for signal in detect_signals(view.experiment, settings=SETTINGS)]
        assert ("step_time_regression" in kinds) is fires, (name, kinds)
        spec = _plans(view)["phases"].build()
        assert [(row["step"], row["value"]) for row in _limit(spec)] == HAND_LIMITS
        # the y scale reaches the last step's limit (30 s, what the signal compares with) on the steady run too,
        # whose steps reach 25 s
        (area,) = [layer for layer in _layers(spec) if isinstance(layer.get("mark"), dict)
                   and layer["mark"].get("type") == "area"]  # fmt: skip
        assert area["encoding"]["y"]["scale"]["domain"][1] >= 30.0
    # its tooltip says whose rule it is, in both languages
    view = _view(DATA / "health_step_time_slower.log", tmp_path / "zh")
    (row, *_) = _limit(_plans(view, lang="zh")["phases"].build())
    assert row["_rule"] == "rlmon：最近 5 步之前的步耗时中位数 × 3"
    spec = _plans(view)["phases"].build()
    (row, *_) = _limit(spec)
    assert row["_rule"] == "rlmon: 3× the median step time before the last 5 steps"
    # and a tag under the line from its first point (step 10), at the line's lowest over the 40% of steps 1-30 the
    # text runs across (steps 10-21.6: 24 s), so the dashed line says what it is without a hover
    (tag,) = _amber_texts(spec)
    assert _rows(spec, tag) == [{"step": 10.0, "value": 24.0, "_tag": "rlmon: slower at 3× median"}]
    assert (tag["mark"]["baseline"], tag["mark"]["dy"]) == ("top", 4)


def test_slower_steps_limit_follows_the_settings(tmp_path: Path) -> None:
    view = _view(DATA / "health_step_time_steady.log", tmp_path)
    settings = load_settings([], {"RLMON_STEP_TIME_FACTOR": "2"})
    rows = _limit(_plans(view, settings=settings)["phases"].build())
    # 2 x the medians above: 16 to step 26, 18 at 27, 20 after
    assert [(row["step"], row["value"]) for row in rows] == [(k, v / 3 * 2) for k, v in HAND_LIMITS]


def test_collapse_signature_shaded_on_the_grad_norm_and_score_charts_each_side(tmp_path: Path) -> None:
    # windows of 10 (drift_window): steps 11-20 against 21-30; grad_norm 0.2 -> 0.4 is 2x >= 1.5x and the score
    # falls 0.5 -> 0.3, all of its range (0.2) >= 10% of it: the signature, from step 21 to 30. With grad_norm
    # 0.2 -> 0.28 (1.4x < 1.5x) the score's fall alone is no signature.
    view = _view(DATA / "health_collapse.log", tmp_path / "yes")
    (signal,) = [s for s in detect_signals(view.experiment, settings=SETTINGS) if s.kind == "collapse_signature"]
    assert (signal.step, signal.step_end) == (21, 30)
    assert "verl publishes no number" in signal.rule["en"] and "docs/faq/faq.rst" in signal.rule["en"]
    assert "verl 没有给出它的数值" in signal.rule["zh"]
    plans = _plans(view)
    score_chart = "pass_rate" if "pass_rate" in plans else "critic/score/mean"
    label = "collapse signature from step 21 (rlmon's rule, not verl's)"
    assert _spans(plans["actor/grad_norm"].build()) == [(21.0, 30.0, label)]
    assert _spans(plans[score_chart].build()) == [(21.0, 30.0, label)]
    # the shade says what it is without a hover: a tag at the span's right edge
    (tag,) = _amber_texts(plans["actor/grad_norm"].build())
    assert tag["mark"]["text"] == "rlmon: collapse signature" and tag["encoding"]["x"]["field"] == "_to"
    # clear of the curve: grad_norm ends high (0.4, the top of its range), so the tag sits at the plot's bottom
    # (14 px above it on the page's plots of DETAIL_HEIGHT); the score ends low (0.3), so its tag sits under the strip
    grad_spec, score_spec = plans["actor/grad_norm"].build(), plans[score_chart].build()
    assert [row["_tag_y"] for row in _rows(grad_spec, tag)] == [detail.DETAIL_HEIGHT - 14]
    (score_tag,) = _amber_texts(score_spec)
    assert [row["_tag_y"] for row in _rows(score_spec, score_tag)] == [10.0]
    assert _spans(plans["phases"].build() if "phases" in plans else {}) == []
    zh = _plans(view, lang="zh")
    assert _spans(zh["actor/grad_norm"].build()) == [
        (21.0, 30.0, "自第 21 步起的崩溃征兆（rlmon 自己的规则，不是 verl 的）")
    ]
    view = _view(DATA / "health_no_collapse.log", tmp_path / "no")
    assert all(s.kind != "collapse_signature" for s in detect_signals(view.experiment, settings=SETTINGS))
    plans = _plans(view)
    assert _spans(plans["actor/grad_norm"].build()) == []
    assert _spans(plans[score_chart].build()) == []


def test_slower_steps_rule_says_it_is_rlmons(tmp_path: Path) -> None:
    view = _view(DATA / "health_step_time_slower.log", tmp_path)
    (signal,) = [s for s in detect_signals(view.experiment, settings=SETTINGS) if s.kind == "step_time_regression"]
    assert signal.rule["en"] == (
        "rlmon's rule, not verl's: verl publishes no number for slower steps (settings: step_time_factor, spike_window)"
    )
    assert (signal.values["recent"], signal.values["base"]) == (35.0, 10.0)


def _subtitle(spec: dict[str, Any]) -> list[str]:
    title = spec["title"]
    if isinstance(title, str):
        return []
    subtitle = title["subtitle"]
    return [subtitle] if isinstance(subtitle, str) else subtitle


def test_a_threshold_too_far_to_draw_is_named_under_the_title(tmp_path: Path) -> None:
    # clipped responses 0.2-0.4% (tests/unit/views/test_health_charts.py): verl's 10% is not drawn, but said
    root = tmp_path / "far" / "run"
    root.mkdir(parents=True)
    (root / "train.log").write_text(
        "".join(f"(TaskRunner pid=7) step:{step} - response_length/clip_ratio:{value}\n"
                for step, value in ((1, 0.002), (2, 0.003), (3, 0.004))),
        encoding="utf-8",
    )  # fmt: skip
    (ref,) = discover_experiments([tmp_path / "far"]).experiments
    view = model.view_of(ref, load_experiment(ref, LogCache(None), now=time.time(), settings=SETTINGS))
    spec = _plans(view)["response_clip_pct"].build()
    assert _subtitle(spec) == ["verl 10% (docs/perf/best_practices.rst):", "far above these values, not drawn"]
    spec = _plans(view, lang="zh")["response_clip_pct"].build()
    assert _subtitle(spec) == ["verl 10%（docs/perf/best_practices.rst）：", "远高于这些值，未画出"]


def test_a_threshold_drawn_is_not_named_again(tmp_path: Path) -> None:
    # 6.25% clipped: 10% is drawn (within 4 spans), no note about it
    view = _view(DATA / "health_clip_ratio_v0.log", tmp_path)
    spec = _plans(view)["response_clip_pct"].build()
    assert not any("far above" in line for line in _subtitle(spec))


def test_clip_ratio_note_only_on_runs_of_verls_v1_trainer(tmp_path: Path, realdata_dir: Path) -> None:
    v1 = _view(DATA / "health_clip_ratio_v1.log", tmp_path / "v1")
    for lang, words in (("en", "verl's V1 trainer (trainer.use_v1)"), ("zh", "verl V1 训练器（trainer.use_v1）")):
        note = _plans(v1, lang=lang)["response_clip_pct"].note or ""
        assert words in note and "#7817" in note
    v0 = _view(DATA / "health_clip_ratio_v0.log", tmp_path / "v0")
    assert _plans(v0)["response_clip_pct"].note is None
    # a log of 2025-06 (verl before the V1 trainer) that logs the clip ratio: no note
    real = _view(realdata_dir / "gpg-qwen2-7b-fsdp-gsm8k-math-2025-06.log", tmp_path / "gpg")
    assert _plans(real)["response_clip_pct"].note is None


def test_slower_steps_tag_stays_inside_a_short_runs_plot(tmp_path: Path) -> None:
    # 12 steps of 10 s: the limit starts at step 10 (3 x the median of steps 1-5: 30 s), right of the middle of
    # steps 1-12, so its tag ends at that point instead of starting there (it would run past the plot's right edge)
    log = tmp_path / "short.log"
    log.write_text(
        "".join(f"(TaskRunner pid=7) step:{step} - timing_s/gen:6.0 - timing_s/update_actor:4.0 - timing_s/step:10.0\n"
                for step in range(1, 13)),
        encoding="utf-8",
    )  # fmt: skip
    spec = _plans(_view(log, tmp_path))["phases"].build()
    assert [(row["step"], row["value"]) for row in _limit(spec)] == [(10, 30.0), (11, 30.0), (12, 30.0)]
    (tag,) = _amber_texts(spec)
    assert (tag["mark"]["align"], tag["mark"]["dx"]) == ("right", -2)
    # the 30-step logs' limit starts at step 10 of 1-30, left of the middle: the tag starts there
    spec = _plans(_view(DATA / "health_step_time_steady.log", tmp_path / "long"))["phases"].build()
    (tag,) = _amber_texts(spec)
    assert (tag["mark"]["align"], tag["mark"]["dx"]) == ("left", 2)
