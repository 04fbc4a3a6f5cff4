"""What one experiment is: identity, algorithm, settings, status and progress.

Everything here is pure: it takes config dicts, step frames, :class:`~rlmon.schema.RunMeta` objects and the
current time as arguments and never touches files or the clock. :func:`rlmon.runs.loading.load_experiment` reads
the files and assembles an :class:`Experiment` from these pieces.

Status rules (format reference §6), in order:

* ``finished``: steps done reached the total, or the last file printed ``Final validation metrics``;
  shutdown noise after that ("worker died", segfaults) is ignored.
* ``crashed``: the last file holding the run reports a fatal failure (``RunMeta.failure``).
* ``stalled``: the log has not grown for longer than ``stall_factor`` x the median step time
  (and at least ``stall_min_s``); before any step time is known, ``stall_factor`` x ``stall_min_s``.
* ``not started``: no training step has been logged yet (and the log is still growing).
* ``running``: otherwise.
"""

from __future__ import annotations

import math
import re
import zlib
from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import PurePosixPath
from typing import Any, Literal, Protocol

import polars as pl

from rlmon.runs.metrics import step_seconds_expr
from rlmon.schema import NON_TRAINING_KEY, PALETTE, STEP, RunMeta
from rlmon.sources.discovery import experiment_code
from rlmon.text import MESSAGES, UNKNOWN, format_progress, t
from rlmon.text.messages import is_unknown_track
from rlmon.text.names import NameEntry

__all__ = [
    "ALGORITHMS",
    "DASH_PATTERNS",
    "PALETTE",
    "SETTING_GROUPS",
    "STATUS_ORDER",
    "TRACK_SUFFIX_CHARS",
    "Algorithm",
    "ConfigSource",
    "Experiment",
    "Progress",
    "Setting",
    "SettingDiff",
    "SourceFile",
    "SourceRole",
    "Status",
    "StepSource",
    "assign_colors",
    "config_get",
    "default_track",
    "experiment_color",
    "experiment_label",
    "extract_settings",
    "infer_algorithm",
    "model_name",
    "model_track",
    "name_entries",
    "retimed",
    "settings_diff",
    "short_track_names",
    "step_time_column",
    "summarize_progress",
    "tracks_in_labels",
    "training_rows",
    "view_styles",
]

Status = Literal["finished", "running", "stalled", "crashed", "not started"]
STATUS_ORDER: tuple[Status, ...] = ("running", "stalled", "not started", "crashed", "finished")
"""The order statuses are counted in (what needs a look first)."""
ConfigSource = Literal["dump", "command"]
"""Where an experiment's config comes from: its config dump, or only its launch command's overrides."""
SourceRole = Literal["start-up only", "resumed", "crashed attempt", "steps", "not RL", "unreadable"]
"""What a file contributes: ``steps`` (training steps), ``resumed`` (steps, after a resume),
``start-up only`` (config/metadata, no training step), ``crashed attempt`` (a failure ended it),
``not RL`` (verl SFT or no verl content; skipped), ``unreadable`` (vanished or unreadable; skipped)."""

SETTING_GROUPS = ("model", "hardware", "rollout", "algorithm", "optimisation", "schedule")


# --------------------------------------------------------------------------------------------- dataclasses


@dataclass(frozen=True)
class Algorithm:
    """The RL algorithm an experiment ran, inferred from its config dump."""

    key: str
    """Stable slug: ``ppo``, ``grpo``, ``dr_grpo``, ``dapo``, ``rloo``, ``reinforce_pp``, ... or the raw
    ``adv_estimator`` value for estimators rlmon has no name for; ``unknown`` without a config."""
    name: str
    """Display name: ``PPO``, ``GRPO``, ``Dr.GRPO``, ``DAPO``, ``RLOO``, ``REINFORCE++``, ..."""
    description: str
    """One line saying what distinguishes it."""
    adv_estimator: str | None = None
    """``algorithm.adv_estimator`` as logged."""
    evidence: tuple[str, ...] = ()
    """The config facts the inference rests on, e.g. ``("algorithm.adv_estimator=grpo", ...)``."""


@dataclass(frozen=True)
class Setting:
    """One configuration fact of an experiment, from its config dump."""

    key: str
    """Stable snake_case id, e.g. ``max_response_length``."""
    label: str
    """Short human label, e.g. ``max response``."""
    group: str
    """One of :data:`SETTING_GROUPS`."""
    value: Any
    """JSON-ready value (bool, int, float, str, None)."""
    display: str
    """Short display form in English, e.g. ``16K``, ``32×8``, ``off`` (the CLI's); people see
    :func:`rlmon.text.setting_display`, which follows their language."""
    path: str = ""
    """Config path(s) it comes from, e.g. ``data.max_response_length``."""
    message: str = ""
    """The language-neutral form of a display that holds words: a key of :data:`rlmon.text.MESSAGES`
    (``value_off``, ``value_gpus``, ...); empty when the display is a value shown as it is (``16K``, ``vllm``)."""
    fields: tuple[tuple[str, Any], ...] = ()
    """The fields of :attr:`message` (``(("n", 4),)``)."""


@dataclass(frozen=True)
class SettingDiff:
    """A setting that differs between experiments: its value per experiment id."""

    key: str
    label: str
    group: str
    values: dict[str, Any]
    """Experiment id -> value (``None`` when that experiment lacks the setting)."""
    displays: dict[str, str]
    """Experiment id -> English display form (``—`` when absent); pages show
    :func:`rlmon.text.setting_display` of each experiment's setting instead."""


@dataclass(frozen=True)
class SourceFile:
    """One log file of an experiment and what it contributed."""

    name: str
    """File name (no folder)."""
    path: str
    size: int
    """Bytes."""
    mtime: float
    """Modification time, seconds since the epoch."""
    role: SourceRole
    first_step: int | None = None
    """First training step in the file (None when it holds none)."""
    last_step: int | None = None
    steps: int = 0
    """Training steps the file holds."""
    note: str = ""
    """Extra detail, e.g. ``resumed at step 100`` or the failure line."""


@dataclass(frozen=True)
class Progress:
    """Status and progress numbers of one experiment (see the module docstring for the rules)."""

    status: Status
    steps_done: int
    total_steps: int | None
    missing_steps: tuple[int, ...] = ()
    """Training steps absent inside the logged range (``first..last``)."""
    first_step: int | None = None
    last_step: int | None = None
    """Last training step as logged (0-based in v0.1 logs)."""
    elapsed_h: float | None = None
    """Sum of the step times in hours (``timing_s/step``; v0.1: the sum of its ``timing/*`` phases)."""
    mean_step_s: float | None = None
    median_step_s: float | None = None
    last_step_s: float | None = None
    eta_h: float | None = None
    """Remaining steps x median step time, for running experiments only."""
    idle_s: float | None = None
    """Seconds since the newest log file last grew."""
    failure: str | None = None
    """First exception line, for crashed experiments only."""


class StepSource(Protocol):
    """Where an experiment's step frame is read from when it is not held in memory
    (:attr:`Experiment.step_source`)."""

    def read_steps(self, columns: Sequence[str] | None = None) -> pl.DataFrame:
        """The merged step frame (schema.py), or ``step`` and those of ``columns`` it has, in that order."""
        ...


@dataclass
class Experiment:
    """One experiment: a folder of verl logs under a log root, read and summarised."""

    id: str
    """Path relative to the root (posix), prefixed with the root's name when several roots are configured."""
    root: str
    """The log root it was found under."""
    path: str
    """Its folder."""
    label: str
    """Short label, ``E2 · DAPO``."""
    track: str
    """The model (``Qwen3.5-4B``) unless ``rlmon.toml`` says otherwise."""
    algorithm: Algorithm
    description: str
    """Markdown from ``rlmon.toml``, else the algorithm's one-line description."""
    color: str
    """``#rrggbb``."""
    order: int
    """Sort key (``rlmon.toml`` ``order``, else derived from the ``E<n>`` code, else large)."""
    hidden: bool
    status: Status
    steps_done: int
    total_steps: int | None
    missing_steps: tuple[int, ...]
    elapsed_h: float | None
    mean_step_s: float | None
    median_step_s: float | None
    last_step_s: float | None
    eta_h: float | None
    idle_s: float | None
    failure: str | None
    settings: tuple[Setting, ...]
    sources: tuple[SourceFile, ...]
    steps: pl.DataFrame
    """Merged step frame (schema.py), later file wins per step."""
    metas: tuple[RunMeta, ...]
    """Run metadata of each RL file, in file order."""
    problems: tuple[str, ...] = ()
    """Messages for a person: files skipped, overlaps, rlmon.toml errors, ... (never raised)."""
    pass_rate_mode: str | None = None
    """``pm1`` | ``01`` | ``raw`` from ``rlmon.toml``; None = detect from the scores."""
    last_modified: float | None = None
    """Newest mtime of its files."""
    config: dict[str, Any] | None = field(default=None, repr=False)
    """The config dump of the newest file that has one, completed by the Hydra overrides of the newest launch
    command (:func:`rlmon.runs.overrides.merge_configs`: a dump value wins, overrides fill keys the dump lacks);
    without a dump, the overrides alone (see ``config_source``)."""
    config_source: ConfigSource | None = None
    """Where ``config`` (and so ``settings`` and ``algorithm``) comes from: ``dump`` (a config dump, perhaps
    completed by the command's overrides), ``command`` (no dump: only the launch command's overrides, i.e. the
    explicitly set values and none of verl's defaults); None when the logs hold neither."""
    failure_frames: tuple[str, ...] = ()
    """Crashed experiments: the last (innermost) frames of the failure's traceback, outermost first, each
    ``path:line in function`` as logged (``RunMeta.failure_frames``; at most 5); empty otherwise."""
    failure_step: int | None = None
    """Crashed experiments: the last training step logged before the failure, as logged (0-based in v0.1
    logs); None when it died before its first training step (or did not crash)."""
    group: str | None = None
    """``group`` of ``rlmon.toml``: the group of repeated runs it belongs to (an empty string: none); None: found
    from the settings (:func:`rlmon.runs.groups.find_groups`)."""
    three_decimals: bool = False
    """The step values were printed with 3 decimals (verl <= 0.4.1; ``RunMeta.three_decimals`` of any of its
    files): small quantities (mismatch, KL, lr) move in 0.001 stairs."""
    step_source: StepSource | None = field(default=None, repr=False, compare=False)
    """Where the step frame is read from when it is not held in memory (then ``steps`` has its columns and no
    rows; see :func:`rlmon.runs.loading.let_go_of_steps`); None when ``steps`` is the frame. Read the frame with
    :meth:`read_steps`, which works either way."""

    def read_steps(self, columns: Sequence[str] | None = None) -> pl.DataFrame:
        """The step frame, or ``step`` and those of ``columns`` it has, in that order: ``steps`` when it is held,
        else read through :attr:`step_source` (only these columns)."""
        if self.step_source is not None:
            # the columns it was read with (an experiment's logs together may hold more keys than max_keys)
            known = set(self.steps.columns)
            return self.step_source.read_steps(
                [name for name in (self.steps.columns if columns is None else columns) if name in known]
            )
        if columns is None:
            return self.steps
        return self.steps.select(
            STEP, *[name for name in dict.fromkeys(columns) if name != STEP and name in self.steps.columns]
        )

    @property
    def progress_text(self) -> str:
        """``21/150``, or ``1,120 steps`` when the total is unknown (:func:`rlmon.text.numbers.format_progress`,
        in English: the command line's and JSON's form)."""
        return format_progress(self.steps_done, self.total_steps, "en")

    def to_summary_dict(self) -> dict[str, Any]:
        """JSON-ready summary (no frames): identity, status, progress, times, settings, sources, problems."""
        return {
            "id": self.id,
            "label": self.label,
            "track": self.track,
            "algorithm": self.algorithm.name,
            "algorithm_key": self.algorithm.key,
            "adv_estimator": self.algorithm.adv_estimator,
            "description": self.description,
            "color": self.color,
            "hidden": self.hidden,
            "path": self.path,
            "status": self.status,
            "progress": self.progress_text,
            "steps_done": self.steps_done,
            "total_steps": self.total_steps,
            "missing_steps": list(self.missing_steps),
            "elapsed_h": self.elapsed_h,
            "mean_step_s": self.mean_step_s,
            "median_step_s": self.median_step_s,
            "last_step_s": self.last_step_s,
            "eta_h": self.eta_h,
            "idle_s": self.idle_s,
            "failure": self.failure,
            "failure_frames": list(self.failure_frames),
            "failure_step": self.failure_step,
            "three_decimals": self.three_decimals,
            "config_source": self.config_source,
            "settings": {item.key: {"group": item.group, "value": item.value, "display": item.display}
                         for item in self.settings},
            "sources": [asdict(source) for source in self.sources],
            "problems": list(self.problems),
        }  # fmt: skip

    def setting(self, key: str) -> Setting | None:
        """The setting with this key, if the config provided it."""
        for item in self.settings:
            if item.key == key:
                return item
        return None


# ------------------------------------------------------------------------------------------- config access


def config_get(config: Mapping[str, Any] | None, path: str, default: Any = None) -> Any:
    """Value at a dotted path (``actor_rollout_ref.rollout.n``) of a nested config dict, else ``default``."""
    node: Any = config
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return default
        node = node[part]
    return node


def _find_key(config: Any, key: str) -> tuple[str, Any] | None:
    """First (dotted path, value) where ``key`` occurs anywhere in a nested config."""
    stack: list[tuple[str, Any]] = [("", config)]
    while stack:
        prefix, node = stack.pop(0)
        if isinstance(node, Mapping):
            for name, value in node.items():
                path = f"{prefix}.{name}" if prefix else str(name)
                if name == key:
                    return path, value
                stack.append((path, value))
    return None


# ---------------------------------------------------------------------------------------------- algorithm

ALGORITHMS: dict[str, tuple[str, str]] = {
    "ppo": ("PPO", "Actor-critic PPO: a learned value model (critic) gives GAE advantages."),
    "grpo": ("GRPO", "Group-relative advantages: reward minus the group mean, divided by the group std."),
    "dr_grpo": (
        "Dr.GRPO",
        "GRPO without the std division, loss summed per token and normalised by a constant (no length bias).",
    ),
    "dapo": (
        "DAPO",
        "GRPO with clip-higher, dynamic sampling (drops all-right/all-wrong groups) and overlong reward shaping.",
    ),
    "rloo": ("RLOO", "Leave-one-out baseline: each sample is compared with the mean of the others in its group."),
    "reinforce_pp": (
        "REINFORCE++",
        "No group baseline: discounted returns whitened over the whole batch, with a KL penalty.",
    ),
    "reinforce_pp_baseline": (
        "REINFORCE++ baseline",
        "REINFORCE++ with the group mean subtracted before whitening over the batch.",
    ),
    "gpg": ("GPG", "Group Policy Gradient: plain policy gradient on group-relative advantages, no clipping or KL."),
    "remax": ("ReMax", "REINFORCE with the reward of a greedy rollout as the baseline."),
    "opo": ("OPO", "On-policy RL with a length-weighted optimal reward baseline."),
    "grpo_passk": ("GRPO pass@k", "GRPO variant that rewards the best sample of each group (optimises pass@k)."),
}
"""Algorithm key -> (display name, one-line description)."""

_ESTIMATOR_KEYS = {
    "gae": "ppo",
    "grpo": "grpo",
    "grpo_vectorized": "grpo",
    "rloo": "rloo",
    "rloo_vectorized": "rloo",
    "reinforce_plus_plus": "reinforce_pp",
    "reinforce_plus_plus_baseline": "reinforce_pp_baseline",
    "gpg": "gpg",
    "remax": "remax",
    "opo": "opo",
    "grpo_passk": "grpo_passk",
}


def _algorithm(key: str, adv: str | None, evidence: list[str]) -> Algorithm:
    name, description = ALGORITHMS[key]
    return Algorithm(key=key, name=name, description=description, adv_estimator=adv, evidence=tuple(evidence))


def infer_algorithm(
    config: Mapping[str, Any] | None, *, launch_command: str | None = None, columns: Sequence[str] = ()
) -> Algorithm:
    """Name the algorithm from a config dump (format reference §8).

    Parameters
    ----------
    config
        The parsed config dump (``RunMeta.config``); None when the log had none.
    launch_command
        The echoed launch command, if any (``recipe.dapo`` in it marks DAPO).
    columns
        Logged keys; used only when neither the config nor the command names an estimator
        (critic keys such as ``critic/vf_loss`` mean PPO with GAE).

    Returns
    -------
    Algorithm
        ``unknown`` without a config or estimator; an unnamed ``adv_estimator`` value is shown as-is.

    Examples
    --------
    >>> infer_algorithm({"algorithm": {"adv_estimator": "rloo"}}).name
    'RLOO'
    """
    adv = config_get(config, "algorithm.adv_estimator")
    command = launch_command or ""
    if adv is None:
        # Hydra overrides echoed on the command line still name the estimator.
        match = re.search(r"algorithm\.adv_estimator=([\w.-]+)", command)
        adv = match.group(1) if match else None
    if (not isinstance(adv, str) or not adv) and "critic/vf_loss" in columns:
        return _algorithm("ppo", None, ["critic/vf_loss logged (a critic is trained)"])
    if not isinstance(adv, str) or not adv:
        return Algorithm(key="unknown", name="unknown", description="No config dump found; the algorithm is unknown.")
    evidence = [f"algorithm.adv_estimator={adv}"]
    key = _ESTIMATOR_KEYS.get(adv)
    if key is None:
        return Algorithm(
            key=adv,
            name=adv,
            description=f"verl advantage estimator '{adv}'.",
            adv_estimator=adv,
            evidence=tuple(evidence),
        )
    if key == "grpo":
        dapo_marks = []
        if config_get(config, "algorithm.filter_groups.enable") is True:
            dapo_marks.append("algorithm.filter_groups.enable=True")
        overlong = config_get(config, "reward_model.overlong_buffer.enable")
        if overlong is True:
            dapo_marks.append("reward_model.overlong_buffer.enable=True")
        if "recipe.dapo" in command or "main_dapo" in command:
            dapo_marks.append("launched with recipe.dapo")
        if dapo_marks:
            return _algorithm("dapo", adv, evidence + dapo_marks)
        norm_std = config_get(config, "algorithm.norm_adv_by_std_in_grpo")
        agg = config_get(config, "actor_rollout_ref.actor.loss_agg_mode")
        if norm_std is False and agg == "seq-mean-token-sum-norm":
            return _algorithm(
                "dr_grpo",
                adv,
                [*evidence, "algorithm.norm_adv_by_std_in_grpo=False", "loss_agg_mode=seq-mean-token-sum-norm"],
            )
    return _algorithm(key, adv, evidence)


# ----------------------------------------------------------------------------------------------- identity


def experiment_label(folder_name: str, algorithm: Algorithm) -> str:
    """``E2 · DAPO`` from ``e2_dapo_4b``; without a code, ``<folder> · <algorithm>``."""
    code = experiment_code(folder_name) or folder_name
    if algorithm.key == "unknown":
        return code
    return f"{code} · {algorithm.name}"


def experiment_color(experiment_id: str) -> str:
    """The preferred palette colour of one experiment: ``E<n>`` folders colour n-1, others a hash of the id.

    Alone it does not keep colours apart (``2B/e1`` and ``4B/e1`` prefer the same one):
    :func:`assign_colors` gives every experiment of a catalog its own.
    """
    code = experiment_code(PurePosixPath(experiment_id).name)
    if code is not None:
        number = int(re.sub(r"\D", "", code))
        return PALETTE[(number - 1) % len(PALETTE)]
    return PALETTE[zlib.crc32(experiment_id.encode("utf-8")) % len(PALETTE)]


def assign_colors(
    experiments: Sequence[Experiment],
    *,
    fixed: Mapping[str, str] | None = None,
    previous: Mapping[str, str] | None = None,
    palette: Sequence[str] = PALETTE,
) -> dict[str, str]:
    """One colour per experiment, distinct while there are no more experiments than palette colours.

    Parameters
    ----------
    experiments
        Every experiment that can be in view together (a whole catalog, all tracks).
    fixed
        Experiment id -> colour set in ``rlmon.toml``: kept as it is, and not handed to any other experiment.
    previous
        Experiment id -> the colour it was given before (:class:`rlmon.runs.loading.ColorBook`): kept unless
        ``fixed`` gives that colour to another experiment or an experiment earlier in the order below already
        kept it, so an experiment that starts, or one that goes away, changes no other experiment's colour.
    palette
        The colours to hand out (:data:`~rlmon.schema.PALETTE`).

    Returns
    -------
    dict
        Experiment id -> ``#rrggbb``. Experiments are served in a fixed order - shown before hidden, then by
        track, then :attr:`Experiment.order` (``E<n>``), then id - so the result depends only on the set of
        experiments (and ``previous``), not on the order they were read in. An experiment without a colour
        from ``fixed`` or ``previous`` takes its preferred colour (:func:`experiment_color`) when no one has it,
        else the first unused palette colour; past the palette's size, colours repeat.

    Examples
    --------
    Two tracks with an ``E1`` each: the first track (by name) keeps colour 0, the other gets colour 1.
    """
    fixed = {key: value for key, value in (fixed or {}).items() if value}
    ordered = sorted(experiments, key=lambda item: (item.hidden, item.track, item.order, item.id))
    colors: dict[str, str] = {}
    used = {value.lower() for key, value in fixed.items() if any(item.id == key for item in experiments)}
    waiting: list[Experiment] = []
    for item in ordered:
        if item.id in fixed:
            colors[item.id] = fixed[item.id]
            continue
        kept = (previous or {}).get(item.id)
        if kept and kept.lower() not in used:
            colors[item.id] = kept
            used.add(kept.lower())
    for item in ordered:
        if item.id in colors:
            continue
        preferred = experiment_color(item.id)
        if preferred in palette and preferred.lower() not in used:
            colors[item.id] = preferred
            used.add(preferred.lower())
        else:
            waiting.append(item)
    free = [color for color in palette if color.lower() not in used]
    for index, item in enumerate(waiting):
        colors[item.id] = free[index] if index < len(free) else palette[(index - len(free)) % len(palette)]
    return colors


DASH_PATTERNS: tuple[tuple[int, ...], ...] = ((1, 0), (6, 3), (2, 2), (8, 3, 2, 3))
"""Line dashes, solid first: experiments of one view past the palette's size share a colour, never a colour and
a dash (``strokeDash`` arrays)."""


def view_styles(
    experiments: Sequence[Experiment], *, fixed: Collection[str] = (), palette: Sequence[str] = PALETTE
) -> dict[str, tuple[str, int]]:
    """Experiment id -> (colour, dash) for the experiments one view shows together (a track, or all of them).

    Each keeps the colour the catalog gave it (:func:`assign_colors`, :attr:`Experiment.color`) unless an
    experiment before it in the view already has that colour: then it takes the first palette colour no one in
    the view has. So no two experiments of a view share a colour while the view holds no more than the palette's
    20; past that, experiments that share a colour differ in dash (an index into :data:`DASH_PATTERNS`, 0 solid).
    A colour ``rlmon.toml`` sets (ids in ``fixed``) is kept whatever the view; a colour kept from another view
    (the catalog's, or the colour book's) gives way.

    The order is the catalog's colour order (shown before hidden, track, :attr:`Experiment.order`, id), so the
    result depends only on the experiments in view.
    """
    ordered = sorted(experiments, key=lambda item: (item.hidden, item.track, item.order, item.id))
    styles: dict[str, tuple[str, int]] = {}
    used: set[tuple[str, int]] = set()

    def take(experiment: Experiment, color: str, dash: int) -> None:
        styles[experiment.id] = (color, dash)
        used.add((color.lower(), dash))

    for item in ordered:
        if item.id in fixed:
            dash = next((level for level in range(len(DASH_PATTERNS)) if (item.color.lower(), level) not in used), 0)
            take(item, item.color, dash)
    waiting = []
    for item in ordered:
        if item.id in styles:
            continue
        if (item.color.lower(), 0) not in used:
            take(item, item.color, 0)
        else:
            waiting.append(item)
    for item in waiting:
        free = next(
            ((color, level) for level in range(len(DASH_PATTERNS)) for color in palette
             if (color.lower(), level) not in used),
            None,
        )  # fmt: skip
        if free is None:  # more experiments than colours and dashes: repeat
            free = (palette[len(styles) % len(palette)], (len(styles) // len(palette)) % len(DASH_PATTERNS))
        take(item, *free)
    return styles


_TRACK_SEPARATORS = "-_./ :"


def short_track_names(tracks: Sequence[str]) -> dict[str, str]:
    """Track -> the part that tells it apart from the other tracks: ``Qwen3.5-4B``/``Qwen3.5-2B`` -> ``4B``/``2B``.

    The prefix and the suffix common to every track are stripped where they meet a separator (``- _ . / :``):
    ``Qwen2-7B``/``Qwen2.5-7B`` give ``Qwen2``/``Qwen2.5`` (no common prefix ends at a separator). When a track
    would be left empty, or two would read alike, every track keeps its full name; so does a single track.

    Examples
    --------
    >>> short_track_names(["Qwen3.5-4B", "Qwen3.5-2B"])
    {'Qwen3.5-4B': '4B', 'Qwen3.5-2B': '2B'}
    >>> short_track_names(["Qwen2.5-7B-Instruct", "Qwen2.5-3B-Instruct"])
    {'Qwen2.5-7B-Instruct': '7B', 'Qwen2.5-3B-Instruct': '3B'}
    """
    names = list(dict.fromkeys(tracks))
    if len(names) < 2:
        return {name: name for name in names}

    def common_prefix(values: Sequence[str]) -> int:
        length = len(min(values, key=len))
        size = 0
        while size < length and all(value[size] == values[0][size] for value in values):
            size += 1
        # cut after the last separator inside the common part
        cut = max((index + 1 for index in range(size) if values[0][index] in _TRACK_SEPARATORS), default=0)
        return cut

    start = common_prefix(names)
    end = common_prefix([name[::-1] for name in names])
    short = {name: name[start : len(name) - end] if start + end < len(name) else "" for name in names}
    if any(not value.strip(_TRACK_SEPARATORS) for value in short.values()) or len(set(short.values())) < len(names):
        return {name: name for name in names}
    return short


TRACK_SUFFIX_CHARS = 16
"""Longest short track name a label carries (``E1 · GRPO · 2B``); when one is longer, no label carries one."""


def tracks_in_labels(tracks: Sequence[str]) -> bool:
    """Whether the labels of experiments spanning ``tracks`` carry their short track (``E1 · GRPO · 2B``): when
    there are several tracks and every short name (:func:`short_track_names`) is at most
    :data:`TRACK_SUFFIX_CHARS` characters (tracks of unrelated models keep their names to a track column)."""
    if len(set(tracks)) <= 1 or any(is_unknown_track(track) for track in tracks):
        return False  # a run of unknown model is on a track named after its folder, which its label names already
    return all(len(name) <= TRACK_SUFFIX_CHARS for name in short_track_names(tracks).values())


def name_entries(experiments: Sequence[Experiment]) -> list[NameEntry]:
    """The experiments of one view, in view order, as :func:`rlmon.text.names.experiment_names` reads them: names
    are told apart within a track when labels carry their track (:func:`tracks_in_labels`), else over the view."""
    by_track = tracks_in_labels([item.track for item in experiments])
    return [NameEntry(item.id, item.label, group=item.track if by_track else "") for item in experiments]


def default_track(experiments: Sequence[Experiment]) -> str | None:
    """The track a visitor sees first; None means all tracks.

    The most recently active track (newest file among its experiments) with at least two experiments that
    logged training steps - something to compare. When no track has two (every track holds one run, as when
    each log folder trains another model), or there is only one track, all tracks: then every run is compared.
    Hidden experiments are the caller's to leave out.
    """
    tracks = list(dict.fromkeys(item.track for item in experiments))
    if len(tracks) < 2:
        return None
    newest: dict[str, float] = {}
    with_steps: dict[str, int] = {}
    for item in experiments:
        newest[item.track] = max(newest.get(item.track, -math.inf), item.last_modified or 0.0)
        with_steps[item.track] = with_steps.get(item.track, 0) + (1 if item.steps_done > 0 else 0)
    candidates = [track for track in tracks if with_steps[track] >= 2]
    if not candidates:
        return None
    return max(candidates, key=lambda track: (newest[track], track))


_GENERIC_MODEL_PARTS = frozenset(
    {
        "actor", "best", "checkpoint", "checkpoints", "ckpt", "ckpts", "critic", "export", "exported", "final",
        "hf", "hf_ckpt", "hf_ckpts", "hf_checkpoint", "hf_checkpoints", "hf_model", "hf_models", "hub",
        "huggingface", "last", "latest", "merged", "merged_hf", "merged_hf_model", "merged_model", "model",
        "models", "output", "outputs", "policy", "saved", "snapshots", "weights",
        # mount points and shared folders: where the disk is, not what is on it
        "cache", "data", "data0", "data1", "data2", "datasets", "disk", "fs", "home", "mnt", "media", "nas", "nfs",
        "opt", "public", "root", "scratch", "share", "shared", "srv", "storage", "tmp", "user", "users", "var",
        "volume", "volumes", "work", "workspace",
    }
)  # fmt: skip
"""Folder names that say where a model is kept, not which model it is (compared in lower case)."""
_USER_FOLDERS = frozenset({"home", "users"})
"""Folders whose next part is a person's name (``/home/alice/...``): skipped too."""
# a date or a date and time (``20250408``, ``2025-04-08``, ``20250408_1200``): when a run was saved
_DATE_PART_RE = re.compile(r"^(?:19|20)\d\d[-_.]?(?:0[1-9]|1[0-2])[-_.]?(?:[0-2]\d|3[01])(?:[-_T]?\d{2,6})?$")
_STEP_PART_RE = re.compile(r"^(?:(?:global[_-]?)?step|checkpoint|ckpt|iter|epoch)[_-]?(\d+)$|^(\d+)$", re.IGNORECASE)
_HASH_PART_RE = re.compile(r"^[0-9a-f]{16,}$")
# An unexpanded ``$VAR``, or the name of the variable a script meant to put there (``sft_model_path``).
_VARIABLE_PART_RE = re.compile(r"\$|^[a-z0-9]+(?:_[a-z0-9]+)*_(?:path|dir)$")


def model_name(path: str) -> tuple[str | None, int | None]:
    """The part of a model path that names the model, and the checkpoint step the path names.

    Read from the end, a path's numeric and generic parts (``global_step_58``, ``checkpoint-500``, ``15714``,
    ``hf_ckpts``, ``huggingface``, ``actor``, ``merged_hf_model``, ``latest``, a hash, an unexpanded ``$VAR``
    ...) are skipped up to the first one that means something; the first step met on the way is the step.
    A Hugging Face cache path (``models--Qwen--Qwen2-7B-Instruct/snapshots/<hash>``) gives the repo name.

    Examples
    --------
    >>> model_name("/ckpt/moe_lite_sft_04082007/hf_ckpts/15714")
    ('moe_lite_sft_04082007', 15714)
    >>> model_name("./models/merged_hf_model")
    (None, None)
    >>> model_name("Qwen/Qwen2.5-7B-Instruct")
    ('Qwen2.5-7B-Instruct', None)
    """
    parts = [part for part in re.split(r"[\\/]+", path.strip()) if part]
    for part in parts:
        if part.startswith("models--"):
            return part.split("--")[-1] or None, None
    step: int | None = None
    for index in range(len(parts) - 1, -1, -1):
        part = parts[index]
        if _DATE_PART_RE.match(part) or (index > 0 and parts[index - 1].lower() in _USER_FOLDERS):
            continue
        found = _STEP_PART_RE.match(part)
        if found is not None:
            step = step if step is not None else int(found.group(1) or found.group(2))
            continue
        if (
            part in (".", "..", "~")
            or part.lower() in _GENERIC_MODEL_PARTS
            or _HASH_PART_RE.match(part)
            or _VARIABLE_PART_RE.search(part)
        ):
            continue
        return part, step
    return None, step


def model_track(config: Mapping[str, Any] | None, *, named: Sequence[str] = ()) -> str | None:
    """The model an experiment trains, from ``actor_rollout_ref.model.path``: ``/models/Qwen3.5-4B`` ->
    ``Qwen3.5-4B`` (the rules of :func:`model_name`), with the checkpoint step the path names as a suffix:
    ``/ckpt/moe_lite_sft/hf_ckpts/15714`` -> ``moe_lite_sft @15714``.

    When the path says nothing (``./models/merged_hf_model``, ``$sft_model_path/global_step_58``,
    ``/mnt/models/model``), the first of ``named`` that does: the other model paths the log names (the base model a
    launch command sets before the checkpoint it trains, a Hugging Face ``_name_or_path``), ``$VAR`` already read,
    then the models verl's model-size print names (``Llama 134.52M``). None when nothing names one: the run is
    of unknown model (:func:`rlmon.text.messages.unknown_track`).
    """
    path = config_get(config, "actor_rollout_ref.model.path")
    name, step = model_name(path) if isinstance(path, str) else (None, None)
    for other in named if name is None else ():
        name, other_step = model_name(other)
        if name is not None:
            step = step if step is not None else other_step
            break
    if name is None:
        return None
    return name if step is None else f"{name} @{step}"


# ----------------------------------------------------------------------------------------------- settings


def _short_tokens(value: int) -> str:
    """``16384`` -> ``16K``, ``1024`` -> ``1K``, ``1536`` -> ``1.5K``, ``500`` -> ``500``."""
    if value >= 1024 and value % 512 == 0:
        kilo = value / 1024
        return f"{kilo:g}K"
    return str(value)


def _on_off(value: Any) -> str:
    """The message key of an on/off display."""
    return "value_on" if value else "value_off"


def _number_text(value: Any) -> str:
    """``1e-06`` -> ``1e-6``, ``0.001`` -> ``0.001``, ``3`` -> ``3``."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return re.sub(
            r"e([-+])0*(\d)", lambda match: "e" + match.group(1).replace("+", "") + match.group(2), f"{value:g}"
        )
    return str(value)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def extract_settings(config: Mapping[str, Any] | None, *, total_steps: int | None = None) -> tuple[Setting, ...]:
    """The settings the team compares runs by, read from a config dump.

    Parameters
    ----------
    config
        The parsed config dump; None gives an empty tuple.
    total_steps
        ``Total training steps`` from the log, used when the config leaves it ``None``.

    Returns
    -------
    tuple of Setting
        In :data:`SETTING_GROUPS` order; a setting the config does not have is left out.
    """
    if config is None:
        return ()
    out: list[Setting] = []

    def add(key: str, label: str, group: str, value: Any, display: str, path: str, **fields: Any) -> None:
        """``display`` is either the value as shown or, when it names a message (``value_*``), the message
        filled with ``fields``: the English text becomes :attr:`Setting.display`."""
        # Config values never look like "value_on": only the calls below name a message this way.
        if display.startswith("value_") and display in MESSAGES:
            message, display = display, t(display, "en", **fields)
        else:
            message = ""
        out.append(
            Setting(key=key, label=label, group=group, value=value, display=display, path=path, message=message,
                    fields=tuple(fields.items()))
        )  # fmt: skip

    actor = "actor_rollout_ref.actor"
    rollout = "actor_rollout_ref.rollout"

    # model
    model_path = config_get(config, "actor_rollout_ref.model.path")
    if isinstance(model_path, str):
        add("model", "model", "model", model_path, model_track(config) or model_path, "actor_rollout_ref.model.path")
    thinking = _find_key(config, "enable_thinking")
    if thinking is not None and isinstance(thinking[1], bool):
        add("thinking", "thinking", "model", thinking[1], "value_thinking" if thinking[1] else "value_non_thinking",
            thinking[0])  # fmt: skip

    # hardware
    per_node = config_get(config, "trainer.n_gpus_per_node")
    nodes = config_get(config, "trainer.nnodes")
    if _is_int(per_node) and _is_int(nodes):
        gpus = per_node * nodes
        path = "trainer.n_gpus_per_node × trainer.nnodes"
        if nodes == 1:
            add("gpus", "GPUs", "hardware", gpus, "value_gpus", path, n=gpus)
        else:
            add("gpus", "GPUs", "hardware", gpus, "value_gpus_nodes", path, n=gpus, nodes=nodes, per_node=per_node)
    for which, label in (("param_offload", "param offload"), ("optimizer_offload", "optimizer offload")):
        for engine in ("fsdp_config", "megatron"):
            value = config_get(config, f"{actor}.{engine}.{which}")
            if isinstance(value, bool):
                add(which, label, "hardware", value, _on_off(value), f"{actor}.{engine}.{which}")
                break

    # rollout
    engine_name = config_get(config, f"{rollout}.name")
    if isinstance(engine_name, str):
        add("rollout_engine", "rollout engine", "rollout", engine_name, engine_name, f"{rollout}.name")
    tp = config_get(config, f"{rollout}.tensor_model_parallel_size")
    if _is_int(tp):
        add("rollout_tp", "rollout TP", "rollout", tp, f"TP={tp}", f"{rollout}.tensor_model_parallel_size")
    for key, label in (("max_prompt_length", "max prompt"), ("max_response_length", "max response")):
        value = config_get(config, f"data.{key}")
        if _is_int(value):
            add(key, label, "rollout", value, _short_tokens(value), f"data.{key}")
    batch = config_get(config, "data.train_batch_size")
    group_n = config_get(config, f"{rollout}.n")
    if _is_int(batch) and _is_int(group_n):
        add(
            "batch",
            "prompts × samples",
            "rollout",
            f"{batch}x{group_n}",
            f"{batch}×{group_n}",
            f"data.train_batch_size × {rollout}.n",
        )

    # algorithm
    adv = config_get(config, "algorithm.adv_estimator")
    algorithm = infer_algorithm(config)
    if algorithm.key != "unknown":
        add("algorithm", "algorithm", "algorithm", algorithm.name, algorithm.name, "; ".join(algorithm.evidence))
    if isinstance(adv, str):
        add("adv_estimator", "advantage estimator", "algorithm", adv, adv, "algorithm.adv_estimator")
    norm_std = config_get(config, "algorithm.norm_adv_by_std_in_grpo")
    if isinstance(norm_std, bool) and adv in ("grpo", "grpo_vectorized", "grpo_passk"):
        add("norm_adv_by_std", "divide by group std", "algorithm", norm_std, _on_off(norm_std),
            "algorithm.norm_adv_by_std_in_grpo")  # fmt: skip
    use_kl = config_get(config, f"{actor}.use_kl_loss")
    if isinstance(use_kl, bool):
        kl_type = config_get(config, f"{actor}.kl_loss_type")
        kl_coef = config_get(config, f"{actor}.kl_loss_coef")
        detail = " ".join(part for part in (str(kl_type or ""), _number_text(kl_coef) if kl_coef is not None else "")
                          if part)  # fmt: skip
        if use_kl and detail:
            add("kl_loss", "KL loss", "algorithm", use_kl, "value_on_detail", f"{actor}.use_kl_loss", detail=detail)
        else:
            add("kl_loss", "KL loss", "algorithm", use_kl, _on_off(use_kl), f"{actor}.use_kl_loss")
        if use_kl and isinstance(kl_type, str):
            add("kl_loss_type", "KL loss type", "algorithm", kl_type, kl_type, f"{actor}.kl_loss_type")
        if use_kl and isinstance(kl_coef, int | float) and not isinstance(kl_coef, bool):
            add("kl_loss_coef", "KL loss coef", "algorithm", kl_coef, _number_text(kl_coef), f"{actor}.kl_loss_coef")
    kl_reward = config_get(config, "algorithm.use_kl_in_reward")
    if isinstance(kl_reward, bool):
        coef = config_get(config, "algorithm.kl_ctrl.kl_coef")
        if kl_reward and isinstance(coef, int | float):
            add("kl_in_reward", "KL in reward", "algorithm", kl_reward, "value_on_detail", "algorithm.use_kl_in_reward",
                detail=_number_text(coef))  # fmt: skip
        else:
            add(
                "kl_in_reward", "KL in reward", "algorithm", kl_reward, _on_off(kl_reward), "algorithm.use_kl_in_reward"
            )
    agg = config_get(config, f"{actor}.loss_agg_mode")
    if isinstance(agg, str):
        add("loss_agg_mode", "loss aggregation", "algorithm", agg, agg, f"{actor}.loss_agg_mode")
    low = config_get(config, f"{actor}.clip_ratio_low")
    high = config_get(config, f"{actor}.clip_ratio_high")
    base = config_get(config, f"{actor}.clip_ratio")
    if low is None:
        low = base
    if high is None:
        high = base
    if isinstance(low, int | float) and isinstance(high, int | float):
        add("clip_ratio", "clip ratio low/high", "algorithm", f"{low:g}/{high:g}", f"{low:g}/{high:g}",
            f"{actor}.clip_ratio_low / clip_ratio_high")  # fmt: skip
    filter_groups = config_get(config, "algorithm.filter_groups.enable")
    if isinstance(filter_groups, bool):
        add("dynamic_sampling", "dynamic sampling", "algorithm", filter_groups, _on_off(filter_groups),
            "algorithm.filter_groups.enable")  # fmt: skip
    overlong = config_get(config, "reward_model.overlong_buffer.enable")
    if isinstance(overlong, bool):
        add("overlong_shaping", "overlong shaping", "algorithm", overlong, _on_off(overlong),
            "reward_model.overlong_buffer.enable")  # fmt: skip

    # optimisation
    lr = config_get(config, f"{actor}.optim.lr")
    if isinstance(lr, int | float) and not isinstance(lr, bool):
        add("lr", "learning rate", "optimisation", lr, _number_text(lr), f"{actor}.optim.lr")
    mini = config_get(config, f"{actor}.ppo_mini_batch_size")
    if _is_int(mini):
        add("ppo_mini_batch_size", "mini-batch", "optimisation", mini, str(mini), f"{actor}.ppo_mini_batch_size")
    entropy_coeff = config_get(config, f"{actor}.entropy_coeff")
    if isinstance(entropy_coeff, int | float) and not isinstance(entropy_coeff, bool):
        add("entropy_coeff", "entropy coef", "optimisation", entropy_coeff, _number_text(entropy_coeff),
            f"{actor}.entropy_coeff")  # fmt: skip

    # schedule
    for key, label in (("test_freq", "test every"), ("save_freq", "save every")):
        value = config_get(config, f"trainer.{key}")
        if _is_int(value):
            if value <= 0:
                add(key, label, "schedule", value, "value_off", f"trainer.{key}")
            else:
                add(key, label, "schedule", value, "value_every_steps", f"trainer.{key}", n=value)
    epochs = config_get(config, "trainer.total_epochs")
    if _is_int(epochs):
        add("total_epochs", "epochs", "schedule", epochs, str(epochs), "trainer.total_epochs")
    steps = config_get(config, "trainer.total_training_steps")
    if not _is_int(steps):
        steps = total_steps
    if _is_int(steps):
        add("total_steps", "total steps", "schedule", steps, str(steps), "trainer.total_training_steps")
    order = {group: index for index, group in enumerate(SETTING_GROUPS)}
    return tuple(sorted(out, key=lambda item: order[item.group]))


def settings_diff(experiments: Sequence[Experiment]) -> list[SettingDiff]:
    """The settings whose value differs between the given experiments ("what did we change?").

    A setting one experiment lacks counts as different from one that has it. Fewer than two experiments
    give an empty list. The order is the settings' order (by group), first appearance first.
    """
    if len(experiments) < 2:
        return []
    seen: dict[str, Setting] = {}
    for experiment in experiments:
        for item in experiment.settings:
            seen.setdefault(item.key, item)
    diffs: list[SettingDiff] = []
    for key, first in seen.items():
        values: dict[str, Any] = {}
        displays: dict[str, str] = {}
        for experiment in experiments:
            found = experiment.setting(key)
            values[experiment.id] = None if found is None else found.value
            displays[experiment.id] = UNKNOWN if found is None else found.display
        distinct = {repr(value) for value in values.values()}
        if len(distinct) > 1:
            diffs.append(SettingDiff(key=key, label=first.label, group=first.group, values=values, displays=displays))
    order = {group: index for index, group in enumerate(SETTING_GROUPS)}
    return sorted(diffs, key=lambda diff: order.get(diff.group, len(order)))


# --------------------------------------------------------------------------------------- status, progress

_NON_TRAINING = re.compile(NON_TRAINING_KEY)


def training_rows(steps: pl.DataFrame) -> pl.DataFrame:
    """Rows of a step frame that come from a training step, not from validation alone.

    A row counts when any column other than validation keys (``val-core/``, ``val-aux/``, ``val/``,
    ``test_score/``) and the DAPO end-of-data ``timing/save_checkpoint`` is non-null.
    """
    columns = [name for name in steps.columns if name != STEP and not _NON_TRAINING.match(name)]
    if not columns or steps.height == 0:
        return steps.clear()
    if any(steps.get_column(name).null_count() == 0 for name in columns):
        return steps  # a training key with a value in every row: every row counts (the common case, cheap)
    return steps.filter(pl.any_horizontal([pl.col(name).is_not_null() for name in columns]))


def step_time_column(columns: Sequence[str]) -> str | None:
    """``timing_s/step`` (v0.2+), else ``timing/step`` (v0.1), else None."""
    for name in ("timing_s/step", "timing/step"):
        if name in columns:
            return name
    return None


def _total_steps(metas: Sequence[RunMeta]) -> int | None:
    for meta in reversed(metas):
        if meta.total_steps is not None:
            return meta.total_steps
    for meta in reversed(metas):
        configured = config_get(meta.config, "trainer.total_training_steps")
        if _is_int(configured) and configured > 0:
            return int(configured)
        epochs = config_get(meta.config, "trainer.total_epochs")
        if meta.train_batches is not None and _is_int(epochs):
            return int(meta.train_batches * epochs)
    for meta in reversed(metas):
        if meta.tqdm_total is not None:
            return meta.tqdm_total
    return None


def summarize_progress(
    steps: pl.DataFrame,
    metas: Sequence[RunMeta],
    *,
    last_modified: float | None,
    now: float,
    stall_factor: float = 3.0,
    stall_min_s: float = 600.0,
) -> Progress:
    """Status and progress of one experiment from its merged steps and its files' metadata.

    Parameters
    ----------
    steps
        The merged step frame (schema.py).
    metas
        Run metadata of each RL file, oldest first; the last one is the current attempt.
    last_modified
        Newest mtime of the experiment's files (seconds since the epoch); None when unknown.
    now
        The current time (seconds since the epoch), passed in so the function stays pure.
    stall_factor, stall_min_s
        An unfinished, uncrashed experiment is stalled when ``now - last_modified`` exceeds both
        ``stall_factor`` x the median step time and ``stall_min_s`` (without a step time:
        ``stall_factor`` x ``stall_min_s``).

    Returns
    -------
    Progress
    """
    zero_based = any(meta.zero_based for meta in metas)
    total = _total_steps(metas)
    training = training_rows(steps)
    logged = sorted(int(step) for step in training.get_column(STEP).to_list()) if training.height else []
    first = logged[0] if logged else None
    last = logged[-1] if logged else None
    steps_done = 0 if last is None else (last + 1 if zero_based else last)
    resumed_at = max((max(meta.resume_steps) for meta in metas if meta.resume_steps), default=None)
    if resumed_at is not None and resumed_at > steps_done:
        steps_done = resumed_at
    if not logged:
        tqdm_n = next((meta.tqdm_n for meta in reversed(metas) if meta.tqdm_n is not None), None)
        if tqdm_n is not None and tqdm_n > steps_done:
            steps_done = tqdm_n
    # v0.2 logs the final validation as its own line at step = total, after total-1 training steps.
    max_row = int(steps.get_column(STEP).max()) if steps.height else None  # type: ignore[arg-type]
    current = metas[-1] if metas else None
    final_val_line = (
        last is not None
        and max_row is not None
        and max_row == last + 1
        and not zero_based
        and ((total is not None and max_row == total) or (current is not None and current.final_validation))
    )
    if final_val_line and max_row is not None:
        steps_done = max_row
    present = set(logged)
    missing: tuple[int, ...] = ()
    if first is not None and last is not None:
        missing = tuple(step for step in range(first, last + 1) if step not in present)

    seconds = step_seconds_expr(training.columns)
    logged_times: list[float | None] = []
    if seconds is not None and training.height:
        logged_times = training.select(seconds.cast(pl.Float64).alias("s")).get_column("s").to_list()
    times = [value for value in logged_times if value is not None and math.isfinite(value) and value >= 0]
    elapsed_h = sum(times) / 3600.0 if times else None
    mean_s = sum(times) / len(times) if times else None
    median_s = _median(times)
    last_s = times[-1] if times else None
    idle_s = None if last_modified is None else max(0.0, now - last_modified)

    finished_flag = current is not None and current.final_validation
    finished = (total is not None and steps_done >= total) or finished_flag or final_val_line
    status: Status
    failure = None
    if finished:
        status = "finished"
    elif current is not None and current.failure is not None:
        status = "crashed"
        failure = current.failure
    else:
        status = _clock_status(
            logged=bool(logged), steps_done=steps_done, idle_s=idle_s, median_s=median_s, stall_factor=stall_factor,
            stall_min_s=stall_min_s,
        )  # fmt: skip
    return Progress(
        status=status,
        steps_done=steps_done,
        total_steps=total,
        missing_steps=missing,
        first_step=first,
        last_step=last,
        elapsed_h=elapsed_h,
        mean_step_s=mean_s,
        median_step_s=median_s,
        last_step_s=last_s,
        eta_h=_eta_h(status, total=total, steps_done=steps_done, median_s=median_s),
        idle_s=idle_s,
        failure=failure,
    )


def _clock_status(
    *, logged: bool, steps_done: int, idle_s: float | None, median_s: float | None, stall_factor: float,
    stall_min_s: float,
) -> Status:  # fmt: skip
    """The status of a run neither finished nor crashed, which the clock moves (see the module docstring)."""
    # Without a step time (stuck before the first step, or no timing logged): a multiple of the floor.
    stall_after_s = stall_factor * stall_min_s if median_s is None else max(stall_factor * median_s, stall_min_s)
    if idle_s is not None and idle_s > stall_after_s:
        return "stalled"
    if not logged and steps_done == 0:
        return "not started"
    return "running"


def _eta_h(status: Status, *, total: int | None, steps_done: int, median_s: float | None) -> float | None:
    """Remaining steps x median step time, for a running experiment."""
    if status != "running" or total is None or median_s is None:
        return None
    return max(0, total - steps_done) * median_s / 3600.0


def retimed(experiment: Experiment, *, now: float, stall_factor: float, stall_min_s: float) -> Experiment:
    """``experiment`` as :func:`summarize_progress` would describe it at ``now`` when its files have not changed
    since it was read: the time since they last grew, and the status that depends on it (a running or not yet
    started run may have stalled). Nothing is read: a server keeps what it read and only moves the clock."""
    idle_s = None if experiment.last_modified is None else max(0.0, now - experiment.last_modified)
    if experiment.status in ("finished", "crashed"):
        return replace(experiment, idle_s=idle_s)
    # a training step logged in any file (summarize_progress's ``logged``) is one counted in its source
    logged = any(source.steps > 0 for source in experiment.sources)
    status = _clock_status(
        logged=logged, steps_done=experiment.steps_done, idle_s=idle_s, median_s=experiment.median_step_s,
        stall_factor=stall_factor, stall_min_s=stall_min_s,
    )  # fmt: skip
    eta_h = _eta_h(
        status, total=experiment.total_steps, steps_done=experiment.steps_done, median_s=experiment.median_step_s
    )
    return replace(experiment, status=status, idle_s=idle_s, eta_h=eta_h)


def _median(values: Sequence[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2.0
