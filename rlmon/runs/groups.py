"""Repeated runs: experiments whose settings differ only in their seeds, names and paths form one group, found
without configuration; ``group = "..."`` in ``rlmon.toml`` sets or overrides it (an empty string keeps a run out
of every group).

What counts as "only seeds, names and paths" (verl's config, ``verl/trainer/config``): every key named ``seed``
or ``*_seed`` (``data.seed``, ``actor_rollout_ref.actor.data_loader_seed``, ``…fsdp_config.seed``,
``…megatron.seed``, ``actor_rollout_ref.rollout.seed``, ``trainer.seed``), the run's names
(``trainer.experiment_name``, ``trainer.project_name``) and its output folders and checkpoint paths (keys ending
in ``_dir``, ``resume_from_path``, ``ckpt_path``). The model path, the data files and every other value must agree,
and so must the track.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rlmon.runs.experiment import Experiment

__all__ = ["Group", "find_groups", "is_repeat_key", "setting_fingerprint"]

_REPEAT_KEY = re.compile(r"(?:^|_)seed$|_dir$|^(?:experiment_name|project_name|resume_from_path|ckpt_path)$")


def is_repeat_key(path: str) -> bool:
    """True for a config key that repeats of one setting may differ in (a seed, a name, an output path).

    >>> [is_repeat_key(key) for key in ("data.seed", "actor_rollout_ref.actor.data_loader_seed", "trainer.nnodes")]
    [True, True, False]
    >>> [is_repeat_key(key) for key in ("trainer.default_local_dir", "actor_rollout_ref.model.path")]
    [True, False]
    """
    return bool(_REPEAT_KEY.search(path.rsplit(".", 1)[-1]))


def _flatten(config: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in config.items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(_flatten(value, path + "."))
        else:
            flat[path] = value
    return flat


_FINGERPRINTS: dict[tuple[int, str], tuple[Mapping[str, Any], str]] = {}
"""(id of a config, track) -> (that config, its fingerprint): see :func:`setting_fingerprint`."""
_FINGERPRINTS_KEPT = 1024
_FINGERPRINTS_LOCK = threading.Lock()


def setting_fingerprint(experiment: Experiment) -> str | None:
    """The experiment's track and config without the keys repeats may differ in (:func:`is_repeat_key`), as one
    string; None when its logs hold no config (it is then grouped only by ``rlmon.toml``).

    Computed once per config object and track: a config is read once per version of an experiment and never
    changed, and the overview asks for the groups several times in each run of each session (tables, charts,
    summary) - flattening a verl config each time was a quarter of a live refresh's own work."""
    config = experiment.config
    if not config:
        return None
    key = (id(config), experiment.track)
    with _FINGERPRINTS_LOCK:
        known = _FINGERPRINTS.get(key)
    if known is not None and known[0] is config:  # the config itself is kept with it, so its id is not reused
        return known[1]
    kept = {path: value for path, value in _flatten(config).items() if not is_repeat_key(path)}
    fingerprint = json.dumps([experiment.track, kept], sort_keys=True, default=repr)
    with _FINGERPRINTS_LOCK:
        if len(_FINGERPRINTS) >= _FINGERPRINTS_KEPT:
            _FINGERPRINTS.clear()
        _FINGERPRINTS[key] = (config, fingerprint)
    return fingerprint


@dataclass(frozen=True)
class Group:
    """Repeated runs of one setting."""

    key: str
    """Stable id: ``toml:<track>:<name>`` (set in ``rlmon.toml``: one name in two tracks is two groups) or
    ``found:<first member's id>``."""
    name: str
    """The ``rlmon.toml`` name, else the members' algorithm (their labels' common start when two groups share it)."""
    members: tuple[str, ...]
    """Experiment ids, in the order given."""
    found: bool
    """True when found from the settings, False when ``rlmon.toml`` set it."""


def find_groups(experiments: Sequence[Experiment]) -> list[Group]:
    """The groups of two or more repeats among ``experiments``, in the order of their first member.

    A run with ``group`` set in ``rlmon.toml`` joins the runs with the same name (within its track) and no other;
    the others group by :func:`setting_fingerprint`. A run alone in its group is no group.
    """
    buckets: dict[tuple[str, str], list[Experiment]] = {}
    for experiment in experiments:
        if experiment.group is not None:
            if experiment.group.strip():
                buckets.setdefault(("toml", f"{experiment.track}\0{experiment.group.strip()}"), []).append(experiment)
            continue
        fingerprint = setting_fingerprint(experiment)
        if fingerprint is not None:
            buckets.setdefault(("found", fingerprint), []).append(experiment)
    chosen = [(kind, members) for (kind, _key), members in buckets.items() if len(members) >= 2]
    algorithms = [members[0].algorithm.name for kind, members in chosen if kind == "found"]
    groups = []
    for kind, members in chosen:
        if kind == "toml":
            name = (members[0].group or "").strip()
            key = f"toml:{members[0].track}:{name}"
            groups.append(Group(key, name, tuple(item.id for item in members), found=False))
            continue
        name = members[0].algorithm.name
        if members[0].algorithm.key == "unknown" or algorithms.count(name) > 1:
            name = _common_start([item.label for item in members]) or members[0].label
        groups.append(Group(f"found:{members[0].id}", name, tuple(item.id for item in members), found=True))
    order = {experiment.id: index for index, experiment in enumerate(experiments)}
    return sorted(groups, key=lambda group: order[group.members[0]])


def _common_start(labels: Sequence[str]) -> str:
    """The start the labels share, cut back to a whole word and without a trailing seed number or separator."""
    start = labels[0]
    for label in labels[1:]:
        while not label.startswith(start):
            start = start[:-1]
    if any(len(label) > len(start) and label[len(start)].isalnum() for label in labels) and start[-1:].isalnum():
        start = re.sub(r"[^\W_]+$", "", start)
    start = re.sub(r"(?:^|[\s_\-·/])(?:seed|s)$", "", start.rstrip(" _-·/"), flags=re.IGNORECASE)
    return start.rstrip(" _-·/")
