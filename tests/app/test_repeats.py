"""Groups of repeats in the app (AppTest and the real navigation of ``streamlit_app.py``) on the repeats root
(tests/helpers/repeats_root.py: pass rate 10a + s + 0.1k for algorithm a, seed s, step k; DAPO's seeds ran 10, 8
and 6 steps): the band chosen by a link (``band=``) and by its control, each group's runs listed under the
experiments table, and a member's spike still marked in a chart that draws its group."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from rlmon.demo import write_demo_root
from tests.helpers.apptest import charts, run_app
from tests.helpers.repeats_root import write_repeats_root

SQRT_HALF = 0.5**0.5


@pytest.fixture
def repeats_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "logs"
    write_repeats_root(root, now=time.time())
    monkeypatch.setenv("RLMON_LOG_ROOT", str(root))
    monkeypatch.setenv("RLMON_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RLMON_LANGUAGE", "en")
    return root


def _group_rows(at: AppTest) -> pl.DataFrame:
    """The groups' rows of the overview's first chart that draws groups (the pass rate), drawn without smoothing
    (``smooth=none``): the band's edges are the logged values'."""
    for _spec, datasets in charts(at):
        if "rlmon_groups" in datasets:
            return datasets["rlmon_groups"]
    raise AssertionError("no chart draws a group")


def _dapo_step8(at: AppTest) -> tuple[Any, Any, Any]:
    """DAPO's band at step 8, where seeds 1 and 2 have 11.8 and 12.8 (seed 3 stopped after 6): min-max 11.8-12.8,
    ± std 12.3 ∓ sqrt(0.5)."""
    row = _group_rows(at).filter(pl.col("label") == "DAPO (3 runs)", pl.col("step") == 8).row(0, named=True)
    return row["low"], row["high"], row["n"]


def _band(at: AppTest) -> Any:
    return at.button_group(key="overview_band")


def test_a_link_chooses_the_std_band(repeats_root: Path) -> None:
    at = run_app({"band": "std", "smooth": "none"})
    assert not at.exception, [item.value for item in at.exception]
    assert _band(at).value == "std"
    assert _dapo_step8(at) == (pytest.approx(12.3 - SQRT_HALF), pytest.approx(12.3 + SQRT_HALF), 2)
    # a value the control does not offer is the default band, not an error
    other = run_app({"band": "iqr", "smooth": "none"})
    assert not other.exception, [item.value for item in other.exception]
    assert _band(other).value == "minmax"
    assert _dapo_step8(other) == (pytest.approx(11.8), pytest.approx(12.8), 2)


def test_the_band_control_redraws_the_bands_and_keeps_the_choice_in_the_link(repeats_root: Path) -> None:
    at = run_app({"smooth": "none"})
    assert _band(at).value == "minmax" and "band" not in at.query_params
    assert _dapo_step8(at) == (pytest.approx(11.8), pytest.approx(12.8), 2)
    _band(at).set_value("std").run()
    assert not at.exception, [item.value for item in at.exception]
    assert at.query_params["band"] == "std"
    assert _dapo_step8(at) == (pytest.approx(12.3 - SQRT_HALF), pytest.approx(12.3 + SQRT_HALF), 2)
    _band(at).set_value("minmax").run()
    assert "band" not in at.query_params  # the default stays out of the address
    assert _dapo_step8(at) == (pytest.approx(11.8), pytest.approx(12.8), 2)


def test_each_groups_runs_are_listed_under_the_table(repeats_root: Path) -> None:
    at = run_app()
    assert not at.exception, [item.value for item in at.exception]
    table = next(item.value for item in at.dataframe if "first5" in item.value.columns)
    assert list(table["experiment"]) == ["DAPO (3 runs)", "GRPO (3 runs)", "RLOO (3 runs)"]
    expanders = [item for item in at.expander if item.label.endswith(": its 3 runs")]
    assert [item.label for item in expanders] == ["DAPO: its 3 runs", "GRPO: its 3 runs", "RLOO: its 3 runs"]
    for expander, algorithm in zip(expanders, ("dapo", "grpo", "rloo"), strict=True):
        (runs,) = [item.value for item in expander.dataframe]
        name = algorithm.upper()
        assert list(runs["experiment"]) == [f"{algorithm}_seed{seed} · {name}" for seed in (1, 2, 3)]
    rloo = next(item.value for item in expanders[2].dataframe)
    # RLOO's seed 3 crashed after step 5 of 10; seeds 1 and 2 finished
    assert [status.split(" ")[0] for status in rloo["status"]] == ["✓", "✓", "✗"]


def test_a_members_spike_stays_marked_on_its_groups_chart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo with its 4B E1 and E2 set as one group (``group = "spiky"`` in rlmon.toml): the grad_norm chart
    draws the group's band and mean, and E2's own spikes (steps 43 and 59, as on the demo without the group) keep
    their markers, named for E2."""
    root = write_demo_root(tmp_path / "logs")
    toml = (root / "rlmon.toml").read_text(encoding="utf-8")
    for run in ("4b/e1_grpo_4b", "4b/e2_dapo_4b"):
        header = f'[experiments."{run}"]\n'
        assert header in toml
        toml = toml.replace(header, header + 'group = "spiky"\n')
    (root / "rlmon.toml").write_text(toml, encoding="utf-8")
    monkeypatch.setenv("RLMON_LOG_ROOT", str(root))
    monkeypatch.setenv("RLMON_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RLMON_LANGUAGE", "en")
    at = run_app()
    assert not at.exception, [item.value for item in at.exception]
    spec, datasets = next((spec, data) for spec, data in charts(at) if spec.get("title") == "grad_norm")
    assert "area" in [layer["mark"]["type"] for layer in spec["layer"]]
    assert datasets["rlmon_groups"]["label"].unique().to_list() == ["spiky (2 runs)"]
    (markers,) = [layer for layer in spec["layer"] if layer.get("mark", {}).get("shape") == "triangle-down"]
    e2 = datasets[markers["data"]["name"]].filter(pl.col("experiment") == "4b/e2_dapo_4b").sort("step")
    assert e2["step"].to_list() == [43, 59]
    assert e2["value"].cast(pl.Float64).round(2).to_list() == [0.96, 1.13]
