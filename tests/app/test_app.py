"""The app through Streamlit's AppTest and the real navigation of ``streamlit_app.py``, on a demo root written
in a temp folder. Expected values come from the demo's description of the seed dashboard
(``../shared/docs/seed-dashboard.md``): 4B track, 16K response cap, five experiments, E5 running."""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from rlmon.analysis.smoothing import Smoothing
from rlmon.app import charts as app_charts
from rlmon.app import digests, loaders, markup, sidebar, state, tables, widgets
from rlmon.demo import write_demo_root
from rlmon.text import (
    LANGUAGES,
    MESSAGES,
    format_count,
    format_duration,
    format_hours,
    format_percent,
    language_from_locale,
    metric_title,
    setting_label,
)
from tests.helpers.apptest import (
    TRACK_4B,
    charts,
    hold_the_minute,
    open_page,
    record_chart_builds,
    run_app,
    texts,
    unescape,
)
from tests.helpers.paths import APP, REPO_ROOT


def page_paths(at: AppTest) -> list[str]:
    return [str(info.get("url_pathname")) for info in at._registered_pages.values()]


def chart_titled(at: AppTest, title: str) -> tuple[dict[str, Any], dict[str, pl.DataFrame]]:
    for spec, datasets in charts(at):
        if spec.get("title") == title:
            return spec, datasets
    raise AssertionError(f"no chart titled {title!r}; titles: {[spec.get('title') for spec, _ in charts(at)]}")


def main_data(spec: dict[str, Any], datasets: dict[str, pl.DataFrame]) -> pl.DataFrame:
    name = spec.get("data", {}).get("name", "")
    return datasets[name]


# --------------------------------------------------------------------------------------------- overview


def test_overview_renders_through_the_navigation(app_env: Path) -> None:
    at = run_app()
    assert not at.exception, [item.value for item in at.exception]
    for key in ("app_track", "app_lang", "app_live", "app_refresh_s", "app_experiments"):
        assert at.get_by_key(key) is not None, key
    for key in (
        "overview_metrics",
        "overview_filter",
        "overview_smoothing",
        "overview_weight",
        "overview_x",
        "overview_log",
    ):
        assert at.get_by_key(key) is not None, key
    # Default: the track with the newest log (4B: E5 is running), all its experiments.
    assert at.selectbox(key="app_track").value == "Qwen3.5-4B"
    assert at.multiselect(key="app_experiments").value == TRACK_4B
    page_text = unescape(texts(at))
    assert "4 GPUs · TP=4 · offload off · non-thinking · 16K response · 32×8/step" in page_text
    assert "E1–E4 finished 150/150" in page_text
    assert "E5 running 21/150" in page_text
    # the seed's six charts
    titles = [spec.get("title") for spec, _ in charts(at)]
    assert titles == [
        "pass rate (%)",
        "mean response length (tokens)",
        "policy entropy",
        "grad_norm",
        "Total training hours",
        "aime24 validation score",
    ]
    # running experiment selected: live refresh on by default
    assert at.toggle(key="app_live").value is True
    # every experiment has a page, grouped under its track
    paths = page_paths(at)
    assert "4b-e2-dapo-4b" in paths and "2b-e4-rloo-2b" in paths


_FRESH_OVERVIEW = """
import sys
from streamlit.testing.v1 import AppTest
at = AppTest.from_file(sys.argv[1], default_timeout=120)
at.run()
assert not at.exception, [item.value for item in at.exception]
assert len(at.dataframe) >= 2  # the experiments and signals tables were sent
print("pandas" in sys.modules)
"""


def test_a_fresh_server_draws_its_overview_without_importing_pandas(app_env: Path) -> None:
    # Streamlit turns any table that is not an Arrow one into a pandas frame, and importing pandas took 0.4 s of
    # a restarted server's first screen; rlmon sends its tables as Arrow (a process of its own: this one may have
    # imported pandas long ago).
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-c", _FRESH_OVERVIEW, str(APP)], capture_output=True, text=True, timeout=240, check=True,
        cwd=REPO_ROOT, env=os.environ.copy(),
    )  # fmt: skip
    assert result.stdout.strip().splitlines()[-1] == "False"


def test_experiments_table(app_env: Path) -> None:
    at = run_app()
    table = next(item for item in at.dataframe if "first5" in item.value.columns).value
    assert list(table["experiment"]) == ["E1 · GRPO", "E2 · DAPO", "E3 · Dr.GRPO", "E4 · RLOO", "E5 · REINFORCE++"]
    assert list(table["status"]) == ["✓ finished 150/150"] * 4 + ["▶ running 21/150"]
    assert "track" not in table.columns  # one track in view
    # seed: E2 fastest at 32.6h, E1 slowest at 37.2h
    assert table["hours"][1] == "32.6h"
    assert table["hours"][0] == "37.2h"
    # seed: aime24 best single values at step 125 for E3 (0.800) and E4 (0.833)
    assert table["best_val"][2] == "0.800 @125"
    assert table["best_val"][3] == "0.833 @125"
    assert table["page"][1] == "4b-e2-dapo-4b"
    assert len(table["spark"][0]) > 10


def test_signals_table_names_kinds_in_the_reader_language(app_env: Path) -> None:
    # demo 4B: E1's aime24 drop at 150, E2's grad_norm spikes at 43 and 59 and its rising entropy (seed page);
    # E1's training dumps, whose incorrect answers lengthen faster than its correct ones over steps 1-150
    at = run_app()
    signals = next(item for item in at.dataframe if "kind" in item.value.columns).value
    rows = sorted(zip(signals["experiment"], signals["kind"], signals["step"], strict=True))
    assert rows == [
        ("E1 · GRPO", "incorrect answers lengthen", "1–150"),
        ("E1 · GRPO", "validation drop", "150"),
        ("E2 · DAPO", "entropy rising", "1–150"),
        ("E2 · DAPO", "spike", "43"),
        ("E2 · DAPO", "spike", "59"),
    ]
    at.session_state["app_lang"] = "zh"
    at.run()
    signals = next(item for item in at.dataframe if "kind" in item.value.columns).value
    assert sorted(signals["kind"]) == sorted(["错误回答变长", "验证回落", "熵持续走高", "尖峰", "尖峰"])


def test_url_selects_experiments(app_env: Path) -> None:
    at = run_app({"exp": ["4b/e2_dapo_4b", "4b/e3_drgrpo_4b"]})
    assert not at.exception
    assert at.multiselect(key="app_experiments").value == ["4b/e2_dapo_4b", "4b/e3_drgrpo_4b"]
    spec, datasets = chart_titled(at, "Total training hours")
    bars = main_data(spec, datasets)
    assert sorted(bars["experiment"].to_list()) == ["4b/e2_dapo_4b", "4b/e3_drgrpo_4b"]


def test_url_across_tracks_selects_all_tracks(app_env: Path) -> None:
    at = run_app({"exp": ["4b/e1_grpo_4b", "2b/e1_grpo_2b"]})
    assert at.selectbox(key="app_track").value == "*"
    assert at.multiselect(key="app_experiments").value == ["4b/e1_grpo_4b", "2b/e1_grpo_2b"] or sorted(
        at.multiselect(key="app_experiments").value
    ) == ["2b/e1_grpo_2b", "4b/e1_grpo_4b"]


def test_unknown_experiment_in_url_is_reported(app_env: Path) -> None:
    at = run_app({"exp": ["4b/e1_grpo_4b", "../../etc/passwd"]})
    assert not at.exception
    assert at.multiselect(key="app_experiments").value == ["4b/e1_grpo_4b"]
    warnings = unescape("\n".join(item.value for item in at.warning))
    assert "../../etc/passwd" in warnings
    assert "not under the configured log roots" in warnings


def test_unknown_experiment_page(app_env: Path) -> None:
    at = run_app()
    open_page(at, "exp", {"id": "4b/no_such_run"})
    assert not at.exception
    assert "There is no experiment 4b/no\\_such\\_run" in "\n".join(item.value for item in at.warning)


def test_hours_chart_has_one_bar_per_experiment(app_env: Path) -> None:
    at = run_app()
    spec, datasets = chart_titled(at, "Total training hours")
    bars = main_data(spec, datasets)
    assert bars.height == 5
    assert sorted(bars["experiment"].to_list()) == sorted(TRACK_4B)
    assert spec["layer"][0]["mark"]["type"] == "bar"


def test_response_length_chart_has_the_cap_as_a_dashed_rule(app_env: Path) -> None:
    at = run_app()
    spec, _ = chart_titled(at, "mean response length (tokens)")
    rules = [
        layer
        for layer in spec["layer"]
        if isinstance(layer.get("mark"), dict) and layer["mark"].get("type") == "rule" and "strokeDash" in layer["mark"]
    ]
    assert len(rules) == 1
    assert rules[0]["encoding"]["y"]["datum"] == 16384


def test_changing_smoothing_changes_the_plotted_values(app_env: Path) -> None:
    at = run_app({"smooth": "none"})
    spec, datasets = chart_titled(at, "pass rate (%)")
    raw = main_data(spec, datasets).filter(pl.col("experiment") == "4b/e1_grpo_4b").sort("step")
    # no smoothing: the raw line alone, in full
    assert [layer["encoding"]["y"]["field"] for layer in spec["layer"] if layer["mark"]["type"] == "line"] == ["value"]
    at.session_state["overview_smoothing"] = "ma"
    at.session_state["overview_window"] = 5
    at.run()
    assert not at.exception
    spec, datasets = chart_titled(at, "pass rate (%)")
    assert main_data(spec, datasets).filter(pl.col("experiment") == "4b/e1_grpo_4b").sort("step").equals(raw)
    label = raw["label"][0]
    smoothed = datasets["rlmon_smoothed"].filter(pl.col("label") == label).sort("step")
    assert smoothed["step"].to_list() == raw["step"].to_list()
    values = raw["value"].to_list()
    # 5-step moving average with partial windows at the start (hand calculation from the raw values)
    assert smoothed["smoothed"][0] == pytest.approx(values[0])
    assert smoothed["smoothed"][4] == pytest.approx(sum(values[0:5]) / 5)
    assert smoothed["smoothed"][20] == pytest.approx(sum(values[16:21]) / 5)
    assert at.query_params.get("smooth") in (["ma"], "ma")


def test_the_overview_builds_its_charts_ahead_under_the_other_smoothing_methods(
    app_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Once the server is quiet, each drawn chart is built under the other smoothing methods: picking one then
    # builds none of this page's charts, and draws what that method gives.
    monkeypatch.setattr(app_charts, "AHEAD_QUIET_S", 0.2)
    # the page asks once per batch of charts; on a loaded machine (this process's other work holding the quiet
    # moment off) a request could run out of its 30 s before its turn: this one is about what gets built
    monkeypatch.setattr(app_charts, "AHEAD_LIMIT_S", 120.0)
    built = record_chart_builds(monkeypatch)  # keys of the overview's charts built (other tests' builds may run too)
    hold_the_minute(monkeypatch)  # E5 runs: the AppState's views and the charts' must be of one minute
    at = run_app({"smooth": "ema"})
    assert not at.exception
    by_id = {view.id: view for view in at.session_state[state._APP_STATE_KEY].views}
    assert at.multiselect(key="app_experiments").value == TRACK_4B
    mine = digests.views_key([by_id[experiment] for experiment in TRACK_4B])  # the experiments the charts show

    def built_here() -> list[tuple[Any, ...]]:
        return [key for key in built if key[2][0] == mine]

    drawn = charts(at)
    # the seed's four training charts depend on the smoothing; the hours bars and the validation scores do not
    lines = sum("rlmon_smoothed" in datasets and "validation" not in spec["title"] for spec, datasets in drawn)
    assert len(drawn) == 6 and lines == 4
    # each line chart is built ahead under "none" and "moving average": with the six drawn, 6 + 2 x 4 builds (the
    # views are this test's, so nothing was built before it); some may be done before the page's run returns
    expected, deadline = len(drawn) + 2 * lines, time.monotonic() + 120
    while len(built_here()) < expected and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(0.5)
    assert len(built_here()) == expected
    # every line chart under each of the three methods, once (key[3]: the smoothing)
    line_keys = [key for key in built_here() if len(key) == 8]
    metrics = {key[1] for key in line_keys}
    assert len(metrics) == lines
    assert sorted((key[1], key[3].method) for key in line_keys) == sorted(
        (metric, method) for metric in metrics for method in ("ema", "moving_average", "none")
    )
    at.session_state["overview_smoothing"] = "ma"
    at.session_state["overview_window"] = 5
    at.run()
    assert not at.exception
    assert len(charts(at)) == 6
    assert len(built_here()) == expected, "a chart of the moving average was built when it was picked"
    spec, datasets = chart_titled(at, "pass rate (%)")
    raw = main_data(spec, datasets).filter(pl.col("experiment") == "4b/e1_grpo_4b").sort("step")
    smoothed = datasets["rlmon_smoothed"].filter(pl.col("label") == raw["label"][0]).sort("step")
    values = raw["value"].to_list()
    assert smoothed["smoothed"][20] == pytest.approx(sum(values[16:21]) / 5)  # a 5-step moving average


def test_smoothing_comes_from_the_url(app_env: Path) -> None:
    at = run_app({"smooth": "ema", "w": "0.9", "x": "hours"})
    assert at.get_by_key("overview_smoothing").value == "ema"
    assert at.slider(key="overview_weight").value == pytest.approx(0.9)
    spec, _ = chart_titled(at, "pass rate (%)")
    assert spec["layer"][0]["encoding"]["x"]["field"] == "hours"


def test_tokens_axis_from_the_url(app_env: Path) -> None:
    at = run_app({"x": "tokens"})
    assert at.selectbox(key="overview_x").value == "tokens"
    spec, datasets = chart_titled(at, "pass rate (%)")
    assert spec["layer"][0]["encoding"]["x"]["field"] == "tokens"
    assert spec["layer"][0]["encoding"]["x"]["title"] == "tokens"
    # E1's first two steps on the tokens axis: its log's perf/total_num_tokens of step 1, then of steps 1 and 2
    log = next((app_env / "4b" / "e1_grpo_4b").glob("*.log")).read_text(encoding="utf-8")
    logged = [float(found) for found in re.findall(r"perf/total_num_tokens:([0-9.]+)", log)[:2]]
    raw = main_data(spec, datasets).filter(pl.col("experiment") == "4b/e1_grpo_4b").sort("step")
    assert raw["tokens"].head(2).to_list() == [logged[0], logged[0] + logged[1]]
    assert "Tokens: prompt and response tokens of each step, from perf/total_num_tokens" in unescape(texts(at))
    at.selectbox(key="overview_x").set_value("gpu_hours").run()
    assert at.query_params["x"] == "gpu_hours"  # the choice is kept in the URL
    spec, _ = chart_titled(at, "pass rate (%)")
    assert spec["layer"][0]["encoding"]["x"]["field"] == "gpu_hours"


def test_signal_markers_on_grad_norm(app_env: Path) -> None:
    at = run_app()
    spec, datasets = chart_titled(at, "grad_norm")
    marker_layers = [layer for layer in spec["layer"] if layer.get("mark", {}).get("shape") == "triangle-down"]
    assert len(marker_layers) == 1
    markers = datasets[marker_layers[0]["data"]["name"]]
    # seed: E2's grad_norm spikes at steps 43 and 59
    e2 = markers.filter(pl.col("experiment") == "4b/e2_dapo_4b").sort("step")
    assert e2["step"].to_list() == [43, 59]
    assert e2["value"].cast(pl.Float64).round(2).to_list() == [0.96, 1.13]


def test_metric_selector_adds_any_logged_key(app_env: Path) -> None:
    at = run_app()
    chooser = at.multiselect(key="overview_metrics")
    assert "actor/pg_clipfrac" in chooser.options  # logged keys are shown as logged
    chooser.set_value([*chooser.value, "actor/pg_clipfrac"]).run()
    assert not at.exception
    assert "actor/pg_clipfrac" in [spec.get("title") for spec, _ in charts(at)]
    assert "actor/pg_clipfrac" in at.query_params.get("m", [])


def test_regex_filter_narrows_the_metric_choices(app_env: Path) -> None:
    at = run_app()
    at.text_input(key="overview_filter").set_value("^timing_s/").run()
    options = at.multiselect(key="overview_metrics").options  # as displayed
    chosen = {metric_title(key, "en") for key in at.multiselect(key="overview_metrics").value}
    assert all(option.startswith("timing_s/") or option in chosen for option in options)
    assert any(option.startswith("timing_s/") for option in options)


def test_what_changed_and_download(app_env: Path) -> None:
    at = run_app()
    diff = next(item.value for item in at.dataframe if "setting" in item.value.columns)
    kl = diff[diff["setting"] == "KL loss"]
    assert kl.shape[0] == 1
    assert kl.iloc[0]["E2 · DAPO"] == "off"
    assert at.get_by_key("overview_csv") is not None
    assert at.get_by_key("overview_parquet") is not None


def test_download_frame_holds_logged_derived_and_smoothed_columns(app_env: Path) -> None:
    at = run_app()
    assert not at.exception
    selected = at.session_state["_rlmon_app_state"].selected
    frame = tables.download_frame(selected, ["pass_rate"], Smoothing("moving_average", window=5))
    assert {"experiment", "label", "step", "critic/score/mean", "pass_rate", "hours", "pass_rate (smoothed)"} <= set(
        frame.columns
    )
    e1 = frame.filter(pl.col("experiment") == "4b/e1_grpo_4b", pl.col("pass_rate").is_not_null()).sort("step")
    assert e1.height == 150
    # pass rate from the logged ±1 score: (mean + 1) / 2 in percent
    assert e1["pass_rate"][0] == pytest.approx((e1["critic/score/mean"][0] + 1) / 2 * 100)
    rates = e1["pass_rate"].to_list()
    assert e1["pass_rate (smoothed)"][9] == pytest.approx(sum(rates[5:10]) / 5)
    plain = tables.download_frame(selected, ["pass_rate"], Smoothing())
    assert "pass_rate (smoothed)" not in plain.columns


def test_language_switch_changes_labels_and_numbers(app_env: Path) -> None:
    at = run_app()
    at.session_state["app_lang"] = "zh"
    at.run()
    assert not at.exception
    assert at.selectbox(key="app_track").label == "赛道"
    assert at.multiselect(key="app_experiments").label == "实验"
    titles = [spec.get("title") for spec, _ in charts(at)]
    assert "通过率（%）" in titles
    table = next(item for item in at.dataframe if "first5" in item.value.columns).value
    assert table["hours"][1] == "32.6 小时"
    assert "4 卡 · TP=4 · 关闭 offload" in unescape(texts(at))


def test_language_from_the_browser_locale(app_env: Path) -> None:
    at = AppTest.from_file(APP, default_timeout=60)
    at.context["locale"] = "zh-CN"
    at.run()
    assert at.session_state["app_lang"] == "zh"


# ------------------------------------------------------------------------------------------ experiments


def test_every_experiment_page_renders(app_env: Path) -> None:
    at = run_app()
    slugs = [
        path for path in page_paths(at) if path not in ("", "_overview", "home", "exp", "generations", "notifications")
    ]
    assert len(slugs) == 9
    for slug in slugs:
        open_page(at, slug)
        assert not at.exception, (slug, [item.value for item in at.exception])
        for key in ("experiment_smoothing", "experiment_x", "experiment_family", "experiment_filter"):
            assert at.get_by_key(key) is not None, (slug, key)
        assert charts(at), slug


def test_experiment_page_content(app_env: Path) -> None:
    at = run_app()
    open_page(at, "4b-e2-dapo-4b")
    assert not at.exception
    html_text = "\n".join(str(item.proto.body) for item in at.get("html"))
    assert "E2 · DAPO" in html_text
    titles = [spec.get("title") for spec, _ in charts(at)]
    for title in (
        "Pass rate (%)",
        "Mean response length (tokens)",
        "Policy entropy",
        "Gradient norm (grad_norm)",
        "PPO clip fractions (%)",
        "Time per step by phase (s)",
        "Rollout↔training mismatch ((1−corr)×1e4)",
    ):
        assert title in titles, title
    assert "KL loss" not in titles  # DAPO runs without KL loss
    sources = next(item.value for item in at.dataframe if "role" in item.value.columns)
    # seed: E2 is two files, the first holding start-up output only
    assert list(sources["role"]) == ["start-up only", "training steps"]
    assert list(sources["range"]) == ["–", "1–150"]
    spec, _ = chart_titled(at, "Mean response length (tokens)")
    rules = [
        layer
        for layer in spec["layer"]
        if layer.get("mark", {}).get("type") == "rule" and "strokeDash" in layer["mark"]
    ]
    assert rules and rules[0]["encoding"]["y"]["datum"] == 16384


def test_experiment_page_kl_loss_when_logged(app_env: Path) -> None:
    at = run_app()
    open_page(at, "4b-e1-grpo-4b")
    assert "KL loss" in [spec.get("title") for spec, _ in charts(at)]


def test_generic_experiment_link(app_env: Path) -> None:
    at = run_app()
    open_page(at, "exp", {"id": "4b/e4_rloo_4b"})
    assert not at.exception
    assert "E4 · RLOO" in "\n".join(str(item.proto.body) for item in at.get("html"))


def test_explorer_filter(app_env: Path) -> None:
    at = run_app()
    open_page(at, "4b-e1-grpo-4b")
    assert at.selectbox(key="experiment_family").value == "actor/"
    assert "actor/grad_norm" in [spec.get("title") for spec, _ in charts(at)]
    at.selectbox(key="experiment_family").set_value("*")
    at.text_input(key="experiment_filter").set_value("^timing_s/gen$").run()
    assert not at.exception
    assert "timing_s/gen" in [spec.get("title") for spec, _ in charts(at)]


# ------------------------------------------------------------------------------------------- bad roots


def test_empty_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("RLMON_LOG_ROOT", str(empty))
    monkeypatch.setenv("RLMON_CACHE_DIR", str(tmp_path / "cache"))
    at = run_app()
    assert not at.exception
    message = unescape("\n".join(item.value for item in at.info))
    assert "No verl logs under" in message and str(empty) in message


def test_vanished_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gone = tmp_path / "gone"
    monkeypatch.setenv("RLMON_LOG_ROOT", str(gone))
    monkeypatch.setenv("RLMON_CACHE_DIR", str(tmp_path / "cache"))
    at = run_app()
    assert not at.exception
    message = unescape("\n".join(item.value for item in at.error))
    assert str(gone) in message and "does not exist" in message


def test_bad_setting_is_a_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RLMON_REFRESH_S", "soon")
    monkeypatch.setenv("RLMON_CACHE_DIR", str(tmp_path / "cache"))
    at = run_app()
    assert not at.exception
    assert "RLMON_REFRESH_S" in unescape("\n".join(item.value for item in at.error))


# ------------------------------------------------------------------------------------------------ i18n


def test_every_message_has_every_language() -> None:
    for key, templates in MESSAGES.items():
        assert set(templates) == set(LANGUAGES), key
        assert all(text.strip() for text in templates.values()), key


def test_messages_use_the_same_fields_in_every_language() -> None:
    import string

    for key, templates in MESSAGES.items():
        fields = {
            lang: {name for _, name, _, _ in string.Formatter().parse(text) if name} for lang, text in templates.items()
        }
        assert fields["en"] == fields["zh"], key


def test_every_message_key_used_by_the_app_exists() -> None:
    import re

    sources = [
        REPO_ROOT / "streamlit_app.py",
        *(REPO_ROOT / "rlmon" / "app").glob("*.py"),
        *(REPO_ROOT / "pages").glob("*.py"),
    ]
    used = set()
    for path in sources:
        used |= set(re.findall(r"""\bt\(\s*["']([a-z0-9_ ./-]+)["']\s*[,)]""", path.read_text(encoding="utf-8")))
    assert used, "no message keys found"
    missing = sorted(key for key in used if key not in MESSAGES)
    assert not missing


def test_messages_built_from_a_prefix_exist() -> None:
    from typing import get_args

    from rlmon.analysis.signals import Severity
    from rlmon.runs.experiment import SETTING_GROUPS, SourceRole, Status

    keys = [f"status_{status}" for status in get_args(Status)]
    keys += [f"role_{role}" for role in get_args(SourceRole)]
    keys += [f"group_{group}" for group in SETTING_GROUPS]
    keys += [f"smoothing_{method}" for method in widgets.SMOOTHING_METHODS.values()]
    keys += [f"x_{axis}" for axis in widgets.X_AXES]
    keys += [f"severity_{severity}" for severity in get_args(Severity)]
    assert sorted(key for key in keys if key not in MESSAGES) == []


def test_every_algorithm_description_is_in_the_catalog_word_for_word() -> None:
    from rlmon.runs.experiment import ALGORITHMS

    assert {key: MESSAGES[f"algo_{key}"]["en"] for key in ALGORITHMS} == {
        key: description for key, (_, description) in ALGORITHMS.items()
    }


def test_number_formats_follow_the_language() -> None:
    assert format_duration(4 + 23 / 60, "en") == "4h23m"
    assert format_duration(4 + 23 / 60, "zh") == "4小时23分"
    assert format_hours(32.55, "en") == "32.6h" or format_hours(32.55, "en") == "32.5h"
    assert format_hours(32.6, "zh") == "32.6 小时"
    assert format_count(5100, "en") == "5.1k"
    assert format_count(5100, "zh") == "5.1千"
    assert format_count(51000, "zh") == "5.1万"
    assert format_percent(88.84, "en") == "88.8%"
    assert format_duration(None, "en") == "–"
    assert language_from_locale("zh-TW") == "zh"
    assert language_from_locale("fr-FR", default="en") == "en"


def test_every_setting_of_the_demo_has_a_translated_label(app_env: Path) -> None:
    at = run_app()
    keys = {item.key for view in at.session_state["_rlmon_app_state"].views for item in view.experiment.settings}
    assert "max_response_length" in keys
    assert sorted(key for key in keys if f"setting_{key}" not in MESSAGES) == []
    assert setting_label("kl_loss_coef", "KL loss coef", "zh") == "KL 损失系数"
    assert setting_label("unheard_of", "unheard of", "zh") == "unheard of"


# ------------------------------------------------------------------------------------------- live changes


@pytest.fixture
def own_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A demo root this test may change."""
    root = write_demo_root(tmp_path / "logs")
    monkeypatch.setenv("RLMON_LOG_ROOT", str(root))
    monkeypatch.setenv("RLMON_CACHE_DIR", str(tmp_path / "cache"))
    return root


def test_a_rewritten_log_is_read_again(own_root: Path) -> None:
    at = run_app()
    assert not at.exception
    log = next((own_root / "4b" / "e1_grpo_4b").glob("*.log"))
    text = log.read_text(encoding="utf-8")
    # the run restarted into the same file: only the lines up to step 10 are there now
    cut = text.index("step:11 - ")
    log.write_text(text[: text.rindex("\n", 0, cut) + 1], encoding="utf-8")
    time.sleep(3.2)  # the catalog is listed again after CATALOG_TTL_S
    at.run()
    assert not at.exception
    table = next(item for item in at.dataframe if "first5" in item.value.columns).value
    assert table["status"][0].endswith(" 10/150")


def test_a_new_experiment_appears_without_restart(own_root: Path) -> None:
    at = run_app()
    assert "4b-e6-grpo-4b" not in page_paths(at)
    shutil.copytree(own_root / "4b" / "e1_grpo_4b", own_root / "4b" / "e6_grpo_4b")
    time.sleep(3.2)
    at.run()
    assert not at.exception
    assert "4b-e6-grpo-4b" in page_paths(at)
    assert any(option.startswith("E6 · ") for option in at.multiselect(key="app_experiments").options)


# ------------------------------------------------------------------------------------------ the frame's state


def legend_text(at: AppTest) -> str:
    return "\n".join(str(item.proto.body) for item in at.get("html") if "display:flex" in str(item.proto.body))


def test_several_tracks_in_view_label_chips_and_legend_with_the_short_track(app_env: Path) -> None:
    at = run_app({"exp": ["4b/e1_grpo_4b", "2b/e1_grpo_2b"]})
    assert not at.exception
    assert at.selectbox(key="app_track").value == "*"
    options = at.multiselect(key="app_experiments").options
    assert "E1 · GRPO · 4B ✓" in options and "E1 · GRPO · 2B ✓" in options
    legend = legend_text(at)
    assert "E1 · GRPO · 4B" in legend and "E1 · GRPO · 2B" in legend
    # one track in view: the plain label
    at = run_app()
    assert "E2 · DAPO ✓" in at.multiselect(key="app_experiments").options
    assert "E2 · DAPO · 4B" not in legend_text(at)


def test_opening_an_experiment_page_shows_its_track(app_env: Path) -> None:
    at = run_app()
    assert at.session_state["app_track"] == "Qwen3.5-4B"
    open_page(at, "2b-e3-drgrpo-2b")
    assert not at.exception
    assert at.session_state["app_track"] == "Qwen3.5-2B"
    assert at.selectbox(key="app_track").value == "Qwen3.5-2B"
    assert at.multiselect(key="app_experiments").value == [
        "2b/e1_grpo_2b",
        "2b/e2_dapo_2b",
        "2b/e3_drgrpo_2b",
        "2b/e4_rloo_2b",
    ]
    # staying on the page, the visitor may pick another track
    at.selectbox(key="app_track").set_value("Qwen3.5-4B").run()
    assert at.session_state["app_track"] == "Qwen3.5-4B"


def test_opening_an_experiment_page_adds_it_when_not_picked(app_env: Path) -> None:
    at = run_app({"exp": ["4b/e1_grpo_4b"]})
    assert at.multiselect(key="app_experiments").value == ["4b/e1_grpo_4b"]
    open_page(at, "4b-e2-dapo-4b")
    assert not at.exception
    assert at.session_state["app_track"] == "Qwen3.5-4B"
    assert at.multiselect(key="app_experiments").value == ["4b/e1_grpo_4b", "4b/e2_dapo_4b"]
    # the hidden ?id= page does the same
    open_page(at, "exp", {"id": "2b/e4_rloo_2b"})
    assert at.session_state["app_track"] == "Qwen3.5-2B"
    assert "2b/e4_rloo_2b" in at.multiselect(key="app_experiments").value


REAL_LOGS = (
    "dstack-ppo-qwen25-7b-resumed-2025-05.log",
    "amd-mi300-deepseek7b-grpo-gsm8k-2025-03.log",
    "maze-ppo-main_task-crash-2025-03.log",
    "gpg-qwen2-7b-fsdp-gsm8k-math-2025-06.log",
)


@pytest.fixture
def real_root(tmp_path: Path, realdata_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The four real logs of REAL_LOGS, one folder each, no rlmon.toml; the crashed maze run is the newest log."""
    root = tmp_path / "logs"
    for name in REAL_LOGS:
        folder = root / name.removesuffix(".log")
        folder.mkdir(parents=True)
        shutil.copyfile(realdata_dir / name, folder / name)
    os.utime(root / "maze-ppo-main_task-crash-2025-03" / REAL_LOGS[2], (time.time(), time.time()))
    monkeypatch.setenv("RLMON_LOG_ROOT", str(root))
    monkeypatch.setenv("RLMON_CACHE_DIR", str(tmp_path / "cache"))
    return root


def test_first_screen_of_real_runs_on_four_tracks_compares_them(real_root: Path) -> None:
    at = run_app()
    assert not at.exception, [item.value for item in at.exception]
    assert at.session_state["app_track"] == "*"
    picked = at.multiselect(key="app_experiments").value
    assert len(picked) == 4
    # a comparison: a chart drawing several runs
    compared = [
        spec.get("title")
        for spec, datasets in charts(at)
        if datasets and main_data(spec, datasets).get_column("experiment").n_unique() >= 2
    ]
    assert compared, [spec.get("title") for spec, _ in charts(at)]
    assert "No experiment with training steps yet" not in texts(at)


def test_a_run_with_no_known_model_is_under_a_track_named_in_the_visitors_language(
    real_root: Path, realdata_dir: Path
) -> None:
    # The rl-insight log, the last 38 lines of a run, names no model (no model path, no model-size print): its
    # track is its own, "unknown model · <folder>", shown as 未知模型 in Chinese wherever a track is shown; the
    # address keeps the track's id.
    name = "rlinsight-npu-opd-grpo-end-of-run-2026-03"
    track = f"unknown model · {name}"
    (real_root / name).mkdir()
    shutil.copyfile(realdata_dir / f"{name}.log", real_root / name / f"{name}.log")
    at = run_app({"lang": "zh"})
    assert not at.exception, [item.value for item in at.exception]
    assert f"未知模型 · {name}" in at.selectbox(key="app_track").options
    [table] = [frame for frame in (element.value for element in at.dataframe) if "track" in frame.columns]
    assert f"未知模型 · {name}" in list(table["track"])
    page = open_page(run_app({"lang": "zh"}), name)
    assert not page.exception, [item.value for item in page.exception]
    header = " ".join(str(element.proto.body) for element in page.get("html"))
    # its algorithm is unknown too (no config, no command): said in Chinese as well
    assert f"未知算法 · 未知模型 · {name}" in header
    for shown in (at, page):
        words = [texts(shown), *shown.selectbox(key="app_track").options, header]
        words += [str(frame.to_dict()) for frame in (element.value for element in shown.dataframe)]
        assert not any("unknown" in text for text in words)
    english = run_app({"lang": "en"})
    assert track in english.selectbox(key="app_track").options
    english.selectbox(key="app_track").select(track).run()
    assert english.query_params["track"] == track  # the address names the track by its id
    assert english.multiselect(key="app_experiments").value == [name]


def test_sidebar_legend_reads_fresh_progress(own_root: Path, tmp_path: Path) -> None:
    from rlmon.demo import advance_running
    from rlmon.settings import Settings

    settings = Settings(cache_dir=tmp_path / "legend-cache")
    ids = ["4b/e5_reinforce_pp_4b", "4b/e1_grpo_4b"]
    before = sidebar.legend_views((own_root,), settings, ids)
    assert [view.id for view in before] == ids
    assert before[0].experiment.progress_text == "21/150"
    assert "▶ 21/150" in markup.legend_html(before, "en")
    assert advance_running(own_root)
    loaders.load_catalog.clear()  # (the catalog is otherwise listed again after CATALOG_TTL_S)
    after = sidebar.legend_views((own_root,), settings, ids)
    assert after[0].experiment.progress_text == "22/150"
    assert "▶ 22/150" in markup.legend_html(after, "en")


MAZE = "maze-ppo-main_task-crash-2025-03"
MAZE_FRAMES = [  # maze log lines 283, 285, 288, 291: the remote traceback after Ray's wrapper (line 282)
    "/root/LLM-Reasoning-Maze/verl/verl/trainer/main_ppo.py:159 in main_task",
    "/root/LLM-Reasoning-Maze/verl/verl/trainer/ppo/ray_trainer.py:996 in fit",
    "/root/LLM-Reasoning-Maze/verl/verl/workers/reward_manager/naive.py:64 in __call__",
    "/root/LLM-Reasoning-Maze/verl/verl/utils/reward_score/__init__.py:37 in _default_compute_score",
]


def test_real_crashed_run_shows_its_frames_and_error_on_its_page_and_in_its_signal(real_root: Path) -> None:
    at = open_page(run_app(), "maze-ppo-main-task-crash-2025-03")
    assert not at.exception, [item.value for item in at.exception]
    [code] = [item.value for item in at.code]
    assert code.splitlines() == [*MAZE_FRAMES, "NotImplementedError"]  # line 293 `NotImplementedError`
    # no step line in the log: it died before step 1
    assert (
        "crashed before step 1: NotImplementedError (in utils/reward_score/__init__.py:37 in _default_compute_score)"
        in unescape(texts(at)).replace("\u2060", "")
    )


def test_real_run_crashing_after_steps_names_the_step_on_its_page(
    tmp_path: Path, realdata_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the real PPO log through its `step:3 - ...` line (line 61), then the maze log's Hydra error block (lines
    # 265-295): a run that died during step 4
    ppo = (realdata_dir / "amd-mi300-deepseek7b-ppo-gsm8k-2025-03.log").read_text(encoding="utf-8")
    maze = (realdata_dir / f"{MAZE}.log").read_text(encoding="utf-8")
    folder = tmp_path / "logs" / "ppo"
    folder.mkdir(parents=True)
    head = "".join(ppo.splitlines(keepends=True)[:61])
    assert head.rstrip("\n").splitlines()[-1].startswith("step:3 - ")
    (folder / "train.log").write_text(head + "".join(maze.splitlines(keepends=True)[264:295]), encoding="utf-8")
    monkeypatch.setenv("RLMON_LOG_ROOT", str(tmp_path / "logs"))
    monkeypatch.setenv("RLMON_CACHE_DIR", str(tmp_path / "cache"))
    at = open_page(run_app(), "ppo")
    assert not at.exception, [item.value for item in at.exception]
    assert any(
        "The run failed after step 3. The last frames of the traceback and the error:" in str(item.value)
        for item in at.error
    )
    [code] = [item.value for item in at.code]
    assert code.splitlines() == [*MAZE_FRAMES, "NotImplementedError"]
    assert (
        "crashed after step 3: NotImplementedError (in utils/reward_score/__init__.py:37 in _default_compute_score)"
        in unescape(texts(at)).replace("\u2060", "")
    )


def test_real_experiment_page_shows_its_track_with_it_picked(real_root: Path) -> None:
    at = run_app()
    # gpg log line 655: 'path': '/data/share/ml/.cache/huggingface/hub/models--Qwen--Qwen2-7B-Instruct/...'
    at.selectbox(key="app_track").set_value("Qwen2-7B-Instruct").run()
    assert at.multiselect(key="app_experiments").value == ["gpg-qwen2-7b-fsdp-gsm8k-math-2025-06"]
    open_page(at, "maze-ppo-main-task-crash-2025-03")
    assert not at.exception
    # maze log line 265: 'actor_rollout_ref.model.path=Qwen/Qwen2.5-1.5B-Instruct'
    assert at.selectbox(key="app_track").value == "Qwen2.5-1.5B-Instruct"
    assert at.multiselect(key="app_experiments").value == [MAZE]


def axis_and_chart_titles(at: AppTest) -> set[str]:
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("title", "subtitle") and isinstance(value, str):
                    found.add(value)
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    for spec, _ in charts(at):
        walk(spec)
    return found


def english_words(text: str) -> list[str]:
    """Words of Latin letters that are not a metric key, a data source, a number with a unit or a key name."""
    return [
        word
        for word in re.findall(r"[\w./()@\-]+", text)
        if re.search(r"[A-Za-z]", word) and not re.search(r"[/_0-9.]", word) and word not in ("grad_norm", "TP", "verl")
    ]


def test_real_root_in_chinese_has_no_english_words_but_the_teams_own(real_root: Path) -> None:
    (real_root / "rlmon.toml").write_text(
        '[experiments.gpg-qwen2-7b-fsdp-gsm8k-math-2025-06]\ndescription = "Baseline GPG run, keep it"\n',
        encoding="utf-8",
    )
    at = run_app()
    at.session_state["app_lang"] = "zh"
    at.run()
    assert not at.exception
    titles = axis_and_chart_titles(at)
    assert "训练步" in titles and "词元数" in titles
    assert {title: english_words(title) for title in titles if english_words(title)} == {}
    page_text = unescape(texts(at))
    tables = [item.value for item in at.dataframe]
    cells = " ".join(str(value) for table in tables for value in table.astype(str).to_numpy().ravel())
    assert not re.search(r"\bGPUs\b|\boff\b", page_text + cells)
    # gpg log line 8: trainer.n_gpus_per_node=8 trainer.nnodes=1
    assert "8 卡" in page_text + cells
    # a page without rlmon.toml text: rlmon's own description of the algorithm, in Chinese
    open_page(at, "maze-ppo-main-task-crash-2025-03")
    assert not at.exception
    maze_text = unescape(texts(at))
    assert "行动者-评论家 PPO：由学习得到的价值模型（critic）给出 GAE 优势。" in maze_text
    assert "Actor-critic" not in maze_text
    # the team's text in rlmon.toml stays as written
    open_page(at, "gpg-qwen2-7b-fsdp-gsm8k-math-2025-06")
    assert "Baseline GPG run, keep it" in unescape(texts(at))
    assert {title: english_words(title) for title in axis_and_chart_titles(at) if english_words(title)} == {}


def test_real_explorer_filter_searches_every_family_and_the_family_is_kept_in_the_url(real_root: Path) -> None:
    at = open_page(run_app(), "dstack-ppo-qwen25-7b-resumed-2025-05")
    assert at.selectbox(key="experiment_family").value == "actor/"
    # a filter typed while actor/ is the family: the timing keys of step 101's line are found anyway
    at.text_input(key="experiment_filter").set_value("timing_s/(gen|update)").run()
    assert not at.exception
    titles = {spec.get("title") for spec, _ in charts(at)}
    assert {"timing_s/gen", "timing_s/update_critic", "timing_s/update_actor"} <= titles
    at.text_input(key="experiment_filter").set_value("").run()
    at.selectbox(key="experiment_family").set_value("critic/").run()
    assert at.query_params["fam"] == "critic/"
    # a link with the family opens on it
    again = open_page(run_app(), "dstack-ppo-qwen25-7b-resumed-2025-05", {"fam": "critic/"})
    assert again.selectbox(key="experiment_family").value == "critic/"
    assert "critic/vf_loss" in {spec.get("title") for spec, _ in charts(again)}


def test_sidebar_legend_follows_a_growing_real_log(
    tmp_path: Path, realdata_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rlmon.settings import Settings

    name = "dstack-ppo-qwen25-7b-resumed-2025-05.log"
    lines = (realdata_dir / name).read_text(encoding="utf-8").splitlines(keepends=True)
    root = tmp_path / "logs"
    log = root / "dstack" / name
    log.parent.mkdir(parents=True)
    # line 236 `Total training steps: 435`; line 511 `step:120 - ...`, line 518 `step:121 - ...`
    log.write_text("".join(lines[:511]), encoding="utf-8")
    monkeypatch.setenv("RLMON_LOG_ROOT", str(root))
    monkeypatch.setenv("RLMON_CACHE_DIR", str(tmp_path / "cache"))
    at = run_app()
    assert not at.exception
    assert "▶ 120/435" in legend_text(at)
    settings = Settings(cache_dir=tmp_path / "legend-cache")
    assert "▶ 120/435" in markup.legend_html(sidebar.legend_views((root,), settings, ["dstack"]), "en")
    with log.open("a", encoding="utf-8") as growing:
        growing.write("".join(lines[511:518]))
    loaders.load_catalog.clear()  # (the catalog is otherwise listed again after CATALOG_TTL_S)
    assert "▶ 121/435" in markup.legend_html(sidebar.legend_views((root,), settings, ["dstack"]), "en")
    at.run()
    assert "▶ 121/435" in legend_text(at)


def test_real_root_table_columns_fit_and_each_sparkline_has_its_own_scale(real_root: Path) -> None:
    at = run_app()
    [table] = [item for item in at.dataframe if "spark" in item.value.columns]
    columns = json.loads(table.proto.columns)
    shown = {name: config for name, config in columns.items() if not config.get("hidden")}
    assert "track" in shown  # four tracks in view
    # the grid is 978 px wide in a 1440 px window with the sidebar open (tests/browser/test_pages.py measures it):
    # the name column takes what its long names need (the browser test measures them drawn whole), from the
    # sparkline first; the other columns fit beside the name column's least width (120 px)
    name = shown["experiment"]["width"]
    assert name > 120
    assert sum(config["width"] for config in shown.values()) - name <= 978 - 120
    assert shown["spark"]["width"] == 48
    # no common y range: each run's pass-rate sparkline spans its own minimum to maximum
    assert shown["spark"]["type_config"] == {"type": "line_chart"}


def test_first_screen_of_real_runs_opens_the_newest_track_with_two_runs_with_steps(
    tmp_path: Path, realdata_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # both AMD logs give `actor_rollout_ref.model.path=$MODEL_PATH` (no dump) with `MODEL_PATH=
    # "deepseek-ai/deepseek-llm-7b-chat"` above it: one track of two runs with steps; the maze run (no step) and
    # the GPG run are tracks of one run each
    names = ("amd-mi300-deepseek7b-grpo-gsm8k-2025-03", "amd-mi300-deepseek7b-ppo-gsm8k-2025-03", MAZE,
             "gpg-qwen2-7b-fsdp-gsm8k-math-2025-06")  # fmt: skip
    root = tmp_path / "logs"
    for age, name in enumerate(reversed(names)):  # the maze log newest but one, the GPG log newest
        (root / name).mkdir(parents=True)
        shutil.copyfile(realdata_dir / f"{name}.log", root / name / f"{name}.log")
        os.utime(root / name / f"{name}.log", (time.time() - 3600 * age, time.time() - 3600 * age))
    monkeypatch.setenv("RLMON_LOG_ROOT", str(root))
    monkeypatch.setenv("RLMON_CACHE_DIR", str(tmp_path / "cache"))
    at = run_app()
    assert not at.exception
    assert at.selectbox(key="app_track").value == "deepseek-llm-7b-chat"
    assert at.multiselect(key="app_experiments").value == list(names[:2])
    assert "No experiment with training steps yet" not in texts(at)
