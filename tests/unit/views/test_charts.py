"""Chart builders, checked through their Vega-Lite JSON (``chart.to_dict()``), never pixels."""

from __future__ import annotations

import io
import json
import math
import subprocess
import sys
import urllib.parse
from collections.abc import Callable
from typing import Any

import polars as pl
import pytest

from rlmon.analysis.smoothing import Smoothing
from rlmon.errors import SettingError
from rlmon.schema import LONG_SCHEMA
from rlmon.views.charts import (
    DEFAULT_PALETTE,
    PLOT_HEIGHT,
    SCHEMA_URL,
    ChartOptions,
    bar_chart,
    bar_chart_spec,
    metric_chart,
    metric_chart_spec,
    sparkline_values,
    stacked_area_chart,
    stacked_area_chart_spec,
    validation_chart,
    validation_chart_spec,
    with_highlight_test,
    with_renderer,
)
from tests.helpers.paths import REPO_ROOT

COLORS = {"e1": "#1f77b4", "e2": "#ff7f0e", "e3": "#2ca02c"}
LABELS = {"e1": "E1 · GRPO", "e2": "E2 · DAPO", "e3": "E3 · Dr.GRPO"}


def long_frame(
    series: dict[str, list[float | None]], *, metric: str = "m", start: int = 1, hours_per_step: float = 0.25
) -> pl.DataFrame:
    rows = [
        (experiment, start + i, (start + i) * hours_per_step, metric, value)
        for experiment, values in series.items()
        for i, value in enumerate(values)
    ]
    return pl.DataFrame(rows, schema=LONG_SCHEMA, orient="row")


def spec_of(chart: Any) -> dict[str, Any]:
    spec = chart.to_dict()
    # Strict JSON: a NaN or inf anywhere would break the browser side.
    json.dumps(spec, allow_nan=False)
    return spec


def rows_of(spec: dict[str, Any], view: dict[str, Any]) -> list[dict[str, Any]]:
    data = view.get("data") or spec["data"]
    if "values" in data:
        return list(data["values"])
    return list(spec["datasets"][data["name"]])


def main_rows(spec: dict[str, Any]) -> list[dict[str, Any]]:
    return rows_of(spec, spec)


def smoothed_rows(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """Rows of the smoothed line (its own dataset, so that a smoothing change replaces only it)."""
    (line,) = [layer for layer in layers_with_mark(spec, "line") if layer["encoding"]["y"]["field"] == "smoothed"]
    return rows_of(spec, line)


def shown_texts(row: dict[str, Any], column: int = 0) -> dict[int, str]:
    """A hover row's texts as the tooltip shows them: series index -> decoded text of value column ``column``."""
    return {row[f"o{k}"]: urllib.parse.unquote(row[f"t{column}_{k}"]) for k in range(row["_n"])}


def layers_with_mark(spec: dict[str, Any], mark: str) -> list[dict[str, Any]]:
    return [layer for layer in spec["layer"] if layer["mark"]["type"] == mark]


def hover_rule(spec: dict[str, Any]) -> dict[str, Any]:
    (rule,) = [
        layer for layer in layers_with_mark(spec, "rule") if "tooltip" in layer["encoding"] and "x" in layer["encoding"]
    ]
    return rule


def tooltip_expression(rule: dict[str, Any]) -> str:
    """The Vega expression behind a hover rule's tooltip (see rlmon.views.tooltip)."""
    assert rule["encoding"]["tooltip"] == {"field": "_tooltip", "type": "nominal"}
    (expression,) = [step["calculate"] for step in rule["transform"] if step["as"] == "_tooltip"]
    return str(expression)


def simple_chart(long: pl.DataFrame, **kwargs: Any) -> dict[str, Any]:
    options: dict[str, Any] = {"title": "T", "y_title": "Y", "colors": COLORS, "labels": LABELS}
    options.update(kwargs)
    markers = options.pop("markers", None)
    return spec_of(metric_chart(long, ChartOptions(**options), markers=markers))


# --- metric_chart ------------------------------------------------------------------------------------


def test_reference_rule_is_dashed_at_the_cap() -> None:
    spec = simple_chart(long_frame({"e1": [5100.0, 6000.0]}), reference=16384, reference_label="16K cap")
    dashed = [layer for layer in layers_with_mark(spec, "rule") if layer["mark"].get("strokeDash")]
    assert len(dashed) == 1
    assert dashed[0]["encoding"]["y"] == {"datum": 16384}
    labels = [layer for layer in layers_with_mark(spec, "text") if layer["encoding"]["y"] == {"datum": 16384}]
    assert rows_of(spec, labels[0])[0]["text"] == "16K cap"


def test_no_reference_no_dashed_rule() -> None:
    spec = simple_chart(long_frame({"e1": [1.0, 2.0]}))
    assert not [layer for layer in layers_with_mark(spec, "rule") if layer["mark"].get("strokeDash")]


def test_smoothing_on_fades_the_raw_line_under_the_smoothed_one() -> None:
    spec = simple_chart(long_frame({"e1": [1.0, 2.0, 3.0]}), smoothing=Smoothing("ema", weight=0.5))
    lines = layers_with_mark(spec, "line")
    assert [line["encoding"]["y"]["field"] for line in lines] == ["value", "smoothed"]
    assert lines[0]["mark"]["strokeOpacity"] < 1
    assert lines[1]["mark"].get("strokeOpacity", 1.0) == 1.0
    # nothing highlighted: every line in full, with no per-point test
    for line in lines:
        assert line["encoding"]["opacity"] == {"value": 1.0}


def test_smoothing_off_draws_only_the_raw_line_opaque() -> None:
    spec = simple_chart(long_frame({"e1": [1.0, 2.0, 3.0]}))
    lines = layers_with_mark(spec, "line")
    assert len(lines) == 1
    assert lines[0]["encoding"]["y"]["field"] == "value"
    assert lines[0]["mark"]["strokeOpacity"] == 1.0
    assert lines[0]["encoding"]["opacity"] == {"value": 1.0}


def test_smoothing_changes_the_plotted_values() -> None:
    long = long_frame({"e1": [1.0, 2.0, 3.0]})
    plain = main_rows(simple_chart(long))
    smoothed = main_rows(simple_chart(long, smoothing=Smoothing("ema", weight=0.5)))
    # EMA w = 0.5 by hand: 1, 1.25 / 0.75, 2.125 / 0.875
    assert [row["value"] for row in plain] == [1.0, 2.0, 3.0]
    assert [row["smoothed"] for row in smoothed_rows(simple_chart(long, smoothing=Smoothing("ema", weight=0.5)))] == (
        pytest.approx([1.0, 5 / 3, 17 / 7])
    )
    assert [row["value"] for row in smoothed] == [1.0, 2.0, 3.0]
    averaged = smoothed_rows(simple_chart(long, smoothing=Smoothing("moving_average", window=2)))
    assert [row["smoothed"] for row in averaged] == [1.0, 1.5, 2.5]


def test_a_page_that_rewrites_the_rows_gets_the_dimming_test_back() -> None:
    spec = simple_chart(long_frame({"e1": [1.0, 2.0], "e2": [2.0, 1.0]}), smoothing=Smoothing("ema"))
    lines = layers_with_mark(with_highlight_test(spec), "line")
    assert [layer["encoding"]["opacity"] for layer in lines] == [
        {"condition": [{"test": "datum.hl", "value": 1.0}], "value": 0.15}
    ] * 2
    # the spec itself is left as it was
    assert [layer["encoding"]["opacity"] for layer in layers_with_mark(spec, "line")] == [{"value": 1.0}] * 2


def test_highlighted_runs_are_drawn_in_full_and_the_others_dimmed() -> None:
    long = long_frame({"e1": [1.0, 2.0], "e2": [2.0, 1.0]})
    spec = simple_chart(long, smoothing=Smoothing("ema"), highlight=["e2"])
    assert {row["experiment"]: row["hl"] for row in main_rows(spec)} == {"e1": False, "e2": True}
    lines = layers_with_mark(spec, "line")
    assert len(lines) == 2  # raw and smoothed
    for layer in lines:
        assert layer["encoding"]["opacity"] == {"condition": [{"test": "datum.hl", "value": 1.0}], "value": 0.15}
    # nothing highlighted (or only runs that are not drawn): every line in full
    assert all(row["hl"] for row in main_rows(simple_chart(long, highlight=["e7"])))
    # no legend inside the chart: the page's legend maps colours to runs
    assert all(layer["encoding"]["color"].get("legend") is None for layer in lines)
    assert not [param for param in spec["params"] if param.get("bind") == "legend"]


def test_plot_height_is_the_data_rectangle_and_the_chart_grows_around_it() -> None:
    spec = simple_chart(long_frame({"e1": [1.0, 2.0]}), height=230)
    assert spec["height"] == 230
    assert spec["autosize"] == {"type": "fit-x", "contains": "padding"}


def renderer_of(spec: dict[str, Any]) -> str:
    return str(spec["usermeta"]["embedOptions"]["renderer"])


def test_line_and_area_charts_draw_on_a_canvas_bars_and_empty_charts_as_svg() -> None:
    long = long_frame({"e1": [1.0, 2.0, 3.0], "e2": [2.0, 1.0, 0.5]})
    assert (
        renderer_of(metric_chart_spec(long, ChartOptions(title="t", y_title="y", colors=COLORS, labels=LABELS)))
        == "canvas"
    )
    assert (
        renderer_of(validation_chart_spec(long, ChartOptions(title="t", y_title="y", colors=COLORS, labels=LABELS)))
        == "canvas"
    )
    phases = pl.concat([long_frame({"e1": [1.0, 2.0]}, metric="timing_s/gen"),
                        long_frame({"e1": [0.5, 0.5]}, metric="timing_s/update_actor")])  # fmt: skip
    assert renderer_of(stacked_area_chart_spec(phases, ChartOptions(title="t", y_title="s"))) == "canvas"
    bars = pl.DataFrame({"experiment": ["e1", "e2"], "value": [3.0, 4.0]})
    assert (
        renderer_of(bar_chart_spec(bars, ChartOptions(title="t", y_title="h", colors=COLORS, labels=LABELS))) == "svg"
    )
    empty = long_frame({"e1": [None, None]})
    assert (
        renderer_of(metric_chart_spec(empty, ChartOptions(title="t", y_title="y", colors=COLORS, labels=LABELS)))
        == "svg"
    )


@pytest.mark.parametrize("renderer", ["svg", "canvas"])
def test_a_renderer_setting_other_than_auto_draws_every_chart_with_it(renderer: str) -> None:
    line = metric_chart_spec(
        long_frame({"e1": [1.0, 2.0]}), ChartOptions(title="t", y_title="y", colors=COLORS, labels=LABELS)
    )
    bars = bar_chart_spec(
        pl.DataFrame({"experiment": ["e1"], "value": [3.0]}),
        ChartOptions(title="t", y_title="h", colors=COLORS, labels=LABELS),
    )
    for spec in (line, bars):
        before = renderer_of(spec)
        assert renderer_of(with_renderer(spec, renderer)) == renderer
        assert renderer_of(with_renderer(spec, "auto")) == before
        assert renderer_of(spec) == before  # the spec given is not changed


def test_an_unknown_renderer_is_a_setting_error() -> None:
    line = metric_chart_spec(
        long_frame({"e1": [1.0, 2.0]}), ChartOptions(title="t", y_title="y", colors=COLORS, labels=LABELS)
    )
    with pytest.raises(SettingError, match="webgl"):
        with_renderer(line, "webgl")


def test_series_legend_sits_below_the_plot_and_never_cuts_a_label() -> None:
    spec = simple_chart(long_frame({"e1": [1.0, 2.0], "e2": [2.0, 1.0]}), legend=True)
    legend = layers_with_mark(spec, "line")[0]["encoding"]["color"]["legend"]
    assert legend["orient"] == "bottom"
    assert legend["labelLimit"] == 0
    assert legend["columns"] == 3  # "E3 · Dr.GRPO" is 12 characters: three columns fit a phone-width chart


def test_axes_carry_4_to_7_round_ticks_and_token_counts_in_si() -> None:
    # tokens from 5,100 to 9,700 over steps 1-150
    values: list[float | None] = [5100.0 + (9700.0 - 5100.0) * i / 149 for i in range(150)]
    spec = simple_chart(long_frame({"e1": values}), axis_format="~s")
    line = layers_with_mark(spec, "line")[0]
    y = line["encoding"]["y"]
    # steps of 1,000 give 6 ticks, the domain grows from 5,100-9,700 to the outer ones
    assert y["axis"] == {"format": ".1~s", "values": [5000.0, 6000.0, 7000.0, 8000.0, 9000.0, 10000.0], "tickCount": 6}
    assert y["scale"]["domain"] == [5000.0, 10000.0]
    x = line["encoding"]["x"]
    # the step axis keeps the data's extent; steps of 25 give 6 ticks inside it (20 would give 7, 50 only 3)
    # SI suffixes with the precision the values need: 125 takes 3 digits (Vega's own would pick fewer)
    assert x["axis"] == {"format": ".3~s", "values": [25.0, 50.0, 75.0, 100.0, 125.0, 150.0], "tickCount": 6}
    assert x["scale"]["domain"] == [1.0, 150.0]


def test_a_percent_axis_writes_its_ticks_whole() -> None:
    # pass rate 81 %-89 %: steps of 2 % (0.8-0.9, 6 ticks); Vega's own tickCount hint gave "80, 90"
    spec = simple_chart(long_frame({"e1": [0.81, 0.85, 0.89]}), percent=True)
    axis = layers_with_mark(spec, "line")[0]["encoding"]["y"]["axis"]
    assert axis == {"format": ".0%", "values": [0.8, 0.82, 0.84, 0.86, 0.88, 0.9], "tickCount": 6}
    # three steps: no whole step gives 4 ticks inside 1-3, so Vega places them (at whole steps)
    x_axis = layers_with_mark(spec, "line")[0]["encoding"]["x"]["axis"]
    assert (x_axis["tickCount"], x_axis["tickMinStep"]) == (6, 1)


def test_a_note_is_a_subtitle() -> None:
    spec = simple_chart(long_frame({"e1": [1.0, 2.0]}), note="logged with 3 decimals")
    assert spec["title"]["text"] == "T"
    assert spec["title"]["subtitle"] == "logged with 3 decimals"


def test_colours_follow_the_given_order_and_are_stable() -> None:
    # e3 first in the data, but the scale follows the colour mapping's order; e9 has no colour or label.
    long = long_frame({"e3": [1.0], "e9": [2.0], "e1": [3.0]})
    spec = simple_chart(long)
    scale = spec["layer"][0]["encoding"]["color"]["scale"]
    assert scale["domain"] == ["E1 · GRPO", "E3 · Dr.GRPO", "e9"]
    assert scale["range"] == ["#1f77b4", "#2ca02c", DEFAULT_PALETTE[0]]
    # the same experiment keeps its colour when another is added or removed
    alone = simple_chart(long_frame({"e3": [1.0]}))["layer"][0]["encoding"]["color"]["scale"]
    assert alone == {"domain": ["E3 · Dr.GRPO"], "range": ["#2ca02c"]}


def test_repeated_labels_are_told_apart() -> None:
    spec = simple_chart(long_frame({"e1": [1.0], "e2": [2.0]}), labels={"e1": "GRPO", "e2": "GRPO"})
    assert spec["layer"][0]["encoding"]["color"]["scale"]["domain"] == ["GRPO (e1)", "GRPO (e2)"]


def test_hover_tooltip_lists_every_experiment_at_each_step() -> None:
    # Runs of different lengths share the axis: e2 stops at step 2, so it has no value at step 3.
    long = long_frame({"e1": [1.0, 2.0, 3.0], "e2": [10.0, 20.0], "e3": [7.0, 8.0, 9.0]})
    spec = simple_chart(long)
    rule = hover_rule(spec)
    assert "datum.o2 + " in tooltip_expression(rule) and "datum.t0_2" in tooltip_expression(rule)
    rows = {row["step"]: row for row in rows_of(spec, rule)}
    assert shown_texts(rows[2]) == {0: "2", 1: "20", 2: "8"}
    assert shown_texts(rows[3]) == {0: "3", 2: "9"}
    # highest first; e2 has no point at step 3 and is left out
    assert [rows[3][f"o{k}"] for k in range(3)] == [2, 0, None] and rows[3]["_n"] == 2
    (hover,) = [param for param in spec["params"] if param["name"] == "hover"]
    assert hover["select"]["nearest"] is True
    assert hover["select"]["fields"] == ["step"]
    assert hover["views"] == [rule["name"]]


def test_hover_tooltip_shows_smoothed_and_raw_when_smoothing() -> None:
    long = long_frame({"e1": [1.0, 2.0, 3.0], "e2": [4.0, 4.0, 4.0]})
    spec = simple_chart(long, smoothing=Smoothing("ema", weight=0.5), raw_suffix=" · raw")
    rule = hover_rule(spec)
    expression = tooltip_expression(rule)
    assert "datum.t0_0" in expression and "datum.t1_0" in expression  # smoothed, then raw
    assert "%C2%B7%20raw" in expression  # the raw column's title, percent-encoded
    step3 = next(row for row in rows_of(spec, rule) if row["step"] == 3)
    # 17/7 = 2.428571... to 4 significant digits
    assert shown_texts(step3, 0) == {0: "2.429", 1: "4"} and shown_texts(step3, 1) == {0: "3", 1: "4"}
    assert (step3["o0"], step3["o1"]) == (1, 0)  # sorted by the smoothed value: 4.0 > 17/7


def test_hover_on_hours_uses_the_nearest_point_of_each_run() -> None:
    e1 = long_frame({"e1": [1.0, 2.0, 3.0]}, hours_per_step=1.0)  # hours 1, 2, 3
    e2 = long_frame({"e2": [10.0, 20.0, 30.0]}, hours_per_step=1.1)  # hours 1.1, 2.2, 3.3
    spec = simple_chart(pl.concat([e1, e2]), x="hours", x_title="elapsed h")
    rule = hover_rule(spec)
    assert rule["encoding"]["x"]["field"] == "hours"
    rows = {row["hours"]: row for row in rows_of(spec, rule)}
    assert rows[2.2]["_head"] == "elapsed h 2.2 · step 2"
    # at 2.2 h, e1's nearest point is 2 h (value 2); at 1 h, e2 has not started (its first point is 1.1 h)
    assert shown_texts(rows[2.2]) == {0: "2", 1: "20"}
    assert shown_texts(rows[1.0]) == {0: "1"}
    assert spec["layer"][0]["encoding"]["x"]["field"] == "hours"


def test_hover_on_hours_shows_the_later_step_where_hours_stood_still() -> None:
    # steps 1 and 2 share 1.0 h (the clock did not advance): the tooltip at 1.0 h shows step 2's value
    long = pl.DataFrame(
        [("e1", 1, 1.0, "m", 1.0), ("e1", 2, 1.0, "m", 5.0), ("e1", 3, 2.0, "m", 3.0), ("e2", 1, 1.5, "m", 7.0)],
        schema=LONG_SCHEMA,
        orient="row",
    )
    spec = simple_chart(long, x="hours")
    rows = {row["hours"]: row for row in rows_of(spec, hover_rule(spec))}
    assert shown_texts(rows[1.0]) == {0: "5"}
    assert shown_texts(rows[1.5])[1] == "7"
    assert shown_texts(rows[2.0]) == {0: "3"}


def test_hours_axis_leaves_out_steps_with_unknown_hours() -> None:
    long = long_frame({"e1": [1.0, 2.0, 3.0]}).with_columns(
        pl.when(pl.col("step") == 1).then(None).otherwise(pl.col("hours")).alias("hours")
    )
    spec = simple_chart(long, x="hours")
    assert [row["step"] for row in main_rows(spec)] == [2, 3]


def test_downsampling_bound_respected_beyond_altair_row_limit() -> None:
    n = 12_000
    values = [0.2 + (i % 9) * 0.01 for i in range(n)]
    values[7_000] = 1.13  # the spike
    long = long_frame({"e1": values, "e2": values[: n // 2], "e3": values[:100]})
    spec = simple_chart(long, max_points=600, smoothing=Smoothing("ema", weight=0.6))
    rows = main_rows(spec)
    per_run: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        per_run.setdefault(row["experiment"], []).append(row)
    assert len(per_run["e1"]) <= 600
    assert len(per_run["e2"]) <= 600
    assert len(per_run["e3"]) == 100
    assert 1.13 in [row["value"] for row in per_run["e1"]]
    assert per_run["e1"][-1]["step"] == n
    assert per_run["e2"][-1]["step"] == n // 2
    assert len(rows_of(spec, hover_rule(spec))) <= 600


def test_hover_positions_are_about_one_per_pixel_and_keep_the_last_step() -> None:
    # 5,000 steps drawn with 2,000 points per line: the hover rule (one tooltip per position, joined in the
    # browser on every redraw) needs no more than one position per 2-4 pixels of a chart: 320.
    n = 5_000
    long = long_frame({"e1": [float(i % 17) for i in range(n)], "e2": [float(i % 5) for i in range(n)]})
    spec = simple_chart(long, max_points=2_000, smoothing=Smoothing("ema", weight=0.6))
    steps = [row["step"] for row in rows_of(spec, hover_rule(spec))]
    assert 310 <= len(steps) <= 320
    assert steps[0] == 1 and steps[-1] == n
    assert len(main_rows(spec)) > 2 * 320  # the lines keep their own points
    # a short run keeps a position per step
    short = simple_chart(long_frame({"e1": [1.0, 2.0, 3.0]}))
    assert [row["step"] for row in rows_of(short, hover_rule(short))] == [1, 2, 3]


def test_a_lone_smoothed_line_has_at_most_600_points_and_keeps_the_last_step() -> None:
    # one run of 2,000 steps: the raw line keeps the lowest and the highest of the 2-3 steps in each of the plot's
    # 800 pixel columns (consecutive values i % 17 always differ, and the first and last steps are their columns'
    # lowest and highest): 1,600 points, not the 2,000 of max_points; the smoothed line over it about
    # one per pixel of a wide plot; with 10 runs each smoothed line has 1,200 / 10 = 120 slices, with 20 runs
    # 1,200 / 20 = 60
    n = 2_000
    one = simple_chart(long_frame({"e1": [float(i % 17) for i in range(n)]}), smoothing=Smoothing("ema", weight=0.6))
    smoothed = smoothed_rows(one)
    # steps 1-2,000 in 600 equal slices: the last step of each, the last step itself (it sits on the last edge,
    # which opens a slice of its own) and the first step: 602
    assert len(smoothed) == 602
    assert smoothed[-1]["step"] == n
    assert len(main_rows(one)) == 2 * 800
    many = simple_chart(
        long_frame({f"e{k}": [float(i % 17) for i in range(n)] for k in range(20)}),
        smoothing=Smoothing("ema", weight=0.6),
    )
    assert len(smoothed_rows(many)) == 20 * 62  # 60 slices, plus the first and the last step
    ten = simple_chart(
        long_frame({f"e{k}": [float(i % 17) for i in range(n)] for k in range(10)}),
        smoothing=Smoothing("ema", weight=0.6),
    )
    assert len(smoothed_rows(ten)) == 10 * 122  # 120 slices


def test_more_than_5000_chart_rows_serialise() -> None:
    # Altair's default transformer refuses more than 5,000 rows; ten runs of 600 points are 6,000.
    long = long_frame({f"r{i}": [float(step % 13) for step in range(600)] for i in range(10)})
    spec = simple_chart(long)
    assert len(main_rows(spec)) == 6_000


def test_smoothing_is_computed_before_downsampling() -> None:
    # Alternating 0/1 for 10,000 steps: the EMA (w = 0.9) of every point settles near 0.5; an EMA over
    # the kept min/max/last points only would not match the full-series value at the last step.
    n = 10_000
    long = long_frame({"e1": [float(i % 2) for i in range(n)]})
    rows = smoothed_rows(simple_chart(long, smoothing=Smoothing("ema", weight=0.9), max_points=100))
    last = rows[-1]
    assert last["step"] == n
    # Closed form for the last (odd-index, value 1) point of the alternating series: 1 / (1 + w) = 0.5263...
    assert last["smoothed"] == pytest.approx(1 / 1.9, rel=1e-6)


def test_log_scale() -> None:
    long = long_frame({"e1": [0.5, 0.0, -1.0, 2.0]})
    spec = simple_chart(long, log_scale=True)
    assert spec["layer"][0]["encoding"]["y"]["scale"]["type"] == "log"
    # zero and negative values cannot sit on a log axis: left out rather than breaking the chart
    assert [row["value"] for row in main_rows(spec)] == [0.5, 2.0]


def test_linear_scale_by_default() -> None:
    spec = simple_chart(long_frame({"e1": [1.0, 2.0]}))
    assert spec["layer"][0]["encoding"]["y"]["scale"].get("type") is None


def test_percent_axis_and_tooltip_format() -> None:
    spec = simple_chart(long_frame({"e1": [0.8, 0.9]}), percent=True)
    assert spec["layer"][0]["encoding"]["y"]["axis"]["format"] == ".0%"
    rule = hover_rule(spec)
    assert shown_texts(rows_of(spec, rule)[0]) == {0: "80.0%"}


def test_non_finite_values_never_reach_the_spec() -> None:
    long = long_frame({"e1": [1.0, math.nan, math.inf, 4.0, None]})
    spec = simple_chart(long, smoothing=Smoothing("moving_average", window=2))
    assert [(row["step"], row["value"]) for row in main_rows(spec)] == [(1, 1.0), (4, 4.0)]
    assert [(row["step"], row["smoothed"]) for row in smoothed_rows(spec)] == [(1, 1.0), (4, 2.5)]


def test_markers_are_triangles_with_a_plain_text_tooltip() -> None:
    markers = pl.DataFrame(
        {
            "experiment": ["e2", "e2", "e7"],
            "step": [2, 3, 1],
            "value": [20.0, 30.0, 1.0],
            "text": ["grad_norm spike <b>0.96</b>", "second", "not charted"],
        }
    )
    long = long_frame({"e1": [1.0, 2.0, 3.0], "e2": [10.0, 20.0, 30.0]})
    spec = simple_chart(long, markers=markers, marker_title="signal", x="hours")
    (layer,) = [lay for lay in layers_with_mark(spec, "point") if lay["mark"].get("shape", "").startswith("triangle")]
    rows = rows_of(spec, layer)
    # the markup is data shown as text by the tooltip, never turned into markup by rlmon
    assert [(row["label"], row["hours"], row["text"]) for row in rows] == [
        ("E2 · DAPO", 0.5, "grad_norm spike <b>0.96</b>"),
        ("E2 · DAPO", 0.75, "second"),
    ]
    assert {"field": "text", "title": "signal", "type": "nominal"} in layer["encoding"]["tooltip"]
    assert layer["encoding"]["x"]["field"] == "hours"


def test_markers_missing_columns_is_a_setting_error() -> None:
    with pytest.raises(SettingError, match="text"):
        simple_chart(long_frame({"e1": [1.0]}), markers=pl.DataFrame({"experiment": ["e1"], "step": [1]}))


def test_empty_frame_gives_a_no_data_chart() -> None:
    empty = pl.DataFrame(schema=LONG_SCHEMA)
    for chart in (
        metric_chart(
            empty, ChartOptions(title="T", y_title="Y", colors=COLORS, labels=LABELS, empty_text="nothing yet")
        ),
        validation_chart(
            empty, ChartOptions(title="T", y_title="Y", colors=COLORS, labels=LABELS, empty_text="nothing yet")
        ),
        stacked_area_chart(empty, ChartOptions(title="T", y_title="s", empty_text="nothing yet")),
        bar_chart(
            pl.DataFrame({"experiment": ["e1"], "value": [math.nan]}),
            ChartOptions(title="T", y_title="h", colors=COLORS, labels=LABELS, empty_text="nothing yet"),
        ),
    ):
        spec = spec_of(chart)
        (layer,) = spec["layer"]
        assert layer["mark"]["type"] == "text"
        assert rows_of(spec, layer) == [{"text": "nothing yet"}]
        assert spec["title"] == "T"


def test_all_nan_metric_is_empty_too() -> None:
    spec = simple_chart(long_frame({"e1": [math.nan, None]}))
    assert [layer["mark"]["type"] for layer in spec["layer"]] == ["text"]


def test_bad_x_axis_is_a_setting_error() -> None:
    with pytest.raises(SettingError, match="wall"):
        simple_chart(long_frame({"e1": [1.0]}), x="wall")


def test_titles_come_from_the_caller() -> None:
    spec = simple_chart(long_frame({"e1": [1.0]}), title="通过率", y_title="%", x_title="训练步")
    assert spec["title"] == "通过率"
    assert spec["layer"][0]["encoding"]["y"]["title"] == "%"
    assert spec["layer"][0]["encoding"]["x"]["title"] == "训练步"
    assert spec["height"] == PLOT_HEIGHT == 220


# --- validation_chart --------------------------------------------------------------------------------


def test_validation_chart_joins_test_steps_only() -> None:
    # validation logged every 25 steps; the steps between carry no row (or a null row) and must not break
    # the line or add points
    rows = [("e1", step, step / 4, "val", (0.5 + step / 1000) if step % 25 == 0 else None) for step in range(1, 76)]
    rows += [("e2", 25, 6.0, "val", 0.6)]
    long = pl.DataFrame(rows, schema=LONG_SCHEMA, orient="row")
    spec = spec_of(
        validation_chart(long, ChartOptions(title="aime24", y_title="acc", colors=COLORS, labels=LABELS, percent=True))
    )
    assert [(row["experiment"], row["step"]) for row in main_rows(spec)] == [
        ("e1", 25),
        ("e1", 50),
        ("e1", 75),
        ("e2", 25),
    ]
    (line,) = layers_with_mark(spec, "line")
    assert line["mark"]["point"] is True
    assert line["encoding"]["y"]["axis"]["format"] == ".0%"
    rule = hover_rule(spec)
    expression = tooltip_expression(rule)
    assert "E1%20%C2%B7%20GRPO" in expression and "E2%20%C2%B7%20DAPO" in expression
    assert 'datum["s"' not in expression
    assert [row["step"] for row in rows_of(spec, rule)] == [25, 50, 75]


# --- bar_chart ---------------------------------------------------------------------------------------


def test_bar_chart_one_bar_per_experiment_with_value_text() -> None:
    hours = pl.DataFrame({"experiment": ["e2", "e1", "e3"], "value": [32.55, 35.1, 37.2]})
    spec = spec_of(
        bar_chart(hours, ChartOptions(title="hours", y_title="h", colors=COLORS, labels=LABELS, value_format=".1f"))
    )
    projection, bars, text = spec["layer"]
    assert bars["mark"]["type"] == "bar"
    assert projection["transform"] == [{"filter": "datum.running"}]
    assert text["mark"]["type"] == "text"
    # every bar carries its value: the text is the given text, else the value in the given format
    assert text["transform"][0]["calculate"] == (
        "isValid(datum.text) ? replace(datum.text, /\\n/g, ' ') : format(datum.value, \".1f\")"
    )
    assert text["encoding"]["x"]["field"] == "top"
    rows = main_rows(spec)
    assert len(rows) == 3
    assert {row["label"]: row["value"] for row in rows} == {"E1 · GRPO": 35.1, "E2 · DAPO": 32.55, "E3 · Dr.GRPO": 37.2}
    assert not any(row["running"] for row in rows)
    assert bars["encoding"]["y"]["sort"] == ["E1 · GRPO", "E2 · DAPO", "E3 · Dr.GRPO"]
    assert bars["encoding"]["color"]["scale"]["range"] == ["#1f77b4", "#ff7f0e", "#2ca02c"]
    # room right of the longest bar (37.2) for its value
    assert bars["encoding"]["x"]["scale"]["domainMax"] > 37.2 * 1.1


def test_a_running_run_bar_is_lighter_dashed_and_shows_its_projection() -> None:
    hours = pl.DataFrame(
        {
            "experiment": ["e1", "e5"],
            "value": [35.1, 4.4],
            "projected": [None, 33.0],
            "text": ["35.1h", "4.4h running\n→ 33.0h"],
        }
    )
    spec = spec_of(bar_chart(hours, ChartOptions(title="hours", y_title="h", colors=COLORS, labels=LABELS)))
    projection, bars, _text = spec["layer"]
    rows = {row["experiment"]: row for row in main_rows(spec)}
    assert rows["e5"]["running"] is True and rows["e1"]["running"] is False
    assert rows["e5"]["top"] == 33.0 and rows["e1"]["top"] == 35.1
    assert rows["e5"]["text"] == "4.4h running\n→ 33.0h"
    assert bars["encoding"]["fillOpacity"] == {"condition": {"test": "datum.running", "value": 0.45}, "value": 1.0}
    assert bars["encoding"]["strokeDash"]["condition"]["value"] == [4, 3]
    assert projection["encoding"]["x"]["field"] == "projected_drawn"
    assert projection["mark"]["strokeDash"] == [4, 3]


def test_a_projection_from_a_runs_first_steps_does_not_squash_the_other_bars() -> None:
    # 2 steps of 563,250 done in 0.6 h project 0.6 / 2 * 563,250 = 168,975 h: drawn in full, the finished 35.1 h
    # bar would be 0.02% of the plot. The projected bar stops at 3 x 35.1 = 105.3 h; its text keeps the total.
    hours = pl.DataFrame(
        {
            "experiment": ["e1", "e5"],
            "value": [35.1, 0.6],
            "projected": [None, 168975.0],
            "text": ["35.1h", "0.6h running\n→ 168,975h"],
        }
    )
    spec = spec_of(bar_chart(hours, ChartOptions(title="hours", y_title="h", colors=COLORS, labels=LABELS)))
    _projection, bars, _text = spec["layer"]
    rows = {row["experiment"]: row for row in main_rows(spec)}
    assert rows["e5"]["projected"] == 168975.0  # the tooltip's figure
    assert rows["e5"]["projected_drawn"] == pytest.approx(105.3)
    assert rows["e5"]["top"] == pytest.approx(105.3) and rows["e1"]["top"] == 35.1
    assert rows["e5"]["text"] == "0.6h running\n→ 168,975h"
    # the axis ends at 2.4 x 105.3 (room for the text), not past 168,975
    assert bars["encoding"]["x"]["scale"]["domainMax"] == pytest.approx(105.3 * 2.4)


def test_bar_chart_requires_its_columns() -> None:
    with pytest.raises(SettingError, match="value"):
        bar_chart(pl.DataFrame({"experiment": ["e1"]}), ChartOptions(title="T", y_title="h", colors={}, labels={}))


# --- stacked_area_chart ------------------------------------------------------------------------------


def timing_frame(steps: int, slow_step: int | None = None) -> pl.DataFrame:
    rows = []
    for step in range(1, steps + 1):
        gen = 100.0 if step != slow_step else 900.0
        rows.append(("e1", step, step / 60, "timing_s/gen", gen))
        rows.append(("e1", step, step / 60, "timing_s/update_actor", 50.0))
        if step % 25 == 0:
            rows.append(("e1", step, step / 60, "timing_s/testing", 30.0))
    return pl.DataFrame(rows, schema=LONG_SCHEMA, orient="row")


def test_stacked_area_stacks_phases_and_fills_gaps_with_zero() -> None:
    spec = spec_of(
        stacked_area_chart(
            timing_frame(50),
            ChartOptions(title="time per step", y_title="s"),
            phase_labels={"timing_s/gen": "generation"},
            phase_colors={"timing_s/testing": "#000000"},
        )
    )
    area = layers_with_mark(spec, "area")[0]
    assert area["encoding"]["y"]["stack"] == "zero"
    scale = area["encoding"]["color"]["scale"]
    # given labels first; the rest unprefixed, largest mean first
    assert scale["domain"] == ["generation", "update_actor", "testing"]
    assert scale["range"] == [DEFAULT_PALETTE[0], DEFAULT_PALETTE[1], "#000000"]
    rows = main_rows(spec)
    assert len(rows) == 150  # 50 steps x 3 phases: testing counts 0 where not logged
    at_step_1 = {row["label"]: row["value"] for row in rows if row["step"] == 1}
    assert at_step_1 == {"generation": 100.0, "update_actor": 50.0, "testing": 0.0}
    rule = hover_rule(spec)
    step25 = next(row for row in rows_of(spec, rule) if row["step"] == 25)
    assert urllib.parse.unquote(step25["_tt"]) == "180.0"  # the total row's text (format ",.1f")


def test_stacked_area_downsampling_keeps_the_slow_step() -> None:
    spec = spec_of(
        stacked_area_chart(timing_frame(5_000, slow_step=3_333), ChartOptions(title="T", y_title="s", max_points=200))
    )
    steps = sorted({row["step"] for row in main_rows(spec)})
    assert len(steps) <= 200
    assert 3_333 in steps
    assert steps[-1] == 5_000


def test_stacked_area_is_for_one_experiment() -> None:
    two = pl.concat([timing_frame(3), timing_frame(3).with_columns(pl.lit("e2").alias("experiment"))])
    with pytest.raises(SettingError, match="one experiment"):
        stacked_area_chart(two, ChartOptions(title="T", y_title="s"))


def test_stacked_area_on_hours() -> None:
    spec = spec_of(stacked_area_chart(timing_frame(10), ChartOptions(title="T", y_title="s", x="hours")))
    assert layers_with_mark(spec, "area")[0]["encoding"]["x"]["field"] == "hours"
    assert all(row["hours"] is not None for row in main_rows(spec))


# --- spec functions and their Altair charts -------------------------------------------------------


def spec_cases() -> list[tuple[str, Callable[..., Any], Callable[..., Any], pl.DataFrame, dict[str, Any]]]:
    markers = pl.DataFrame({"experiment": ["e1"], "step": [2], "value": [2.0], "text": ["spike"]})
    lines = long_frame({"e1": [1.0, 2.0, 3.0], "e2": [2.0, 1.0]})
    common = {"title": "T", "y_title": "Y", "colors": COLORS, "labels": LABELS}
    return [
        (
            "metric, everything on",
            metric_chart,
            metric_chart_spec,
            lines,
            {
                **common,
                "smoothing": Smoothing("ema", weight=0.5),
                "reference": 3.0,
                "reference_label": "cap",
                "markers": markers,
                "percent": True,
                "x": "hours",
                "x_title": "h",
            },
        ),
        ("metric, log", metric_chart, metric_chart_spec, lines, {**common, "log_scale": True, "reference": 2.0}),
        ("validation", validation_chart, validation_chart_spec, lines, common),
        (
            "bar",
            bar_chart,
            bar_chart_spec,
            pl.DataFrame({"experiment": ["e2", "e1"], "value": [3.0, 4.5]}),
            common,
        ),
        ("stacked", stacked_area_chart, stacked_area_chart_spec, timing_frame(30), {"title": "T", "y_title": "s"}),
        ("empty", metric_chart, metric_chart_spec, pl.DataFrame(schema=LONG_SCHEMA), common),
    ]


def drawn(builder: Callable[..., Any], frame: pl.DataFrame, options: dict[str, Any]) -> Any:
    """``builder`` called on ``frame`` with ``options`` as its ChartOptions (markers passed on their own)."""
    given = dict(options)
    extra = {name: given.pop(name) for name in ("markers",) if name in given}
    return builder(frame, ChartOptions(**given), **extra)


@pytest.mark.parametrize("case", spec_cases(), ids=lambda case: case[0])
def test_spec_function_equals_its_altair_chart(case: Any) -> None:
    _name, chart_of, spec_of_frame, frame, options = case
    spec = drawn(spec_of_frame, frame, options)
    # to_dict() validates against Altair's Vega-Lite schema: the hand-written spec is valid Vega-Lite
    assert drawn(chart_of, frame, options).to_dict(validate=True) == spec
    assert spec["$schema"] == SCHEMA_URL
    json.dumps(spec, allow_nan=False)


def test_schema_url_is_altairs() -> None:
    import altair as alt

    assert SCHEMA_URL == alt.SCHEMA_URL


@pytest.mark.parametrize("case", spec_cases(), ids=lambda case: case[0])
def test_arrow_datasets_hold_the_json_rows(case: Any) -> None:
    import pyarrow as pa

    _name, _chart_of, spec_of_frame, frame, options = case
    as_json = drawn(spec_of_frame, frame, options)
    as_arrow = drawn(spec_of_frame, frame, {**options, "arrow": True})
    assert {key: value for key, value in as_arrow.items() if key != "datasets"} == {
        key: value for key, value in as_json.items() if key != "datasets"
    }
    assert as_arrow["datasets"].keys() == as_json["datasets"].keys()
    for name, data in as_arrow["datasets"].items():
        assert isinstance(data, bytes)
        table = pa.ipc.open_stream(io.BytesIO(data)).read_all()
        # plain Arrow types only (Streamlit's browser side reads no string views)
        assert not any("view" in str(field.type) for field in table.schema)
        # the same rows, numbers at Float32's precision (7 significant digits, finer than any chart shows)
        rows = as_json["datasets"][name]
        assert table.to_pylist() == [
            {key: pytest.approx(value, rel=1e-6) if isinstance(value, float) else value for key, value in row.items()}
            for row in rows
        ]
        wide = [field.name for field in table.schema if field.type in (pa.float64(), pa.int64())]
        assert not wide, f"{name}: {wide} sent as 64-bit numbers"


def test_a_smoothing_change_keeps_the_spec_and_the_raw_rows() -> None:
    long = long_frame({"e1": [1.0, 2.0, 3.0], "e2": [4.0, 5.0, 7.0]})
    options: dict[str, Any] = {"title": "T", "y_title": "Y", "colors": COLORS, "labels": LABELS}
    first = metric_chart_spec(long, ChartOptions(**options, smoothing=Smoothing("ema", weight=0.5)))
    again = metric_chart_spec(long, ChartOptions(**options, smoothing=Smoothing("ema", weight=0.5)))
    assert json.dumps(first) == json.dumps(again)
    other = metric_chart_spec(long, ChartOptions(**options, smoothing=Smoothing("moving_average", window=2)))

    def structure(spec: dict[str, Any]) -> str:
        return json.dumps({key: value for key, value in spec.items() if key != "datasets"}, sort_keys=True)

    # the same spec text: the browser swaps the changed datasets into the chart it has ...
    assert structure(other) == structure(first)
    assert set(other["datasets"]) == {"rlmon_raw", "rlmon_smoothed", "rlmon_hover"}
    # ... and only the smoothed rows and the hover texts changed
    assert other["datasets"]["rlmon_raw"] == first["datasets"]["rlmon_raw"]
    assert other["datasets"]["rlmon_smoothed"] != first["datasets"]["rlmon_smoothed"]
    assert other["datasets"]["rlmon_hover"] != first["datasets"]["rlmon_hover"]
    # the scales' domains are fixed by the raw values (1 to 7), which the smoothed ones stay within
    (raw_line, _smoothed_line) = layers_with_mark(first, "line")
    assert raw_line["encoding"]["y"]["scale"]["domain"] == [1.0, 7.0]
    assert raw_line["encoding"]["x"]["scale"]["domain"] == [1.0, 3.0]
    # one point: no domain of zero width (Vega widens the scale around the point itself)
    single = layers_with_mark(simple_chart(long_frame({"e1": [0.5]})), "line")[0]["encoding"]
    assert "domain" not in single["y"]["scale"]
    # ... but an x scale of zero width gives the axis a NaN tick: the point gets a unit-wide scale and its tick
    assert single["x"]["scale"]["domain"] == [0.0, 2.0] and single["x"]["axis"]["values"] == [1.0]


def test_two_specs_share_no_mutable_part() -> None:
    long = long_frame({"e1": [1.0, 2.0]})
    spec = metric_chart_spec(long, ChartOptions(title="T", y_title="Y", colors=COLORS, labels=LABELS))
    spec["layer"][0]["encoding"]["color"]["scale"]["domain"].append("x")
    spec["config"]["view"].clear()
    fresh = metric_chart_spec(long, ChartOptions(title="T", y_title="Y", colors=COLORS, labels=LABELS))
    assert fresh["layer"][0]["encoding"]["color"]["scale"]["domain"] == ["E1 · GRPO"]
    assert fresh["config"]["view"] == {"continuousWidth": 300, "continuousHeight": 300}
    # within one spec too: the layers' colour scales are separate objects
    assert fresh["layer"][1]["encoding"]["color"]["scale"] is not fresh["layer"][0]["encoding"]["color"]["scale"]


def test_labels_and_titles_never_enter_vega_expressions() -> None:
    # Labels come from rlmon.toml or log folder names: they must stay data and titles, never code.
    labels = {"e1": "a' + alert(1) + '", "e2": "<b>bold</b>"}
    long = long_frame({"e1": [1.0, 2.0], "e2": [3.0, 4.0]})
    spec = metric_chart_spec(
        long,
        ChartOptions(title="x", y_title="y", colors=COLORS, labels=labels, smoothing=Smoothing("ema"), raw_suffix="'"),
    )
    expressions = [json.dumps(step) for layer in spec["layer"] for step in layer.get("transform", [])]
    assert expressions
    # in the tooltip expression, labels only appear XML-escaped and percent-encoded inside string literals
    assert not [text for text in expressions if "a' + alert" in text or "<b>" in text]
    assert "a%26%2339%3B%20%2B%20alert%281%29%20%2B%20%26%2339%3B" in tooltip_expression(hover_rule(spec))


def test_spec_functions_do_not_import_altair() -> None:
    # Importing Altair and building its objects is what made every widget change slow.
    code = (
        "import sys, polars as pl\n"
        "from rlmon.views.charts import ChartOptions, metric_chart_spec\n"
        "long = pl.DataFrame({'experiment': ['a'], 'step': [1], 'hours': [0.1], 'metric': ['m'], 'value': [1.0]})\n"
        "metric_chart_spec(long, ChartOptions(title='t', y_title='y', colors={}, labels={}, arrow=True))\n"
        "assert 'altair' not in sys.modules, 'altair imported'\n"
    )
    root = REPO_ROOT
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


# --- sparkline_values --------------------------------------------------------------------------------


def test_sparkline_values_short_series_drops_non_finite() -> None:
    assert sparkline_values(pl.Series([0.5, math.nan, None, 0.7, math.inf])) == [0.5, 0.7]


def test_sparkline_values_thins_long_series_keeping_spike_and_last() -> None:
    values = [0.8 + (i % 3) * 0.01 for i in range(1_000)]
    values[500] = 0.1
    values[-1] = 0.95
    result = sparkline_values(pl.Series(values), max_points=60)
    assert len(result) <= 60
    assert 0.1 in result
    assert result[-1] == 0.95
    assert result[0] == 0.8


# --- what a smoothing change sends the browser ----------------------------------------------------------


def many_runs(runs: int, steps: int) -> pl.DataFrame:
    """``runs`` experiments logging steps 0 … steps-1, each value equal to its step."""
    return pl.DataFrame(
        [(f"e{r:02d}", s, s / 10, "m", float(s)) for r in range(runs) for s in range(steps)],
        schema=LONG_SCHEMA,
        orient="row",
    )


def test_repeated_texts_go_as_arrow_dictionaries_and_row_texts_as_strings() -> None:
    import pyarrow as pa

    # 3 runs x 300 steps: each raw point carries its run's id and label (3 distinct values over 900 rows), sent
    # once per value; the hover table's heading is different on every row and stays a plain string.
    labels = {"e00": "E1 · GRPO", "e01": "E2 · DAPO", "e02": "E3 · RLOO"}
    spec = metric_chart_spec(
        many_runs(3, 300), ChartOptions(title="T", y_title="Y", colors={}, labels=labels, arrow=True)
    )
    tables = {name: pa.ipc.open_stream(io.BytesIO(data)).read_all() for name, data in spec["datasets"].items()}
    raw = tables["rlmon_raw"]
    assert pa.types.is_dictionary(raw.schema.field("experiment").type)
    assert pa.types.is_dictionary(raw.schema.field("label").type)
    assert sorted(set(raw.column("label").to_pylist())) == ["E1 · GRPO", "E2 · DAPO", "E3 · RLOO"]
    assert raw.column("label").to_pylist()[:2] == ["E1 · GRPO", "E1 · GRPO"]
    hover = tables["rlmon_hover"]
    assert hover.schema.field("_head").type == pa.large_string()
    assert hover.num_rows == len(set(hover.column("_head").to_pylist()))


def test_smoothed_lines_of_many_runs_are_thinned_on_one_grid_of_steps() -> None:
    # 20 runs share 1,200 smoothed points: 60 slices of the step range (0 … 1999) per line. A slice keeps its
    # last step, floor(step * 60 / 1999) telling the slice; the first step (0) is kept as well.
    spec = metric_chart_spec(
        many_runs(20, 2000),
        ChartOptions(title="T", y_title="Y", colors={}, labels={}, smoothing=Smoothing("moving_average", window=5)),
    )
    rows = smoothed_rows(spec)
    by_label: dict[str, list[tuple[int, float]]] = {}
    for row in rows:
        by_label.setdefault(row["label"], []).append((row["step"], row["smoothed"]))
    expected_steps = [0] + [max(s for s in range(2000) if s * 60 // 1999 == b) for b in range(61)]
    assert len(by_label) == 20
    for points in by_label.values():
        assert [step for step, _ in points] == expected_steps  # every run on the same steps, first and last kept
        # smoothed before thinning: the mean of the last 5 values of a line whose value is its step is step - 2
        assert all(value == pytest.approx(step - 2) for step, value in points if step >= 4)
    # the raw line keeps its own points (downsampled, spikes kept), more than the smoothed one
    assert len(main_rows(spec)) > len(rows)


def test_few_runs_keep_every_smoothed_point() -> None:
    spec = metric_chart_spec(
        many_runs(2, 500),
        ChartOptions(title="T", y_title="Y", colors={}, labels={}, smoothing=Smoothing("ema", weight=0.5)),
    )
    assert len(smoothed_rows(spec)) == 1000


def test_hover_dots_come_from_the_one_hover_row_in_each_runs_colour() -> None:
    colors = {f"e{r:02d}": DEFAULT_PALETTE[r] for r in range(3)}
    spec = metric_chart_spec(
        many_runs(3, 30),
        ChartOptions(title="T", y_title="Y", colors=colors, labels={}, smoothing=Smoothing("moving_average", window=5)),
    )
    (dots,) = layers_with_mark(spec, "point")
    filtered, folded, colours = dots["transform"]
    assert filtered == {"filter": {"param": "hover", "empty": False}}
    assert folded == {"fold": ["y0", "y1", "y2"], "as": ["_key", "_y"]}
    # each run's colour looked up by its column, drawn as it is (no scale: the legend's colour scale is untouched)
    assert colours["lookup"] == "_key" and colours["from"]["fields"] == ["_color"]
    assert colours["from"]["data"]["values"] == [{"_key": f"y{i}", "_color": DEFAULT_PALETTE[i]} for i in range(3)]
    assert dots["encoding"]["y"]["field"] == "_y"
    assert dots["encoding"]["color"] == {"field": "_color", "legend": None, "scale": None, "type": "nominal"}
    assert "resolve" not in spec
    rows = {row["step"]: row for row in rows_of(spec, dots)}
    # at step 10 every run's dot sits on its smoothed line: (6 + 7 + 8 + 9 + 10) / 5
    assert [rows[10][f"y{i}"] for i in range(3)] == [8.0, 8.0, 8.0]
    # smoothing off: the dots sit on the raw values
    plain = metric_chart_spec(many_runs(3, 30), ChartOptions(title="T", y_title="Y", colors=colors, labels={}))
    (plain_dots,) = layers_with_mark(plain, "point")
    assert {row["step"]: row["y1"] for row in rows_of(plain, plain_dots)}[10] == 10.0


def test_what_the_browser_runs_per_line_point_is_one_validity_test() -> None:
    """Compiled to Vega (as the browser does), the rows of each line pass through one validity filter and
    nothing else that costs per point: no number conversion for sorting, no hover test (the dots come from the
    hover table's rows)."""
    import vl_convert

    spec = metric_chart_spec(
        many_runs(3, 50),
        ChartOptions(title="T", y_title="Y", colors={}, labels={}, smoothing=Smoothing("ema", weight=0.5)),
    )
    vega = vl_convert.vegalite_to_vega(spec, vl_version="6.4")
    derived = {item["source"]: [] for item in vega["data"] if "source" in item}
    for item in vega["data"]:
        if "source" in item:
            derived[item["source"]].append([step["type"] for step in item.get("transform", [])])
    assert derived["rlmon_raw"] == [["filter"]]
    assert derived["rlmon_smoothed"] == [["filter"]]
    assert sorted(derived["rlmon_hover"]) == [["filter", "fold", "lookup", "filter"], ["formula", "filter"]]
