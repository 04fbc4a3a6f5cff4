"""Groups of repeats drawn in the overview's line charts (tests/helpers/repeats_root.py: pass rate 10a + s + 0.1k
for algorithm a, seed s, step k): one colour per group for its band, mean line and faint members; a view without
repeats draws as it always did."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from rlmon.analysis.smoothing import Smoothing
from rlmon.settings import Settings
from rlmon.text import UNKNOWN
from rlmon.views import charts, model, overview, report, tables
from tests.helpers.repeats_root import NOW, TWO_TRACKS, append_steps, repeat_views, write_repeats_root


def _pass_rate_spec(views: list[model.ExperimentView], *, band: str = "minmax", lang: str = "en") -> dict[str, Any]:
    (plan,) = overview.comparison_charts(
        ["pass_rate"], views, smoothing=Smoothing("none"), x="step", log_scale=False, signals=(), highlight=(),
        lang=lang, max_points=2000, band=band,  # type: ignore[arg-type]
    )  # fmt: skip
    return plan.build()


def _dataset(spec: dict[str, Any], name: str) -> pl.DataFrame:
    return pl.read_ipc_stream(io.BytesIO(spec["datasets"][name]))


def test_band_and_mean_in_the_groups_colour(tmp_path: Path) -> None:
    write_repeats_root(tmp_path)
    views = repeat_views(tmp_path)
    spec = _pass_rate_spec(views)
    marks = [layer["mark"]["type"] for layer in spec["layer"]]
    assert marks[:3] == ["line", "area", "line"]  # the runs, the bands, the means
    lines, band, mean = spec["layer"][:3]
    scale = lines["encoding"]["color"]["scale"]
    # the band and the mean line use the lines' own scale: a group's entry gets its first member's colour
    assert band["encoding"]["color"]["scale"] == scale == mean["encoding"]["color"]["scale"]
    colour = dict(zip(scale["domain"], scale["range"], strict=True))
    by_id = {view.id: view for view in views}
    for algorithm, name in (("grpo", "GRPO"), ("dapo", "DAPO"), ("rloo", "RLOO")):
        first = by_id[f"{algorithm}_seed1"]
        assert {colour[by_id[f"{algorithm}_seed{seed}"].label] for seed in (1, 2, 3)} == {first.color}
        assert colour[f"{name} (3 runs)"] == first.color
    rows = _dataset(spec, band["data"]["name"])
    grpo = rows.filter(pl.col("label") == "GRPO (3 runs)").sort("step")
    # GRPO step 4: 1.4, 2.4, 3.4 -> mean 2.4, band 1.4-3.4, n 3
    assert grpo.row(3, named=True) == {"label": grpo["label"][0], "step": 4, "mean": pytest.approx(2.4),
                                       "low": pytest.approx(1.4), "high": pytest.approx(3.4), "n": 3}  # fmt: skip
    dapo = rows.filter(pl.col("label") == "DAPO (3 runs)").sort("step")
    # DAPO step 10: seed 1 alone: its value 12.0, no band (the band layer filters out rows without one)
    assert dapo.row(9, named=True)["mean"] == pytest.approx(12.0) and dapo.row(9, named=True)["low"] is None
    # the band covers the steps where two or more members have values: DAPO's seeds ran 10, 8 and 6 steps, so its
    # band ends at step 8; a one-member row breaks the area (null edges), it is not bridged
    banded = rows.filter(pl.col("low").is_not_null())
    assert banded.filter(pl.col("label") == dapo["label"][0])["step"].to_list() == list(range(1, 9))
    assert band["mark"]["invalid"] == "break-paths-filter-domains" and "transform" not in band
    # members drawn faint, by a column of the data (no name in an expression), unless their group is off
    hidden, faint = lines["encoding"]["opacity"]["condition"][:2]
    assert faint == {"test": "datum._member", "value": 0.35}
    assert hidden == {"test": "datum._member && !(indexof(members.label || [], datum._of) >= 0)", "value": 0.0}
    std = _dataset(_pass_rate_spec(views, band="std"), "rlmon_groups")
    row = std.filter(pl.col("label") == "DAPO (3 runs)", pl.col("step") == 8).row(0, named=True)
    assert (row["low"], row["high"]) == (pytest.approx(12.3 - 0.5**0.5), pytest.approx(12.3 + 0.5**0.5))


def test_legend_of_groups_shows_or_hides_their_runs(tmp_path: Path) -> None:
    """The chart's legend lists the groups only; its entries are bound to a selection (on the first layer, where
    Vega-Lite honours it) that starts with every group on and toggles one per click; the members' rows name their
    group's entry. The mean line's points carry the group's mean, band and n in their tooltip."""
    write_repeats_root(tmp_path)
    views = repeat_views(tmp_path)
    spec = _pass_rate_spec(views)
    lines = spec["layer"][0]
    entries = ["DAPO (3 runs)", "GRPO (3 runs)", "RLOO (3 runs)"]
    assert lines["encoding"]["color"]["legend"]["values"] == entries
    assert lines["params"] == [{"name": "members", "select": {"type": "point", "fields": ["label"], "toggle": "true"},
                                "bind": "legend", "value": [{"label": entry} for entry in entries]}]  # fmt: skip
    raw = _dataset(spec, spec["data"]["name"])
    assert raw.filter(pl.col("experiment") == "rloo_seed3")["_of"].unique().to_list() == ["RLOO (3 runs)"]
    (points,) = [layer for layer in spec["layer"] if layer["mark"]["type"] == "point" and "tooltip" in layer["encoding"]
                 and layer["encoding"]["y"]["field"] == "mean"]  # fmt: skip
    titles = [item["title"] for item in points["encoding"]["tooltip"]]
    assert titles == ["group", "step", "mean", "min–max ↓", "min–max ↑", "runs with a value (n)"]
    assert points["encoding"]["tooltip"][2]["format"] == ",.1f"  # the pass rate in % as the hover read-out has it
    # RLOO step 6: seed 3 crashed after step 5 -> seeds 1 and 2: 21.6, 22.6 -> mean 22.1, n 2
    tips = _dataset(spec, points["data"]["name"]).filter(pl.col("label") == "RLOO (3 runs)", pl.col("step") == 6)
    assert tips.select("mean", "low", "high", "n").row(0) == (pytest.approx(22.1), pytest.approx(21.6),
                                                              pytest.approx(22.6), 2)  # fmt: skip
    # a Chinese entry is as wide as 15 Latin letters: two columns fit a phone-width chart (three were cut at 390 px)
    zh = _pass_rate_spec(views, lang="zh")["layer"][0]["encoding"]["color"]["legend"]
    assert (zh["values"][0], zh["columns"]) == ("DAPO（3 次运行）", 2)
    # a run of no group is in no legend: without repeats the lines keep no legend and no selection
    alone = _pass_rate_spec(views[:1])
    assert alone["layer"][0]["encoding"]["color"]["legend"] is None and "params" not in alone["layer"][0]


def test_a_crashed_member_is_named_under_the_charts(tmp_path: Path) -> None:
    """RLOO seed 3 logged 5 steps and then a traceback: each chart of the groups says so, in either language."""
    write_repeats_root(tmp_path)
    views = repeat_views(tmp_path)
    for lang, wanted in (
        (
            "en",
            "rloo_seed3 · RLOO crashed after step 5: drawn up to there, and left out of RLOO's mean and band after it.",
        ),
        ("zh", "rloo_seed3 · RLOO 在 step 5 后崩溃：曲线画到该步，此后不计入 RLOO 的均值和区间。"),
    ):
        plans = overview.comparison_charts(
            ["pass_rate", "response_length/mean"], views, smoothing=Smoothing("none"), x="step", log_scale=False,
            signals=(), highlight=(), lang=lang, max_points=2000,
        )  # fmt: skip
        assert [plan.note for plan in plans] == [wanted, wanted]
    finished = [view for view in views if not view.id.startswith("rloo")]
    assert overview.crashed_member_note(finished, overview.repeat_groups(finished), "en") is None


def test_the_hours_bars_draw_a_groups_runs_in_its_colour(tmp_path: Path) -> None:
    write_repeats_root(tmp_path)
    views = repeat_views(tmp_path)
    (plan,) = overview.comparison_charts(
        [overview.HOURS_TOTAL], views, smoothing=Smoothing("none"), x="step", log_scale=False, signals=(),
        highlight=(), lang="en", max_points=2000,
    )  # fmt: skip
    spec = plan.build()
    scale = spec["layer"][0]["encoding"]["color"]["scale"]  # the bars
    # DAPO's running seeds project 10 steps of 60 s = 1/6 h, as long as the finished runs; with room for the
    # running bars' texts (x 2.4) the axis would end at its last tick, 0.4 h, whose label Vega then writes flush
    # with the plot's edge, a pixel past the chart: the axis runs 5% further
    x = spec["layer"][0]["encoding"]["x"]
    assert x["axis"]["values"][-1] == pytest.approx(0.4)
    assert x["scale"]["domainMax"] == pytest.approx(0.4 * 1.05)
    colour = dict(zip(scale["domain"], scale["range"], strict=True))
    by_id = {view.id: view for view in views}
    for algorithm in ("grpo", "dapo", "rloo"):
        first = by_id[f"{algorithm}_seed1"].color
        assert {colour[by_id[f"{algorithm}_seed{seed}"].label] for seed in (1, 2, 3)} == {first}
    assert len(set(colour.values())) == 3


def test_a_view_without_repeats_draws_as_always(demo_root: Path) -> None:
    views = [view for view in repeat_views(demo_root) if view.experiment.track == "Qwen3.5-4B"]
    assert overview.repeat_groups(views) == []
    spec = _pass_rate_spec(views)
    assert "area" not in [layer["mark"]["type"] for layer in spec["layer"]]
    assert "rlmon_groups" not in spec["datasets"]
    assert "_member" not in _dataset(spec, spec["data"]["name"]).columns
    assert spec["layer"][0]["encoding"]["opacity"] == {"value": 1.0}


def test_groups_table_and_report(tmp_path: Path) -> None:
    write_repeats_root(tmp_path)
    views = repeat_views(tmp_path)
    numbers = {view.id: report.report_numbers(view) for view in views}
    frame = tables.groups_frame(views, numbers, lang="en")
    # first-5 means: GRPO 1.3, 2.3, 3.3 -> 2.3 ± 1.0; DAPO 11.3, 12.3, 13.3; RLOO 21.3, 22.3, 23.3 (its crashed
    # seed 3 logged 5 steps: its first-5 mean counts); no validation logged
    assert frame.select("group", "first5", "best_val").rows() == [
        ("DAPO", "12.3% ± 1.0% (n = 3)", UNKNOWN),
        ("GRPO", "2.3% ± 1.0% (n = 3)", UNKNOWN),
        ("RLOO", "22.3% ± 1.0% (n = 3)", UNKNOWN),
    ]
    assert frame["members"][1] == "grpo_seed1 · GRPO, grpo_seed2 · GRPO and grpo_seed3 · GRPO"
    insights = report.report_insights(views, Settings(), "zh")
    page = report.render_report(views, numbers=numbers, insights=insights, options=report.ReportOptions(lang="zh"))
    assert "<h2>重复运行</h2>" in page and "<td>2.3% ± 1.0%（n = 3）</td>" in page
    assert tables.groups_frame(repeat_views(tmp_path)[:1], numbers, lang="en").height == 0


def test_experiments_table_has_a_row_per_group(tmp_path: Path) -> None:
    """One row per group where its first run would be: n = 3 and its runs' statuses, the mean progress, and mean ±
    std (n) of the hours and headline numbers; a run in no group keeps its own row (and opens its page)."""
    write_repeats_root(tmp_path)
    views = repeat_views(tmp_path)
    numbers = {view.id: report.report_numbers(view) for view in views}
    frame, opens = tables.grouped_experiments_frame(views, numbers, slugs={}, lang="en")
    assert frame["experiment"].to_list() == ["DAPO (3 runs)", "GRPO (3 runs)", "RLOO (3 runs)"]
    assert opens == [None, None, None]
    rloo = frame.row(2, named=True)
    # RLOO: seeds 1 and 2 ran 10 of 10 steps, seed 3 crashed after 5: progress (100 + 100 + 50) / 3
    assert rloo["status"] == "n = 3 · ✓ 2 finished · ✗ 1 crashed"
    assert rloo["progress"] == pytest.approx(250 / 3)
    grpo = frame.row(1, named=True)
    # first 5 steps' pass rates 1.3, 2.3, 3.3 (10a + s + 0.1k, k = 1..5) -> 2.3 ± 1.0; 10 steps of 60 s = 0.17 h each
    assert (grpo["first5"], grpo["hours"]) == ("2.3% ± 1.0% (n = 3)", "0.2h ± 0.0h (n = 3)")
    assert (grpo["spark"], grpo["page"]) == ([], "")
    assert grpo["whole"] == "grpo_seed1 · GRPO, grpo_seed2 · GRPO and grpo_seed3 · GRPO"
    frame, opens = tables.grouped_experiments_frame(
        [view for view in views if view.id in ("grpo_seed1", "rloo_seed1", "rloo_seed2")], numbers, slugs={}, lang="zh"
    )
    assert frame["experiment"].to_list() == ["grpo_seed1 · GRPO", "RLOO（2 次运行）"] and opens == ["grpo_seed1", None]


def test_what_changed_between_groups(tmp_path: Path) -> None:
    """With groups, one column per group, and the seeds that differ within a group are left out; a view of one
    group alone compares its runs as before."""
    write_repeats_root(tmp_path)
    views = repeat_views(tmp_path)
    frame = tables.settings_diff_frame(views, "en")
    assert frame is not None
    assert frame.columns == ["group", "setting", "DAPO (3 runs)", "GRPO (3 runs)", "RLOO (3 runs)"]
    assert frame.filter(pl.col("setting") == "advantage estimator").row(0)[2:] == ("grpo", "grpo", "rloo")
    one_group = tables.settings_diff_frame([view for view in views if view.id.startswith("dapo")], "en")
    assert one_group is not None and one_group.columns[2:] == ["dapo_seed1 · DAPO", "dapo_seed2 · DAPO",
                                                               "dapo_seed3 · DAPO"]  # fmt: skip


def test_report_draws_the_std_band(tmp_path: Path) -> None:
    """``rlmon report`` draws each group's band as mean ± one sample standard deviation unless told otherwise."""
    write_repeats_root(tmp_path)
    views = repeat_views(tmp_path)
    options = report.ReportOptions(smoothing=Smoothing("none"), metrics=("pass_rate",))
    (chart,) = [item for item in report.report_charts(views, insights=model.Insights(), options=options)
                if item.section == "overview"]  # fmt: skip
    rows = pl.DataFrame(chart.spec["datasets"]["rlmon_groups"])
    # DAPO step 8: seeds 1 and 2 at 11.8 and 12.8 -> mean 12.3, sample std sqrt(0.5) (min-max would be 11.8-12.8)
    row = rows.filter(pl.col("label") == "DAPO (3 runs)", pl.col("step") == 8).row(0, named=True)
    assert (row["low"], row["high"], row["n"]) == (pytest.approx(12.3 - 0.5**0.5), pytest.approx(12.3 + 0.5**0.5), 2)


def _long(values: dict[str, list[float | None]]) -> pl.DataFrame:
    """A long frame of one metric: run -> its value at steps 1, 2, ... (None: not logged there)."""
    rows = [
        (run, step, step / 60, "m", value)
        for run, series in values.items()
        for step, value in enumerate(series, start=1)
        if value is not None
    ]
    return pl.DataFrame(rows, schema=["experiment", "step", "hours", "metric", "value"], orient="row")


def _group_spec(long: pl.DataFrame, *, band: str, **options: Any) -> dict[str, Any]:
    runs = long["experiment"].unique().sort().to_list()
    return charts.metric_chart_spec(
        long,
        charts.ChartOptions(title="m", y_title="m", groups=dict.fromkeys(runs, "g"), group_names={"g": "G"},
                            band=band, **options),  # type: ignore[arg-type]
    )  # fmt: skip


def test_the_std_band_stays_inside_the_plot() -> None:
    """Members at 0, 0.1 and 1: mean 11/30, sample std sqrt(((11/30)² + (8/30)² + (19/30)²) / 2) = sqrt(273/900)
    = 0.55076, so the band runs from -0.18409 to 0.91743; the y domain reaches below every run's lowest value to
    hold it (min-max keeps the runs' own 0 to 1), and the area is clipped to the plot all the same."""
    long = _long({"a": [0.0, 0.0], "b": [0.1, 0.1], "c": [1.0, 1.0]})
    spec = _group_spec(long, band="std")
    band = next(layer for layer in spec["layer"] if layer["mark"]["type"] == "area")
    assert band["mark"]["clip"] is True
    rows = pl.DataFrame(spec["datasets"][band["data"]["name"]])
    low, high = 11 / 30 - (273 / 900) ** 0.5, 11 / 30 + (273 / 900) ** 0.5
    assert rows["low"].to_list() == [pytest.approx(low), pytest.approx(low)] and low == pytest.approx(
        -0.18409, abs=1e-5
    )
    assert rows["high"].to_list() == [pytest.approx(high), pytest.approx(high)]
    for layer in spec["layer"]:
        domain = layer["encoding"].get("y", {}).get("scale", {}).get("domain")
        if domain is not None:  # every layer on the one y scale
            assert domain[0] <= low and domain[1] >= 1.0, layer["mark"]
    lines = spec["layer"][0]["encoding"]["y"]["scale"]["domain"]
    assert lines[0] == pytest.approx(-0.2)  # the round tick below -0.184
    minmax = _group_spec(long, band="minmax")["layer"][0]["encoding"]["y"]["scale"]["domain"]
    assert minmax == [0.0, 1.0]


def test_group_rows_thinned_as_the_lines() -> None:
    """Three members of 2,000 steps on an 800-pixel plot: without smoothing the group keeps at most the band's
    lowest and highest row of each pixel column (1,600) plus the rows around where its band stops; member b's spike
    at step 1,000 keeps its row (the band's top there), and the last step is kept. With smoothing the group's rows
    sit on the smoothed lines' x values (3 lines: 400 buckets of 1,200 points)."""
    steps = 2000
    a = [0.001 * step for step in range(1, steps + 1)]
    b = [value + 0.1 for value in a]
    b[999] = 50.0
    # only a logs steps 700-710: no band there, and the band must break there after thinning
    c: list[float | None] = [None if 700 <= step <= 710 else a[step - 1] + 0.2 for step in range(1, steps + 1)]
    b_gap: list[float | None] = [None if 700 <= step <= 710 else value for step, value in enumerate(b, start=1)]
    long = _long({"a": a, "b": b_gap, "c": c})
    spec = _group_spec(long, band="minmax", max_points=steps, plot_width=800)
    rows = pl.DataFrame(spec["datasets"]["rlmon_groups"])
    assert 800 <= rows.height <= 2 * 800 + 4
    assert rows["step"].max() == steps and rows["step"].is_sorted()
    spike = rows.filter(pl.col("step") == 1000).row(0, named=True)
    assert (spike["high"], spike["n"]) == (50.0, 3)
    # the break: 699 banded, a row of no band within 700-710, 711 banded again
    assert rows.filter(pl.col("step") == 699)["low"].to_list() == [pytest.approx(0.699)]
    assert rows.filter(pl.col("step").is_between(700, 710), pl.col("low").is_null()).height >= 1
    assert rows.filter(pl.col("step") == 711)["low"].to_list() == [pytest.approx(0.711)]
    smoothed = _group_spec(long, band="minmax", max_points=steps, smoothing=Smoothing("ema", weight=0.6))
    rows = pl.DataFrame(smoothed["datasets"]["rlmon_groups"])
    line_steps = set(pl.DataFrame(smoothed["datasets"]["rlmon_smoothed"])["step"].to_list())
    assert rows.height <= 401 + 4 and rows["step"].max() == steps
    assert set(rows["step"].to_list()) - line_steps <= set(range(699, 712))  # off the lines' x only at the break
    assert rows.filter(pl.col("step").is_between(700, 710), pl.col("low").is_null()).height >= 1


def test_a_name_set_in_two_tracks_draws_and_exports_two_groups(tmp_path: Path) -> None:
    """``group = "X"`` on two GRPO runs of track A and two DAPO runs of track B: two bands of two runs each in a
    chart of both tracks (not one band of four), and the download's group columns per track."""
    from rlmon.app.tables import download_frame

    write_repeats_root(tmp_path, toml=TWO_TRACKS)
    views = [view for view in repeat_views(tmp_path) if view.id in ("grpo_seed1", "grpo_seed2", "dapo_seed1",
                                                                        "dapo_seed2")]  # fmt: skip
    rows = _dataset(_pass_rate_spec(views), "rlmon_groups")
    step1 = rows.filter(pl.col("step") == 1).sort("mean")
    # step 1: GRPO seeds 1 and 2 at 1.1 and 2.1 -> 1.6; DAPO's at 11.1 and 12.1 -> 11.6
    assert step1.select("label", "mean", "n").rows() == [
        ("X (2 runs) ·", pytest.approx(1.6), 2),
        ("X (2 runs)", pytest.approx(11.6), 2),
    ]
    frame = download_frame(views, ["pass_rate"], Smoothing("none")).filter(pl.col("step") == 1).sort("experiment")
    assert frame.select("experiment", "group", "pass_rate (group mean)", "pass_rate (group n)").rows() == [
        ("dapo_seed1", "X", pytest.approx(11.6), 2),
        ("dapo_seed2", "X", pytest.approx(11.6), 2),
        ("grpo_seed1", "X", pytest.approx(1.6), 2),
        ("grpo_seed2", "X", pytest.approx(1.6), 2),
    ]


def test_a_running_member_keeps_its_group_current(tmp_path: Path) -> None:
    """DAPO's seeds 2 and 3 are running (their logs grew 30 s ago) at steps 8 and 6 of 10: the group's row says so,
    and when seed 2 logs steps 9 and 10 the next read draws DAPO's band on to step 10 with seed 2's new values."""
    write_repeats_root(tmp_path)
    views = repeat_views(tmp_path)
    assert {view.id: view.status for view in views if view.id.startswith("dapo")} == {
        "dapo_seed1": "finished", "dapo_seed2": "running", "dapo_seed3": "running",
    }  # fmt: skip
    numbers = {view.id: report.report_numbers(view) for view in views}
    frame, _opens = tables.grouped_experiments_frame(views, numbers, slugs={}, lang="en")
    assert frame.row(0, named=True)["status"] == "n = 3 · ✓ 1 finished · ▶ 2 running"
    before = _dataset(_pass_rate_spec(views), "rlmon_groups").filter(pl.col("label") == "DAPO (3 runs)")
    assert before.filter(pl.col("low").is_not_null())["step"].max() == 8
    append_steps(tmp_path, "dapo", 2, range(9, 11))
    after = _dataset(_pass_rate_spec(repeat_views(tmp_path, now=NOW + 60)), "rlmon_groups")
    dapo = after.filter(pl.col("label") == "DAPO (3 runs)").sort("step")
    # step 10: seed 1 at 11 + 0.1 * 10 = 12.0, seed 2 at 12 + 1.0 = 13.0 -> mean 12.5, band 12.0-13.0, n 2
    assert dapo.filter(pl.col("step") == 10).select("mean", "low", "high", "n").row(0) == (
        pytest.approx(12.5), pytest.approx(12.0), pytest.approx(13.0), 2,
    )  # fmt: skip
    assert dapo.filter(pl.col("low").is_not_null())["step"].to_list() == list(range(1, 11))
