"""The hover tooltip picture (:mod:`rlmon.views.tooltip`): rank columns and the expression's make-up (one real
hover in headless Chromium is in tests/browser/test_tooltip.py)."""

from __future__ import annotations

import re
import urllib.parse
import urllib.request
from typing import Any

import polars as pl
import pytest

from rlmon.analysis.smoothing import Smoothing
from rlmon.schema import LONG_SCHEMA
from rlmon.views import tooltip
from rlmon.views.charts import ChartOptions, metric_chart_spec, stacked_area_chart_spec, validation_chart_spec

HOSTILE = "<script>alert(1)</script>\"q' 9% #1 &\n](x)"


def long_frame(series: dict[str, list[float | None]], *, hours_per_step: float = 0.25) -> pl.DataFrame:
    rows = [
        (experiment, 1 + i, (1 + i) * hours_per_step, "m", value)
        for experiment, values in series.items()
        for i, value in enumerate(values)
    ]
    return pl.DataFrame(rows, schema=LONG_SCHEMA, orient="row")


def hover_rule(spec: dict[str, Any]) -> dict[str, Any]:
    (rule,) = [layer for layer in spec["layer"] if layer.get("name") == "view_hover"]
    return rule


def hover_rows(spec: dict[str, Any]) -> list[dict[str, Any]]:
    return list(spec["datasets"][hover_rule(spec)["data"]["name"]])


def literals(expression: str) -> list[str]:
    """The string literals of a Vega expression (double- or single-quoted, no escapes expected)."""
    return [match.group(1) or match.group(2) or "" for match in re.finditer(r'"([^"\\]*)"|\'([^\'\\]*)\'', expression)]


def code_of(expression: str) -> str:
    """The expression with its string literals blanked."""
    return re.sub(r'"[^"\\]*"|\'[^\'\\]*\'', '""', expression)


# --- rank columns --------------------------------------------------------------------------------------


def test_rank_columns_by_hand_with_ties_and_nulls() -> None:
    frame = pl.DataFrame(
        {
            "v0": [3.0, 1.0, None, 2.0, None],
            "v1": [5.0, 1.0, 4.0, float("nan"), None],
            "v2": [4.0, 0.5, None, 2.0, None],
            "v3": [-1.0, 1.0, 9.0, 7.0, None],
        }
    )
    ranked = tooltip.with_rank_columns(frame, ["v0", "v1", "v2", "v3"])
    orders = ranked.select("o0", "o1", "o2", "o3").rows()
    # row 0: 5 (v1) > 4 (v2) > 3 (v0) > -1 (v3)
    # row 1: three-way tie at 1.0 keeps column order v0, v1, v3; then 0.5 (v2)
    # row 2: 9 (v3) > 4 (v1); v0 and v2 null: left out
    # row 3: 7 (v3) > 2 (v0) = 2 (v2, later); v1 NaN left out
    # row 4: nothing
    assert orders == [(1, 2, 0, 3), (0, 1, 3, 2), (3, 1, None, None), (3, 0, 2, None), (None, None, None, None)]
    assert ranked["_n"].to_list() == [4, 4, 2, 3, 0]
    assert ranked.schema["o0"] == pl.Int32 and ranked.schema["_n"] == pl.Int32
    assert ranked.select("v0", "v1", "v2", "v3").equals(frame)


def test_line_chart_ranks_by_smoothed_value_and_omits_runs_without_a_point() -> None:
    # e2 stops at step 2; at step 1 the values tie (e1, e3 = 5) behind e2
    long = long_frame({"e1": [5.0, 1.0, 1.0], "e2": [9.0, 0.0], "e3": [5.0, 7.0, 8.0]})
    spec = metric_chart_spec(long, ChartOptions(title="t", y_title="y", colors={}, labels={}))
    rows = {row["step"]: row for row in hover_rows(spec)}
    assert (rows[1]["o0"], rows[1]["o1"], rows[1]["o2"], rows[1]["_n"]) == (1, 0, 2, 3)
    assert (rows[2]["o0"], rows[2]["o1"], rows[2]["o2"], rows[2]["_n"]) == (2, 0, 1, 3)
    assert (rows[3]["o0"], rows[3]["o1"], rows[3]["o2"], rows[3]["_n"]) == (2, 0, None, 2)
    assert rows[3]["_head"] == "step 3 · 0.8 h"
    # the places' texts follow the ranks; past _n they are empty
    assert [rows[3][f"t0_{k}"] for k in range(3)] == ["8", "1", ""]
    smoothed = metric_chart_spec(
        long, ChartOptions(title="t", y_title="y", colors={}, labels={}, smoothing=Smoothing("ema"))
    )
    assert "t1_0" in hover_rows(smoothed)[0]  # the raw value beside the smoothed one


def test_heading_shows_the_spread_of_the_other_coordinate() -> None:
    e1 = long_frame({"e1": [1.0, 2.0]}, hours_per_step=1.0)
    e2 = long_frame({"e2": [1.0, 2.0]}, hours_per_step=1.5)
    spec = metric_chart_spec(
        pl.concat([e1, e2]), ChartOptions(title="t", y_title="y", colors={}, labels={}, x_title="Schritt")
    )
    assert [row["_head"] for row in hover_rows(spec)] == ["Schritt 1 · 1.0–1.5 h", "Schritt 2 · 2.0–3.0 h"]
    on_hours = metric_chart_spec(e1, ChartOptions(title="t", y_title="y", colors={}, labels={}, x="hours", x_title="h"))
    assert [row["_head"] for row in hover_rows(on_hours)] == ["h 1.0 · step 1", "h 2.0 · step 2"]


# --- the expression ------------------------------------------------------------------------------------

ALLOWED_CODE = re.compile(
    r"(datum(\.[A-Za-z_][A-Za-z0-9_]*|\[\"\" \+ datum\.o\d+\])|isValid|encodeURIComponent|format|abs|"
    r"title|image|\d+(\.\d+)?(e-?\d+)?|[-+*(){}?:,=|>\s]|\"\")+"
)


def expressions_of(spec: dict[str, Any]) -> list[str]:
    return [step["calculate"] for step in hover_rule(spec)["transform"]]


@pytest.mark.parametrize("smoothing", [Smoothing(), Smoothing("ema", weight=0.5)], ids=["raw", "smoothed"])
def test_expression_is_column_names_encoded_literals_and_formats(smoothing: Smoothing) -> None:
    long = long_frame({"e1": [1.0, 2.0], "e2": [3.0, 4.0]})
    labels = {"e1": HOSTILE, "e2": "](x) <img src=x onerror=alert(2)>"}
    colors = {"e1": "#AbCdEf", "e2": "red; background:url(x)"}
    spec = metric_chart_spec(
        long,
        ChartOptions(
            title="t", y_title="y", colors=colors, labels=labels, smoothing=smoothing, raw_suffix=" (raw) <i>'"
        ),
    )
    (expression,) = expressions_of(spec)
    # outside string literals: only fields, the functions used and numbers
    assert ALLOWED_CODE.fullmatch(code_of(expression)), code_of(expression)
    texts = literals(expression)
    formats = {",.4~r", ".3~e"}
    for text in texts:
        assert text in formats or text in {"s", "r", ""} or re.fullmatch(r"[A-Za-z0-9%._~+:,/-]*", text), text
    joined = "".join(texts)
    for raw in ["<script", "alert(1)", '"q', "q'", "9% ", "#1", " &", "\n", "](x)", "<img", "onerror=", "<i>"]:
        assert raw not in joined
    decoded = urllib.parse.unquote(joined)
    # XML-escaped inside the SVG; the newline became a space
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&quot;q&#39; 9% #1 &amp; ](x)" in decoded
    assert "&lt;img src=x onerror=alert(2)&gt;" in decoded
    assert 'fill="#abcdef"' in decoded
    assert "red;" not in decoded and "url(x)" not in decoded  # a malformed colour falls back to grey
    if smoothing.enabled:
        assert "(raw) &lt;i&gt;&#39;" in decoded
    # nothing external: the only URL is the SVG namespace
    assert re.findall(r"https?://[^\"]+", decoded) == ["http://www.w3.org/2000/svg"]
    assert 'href="#e' in decoded and "xlink" not in decoded


def first_texts(spec: dict[str, Any]) -> list[str]:
    """The decoded text of the top place of each hover row."""
    return [urllib.parse.unquote(row["t0_0"]) for row in hover_rows(spec)]


def test_value_formats() -> None:
    long = long_frame({"e1": [0.5, 0.6, 1234567.0, -0.00001234, -2.0]})
    common: dict[str, Any] = {"title": "t", "colors": {}, "labels": {}}
    # 4 significant digits, thousands separated, tiny magnitudes in exponent form, d3's minus sign
    assert first_texts(metric_chart_spec(long, ChartOptions(y_title="loss", **common))) == [
        "0.5", "0.6", "1,235,000", "\u22121.234e-5", "\u22122"
    ]  # fmt: skip
    fraction = metric_chart_spec(long_frame({"e1": [0.5, 0.1234]}), ChartOptions(y_title="acc", percent=True, **common))
    assert first_texts(fraction) == ["50.0%", "12.3%"]
    points = metric_chart_spec(long_frame({"e1": [80.0, 1234.56]}), ChartOptions(y_title="%", **common))
    assert first_texts(points) == ["80.0%", "1,234.6%"]
    given = metric_chart_spec(long_frame({"e1": [0.5]}), ChartOptions(y_title="%", value_format=".3f", **common))
    assert first_texts(given) == ["0.500"]
    validation = validation_chart_spec(long, ChartOptions(y_title="acc", **common))
    assert "t1_0" not in hover_rows(validation)[0]  # smoothing off: one value per row


def test_d3_format_by_hand() -> None:
    # What d3-format writes for these (d3.format(",.4~r")(123456) == "123,500" and so on).
    cases = [
        (123456.0, None, "123,500"), (0.00012346, None, "0.0001235"), (0.0, None, "0"), (9.99996, None, "10"),
        (-0.5, None, "\u22120.5"), (3.2e-6, None, "3.2e-6"), (0.1234, ".1%", "12.3%"), (-0.0001, ".2f", "0.00"),
        (1234.5, ",.1f", "1,234.5"), (2.0, ".3f", "2.000"), (1e-20, None, "1e-20"),
    ]  # fmt: skip
    for value, fmt, expected in cases:
        assert tooltip.d3_format(value, fmt) == expected, (value, fmt)
        # the one-pass polars formatting writes the same
        assert urllib.parse.unquote(tooltip.number_texts(pl.Series([value]), fmt)[0]) == expected, (value, fmt)
    with pytest.raises(ValueError, match="unsupported number format"):
        tooltip.d3_format(1.0, "$,.2f")


def test_number_texts_at_the_edges_of_the_cases_left_out() -> None:
    # The one-pass formatting leaves out the thousands and exponent cases when no value needs them: each value
    # alone, then all together, at the edges where those cases begin (by hand, as d3-format writes them).
    cases = [
        (999.94, None, "999.9"), (999.95, None, "1,000"), (999.5, ",.0f", "1,000"), (999.4, ",.0f", "999"),
        (99_999.5, ",.0f", "100,000"), (999_999.5, ",.0f", "1,000,000"), (10.0, ",.1%", "1,000.0%"),
        (9.99, ",.0%", "999%"), (1e-4, None, "0.0001"), (-9.99e-5, None, "\u22129.99e-5"), (0.0, None, "0"),
        (12_345_678.9, None, "12,350,000"),
    ]  # fmt: skip
    for value, fmt, expected in cases:
        assert urllib.parse.unquote(tooltip.number_texts(pl.Series([value]), fmt)[0]) == expected, (value, fmt)
    for fmt in {fmt for _value, fmt, _text in cases}:
        mine = [(value, text) for value, case_fmt, text in cases if case_fmt == fmt]
        together = tooltip.number_texts(pl.Series([value for value, _text in mine]), fmt).to_list()
        assert [urllib.parse.unquote(text) for text in together] == [text for _value, text in mine], fmt


def test_stacked_area_tooltip_sorts_phases_and_adds_a_total() -> None:
    rows = []
    for step in range(1, 4):
        rows.append(("e1", step, step / 60, "timing_s/gen", 100.0 if step != 2 else 10.0))
        rows.append(("e1", step, step / 60, "timing_s/update_actor", 50.0))
        rows.append(("e1", step, step / 60, "timing_s/old_log_prob", 20.0))
    long = pl.DataFrame(rows, schema=LONG_SCHEMA, orient="row")
    spec = stacked_area_chart_spec(
        long, ChartOptions(title="t", y_title="s", total_title="Σ 'total'"), phase_labels={"timing_s/gen": "gen <&>"}
    )
    table = {row["step"]: row for row in hover_rows(spec)}
    assert [table[1][f"o{k}"] for k in range(3)] == [0, 1, 2]
    assert [table[2][f"o{k}"] for k in range(3)] == [1, 2, 0]
    assert urllib.parse.unquote(table[2]["_tt"]) == "80.0" and table[2]["_n"] == 3
    assert table[2]["_head"] == "step 2 · 0.0 h"
    (expression,) = expressions_of(spec)
    assert ALLOWED_CODE.fullmatch(code_of(expression)), code_of(expression)
    decoded = urllib.parse.unquote("".join(literals(expression)))
    assert "gen &lt;&amp;&gt;" in decoded and "Σ &#39;total&#39;" in decoded
    assert "datum._tt" in expression


def test_heading_on_the_counting_and_gpu_hours_axes() -> None:
    frame = pl.DataFrame({"x": [1500.4, 4000.0], "low": [1.0, 2.0], "high": [1.0, 3.0]})

    def head(axis: str, title: str) -> list[str]:
        expr = tooltip.heading(
            x=axis, x_title=title, x_value=pl.col("x"), other_low=pl.col("low"), other_high=pl.col("high")
        )
        return frame.select(expr.alias("h"))["h"].to_list()

    assert head("tokens", "tokens") == ["tokens 1500 · step 1", "tokens 4000 · step 2–3"]
    assert head("gpu_hours", "GPU-hours") == ["GPU-hours 1500.4 · step 1", "GPU-hours 4000.0 · step 2–3"]
