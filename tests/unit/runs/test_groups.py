"""Repeated runs found from their settings (tests/helpers/repeats_root.py: 3 algorithms × 3 seeds), set or undone
in rlmon.toml, and none in a root without repeats (the demo)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

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


def test_a_config_is_flattened_once_however_often_its_groups_are_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The overview asks for the groups several times in every run of every session: each config is flattened
    once (while it is the same object), and a config read again (a new version of the log) once more."""
    import dataclasses

    from rlmon.runs import groups as groups_module

    write_repeats_root(tmp_path)
    experiments = _experiments(tmp_path)
    flattened: list[int] = []
    real_flatten = groups_module._flatten

    def counting_flatten(config: Any, prefix: str = "") -> dict[str, Any]:
        if not prefix:
            flattened.append(id(config))
        return real_flatten(config, prefix)

    monkeypatch.setattr(groups_module, "_flatten", counting_flatten)
    monkeypatch.setattr(groups_module, "_FINGERPRINTS", {})
    first = find_groups(experiments)
    for _ in range(5):
        assert find_groups(experiments) == first
    assert len(flattened) == 9  # 3 algorithms x 3 seeds, each once
    # the same settings read again (a new object): flattened again, the same groups
    again = [dataclasses.replace(item, config=dict(item.config or {})) for item in experiments]
    assert find_groups(again) == first
    assert len(flattened) == 18
    # a config whose learning rate differs is no longer a repeat of the others
    changed = dict(again[0].config or {})
    changed["actor_rollout_ref"] = {**changed["actor_rollout_ref"], "actor": {"optim": {"lr": 0.5}}}
    regrouped = find_groups([dataclasses.replace(again[0], config=changed), *again[1:]])
    assert regrouped[0].members == (again[1].id, again[2].id)
