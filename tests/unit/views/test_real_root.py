"""A root of real, unrelated logs reads as clearly as the demo: every log of ``../shared/realdata/verl`` in a folder of
its own (built in a temporary folder), read as the app reads it, three hours after the logs last grew. The track of
each log, its status and progress, and the names the views show were read off the logs by hand
(tests/helpers/realdata_root.py says where)."""

from __future__ import annotations

import dataclasses
import re
import shutil
from pathlib import Path

import pytest

from rlmon.analysis.signals import detect_all
from rlmon.analysis.smoothing import Smoothing
from rlmon.analysis.summary import paragraph_parts, write_summary
from rlmon.app.markup import legend_html
from rlmon.logs.cache import LogCache
from rlmon.runs.experiment import DASH_PATTERNS
from rlmon.runs.loading import load_experiments
from rlmon.settings import Settings
from rlmon.sources.discovery import discover_experiments
from rlmon.text import format_progress
from rlmon.text.names import look_alike_key
from rlmon.views import detail, model, overview, tables
from tests.helpers.realdata_root import REAL_STATES as STATES
from tests.helpers.realdata_root import REAL_TRACKS, SFT_LOGS, write_realdata_root

QUIET_S = 3 * 3600.0
"""The logs last grew three hours before the page is looked at."""


def _views(root: Path, cache_dir: Path, *, now: float) -> list[model.ExperimentView]:
    catalog = discover_experiments([root])
    experiments = load_experiments(catalog, LogCache(cache_dir), now=now, settings=Settings())
    refs = {ref.id: ref for ref in catalog.experiments}
    return [model.view_of(refs[item.id], item, serial=index) for index, item in enumerate(experiments, start=1)]


def _in_view(views: list[model.ExperimentView]) -> list[model.ExperimentView]:
    lineup = model.lineup_of(views)
    return [model.styled(view, lineup) for view in views]


@pytest.fixture(scope="module")
def real(realdata_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[list[model.ExperimentView], float]:
    folder = tmp_path_factory.mktemp("real-root")
    root = write_realdata_root(realdata_dir, folder / "logs")
    now = max(log.stat().st_mtime for log in root.glob("*/*.log")) + QUIET_S
    return _views(root, folder / "cache", now=now), now


def _track(views: list[model.ExperimentView], track: str) -> list[model.ExperimentView]:
    return _in_view([view for view in views if view.experiment.track == track])


def test_each_log_is_on_the_track_a_person_reading_it_would_name(
    real: tuple[list[model.ExperimentView], float],
) -> None:
    views, _ = real
    assert {view.id: view.experiment.track for view in views} == REAL_TRACKS
    assert not set(SFT_LOGS) & {view.id for view in views}


def test_status_and_progress_of_each_run(real: tuple[list[model.ExperimentView], float]) -> None:
    views, _ = real
    shown = {
        view.id: (view.status, format_progress(view.experiment.steps_done, view.experiment.total_steps, "en"))
        for view in views
    }
    assert shown == STATES


def test_no_two_runs_of_a_view_share_a_colour_or_a_name(real: tuple[list[model.ExperimentView], float]) -> None:
    views, _ = real
    every_track = {view.experiment.track for view in views}
    for shown in [_in_view(views), *(_track(views, track) for track in every_track)]:
        assert len(shown) <= 20
        assert len({view.color.lower() for view in shown}) == len(shown)
        assert {view.dash for view in shown} == {0}
        assert len({look_alike_key(view.label) for view in shown}) == len(shown)


def test_names_keep_what_tells_the_runs_of_a_track_apart(real: tuple[list[model.ExperimentView], float]) -> None:
    views, _ = real
    # the rule of docs/using.md, applied by hand: the first word, the word where a run of the same algorithm first
    # differs, then words in order while the name stays within 22 characters; "…" for words left out
    assert {view.id: view.label for view in _track(views, "Qwen2.5-0.5B-Instruct")} == {
        "alignx-resume-at-final-step-pdb-2025-07": "alignx-resume-at… · PPO",
        "ehl-qwen25-05b-ppo-gsm8k-resp256-v0.1-2024-12": "ehl-qwen25…resp256… · PPO",
        "ehl-qwen25-05b-ppo-gsm8k-v0.1-2024-12": "ehl-qwen25-05b…v0.1… · PPO",
        "tpu-xla-ppo-stalled-at-step0-2025-07": "tpu-xla-ppo-stalled… · PPO",
    }
    # two runs told apart by their algorithm keep the same words
    assert [view.label for view in _track(views, "deepseek-llm-7b-chat")] == [
        "amd-mi300-deepseek7b… · GRPO",
        "amd-mi300-deepseek7b… · PPO",
    ]
    # the tooltip holds the whole label (the id is in it)
    amd = _track(views, "deepseek-llm-7b-chat")[0]
    assert amd.tooltip == "amd-mi300-deepseek7b-grpo-gsm8k-2025-03 · GRPO"


def test_the_summary_gives_each_run_its_own_clause_and_numbers(real: tuple[list[model.ExperimentView], float]) -> None:
    views, _ = real

    def summary(shown: list[model.ExperimentView], lang: str = "en") -> list[str]:
        experiments = [dataclasses.replace(view.experiment, label=view.label) for view in shown]
        return write_summary(experiments, detect_all(experiments, settings=Settings()), lang=lang)

    first = summary(_track(views, "Qwen2.5-0.5B-Instruct"))[0]
    assert first.startswith(
        "Qwen2.5-0.5B-Instruct: alignx-resume-at… finished 105/105, ehl-qwen25…resp256…, ehl-qwen25-05b…v0.1… "
        "finished 435/435, tpu-xla-ppo-stalled… stalled 0/58. "
    )
    # every number next to its run. From the logs' step lines: critic/score/mean (scores 0/1, so the pass rate is
    # the mean x 100) over steps 1-5 and the last 10: GRPO 0.3966 -> 0.9771, PPO 0.3454 -> 0.9573; the
    # `val/test_score/openai/gsm8k` lines: GRPO best 0.706 at step 900, PPO 0.713 at step 950; at step 1120 GRPO
    # 0.697, PPO 0.701
    assert summary(_track(views, "deepseek-llm-7b-chat"))[0] == (
        "deepseek-llm-7b-chat: amd-mi300-deepseek7b… (GRPO), amd-mi300-deepseek7b… (PPO) finished 1,120 steps. "
        "Pass rate, first-5 → last-10-step mean: amd-mi300-deepseek7b… (GRPO) 39.7% → 97.7%, "
        "amd-mi300-deepseek7b… (PPO) 34.5% → 95.7%. Best openai/gsm8k: amd-mi300-deepseek7b… (PPO) 0.713 at step "
        "950, amd-mi300-deepseek7b… (GRPO) 0.706 at step 900. At the last validation (step 1120) "
        "amd-mi300-deepseek7b… (PPO) leads with 0.701."
    )
    assert summary(_track(views, "deepseek-llm-7b-chat"), "zh")[0] == (
        "deepseek-llm-7b-chat：amd-mi300-deepseek7b… (GRPO)、amd-mi300-deepseek7b… (PPO) 已完成 1,120 步。"
        "pass rate（首 5 步 → 末 10 步均值）：amd-mi300-deepseek7b… (GRPO) 39.7% → 97.7%，"
        "amd-mi300-deepseek7b… (PPO) 34.5% → 95.7%。openai/gsm8k 最高：amd-mi300-deepseek7b… (PPO) 0.713（step "
        "950），amd-mi300-deepseek7b… (GRPO) 0.706（step 900）。最后一次验证（step 1120）amd-mi300-deepseek7b… (PPO) "
        "最高，为 0.701。"
    )
    # what sets each run apart is said only among three runs or more of at least 10 steps: the "unknown model"
    # track's three have 1, 870 (one step line) and 2 steps; Qwen2.5-0.5B compares only the two ehl runs
    for track in ("unknown model", "Qwen2.5-0.5B-Instruct", "deepseek-llm-7b-chat"):
        assert not any("What sets each run apart" in paragraph for paragraph in summary(_track(views, track))), track
    # GPG: critic/score/mean 0.669 -> 0.9409 (FSDP), 0.695 -> 0.9848 (Megatron)
    assert (
        "Pass rate, first-5 → last-10-step mean: gpg-qwen2-7b-fsdp… 66.9% → 94.1%, gpg-qwen2-7b-megatron… 69.5% → "
        "98.5%." in summary(_track(views, "Qwen2-7B-Instruct"))[0]
    )
    # the header's progress line: each run's progress beside it; twins told apart by their algorithm
    deepseek = _track(views, "deepseek-llm-7b-chat")
    assert overview.progress_line(deepseek, "en") == (
        "amd-mi300-deepseek7b… · GRPO, amd-mi300-deepseek7b… · PPO finished 1,120 steps"
    )
    assert overview.progress_line(deepseek, "zh") == (
        "amd-mi300-deepseek7b… · GRPO、amd-mi300-deepseek7b… · PPO 已完成 1,120 步"
    )
    # every run in view: how many of each status, in one short sentence; 13 tracks: the 11 models of REAL_TRACKS
    # and the two runs of unknown model, each on a track of its own
    every = summary(_in_view(views))
    assert every[0] == "19 runs on 13 tracks: 7 stalled, 3 crashed, 9 finished."
    assert overview.progress_line(_in_view(views), "en") == "7 stalled · 3 crashed · 9 finished"
    assert overview.overview_header(_in_view(views), clock="10:00:00", lang="en").tracks == ("13 tracks",)


def test_a_track_of_many_runs_lists_them_one_clause_each(real: tuple[list[model.ExperimentView], float]) -> None:
    # all nineteen runs on one track (as rlmon.toml's `track` would put them): the status is a list, each item
    # naming its runs with their own status and progress, never numbers detached from their runs
    views, _ = real
    shown = _in_view([dataclasses.replace(view, experiment=dataclasses.replace(
        view.experiment, track="all runs")) for view in views])  # fmt: skip
    experiments = [dataclasses.replace(view.experiment, label=view.label) for view in shown]
    paragraphs = write_summary(experiments, detect_all(experiments, settings=Settings()), lang="en")
    lead, items = paragraph_parts(paragraphs[0])
    assert lead == "all runs, 19 runs:"
    # an item: "<names> <status> <progress>", its names as the summary writes them (the first part of a name, or
    # the name with its algorithm where two runs share that first part)
    ids_of: dict[str, str] = {}
    for view in shown:
        head, _, algorithm = view.label.partition(" · ")
        ids_of[head] = ids_of[f"{head} ({algorithm})"] = view.id
    told = []
    for item in items:
        found = re.fullmatch(r"(.*) (finished|running|stalled|crashed) (.*)", item)
        assert found is not None, item
        names, status, progress = found.groups()
        for name in names.split(", "):
            experiment_id = ids_of[name]
            assert STATES[experiment_id] == (status, progress), (experiment_id, item)
            told.append(experiment_id)
    assert sorted(told) == sorted(STATES)
    # seven runs' pass rates would not read as prose: a list, one run a line, each with its own numbers (the
    # means of critic/score/mean x 100 over the first 5 and the last 10 step lines; a run without it, or with
    # fewer than 10 steps while others finished, is not compared)
    assert paragraph_parts(paragraphs[1]) == (
        "Pass rate, first-5 → last-10-step mean:",
        [
            "amd-mi300-deepseek7b… (GRPO) 39.7% → 97.7%",  # 0.3966 -> 0.9771
            "amd-mi300-deepseek7b… (PPO) 34.5% → 95.7%",  # 0.3454 -> 0.9573
            "dstack-ppo-qwen25-7b… 94.2% → 94.1%",  # 0.9422 -> 0.9412
            "ehl-qwen25…resp256… 0.5% → 69.7%",  # 0.0048 -> 0.6967
            "ehl-qwen25-05b…v0.1… 1.3% → 71.7%",  # 0.0134 -> 0.7166
            "gpg-qwen2-7b-fsdp… 66.9% → 94.1%",  # 0.669 -> 0.9409
            "gpg-qwen2-7b-megatron… 69.5% → 98.5%",  # 0.695 -> 0.9848
        ],
    )


def test_one_status_word_everywhere_for_a_stalled_run(real: tuple[list[model.ExperimentView], float]) -> None:
    # ehl-gemma2-2b: 106 steps (0-based step:0 .. step:105), its log quiet for 3 hours: "stalled" in the table, the
    # sidebar legend, the hours bars, the page's badge and the summary, in both languages; never "running"
    views, _ = real
    shown = _track(views, "gemma-2-2b-it @58")
    (gemma,) = shown
    for lang, word, progress in (("en", "stalled", "106 steps"), ("zh", "停滞", "106 步")):
        frame = tables.experiments_frame(shown, {}, slugs={}, lang=lang)
        assert frame["status"][0] == f"⏸ {word} {progress}"
        assert f"⏸ {progress}" in legend_html(shown, lang) and f'title="{word}"' in legend_html(shown, lang)
        bars = overview._hours_bars(shown, lang)
        assert bars["text"][0] == f"4.2h\n{word}" if lang == "en" else f"4.2 小时\n{word}"
        assert detail.experiment_header(gemma, model.TableNumbers(), lang=lang).badge == f"⏸ {word} · {progress}"
        experiments = [dataclasses.replace(gemma.experiment, label=gemma.label)]
        said = " ".join(write_summary(experiments, detect_all(experiments, settings=Settings()), lang=lang))
        assert f"{word} {progress}" in said
        assert ("running" if lang == "en" else "运行中") not in said + frame["status"][0] + bars["text"][0]


def test_past_twenty_runs_those_sharing_a_colour_differ_in_dash(realdata_dir: Path, tmp_path: Path) -> None:
    # the real root and six more copies of its logs: 25 runs in the view of every track
    root = write_realdata_root(realdata_dir, tmp_path / "logs")
    for index, name in enumerate(sorted(REAL_TRACKS)[:6]):
        (root / f"again-{index}").mkdir()
        shutil.copy2(root / name / f"{name}.log", root / f"again-{index}" / f"{name}.log")
    views = _views(root, tmp_path / "cache", now=max(log.stat().st_mtime for log in root.glob("*/*.log")) + QUIET_S)
    assert len(views) == 25
    # the catalog hands out 20 colours: some repeat, as colors.json keeps them
    assert len({view.color for view in views}) == 20
    shown = _in_view(views)
    styles = [(view.color.lower(), view.dash) for view in shown]
    assert len(set(styles)) == 25
    assert len({color for color, _ in styles}) == 20 and sum(dash > 0 for _, dash in styles) == 5
    # the legend shows the dash, and so do the lines
    dashed = [view for view in shown if view.dash]
    assert legend_html(dashed, "en").count("border-top:3px") == 5
    plans = overview.comparison_charts(
        ["actor/entropy"], shown, smoothing=Smoothing("ema", weight=0.6), x="step", log_scale=False, signals=(),
        highlight=(), lang="en", max_points=500,
    )  # fmt: skip
    spec = plans[0].build()
    for layer in spec["layer"][:2]:  # the raw and the smoothed lines
        scale = layer["encoding"]["strokeDash"]["scale"]
        dash_of = dict(zip(scale["domain"], scale["range"], strict=True))
        drawn = [view for view in shown if view.label in dash_of]
        assert any(view.dash for view in drawn)
        assert all(dash_of[view.label] == list(DASH_PATTERNS[view.dash]) for view in drawn)
