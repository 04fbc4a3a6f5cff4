"""The written summary: a few paragraphs about the experiments in view, and one about each experiment.

The summary (:func:`write_summary`, :func:`experiment_paragraph`; :func:`summary_for_root` for the CLI) is plain
text, generated only from the data, deterministic, in English or Chinese. Every number sits beside its run (``E1
80.2% → 89.6%``); a sentence that would name more than :data:`LIST_AFTER` runs' statuses, or whose runs' pass rates
would take more than :data:`PROSE_CHARS` characters, lists them instead, one a line (:func:`paragraph_parts`
splits it into its lead and its items). Repeats (:func:`rlmon.runs.groups.find_groups`) are told as groups
(``DAPO (3 seeds) 12.3 ± 1.0% → 12.5 ± 0.9%``), their members named only where they differ. With at most
:data:`TRACKS_IN_FULL` tracks in view, a track comparing three runs or more of at least ``min_steps`` steps (and
no repeats) gets a line per run on what sets it apart, as the run's own paragraph opens. Every template is an
``insight_*`` message (signal kinds: ``kind_*``) of the one message catalog, :data:`rlmon.text.messages.MESSAGES`; the
punctuation between the pieces comes from :mod:`rlmon.text.lang`. Signals come from :mod:`rlmon.analysis.signals`;
figures are written as the signals write them (:data:`~rlmon.analysis.signals.NUMBERS_LANG`), hours and durations
in the text's own language (``32.6h`` / ``32.6 小时``, ``4h23m`` / ``4小时23分``).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import re
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rlmon.analysis.associations import Association, associations, distinctions, track_differences, value_text
from rlmon.analysis.outcomes import dump_signal
from rlmon.analysis.signals import KINDS, NUMBERS_LANG, SEVERITIES, Signal, detect_all, short_metric
from rlmon.logs.cache import LogCache
from rlmon.logs.samples import SampleCache
from rlmon.runs.experiment import STATUS_ORDER, Experiment, name_entries
from rlmon.runs.groups import Group, find_groups
from rlmon.runs.headline import Headline, headline_numbers
from rlmon.runs.metrics import validation_keys
from rlmon.runs.schedule import next_milestones
from rlmon.settings import Settings
from rlmon.text.lang import (
    LANGUAGES,
    join_clauses,
    join_items,
    join_list,
    join_sentences,
    join_steps,
    join_values,
    parenthesized,
)
from rlmon.text.messages import setting_display, setting_label, t, track_name
from rlmon.text.names import experiment_names
from rlmon.text.numbers import (
    UNKNOWN,
    format_band,
    format_count,
    format_duration,
    format_hours,
    format_percent,
    format_progress,
    format_range,
    format_score,
    format_value,
)

__all__ = [
    "LIST_AFTER",
    "LIST_MARK",
    "PROSE_CHARS",
    "SUMMARY_ITEMS",
    "TRACKS_IN_FULL",
    "experiment_paragraph",
    "paragraph_parts",
    "summary_for_root",
    "write_summary",
]


_KIND_ORDER = {kind: index for index, kind in enumerate(KINDS)}
"""Kinds in the order of :data:`~rlmon.analysis.signals.KINDS`: the order signals are told in."""


_TOLD_APART = re.compile(r" \(\d+\)$")
"""The `` (2)`` that tells a name from a look-alike (:func:`rlmon.text.names.experiment_names`)."""


def _name(experiment: Experiment | Headline) -> str:
    """``E2 (DAPO)`` from the label ``E2 · DAPO``; other labels (and one told from a look-alike, ``E1 · GRPO (2)``)
    as they are."""
    code, sep, algorithm = experiment.label.partition(" · ")
    return f"{code} ({algorithm})" if sep and not _TOLD_APART.search(experiment.label) else experiment.label


def _code(experiment: Experiment) -> str:
    """``E2`` of ``E2 · DAPO`` (a label told from a look-alike: all of it)."""
    return experiment.label if _TOLD_APART.search(experiment.label) else experiment.label.partition(" · ")[0]


def _codes(experiments: Sequence[Experiment], lang: str, among: Sequence[Experiment] = ()) -> str:
    """``E1–E4`` for consecutive codes, else ``E1, E3`` (``E1、E3``); a code another of ``among`` shares
    (``amd-mi300… · GRPO`` and ``amd-mi300… · PPO``) is the whole name (``amd-mi300… (GRPO)``)."""
    shared = _shared_codes(among)
    codes = [_name(experiment) if _code(experiment) in shared else _code(experiment) for experiment in experiments]
    numbers = []
    for code in codes:
        digits = "".join(char for char in code if char.isdigit())
        prefix = code.rstrip("0123456789")
        numbers.append((prefix, int(digits) if digits and code.endswith(digits) else None))
    prefixes = {prefix for prefix, _ in numbers}
    values = [number for _, number in numbers]
    if (
        len(codes) > 2
        and len(prefixes) == 1
        and all(number is not None for number in values)
        and values == list(range(values[0] or 0, (values[0] or 0) + len(values)))
    ):
        return f"{codes[0]}–{codes[-1]}"
    return join_values(codes, lang)


def _shared_codes(experiments: Sequence[Experiment]) -> set[str]:
    seen: dict[str, int] = {}
    for experiment in experiments:
        seen[_code(experiment)] = seen.get(_code(experiment), 0) + 1
    return {code for code, count in seen.items() if count > 1}


LIST_AFTER = 3
"""Runs a sentence names one by one (status clauses, signals worth attention); past that they are a list."""
LIST_MARK = "- "
"""What starts a list item's line in a summary paragraph (:func:`paragraph_parts`)."""
TRACKS_IN_FULL = 3
"""Tracks whose runs the summary tells track by track; past that, tracks of one run are told together."""


def _listed(lead: str, items: Sequence[str]) -> str:
    """A paragraph of ``lead`` and ``items``, one a line (a name never breaks its line)."""
    return "\n".join([lead, *(LIST_MARK + " ".join(item.split("\n")) for item in items)])


def paragraph_parts(paragraph: str) -> tuple[str, list[str]]:
    """(its lead, its list items) of a summary paragraph: the items of a paragraph that lists runs (one a line,
    after :data:`LIST_MARK`), none for prose.

    >>> paragraph_parts("Qwen3-4B, 5 runs:\\n- E1 finished 150/150\\n- E2 running 21/150")
    ('Qwen3-4B, 5 runs:', ['E1 finished 150/150', 'E2 running 21/150'])
    """
    lead, *lines = paragraph.split("\n")
    return lead, [line.removeprefix(LIST_MARK) for line in lines]


def _fill(key: str, lang: str, **fields: str) -> str:
    """Template ``insight_<key>`` of the message catalog (:data:`rlmon.text.messages.MESSAGES`), filled."""
    return t("insight_" + key, lang, **fields)


SUMMARY_ITEMS = 5
"""Experiments a summary sentence names one by one (best scores, drops, signals); past that it says how many
more there are. The experiments table and the signals list beside the summary name every one."""


def _capped(items: list[str], more: str, lang: str) -> list[str]:
    """The first :data:`SUMMARY_ITEMS` of ``items``, then ``insight_<more>`` saying how many are left out."""
    if len(items) <= SUMMARY_ITEMS:
        return items
    return [*items[:SUMMARY_ITEMS], _fill(more, lang, count=str(len(items) - SUMMARY_ITEMS))]


def _word(key: str, lang: str) -> str:
    """Text ``insight_<key>`` of the message catalog, with no field."""
    return t("insight_" + key, lang)


def _band(values: Sequence[float | None]) -> tuple[float, float] | None:
    present = [value for value in values if value is not None and math.isfinite(value)]
    if not present:
        return None
    return min(present), max(present)


def _band_text(band: tuple[float, float] | None, *, kind: str, lang: str) -> str:
    """A band of pass rates (``79.4–80.7%``) or of hours in the text's language (``32.6–37.2h`` /
    ``32.6–37.2 小时``: the catalog's hours format around the range)."""
    if band is None:
        return UNKNOWN
    low, high = band
    if kind == "%":
        if round(low, 1) == round(high, 1):
            return format_percent(low, NUMBERS_LANG)
        return format_range(low, high, NUMBERS_LANG, unit="%")
    if round(low, 1) == round(high, 1):
        return format_hours(low, lang)
    return t("fmt_hours", lang, value=f"{low:.1f}–{high:.1f}")


@dataclass
class _Track:
    name: str
    experiments: list[Experiment]
    headlines: dict[str, Headline]
    compared: list[Experiment]
    """The experiments compared with each other: the finished ones when two or more are, else all with steps."""
    groups: list[Group] = dataclasses.field(default_factory=list)
    """Its groups of repeats (:func:`rlmon.runs.groups.find_groups`)."""
    judged: bool = False
    """Every compared run has at least ``min_steps`` training steps (its firsts and lasts mean something)."""


def _tracks(experiments: Sequence[Experiment], settings: Settings) -> list[_Track]:
    min_steps = settings.min_steps
    groups: dict[str, list[Experiment]] = {}
    for experiment in sorted(experiments, key=lambda item: (item.order, item.id)):
        if experiment.hidden:
            continue
        groups.setdefault(experiment.track, []).append(experiment)
    tracks: list[_Track] = []
    # The track with the newest activity first (the one being watched), then by name.
    newest = {
        name: max((item.last_modified or 0.0 for item in members), default=0.0) for name, members in groups.items()
    }
    for name in sorted(groups, key=lambda track: (-newest[track], track)):
        members = groups[name]
        headlines = {experiment.id: headline_numbers(experiment) for experiment in members}
        finished = [item for item in members if item.status == "finished" and headlines[item.id].steps >= min_steps]
        with_steps = [item for item in members if headlines[item.id].steps > 0]
        compared = finished if len(finished) >= 2 else with_steps
        judged = bool(compared) and all(headlines[item.id].steps >= min_steps for item in compared)
        tracks.append(_Track(name, members, headlines, compared, find_groups(members), judged))
    return tracks


def _seeds(config: Mapping[str, Any] | None, prefix: str = "") -> dict[str, str]:
    """The seed keys of a config (``data.seed``, ``...rollout.seed``: :func:`rlmon.runs.groups.is_repeat_key`'s
    ``seed`` and ``*_seed``) and their values."""
    found: dict[str, str] = {}
    for key, value in (config or {}).items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping):
            found.update(_seeds(value, path + "."))
        elif key == "seed" or str(key).endswith("_seed"):
            found[path] = repr(value)
    return found


def _group_name(group: Group, track: _Track, lang: str) -> str:
    """``DAPO (3 seeds)`` for a group found from its runs' settings whose seeds differ; ``A (2 runs)`` for one set
    by name in ``rlmon.toml``, or whose runs differ only in their names and paths."""
    by_id = {experiment.id: experiment for experiment in track.experiments}
    seeds = {json.dumps(_seeds(by_id[member].config), sort_keys=True) for member in group.members}
    key = "group_seeds" if group.found and len(seeds) > 1 else "group_runs"
    return _fill(key, lang, name=group.name, count=str(len(group.members)))


def _spread_text(values: Sequence[float | None]) -> str | None:
    """``12.5 ± 0.9%``: the mean ± sample standard deviation of the percentages present (one alone as it is);
    None when none is."""
    present = [value for value in values if value is not None and math.isfinite(value)]
    if not present:
        return None
    if len(present) == 1:
        return format_percent(present[0], NUMBERS_LANG)
    mean = format_percent(statistics.fmean(present), NUMBERS_LANG).removesuffix("%")
    return f"{mean} ± {format_percent(statistics.stdev(present), NUMBERS_LANG)}"


def _group_sentences(track: _Track, lang: str) -> list[str]:
    """Which of the track's groups of repeats, next to each other in the order of their last-10-step mean pass
    rate (the mean of their runs'), differ by less than the larger of their two spreads (sample standard
    deviations); and the crashed members, left out of their group's mean after their last step. Nothing when the
    track has no repeats. (Each group's figures come with the pass rates, :func:`_pass_items`.)"""
    by_id = {experiment.id: experiment for experiment in track.experiments}
    stats = []
    for group in track.groups:
        values = [track.headlines[member].pass_rate_end for member in group.members]
        present = [value for value in values if value is not None and math.isfinite(value)]
        if len(present) >= 2:
            stats.append((group, statistics.fmean(present), statistics.stdev(present)))
    sentences = []
    ranked = sorted(stats, key=lambda item: item[1], reverse=True)
    for (first, mean_a, std_a), (second, mean_b, std_b) in itertools.pairwise(ranked):
        if abs(mean_a - mean_b) < max(std_a, std_b):
            sentences.append(_fill("groups_within_spread", lang, first=first.name, second=second.name))
    for group in track.groups:
        for member in group.members:
            experiment = by_id[member]
            if experiment.status == "crashed" and experiment.failure_step is not None:
                sentences.append(
                    _fill("group_crashed", lang, member=_name(experiment), step=str(experiment.failure_step),
                          group=group.name)
                )  # fmt: skip
    return sentences


PROSE_CHARS = 160
"""Characters of runs' clauses a sentence holds (about two lines of the summary at 1440 px); past that they are a
list, one a line (the pass rates, :func:`_pass_items`)."""


def _pass_items(track: _Track, lang: str) -> list[str]:
    """Each compared run's first-5 → last-10-step mean pass rate (``E1 79.4% → 89.6%``), in the track's order; a
    group of repeats once, at its first member, as the mean ± standard deviation of all its members' (``DAPO (3
    seeds) 11.7 ± 0.9% → 12.5 ± 0.9%``: a running or crashed member counts with the steps it has)."""
    grouped = {member: group for group in track.groups for member in group.members}
    items: list[str] = []
    told: set[str] = set()
    for experiment in track.experiments:
        group = grouped.get(experiment.id)
        if group is not None:
            if group.key in told:
                continue
            told.add(group.key)
            start = _spread_text([track.headlines[member].pass_rate_start for member in group.members])
            end = _spread_text([track.headlines[member].pass_rate_end for member in group.members])
            name = _group_name(group, track, lang)
        elif experiment in track.compared:
            headline = track.headlines[experiment.id]
            start = _spread_text([headline.pass_rate_start])
            end = _spread_text([headline.pass_rate_end])
            name = _codes([experiment], lang, track.experiments)
        else:
            continue
        if start is not None and end is not None:
            items.append(_fill("pass_item", lang, name=name, start=start, end=end))
    return items


def _member_states(members: Sequence[Experiment], among: Sequence[Experiment], lang: str) -> list[str]:
    """One clause per status and progress its runs share (``E1–E4 finished 150/150``), in their order."""
    by_state: dict[tuple[str, str], list[Experiment]] = {}
    for experiment in members:
        progress = format_progress(experiment.steps_done, experiment.total_steps, lang)
        by_state.setdefault((experiment.status, progress), []).append(experiment)
    return [
        _state_clause(status, progress, _codes(runs, lang, among), lang)
        for (status, progress), runs in by_state.items()
    ]


def _state_clause(status: str, progress: str, names: str, lang: str) -> str:
    if status in ("finished", "running"):
        return _fill(f"state_{status}", lang, names=names, progress=progress)
    return _fill("state_other", lang, names=names, status=t(f"status_{status}", lang), progress=progress)


def _group_state(group: Group, track: _Track, lang: str) -> tuple[str, bool]:
    """(the group's status clause, whether it names members): ``GRPO (3 seeds) finished 10/10`` when its runs
    share their status and progress; ``RLOO (3 seeds) finished 10/10, except rloo_seed3 crashed 5/10`` when more
    than half do; else each member's (``DAPO (3 seeds): dapo_seed1 finished 10/10, ...``)."""
    by_id = {experiment.id: experiment for experiment in track.experiments}
    members = [by_id[member] for member in group.members]
    name = _group_name(group, track, lang)
    states = [(item.status, format_progress(item.steps_done, item.total_steps, lang)) for item in members]
    common = max(set(states), key=lambda state: (states.count(state), -states.index(state)))
    if states.count(common) == len(states):
        return _state_clause(*common, name, lang), False
    if states.count(common) * 2 > len(states):
        others = [item for item, state in zip(members, states, strict=True) if state != common]
        state = _state_clause(*common, name, lang)
        return _fill(
            "group_except", lang, state=state, others=join_items(_member_states(others, track.experiments, lang), lang)
        ), True
    return _fill(
        "group_members", lang, group=name, states=join_items(_member_states(members, track.experiments, lang), lang)
    ), True


def _status_clauses(track: _Track, lang: str) -> tuple[list[str], bool]:
    """(one clause per run - or per runs that share their status and progress, ``E1–E4 finished 150/150`` - each
    with its own numbers, in the track's order; a group of repeats in one clause at its first member's place,
    :func:`_group_state`; whether a group's clause names its members)."""
    grouped = {member: group for group in track.groups for member in group.members}
    units: dict[tuple[str, ...], list[Experiment]] = {}
    for experiment in track.experiments:
        group = grouped.get(experiment.id)
        if group is not None:
            units.setdefault(("group", group.key), []).append(experiment)
            continue
        progress = format_progress(experiment.steps_done, experiment.total_steps, lang)
        units.setdefault(("state", experiment.status, progress), []).append(experiment)
    groups = {group.key: group for group in track.groups}
    clauses: list[str] = []
    named = False
    for unit, members in units.items():
        if unit[0] == "group":
            clause, names_members = _group_state(groups[unit[1]], track, lang)
            clauses.append(clause)
            named = named or names_members
        else:
            clauses.append(_state_clause(unit[1], unit[2], _codes(members, lang, track.experiments), lang))
    return clauses, named


def _status_sentence(track: _Track, lang: str) -> str:
    """``Qwen3.5-4B: E1–E4 finished 150/150, E5 running 21/150.``; past :data:`LIST_AFTER` clauses, or when a
    group's clause names its members, a list."""
    clauses, named = _status_clauses(track, lang)
    name = track_name(track.name, lang)
    if len(clauses) > LIST_AFTER or named:
        return _listed(_fill("track_status_list", lang, track=name, count=str(len(track.experiments))), clauses)
    return _fill("track_status", lang, track=name, states=join_items(clauses, lang))


def _track_source(track: _Track) -> str | None:
    counts: dict[str, int] = {}
    for headline in track.headlines.values():
        if headline.validation_source is not None:
            counts[headline.validation_source] = counts.get(headline.validation_source, 0) + 1
    if not counts:
        return None
    return sorted(counts, key=lambda source: (-counts[source], source))[0]


def _validation_sentences(track: _Track, signals: Sequence[Signal], lang: str) -> list[str]:
    source = _track_source(track)
    if source is None:
        return []
    sentences: list[str] = []
    bests = []
    for experiment in track.experiments:
        best = track.headlines[experiment.id].best(source)
        last = track.headlines[experiment.id].last(source)
        # A run validated only before training (step 0) has no checkpoint score to rank yet.
        if best is not None and last is not None and last.step > 0:
            bests.append((experiment, best))
    bests.sort(key=lambda item: (-round(item[1].value, 6), item[1].step, item[0].order))
    if bests:
        items = [
            _fill(
                "best_item",
                lang,
                name=_name(experiment),
                value=format_score(best.value, NUMBERS_LANG),
                step=str(best.step),
            )
            for experiment, best in bests
        ]
        sentences.append(
            _fill("best_validation", lang, source=source, items=join_items(_capped(items, "more_items", lang), lang))
        )
    lasts = []
    for experiment in track.compared:
        last = track.headlines[experiment.id].last(source)
        if last is not None:
            lasts.append((experiment, last))
    if len(lasts) >= 2:
        final_step = max(last.step for _, last in lasts)
        at_final = [(experiment, last) for experiment, last in lasts if last.step == final_step]
        top = max(round(last.value, 6) for _, last in at_final)
        leaders = [experiment for experiment, last in at_final if round(last.value, 6) == top]
        verb = _word("lead_one" if len(leaders) == 1 else "lead_many", lang)
        sentences.append(
            _fill(
                "leaders",
                lang,
                step=str(final_step),
                names=join_list([_name(item) for item in leaders], lang),
                verb=verb,
                value=format_score(top, NUMBERS_LANG),
            )
        )
    by_id = {experiment.id: experiment for experiment in track.experiments}
    drops = []
    for signal in signals:
        if signal.kind != "validation_drop" or signal.experiment not in by_id:
            continue
        if signal.metric != validation_keys([signal.metric or ""]).get(source):
            continue
        drops.append(
            _fill(
                "drop_item",
                lang,
                name=_name(by_id[signal.experiment]),
                value=format_score(signal.values["value"], NUMBERS_LANG),
                step=str(signal.step),
                best=format_score(signal.values["best"], NUMBERS_LANG),
                best_step=str(int(signal.values["best_step"])),
            )
        )
    if drops:
        items = _capped(drops, "more_experiments", lang)
        sentences.append(_fill("drops", lang, items=join_clauses(items, lang)))
    return sentences


def _finished(track: _Track) -> list[Experiment]:
    """The compared experiments that finished: wall-clock hours compare only between complete runs."""
    return [experiment for experiment in track.compared if experiment.status == "finished"]


def _extremes(
    track: _Track, value: Callable[[Headline], float | None], *, among: Sequence[Experiment] | None = None
) -> tuple[Experiment, Experiment] | None:
    """(lowest, highest) of ``value`` over ``among`` (default: the compared experiments); None with fewer
    than two values or when all are equal."""
    scored = []
    for experiment in track.compared if among is None else among:
        number = value(track.headlines[experiment.id])
        if number is not None and math.isfinite(number):
            scored.append((number, experiment.order, experiment))
    if len(scored) < 2:
        return None
    scored.sort(key=lambda item: (item[0], item[1]))
    if scored[0][0] == scored[-1][0]:
        return None
    return scored[0][2], scored[-1][2]


def _growth(headline: Headline) -> float | None:
    start, end = headline.response_length_start, headline.response_length_end
    if start is None or end is None or start <= 0:
        return None
    return end / start


def _length_range(headline: Headline) -> str:
    start, end = headline.response_length_start, headline.response_length_end
    return f"{format_count(start, NUMBERS_LANG)}→{format_count(end, NUMBERS_LANG)}"


def _entropy_range(headline: Headline) -> str:
    return f"{format_score(headline.entropy_start, NUMBERS_LANG)}→{format_score(headline.entropy_end, NUMBERS_LANG)}"


def _grad_range(headline: Headline) -> str:
    return format_range(headline.grad_norm_min, headline.grad_norm_max, NUMBERS_LANG)


def _dynamics_sentences(track: _Track, signals: Sequence[Signal], lang: str) -> list[str]:
    sentences: list[str] = []
    hours = _extremes(track, lambda headline: headline.elapsed_h, among=_finished(track))
    if hours is not None:
        fast, slow = hours
        sentences.append(
            _fill(
                "speed",
                lang,
                fast=_name(fast),
                fast_h=format_hours(fast.elapsed_h, lang),
                slow=_name(slow),
                slow_h=format_hours(slow.elapsed_h, lang),
            )
        )
    growth = _extremes(track, _growth)
    # "grows most/least" only reads right when every compared run grew.
    if growth is not None and (_growth(track.headlines[growth[0].id]) or 0.0) > 1.0:
        least, most = growth
        sentences.append(
            _fill(
                "length",
                lang,
                most=_name(most),
                most_range=_length_range(track.headlines[most.id]),
                least=_name(least),
                least_range=_length_range(track.headlines[least.id]),
            )
        )
    entropy = _extremes(track, lambda headline: headline.entropy_end)
    if entropy is not None:
        lowest = entropy[0]
        sentences.append(
            _fill("entropy_lowest", lang, name=_name(lowest), range=_entropy_range(track.headlines[lowest.id]))
        )
    ids = {experiment.id for experiment in track.experiments}
    rising = [
        parenthesized(_name(experiment), _entropy_range(track.headlines[experiment.id]), lang)
        for experiment in track.experiments
        if any(s.kind == "entropy_rising" and s.experiment == experiment.id for s in signals) and experiment.id in ids
    ]
    if rising:
        sentences.append(_fill("entropy_rises", lang, items=join_list(rising, lang)))
    grad = _extremes(track, lambda headline: headline.grad_norm_p95)
    if grad is not None:
        lowest = grad[0]
        sentences.append(_fill("grad_lowest", lang, name=_name(lowest), range=_grad_range(track.headlines[lowest.id])))
    sentences.extend(_association_sentences(track, lang))
    return sentences


ASSOCIATIONS_TOLD = 2
"""Settings-and-behaviour sentences a track's paragraph holds at most (the cleanest splits)."""


def _measure_items(association: Association, runs: Sequence[Experiment], track: _Track, lang: str) -> str:
    """``E1 0.250→0.220, E4 0.262→0.231``: each run's numbers for the measure."""
    name = association.measure.name
    texts = []
    for run in runs:
        headline = track.headlines[run.id]
        if name == "entropy":
            figure = _entropy_range(headline)
        elif name == "length":
            figure = _length_range(headline)
        elif name == "grad":
            figure = _grad_range(headline)
        else:
            figure = format_hours(headline.elapsed_h, lang)
        texts.append(f"{_code(run)} {figure}")
    return join_values(texts, lang)


def _association_sentences(track: _Track, lang: str) -> list[str]:
    """``With KL loss on, E1 and E4 have the flattest entropy (...); with KL loss off, E2 and E3 move 3.4–5.3× as
    much (...).``: the cleanest :data:`ASSOCIATIONS_TOLD` splits of a measure by a setting
    (:mod:`rlmon.analysis.associations`), then a note that they are associations."""
    found = associations(track.compared, track.headlines, finished=_finished(track))[:ASSOCIATIONS_TOLD]
    # the cleanest ones, told in the order of the measures (entropy, length, grad_norm, hours)
    order = {measure: index for index, measure in enumerate(("entropy", "length", "grad", "hours"))}
    found.sort(key=lambda item: order.get(item.measure.name, len(order)))
    sentences = []
    for association in found:
        setting = association.split.setting
        label = setting_label(association.split.key, setting.label, lang)
        (low_value, low_runs), (high_value, high_runs) = association.low, association.high
        # every run of a split has the setting (rlmon.analysis.associations.setting_splits)
        low_setting = low_runs[0].setting(association.split.key) or setting
        high_setting = high_runs[0].setting(association.split.key) or setting
        factor = ""
        if association.factor is not None:
            least, most = association.factor
            factor = f"{least:.1f}" if f"{least:.1f}" == f"{most:.1f}" else f"{least:.1f}–{most:.1f}"
        sentences.append(
            _fill(
                f"assoc_{association.measure.name}",
                lang,
                setting=label,
                low_value=value_text(low_setting, low_value, lang),
                low_names=join_list([_code(run) for run in low_runs], lang),
                low_items=_measure_items(association, low_runs, track, lang),
                high_value=value_text(high_setting, high_value, lang),
                high_names=join_list([_code(run) for run in high_runs], lang),
                high_items=_measure_items(association, high_runs, track, lang),
                factor=factor,
            )
        )
    if sentences:
        sentences.append(_word("assoc_note", lang))
    return sentences


def _signal_texts(experiment_signals: Sequence[Signal], lang: str) -> list[str]:
    """Signal texts of one experiment, with its spikes of one metric grouped into one phrase."""
    texts: list[str] = []
    spikes: dict[str, list[Signal]] = {}
    for signal in experiment_signals:
        if signal.kind == "spike" and signal.metric is not None:
            spikes.setdefault(signal.metric, []).append(signal)
    done: set[str] = set()
    for signal in experiment_signals:
        if signal.kind == "spike" and signal.metric is not None:
            if signal.metric in done:
                continue
            done.add(signal.metric)
            group = spikes[signal.metric]
            steps = [str(item.step) for item in group]
            values = [format_value(item.values["value"], NUMBERS_LANG) for item in group]
            key = "spike_group" if len(group) > 1 else "spike_group_one"
            texts.append(
                _fill(
                    key,
                    lang,
                    metric=short_metric(signal.metric),
                    steps=join_steps(steps, lang),
                    values=join_values(values, lang),
                    band=format_band(group[0].values["typical_low"], group[0].values["typical_high"], NUMBERS_LANG),
                )
            )
            continue
        texts.append(signal.text(lang))
    return texts


def _attention_sentence(track: _Track, signals: Sequence[Signal], lang: str) -> str:
    """What the track's signals say: the warnings and critical ones ("Worth attention: ..."), then the info ones
    ("Also noted: ..."); "No signal worth attention." only when the track has no signal at all, so the sentence
    never contradicts the signals table beside it."""
    urgent: list[tuple[bool, str]] = []  # (no critical signal, text): experiments with a critical one come first
    notes: list[tuple[bool, str]] = []
    for experiment in track.experiments:
        mine = [s for s in signals if s.experiment == experiment.id]
        mine.sort(key=lambda s: (s.severity != "critical", _KIND_ORDER.get(s.kind, 99), s.step or 0))
        for target, chosen in (
            (urgent, [s for s in mine if s.severity in ("warning", "critical")]),
            (notes, [s for s in mine if s.severity == "info"]),
        ):
            if chosen:
                text = join_clauses(_signal_texts(chosen, lang), lang)
                critical = any(s.severity == "critical" for s in chosen)
                target.append((not critical, _fill("attention_item", lang, name=_name(experiment), text=text)))
    if not urgent and not notes:
        return _word("attention_none", lang)

    def listed(items: list[tuple[bool, str]]) -> str:
        return join_clauses(
            _capped([text for _, text in sorted(items, key=lambda item: item[0])], "more_experiments", lang), lang
        )

    if len(urgent) + len(notes) > LIST_AFTER:
        items = [text for _, text in sorted(urgent, key=lambda item: item[0])]
        items += [_fill("attention_noted", lang, text=text) for _, text in sorted(notes, key=lambda item: item[0])]
        return _listed(_word("attention_lead", lang), _capped(items, "more_experiments", lang))
    sentences = [_fill("attention", lang, items=listed(urgent))] if urgent else []
    if notes:
        sentences.append(_fill("attention_info", lang, items=listed(notes)))
    return join_sentences(sentences, lang)


def _track_pairs(tracks: Sequence[_Track]) -> list[tuple[_Track, _Track, list[str]]]:
    """Pairs of tracks holding at least two of the same algorithms, with those algorithm keys."""
    pairs = []
    for index, first in enumerate(tracks):
        for second in tracks[index + 1 :]:
            keys_a = {item.algorithm.key for item in first.compared if item.algorithm.key != "unknown"}
            keys_b = {item.algorithm.key for item in second.compared if item.algorithm.key != "unknown"}
            common = sorted(keys_a & keys_b)
            if len(common) >= 2:
                pairs.append((first, second, common))
    return pairs


def _by_algorithm(
    track: _Track,
    common: Sequence[str],
    value: Callable[[Headline], float | None],
    *,
    among: Sequence[Experiment] | None = None,
) -> dict[str, float]:
    """Algorithm key -> ``value`` of its first experiment in ``among`` (default: the compared ones)."""
    out: dict[str, float] = {}
    for experiment in track.compared if among is None else among:
        if experiment.algorithm.key in common and experiment.algorithm.key not in out:
            number = value(track.headlines[experiment.id])
            if number is not None and math.isfinite(number):
                out[experiment.algorithm.key] = number
    return out


def _comparison_sentence(first: _Track, second: _Track, common: Sequence[str], lang: str) -> str | None:
    items: list[str] = []
    band_a = _band([first.headlines[item.id].pass_rate_start for item in first.compared])
    band_b = _band([second.headlines[item.id].pass_rate_start for item in second.compared])
    if band_a and band_b:
        items.append(
            _fill(
                "tracks_pass",
                lang,
                a_band=_band_text(band_a, kind="%", lang=lang),
                b_band=_band_text(band_b, kind="%", lang=lang),
            )
        )
    hours_a = _band([item.elapsed_h for item in _finished(first)])
    hours_b = _band([item.elapsed_h for item in _finished(second)])
    if hours_a and hours_b:
        # the spread as the bands are written (one decimal), so the figures add up for a reader
        spread_a = round(hours_a[1], 1) - round(hours_a[0], 1)
        spread_b = round(hours_b[1], 1) - round(hours_b[0], 1)
        if round(spread_a, 1) == round(spread_b, 1) or len(_finished(first)) < 2 or len(_finished(second)) < 2:
            items.append(
                _fill(
                    "tracks_hours",
                    lang,
                    a_band=_band_text(hours_a, kind="h", lang=lang),
                    b_band=_band_text(hours_b, kind="h", lang=lang),
                )
            )
        else:
            items.append(
                _fill(
                    "tracks_hours_spread",
                    lang,
                    a=first.name,
                    b=second.name,
                    order=_word("spread_narrower" if spread_a < spread_b else "spread_wider", lang),
                    a_band=_band_text(hours_a, kind="h", lang=lang),
                    b_band=_band_text(hours_b, kind="h", lang=lang),
                    a_spread=format_hours(spread_a, lang),
                    b_spread=format_hours(spread_b, lang),
                )
            )
    names = {item.algorithm.key: item.algorithm.name for item in first.compared + second.compared}
    measures: tuple[tuple[str, Callable[[Headline], float | None]], ...] = (
        ("length", _growth),
        ("pass", lambda headline: headline.pass_rate_end),
        ("hours", lambda headline: headline.elapsed_h),
    )
    for what, value in measures:
        values_a = _by_algorithm(first, common, value, among=_finished(first) if what == "hours" else None)
        values_b = _by_algorithm(second, common, value, among=_finished(second) if what == "hours" else None)
        shared = sorted(set(values_a) & set(values_b))
        if len(shared) < 2:
            continue
        for algorithm in shared:
            a_rank = _rank(values_a, shared, algorithm)
            b_rank = _rank(values_b, shared, algorithm)
            if a_rank is None or b_rank is None or a_rank == b_rank:
                continue
            items.append(
                _fill(
                    "reversal",
                    lang,
                    a=first.name,
                    b=second.name,
                    algorithm=names[algorithm],
                    what=_word(f"what_{what}", lang),
                    a_order=_word(f"order_{what}_{a_rank}", lang),
                    b_order=_word(f"order_{what}_{b_rank}", lang),
                )
            )
    if not items:
        return None
    differences = track_differences(first.experiments, second.experiments, lang)
    if differences:
        return _fill(
            "tracks_settings",
            lang,
            a=first.name,
            b=second.name,
            settings=join_values(differences, lang),
            items=join_clauses(items, lang),
        )
    return _fill("tracks", lang, a=first.name, b=second.name, items=join_clauses(items, lang))


def _rank(values: Mapping[str, float], shared: Sequence[str], algorithm: str) -> str | None:
    """``most`` / ``least`` when ``algorithm`` is the unique top / bottom among ``shared``, else None."""
    numbers = [values[key] for key in shared]
    mine = values[algorithm]
    if mine == max(numbers) and numbers.count(mine) == 1:
        return "most"
    if mine == min(numbers) and numbers.count(mine) == 1:
        return "least"
    return None


def write_summary(
    experiments: Sequence[Experiment],
    signals: Sequence[Signal],
    *,
    lang: str = "en",
    settings: Settings | None = None,
) -> list[str]:
    """The written summary: a few short paragraphs per track, then one per pair of comparable tracks. With more
    than :data:`TRACKS_IN_FULL` tracks in view, it starts with how many runs have each status, tells the tracks
    of several runs one by one (status, validation, what is worth attention; how their runs compare is left to
    each track's own view), and the tracks of one run together (what is worth attention in them).

    Parameters
    ----------
    experiments
        Loaded experiments (hidden ones are left out).
    signals
        From :func:`detect_all` on the same experiments.
    lang
        ``en`` or ``zh``.
    settings
        Only the ``min_steps`` setting matters (which runs count as comparable); default settings when None.

    Returns
    -------
    list[str]
        Plain-text paragraphs (no markup; log-derived names appear as they are).
    """
    lang = lang if lang in LANGUAGES else "en"
    tracks = _tracks(experiments, settings or Settings())
    if not any(track.compared for track in tracks):
        # Runs that crashed or stalled before their first step still have signals: the words name them, as the
        # signals table beside them does.
        attention = [_attention_sentence(track, signals, lang) for track in tracks]
        return [_word("summary_empty", lang), *(text for text in attention if text != _word("attention_none", lang))]
    paragraphs: list[str] = []
    told = tracks if len(tracks) <= TRACKS_IN_FULL else [track for track in tracks if len(track.experiments) > 1]
    alone = [track for track in tracks if track not in told]
    if alone:
        paragraphs.append(_overview_sentence(tracks, lang))
    for track in told:
        status = _status_sentence(track, lang)
        first = [] if "\n" in status else [status]
        if "\n" in status:  # a list of runs is a paragraph of its own
            paragraphs.append(status)
        items = _pass_items(track, lang)
        if items and len(join_items(items, lang)) > PROSE_CHARS:
            # a list of its own, after what the paragraph said so far
            paragraphs.append(_listed(join_sentences([*first, _word("pass_rates_lead", lang)], lang), items))
            first = []
        elif items:
            first.append(_fill("pass_rates", lang, items=join_items(items, lang)))
        first.extend(_group_sentences(track, lang))
        first.extend(_validation_sentences(track, signals, lang))
        if first:
            paragraphs.append(join_sentences(first, lang))
        openings = _openings(track, lang) if len(tracks) <= TRACKS_IN_FULL else None
        if openings is not None:
            paragraphs.append(
                _fill("track_prefix", lang, track=track_name(track.name, lang), text=openings)
                if len(tracks) > 1
                else openings
            )
        # With several tracks in view, every paragraph says whose runs it is about, as the first one does. With
        # many, how the runs of a track compare (speed, length, entropy) is left to that track's own view.
        dynamics = _dynamics_sentences(track, signals, lang) if len(tracks) <= TRACKS_IN_FULL else []
        follow = [join_sentences(dynamics, lang)] if dynamics else []
        follow.append(_attention_sentence(track, signals, lang))
        if len(tracks) > 1:
            follow = [_fill("track_prefix", lang, track=track_name(track.name, lang), text=text) for text in follow]
        paragraphs.extend(follow)
    if alone:
        together = _Track(
            name="",
            experiments=[experiment for track in alone for experiment in track.experiments],
            headlines={key: value for track in alone for key, value in track.headlines.items()},
            compared=[],
        )
        paragraphs.append(_fill("single_tracks", lang, text=_attention_sentence(together, signals, lang)))
    for first_track, second_track, common in _track_pairs(tracks):
        sentence = _comparison_sentence(first_track, second_track, common, lang)
        if sentence is not None:
            paragraphs.append(sentence)
    return paragraphs


def _overview_sentence(tracks: Sequence[_Track], lang: str) -> str:
    """``19 runs on 12 tracks: 9 finished, 2 running, 5 stalled, 3 crashed.``"""
    counts: dict[str, int] = {}
    for track in tracks:
        for experiment in track.experiments:
            counts[experiment.status] = counts.get(experiment.status, 0) + 1
    states = [
        _fill("status_count", lang, count=str(count), status=t(f"status_{status}", lang))
        for status, count in sorted(counts.items(), key=lambda item: STATUS_ORDER.index(item[0]))  # type: ignore[arg-type]
    ]
    return _fill(
        "overview", lang, runs=str(sum(counts.values())), tracks=str(len(tracks)), states=join_items(states, lang)
    )


def _validation_name(experiment: Experiment, headline: Headline, lang: str) -> str:
    """``aime24 validation`` (its one data source), ``first aime24 validation`` when none has been logged since
    training began, else ``validation``."""
    sources = sorted(validation_keys(experiment.steps.columns))
    if len(sources) != 1:
        return _word("next_validation", lang)
    key = "next_validation_of" if headline.validation_source is not None else "next_validation_first"
    return _fill(key, lang, source=sources[0])


def _next_sentence(experiment: Experiment, validation: str, lang: str) -> str | None:
    """``Next: aime24 validation at step 25 in 4 steps (about 50m), checkpoint at step 25 ..., end at step 150
    in 129 steps (about 27h05m).`` for a running run (:func:`rlmon.runs.schedule.next_milestones`)."""
    items = []
    for milestone in next_milestones(experiment):
        when = (
            _fill("next_time", lang, time=format_duration(milestone.hours_left, lang))
            if milestone.hours_left is not None
            else ""
        )
        what = validation if milestone.kind == "validation" else _word(f"next_{milestone.kind}", lang)
        items.append(
            _fill("next_item", lang, what=what, step=str(milestone.step), count=str(milestone.steps_left), time=when)
        )
    if not items:
        return None
    return _fill("next", lang, items=join_clauses(items, lang))


def _rank_value(name: str, headline: Headline, lang: str) -> str:
    if name == "pass":
        return format_percent(headline.pass_rate_end, NUMBERS_LANG)
    if name == "length":
        return _length_range(headline)
    if name == "entropy":
        return format_score(headline.entropy_end, NUMBERS_LANG)
    if name == "grad":
        return _grad_range(headline)
    if name == "hours":
        return format_hours(headline.elapsed_h, lang)
    best = headline.best()
    if best is None:
        return ""
    return parenthesized(f"{best.data_source} {format_score(best.value, NUMBERS_LANG)}", f"step {best.step}", lang)


def _apart_sentence(experiment: Experiment, peers: Sequence[Experiment], lang: str, settings: Settings) -> str | None:
    """``E3 (Dr.GRPO) — the only run with loss aggregation seq-mean-token-sum-norm and divide by group std off;
    among E1–E4: lowest entropy (0.048), ....``: what sets the run apart among the runs its track compares
    (:func:`rlmon.analysis.associations.distinctions`); None when nothing does or it has no track mates."""
    others = [peer for peer in peers if peer.id != experiment.id]
    track = next((item for item in _tracks([*others, experiment], settings) if experiment in item.experiments), None)
    return None if track is None else _apart_text(experiment, track, lang)


def _apart_text(experiment: Experiment, track: _Track, lang: str, *, pool_named: bool = True) -> str | None:
    """What sets ``experiment`` apart among the runs ``track`` compares (:func:`_apart_sentence`); None when
    nothing does or the track has fewer than 3 runs. Without ``pool_named``, ``E1 (GRPO): ...``, the runs it is
    compared with left to the text around it."""
    if len(track.experiments) < 3:
        return None
    found = distinctions(experiment, track.compared, track.headlines)
    parts = []
    if found.settings:
        described = [
            _fill(
                "apart_setting",
                lang,
                setting=setting_label(item.key, item.label, lang),
                value=value_text(item, item.value, lang)
                if isinstance(item.value, bool)
                else setting_display(item, lang),
            )
            for item, _ in found.settings
        ]
        sharing = found.settings[0][1]
        if sharing:
            parts.append(
                _fill(
                    "apart_shared",
                    lang,
                    count=str(len(sharing) + 1),
                    item=described[0],
                    others=join_list([_code(run) for run in sharing], lang),
                )
            )
        else:
            parts.append(_fill("apart_only", lang, items=join_list(described, lang)))
    if found.ranks:
        ranks = [
            _fill(f"rank_{name}_{order}", lang, value=_rank_value(name, track.headlines[experiment.id], lang))
            for name, order in found.ranks
        ]
        parts.append(join_values(ranks, lang))
    elif experiment not in track.compared and experiment.status == "running":
        parts.append(_word("apart_running", lang))
    if not parts:
        return None
    if not pool_named:
        return _fill("opening_item", lang, name=_name(experiment), text=join_clauses(parts, lang))
    pool = [run for run in track.experiments if run in track.compared or run.id == experiment.id]
    return _fill(
        "apart",
        lang,
        name=_name(experiment),
        names=_codes(pool, lang, track.experiments),
        text=join_clauses(parts, lang),
    )


def _openings(track: _Track, lang: str) -> str | None:
    """The overview's line per run of the track on what sets it apart (the opening of its own paragraph,
    :func:`_apart_text`), a running run's with what comes next (:func:`_next_sentence`); None when no run has
    one, for a track with repeats (what sets one seed of a setting apart from the others is chance), and unless
    it compares three runs or more, each at least :attr:`~rlmon.settings.Settings.min_steps` long (a first or
    last of a run of a few steps says nothing)."""
    if track.groups or not track.judged or len(track.compared) < 3:
        return None
    items = []
    for experiment in track.experiments:
        apart = _apart_text(experiment, track, lang, pool_named=False)
        if apart is None:
            continue
        parts = [apart]
        if experiment.status == "running":
            headline = track.headlines[experiment.id]
            upcoming = _next_sentence(experiment, _validation_name(experiment, headline, lang), lang)
            if upcoming is not None:
                parts.append(upcoming)
        items.append(join_sentences(parts, lang))
    return _listed(_word("openings_lead", lang), items) if items else None


def experiment_paragraph(
    experiment: Experiment,
    signals: Sequence[Signal],
    *,
    lang: str = "en",
    peers: Sequence[Experiment] = (),
    settings: Settings | None = None,
) -> str:
    """One paragraph about one experiment for its page: what sets it apart among its track's runs (with
    ``peers``, the experiments in view), status, start→end numbers, validation, what comes next, signals.

    ``signals`` may hold other experiments' signals; only this experiment's are used. ``settings``: only
    ``min_steps`` matters (which runs are compared); default settings when None.
    """
    lang = lang if lang in LANGUAGES else "en"
    headline = headline_numbers(experiment)
    name = _name(experiment)
    apart = _apart_sentence(experiment, peers, lang, settings or Settings()) if peers else None
    hours = format_duration(experiment.elapsed_h, lang)
    progress = format_progress(experiment.steps_done, experiment.total_steps, lang)
    if experiment.status == "finished":
        status = _fill("exp_status_finished", lang, name=name, progress=progress, hours=hours)
    elif experiment.status == "running":
        # the time to the end is told with what comes next, when the total is known
        ends = any(milestone.kind == "end" for milestone in next_milestones(experiment))
        eta = (
            _fill("exp_eta", lang, eta=format_duration(experiment.eta_h, lang))
            if experiment.eta_h is not None and not ends
            else ""
        )
        status = _fill("exp_status_running", lang, name=name, progress=progress, hours=hours, eta=eta)
    else:
        status = _fill(
            "exp_status_other", lang, name=name, status=t(f"status_{experiment.status}", lang), progress=progress
        )
    facts: list[str] = []
    if headline.pass_rate_start is not None:
        facts.append(
            _fill(
                "exp_pass",
                lang,
                start=format_percent(headline.pass_rate_start, NUMBERS_LANG),
                end=format_percent(headline.pass_rate_end, NUMBERS_LANG),
            )
        )
    if headline.response_length_start is not None:
        facts.append(_fill("exp_length", lang, range=_length_range(headline)))
    if headline.entropy_start is not None:
        facts.append(_fill("exp_entropy", lang, range=_entropy_range(headline)))
    if headline.grad_norm_min is not None:
        facts.append(_fill("exp_grad", lang, range=_grad_range(headline)))
    best, last = headline.best(), headline.last()
    if last is not None and last.step <= 0 and headline.validation_source is not None:
        facts.append(
            _fill(
                "exp_val_initial",
                lang,
                source=headline.validation_source,
                value=format_score(last.value, NUMBERS_LANG),
                step=str(last.step),
            )
        )
    elif best is not None and last is not None and headline.validation_source is not None:
        facts.append(
            _fill(
                "exp_val",
                lang,
                source=headline.validation_source,
                best=format_score(best.value, NUMBERS_LANG),
                best_step=str(best.step),
                last=format_score(last.value, NUMBERS_LANG),
                last_step=str(last.step),
            )
        )
    parts = [status] if apart is None else [apart, status]
    if facts:
        parts.append(_fill("facts", lang, facts=join_clauses(facts, lang)))
    upcoming = _next_sentence(experiment, _validation_name(experiment, headline, lang), lang)
    if upcoming is not None:
        parts.append(upcoming)
    mine = [signal for signal in signals if signal.experiment == experiment.id]
    if mine:
        mine.sort(key=lambda s: (SEVERITIES.index(s.severity) * -1, _KIND_ORDER.get(s.kind, 99), s.step or 0))
        parts.append(_fill("exp_signals", lang, items=join_clauses(_signal_texts(mine, lang), lang)))
    elif headline.steps > 0:
        parts.append(_word("exp_no_signals", lang))
    return join_sentences(parts, lang)


def summary_for_root(
    roots: Sequence[Path],
    *,
    lang: str = "en",
    as_json: bool = False,
    cache: LogCache | None = None,
    settings: Settings | None = None,
    now: float | None = None,
) -> str:
    """The text ``rlmon summary ROOT`` prints: the summary paragraphs, then the signals (or JSON with both).

    Parameters
    ----------
    roots
        Log roots.
    lang
        ``en`` or ``zh``.
    as_json
        Return JSON: ``{"summary": [...], "signals": [...], "experiments": [headline, ...], "problems": [...]}``.
    cache
        The per-log cache (memory-only when None).
    settings
        Default settings when None.
    now
        Current time for stall detection (``time.time()`` when None).

    Raises
    ------
    CatalogError
        A root is missing or cannot be listed.
    """
    from rlmon.runs.loading import load_experiment
    from rlmon.sources.discovery import discover_experiments

    settings = settings or Settings()
    cache = cache or LogCache(None)
    moment = time.time() if now is None else now
    catalog = discover_experiments(roots)
    experiments = [load_experiment(ref, cache, now=moment, settings=settings) for ref in catalog.experiments]
    # the root is one view: its runs by the names the app gives them there (short, never two alike)
    names = experiment_names(name_entries(experiments))
    experiments = [dataclasses.replace(item, label=names[item.id]) for item in experiments]
    signals = detect_all(experiments, settings=settings)
    dumps_cache = SampleCache(None)
    local_roots = [Path(root) for root in roots]
    for ref, experiment in zip(catalog.experiments, experiments, strict=True):
        # the training generation dumps the config names (rlmon.analysis.outcomes), read as the app does
        signal = dump_signal(
            experiment.config, ref.path, experiment=experiment.id, label=experiment.label,
            allowed=[ref.root, *local_roots, *settings.dump_roots], settings=settings, cache=dumps_cache,
        )  # fmt: skip
        if signal is not None:
            signals.append(signal)
    paragraphs = write_summary(experiments, signals, lang=lang, settings=settings)
    if as_json:
        payload = {
            "summary": paragraphs,
            "signals": [signal.to_json_dict() for signal in signals],
            "experiments": [headline_numbers(experiment).to_json_dict() for experiment in experiments],
            "problems": list(catalog.problems),
        }
        return json.dumps(payload, indent=2, ensure_ascii=False)
    lines = [*_paragraph_lines(paragraphs), "", _word("signals_heading", lang)]
    if not signals:
        lines.append(_word("signals_none", lang))
    for signal in signals:
        where = "" if signal.step is None else f" @{signal.step}"
        if signal.step_end is not None and signal.step is not None and signal.step_end != signal.step:
            where = f" @{signal.step}–{signal.step_end}"
        severity = t(f"severity_{signal.severity}", lang)
        lines.append(f"- [{severity}] {signal.label or signal.experiment}{where}: {signal.text(lang)}")
    return "\n".join(lines)


def _paragraph_lines(paragraphs: Sequence[str]) -> list[str]:
    lines: list[str] = []
    for index, paragraph in enumerate(paragraphs):
        if index:
            lines.append("")
        lines.append(paragraph)
    return lines
