"""Catalog discovery and experiment loading on log trees built in tmp folders.

Real logs are copied into tmp roots (never into the repo); synthetic logs are written in verl's console
format by :func:`verl_log`.
"""

from __future__ import annotations

import json
import os
import pprint
import shutil
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

import rlmon.runs.loading as loading_module
import rlmon.sources.discovery as catalog_module
from rlmon.errors import CatalogError, UnknownExperimentError
from rlmon.logs.cache import LogCache
from rlmon.runs.loading import (
    COLOR_BOOK_NAME,
    ColorBook,
    catalog_colors,
    describe_root,
    load_experiment,
    load_experiments,
)
from rlmon.schema import PALETTE
from rlmon.settings import Settings
from rlmon.sources.discovery import (
    Catalog,
    decode_experiment_id,
    discover_experiments,
    encode_experiment_id,
    list_log_files,
    name_timestamp,
    sniff_log_head,
)
from rlmon.sources.rlmon_toml import parse_root_config

PREFIX = "\x1b[36m(TaskRunner pid=4242)\x1b[0m "
NOW = 2_000_000_000.0
SETTINGS = Settings()


def config(model: str = "/models/Qwen3.5-4B", estimator: str = "grpo", **trainer: Any) -> dict[str, Any]:
    return {
        "actor_rollout_ref": {
            "actor": {"loss_agg_mode": "token-mean", "use_kl_loss": True},
            "model": {"path": model},
            "rollout": {"n": 8, "name": "vllm", "tensor_model_parallel_size": 4},
        },
        "algorithm": {"adv_estimator": estimator},
        "data": {"max_response_length": 16384, "train_batch_size": 32},
        "trainer": {"n_gpus_per_node": 4, "nnodes": 1, "total_epochs": 1, **trainer},
    }


def verl_log(
    *,
    steps: range | list[int] = range(0),
    total: int | None = None,
    cfg: dict[str, Any] | None = None,
    grad_norm: float = 0.2,
    step_s: float = 600.0,
    tail: list[str] | None = None,
) -> str:
    """A console log shaped like verl's: config dump, totals, one metrics line per step."""
    lines: list[str] = []
    if cfg is not None:
        lines += [PREFIX + line for line in pprint.pformat(cfg, width=80).splitlines()]
    if total is not None:
        lines.append(PREFIX + f"Size of train dataloader: {total}, Size of val dataloader: 1")
        lines.append(PREFIX + f"Total training steps: {total}")
    for step in steps:
        lines.append(
            PREFIX + f"step:{step} - actor/grad_norm:{grad_norm} - critic/score/mean:0.5 - critic/score/min:-1.0 - "
            f"timing_s/step:{step_s}"
        )
    lines += tail or []
    return "\n".join(lines) + "\n"


def write(path: Path, text: str, *, mtime: float | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def load(catalog: Catalog, experiment_id: str, *, now: float = NOW) -> Any:
    return load_experiment(catalog.get(experiment_id), LogCache(None), now=now, settings=SETTINGS)


# ----------------------------------------------------------------------------------------------- pure parts


def test_name_timestamp() -> None:
    assert name_timestamp("train_20260716_021500.log") == datetime(2026, 7, 16, 2, 15, 0)
    assert name_timestamp("run-2026-07-16_02-15-00.log") == datetime(2026, 7, 16, 2, 15, 0)
    assert name_timestamp("train_20261399_021500.log") is None  # month 13
    assert name_timestamp("train.log") is None
    assert name_timestamp("train_1234567890123.log") is None


def test_sniff_log_head() -> None:
    assert sniff_log_head(verl_log(steps=[1]).encode()) == "rl"
    assert sniff_log_head(verl_log(cfg=config()).encode()) == "rl"
    assert sniff_log_head(b"Collecting torch\nInstalling collected packages: torch\n") == "none"
    assert sniff_log_head(b"step:0 - train/loss:1.2 - train/lr(1e-3):0.1\n") == "sft"
    jsonl = json.dumps({"step": 1, "data": {"actor/grad_norm": 0.1}}).encode() + b"\n"
    assert sniff_log_head(jsonl, suffix=".jsonl") == "rl"
    assert sniff_log_head(b'{"name": "x"}\n', suffix=".jsonl") == "none"


def test_experiment_ids_encode_for_urls() -> None:
    for experiment_id in ("4B/e2_dapo_4b", "run 1/实验 二", "a%b?c#d"):
        encoded = encode_experiment_id(experiment_id)
        assert all(char.isascii() and char not in "/ ?#" for char in encoded)
        assert decode_experiment_id(encoded) == experiment_id


# -------------------------------------------------------------------------------------------------- roots


def test_missing_root_names_it(tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    with pytest.raises(CatalogError) as caught:
        discover_experiments([missing])
    assert str(missing) in str(caught.value)
    a_file = write(tmp_path / "file.log", "x\n")
    with pytest.raises(CatalogError, match="not a folder"):
        discover_experiments([a_file])


def test_empty_root(tmp_path: Path) -> None:
    catalog = discover_experiments([tmp_path])
    assert catalog.experiments == ()
    assert any("no verl logs" in problem and str(tmp_path) in problem for problem in catalog.problems)


def test_tree_ids_file_order_and_ignored_files(tmp_path: Path) -> None:
    root = tmp_path / "exp2card"
    write(root / "4B" / "e1_grpo_4b" / "train_20260714_125151.log", verl_log(cfg=config(), total=3, steps=range(1, 4)))
    # E2: start-up only first, all steps in the second; mtimes reversed so only the names give the order
    e2 = root / "4B" / "e2_dapo_4b"
    write(e2 / "train_20260716_021500.log", verl_log(cfg=config(), total=3), mtime=NOW - 10)
    write(e2 / "train_20260716_023000.log", verl_log(cfg=config(), total=3, steps=range(1, 4)), mtime=NOW - 1000)
    write(e2 / "notes.txt", "not a log\n")
    write(root / "4B" / "e2_dapo_4b" / "ckpt" / "model.pt", "binary")
    write(root / "pip" / "install.log", "Collecting torch\nSuccessfully installed torch\n")
    catalog = discover_experiments([root])
    assert catalog.ids == ("4B/e1_grpo_4b", "4B/e2_dapo_4b")
    names = [item.name for item in catalog.get("4B/e2_dapo_4b").files]
    assert names == ["train_20260716_021500.log", "train_20260716_023000.log"]
    assert catalog.ignored == (str(root / "pip" / "install.log"),)
    assert catalog.ignored_files == 1

    e2_loaded = load(catalog, "4B/e2_dapo_4b")
    assert [source.role for source in e2_loaded.sources] == ["start-up only", "steps"]
    assert e2_loaded.sources[1].first_step == 1 and e2_loaded.sources[1].last_step == 3
    assert (e2_loaded.status, e2_loaded.steps_done, e2_loaded.total_steps) == ("finished", 3, 3)
    assert e2_loaded.problems == ()
    assert e2_loaded.label == "E2 · GRPO"
    assert e2_loaded.track == "Qwen3.5-4B"
    assert e2_loaded.steps.get_column("step").to_list() == [1, 2, 3]


def test_files_without_name_times_follow_mtime(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    write(folder / "a.log", verl_log(steps=[3]), mtime=NOW - 10)
    write(folder / "b.log", verl_log(steps=[1, 2]), mtime=NOW - 100)
    catalog = discover_experiments([tmp_path])
    assert [item.name for item in catalog.get("run").files] == ["b.log", "a.log"]


def test_unreadable_subfolder_is_reported_and_the_rest_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "good" / "train.log", verl_log(steps=[1]))
    locked = tmp_path / "locked"
    write(locked / "train.log", verl_log(steps=[1]))
    real_scandir = os.scandir

    def scandir(path: Any) -> Any:
        if Path(path) == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(catalog_module.os, "scandir", scandir)
    catalog = discover_experiments([tmp_path])
    assert catalog.ids == ("good",)
    assert any(str(locked) in problem and "Permission denied" in problem for problem in catalog.problems)


def test_symlink_loops_are_not_followed(tmp_path: Path) -> None:
    write(tmp_path / "a" / "train.log", verl_log(steps=[1]))
    (tmp_path / "a" / "back").symlink_to(tmp_path, target_is_directory=True)
    (tmp_path / "a" / "self.log").symlink_to(tmp_path / "a" / "self.log")
    catalog = discover_experiments([tmp_path])
    assert catalog.ids == ("a",)
    assert [item.name for item in catalog.get("a").files] == ["train.log"]
    assert any("back" in problem and "loop" in problem for problem in catalog.problems)
    assert any("self.log" in problem and "loop" in problem for problem in catalog.problems)
    (tmp_path / "a" / "gone.log").symlink_to(tmp_path / "a" / "missing.log")
    assert any("gone.log" in problem and "broken" in problem for problem in discover_experiments([tmp_path]).problems)


def test_symlink_outside_the_root_is_not_followed(tmp_path: Path) -> None:
    root = tmp_path / "root"
    outside = tmp_path / "outside"
    write(outside / "secret" / "train.log", verl_log(steps=[1]))
    write(root / "mine" / "train.log", verl_log(steps=[1]))
    (root / "elsewhere").symlink_to(outside, target_is_directory=True)
    (root / "mine" / "leak.log").symlink_to(outside / "secret" / "train.log")
    catalog = discover_experiments([root])
    assert catalog.ids == ("mine",)
    assert [item.name for item in catalog.get("mine").files] == ["train.log"]
    outside_problems = [problem for problem in catalog.problems if "outside the log root" in problem]
    assert len(outside_problems) == 2


def test_symlink_inside_the_root_is_followed_once(tmp_path: Path) -> None:
    write(tmp_path / "runs" / "e1" / "train.log", verl_log(steps=[1]))
    (tmp_path / "latest").symlink_to(tmp_path / "runs", target_is_directory=True)
    catalog = discover_experiments([tmp_path])
    # "latest" sorts before "runs": the folder is reached once, through whichever comes first
    assert len(catalog.experiments) == 1


def test_spaces_and_chinese_folder_names(tmp_path: Path) -> None:
    write(tmp_path / "run 1" / "实验 二" / "训练_20260716_021500.log", verl_log(cfg=config(), total=2, steps=[1, 2]))
    catalog = discover_experiments([tmp_path])
    assert catalog.ids == ("run 1/实验 二",)
    ref = catalog.get(encode_experiment_id("run 1/实验 二"))
    assert ref.files[0].named_time == datetime(2026, 7, 16, 2, 15, 0)
    experiment = load(catalog, "run 1/实验 二")
    assert experiment.label == "实验 二 · GRPO"
    assert experiment.status == "finished"


def test_several_roots_prefix_ids_with_the_root_name(tmp_path: Path) -> None:
    first = tmp_path / "2B"
    second = tmp_path / "4B"
    write(first / "e1_grpo" / "train.log", verl_log(steps=[1]))
    write(second / "e1_grpo" / "train.log", verl_log(steps=[1]))
    write(second / "root.log", verl_log(steps=[1]))
    catalog = discover_experiments([first, second])
    assert set(catalog.ids) == {"2B/e1_grpo", "4B/e1_grpo", "4B"}
    clash = tmp_path / "x" / "4B"
    write(clash / "e9" / "train.log", verl_log(steps=[1]))
    catalog = discover_experiments([second, clash])
    assert "4B~2/e9" in catalog.ids


def test_unknown_experiment(tmp_path: Path) -> None:
    write(tmp_path / "e1" / "train.log", verl_log(steps=[1]))
    with pytest.raises(UnknownExperimentError, match="e7"):
        discover_experiments([tmp_path]).get("e7")


def test_verl_jsonl_experiment(tmp_path: Path) -> None:
    records = [{"step": step, "data": {"actor/grad_norm": 0.1 * step, "timing_s/step": 60.0}} for step in (1, 2, 3)]
    write(tmp_path / "proj" / "exp.jsonl", "".join(json.dumps(record) + "\n" for record in records))
    catalog = discover_experiments([tmp_path])
    experiment = load(catalog, "proj", now=(tmp_path / "proj" / "exp.jsonl").stat().st_mtime + 1)
    assert experiment.steps_done == 3
    assert experiment.elapsed_h == pytest.approx(180 / 3600)


# ----------------------------------------------------------------------------------------------- loading


def test_two_files_claiming_the_same_steps(tmp_path: Path) -> None:
    folder = tmp_path / "e1"
    write(folder / "train_20260101_000000.log", verl_log(steps=[1, 2, 3], grad_norm=0.1, total=5))
    write(folder / "train_20260102_000000.log", verl_log(steps=[3, 4, 5], grad_norm=0.9, total=5))
    experiment = load(discover_experiments([tmp_path]), "e1")
    assert experiment.steps.get_column("step").to_list() == [1, 2, 3, 4, 5]
    assert experiment.steps.get_column("actor/grad_norm").to_list() == [0.1, 0.1, 0.9, 0.9, 0.9]
    [problem] = experiment.problems
    assert "train_20260102_000000.log" in problem and "train_20260101_000000.log" in problem
    assert "3" in problem
    assert experiment.status == "finished"


def test_file_deleted_between_listing_and_reading(tmp_path: Path) -> None:
    folder = tmp_path / "e1"
    first = write(folder / "train_20260101_000000.log", verl_log(steps=[1, 2], total=4))
    write(folder / "train_20260102_000000.log", verl_log(steps=[3, 4], total=4))
    catalog = discover_experiments([tmp_path])
    first.unlink()
    experiment = load(catalog, "e1")
    assert [source.role for source in experiment.sources] == ["unreadable", "steps"]
    assert experiment.steps.get_column("step").to_list() == [3, 4]
    assert any(str(first) in problem for problem in experiment.problems)
    assert experiment.missing_steps == ()


def test_resumed_and_crashed_attempt_roles(tmp_path: Path) -> None:
    folder = tmp_path / "e4_rloo"
    crash = ["Error executing job with overrides: []", "Traceback (most recent call last):",
             "torch.OutOfMemoryError: CUDA out of memory.",
             "Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace."]  # fmt: skip
    write(
        folder / "train_20260101_000000.log", verl_log(cfg=config(estimator="rloo"), total=6, steps=[1, 2], tail=crash)
    )
    resumed = verl_log(cfg=config(estimator="rloo"), total=6, steps=[3, 4]).replace(
        "Total training steps: 6\n", "Total training steps: 6\n" + PREFIX + "Setting global step to 2\n"
    )
    write(folder / "train_20260102_000000.log", resumed, mtime=NOW - 60)
    experiment = load(discover_experiments([tmp_path]), "e4_rloo")
    assert [source.role for source in experiment.sources] == ["crashed attempt", "resumed"]
    assert experiment.sources[0].note == "torch.OutOfMemoryError: CUDA out of memory."
    assert (experiment.status, experiment.progress_text) == ("running", "4/6")
    assert experiment.failure is None
    assert experiment.label == "E4 · RLOO"
    # 2 steps left x median 600 s
    assert experiment.eta_h == pytest.approx(1200 / 3600)


def test_stalled_by_mtime_through_the_catalog(tmp_path: Path) -> None:
    log = write(tmp_path / "e5" / "train.log", verl_log(total=150, steps=range(1, 22), step_s=750.0))
    os.utime(log, (NOW - 4 * 750, NOW - 4 * 750))
    experiment = load(discover_experiments([tmp_path]), "e5")
    assert (experiment.status, experiment.progress_text) == ("stalled", "21/150")
    assert experiment.idle_s == pytest.approx(3000)
    os.utime(log, (NOW - 100, NOW - 100))
    assert load(discover_experiments([tmp_path]), "e5").status == "running"


def test_real_logs_copied_into_a_tmp_root(tmp_path: Path, realdata_dir: Path) -> None:
    copies = {
        "maze": "maze-ppo-main_task-crash-2025-03.log",
        "gpg 7b": "gpg-qwen2-7b-fsdp-gsm8k-math-2025-06.log",
        "sft": "ehl-gemma2-2b-sft-gsm8k-v0.1-2024-12.log",
    }
    for folder, name in copies.items():
        (tmp_path / folder).mkdir()
        shutil.copyfile(realdata_dir / name, tmp_path / folder / name)
    catalog = discover_experiments([tmp_path])
    assert set(catalog.ids) == {"maze", "gpg 7b"}
    assert catalog.ignored == (str(tmp_path / "sft" / copies["sft"]),)
    assert any("SFT" in problem for problem in catalog.problems)
    maze = load(catalog, "maze")
    assert (maze.status, maze.failure, maze.algorithm.name) == ("crashed", "NotImplementedError", "PPO")
    assert maze.label == "maze · PPO"
    gpg = load(catalog, "gpg 7b")
    assert (gpg.status, gpg.progress_text, gpg.track) == ("finished", "210/210", "Qwen2-7B-Instruct")
    assert gpg.setting("batch") is not None and gpg.setting("batch").display == "1024×5"  # type: ignore[union-attr]


# ------------------------------------------------------------------------------------------------ rlmon.toml


def test_rlmon_toml_overrides(tmp_path: Path) -> None:
    write(tmp_path / "e1_grpo" / "train.log", verl_log(cfg=config(), steps=[1]))
    write(tmp_path / "b run" / "train.log", verl_log(cfg=config(), steps=[1]))
    write(
        tmp_path / "rlmon.toml",
        'pass_rate = "01"\n\n[experiments.e1_grpo]\nlabel = "GRPO baseline"\ndescription = "**KL** 1e-3"\n'
        'color = "#123456"\norder = 9\ntrack = "4B"\nhidden = true\npass_rate = "pm1"\n\n'
        '[experiments."b run"]\norder = 1\n',
    )
    catalog = discover_experiments([tmp_path])
    assert catalog.problems == ()
    assert catalog.ids == ("b run", "e1_grpo")  # order 1 before order 9
    first = load(catalog, "e1_grpo")
    assert (first.label, first.description, first.color, first.track) == (
        "GRPO baseline",
        "**KL** 1e-3",
        "#123456",
        "4B",
    )
    assert first.hidden is True and first.pass_rate_mode == "pm1" and first.order == 9
    other = load(catalog, "b run")
    assert other.pass_rate_mode == "01" and other.hidden is False
    assert other.description == other.algorithm.description


def test_rlmon_toml_errors_keep_the_rest_working(tmp_path: Path) -> None:
    write(tmp_path / "e1_grpo" / "train.log", verl_log(cfg=config(), steps=[1]))
    write(tmp_path / "rlmon.toml", '[experiments.e1_grpo]\nlabel = "ok"\norder = "first"\ncolour = "#fff"\n')
    catalog = discover_experiments([tmp_path])
    toml_path = str(tmp_path / "rlmon.toml")
    assert any(problem.startswith(f"{toml_path}:3:") and "order" in problem for problem in catalog.problems)
    assert any(problem.startswith(f"{toml_path}:4:") and "colour" in problem for problem in catalog.problems)
    assert load(catalog, "e1_grpo").label == "ok"

    write(tmp_path / "rlmon.toml", '[experiments.e1_grpo]\nlabel = "unterminated\n')
    catalog = discover_experiments([tmp_path])
    assert any(problem.startswith(f"{toml_path}:2:") for problem in catalog.problems)
    assert load(catalog, "e1_grpo").label == "E1 · GRPO"


def test_parse_root_config_problems() -> None:
    text = (
        'pass_rate = "half"\n[experiments.a]\ncolor = "red"\nhidden = 1\norder = true\n[experiments.b]\ntrack = "2B"\n'
    )
    parsed = parse_root_config(text, path="r/rlmon.toml")
    assert parsed.defaults.pass_rate is None
    assert parsed.experiments["b"].track == "2B"
    lines = sorted(int(problem.split(":")[1]) for problem in parsed.problems)
    assert lines == [1, 3, 4, 5]
    assert parsed.for_experiment("a").color is None


def test_rlmon_toml_alerts_table() -> None:
    text = (
        '[experiments.a]\nlabel = "A"\n\n[alerts]\ntargets = ["json://hooks.example.com/T0KEN"]\n'
        'tracks = ["Qwen3-4B"]\nexperiments = ["4B/*"]\nkinds = ["crashed", "signals"]\nmin_severity = "warning"\n'
    )
    parsed = parse_root_config(text, path="r/rlmon.toml")
    assert parsed.problems == ()
    alerts = parsed.alerts
    assert alerts is not None
    assert alerts.targets == ("json://hooks.example.com/T0KEN",)
    assert alerts.targets_line == 5
    assert (alerts.tracks, alerts.experiments, alerts.kinds, alerts.min_severity) == (
        ("Qwen3-4B",),
        ("4B/*",),
        ("crashed", "signals"),
        "warning",
    )
    assert "T0KEN" not in repr(alerts)  # a target holds secrets
    assert parsed.experiments["a"].label == "A"
    assert parse_root_config('label = "x"\n').alerts is None


def test_rlmon_toml_alerts_problems_name_the_line_and_never_quote_a_target() -> None:
    text = (
        "[alerts]\n"
        'targets = "json://hooks.example.com/T0KEN"\n'
        'kinds = ["crashed", "crash"]\n'
        'min_severity = "loud"\n'
        "digest = 3\n"
    )
    parsed = parse_root_config(text, path="r/rlmon.toml")
    assert [problem.split(":")[1] for problem in parsed.problems] == ["2", "3", "4", "5"]
    assert "T0KEN" not in " ".join(parsed.problems)
    assert "'crash' not among crashed, stalled" in parsed.problems[1]
    alerts = parsed.alerts
    assert alerts is not None
    # what was good is kept: the known kind; the rest falls back to the settings (None)
    assert (alerts.targets, alerts.kinds, alerts.min_severity) == ((), ("crashed",), None)


def test_rlmon_toml_naming_a_missing_experiment(tmp_path: Path) -> None:
    write(tmp_path / "e1" / "train.log", verl_log(steps=[1]))
    write(tmp_path / "rlmon.toml", '[experiments.e9]\nlabel = "x"\n')
    catalog = discover_experiments([tmp_path])
    assert any("e9" in problem and "matches no experiment" in problem for problem in catalog.problems)


def test_long_preamble_is_found_by_the_tail(tmp_path: Path) -> None:
    noise = "".join(f"Collecting package-{index} (from -r requirements.txt (line {index}))\n" for index in range(2000))
    assert len(noise) > 64 * 1024
    write(tmp_path / "e1" / "train.log", noise + verl_log(steps=[1, 2]))
    write(tmp_path / "pip" / "install.log", noise)
    catalog = discover_experiments([tmp_path])
    assert catalog.ids == ("e1",)
    assert catalog.ignored == (str(tmp_path / "pip" / "install.log"),)


def test_a_file_turning_into_a_verl_log_is_seen_on_the_next_discovery(tmp_path: Path) -> None:
    log = write(tmp_path / "e1" / "train.log", "+ python3 -m something\n")
    assert discover_experiments([tmp_path]).ids == ()
    with log.open("a", encoding="utf-8") as handle:
        handle.write(verl_log(steps=[1]))
    assert discover_experiments([tmp_path]).ids == ("e1",)


def test_a_listing_again_reuses_what_did_not_change_and_sees_what_did(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    grown = write(tmp_path / "t" / "e1" / "train.log", verl_log(steps=[1, 2]), mtime=NOW - 60)
    write(tmp_path / "t" / "e2" / "train.log", verl_log(steps=[1]), mtime=NOW - 60)
    before = discover_experiments([tmp_path])
    sniffed: list[str] = []
    real_kind = catalog_module._SNIFF.kind
    monkeypatch.setattr(
        catalog_module._SNIFF, "kind", lambda path, info: sniffed.append(path.name) or real_kind(path, info)
    )
    # nothing changed: the same experiments, files not looked into again
    again = discover_experiments([tmp_path])
    assert sniffed == []
    assert [ref is old for ref, old in zip(again.experiments, before.experiments, strict=True)] == [True, True]
    # one log grows: its experiment is listed with the new size, the other one is as it was
    with grown.open("a", encoding="utf-8") as handle:
        handle.write(verl_log(steps=[3]))
    os.utime(grown, (NOW, NOW))
    after = discover_experiments([tmp_path])
    e1, e2 = after.experiments
    assert e1 is not before.experiments[0] and e2 is before.experiments[1]
    assert e1.files[0].size == grown.stat().st_size and e1.files[0].mtime == NOW
    assert e1.last_modified == NOW
    # a file replaced by another of the same size and time is a new file (another inode): looked into again
    replacement = grown.with_name("train.log.new")
    replacement.write_bytes(grown.read_bytes())
    os.utime(replacement, (NOW, NOW))
    replacement.replace(grown)
    sniffed.clear()
    discover_experiments([tmp_path])
    assert sniffed == ["train.log"]


def test_summary_dict_is_json_ready_and_hidden_can_be_left_out(tmp_path: Path) -> None:
    write(tmp_path / "e1_grpo" / "train.log", verl_log(cfg=config(), total=4, steps=[1, 2]), mtime=NOW - 5)
    write(tmp_path / "e2_grpo" / "train.log", verl_log(cfg=config(), total=4, steps=[1]), mtime=NOW - 5)
    write(tmp_path / "rlmon.toml", "[experiments.e2_grpo]\nhidden = true\n")
    catalog = discover_experiments([tmp_path])
    everything = load_experiments(catalog, LogCache(None), now=NOW, settings=SETTINGS)
    assert [item.id for item in everything] == ["e1_grpo", "e2_grpo"]
    visible = load_experiments(catalog, LogCache(None), now=NOW, settings=SETTINGS, include_hidden=False)
    assert [item.id for item in visible] == ["e1_grpo"]
    summary = json.loads(json.dumps(visible[0].to_summary_dict()))
    assert summary["progress"] == "2/4"
    assert summary["status"] == "running"
    assert summary["settings"]["batch"]["display"] == "32×8"
    assert summary["sources"][0]["name"] == "train.log"
    assert summary["sources"][0]["role"] == "steps"
    assert summary["eta_h"] == pytest.approx(2 * 600 / 3600)


def test_experiments_sort_by_track_folder_then_code(tmp_path: Path) -> None:
    for folder in ("4B/e2_dapo_4b", "2B/e10_x", "4B/e1_grpo_4b", "2B/e2_dapo_2b", "2B/e1_grpo_2b"):
        write(tmp_path / folder / "train.log", verl_log(steps=[1]))
    assert discover_experiments([tmp_path]).ids == (
        "2B/e1_grpo_2b", "2B/e2_dapo_2b", "2B/e10_x", "4B/e1_grpo_4b", "4B/e2_dapo_4b"
    )  # fmt: skip


def test_list_log_files_of_one_folder(tmp_path: Path) -> None:
    folder = tmp_path / "e2"
    write(folder / "train_20260716_023000.log", verl_log(steps=[1]), mtime=NOW - 100)
    write(folder / "train_20260716_021500.log", verl_log(cfg=config()), mtime=NOW)
    write(folder / "pip.log", "Collecting x\n")
    write(folder / "sub" / "train.log", verl_log(steps=[1]))
    assert list_log_files(folder) == (folder / "train_20260716_021500.log", folder / "train_20260716_023000.log")
    with pytest.raises(CatalogError, match="not a folder"):
        list_log_files(folder / "pip.log")


def test_describe_root_for_the_cli(tmp_path: Path) -> None:
    write(tmp_path / "e1_grpo" / "train.log", verl_log(cfg=config(), total=2, steps=[1, 2]))
    write(tmp_path / "notes" / "x.log", "hello\n")
    described = json.loads(json.dumps(describe_root([tmp_path], LogCache(None), now=NOW)))
    [experiment] = described["experiments"]
    assert (experiment["id"], experiment["label"], experiment["status"], experiment["progress"]) == (
        "e1_grpo", "E1 · GRPO", "finished", "2/2"
    )  # fmt: skip
    assert experiment["track"] == "Qwen3.5-4B"
    assert described["ignored"] == [str(tmp_path / "notes" / "x.log")]
    assert described["roots"] == [str(tmp_path)]


def test_describe_root_reads_every_readable_experiment_past_one_that_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / "e1_grpo" / "train.log", verl_log(cfg=config(), total=2, steps=[1, 2]))
    write(tmp_path / "e2_dapo" / "train.log", verl_log(cfg=config(), total=2, steps=[1]))
    real_read = loading_module._read_experiment

    def read(ref: Any, *args: Any, **kwargs: Any) -> Any:
        if ref.id == "e1_grpo":
            raise ValueError("a bug while reading")  # load_experiment turns it into a LogReadError
        return real_read(ref, *args, **kwargs)

    monkeypatch.setattr(loading_module, "_read_experiment", read)
    described = describe_root([tmp_path], LogCache(None), now=NOW)
    assert [experiment["id"] for experiment in described["experiments"]] == ["e2_dapo"]
    assert any("e1_grpo" in problem and "cannot be read (ValueError)" in problem for problem in described["problems"])


def test_last_file_crashing_after_steps(tmp_path: Path) -> None:
    tail = ["ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task."]
    write(tmp_path / "e3" / "train.log", verl_log(total=10, steps=[1, 2, 3], tail=tail))
    experiment = load(discover_experiments([tmp_path]), "e3")
    assert (experiment.status, experiment.progress_text) == ("crashed", "3/10")
    assert experiment.failure == tail[0]
    [source] = experiment.sources
    assert source.role == "steps"
    assert source.note == f"steps 1–3; ended by {tail[0]}"


def test_settings_from_the_launch_command_and_crash_details(tmp_path: Path, realdata_dir: Path) -> None:
    copies = {
        "amd": "amd-mi300-deepseek7b-grpo-gsm8k-2025-03.log",
        "logicrl": "logicrl-reinforce_plus_plus-raylet-warnings-2025-03.log",
        "maze": "maze-ppo-main_task-crash-2025-03.log",
        "charcount": "charcount-grpo-readme-2025-08.log",
    }
    for folder, name in copies.items():
        (tmp_path / folder).mkdir()
        shutil.copyfile(realdata_dir / name, tmp_path / folder / name)
    catalog = discover_experiments([tmp_path])
    # no config dump: algorithm and settings from the pasted command (line 11 `algorithm.adv_estimator=grpo`,
    # line 14 `data.train_batch_size=1024`, line 32 `actor_rollout_ref.rollout.n=5`)
    amd = load(catalog, "amd")
    assert (amd.algorithm.name, amd.config_source, amd.label) == ("GRPO", "command", "amd · GRPO")
    assert amd.setting("batch") is not None and amd.setting("batch").display == "1024×5"  # type: ignore[union-attr]
    # line 17 `actor_rollout_ref.model.path=$MODEL_PATH`, line 4 `MODEL_PATH="deepseek-ai/deepseek-llm-7b-chat"`
    assert amd.track == "deepseek-llm-7b-chat"
    assert amd.three_decimals  # v0.2-era `step:1 - global_seqlen/min:171528.000 - ...` (line 54)
    # a dump and a command: the dump's values (both say rollout n=8 and batch 8 here)
    logicrl = load(catalog, "logicrl")
    assert (logicrl.algorithm.name, logicrl.config_source) == ("REINFORCE++", "dump")
    assert logicrl.setting("batch").display == "8×8"  # type: ignore[union-attr]
    # crashed before step 1 (no step line); the innermost frame is line 291 of the log
    maze = load(catalog, "maze")
    assert (maze.status, maze.failure_step) == ("crashed", None)
    assert maze.failure_frames[-1] == (
        "/root/LLM-Reasoning-Maze/verl/verl/utils/reward_score/__init__.py:37 in _default_compute_score"
    )
    assert len(maze.failure_frames) == 4  # lines 283, 285, 288, 291
    # full precision (`step:1 - ...:0.3159...`), not crashed: no failure details
    charcount = load(catalog, "charcount")
    assert (charcount.three_decimals, charcount.failure_frames, charcount.failure_step) == (False, (), None)
    summary = json.loads(json.dumps(maze.to_summary_dict()))
    assert summary["failure_step"] is None and len(summary["failure_frames"]) == 4
    assert summary["config_source"] == "dump"


def test_a_config_dump_wins_over_the_launch_command_of_a_real_log(tmp_path: Path, realdata_dir: Path) -> None:
    name = "logicrl-reinforce_plus_plus-raylet-warnings-2025-03.log"
    lines = (realdata_dir / name).read_text(encoding="utf-8").splitlines(keepends=True)
    # the command (lines 4-17 in its echoes) says batch 8 and rollout n=8, as the dump does (lines 146, 68);
    # the copy's command says 64 and 4 instead
    for index in range(17):
        lines[index] = (
            lines[index]
            .replace("data.train_batch_size=8", "data.train_batch_size=64")
            .replace("actor_rollout_ref.rollout.n=8", "actor_rollout_ref.rollout.n=4")
        )
    assert sum("rollout.n=4" in line for line in lines) >= 2
    (tmp_path / "logicrl").mkdir()
    (tmp_path / "logicrl" / name).write_text("".join(lines), encoding="utf-8")
    logicrl = load(discover_experiments([tmp_path]), "logicrl")
    assert (logicrl.algorithm.name, logicrl.config_source) == ("REINFORCE++", "dump")
    assert logicrl.setting("batch").display == "8×8"  # type: ignore[union-attr]


def test_failure_step_after_some_steps(tmp_path: Path) -> None:
    folder = tmp_path / "e1"
    folder.mkdir()
    (folder / "train.log").write_text(
        "Total training steps: 10\n"
        "step:1 - actor/grad_norm:0.5 - timing_s/step:10.0\n"
        "step:2 - actor/grad_norm:0.25 - timing_s/step:10.0\n"
        "step:3 - actor/grad_norm:0.125 - timing_s/step:10.0\n"
        "Error executing job with overrides: []\n"
        "Traceback (most recent call last):\n"
        '  File "/a/ray_trainer.py", line 996, in fit\n'
        "ValueError: boom\n",
        encoding="utf-8",
    )
    experiment = load(discover_experiments([tmp_path]), "e1")
    assert (experiment.status, experiment.failure, experiment.failure_step) == ("crashed", "ValueError: boom", 3)
    assert experiment.failure_frames == ("/a/ray_trainer.py:996 in fit",)


# ---------------------------------------------------------------------------------------------------- colours


def test_demo_root_gives_nine_experiments_nine_colours(tmp_path: Path) -> None:
    from rlmon.demo import write_demo_root

    root = write_demo_root(tmp_path / "demo")
    catalog = discover_experiments([root])
    experiments = load_experiments(catalog, LogCache(None), now=NOW, settings=Settings())
    colors = {experiment.id: experiment.color for experiment in experiments}
    assert len(colors) == 9
    assert len(set(colors.values())) == 9
    # before, 2B's E1 and 4B's E1 shared Tableau's first colour
    assert colors["2b/e1_grpo_2b"] != colors["4b/e1_grpo_4b"]
    assert catalog_colors(catalog, experiments) == colors


def test_colours_stay_put_when_an_experiment_starts_and_across_a_restart(tmp_path: Path) -> None:
    root, cache_dir = tmp_path / "logs", tmp_path / "cache"
    for track, model in (("2b", "/models/Qwen3.5-2B"), ("4b", "/models/Qwen3.5-4B")):
        for name in ("e1_grpo", "e2_dapo"):
            write(root / track / name / "train.log", verl_log(cfg=config(model), steps=[1]))
    first = {
        item.id: item.color
        for item in load_experiments(discover_experiments([root]), LogCache(cache_dir), now=NOW, settings=Settings())
    }
    # 2B sorts first: its E1, E2 keep colours 0, 1; 4B's E1, E2 take the next free ones
    assert first == {
        "2b/e1_grpo": PALETTE[0],
        "2b/e2_dapo": PALETTE[1],
        "4b/e1_grpo": PALETTE[2],
        "4b/e2_dapo": PALETTE[3],
    }
    assert (cache_dir / COLOR_BOOK_NAME).is_file()
    # 2B's E3 starts (its own colour 2 is 4B E1's) and a new track that sorts first starts an E1 (colour 0 is
    # 2B E1's); a fresh LogCache is a restarted server reading the same cache folder
    write(root / "2b" / "e3_rloo" / "train.log", verl_log(cfg=config("/models/Qwen3.5-2B"), steps=[1]))
    write(root / "0_5b" / "e1_grpo" / "train.log", verl_log(cfg=config("/models/Qwen3.5-0.5B"), steps=[1]))
    catalog = discover_experiments([root])
    after = {
        item.id: item.color for item in load_experiments(catalog, LogCache(cache_dir), now=NOW, settings=Settings())
    }
    assert {key: after[key] for key in first} == first
    assert (after["0_5b/e1_grpo"], after["2b/e3_rloo"]) == (PALETTE[4], PALETTE[5])
    # without the book, the newcomers would have moved the others
    assert catalog_colors(catalog, [load(catalog, key) for key in after])["4b/e1_grpo"] != first["4b/e1_grpo"]


def test_a_colour_book_asked_again_for_the_same_experiments_answers_without_working_them_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "logs"
    for name in ("e1_grpo", "e2_dapo"):
        write(root / "4b" / name / "train.log", verl_log(cfg=config(), steps=[1]))
    catalog = discover_experiments([root])
    experiments = [load(catalog, key) for key in catalog.ids]
    worked_out: list[int] = []
    real = loading_module.assign_colors
    monkeypatch.setattr(
        loading_module,
        "assign_colors",
        lambda items, **options: worked_out.append(len(items)) or real(items, **options),
    )
    book = ColorBook(tmp_path / "cache" / COLOR_BOOK_NAME)
    first = catalog_colors(catalog, experiments, book=book)
    assert first == {"4b/e1_grpo": PALETTE[0], "4b/e2_dapo": PALETTE[1]}
    assert catalog_colors(catalog, experiments, book=book) == first and worked_out == [2]
    # a new experiment is worked out again, keeping the others' colours
    write(root / "4b" / "e3_rloo" / "train.log", verl_log(cfg=config(), steps=[1]))
    catalog = discover_experiments([root])
    more = [load(catalog, key) for key in catalog.ids]
    assert catalog_colors(catalog, more, book=book) == {**first, "4b/e3_rloo": PALETTE[2]}
    assert worked_out == [2, 3]
    # the book changed by another server on the same cache folder (a colour it handed out): worked out again
    other = ColorBook(tmp_path / "cache" / COLOR_BOOK_NAME)
    write(root / "4b" / "e4_ppo" / "train.log", verl_log(cfg=config(), steps=[1]))
    catalog = discover_experiments([root])
    four = [load(catalog, key) for key in catalog.ids]
    assert catalog_colors(catalog, four, book=other)["4b/e4_ppo"] == PALETTE[3]
    assert catalog_colors(catalog, more, book=book) == {**first, "4b/e3_rloo": PALETTE[2]}
    assert worked_out == [2, 3, 4, 3]


def test_colour_book_survives_a_damaged_file_and_names_no_colour_that_is_not_hex(tmp_path: Path) -> None:
    write(tmp_path / "logs" / "e1_grpo" / "train.log", verl_log(cfg=config(), steps=[1]))
    write(tmp_path / "logs" / "e2_grpo" / "train.log", verl_log(cfg=config(), steps=[1]))
    catalog = discover_experiments([tmp_path / "logs"])
    experiments = [load(catalog, "e1_grpo"), load(catalog, "e2_grpo")]
    book_path = tmp_path / "book.json"
    book_path.write_text("{not json", encoding="utf-8")
    assert catalog_colors(catalog, experiments, book=ColorBook(book_path)) == {
        "e1_grpo": PALETTE[0],
        "e2_grpo": PALETTE[1],
    }
    saved = json.loads(book_path.read_text(encoding="utf-8"))["colors"]
    assert sorted(saved.values()) == sorted([PALETTE[0], PALETTE[1]])
    # an entry that is not a #rrggbb colour is ignored (its experiment gets its own colour again)
    key = next(key for key, value in saved.items() if value == PALETTE[0])
    book_path.write_text(json.dumps({"colors": {key: "red;}</style>", "x": 1}}), encoding="utf-8")
    assert catalog_colors(catalog, experiments, book=ColorBook(book_path))["e1_grpo"] == PALETTE[0]
    # a book that cannot be written stays in memory
    blocked = ColorBook(tmp_path / "file" / "book.json")
    (tmp_path / "file").write_text("", encoding="utf-8")
    assert catalog_colors(catalog, experiments, book=blocked) == {"e1_grpo": PALETTE[0], "e2_grpo": PALETTE[1]}


def test_rlmon_toml_colour_wins_and_is_not_handed_out_again(tmp_path: Path) -> None:
    write(tmp_path / "4b" / "e1_grpo" / "train.log", verl_log(cfg=config(), steps=[1]))
    write(tmp_path / "4b" / "e2_dapo" / "train.log", verl_log(cfg=config(), steps=[1]))
    write(tmp_path / "2b" / "e1_grpo" / "train.log", verl_log(cfg=config("/models/Qwen3.5-2B"), steps=[1]))
    # 4B's E2 asks for Tableau's first colour, which 2B's E1 would otherwise take
    write(tmp_path / "rlmon.toml", '[experiments."4b/e2_dapo"]\ncolor = "#4c78a8"\n')
    catalog = discover_experiments([tmp_path])
    assert catalog.problems == ()
    experiments = load_experiments(catalog, LogCache(None), now=NOW, settings=Settings())
    colors = {experiment.id: experiment.color for experiment in experiments}
    assert colors == {"2b/e1_grpo": "#f58518", "4b/e1_grpo": "#54a24b", "4b/e2_dapo": "#4c78a8"}
