"""Experiments loaded through the per-log cache, and the colours they keep."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import re
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from rlmon.errors import LogReadError, RlmonError
from rlmon.logs.cache import LogCache, write_text_atomically
from rlmon.logs.lines import file_mark
from rlmon.logs.parse import bound_keys, keys_dropped_warning, merge_steps, parse_log_bytes
from rlmon.runs.experiment import (
    ConfigSource,
    Experiment,
    SourceFile,
    SourceRole,
    assign_colors,
    experiment_color,
    experiment_label,
    extract_settings,
    infer_algorithm,
    model_track,
    name_entries,
    summarize_progress,
    training_rows,
)
from rlmon.runs.overrides import command_model_paths, config_from_command, merge_configs
from rlmon.schema import STEP, RunMeta, empty_steps
from rlmon.settings import Settings
from rlmon.sources.discovery import Catalog, ExperimentRef, discover_experiments
from rlmon.text.messages import unknown_track
from rlmon.text.names import experiment_names

__all__ = [
    "COLOR_BOOK_NAME",
    "PEEK_BYTES",
    "CachedSteps",
    "ColorBook",
    "cache_color_book",
    "catalog_colors",
    "describe_root",
    "let_go_of_steps",
    "load_experiment",
    "load_experiments",
    "peek_track",
]


# ------------------------------------------------------------------------------------------------ loading


def _step_range(steps: Sequence[int]) -> str:
    if not steps:
        return "none"
    return f"{steps[0]}" if steps[0] == steps[-1] else f"{steps[0]}–{steps[-1]}"


def _role(meta: RunMeta, training_steps: Sequence[int], *, is_last: bool) -> tuple[SourceRole, str]:
    if meta.failure is not None and not meta.final_validation and (not is_last or not training_steps):
        return "crashed attempt", meta.failure
    if not training_steps:
        return "start-up only", "config and start-up output, no training step"
    ended = f"; ended by {meta.failure}" if meta.failure is not None and not meta.final_validation else ""
    if meta.resume_steps:
        return "resumed", f"resumed at step {meta.resume_steps[-1]}; steps {_step_range(training_steps)}{ended}"
    return "steps", f"steps {_step_range(training_steps)}{ended}"


def load_experiment(ref: ExperimentRef, cache: LogCache, *, now: float, settings: Settings) -> Experiment:
    """Read an experiment's files through the log cache and summarise it.

    Parameters
    ----------
    ref
        From :func:`discover_experiments`.
    cache
        The per-log cache every file is read through.
    now
        Current time, seconds since the epoch (status uses it for stalls).
    settings
        ``stall_factor`` and ``stall_min_s`` are used.

    Returns
    -------
    Experiment
        A file that vanished or cannot be read, or that has no RL content, is listed in ``sources`` with
        role ``unreadable`` / ``not RL`` and a message in ``problems``; the other files still count.
        When two files hold the same training step, the later file's values win and a problem says so.

    Raises
    ------
    LogReadError
        Anything unexpected went wrong reading or summarising it (a bug, memory, a polars error): the error
        names the experiment's folder and the kind of failure; the original is chained (``__cause__``).
    """
    try:
        return _read_experiment(ref, cache, now=now, settings=settings)
    except RlmonError:
        raise
    except Exception as error:
        raise LogReadError(f"cannot be read ({type(error).__name__})", path=ref.path) from error


def _read_experiment(ref: ExperimentRef, cache: LogCache, *, now: float, settings: Settings) -> Experiment:
    problems: list[str] = []
    sources: list[SourceFile] = []
    metas: list[RunMeta] = []
    frames: list[pl.DataFrame] = []
    frame_names: list[str] = []
    seen_steps: dict[int, str] = {}
    mtimes: list[float] = []
    for index, log in enumerate(ref.files):
        try:
            info = log.path.stat()
            parsed = cache.read(log.path)
        except (LogReadError, OSError) as error:
            reason = error.reason if isinstance(error, LogReadError) else (error.strerror or str(error))
            problems.append(f"{log.path}: cannot be read ({reason}); skipped, the other files are used")
            sources.append(
                SourceFile(name=log.name, path=str(log.path), size=log.size, mtime=log.mtime, role="unreadable",
                           note=str(reason))
            )  # fmt: skip
            continue
        mtimes.append(info.st_mtime)
        meta = parsed.meta
        if meta.kind != "rl":
            problems.append(f"{log.path}: no verl RL content ({meta.kind}); ignored")
            sources.append(
                SourceFile(name=log.name, path=str(log.path), size=info.st_size, mtime=info.st_mtime,
                           role="not RL", note=meta.kind)
            )  # fmt: skip
            continue
        training = training_rows(parsed.steps)
        training_steps = sorted(int(step) for step in training.get_column(STEP).to_list())
        overlap = sorted(step for step in training_steps if step in seen_steps)
        if overlap:
            earlier = sorted({seen_steps[step] for step in overlap})
            problems.append(
                f"{log.name} repeats {len(overlap)} step(s) ({_step_range(overlap)}) already in "
                f"{', '.join(earlier)}; the values from {log.name} are used"
            )
        for step in training_steps:
            seen_steps[step] = log.name
        role, note = _role(meta, training_steps, is_last=index == len(ref.files) - 1)
        sources.append(
            SourceFile(
                name=log.name,
                path=str(log.path),
                size=info.st_size,
                mtime=info.st_mtime,
                role=role,
                first_step=training_steps[0] if training_steps else None,
                last_step=training_steps[-1] if training_steps else None,
                steps=len(training_steps),
                note=note,
            )
        )
        if meta.warnings:
            first = meta.warnings[0]
            more = f" (and {len(meta.warnings) - 1} more)" if len(meta.warnings) > 1 else ""
            problems.append(f"{log.path}: damaged input read around: {first}{more}")
        if meta.keys_dropped_line is not None:
            problems.append(f"{log.path}: {keys_dropped_warning(meta.keys_dropped_line, cache.max_keys)}")
        metas.append(meta)
        frames.append(parsed.steps)
        frame_names.append(log.name)
    steps, dropped = bound_keys(merge_steps(frames), cache.max_keys) if frames else (empty_steps(), [])
    if dropped:
        # each log keeps max_keys; together they may hold more: named at the first log whose keys are dropped
        owner = next(name for name, frame in zip(frame_names, frames, strict=True) if dropped[0] in frame.columns)
        problems.append(
            f"{ref.path / owner}: the experiment's logs hold more than {cache.max_keys:,} distinct keys together; "
            f"the {len(dropped):,} from this log on past them are dropped (the max_keys setting)"
        )
    last_modified = max(mtimes, default=None)
    dump = next((meta.config for meta in reversed(metas) if meta.config is not None), None)
    launch = next((meta.launch_command for meta in reversed(metas) if meta.launch_command), None)
    # the command's $VARs are read through what the logs show being assigned (a later file's assignment wins)
    variables = {name: value for meta in metas for name, value in meta.shell_vars.items()}
    # a dump value wins; the command's overrides fill what the dump lacks, or stand alone without a dump
    config = merge_configs(dump, config_from_command(launch, variables=variables))
    # where the model path says nothing: the other models the logs name (a script's base model, an HF name)
    named = [
        *(path for meta in metas for path in command_model_paths(meta.launch_command, variables=variables)),
        *(name for meta in metas for name in meta.model_names),
        *(size for meta in metas for size in meta.model_sizes),  # verl's model-size print: `Llama 134.52M`
    ]
    config_source: ConfigSource | None = "dump" if dump is not None else ("command" if config is not None else None)
    algorithm = infer_algorithm(config, launch_command=launch, columns=steps.columns)
    progress = summarize_progress(
        steps,
        metas,
        last_modified=last_modified,
        now=now,
        stall_factor=settings.stall_factor,
        stall_min_s=settings.stall_min_s,
    )
    current = metas[-1] if metas else None
    crashed = progress.status == "crashed"
    overrides = ref.overrides
    folder_name = ref.path.name if ref.relative != "." else ref.id
    if not metas and ref.files:
        problems.append(f"{ref.path}: none of its {len(ref.files)} log file(s) could be used")
    return Experiment(
        id=ref.id,
        root=str(ref.root),
        path=str(ref.path),
        label=overrides.label or experiment_label(folder_name, algorithm),
        track=overrides.track or model_track(config, named=named) or unknown_track(ref.id),
        algorithm=algorithm,
        description=overrides.description or algorithm.description,
        color=overrides.color or experiment_color(ref.id),
        order=ref.order,
        hidden=bool(overrides.hidden),
        status=progress.status,
        steps_done=progress.steps_done,
        total_steps=progress.total_steps,
        missing_steps=progress.missing_steps,
        elapsed_h=progress.elapsed_h,
        mean_step_s=progress.mean_step_s,
        median_step_s=progress.median_step_s,
        last_step_s=progress.last_step_s,
        eta_h=progress.eta_h,
        idle_s=progress.idle_s,
        failure=progress.failure,
        settings=extract_settings(config, total_steps=progress.total_steps),
        sources=tuple(sources),
        steps=steps,
        metas=tuple(metas),
        problems=tuple(problems),
        pass_rate_mode=overrides.pass_rate,
        last_modified=last_modified,
        config=config,
        config_source=config_source,
        failure_frames=tuple(current.failure_frames) if crashed and current is not None else (),
        failure_step=current.failure_step if crashed and current is not None else None,
        three_decimals=any(meta.three_decimals for meta in metas),
        group=overrides.group,
    )


_FRAME_ROLES = frozenset({"steps", "resumed", "crashed attempt", "start-up only"})
"""The roles of the files whose frames an experiment's step frame merges (readable, with verl RL content)."""


@dataclass(frozen=True)
class CachedSteps:
    """An experiment's step frame read back through the log cache: its files' frames as the cache last read them
    (:meth:`~rlmon.logs.cache.LogCache.read_columns`: only the columns asked for, from the cache folder when they
    are not held in memory), merged in file order as :func:`load_experiment` merges them."""

    cache: LogCache
    paths: tuple[str, ...]

    @classmethod
    def of(cls, sources: Sequence[SourceFile], cache: LogCache) -> CachedSteps:
        """The frames of an experiment whose files are ``sources`` (those it merges: readable, with RL content)."""
        return cls(cache, tuple(source.path for source in sources if source.role in _FRAME_ROLES))

    def read_steps(self, columns: Sequence[str] | None = None) -> pl.DataFrame:
        frames = []
        for path in self.paths:
            try:
                frames.append(self.cache.read_columns(path, columns))
            except LogReadError as error:
                raise LogReadError(f"cannot be read back ({error.reason})", path=path) from error
        steps = merge_steps(frames) if frames else empty_steps()
        if columns is None:
            return steps
        return steps.select(STEP, *[name for name in dict.fromkeys(columns) if name != STEP and name in steps.columns])


def let_go_of_steps(experiment: Experiment, cache: LogCache) -> Experiment:
    """``experiment`` without its step frame held: ``steps`` keeps the frame's columns (no rows), and
    :meth:`~rlmon.runs.experiment.Experiment.read_steps` reads the frame (or some of its columns) back through
    ``cache``, which read it (:class:`CachedSteps`). What the log cache holds in memory is its own to keep or let go
    (its ``memory_mb``); a server holding hundreds of experiments keeps only this summary of each."""
    if experiment.step_source is not None:
        return experiment
    source = CachedSteps.of(experiment.sources, cache)
    return dataclasses.replace(experiment, steps=experiment.steps.clear(), step_source=source)


PEEK_BYTES = 256 * 1024
"""How much of the start of each log :func:`peek_track` reads: verl prints its config dump within the first few
hundred lines."""


def peek_track(ref: ExperimentRef) -> str | None:
    """The track the first :data:`PEEK_BYTES` of an experiment's logs name: ``rlmon.toml``'s, else the model of the
    newest config dump (or launch command) found there; None when they name none. A guess, made without reading
    the logs, that orders the reading of a large root (the track the first screen shows is read first); the track
    shown is the one :func:`load_experiment` finds."""
    if ref.overrides.track:
        return ref.overrides.track
    for log in reversed(ref.files):
        if str(log.path).lower().endswith((".jsonl", ".ndjson")):
            continue  # the file logger's records hold no config dump
        try:
            with open(log.path, "rb") as handle:
                head = handle.read(PEEK_BYTES)
        except OSError:
            continue
        # step lines name no model, and they are most of a log: the guess reads the other lines (3x faster)
        lines = [line for line in head[: head.rfind(b"\n") + 1].split(b"\n") if b"step:" not in line]
        meta = parse_log_bytes(b"\n".join(lines)).meta
        track = model_track(merge_configs(meta.config, config_from_command(meta.launch_command)))
        if track:
            return track
    return None


_HEX_COLOR = re.compile(r"^#[0-9a-fA-F]{6}$")

COLOR_BOOK_NAME = "colors.json"
"""The :class:`ColorBook`'s file in a cache folder."""


def cache_color_book(cache: LogCache) -> ColorBook | None:
    """The :class:`ColorBook` kept in ``cache``'s folder (None for a cache in memory only)."""
    return None if cache.cache_dir is None else ColorBook(cache.cache_dir / COLOR_BOOK_NAME)


class ColorBook:
    """The colours experiments were given, so that each keeps its own while others start and go: kept in
    memory and, with a ``path``, in a small JSON file (in the cache folder) that survives a restart and is
    shared by replicas on one cache folder.

    Entries are keyed by log root and experiment id. The file is rewritten (write, then rename) only when a
    colour is handed out; a missing, unreadable or damaged file is an empty book, and one that cannot be
    written leaves the book in memory only. Thread-safe.
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._colors: dict[str, str] = {}
        self._lock = threading.Lock()
        self._stamp: tuple[int, int, int] | None = None
        self._changes = 0
        """Bumped whenever ``_colors`` changes (read from the file, or handed out)."""
        self._last: tuple[Any, int, dict[str, str]] | None = None
        """The last :meth:`assign`: what it was asked, ``_changes`` then, and its answer."""

    @staticmethod
    def _key(experiment: Experiment) -> str:
        return f"{experiment.root}\n{experiment.id}"

    def _read(self) -> None:
        if self.path is None:
            return
        try:
            stamp = file_mark(self.path.stat())
            if stamp == self._stamp:
                return
            entries = json.loads(self.path.read_text(encoding="utf-8")).get("colors", {})
        except (OSError, ValueError, AttributeError):
            return
        self._stamp = stamp
        if isinstance(entries, dict):
            for key, value in entries.items():
                valid = isinstance(key, str) and isinstance(value, str) and _HEX_COLOR.match(value)
                if valid and key not in self._colors:
                    self._colors[key] = value
                    self._changes += 1

    def _write(self) -> None:
        if self.path is None:
            return
        text = json.dumps({"colors": self._colors}, indent=0, sort_keys=True)
        with contextlib.suppress(OSError):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._stamp = write_text_atomically(text, self.path)

    def assign(self, experiments: Sequence[Experiment], *, fixed: dict[str, str]) -> dict[str, str]:
        """Experiment id -> colour (:func:`~rlmon.runs.experiment.assign_colors` with this book as ``previous``),
        recorded in the book."""
        with self._lock:
            self._read()
            # the same experiments (in what orders them) and the same book as last time: the same colours, without
            # working them out again (every refresh of every page asks, over every experiment of the roots)
            asked = (
                tuple((self._key(item), item.id, item.hidden, item.track, item.order) for item in experiments),
                tuple(sorted(fixed.items())),
            )
            if self._last is not None and self._last[0] == asked and self._last[1] == self._changes:
                return dict(self._last[2])
            previous = {
                item.id: self._colors[self._key(item)] for item in experiments if self._key(item) in self._colors
            }
            colors = assign_colors(experiments, fixed=fixed, previous=previous)
            handed = {self._key(item): colors[item.id] for item in experiments if item.id not in fixed}
            if any(self._colors.get(key) != value for key, value in handed.items()):
                self._colors.update(handed)
                self._changes += 1
                self._write()
            self._last = (asked, self._changes, dict(colors))
            return colors


def catalog_colors(
    catalog: Catalog, experiments: Sequence[Experiment], *, book: ColorBook | None = None
) -> dict[str, str]:
    """Experiment id -> colour over a whole catalog (every root and track): :func:`~rlmon.runs.experiment.assign_colors`
    with the colours ``rlmon.toml`` sets kept, and with a ``book`` the colours handed out before. The app,
    ``rlmon info`` and the report colour through this."""
    fixed = {ref.id: ref.overrides.color for ref in catalog.experiments if ref.overrides.color}
    if book is None:
        return assign_colors(experiments, fixed=fixed)
    return book.assign(experiments, fixed=fixed)


def load_experiments(
    catalog: Catalog,
    cache: LogCache,
    *,
    now: float,
    settings: Settings,
    include_hidden: bool = True,
    failures: list[RlmonError] | None = None,
) -> list[Experiment]:
    """:func:`load_experiment` for every experiment of a catalog, in catalog order, each with its colour
    from :func:`catalog_colors` (no two alike while the palette lasts; kept in the cache folder's
    :class:`ColorBook`, as the app does).

    ``include_hidden=False`` leaves out the experiments ``rlmon.toml`` marks hidden. With a ``failures`` list,
    an experiment that cannot be read is left out and its error appended there (the others are still read);
    without one, the first such error is raised.
    """
    experiments = []
    for ref in catalog.experiments:
        try:
            experiments.append(load_experiment(ref, cache, now=now, settings=settings))
        except RlmonError as error:
            if failures is None:
                raise
            failures.append(error)
    colors = catalog_colors(catalog, experiments, book=cache_color_book(cache))
    for experiment in experiments:
        experiment.color = colors.get(experiment.id, experiment.color)
    if include_hidden:
        return experiments
    return [experiment for experiment in experiments if not experiment.hidden]


def describe_root(
    roots: Sequence[Path], cache: LogCache, *, now: float | None = None, settings: Settings | None = None
) -> dict[str, Any]:
    """JSON-ready description of the log roots (for ``rlmon info ROOT --json``).

    Returns
    -------
    dict
        ``roots`` (paths), ``experiments`` (:meth:`Experiment.to_summary_dict` each, catalog order, with the
        ``name`` it is shown by: :func:`rlmon.text.names.experiment_names` over the whole root),
        ``ignored`` (files without verl RL content) and ``problems`` (messages).
    """
    catalog = discover_experiments(roots)
    failures: list[RlmonError] = []
    experiments = load_experiments(
        catalog, cache, now=time.time() if now is None else now, settings=settings or Settings(), failures=failures
    )
    # the root is one view: each run also by the name the app shows it by there (short, never two alike)
    names = experiment_names(name_entries(experiments))
    return {
        "roots": [str(root) for root in catalog.roots],
        "experiments": [{**experiment.to_summary_dict(), "name": names[experiment.id]} for experiment in experiments],
        "ignored": list(catalog.ignored),
        "problems": [*catalog.problems, *(str(error) for error in failures)],
    }
