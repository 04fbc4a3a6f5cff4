"""Settings lined up with behaviour: which settings split the runs compared, and which metrics split them the same
way; which settings differ between two tracks; and what sets one run apart from the others.

Everything here is an association among the runs in view, never a cause: the words say "with ... " and give
every run's numbers, so a reader can judge.

**A clean split** (:func:`clean_split`), the only kind a sentence is written about:

* a setting takes exactly two values among the runs compared, every one of them has it, and each value is held by
  at least :data:`MIN_GROUP` runs;
* a metric's value (:data:`MEASURES`) of every run of one group is below that of every run of the other;
* the gap between the groups (the lowest of the upper group minus the highest of the lower) is at least the
  spread (highest minus lowest) inside either group;
* for the measures of change (how much entropy moves, how much the response length grows), the upper group's
  lowest is at least :data:`MIN_FACTOR` x the lower group's highest.

What sets a run apart (:func:`distinctions`): a setting whose value the run shares with at most half of the runs
compared (counting a run without the setting as a value of its own), and the measures where the run is first or
last among them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from rlmon.runs.experiment import Experiment, Setting
from rlmon.runs.headline import Headline
from rlmon.text.messages import setting_display, setting_label, t

__all__ = [
    "MEASURES",
    "MIN_FACTOR",
    "MIN_GROUP",
    "Association",
    "Distinction",
    "Measure",
    "SettingSplit",
    "associations",
    "clean_split",
    "distinctions",
    "setting_splits",
    "track_differences",
]

MIN_GROUP = 2
"""Runs each side of a split needs: one run alone is what sets it apart, not a split."""
MIN_FACTOR = 1.5
"""Measures of change: the upper group moves at least this many times as much as the lower."""

_NOT_TOLD = frozenset({"algorithm", "adv_estimator"})
"""Settings the runs' names already say (the algorithm): never told as what splits or sets runs apart."""


@dataclass(frozen=True)
class Measure:
    """A number per run that a split is looked for in."""

    name: str
    """``entropy``, ``length``, ``grad``, ``hours``: the ``insight_assoc_<name>`` template, ``what_<name>``."""
    value: Callable[[Headline], float | None]
    change: bool
    """A measure of change (a factor between the groups is told), else a level."""
    finished_only: bool = False
    """Compared between finished runs only (wall-clock hours)."""


def _entropy_move(headline: Headline) -> float | None:
    start, end = headline.entropy_start, headline.entropy_end
    if start is None or end is None or start <= 0:
        return None
    return abs(end / start - 1.0)


def _length_growth(headline: Headline) -> float | None:
    start, end = headline.response_length_start, headline.response_length_end
    if start is None or end is None or start <= 0:
        return None
    return end / start - 1.0


MEASURES: tuple[Measure, ...] = (
    Measure("entropy", _entropy_move, change=True),
    Measure("length", _length_growth, change=True),
    Measure("grad", lambda headline: headline.grad_norm_p95, change=False),
    Measure("hours", lambda headline: headline.elapsed_h, change=False, finished_only=True),
)
"""How much entropy moves (``|end/start - 1|``), how much the mean response length grows (``end/start - 1``),
the grad norm's level (its 95th percentile) and the wall-clock hours (finished runs)."""


@dataclass(frozen=True)
class SettingSplit:
    """A setting with two values among the runs compared."""

    key: str
    setting: Setting
    """One run's setting (its label)."""
    groups: tuple[tuple[Any, tuple[Experiment, ...]], tuple[Any, tuple[Experiment, ...]]]
    """(value, runs) for each of the two values, in the runs' order."""


@dataclass(frozen=True)
class Association:
    """A measure splitting the runs as a setting does, cleanly."""

    split: SettingSplit
    measure: Measure
    low: tuple[Any, tuple[Experiment, ...]]
    """The group with the lower values: (setting value, runs)."""
    high: tuple[Any, tuple[Experiment, ...]]
    factor: tuple[float, float] | None
    """Measures of change: (least, most) times the upper group moves as much as the lower."""
    separation: float
    """The gap between the groups over the larger spread inside one (the cleaner, the larger): the order told."""


def _value_key(value: Any) -> str:
    return repr(value)


def setting_splits(experiments: Sequence[Experiment]) -> list[SettingSplit]:
    """The settings that take exactly two values among ``experiments``, each held by :data:`MIN_GROUP` runs or
    more, every run having the setting; in the settings' order."""
    if len(experiments) < 2 * MIN_GROUP:
        return []
    seen: dict[str, Setting] = {}
    for experiment in experiments:
        for item in experiment.settings:
            seen.setdefault(item.key, item)
    splits: list[SettingSplit] = []
    for key, first in seen.items():
        if key in _NOT_TOLD:
            continue
        groups: dict[str, tuple[Any, list[Experiment]]] = {}
        complete = True
        for experiment in experiments:
            found = experiment.setting(key)
            if found is None or found.value is None:
                complete = False
                break
            groups.setdefault(_value_key(found.value), (found.value, []))[1].append(experiment)
        if not complete or len(groups) != 2:
            continue
        (value_a, runs_a), (value_b, runs_b) = groups.values()
        if min(len(runs_a), len(runs_b)) < MIN_GROUP:
            continue
        splits.append(SettingSplit(key, first, ((value_a, tuple(runs_a)), (value_b, tuple(runs_b)))))
    return splits


def clean_split(low: Sequence[float], high: Sequence[float], *, change: bool) -> float | None:
    """How cleanly the values ``low`` sit below ``high`` (the module's rule): the gap over the larger spread
    inside a group (``inf`` when neither group spreads), or None when the split is not clean.

    >>> round(clean_split([0.120, 0.118], [0.407, 0.629], change=True), 2)  # entropy moves 12%, 11.8% vs 41%, 63%
    1.29
    >>> clean_split([0.62, 0.90], [0.38, 0.52], change=True) is None  # length grows: the groups overlap
    True
    """
    if not low or not high or max(low) >= min(high):
        return None
    gap = min(high) - max(low)
    spread = max(max(low) - min(low), max(high) - min(high))
    if gap < spread:
        return None
    if change and (max(low) <= 0 or min(high) < MIN_FACTOR * max(low)):
        return None
    return math.inf if spread == 0 else gap / spread


def associations(
    experiments: Sequence[Experiment], headlines: dict[str, Headline], *, finished: Sequence[Experiment]
) -> list[Association]:
    """Every clean split (:func:`clean_split`) of a measure by a setting among ``experiments`` (``finished``: the
    ones the wall-clock hours compare), the cleanest first."""
    found: list[Association] = []
    for split in setting_splits(experiments):
        for measure in MEASURES:
            groups = []
            for value, runs in split.groups:
                members = [run for run in runs if not measure.finished_only or run in finished]
                numbers = [measure.value(headlines[run.id]) for run in members]
                if len(members) != len(runs) or any(number is None or not math.isfinite(number) for number in numbers):
                    break
                groups.append((value, runs, [float(number) for number in numbers if number is not None]))
            if len(groups) != 2:
                continue
            groups.sort(key=lambda group: max(group[2]))
            (low_value, low_runs, low), (high_value, high_runs, high) = groups
            separation = clean_split(low, high, change=measure.change)
            if separation is None:
                continue
            factor = (min(high) / max(low), max(high) / min(low)) if measure.change and min(low) > 0 else None
            found.append(
                Association(split, measure, (low_value, low_runs), (high_value, high_runs), factor, separation)
            )
    found.sort(key=lambda item: -item.separation)
    return found


def value_text(setting: Setting, value: Any, lang: str) -> str:
    """A group's value in words: ``on`` / ``off`` for a yes/no setting, else as the settings table shows it."""
    if isinstance(value, bool):
        return t("value_on" if value else "value_off", lang)
    return setting_display(setting, lang)


def track_differences(first: Sequence[Experiment], second: Sequence[Experiment], lang: str) -> list[str]:
    """The settings that hold one value in every run of ``first`` and another in every run of ``second``:
    ``GPUs 4 GPUs vs 2 GPUs`` items in ``lang`` (the model, which names the track, left out)."""
    if not first or not second:
        return []
    items: list[str] = []
    for item in first[0].settings:
        if item.key == "model" or item.key in _NOT_TOLD:
            continue
        ours = [run.setting(item.key) for run in first]
        theirs = [run.setting(item.key) for run in second]
        if any(found is None for found in ours + theirs):
            continue
        our_values = {_value_key(found.value) for found in ours if found is not None}
        their_values = {_value_key(found.value) for found in theirs if found is not None}
        if len(our_values) != 1 or len(their_values) != 1 or our_values == their_values:
            continue
        mine, other = ours[0], theirs[0]
        if mine is None or other is None:  # pragma: no cover - checked above
            continue
        label = setting_label(item.key, item.label, lang)
        a_text, b_text = value_text(mine, mine.value, lang), value_text(other, other.value, lang)
        # "4 GPUs vs 2 GPUs", "TP=4 vs TP=2": values that name their setting go without its label
        word = label.split()[-1].lower()
        if word in a_text.lower() and word in b_text.lower():
            items.append(t("insight_track_setting_values", lang, a=a_text, b=b_text))
        else:
            items.append(t("insight_track_setting", lang, setting=label, a=a_text, b=b_text))
    return items


@dataclass(frozen=True)
class Distinction:
    """What sets one run apart among the runs compared."""

    settings: tuple[tuple[Setting, tuple[Experiment, ...]], ...]
    """Its settings shared with at most half of the runs compared: (its setting, the others sharing it)."""
    ranks: tuple[tuple[str, str], ...]
    """(measure, ``most``/``least``) where it is first or last, in :data:`RANKED` order."""


RANKED: tuple[tuple[str, Callable[[Headline], float | None], bool], ...] = (
    ("pass", lambda headline: headline.pass_rate_end, False),
    ("length", _length_growth, False),
    ("entropy", lambda headline: headline.entropy_end, False),
    ("grad", lambda headline: headline.grad_norm_p95, False),
    ("hours", lambda headline: headline.elapsed_h, True),
    ("val", lambda headline: None if (best := headline.best()) is None else best.value, False),
)
"""Measures a run is ranked first or last on: end pass rate, length growth, end entropy, grad norm (p95),
hours (finished runs), best validation score."""


def distinctions(
    experiment: Experiment,
    compared: Sequence[Experiment],
    headlines: dict[str, Headline],
    *,
    limit: int = 3,
) -> Distinction:
    """What sets ``experiment`` apart among ``compared`` (which it need not be among): its rarest settings (at
    most ``limit``; shared with no other run first, then those shared by the most runs having the setting) and,
    when it is among ``compared`` (three runs or more), the measures where it is first or last."""
    others = [run for run in compared if run.id != experiment.id]
    pool = [*others, experiment]
    candidates: list[tuple[int, int, int, Setting, tuple[Experiment, ...]]] = []
    if len(pool) >= 3:
        for index, item in enumerate(experiment.settings):
            if item.key in _NOT_TOLD or item.value is None:
                continue
            having = [run for run in others if (found := run.setting(item.key)) is not None and found.value is not None]
            sharing = tuple(
                run for run in having if (found := run.setting(item.key)) is not None and found.value == item.value
            )
            # a run without the setting counts as a value of its own: at most half share this one
            if (len(sharing) + 1) * 2 > len(pool):
                continue
            candidates.append((len(sharing), -len(having), index, item, sharing))
    candidates.sort(key=lambda entry: entry[:3])
    chosen = tuple((item, sharing) for _, _, _, item, sharing in candidates[:limit])
    # only the rarest kind: the settings no other run shares if any, else the one shared by the fewest
    unique = bool(chosen) and not chosen[0][1]
    chosen = tuple(entry for entry in chosen if not entry[1]) if unique else chosen[:1]
    ranks: list[tuple[str, str]] = []
    if experiment in compared and len(compared) >= 3:
        for name, value, finished_only in RANKED:
            among = [run for run in compared if not finished_only or run.status == "finished"]
            if experiment not in among or len(among) < 3:
                continue
            measured = {run.id: value(headlines[run.id]) for run in among}
            numbers = {key: number for key, number in measured.items() if number is not None and math.isfinite(number)}
            if len(numbers) != len(measured):
                continue
            mine = numbers[experiment.id]
            values = list(numbers.values())
            if mine == max(values) and values.count(mine) == 1:
                ranks.append((name, "most"))
            elif mine == min(values) and values.count(mine) == 1:
                ranks.append((name, "least"))
    return Distinction(chosen, tuple(ranks))
