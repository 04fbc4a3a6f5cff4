"""Repeated runs found from their settings (tests/helpers/repeats_root.py: 3 algorithms × 3 seeds), set or undone
in rlmon.toml, and none in a root without repeats (the demo)."""

from __future__ import annotations

from pathlib import Path

from rlmon.logs.cache import LogCache
from rlmon.runs.experiment import Experiment
from rlmon.runs.groups import find_groups
from rlmon.runs.loading import load_experiments
from rlmon.settings import Settings
from rlmon.sources.discovery import discover_experiments
from tests.helpers.repeats_root import TWO_TRACKS, write_repeats_root


def _experiments(root: Path) -> list[Experiment]:
    return load_experiments(discover_experiments([root]), LogCache(None), now=1_767_240_000.0, settings=Settings())


def test_groups_found_from_settings_differing_only_in_seeds_and_names(tmp_path: Path) -> None:
    write_repeats_root(tmp_path)
    groups = find_groups(_experiments(tmp_path))
    assert [(group.name, group.members, group.found) for group in groups] == [
        ("DAPO", ("dapo_seed1", "dapo_seed2", "dapo_seed3"), True),
        ("GRPO", ("grpo_seed1", "grpo_seed2", "grpo_seed3"), True),
        ("RLOO", ("rloo_seed1", "rloo_seed2", "rloo_seed3"), True),
    ]


def test_rlmon_toml_sets_and_undoes_a_group(tmp_path: Path) -> None:
    toml = (
        '[experiments.grpo_seed1]\ngroup = ""\n'  # out of its found group
        '[experiments.dapo_seed1]\ngroup = "clip-higher"\n'
        '[experiments.rloo_seed1]\ngroup = "clip-higher"\n'
    )
    write_repeats_root(tmp_path, toml=toml)
    groups = {group.name: (group.members, group.found) for group in find_groups(_experiments(tmp_path))}
    assert groups == {
        "clip-higher": (("dapo_seed1", "rloo_seed1"), False),
        "DAPO": (("dapo_seed2", "dapo_seed3"), True),
        "GRPO": (("grpo_seed2", "grpo_seed3"), True),
        "RLOO": (("rloo_seed2", "rloo_seed3"), True),
    }


def test_a_root_without_repeats_has_no_group(demo_root: Path) -> None:
    assert find_groups(_experiments(demo_root)) == []


def test_one_name_in_two_tracks_is_two_groups(tmp_path: Path) -> None:
    write_repeats_root(tmp_path, toml=TWO_TRACKS)
    named = [group for group in find_groups(_experiments(tmp_path)) if not group.found]
    assert [(group.name, group.members) for group in named] == [
        ("X", ("dapo_seed1", "dapo_seed2")),
        ("X", ("grpo_seed1", "grpo_seed2")),
    ]
    assert [group.key for group in named] == ["toml:B:X", "toml:A:X"]
