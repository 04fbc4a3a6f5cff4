"""verl console logs (and verl's file-logger JSONL) -> per-step frame + run metadata. Pure: no filesystem.

The metrics line is ``step:N - key:value - key:value ...`` (format reference §1). Parsing is vectorised in
polars: the step lines are found with one literal scan, their pairs are split once, and lines that share the
same key sequence (almost all of them) are unpacked column-wise without exploding every pair. Everything
else a run says (config dump, total steps, resume markers, tqdm, failures, pretty-printed validation dicts) is
collected by :class:`MetaCollector` from the few lines that carry a marker.

Incremental use (see :mod:`rlmon.logs.cache`): feed complete lines chunk by chunk with
:func:`parse_chunk`, carrying the same :class:`MetaCollector`; merge the chunk frames with
:func:`merge_steps`; call :meth:`MetaCollector.snapshot` for the metadata so far.
"""

from __future__ import annotations

import ast
import bisect
import collections
import concurrent.futures
import functools
import json
import logging
import math
import os
import re
import shlex
import threading
import types
import typing
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from rlmon.logs.lines import ANSI, ANSI_RE, PREFIX_RE, RAY_PREFIX, split_lines
from rlmon.schema import MAX_KEYS, NON_TRAINING_KEY, STEP, RunMeta, empty_steps

__all__ = [
    "BLOCK_BYTES",
    "LINE",
    "MAX_LINE_BYTES",
    "PARSER_VERSION",
    "ChunkPipeline",
    "MetaCollector",
    "ParsedLog",
    "bound_keys",
    "empty_log",
    "iter_blocks",
    "keys_dropped_warning",
    "long_line_warning",
    "merge_steps",
    "parse_chunk",
    "parse_jsonl_bytes",
    "parse_jsonl_chunk",
    "parse_log_bytes",
    "parse_log_text",
]

PARSER_VERSION = 8
"""Bumped whenever parsing changes what it returns; cached results of another version are re-parsed."""
BLOCK_BYTES = 8 * 1024 * 1024
"""Bytes parsed at a time: bounds memory on large files."""
_MAX_CHUNKS = 64
_SMALL_CHUNK_ROWS = 256
"""A merged frame held in more than :data:`_MAX_CHUNKS` pieces of fewer rows than this on average is copied
into one piece (each refresh adds a small one); large pieces (one per block of a cold parse) are kept, since
copying them would double the memory a large log needs."""
MAX_LINE_BYTES = 16 * 1024 * 1024
"""Longest line read, line break included (16 MB, thousands of times a verl step line). A longer line is
skipped with the warning ``line N: longer than 16 MB; skipped``: reading it would take memory in proportion,
and no verl record is that long. Not below :data:`BLOCK_BYTES`: a block never holds a whole longer line."""

# --- patterns (format reference §9) -----------------------------------------------------------------------
_PREFIX_FIRST_CHAR = rf"^(?:{RAY_PREFIX})*(.)"
# Rust regex has no look-behind: "step:" must start the text or follow a character that is neither a word
# character nor "/" (so ``training/global_step:5 - `` and ``timing/step:`` are not step markers).
_MARK_RUST = r"(?:^|[^\w/]|\x1b\[[0-9;]*m)step:(\d+) - "
_HEAD_RUST = r"^.*?" + _MARK_RUST
_GLUED_RUST = r"(?:\x1b\[[0-9;?]*[ -/]*[@-~])*\((?:[A-Za-z_][\w:.\-]*(?: [A-Za-z_]\w*)? )?pid=\d*(?:, ip=[\d.]+)?\).*$"

LINE = "\x00line"
"""Column of chunk frames holding each row's line number; no logged key can be named so."""
_RESERVED = {LINE, STEP}
_TOTAL_RE = re.compile(r"Total training steps: (\d+)")
_TRAIN_DL_RE = re.compile(r"Size of train dataloader: (\d+)")
_TQDM_RE = re.compile(r"Training Progress:\s*\d+%\|[^|]*\|\s*(\d+)/(\d+)")
_RESUME_STEP_RE = re.compile(r"Setting global step to (\d+)|setting global step to (\d+)")
_RESUME_PATH_RE = re.compile(r"Resuming from (\S+?),?(?: setting global step|\s*$)|Load from checkpoint folder: (\S+)")
# the ``set -x`` echo (``+ python3 -m verl...``) or a command pasted into the log as it was typed
_CMD_RE = re.compile(r"^(?:\++ )?(?:python3?|torchrun)\b.*-m (?:verl\.|recipe\.)\S*.*$")
# A shell assignment as a pasted script or ``set -x`` shows it: ``MODEL_PATH="..."``, ``export X=1``, ``+ X=1``.
_ASSIGNMENT = r"^\s*(?:\++ )?(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$"
_ASSIGNMENT_RE = re.compile(_ASSIGNMENT)
_ASSIGNMENT_RUST = r"^\s*(?:\++ )?(?:export\s+)?[A-Za-z_][A-Za-z0-9_]*="
_SHELL_VARS_KEPT = 200
_SHELL_VALUE_CHARS = 1000
_NAME_OR_PATH_RE = re.compile(r"""["']_name_or_path["']\s*:\s*["']([^"']+)["']""")
_MODEL_NAMES_KEPT = 16
# verl's model-size print of the model it builds (``LlamaForCausalLM contains 134.52M parameters``): a language
# model's class (a critic or reward model is ``...ForTokenClassification``) and its size as verl rounds it
_MODEL_SIZE_RE = re.compile(
    r"\b([A-Z][A-Za-z0-9_]*?)For(?:CausalLM|ConditionalGeneration) contains (\d+(?:\.\d+)?[KMBT]) parameters\b"
)
_MODEL_SIZES_KEPT = 4
_HYDRA_RE = re.compile(r"^Error executing job with overrides")
_RAYTASK_RE = re.compile(r"ray\.exceptions\.RayTaskError|^✗ Error: .*ray::")
_ACTOR_DIED_RE = re.compile(r"ray\.exceptions\.ActorDiedError")
_DAPO_FAIL_RE = re.compile(r"num_gen_batches=\d+ >= max_num_gen_batches=\d+")
_EXC_LINE_RE = re.compile(
    r"^(?:[A-Za-z_][\w]*\.)*[A-Za-z_]\w*(?:Error|Exception|Interrupt|Exit)\b(?:\(.*?\))?(?::.*)?$"
)
_RAY_WRAPPER_RE = re.compile(r"^ray\.exceptions\.RayTaskError\(")
_GLUED_RE = re.compile(r"\((?:[A-Za-z_][\w:.\-]*(?: [A-Za-z_]\w*)? )?pid=\d*(?:, ip=[\d.]+)?\).*$")
_CONTINUATION_RE = re.compile(r"""^\s+(?:['"\[{(\d\-.]|None\b|True\b|False\b|inf\b|nan\b)""")
_VAL_PAIR_RE = re.compile(r"'([^']+)': (?:np\.\w+\()?([-+\w.]+)\)?")
_FRAME_RE = re.compile(r'^File "([^"]+)", line (\d+), in (.+?)\s*$')
_TRACEBACK_START_RE = re.compile(r"^Traceback \(most recent call last\)|^ray\.exceptions\.RayTaskError\(|^✗ Error: ")
# Logs captured through wandb (``files/output.log``) cut every line at this many characters.
WANDB_LINE_CHARS = 4096
# The last pair of a line whose value is a numpy wrapper closed by its parenthesis as the line ends
# (``- key:np.float64(-0.37)``): nothing of it was cut.
_CLOSED_LAST_VALUE = r" - [^ ]+:np\.[A-Za-z_0-9]+\([^()\s]+\)$"
# A value printed by verl <= 0.4.1 (``f"{v:.3f}"``) vs one printed at full precision (v0.5+: repr, np wrappers).
_SHORT_DECIMAL_RUST = r":[-+]?\d+\.\d{1,3}(?: - |$)"
_LONG_DECIMAL_RUST = r":(?:[-+]?\d*\.\d{4}|[-+]?\d+(?:\.\d*)?[eE][-+]?\d|np\.)"
_THREE_DECIMALS_MIN = 20
"""Values with a decimal point a log needs before it can be called a 3-decimal log."""
_FRAMES_KEPT = 5
_FRAME_PREFIXES_KEPT = 8
_JSON_NAN_TOKEN_RE = re.compile(r"[:\[,]\s*-?(?:NaN|Infinity)\s*[,}\]]")
_CMD_WINDOW = 200

# Literal markers that make a line worth a look by the metadata collector (one Aho-Corasick pass). tqdm bars
# are not among them: only the last one counts, and it is picked out separately.
_META_MARKERS = [
    "'actor_rollout_ref': ",
    "Total training steps",
    "Size of train dataloader",
    "global step to",
    "Resuming from",
    "Load from checkpoint folder",
    "Training from scratch",
    "validation metrics",
    "Error executing job",
    "RayTaskError",
    "ActorDiedError",
    "✗ Error",
    "max_num_gen_batches",
    "Keep generating",
    "-m verl.",
    "-m recipe.",
    'File "',
    "Traceback (most recent call last)",
    "_name_or_path",
    "ForCausalLM contains ",
    "ForConditionalGeneration contains ",
]
_META_PATTERN = "|".join(re.escape(marker) for marker in _META_MARKERS)
_FATAL_MARKERS = ["Error executing job", "RayTaskError", "ActorDiedError", "✗ Error", "max_num_gen_batches"]
# After a marker that opens a multi-line block, the next lines are read too (config dump, wrapped dicts,
# the traceback that names a failure).
_CONFIG_WINDOW = 4000
_VAL_WINDOW = 400
_EXC_WINDOW = 400
_SFT_KEYS = ("train/loss", "val/loss")


@dataclass
class ParsedLog:
    """One log's contents: the per-step frame (see :mod:`rlmon.schema`) and its run metadata."""

    steps: pl.DataFrame
    meta: RunMeta


# --- lines ----------------------------------------------------------------------------------------------------
def _strip_prefix(text: str) -> tuple[str, str]:
    """Remove ANSI codes, then Ray prefixes; return (prefix, rest)."""
    text = ANSI_RE.sub("", text)
    match = PREFIX_RE.match(text)
    if match is None:
        return "", text
    return match.group(0).strip(), text[match.end() :]


# --- step lines -------------------------------------------------------------------------------------------------
def _read_values(raw: pl.Series) -> pl.Series:
    """Values as logged -> Float64.

    np wrappers are taken off (``np.float64(0.5)`` -> 0.5), ``True``/``False`` become 1/0, ``nan``/``inf`` are
    kept; anything else is null. Only values the plain cast does not read are looked at again: unwrapping
    every value costs several times more.
    """
    numbers = raw.cast(pl.Float64, strict=False)
    if numbers.null_count() == raw.null_count():
        return numbers
    rows = (numbers.is_null() & raw.is_not_null()).arg_true()
    odd = pl.DataFrame({"raw": raw.gather(rows)})
    # np.float64(0.5) -> 0.5: cut after the parenthesis and drop the one that closes it
    text = pl.col("raw")
    wrapped = text.str.starts_with("np.") & text.str.ends_with(")") & text.str.contains("(", literal=True)
    odd = odd.select(
        pl.when(wrapped)
        .then(text.str.slice(text.str.find("(", literal=True) + 1).str.strip_suffix(")"))
        .otherwise(text)
        .alias("raw")
    )
    fixed = odd.select(text.cast(pl.Float64, strict=False)).to_series()
    if fixed.null_count():
        fixed = odd.select(
            # numpy >= 2 writes its booleans as np.True_ / np.False_
            pl.when(text.is_in(["True", "True_", "np.True_"]))
            .then(1.0)
            .when(text.is_in(["False", "False_", "np.False_"]))
            .then(0.0)
            .otherwise(text.cast(pl.Float64, strict=False))
        ).to_series()
    return numbers.scatter(rows, fixed)


def _step_records(lines: pl.Series, first_line: int) -> pl.DataFrame:
    """Rows ``_line`` (1-based), ``step``, ``rest`` (the text after ``step:N - ``) for every metrics record,
    and ``cut`` (the line is exactly :data:`WANDB_LINE_CHARS` long: wandb cut it, its last pair was dropped)."""
    # one query, not one per step: a refresh parses a line or two, where each step costs more than its work
    frame = (
        pl.DataFrame({"text": lines})
        .lazy()
        .with_row_index(LINE, offset=first_line)
        .filter(pl.col("text").str.contains("step:", literal=True))
        .with_columns(pl.col("text").str.extract(_MARK_RUST, 1).cast(pl.Int64, strict=False).alias(STEP))
        .filter(pl.col(STEP).is_not_null())
        # drop everything up to the marker (Ray prefix, ANSI codes, tqdm text glued before it)
        .select(
            LINE,
            STEP,
            pl.col("text").str.replace(_HEAD_RUST, "").alias("rest"),
            (pl.col("text").str.len_chars() == WANDB_LINE_CHARS).alias("cut"),
        )
        .with_columns(
            pl.col("rest").str.contains("pid=", literal=True).alias("glued"),
            pl.col("rest").str.strip_chars_end().alias("stripped"),
        )
        .collect()
    )
    if not frame.get_column("cut").any() and not frame.get_column("glued").any():
        # the common case: no line cut by wandb, no output glued after a record
        columns = [frame.get_column(LINE), frame.get_column(STEP), frame.get_column("stripped").alias("rest")]
        return pl.DataFrame([*columns, frame.get_column("cut")])
    frame = frame.select(LINE, STEP, "rest", "cut")
    if frame.get_column("cut").any():
        # The cut may have fallen inside the last value (``mean@1:0.12`` of ``0.1234``): a wrong number is
        # worse than none, so the last pair of such a line is dropped (the greedy group ends at the last " - ").
        # A value whose wrapper closes as the line ends (``np.float64(-0.3725866666666665)``) is whole: kept.
        frame = frame.with_columns(
            pl.when(
                pl.col("cut")
                & pl.col("rest").str.contains(" - ", literal=True)
                & ~pl.col("rest").str.contains(_CLOSED_LAST_VALUE)
            )
            .then(pl.col("rest").str.replace(r"^(.*) - .*$", "${1}"))
            .otherwise(pl.col("rest"))
            .alias("rest")
        )
    glued = frame.get_column("rest").str.contains("pid=", literal=True)
    if glued.any():
        # another process's output glued after the record starts with a Ray prefix: cut it off
        frame = frame.with_columns(
            pl.when(glued).then(pl.col("rest").str.replace(_GLUED_RUST, "")).otherwise(pl.col("rest")).alias("rest")
        )
    return frame.with_columns(pl.col("rest").str.strip_chars_end())


def _template(parts: list[str]) -> list[str] | None:
    """The keys of one line's pairs, or None when a pair is not ``key:value`` or a key repeats."""
    keys = []
    for part in parts:
        cut = part.rfind(":")
        if cut <= 0 or cut == len(part) - 1 or " " in part[cut + 1 :]:
            return None
        keys.append(part[:cut])
    if len(set(keys)) != len(keys) or _RESERVED.intersection(keys):
        return None
    return keys


def _unpack_template(group: pl.DataFrame, keys: list[str]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Rows whose pairs carry exactly ``keys`` -> (wide frame, rows that do not fit, for another try).

    ``group`` holds rows of ``len(keys)`` pairs each. The pairs of all rows are read as one flat column (the
    key expected at each place repeated row after row), so the number of polars operations does not grow
    with the number of keys as column-by-column expressions would.
    """
    count = len(keys)
    if group.height <= _FEW_ROWS:
        fits, values = _fit_few(group, keys)
        matched = group if fits.all() else group.filter(fits)
    else:
        heads = pl.Series([f"{key}:" for key in keys])
        places = pl.int_range(0, count * group.height, eager=True) % count
        flat = pl.DataFrame({"pair": group.get_column("parts").explode(), "head": heads.gather(places)})
        fits = flat.select(pl.col("pair").str.starts_with(pl.col("head"))).to_series()
        fits = fits.reshape((group.height, count)).arr.all()
        matched = group if fits.all() else group.filter(fits)
        if matched.height < group.height:
            places = pl.int_range(0, count * matched.height, eager=True) % count
        widths = pl.Series([len(key) + 1 for key in keys], dtype=pl.Int64).gather(places)
        values = matched.get_column("parts").explode().str.slice(widths)
    numbers = _read_values(values)
    if numbers.null_count():
        # a value that does not read as a number may mean the key itself holds a ":" and was cut at the wrong
        # colon: such rows take the pair-by-pair path, which splits at the last colon
        bad = numbers.is_null().reshape((matched.height, count)).arr.any()
        bad_lines = matched.get_column(LINE).filter(bad)
        numbers = numbers.reshape((matched.height, count)).filter(~bad).explode()
        matched = matched.filter(~bad)
        fits = fits & ~group.get_column(LINE).is_in(bad_lines.implode())
    wide = matched.select(LINE, STEP)
    if matched.height:
        columns = numbers.reshape((matched.height, count)).arr.to_struct(fields=keys).struct.unnest()
        wide = pl.concat([wide, columns], how="horizontal")
    else:
        wide = wide.with_columns([pl.lit(None, dtype=pl.Float64).alias(key) for key in keys])
    return wide, group.clear() if fits.all() else group.filter(~fits)


_FEW_ROWS = 8
"""Rows of one template that :func:`_fit_few` matches in Python: a refresh reads a line or two, where each
polars operation on 120 pairs costs more than its work (5 ms a line, against 0.5 ms)."""


def _fit_few(group: pl.DataFrame, keys: list[str]) -> tuple[pl.Series, pl.Series]:
    """What :func:`_unpack_template` computes in polars for many rows, for a few: whether each row's pairs start
    with the template's keys in order (``key:``), and the value texts of the rows that do, row after row."""
    heads = [f"{key}:" for key in keys]
    rows = group.get_column("parts").to_list()
    fits = [all(part.startswith(head) for part, head in zip(parts, heads, strict=True)) for parts in rows]
    values = [
        part[len(head) :]
        for parts, fit in zip(rows, fits, strict=True)
        if fit
        for part, head in zip(parts, heads, strict=True)
    ]
    return pl.Series(fits, dtype=pl.Boolean), pl.Series(values, dtype=pl.String)


def _unpack_pairs(
    records: pl.DataFrame, budget: _KeyBudget
) -> tuple[pl.DataFrame, list[tuple[int, int, str]], int | None]:
    """Any lines -> long -> wide (slow path for rare lines); also (line, position, key) of first appearances,
    and the line of the first key left out past ``budget`` (None: none was), before the wide frame is made:
    its cost grows with the keys."""
    long = (
        records.select(LINE, STEP, "parts", pl.int_ranges(pl.col("parts").list.len()).alias("pos"))
        .explode("parts", "pos")
        .with_columns(pl.col("parts").str.extract_groups(r"^(.+):([^: ]+)$").alias("kv"))
        .unnest("kv")
        .rename({"1": "key", "2": "raw"})
        # a key named like the step column repeats the step number; it cannot be a column of its own
        .filter(pl.col("key").is_not_null() & ~pl.col("key").is_in(list(_RESERVED)))
    )
    if long.is_empty():
        return records.select(LINE, STEP), [], None
    long = long.select(LINE, STEP, "pos", "key", _read_values(long.get_column("raw")).alias("value"))
    if long.height > budget.room:
        # far more pairs than room for new keys: keep the known keys and the new ones first valued up to the line
        # where the room runs out, before the work below costs memory with every key (the exact cut is made
        # once the duplicates of a line are settled)
        # rows come in line order: a key's first row with a value is its first line
        valued = long.select(LINE, "key").filter(long.get_column("value").is_not_null())
        new = valued.filter(pl.col("key").is_first_distinct() & ~pl.col("key").is_in(list(budget.known)))
        if new.height > budget.room:
            last = new.get_column(LINE)[budget.room]
            kept_keys = [*budget.known, *new.filter(pl.col(LINE) <= last).get_column("key")]
            long = long.filter(pl.col("key").is_in(kept_keys))
    # a key logged twice on one line: the later one wins
    long = long.unique(subset=[LINE, "key"], keep="last", maintain_order=True)
    firsts = (
        long.filter(pl.col("value").is_not_null())
        .sort(LINE, "pos")
        .group_by("key", maintain_order=True)
        .agg(pl.col(LINE).first(), pl.col("pos").first())
    )
    dropped_line = None
    if budget.over(firsts.get_column("key")):
        new = firsts.filter(~pl.col("key").is_in(list(budget.known))).sort(LINE, "pos")
        dropped_line = int(new.get_column(LINE)[budget.room])
        kept = [*budget.known, *new.get_column("key").head(budget.room)]
        firsts = firsts.filter(pl.col("key").is_in(kept))
        long = long.filter(pl.col("key").is_in(kept))
    return _wide(long), [(int(line), int(pos), str(key)) for key, line, pos in firsts.iter_rows()], dropped_line


def _wide(long: pl.DataFrame) -> pl.DataFrame:
    """A long frame (``_line``, ``step``, ``key``, ``value``; one row per line and key) -> one row per line (in the
    order lines come), one column per key (in the order keys come).

    Not ``pivot``: its cost grows with the columns it makes (9 s for 20,000 keys of 200 lines). The values are
    scattered into one flat column of lines x keys, cut into rows and unnested: a few polars operations
    whatever the number of keys.
    """
    rows = long.select(LINE, STEP).unique(subset=[LINE], keep="first", maintain_order=True)
    keys = long.get_column("key").unique(maintain_order=True)
    places = long.select(
        pl.col(LINE).replace_strict(rows.get_column(LINE), pl.int_range(rows.height), return_dtype=pl.Int64)
        * keys.len()
        + pl.col("key").replace_strict(keys, pl.int_range(keys.len()), return_dtype=pl.Int64)
    ).to_series()
    cells = pl.Series("value", [None], dtype=pl.Float64).extend_constant(None, rows.height * keys.len() - 1)
    cells = cells.scatter(places, long.get_column("value"))
    columns = cells.reshape((rows.height, keys.len())).arr.to_struct(fields=keys.to_list()).struct.unnest()
    return pl.concat([rows, columns], how="horizontal")


def _first_values(wide: pl.DataFrame, keys: list[str]) -> list[tuple[int, int, str]]:
    """(line, position, key) of each key's first value (not null) in a frame unpacked with one template, its
    rows in line order."""
    head = wide.row(0, named=True)
    first: dict[str, int | None] = {key: head[LINE] for key in keys if head[key] is not None}
    later = [key for key in keys if key not in first]
    if later:  # only keys the first row lacks need a search
        found = wide.select([pl.col(LINE).filter(pl.col(key).is_not_null()).min().alias(key) for key in later])
        first.update(found.row(0, named=True))
    return [(int(line), position, key) for position, key in enumerate(keys) if (line := first[key]) is not None]


def _drop_empty_rows(wide: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """Rows with no value among ``keys`` (every pair of the line damaged) are dropped."""
    if not keys:
        return wide.clear()
    if any(wide.get_column(key).null_count() == 0 for key in keys):
        return wide  # a key with a value in every row: no row is empty (the common case, checked cheaply)
    return wide.filter(pl.any_horizontal([pl.col(key).is_not_null() for key in keys]))


@dataclass
class _StepLines:
    """What the step lines of one chunk hold."""

    steps: pl.DataFrame
    """Wide frame with ``_line``."""
    line_numbers: list[int]
    """Sorted line numbers of the step lines."""
    bad_keys: int = 0
    """Keys whose every value failed to parse (dropped)."""
    short_decimals: int = 0
    """Values printed with a decimal point and at most 3 decimals (``0.125``, ``1.000``); counted only while
    it can still matter (see :func:`_decimals`)."""
    long_decimals: int = 0
    """Lines holding a value printed with more than 3 decimals, an exponent or an ``np.`` wrapper (full
    precision); counted only while none was seen."""
    cut_lines: int = 0
    """Lines cut at :data:`WANDB_LINE_CHARS` characters."""
    known: frozenset[str] = frozenset()
    """The keys the log had kept when these lines were read (:class:`_KeyBudget`)."""
    pre_dropped: bool = False
    """Keys past the budget were left out while reading (before the chunk's exact admission)."""
    dropped_line: int | None = None
    """The line of the first key left out while reading (None: none was)."""


@dataclass(frozen=True)
class _KeyBudget:
    """What a chunk's step lines may add: every key the log has kept (``known``), and at most ``room`` others, the
    first to get a value. Read on a worker thread: a snapshot of the collector, never the collector itself."""

    known: frozenset[str]
    room: int

    @classmethod
    def of(cls, collector: MetaCollector) -> _KeyBudget:
        return cls(known=frozenset(collector.keys), room=max(0, collector.max_keys - len(collector.keys)))

    def over(self, keys: Sequence[str] | pl.Series) -> bool:
        """Whether ``keys`` (distinct) hold more new keys than there is room for."""
        if len(keys) <= self.room:
            return False
        if isinstance(keys, pl.Series):
            return int((~keys.is_in(list(self.known))).sum()) > self.room
        return sum(1 for key in keys if key not in self.known) > self.room


def _decimals(rest: pl.Series, collector: MetaCollector) -> tuple[int, int]:
    """(short, long) decimal counts of step-line texts, as far as the run's 3-decimal verdict needs them.

    A run is a 3-decimal one when it has no full-precision value and at least :data:`_THREE_DECIMALS_MIN`
    short ones: once one full-precision value is seen, or enough short ones, counting further changes
    nothing (and costs a regex over every step line).
    """
    if collector.long_decimals:
        return 0, 0
    long = int(rest.str.contains(_LONG_DECIMAL_RUST).sum())
    if long or collector.short_decimals >= _THREE_DECIMALS_MIN:
        return 0, long
    return int(rest.str.count_matches(_SHORT_DECIMAL_RUST).sum() or 0), 0


def _parse_step_lines(lines: pl.Series, first_line: int, collector: MetaCollector, budget: _KeyBudget) -> _StepLines:
    """Step lines of a chunk -> :class:`_StepLines` (``collector`` is read, not changed).

    Lines with the same key sequence (almost all of them) are unpacked column by column against a template
    taken from one of them; every row is checked against the template, and rows that do not fit go through
    a pair-by-pair pivot. New keys past ``budget`` are left out before the pivot (the chunk's exact admission
    is :func:`_admit_keys`); a template holding more new keys than there is room for takes the pivot's path.
    """
    records = _step_records(lines, first_line)
    if records.is_empty():
        return _StepLines(pl.DataFrame(schema={LINE: pl.UInt32, STEP: pl.Int64}), [], known=budget.known)
    step_line_numbers = records.get_column(LINE).to_list()
    short_decimals, long_decimals = _decimals(records.get_column("rest"), collector)
    cut_lines = records.get_column("cut").sum()
    records = records.select(LINE, STEP, pl.col("rest").str.split(" - ").alias("parts"))
    records = records.with_columns(pl.col("parts").list.len().alias("_n"))
    frames: list[pl.DataFrame] = []
    firsts: list[tuple[int, int, str]] = []
    seen: dict[str, None] = {}
    leftovers: list[pl.DataFrame] = []
    dropped_line: int | None = None
    lengths = records.get_column("_n")
    # nearly always every line has as many pairs: grouping is then skipped
    groups = (
        [records]
        if lengths.min() == lengths.max()
        else [group for _, group in records.group_by("_n", maintain_order=True)]
    )
    for group in groups:
        remaining = start = group.drop("_n")
        unpacked: list[tuple[list[str], pl.DataFrame]] = []
        for _attempt in range(4):
            if remaining.is_empty():
                break
            keys = _template(remaining.get_column("parts")[0].to_list())
            if keys is None or budget.over(keys):
                break
            wide, remaining = _unpack_template(remaining, keys)
            unpacked.append((keys, wide))
            if len(unpacked) == 2 and all(done.height <= 1 for _, done in unpacked) and remaining.height > 1:
                # lines of keys of their own (two templates fitting one line each): the pair-by-pair path reads
                # them all into one frame, cheaper than a template per line and frames to join
                unpacked, remaining = [], start
                break
        for keys, wide in unpacked:
            if wide.height:
                seen.update(dict.fromkeys(keys))
            wide = _drop_empty_rows(wide, keys)
            if wide.height:
                firsts.extend(_first_values(wide, keys))
                frames.append(wide)
        if remaining.height:
            leftovers.append(remaining)
    if leftovers:
        # in line order: the groups of each pair count come one after the other (an initial-validation print
        # fills the first row after it, found by position)
        wide, found, dropped_line = _unpack_pairs(pl.concat(leftovers).sort(LINE), budget)
        keys = [name for name in wide.columns if name not in (LINE, STEP)]
        seen.update(dict.fromkeys(keys))
        frames.append(_drop_empty_rows(wide, keys))
        firsts.extend(found)
    if not frames:
        frames.append(pl.DataFrame(schema={LINE: pl.UInt32, STEP: pl.Int64}))
    wide = pl.concat(frames, how="diagonal") if len(frames) > 1 else frames[0]
    # Columns in the order their first value appears in the file (line, then position), whichever way each
    # row was unpacked; keys with no value at all (every one damaged) are dropped and counted, and so are
    # rows with no value. Both rules hold line by line, so where a file is cut into chunks changes nothing.
    order: dict[str, None] = {LINE: None, STEP: None}
    for _line, _position, key in sorted(firsts):
        order.setdefault(key, None)
    bad = [name for name in seen if name not in order]
    wide = wide.select(list(order))
    if len(frames) > 1 and not wide.get_column(LINE).is_sorted():
        wide = wide.sort(LINE)  # (a copy of the whole frame: not when the pieces came in line order)
    return _StepLines(
        wide,
        step_line_numbers,
        bad_keys=len(bad),
        short_decimals=short_decimals,
        long_decimals=long_decimals,
        cut_lines=int(cut_lines or 0),
        known=budget.known,
        pre_dropped=dropped_line is not None,
        dropped_line=dropped_line,
    )


def merge_steps(frames: Sequence[pl.DataFrame]) -> pl.DataFrame:
    """Merge step frames: one row per step, sorted; for each key the value from the latest frame wins.

    Within one frame, rows are taken in their order (a frame with a ``_line`` column is ordered by it), so a
    later line wins over an earlier one for the same step and key; a key a later line did not log keeps the
    earlier value. Columns keep their first-seen order. Nulls never win over values.

    Examples
    --------
    >>> a = pl.DataFrame({"step": [1, 2], "x": [1.0, 2.0]})
    >>> b = pl.DataFrame({"step": [2], "x": [20.0], "y": [5.0]})
    >>> merge_steps([a, b]).rows()
    [(1, 1.0, None), (2, 20.0, 5.0)]
    """
    usable = [frame for frame in frames if frame.height > 0]
    if not usable:
        columns: dict[str, pl.DataType] = {STEP: pl.Int64()}
        for frame in frames:
            for name, dtype in frame.schema.items():
                if name not in (LINE,) and name not in columns:
                    columns[name] = dtype
        return pl.DataFrame(schema=columns)
    ordered = []
    float64, int64 = pl.Float64(), pl.Int64()
    for frame in usable:
        if LINE in frame.columns:
            if not frame.get_column(LINE).is_sorted():
                frame = frame.sort(LINE)
            frame = frame.drop(LINE)
        # casts only where the type differs: a cast of each of 120 columns costs more than the merge itself
        casts = [
            pl.col(name).cast(int64 if name == STEP else float64)
            for name, dtype in zip(frame.columns, frame.dtypes, strict=True)
            if dtype != (int64 if name == STEP else float64)
        ]
        ordered.append(frame.with_columns(casts) if casts else frame)
    # the pieces are not copied into one: a refresh appends a few rows to a large frame
    combined = pl.concat(ordered, how="diagonal", rechunk=False) if len(ordered) > 1 else ordered[0]
    if combined.n_chunks() > _MAX_CHUNKS and combined.height < combined.n_chunks() * _SMALL_CHUNK_ROWS:
        combined = combined.rechunk()  # many small pieces (refreshes) slow every later operation down
    step = combined.get_column(STEP)
    if step.is_sorted() and (len(step) < 2 or not (step.head(-1) == step.tail(-1)).any()):
        return combined  # sorted and unique already (as after an append): nothing to merge
    if step.n_unique() != combined.height:
        metric_columns = [name for name in combined.columns if name != STEP]
        combined = combined.group_by(STEP, maintain_order=True).agg(
            [pl.col(name).drop_nulls().last().alias(name) for name in metric_columns]
        )
    return combined.sort(STEP)


def bound_keys(steps: pl.DataFrame, max_keys: int) -> tuple[pl.DataFrame, list[str]]:
    """``steps`` (a step frame, or a merge of several logs' frames) with its first ``max_keys`` key columns, in
    their order; and the keys dropped, in order. Each log is bounded as it is read (:class:`MetaCollector`);
    this bounds what several logs of one experiment hold together.

    >>> frame, dropped = bound_keys(pl.DataFrame({"step": [1], "a": [1.0], "b": [2.0], "c": [3.0]}), 2)
    >>> frame.columns, dropped
    (['step', 'a', 'b'], ['c'])
    """
    keys = [name for name in steps.columns if name != STEP]
    if len(keys) <= max_keys:
        return steps, []
    return steps.select(STEP, *keys[:max_keys]), keys[max_keys:]


def keys_dropped_warning(line: int, max_keys: int) -> str:
    """What a log whose distinct keys reached ``max_keys`` at ``line`` is told."""
    return (
        f"line {line}: more than {max_keys:,} distinct keys; the keys first logged from this line on are dropped "
        "(the max_keys setting)"
    )


# --- metadata ---------------------------------------------------------------------------------------------------
_AST_LOCK = threading.Lock()
_AST_TRIES = 5


def _literal_eval(text: str) -> Any:
    """``ast.literal_eval``, one thread at a time, tried again on CPython 3.11's transient ``SystemError: AST
    constructor recursion depth mismatch``.

    CPython 3.11 keeps the AST constructor's recursion depth per interpreter, so two threads building AST objects
    at once can fail (a CPython bug). Logs are read in parallel, and other code builds ASTs too: Python 3.11's
    ``traceback`` parses each source line it prints (see ``TracebackText``). The depth is reset at every call, so
    a second try succeeds."""
    for attempt in range(_AST_TRIES):
        try:
            with _AST_LOCK:
                return ast.literal_eval(text)
        except SystemError as error:
            if "recursion depth" not in str(error) or attempt == _AST_TRIES - 1:
                raise
    raise AssertionError("unreachable")


class TracebackText(logging.Filter):
    """A logger filter that formats a record's traceback at once, under the lock of ``_literal_eval``: Python
    3.11's ``traceback`` calls ``ast.parse`` for every line it prints, and a handler formatting it while a log is
    read in another thread could make that read fail."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and not record.exc_text:
            with _AST_LOCK:
                record.exc_text = logging.Formatter().formatException(record.exc_info)
        return True


def _literal_dict(text: str) -> dict[str, Any] | None:
    """``ast.literal_eval`` of a pretty-printed dict; bare inf/nan tokens are made literal first."""
    cleaned = re.sub(r"(?<=[\s:\[,(])-?inf(?=[,\]}\s)])", "1e999", text)
    cleaned = re.sub(r"(?<=[\s:\[,(])nan(?=[,\]}\s)])", "None", cleaned)
    cleaned = re.sub(r"np\.\w+\(([^()]*)\)", r"\1", cleaned)
    try:
        value = _literal_eval(cleaned)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _validation_pairs(text: str) -> dict[str, float]:
    """Pairs of a ``... validation metrics: {...}`` text (possibly with np wrappers)."""
    pairs: dict[str, float] = {}
    brace = text.find("{")
    if brace < 0:
        return pairs
    for key, raw in _VAL_PAIR_RE.findall(text[brace:]):
        try:
            pairs[key] = float(raw)
        except ValueError:
            continue
    return pairs


@dataclass
class MetaCollector:
    """Collects run metadata from marker lines; survives being fed a file chunk by chunk.

    Its state is JSON-ready (:meth:`to_state` / :meth:`from_state`) so the cache can persist it between
    refreshes: a config dump or a wrapped validation dict that is still being written when a chunk ends is
    completed by the next chunk.
    """

    meta: RunMeta = field(default_factory=RunMeta)
    block: str | None = None
    """The multi-line block being reassembled: ``config``, ``initial`` or ``final``."""
    block_prefix: str = ""
    block_lines: list[str] = field(default_factory=list)
    block_start: int = 0
    failure_pending: str | None = None
    """A fatal signature was seen; the next exception line names the failure."""
    failure_pending_line: int = 0
    failure_pending_text: str = ""
    saw_verl: bool = False
    last_step_line: int = 0
    last_training_step: int | None = None
    """Step of the last step line (in file order) that logged a training key, not validation alone."""
    frames: dict[str, list[str]] = field(default_factory=dict)
    """Per Ray prefix (``""`` for the driver), the last ``path:line in function`` frames of the traceback it
    is printing (processes print tracebacks at the same time; the few most recent prefixes are kept)."""
    command_lines: list[str] = field(default_factory=list)
    """A pasted launch command continued with ``\\`` that is still being read."""
    initial_fill_line: int = 0
    """Line of an ``Initial validation metrics`` print whose step row is not yet found (0: none pending)."""
    short_decimals: int = 0
    long_decimals: int = 0
    jsonl_nan_tokens: bool = False
    """A file-logger record held a ``NaN``/``Infinity`` token: the json.dumps era, where ``null`` is None."""
    max_keys: int = MAX_KEYS
    """Most distinct keys the log keeps (the ``max_keys`` setting); a state of another bound is parsed again."""
    keys: dict[str, None] = field(default_factory=dict)
    """The keys kept so far, in the order they came (an ordered set): at most :attr:`max_keys`."""
    initial_prints: list[tuple[int, dict[str, float]]] = field(default_factory=list)
    """``Initial validation metrics`` prints (line, pairs) read by the last :meth:`feed`, in file order; not
    part of the state (:func:`parse_chunk` fills their step rows before the next chunk)."""

    # -- state --
    def to_state(self) -> dict[str, Any]:
        return {
            "meta": self.meta.to_json_dict(),
            "block": self.block,
            "block_prefix": self.block_prefix,
            "block_lines": self.block_lines,
            "block_start": self.block_start,
            "failure_pending": self.failure_pending,
            "failure_pending_line": self.failure_pending_line,
            "failure_pending_text": self.failure_pending_text,
            "saw_verl": self.saw_verl,
            "last_step_line": self.last_step_line,
            "last_training_step": self.last_training_step,
            "frames": self.frames,
            "command_lines": self.command_lines,
            "initial_fill_line": self.initial_fill_line,
            "short_decimals": self.short_decimals,
            "long_decimals": self.long_decimals,
            "jsonl_nan_tokens": self.jsonl_nan_tokens,
            "max_keys": self.max_keys,
            "keys": self.keys,
        }

    @classmethod
    def from_state(cls, state: Any) -> MetaCollector:
        """Inverse of :meth:`to_state`; missing fields take their defaults.

        Raises
        ------
        ValueError
            ``state`` is not such a dict: a field has another type, or an integer is negative or beyond
            int64 (the state comes from a cache file, which may be damaged).
        """
        if not isinstance(state, dict):
            raise ValueError(f"collector state is a {type(state).__name__}, not a dict")
        meta = state.get("meta", {})
        if not isinstance(meta, dict):
            raise ValueError(f"collector state: meta is a {type(meta).__name__}, not a dict")
        for fields, hints in ((state, _collector_hints()), (meta, _meta_hints())):
            for name, hint in hints.items():
                if name != "meta" and name in fields and not _fits(fields[name], hint):
                    raise ValueError(f"collector state: {name} = {fields[name]!r:.80} is not {hint}")
        if state.get("block") not in _BLOCKS:
            raise ValueError(f"collector state: block = {state.get('block')!r:.80} is not one of {_BLOCKS}")
        collector = cls(meta=RunMeta.from_json_dict(meta))
        collector.block = state.get("block")
        collector.block_prefix = state.get("block_prefix", "")
        collector.block_lines = list(state.get("block_lines", []))
        collector.block_start = state.get("block_start", 0)
        collector.failure_pending = state.get("failure_pending")
        collector.failure_pending_line = state.get("failure_pending_line", 0)
        collector.failure_pending_text = state.get("failure_pending_text", "")
        collector.saw_verl = state.get("saw_verl", False)
        collector.last_step_line = state.get("last_step_line", 0)
        collector.last_training_step = state.get("last_training_step")
        collector.frames = {key: list(value) for key, value in state.get("frames", {}).items()}
        collector.command_lines = list(state.get("command_lines", []))
        collector.initial_fill_line = state.get("initial_fill_line", 0)
        collector.short_decimals = state.get("short_decimals", 0)
        collector.long_decimals = state.get("long_decimals", 0)
        collector.jsonl_nan_tokens = state.get("jsonl_nan_tokens", False)
        collector.max_keys = state.get("max_keys", MAX_KEYS)
        collector.keys = dict(state.get("keys", {}))
        return collector

    # -- feeding --
    def wants_lines(self) -> int:
        """How many lines at the start of the next chunk this collector needs to see regardless of markers."""
        if self.block == "config":
            return _CONFIG_WINDOW
        if self.command_lines:
            return _CMD_WINDOW
        if self.block is not None:
            return _VAL_WINDOW
        if self.failure_pending is not None:
            return _EXC_WINDOW
        return 0

    def feed(self, numbered_lines: Iterable[tuple[int, str]], step_lines: Sequence[int]) -> None:
        """Read lines (1-based number, raw text) in file order; ``step_lines`` are this chunk's step lines."""
        for number, raw in numbered_lines:
            prefix, text = _strip_prefix(raw)
            if self.command_lines:
                # a pasted command goes on while its lines end with a backslash; the first line that does
                # not is its last
                piece = text.strip()
                self.command_lines.append(piece.removesuffix("\\").strip())
                if not piece.endswith("\\") or len(self.command_lines) > _CMD_WINDOW:
                    self._finish_command()
                continue
            # pprint continuation lines start with a space; anything else from any process is not part of
            # the block (a worker warning printed in the middle of the config dump, say)
            if self.block is not None and prefix == self.block_prefix and _CONTINUATION_RE.match(text):
                self._continue_block(_GLUED_RE.sub("", text))
                continue
            self._read_line(number, prefix, text, step_lines)

    def _read_line(self, number: int, prefix: str, text: str, step_lines: Sequence[int]) -> None:
        meta = self.meta
        stripped = text.strip()
        if stripped.startswith("{'actor_rollout_ref': "):
            self.saw_verl = True
            self._open_block("config", number, prefix, _GLUED_RE.sub("", stripped))
            return
        if "Initial validation metrics" in stripped and _opens_val_print(stripped, "Initial"):
            self._open_block("initial", number, prefix, stripped)
            return
        if "Final validation metrics" in stripped and _opens_val_print(stripped, "Final"):
            self._open_block("final", number, prefix, stripped)
            return
        if "Training Progress" in text:
            found = _TQDM_RE.findall(text)
            if found:
                self.saw_verl = True
                done, total = found[-1]
                meta.tqdm_n, meta.tqdm_total = int(done), int(total)
        if (match := _TOTAL_RE.search(text)) is not None:
            self.saw_verl = True
            meta.total_steps = int(match.group(1))
        if (match := _TRAIN_DL_RE.search(text)) is not None:
            meta.train_batches = int(match.group(1))
        if "global step to" in text and (match := _RESUME_STEP_RE.search(text)) is not None:
            meta.resume_steps.append(int(match.group(1) or match.group(2)))
        if ("Resuming from" in text or "Load from checkpoint folder" in text) and (
            match := _RESUME_PATH_RE.search(text)
        ) is not None:
            path = match.group(1) or match.group(2)
            if path and (not meta.resume_paths or meta.resume_paths[-1] != path):
                meta.resume_paths.append(path)
        if "Training from scratch" in text:
            meta.from_scratch = True
        # a shell prints its assignments bare; ``(TaskRunner pid=1) num_prompt_in_batch=200 < ...`` is a worker's
        # message (and the fast path, which matches whole lines, never sees a prefixed line as one)
        if not prefix and "=" in stripped and (assignment := _ASSIGNMENT_RE.match(stripped)) is not None:
            self._assign(assignment.group(1), assignment.group(2))
        if "_name_or_path" in stripped and (named := _NAME_OR_PATH_RE.search(stripped)) is not None:
            self._name_model(named.group(1))
        if " contains " in text and (sized := _MODEL_SIZE_RE.search(text)) is not None:
            size = f"{sized.group(1)} {sized.group(2)}"
            if size not in meta.model_sizes and len(meta.model_sizes) < _MODEL_SIZES_KEPT:
                meta.model_sizes.append(size)
        if meta.launch_command is None and not self.command_lines and _CMD_RE.match(stripped):
            self.saw_verl = True
            command = stripped.lstrip("+ ")
            if command.endswith("\\"):
                self.command_lines = [command.removesuffix("\\").strip()]
            else:
                meta.launch_command = command
        if (frame := _FRAME_RE.match(stripped)) is not None:
            path, line, function = frame.groups()
            kept = self.frames.pop(prefix, [])  # re-inserted last: the dict stays ordered by recent use
            kept.append(f"{path}:{line} in {function}")
            self.frames[prefix] = kept[-_FRAMES_KEPT:]
            for stale in list(self.frames)[:-_FRAME_PREFIXES_KEPT]:
                del self.frames[stale]
            return
        if _TRACEBACK_START_RE.match(stripped):
            # a new traceback starts (or Ray's wrapper, after which the remote traceback follows): the
            # frames this process printed so far belong to another one
            self.frames.pop(prefix, None)
        if "Keep generating" in text:
            meta.dapo_keep_generating += 1
        self._read_failure(number, prefix, stripped, step_lines)

    def _assign(self, name: str, raw: str) -> None:
        """Keep a shell assignment: the value as the shell reads it (quotes taken off, a ``# comment`` dropped)."""
        variables = self.meta.shell_vars
        if name not in variables and len(variables) >= _SHELL_VARS_KEPT:
            return
        try:
            words = shlex.split(raw, comments=True)
        except ValueError:  # an unclosed quote: the text as written
            words = [raw.strip().strip("'\"")]
        value = words[0] if len(words) == 1 else raw.strip() if words else ""
        variables.pop(name, None)  # re-inserted last: the order is that of the last assignments
        variables[name] = value[:_SHELL_VALUE_CHARS]

    def _name_model(self, path: str) -> None:
        names = self.meta.model_names
        if path not in names and len(names) < _MODEL_NAMES_KEPT:
            names.append(path)

    def _finish_command(self) -> None:
        if self.meta.launch_command is None:
            self.meta.launch_command = " ".join(line for line in self.command_lines if line)
        self.command_lines = []

    def _read_failure(self, number: int, prefix: str, text: str, step_lines: Sequence[int]) -> None:
        meta = self.meta
        if meta.final_validation:
            return  # shutdown noise after a finished run is not a failure (format reference §6.2)
        kind = _failure_kind(text)
        if kind is not None:
            # an earlier attempt failed, training went on (tee -a, a resume), and now this one fails
            if meta.failure is not None and self._steps_between(meta.failure_line or 0, number, step_lines):
                meta.failure = meta.failure_kind = meta.failure_line = None
            if self.failure_pending is not None and self._steps_between(self.failure_pending_line, number, step_lines):
                self.failure_pending = None
        if meta.failure is not None:
            return
        exception = _exception_line(text)
        if self.failure_pending is not None and exception is not None:
            # the first exception line after the signature names the failure; DAPO's and Ray's own
            # exceptions say more than the Hydra wrapper around them
            specific = kind if kind in ("dapo_max_gen_batches", "actor_died") else None
            self.failure_pending = specific or self.failure_pending
            self._set_failure(exception, number, prefix)
            return
        if kind is not None and self.failure_pending is None:
            self.failure_pending = kind
            self.failure_pending_line = number
            self.failure_pending_text = text[:500]
            if exception is not None and kind in ("dapo_max_gen_batches", "actor_died"):
                self._set_failure(exception, number, prefix)

    def _set_failure(self, text: str, number: int, prefix: str) -> None:
        self.meta.failure = text[:500]
        self.meta.failure_kind = self.failure_pending
        self.meta.failure_line = number
        self.meta.failure_frames = list(self.frames.get(prefix, []))
        self.failure_pending = None

    def _steps_between(self, start: int, end: int, step_lines: Sequence[int]) -> bool:
        if start < self.last_step_line < end:
            return True
        index = bisect.bisect_right(step_lines, start)
        return index < len(step_lines) and step_lines[index] < end

    def _open_block(self, kind: str, number: int, prefix: str, text: str) -> None:
        self.block = kind
        self.block_prefix = prefix
        self.block_lines = [text]
        self.block_start = number
        self._try_close_block()

    def _continue_block(self, text: str) -> None:
        self.block_lines.append(text)
        if len(self.block_lines) > _CONFIG_WINDOW:
            self.meta.warnings.append(f"line {self.block_start}: {self.block} block never closed; skipped")
            self._reset_block()
            return
        self._try_close_block()

    def _try_close_block(self) -> None:
        last = self.block_lines[-1].rstrip()
        if self.block == "config":
            if not last.endswith("}"):
                return
            joined = "\n".join(self.block_lines)
            if joined.count("{") > joined.count("}"):
                return
            config = _literal_dict(joined)
            if config is None:
                if joined.count("{") < joined.count("}") or len(self.block_lines) > 1:
                    # braces balance but it does not parse: maybe braces inside strings; keep reading
                    return
                return
            self.meta.config = config
            self.meta.config_line = self.block_start
            self._reset_block()
            return
        first = self.block_lines[0]
        if first[:1] not in ("'", '"', "("):
            # a plain print (the SFT trainer's): the dict follows on the same line
            self._close_validation(_validation_pairs(first))
            return
        # pprint of a string: a parenthesised run of literals ending with ')', or one quoted string

        single = first[:1] in ("'", '"') and len(self.block_lines) == 1
        if not (single or last.endswith(")")):
            return
        joined = "\n".join(self.block_lines)
        try:
            value = _literal_eval(joined)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            if single or len(self.block_lines) >= _VAL_WINDOW:
                self._reset_block()
            return
        if isinstance(value, tuple):
            value = "".join(str(part) for part in value)
        self._close_validation(_validation_pairs(str(value)))

    def _close_validation(self, pairs: dict[str, float]) -> None:
        if self.block == "initial":
            self.meta.initial_validation = pairs
            self.meta.initial_validation_step = None
            self.initial_fill_line = self.block_start if pairs else 0
            self.initial_prints.append((self.block_start, pairs))
        else:
            self.meta.final_validation = True
            self.meta.final_validation_metrics = pairs
        self.saw_verl = True
        self._reset_block()

    def _reset_block(self) -> None:
        self.block = None
        self.block_prefix = ""
        self.block_lines = []
        self.block_start = 0

    def snapshot(self, steps: pl.DataFrame, *, provisional: MetaCollector | None = None) -> RunMeta:
        """The metadata so far, completed from the merged step frame (kind, step range)."""
        source = provisional if provisional is not None else self
        meta = RunMeta.from_json_dict(source.meta.to_json_dict())
        if meta.failure is None and source.failure_pending is not None:
            # a fatal signature with no exception line (yet): the signature itself is the failure
            meta.failure = source.failure_pending_text
            meta.failure_kind = source.failure_pending
            meta.failure_line = source.failure_pending_line
            meta.failure_frames = list(source.frames.get("", []))
        if meta.failure_line is not None and source.last_step_line > meta.failure_line:
            meta.failure = meta.failure_kind = meta.failure_line = None  # training went on afterwards
        if meta.failure is None:
            meta.failure_frames = []
        else:
            # no step line follows the failure (else it was dropped above): the last training step logged
            # is the one the run died at (as logged: 0-based in v0.1 logs)
            meta.failure_step = source.last_training_step
        if meta.launch_command is None and source.command_lines:
            meta.launch_command = " ".join(line for line in source.command_lines if line)
        meta.three_decimals = source.long_decimals == 0 and source.short_decimals >= _THREE_DECIMALS_MIN
        if source.block == "config" and meta.lines > source.block_start + len(source.block_lines) + 200:
            meta.warnings.append(f"line {source.block_start}: the config dump could not be read (damaged or cut)")
        if meta.total_steps is None and meta.config is not None:
            meta.total_steps = _total_from_config(meta.config, meta.train_batches)
        columns = [name for name in steps.columns if name != STEP]
        if steps.height:
            meta.first_step = int(steps.get_column(STEP).min())  # type: ignore[arg-type]
            meta.last_step = int(steps.get_column(STEP).max())  # type: ignore[arg-type]
        sft = any(name.startswith(_SFT_KEYS) for name in columns) and not any(
            name.startswith(("actor/", "critic/")) for name in columns
        )
        if sft:
            meta.kind = "sft"
        elif columns or source.saw_verl:
            meta.kind = "rl"
        else:
            meta.kind = "none"
        meta.zero_based = bool(
            meta.kind == "rl" and any(name.startswith("timing/") for name in columns) and meta.first_step == 0
        )
        return meta


# --- collector state checks ---------------------------------------------------------------------------------------
_INT_RANGE = range(0, 2**63)
_BLOCKS = (None, "config", "initial", "final")
"""Every integer a collector state holds (line numbers, steps, counts) is a non-negative int64."""


@functools.cache
def _collector_hints() -> dict[str, Any]:
    return typing.get_type_hints(MetaCollector)


@functools.cache
def _meta_hints() -> dict[str, Any]:
    return typing.get_type_hints(RunMeta)


def _fits(value: Any, hint: Any) -> bool:
    """Whether a JSON value has the type ``hint`` names (the annotations of :class:`MetaCollector` and
    :class:`~rlmon.schema.RunMeta`: plain types, ``X | None``, ``Literal``, ``list[X]``, ``dict[K, V]``, ``Any``)."""
    origin = typing.get_origin(hint)
    if hint is Any:
        return True
    if origin is typing.Union or origin is types.UnionType:
        return any(_fits(value, option) for option in typing.get_args(hint))
    if origin is typing.Literal:
        return value in typing.get_args(hint)
    if origin is list:
        (item,) = typing.get_args(hint)
        return isinstance(value, list) and all(_fits(element, item) for element in value)
    if origin is dict:
        key, item = typing.get_args(hint)
        return isinstance(value, dict) and all(_fits(k, key) and _fits(v, item) for k, v in value.items())
    if hint is None or hint is type(None):
        return value is None
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool) and value in _INT_RANGE
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint is str:
        return isinstance(value, str)
    return False


def _total_from_config(config: dict[str, Any], train_batches: int | None) -> int | None:
    """v0.1 prints no total: ``trainer.total_training_steps`` if set, else batches x ``total_epochs``."""
    trainer = config.get("trainer")
    if not isinstance(trainer, dict):
        return None
    explicit = trainer.get("total_training_steps")
    if isinstance(explicit, int) and explicit > 0:
        return explicit
    epochs = trainer.get("total_epochs")
    if train_batches is not None and isinstance(epochs, int) and epochs > 0:
        return train_batches * epochs
    return None


def _opens_val_print(text: str, which: str) -> bool:
    return bool(re.match(rf"""^\(?["']?{which} validation metrics: """, text))


def _failure_kind(text: str) -> str | None:
    """The kind of fatal failure a line announces, if any (format reference §6.3)."""
    if _HYDRA_RE.match(text):
        return "hydra"
    if _DAPO_FAIL_RE.search(text):
        return "dapo_max_gen_batches"
    if _ACTOR_DIED_RE.search(text):
        return "actor_died"
    if _RAYTASK_RE.search(text):
        return "ray_task_error"
    return None


def _exception_line(text: str) -> str | None:
    """The text if it is an unindented exception line other than Ray's RayTaskError wrapper."""
    if not text or text[0].isspace() or _RAY_WRAPPER_RE.match(text):
        return None
    if _DAPO_FAIL_RE.search(text) and "ValueError" in text:
        return text[text.find("ValueError") :]
    match = _EXC_LINE_RE.match(text)
    return text if match else None


# --- chunks -----------------------------------------------------------------------------------------------------
def _candidate_rows(lines: pl.Series, *, head: int) -> list[int]:
    """0-based rows the metadata collector must see: marker lines, the lines of the windows after block openers
    that can change what it reads (see :func:`_drop_inert`), the last tqdm bar, and the first ``head`` rows (a
    block left open by the previous chunk)."""
    # one regex alternation of literals is several times faster here than contains_any
    hits = lines.str.contains(_META_PATTERN)
    marked = set(hits.arg_true().to_list())
    # shell assignments (the launch command's $VAR) carry no marker: kept whole, never dropped as inert
    assignments = set(lines.str.contains(_ASSIGNMENT_RUST).arg_true().to_list())
    marked.update(assignments)
    marked.update(range(min(head, len(lines))))
    titled = lines.str.contains("Training Progress", literal=True).arg_true()
    if len(titled):
        bars = lines.gather(titled).str.contains(r"Training Progress:\s*\d+%\|")
        if bars.any():
            marked.add(int(titled.filter(bars)[-1]))
    rows = set(marked)
    whole: set[int] = set(marked)
    for row in sorted(marked):
        text = lines[row]
        if "'actor_rollout_ref'" in text:
            rows.update(range(row, min(row + _CONFIG_WINDOW, len(lines))))
        elif "validation metrics" in text:
            rows.update(range(row, min(row + _VAL_WINDOW, len(lines))))
        elif any(marker in text for marker in _FATAL_MARKERS):
            rows.update(range(row, min(row + _EXC_WINDOW, len(lines))))
        elif ("-m verl." in text or "-m recipe." in text) and text.rstrip().endswith("\\"):
            # every line of a pasted command's window is one of its pieces
            whole.update(range(row, min(row + _CMD_WINDOW, len(lines))))
    rows.update(whole)
    if len(rows) == len(whole):
        return sorted(rows)
    return _drop_inert(lines, sorted(rows), hits, keep=whole)


def _drop_inert(lines: pl.Series, rows: list[int], hits: pl.Series, *, keep: set[int]) -> list[int]:
    """``rows`` without the window lines that cannot change what :meth:`MetaCollector.feed` reads.

    Such a line (a step line after a config dump, say) carries no marker once its ANSI codes are gone, does not
    continue a block (its text after the Ray prefix does not start with a space), is no tqdm bar and cannot be an
    exception line (no ``Error``, ``Exception``, ``Interrupt``, ``Exit``): the collector would read it and do
    nothing. Rows in ``keep`` stay, and so do the :data:`_CMD_WINDOW` + 1 rows after any line that may start a
    launch command, which takes the rows that follow as its pieces whatever they hold. The test is vectorised:
    reading every line of a 4,000-line window in Python took most of a cold start.
    """
    texts = lines.gather(rows)
    marked = hits.gather(rows)
    ansi = texts.str.contains("\x1b", literal=True)
    if ansi.any():
        # the collector strips ANSI codes first; a marker may show only then
        coloured = ansi.arg_true()
        cleaned = texts.gather(coloured).str.replace_all(ANSI, "")
        texts = texts.scatter(coloured, cleaned)
        marked = marked.scatter(coloured, cleaned.str.contains(_META_PATTERN))
    text = pl.col("text")
    flags = pl.DataFrame({"text": texts, "marked": marked}).select(
        (
            pl.col("marked")
            | text.str.contains_any(["Training Progress", "Error", "Exception", "Interrupt", "Exit"])
            # a continuation line starts with a space once the Ray prefix is cut off (the leftmost-first match
            # of Rust's regex is the one Python's finds, and their classes agree on ASCII; a line that may
            # have a prefix with other characters is kept, to be sure)
            | text.str.extract(_PREFIX_FIRST_CHAR, 1).str.contains(r"^[\s\x1c-\x1f]").fill_null(False)
            | (text.str.starts_with("(") & (text.str.len_bytes() != text.str.len_chars()))
        ).alias("live"),
    )
    # a line that may start a command carries the marker "-m verl." or "-m recipe.": only marked lines are looked at
    commands = [
        index
        for index in marked.arg_true().to_list()
        if "-m verl." in (text_at := texts[index]) or "-m recipe." in text_at
    ]
    protected_until = -1
    kept: list[int] = []
    for index, (row, live) in enumerate(zip(rows, flags.get_column("live").to_list(), strict=True)):
        while commands and commands[0] <= index:
            protected_until = max(protected_until, commands.pop(0) + _CMD_WINDOW + 1)
        if live or row in keep or index <= protected_until:
            kept.append(row)
    return kept


def parse_chunk(lines: pl.Series, collector: MetaCollector, *, first_line: int = 1) -> pl.DataFrame:
    """Parse complete lines of a log; update ``collector``; return the chunk's frame (with ``_line``).

    ``first_line`` is the 1-based number of the first line in the whole file.
    """
    parsed = _parse_step_lines(lines, first_line, collector, _KeyBudget.of(collector))
    return _finish_chunk(lines, parsed, collector, first_line=first_line)


class ChunkPipeline:
    """Chunks of complete lines in, chunk frames out (:attr:`frames`, in file order), as :func:`parse_chunk`
    would give them one after the other.

    The step lines of a chunk are read on a worker thread while the metadata of the chunk before is collected
    on the caller's: polars lets go of the interpreter while it works, so a large log is read on two cores.
    Only a few chunks are in the works at once, which bounds the memory.

    Parameters
    ----------
    collector
        Updated chunk by chunk, in file order, by the caller's thread only.
    first_line
        1-based number of the first line of the first chunk in the whole file.
    """

    def __init__(self, collector: MetaCollector, *, first_line: int = 1) -> None:
        self.collector = collector
        self.next_line = first_line
        """Number of the line after the last chunk whose frame is in :attr:`frames`."""
        self.frames: list[pl.DataFrame] = []
        self._pending: collections.deque[tuple[pl.Series, concurrent.futures.Future[_StepLines]]] = collections.deque()

    def add(self, lines: pl.Series) -> None:
        """Start on the next chunk's lines (from :func:`split_lines`); finish earlier ones to keep few open."""
        # the worker numbers lines from 1 and the numbers are moved once the chunk's place is known; the
        # decimal counts it reads from the collector may lag, which only costs counting more
        # the keys kept as of the chunks finished so far: the chunk in the works may add more (see _finish_one)
        budget = _KeyBudget.of(self.collector)
        self._pending.append((lines, _workers().submit(_parse_step_lines, lines, 1, self.collector, budget)))
        while len(self._pending) > _CHUNKS_AHEAD:
            self._finish_one()

    def finish(self) -> list[pl.DataFrame]:
        """Finish every chunk added; return :attr:`frames`."""
        while self._pending:
            self._finish_one()
        return self.frames

    def _finish_one(self) -> None:
        lines, pending = self._pending.popleft()
        parsed = pending.result()
        if parsed.pre_dropped and parsed.known != frozenset(self.collector.keys):
            # keys past the budget were left out against the keys kept before the chunk ahead of this one
            # was finished: read again against the keys kept now (only ever for a log past max_keys)
            parsed = _parse_step_lines(lines, 1, self.collector, _KeyBudget.of(self.collector))
        step_lines = _renumbered(parsed, self.next_line)
        self.frames.append(_finish_chunk(lines, step_lines, self.collector, first_line=self.next_line))
        self.next_line += len(lines)


_CHUNKS_AHEAD = 1
"""Chunks whose step lines are being read while the caller collects the metadata of an earlier one."""
_pool: tuple[int, concurrent.futures.ThreadPoolExecutor] | None = None
_pool_lock = threading.Lock()


def _workers() -> concurrent.futures.ThreadPoolExecutor:
    """The threads that read step lines (shared by every log and visitor; started on first use, and again in
    a forked process, which does not inherit its parent's threads)."""
    global _pool
    with _pool_lock:
        if _pool is None or _pool[0] != os.getpid():
            _pool = (
                os.getpid(),
                concurrent.futures.ThreadPoolExecutor(max_workers=2, thread_name_prefix="rlmon-parse"),
            )
        return _pool[1]


def _renumbered(parsed: _StepLines, first_line: int) -> _StepLines:
    """``parsed`` (read with lines numbered from 1) with its lines numbered from ``first_line``."""
    shift = first_line - 1
    if not shift:
        return parsed
    dtype = parsed.steps.schema[LINE]
    parsed.steps = parsed.steps.with_columns((pl.col(LINE).cast(pl.Int64) + shift).cast(dtype))
    parsed.line_numbers = [number + shift for number in parsed.line_numbers]
    if parsed.dropped_line is not None:
        parsed.dropped_line += shift
    return parsed


def _finish_chunk(lines: pl.Series, parsed: _StepLines, collector: MetaCollector, *, first_line: int) -> pl.DataFrame:
    """The rest of :func:`parse_chunk` once the step lines are read: metadata, counts, initial validation."""
    steps, step_line_numbers, bad = parsed.steps, parsed.line_numbers, parsed.bad_keys
    rows = _candidate_rows(lines, head=collector.wants_lines())
    numbered = ((first_line + row, lines[row]) for row in rows)
    # an initial-validation print still waiting for its step row, from an earlier chunk
    prints = [(collector.initial_fill_line, collector.meta.initial_validation)] if collector.initial_fill_line else []
    collector.initial_prints = []
    collector.feed(numbered, step_line_numbers)
    prints.extend(collector.initial_prints)
    collector.initial_prints = []
    meta = collector.meta
    meta.lines = first_line - 1 + len(lines)
    meta.step_lines += len(step_line_numbers)
    meta.cut_lines += parsed.cut_lines
    collector.short_decimals += parsed.short_decimals
    collector.long_decimals += parsed.long_decimals
    if step_line_numbers:
        collector.last_step_line = max(collector.last_step_line, step_line_numbers[-1])
        collector.saw_verl = True
        last_training_step = _last_training_step(steps)
        if last_training_step is not None:
            collector.last_training_step = last_training_step
    if prints and steps.height:
        steps = _fill_initial_validations(steps, collector, prints)
    if bad:
        meta.warnings.append(f"lines {first_line}-{meta.lines}: {bad} logged key(s) had no numeric value")
    steps = _admit_keys(steps, collector, dropped_line=parsed.dropped_line)
    # one piece per chunk: the pieces of a block's text (read in parallel) would otherwise pile up in the
    # merged frame of a large log
    return steps.rechunk()


def _admit_keys(steps: pl.DataFrame, collector: MetaCollector, *, dropped_line: int | None) -> pl.DataFrame:
    """A chunk frame (columns in the order of their first value, rows in line order) with only the keys the log
    keeps: every key kept before, then new keys while fewer than ``collector.max_keys`` are kept. A key first
    logged once the bound is reached is dropped, whichever chunk it comes in (so where a file is cut changes
    nothing), and a row left with no value goes too; the first dropped key's line is kept in the metadata
    (``dropped_line``: that of a key the chunk's reading left out already)."""
    kept = collector.keys
    new = [name for name in steps.columns if name not in _RESERVED and name not in kept]
    room = max(0, collector.max_keys - len(kept))
    kept.update(dict.fromkeys(new[:room]))
    dropped = new[room:]
    if dropped:
        # columns come in the order of their first value: the first dropped key is the first one logged
        first = steps.get_column(LINE).filter(steps.get_column(dropped[0]).is_not_null())
        dropped_line = min(int(first[0]), dropped_line or int(first[0]))
    if dropped_line is not None and collector.meta.keys_dropped_line is None:
        collector.meta.keys_dropped_line = dropped_line
    if not dropped:
        return steps
    steps = steps.drop(dropped)
    return _drop_empty_rows(steps, [name for name in steps.columns if name not in _RESERVED])


def _last_training_step(steps: pl.DataFrame) -> int | None:
    """Step of the last row of a chunk frame (sorted by ``_line``) that logged a training key, not validation
    alone; None when no row did."""
    pattern = re.compile(NON_TRAINING_KEY)
    columns = [name for name in steps.columns if name not in _RESERVED and not pattern.match(name)]
    if not columns or not steps.height:
        return None
    # the last row nearly always is one: looking at it alone spares a pass over the whole chunk
    last = steps.tail(1).row(0, named=True)
    if any(last[name] is not None for name in columns):
        return int(last[STEP])
    training = steps.filter(pl.any_horizontal([pl.col(name).is_not_null() for name in columns]))
    return int(training.get_column(STEP)[-1]) if training.height else None


def _fill_initial_validations(
    steps: pl.DataFrame, collector: MetaCollector, prints: list[tuple[int, dict[str, float]]]
) -> pl.DataFrame:
    """Fill step rows from ``Initial validation metrics`` prints (line, pairs), in file order.

    Each print fills the row of the first step line after it (``step:0``, or the resumed step; in v0.1 logs
    the first training step, which is where v0.1 logs its own initial validation too), unless another print
    comes first (a resumed run appended to the same log: the later print counts). Only keys the line lacks
    are filled: a line cut by wandb at 4096 characters keeps what it has and gets the rest from the print.
    Only the last print is the one :class:`~rlmon.schema.RunMeta` describes; if its row is not in ``steps``,
    it stays pending for the next chunk.
    """
    for index, (print_line, pairs) in enumerate(prints):
        last = index == len(prints) - 1
        later = steps.filter(pl.col(LINE) > print_line)
        if later.is_empty() or not pairs:
            continue
        target_line = int(later.get_column(LINE)[0])
        if not last and target_line > prints[index + 1][0]:
            continue  # the next print comes first
        steps = _fill_initial_validation(steps, pairs, target_line)
        if last:
            collector.meta.initial_validation_step = int(later.get_column(STEP)[0])
            collector.initial_fill_line = 0
    return steps


def _fill_initial_validation(steps: pl.DataFrame, pairs: dict[str, float], target_line: int) -> pl.DataFrame:
    """Fill the row of line ``target_line`` from one print's pairs where it has no value."""
    target = pl.col(LINE) == target_line
    fills: list[pl.Expr] = []
    for key, value in pairs.items():
        if key in _RESERVED:
            continue
        current = pl.col(key) if key in steps.columns else pl.lit(None, dtype=pl.Float64)
        fills.append(
            pl.when(target & current.is_null()).then(pl.lit(value, dtype=pl.Float64)).otherwise(current).alias(key)
        )
    if not fills:
        return steps
    # The print's keys count as logged at the end of the target line, and columns come in the order of their
    # first value (see _parse_step_lines): a key new here, or first valued after that line, goes right after
    # the keys first valued up to it, so the column order does not depend on where the file was cut.
    metric_columns = [name for name in steps.columns if name not in _RESERVED]
    first_lines = dict(
        zip(
            metric_columns,
            steps.select(
                [pl.col(LINE).filter(pl.col(name).is_not_null()).min().alias(name) for name in metric_columns]
            ).row(0),
            strict=True,
        )
    )
    keys = [key for key in pairs if key not in _RESERVED]
    moved = [key for key in keys if key not in first_lines or first_lines[key] > target_line]
    moving = set(moved)
    staying = [name for name in metric_columns if name not in moving]
    before = sum(1 for name in staying if first_lines[name] <= target_line)
    order = [LINE, STEP, *staying[:before], *moved, *staying[before:]]
    return steps.with_columns(fills).select(order)


def parse_log_bytes(data: bytes, *, block_bytes: int = BLOCK_BYTES, max_keys: int = MAX_KEYS) -> ParsedLog:
    """Parse a whole verl console log given as bytes.

    The bytes are parsed in blocks of about ``block_bytes`` cut at line breaks, which bounds the memory a
    large file needs. At most ``max_keys`` distinct keys are kept (:class:`MetaCollector`).

    Examples
    --------
    >>> log = parse_log_bytes(b"step:1 - critic/score/mean:np.float64(0.5) - actor/grad_norm:nan\\n")
    >>> log.steps.rows()
    [(1, 0.5, nan)]
    """
    collector = MetaCollector(max_keys=max_keys)
    pipeline = ChunkPipeline(collector)
    for block in iter_blocks(data, block_bytes=min(block_bytes, MAX_LINE_BYTES)):
        if len(block) > MAX_LINE_BYTES:
            pipeline.finish()
            pipeline.next_line = _skip_long_line(collector, pipeline.next_line - 1) + 1
            continue
        pipeline.add(split_lines(block))
    steps = merge_steps(pipeline.finish())
    return ParsedLog(steps=steps, meta=collector.snapshot(steps))


def long_line_warning(line: int) -> str:
    """The warning for a line longer than :data:`MAX_LINE_BYTES` (``line N: longer than 16 MB; skipped``)."""
    return f"line {line}: longer than {MAX_LINE_BYTES // (1024 * 1024)} MB; skipped"


def _skip_long_line(collector: MetaCollector, lines_done: int) -> int:
    """Count an over-long line as read (it is not parsed) and warn; return the lines read now."""
    lines_done += 1
    collector.meta.warnings.append(long_line_warning(lines_done))
    collector.meta.lines = lines_done
    return lines_done


def iter_blocks(data: bytes, *, block_bytes: int = BLOCK_BYTES) -> Iterator[bytes]:
    """``data`` in pieces of about ``block_bytes``, each ending at a line break (the last one may not).

    A line longer than ``block_bytes`` comes whole, alone in its piece.
    """
    start = 0
    size = len(data)
    while start < size:
        end = min(size, start + block_bytes)
        if end < size:
            cut = max(data.rfind(b"\n", start, end), data.rfind(b"\r", start, end - 1))
            # no line break in the window: one line longer than a block, taken whole
            end = cut + 1 if cut >= start else _line_end_at(data, start)
        yield data[start:end]
        start = end


def _line_end_at(data: bytes, start: int) -> int:
    """Index just past the first line break at or after ``start`` (``\r\n`` is one), or ``len(data)``."""
    newline = data.find(b"\n", start)
    stop = len(data) if newline < 0 else newline
    carriage = data.find(b"\r", start, stop)
    if carriage < 0:
        return stop if newline < 0 else newline + 1
    return carriage + 2 if data[carriage + 1 : carriage + 2] == b"\n" else carriage + 1


def parse_log_text(text: str) -> ParsedLog:
    """Parse a whole verl console log given as text."""
    return parse_log_bytes(text.encode("utf-8", errors="surrogatepass"))


# --- verl's file logger (JSON Lines) ---------------------------------------------------------------------------
def parse_jsonl_chunk(data: bytes, collector: MetaCollector, *, first_line: int = 1) -> pl.DataFrame:
    """Complete JSONL lines ``{"step": N, "data": {...}}`` -> frame with ``_line``; non-numbers are dropped,
    and so is a record with no number."""
    rows: list[dict[str, Any]] = []
    meta = collector.meta
    text = data.decode("utf-8", errors="replace")
    # lines end at \n only: json.dumps and orjson write U+2028 and the like raw inside strings
    lines = text.split("\n")
    if lines and not lines[-1]:
        lines.pop()
    nan_tokens_from = first_line if collector.jsonl_nan_tokens else None
    if nan_tokens_from is None and (token := _JSON_NAN_TOKEN_RE.search(text)) is not None:
        # the json.dumps era begins at the line of the first NaN/Infinity token (line by line, so where the
        # file is cut into chunks changes nothing)
        nan_tokens_from = first_line + text.count("\n", 0, token.start())
        collector.jsonl_nan_tokens = True
    number = first_line - 1
    bad: list[int] = []
    kept = collector.keys
    for number, line in enumerate(lines, start=first_line):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            bad.append(number)
            continue
        if not isinstance(record, dict) or not isinstance(record.get("step"), int):
            bad.append(number)
            continue
        values = record.get("data")
        row: dict[str, Any] = {LINE: number, STEP: record["step"]}
        nulls_are_none = nan_tokens_from is not None and number >= nan_tokens_from
        if isinstance(values, dict):
            for key, value in values.items():
                name = str(key)
                if name in _RESERVED:
                    continue
                if isinstance(value, bool):
                    reading = 1.0 if value else 0.0
                elif isinstance(value, int | float):
                    reading = float(value)
                elif value is None and not nulls_are_none:
                    # verl's orjson file logger (2026+) writes NaN and +-inf as null; the older json.dumps
                    # one wrote NaN/Infinity, so in its files a null is a None value (dropped, as on the console)
                    reading = math.nan
                else:
                    continue
                if name not in kept:
                    if len(kept) >= collector.max_keys:  # the bound on distinct keys (see _admit_keys)
                        if meta.keys_dropped_line is None:
                            meta.keys_dropped_line = number
                        continue
                    kept[name] = None
                row[name] = reading
        meta.step_lines += 1
        if len(row) > 2:
            rows.append(row)
    meta.lines = max(meta.lines, number)
    if bad:
        shown = ", ".join(str(n) for n in bad[:5])
        more = f" (+{len(bad) - 5} more)" if len(bad) > 5 else ""
        meta.warnings.append(f"line(s) {shown}{more}: not a verl file-logger record; skipped")
    if rows:
        collector.saw_verl = True
        collector.last_step_line = max(collector.last_step_line, rows[-1][LINE])
    if not rows:
        return pl.DataFrame(schema={LINE: pl.Int64, STEP: pl.Int64})
    return pl.from_dicts(rows, infer_schema_length=None)


def parse_jsonl_bytes(data: bytes, *, max_keys: int = MAX_KEYS) -> ParsedLog:
    """Parse a whole verl file-logger JSONL file (a line longer than :data:`MAX_LINE_BYTES` is skipped; at most
    ``max_keys`` distinct keys are kept)."""
    collector = MetaCollector(max_keys=max_keys)
    frames = []
    lines_done = 0
    for block in iter_blocks(data, block_bytes=MAX_LINE_BYTES):
        if len(block) > MAX_LINE_BYTES:
            lines_done = _skip_long_line(collector, lines_done)
            continue
        frames.append(parse_jsonl_chunk(block, collector, first_line=lines_done + 1))
        lines_done += block.count(b"\n") + (not block.endswith(b"\n"))
    steps = merge_steps(frames)
    return ParsedLog(steps=steps, meta=collector.snapshot(steps))


def empty_log() -> ParsedLog:
    """A log with nothing in it."""
    return ParsedLog(steps=empty_steps(), meta=RunMeta())
