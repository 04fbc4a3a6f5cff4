"""What the samples page shows of an experiment's samples: the browse tab's choices and cards, the prompts one
can follow across steps or experiments, and each card's texts.

Pure (no streamlit). The samples come as a :class:`SampleSet` (a frame of
:func:`rlmon.logs.samples.read_samples`, :data:`~rlmon.logs.samples.SAMPLE_SCHEMA`); a sample is shown as a
:class:`SampleCard`, whose texts are rlmon's own words and the log's text as it was written (the page shows the
log's text literally, bidi control characters aside).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from rlmon.logs.samples import filter_samples, samples_for_prompt
from rlmon.schema import STEP
from rlmon.text import UNKNOWN, format_whole, t
from rlmon.text.display import display_text, without_bidi

__all__ = [
    "Browse",
    "BrowseChoices",
    "SampleCard",
    "SampleSet",
    "Side",
    "browse",
    "browse_choices",
    "browse_rows",
    "card_of",
    "extra_fields",
    "header_text",
    "length_text",
    "pair_steps",
    "prompt_label",
    "prompt_steps",
    "prompts_at_several_steps",
    "prompts_latest_first",
    "sample_at",
    "sample_sources",
    "sample_steps",
    "shared_samples",
    "side",
    "step_text",
]


@dataclass(frozen=True)
class SampleSet:
    """An experiment's samples: ``frame`` follows :data:`rlmon.logs.samples.SAMPLE_SCHEMA`."""

    frame: pl.DataFrame
    refused: tuple[str, ...] = ()
    """Dump folders the experiment's logs name outside the log roots and ``dump_roots``: not read."""

    @property
    def is_empty(self) -> bool:
        return self.frame.is_empty()


@dataclass(frozen=True)
class SampleCard:
    """One sample as a card shows it."""

    header: str
    """Step, kind, score, length and origin: ``step 3 · validation · score 1 · length 1 (characters) · ...``."""
    where: str
    """``<file name>:<line>`` of the sample (the log's own words: escape before markdown)."""
    passed: bool | None
    """Whether the score is above 0; None without a score."""
    prompt: str
    response: str
    ground_truth: str
    """The ground truth, :data:`~rlmon.text.UNKNOWN` when the sample has none."""
    extra: str | None
    """The other fields, one ``name: value`` a line; None when there are none."""


@dataclass(frozen=True)
class BrowseChoices:
    """What the browse tab's filters offer: the steps with samples (newest first) and the data sources (sorted)."""

    steps: tuple[int, ...]
    sources: tuple[str, ...]


@dataclass(frozen=True)
class Browse:
    """The browse tab under its filters: the cards shown, how many of how many, and a note when more passed."""

    cards: tuple[SampleCard, ...]
    count: str
    more: str | None


@dataclass(frozen=True)
class Side:
    """One side of a side-by-side comparison: its title (``step 3``, ``E1 · step 3``) and its card."""

    title: str
    card: SampleCard


def step_text(step: int | None, lang: str) -> str:
    """``step 3``; ``step pending`` for a sample no step line has followed yet."""
    return t("samples_step_pending", lang) if step is None else t("samples_step_n", lang, step=step)


def length_text(row: dict[str, Any], lang: str) -> str:
    """The response's length: in tokens when a dump recorded them, else in characters."""
    if row["response_tokens"] is not None:
        return t("samples_tokens", lang, count=format_whole(row["response_tokens"], lang))
    return t("samples_chars", lang, count=format_whole(len(row["response"]), lang))


def header_text(row: dict[str, Any], lang: str) -> str:
    """A card's header line: step, kind (when known), score, length and where the sample comes from."""
    score = UNKNOWN if row["score"] is None else f"{row['score']:g}"
    parts = [step_text(row["step"], lang)]
    if row["kind"]:
        parts.append(t(f"samples_kind_{row['kind']}", lang))
    parts += [
        t("samples_score", lang, score=score),
        length_text(row, lang),
        t(f"samples_origin_{row['origin']}", lang),
    ]
    return " · ".join(parts)


def extra_fields(extra: str | None) -> list[tuple[str, str]]:
    """The ``extra`` column's JSON object as (name, value) texts; none when it is not an object."""
    try:
        values = json.loads(extra or "{}")
    except ValueError:
        return []
    return [(str(name), str(value)) for name, value in values.items()] if isinstance(values, dict) else []


def card_of(row: dict[str, Any], lang: str) -> SampleCard:
    """A sample frame's row as a card: the log's texts without their bidi control characters (a response
    holding U+202E would read backwards), nothing else changed."""
    extra = extra_fields(row["extra"])
    return SampleCard(
        header=header_text(row, lang),
        where=display_text(f"{Path(row['file']).name}:{row['line']}"),
        passed=None if row["score"] is None else row["score"] > 0,
        prompt=without_bidi(row["prompt"]),
        response=without_bidi(row["response"]),
        ground_truth=without_bidi(row["ground_truth"]) if row["ground_truth"] is not None else UNKNOWN,
        extra=without_bidi("\n".join(f"{name}: {value}" for name, value in extra)) if extra else None,
    )


def prompt_label(prompt: str) -> str:
    """A prompt as one short line for a picker: its last non-empty lines (the question), cut.

    >>> prompt_label("system\\nBe brief.\\nuser\\nWhat is 2+3?\\nassistant\\n")
    'Be brief. What is 2+3?'
    """
    lines = [line.strip() for line in prompt.splitlines() if line.strip()]
    tail = [line for line in lines if line.lower() not in ("assistant", "user", "system")]
    text = " ".join(tail[-2:] if tail else lines)[:120]
    return display_text(text) or UNKNOWN


def sample_steps(samples: SampleSet) -> list[int]:
    """The steps with samples, newest first."""
    return sorted({int(step) for step in samples.frame.get_column(STEP).drop_nulls().to_list()}, reverse=True)


def sample_sources(samples: SampleSet) -> list[str]:
    """The data sources with samples, sorted."""
    return sorted(set(samples.frame.get_column("data_source").drop_nulls().to_list()))


def browse_choices(samples: SampleSet) -> BrowseChoices:
    """The steps and data sources the browse tab's filters offer."""
    return BrowseChoices(steps=tuple(sample_steps(samples)), sources=tuple(sample_sources(samples)))


def browse_rows(
    samples: SampleSet, *, step: int | None, data_source: str | None, outcome: str | None, text: str, limit: int
) -> tuple[list[dict[str, Any]], int]:
    """(the first ``limit`` samples passing the filters, newest first - the latest step is what a team asks
    about -, how many pass them)."""
    chosen = filter_samples(samples.frame, step=step, data_source=data_source, outcome=outcome, text=text)
    chosen = chosen.with_row_index("_order").sort([STEP, "_order"], descending=[True, False], nulls_last=False)
    return list(chosen.head(limit).iter_rows(named=True)), chosen.height


def browse(
    samples: SampleSet,
    *,
    step: int | None,
    data_source: str | None,
    outcome: str | None,
    text: str,
    limit: int,
    lang: str,
) -> Browse:
    """The browse tab under its filters (:func:`browse_rows`): at most ``limit`` cards and what they are of."""
    rows, total = browse_rows(samples, step=step, data_source=data_source, outcome=outcome, text=text, limit=limit)
    return Browse(
        cards=tuple(card_of(row, lang) for row in rows),
        count=t("samples_count", lang, shown=min(total, limit), total=total),
        more=t("samples_first", lang, limit=limit) if total > limit else None,
    )


def prompts_at_several_steps(samples: SampleSet) -> list[str]:
    """The prompts sampled at more than one step, the most often sampled first."""
    stepped = samples.frame.filter(pl.col(STEP).is_not_null())
    counts = stepped.group_by("prompt").agg(pl.col(STEP).n_unique().alias("steps")).filter(pl.col("steps") > 1)
    prompts: list[str] = counts.sort("steps", descending=True, maintain_order=True).get_column("prompt").to_list()
    return prompts


def prompt_steps(samples: SampleSet, prompt: str) -> list[int]:
    """The steps ``prompt`` was sampled at, in order."""
    rows = samples_for_prompt(samples.frame.filter(pl.col(STEP).is_not_null()), prompt)
    return sorted(set(rows.get_column(STEP).to_list()))


def sample_at(samples: SampleSet, prompt: str, step: int) -> dict[str, Any]:
    """The first sample of ``prompt`` at ``step``."""
    rows = samples_for_prompt(samples.frame.filter(pl.col(STEP).is_not_null()), prompt)
    return samples_for_prompt(rows, prompt, step=step).row(0, named=True)


def shared_samples(samples: SampleSet, theirs: SampleSet) -> SampleSet | None:
    """Another experiment's samples (``theirs``) of the prompts ``samples`` holds too, at known steps; None when
    there are none."""
    mine = set(samples.frame.get_column("prompt").to_list())
    shared = theirs.frame.filter(pl.col("prompt").is_in(list(mine)) & pl.col(STEP).is_not_null())
    return SampleSet(shared) if shared.height else None


def prompts_latest_first(samples: SampleSet) -> list[str]:
    """The prompts of ``samples``, the latest sampled first."""
    latest = samples.frame.group_by("prompt", maintain_order=True).agg(pl.col(STEP).max().alias("latest"))
    prompts: list[str] = latest.sort("latest", descending=True, maintain_order=True).get_column("prompt").to_list()
    return prompts


def pair_steps(my_steps: Sequence[int], their_steps: Sequence[int]) -> tuple[int, int]:
    """The steps to compare a prompt at when two experiments sampled it at no common step: my latest, and the
    other's nearest to it (the earlier on a tie).

    >>> pair_steps([2, 6], [1, 4, 8])
    (6, 4)
    """
    my_step = max(my_steps)
    return my_step, min(sorted(set(their_steps)), key=lambda value: abs(value - my_step))


def side(samples: SampleSet, prompt: str, step: int, *, lang: str, label: str | None = None) -> Side:
    """``prompt``'s first sample at ``step`` with its title: the step, after ``label`` when given."""
    title = step_text(step, lang) if label is None else f"{label} · {step_text(step, lang)}"
    return Side(title=title, card=card_of(sample_at(samples, prompt, step), lang))
