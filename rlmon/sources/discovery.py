"""Log roots -> experiments.

:func:`discover_experiments` lists the experiments under one or more log roots: every folder holding verl
logs (``*.log`` whose head shows verl output, or verl ``*.jsonl`` file-logger output) is one experiment.
Discovery stats files and reads at most the first (and, when that shows nothing, the last) 64 KiB of each
log file it has not seen before; contents are read later, through the per-log cache, by
:func:`load_experiment`. It is incremental: a refresh lists again only the folders that changed (and every
folder every :data:`FULL_WALK_S`), and stats the log files it found.

Bad input never stops discovery: unreadable folders, symlink loops, symlinks leaving the root, files without
verl content and ``rlmon.toml`` errors become messages in :attr:`Catalog.problems`. Only a root that does not
exist or cannot be listed raises :class:`~rlmon.errors.CatalogError`.
"""

from __future__ import annotations

import errno
import functools
import os
import re
import stat
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal
from urllib.parse import quote, unquote

from rlmon.errors import CatalogError, UnknownExperimentError
from rlmon.sources.rlmon_toml import ExperimentOverrides, RootConfig, read_root_config

__all__ = [
    "FULL_WALK_S",
    "HEAD_BYTES",
    "LOG_SUFFIXES",
    "RECENT_CHANGE_S",
    "Catalog",
    "ExperimentRef",
    "LogFile",
    "decode_experiment_id",
    "discover_experiments",
    "encode_experiment_id",
    "experiment_code",
    "list_log_files",
    "name_timestamp",
    "sniff_log_head",
]

HEAD_BYTES = 64 * 1024
LOG_SUFFIXES = (".log", ".jsonl")
_MAX_DEPTH = 16

HeadKind = Literal["rl", "sft", "none"]


# ------------------------------------------------------------------------------------------- dataclasses


@dataclass(frozen=True)
class LogFile:
    """One log file of an experiment, as listed (stat only)."""

    path: Path
    name: str
    size: int
    mtime: float
    """Seconds since the epoch."""
    named_time: datetime | None
    """The timestamp in the file name (``train_20260716_021500.log``), naive; None when there is none."""

    @property
    def sort_key(self) -> tuple[float, str]:
        """Files are ordered by the timestamp in their name, else by mtime; then by name."""
        if self.named_time is not None:
            return (self.named_time.replace(tzinfo=UTC).timestamp(), self.name)
        return (self.mtime, self.name)


@dataclass(frozen=True)
class ExperimentRef:
    """An experiment as discovered: where it is and which files it has, nothing read yet."""

    id: str
    """Folder path relative to its root (posix); prefixed with the root's name when several roots are given.
    A root that holds logs itself gets the root's name."""
    root: Path
    path: Path
    relative: str
    """Folder path relative to the root (posix; ``.`` for the root itself) - the key in ``rlmon.toml``."""
    files: tuple[LogFile, ...]
    """Log files with verl content, oldest first (see :attr:`LogFile.sort_key`)."""
    overrides: ExperimentOverrides = field(default_factory=ExperimentOverrides)
    """What the root's ``rlmon.toml`` sets for it."""

    @property
    def url_id(self) -> str:
        """The id percent-encoded for a URL (``/`` included)."""
        return encode_experiment_id(self.id)

    @property
    def last_modified(self) -> float | None:
        return max((item.mtime for item in self.files), default=None)

    @property
    def order(self) -> int:
        """``rlmon.toml`` order, else the number of the ``E<n>`` code, else 10000."""
        if self.overrides.order is not None:
            return self.overrides.order
        code = experiment_code(self.path.name)
        return int(re.sub(r"\D", "", code)) if code else 10_000

    @functools.cached_property
    def order_key(self) -> tuple[str, int, str]:
        """Experiments sort by parent folder (a track, typically), then :attr:`order`, then id."""
        parent = self.id.rsplit("/", 1)[0] if "/" in self.id else ""
        return (parent, self.order, self.id)


@dataclass(frozen=True)
class Catalog:
    """The experiments found under the configured log roots."""

    roots: tuple[Path, ...]
    experiments: tuple[ExperimentRef, ...]
    """Sorted by parent folder, then ``rlmon.toml`` order, else the ``E<n>`` code, then by id."""
    ignored: tuple[str, ...] = ()
    """Paths of ``*.log``/``*.jsonl`` files without verl RL content."""
    problems: tuple[str, ...] = ()
    """Messages for a person (folders that cannot be listed, symlinks not followed, rlmon.toml errors...)."""
    root_configs: dict[str, RootConfig] = field(default_factory=dict)
    """Root path -> its parsed ``rlmon.toml``."""

    @property
    def ignored_files(self) -> int:
        return len(self.ignored)

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(ref.id for ref in self.experiments)

    def get(self, experiment_id: str) -> ExperimentRef:
        """The experiment with this id (or its URL-encoded form).

        Raises
        ------
        UnknownExperimentError
            No configured root holds it.
        """
        for ref in self.experiments:
            if ref.id == experiment_id or ref.url_id == experiment_id:
                return ref
        decoded = decode_experiment_id(experiment_id)
        for ref in self.experiments:
            if ref.id == decoded:
                return ref
        raise UnknownExperimentError(f"no experiment {experiment_id!r} under the configured log roots")


_CODE = re.compile(r"^([A-Za-z]{1,3})(\d{1,4})(?=$|[_\-. ])")


def experiment_code(folder_name: str) -> str | None:
    """The short code at the start of a folder name: ``e2_dapo_4b`` -> ``E2``; None when there is none."""
    match = _CODE.match(folder_name)
    if match is None:
        return None
    return match.group(1).upper() + match.group(2)


def encode_experiment_id(experiment_id: str) -> str:
    """Percent-encode an id for a URL path or query value (``e 1/中`` -> ``e%201%2F%E4%B8%AD``)."""
    return quote(experiment_id, safe="")


def decode_experiment_id(text: str) -> str:
    """Inverse of :func:`encode_experiment_id`."""
    return unquote(text)


# -------------------------------------------------------------------------------------------- name times

_NAME_TIMES = (
    re.compile(r"(?<!\d)(\d{4})(\d{2})(\d{2})[_\-T.]?(\d{2})(\d{2})(\d{2})(?!\d)"),
    re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})[_T ](\d{2})[:\-.](\d{2})[:\-.](\d{2})(?!\d)"),
)


def name_timestamp(name: str) -> datetime | None:
    """The timestamp in a log file name: ``train_20260716_021500.log`` -> 2026-07-16 02:15:00.

    Also ``2026-07-16_02-15-00``. Returns None when the name holds no valid date and time.
    """
    for pattern in _NAME_TIMES:
        for match in pattern.finditer(name):
            try:
                year, month, day, hour, minute, second = (int(part) for part in match.groups())
                if year < 1990:
                    continue
                return datetime(year, month, day, hour, minute, second)
            except ValueError:
                continue
    return None


# ------------------------------------------------------------------------------------------------- sniff

_ANSI = re.compile(rb"\x1b\[[0-9;?]*[ -/]*[@-~]")
_RL_MARKERS = re.compile(
    rb"\{'actor_rollout_ref'|Total training steps|verl\.trainer\.main_ppo|main_dapo|Training Progress:"
    rb"|\((?:main_task|TaskRunner|TaskRunnerV1) pid=\d+\)"
    rb"|step:\d+ - [^\n]*(?:actor/|critic/|timing_s/|timing/|val-core/|val/test_score/|training/)"
)
_SFT_MARKERS = re.compile(rb"step:\d+ - (?:train|val)/loss:|fsdp_sft_trainer")
_JSONL_STEP = re.compile(rb'^\s*\{\s*"step"\s*:\s*-?\d+\s*,\s*"data"\s*:\s*\{', re.MULTILINE)
_JSONL_RL_KEY = re.compile(rb'"(?:actor|critic|timing_s|val-core|training|response_length)/')
_JSONL_SFT_KEY = re.compile(rb'"(?:train|val)/loss"')


def sniff_log_head(head: bytes, *, suffix: str = ".log") -> HeadKind:
    """Tell from the first bytes of a file whether it is a verl RL log (pure).

    Parameters
    ----------
    head
        Up to :data:`HEAD_BYTES` from the start of the file.
    suffix
        ``.jsonl`` for verl's file logger (``{"step": N, "data": {...}}`` per line), else a console log.

    Returns
    -------
    ``"rl"``, ``"sft"`` (verl's SFT trainer) or ``"none"``.
    """
    if suffix == ".jsonl":
        if not _JSONL_STEP.search(head):
            return "none"
        # SFT only on the SFT trainer's own keys: a record too long for the head (thousands of keys) is not
        # an SFT log because its RL keys lie past it
        return "sft" if _JSONL_SFT_KEY.search(head) and not _JSONL_RL_KEY.search(head) else "rl"
    text = _ANSI.sub(b"", head)
    if _RL_MARKERS.search(text):
        return "rl"
    if _SFT_MARKERS.search(text):
        return "sft"
    return "none"


class _SniffMemo:
    """Remembers verdicts per file so a refresh re-reads only new or changed files.

    A file whose head shows verl output keeps that verdict while it grows (its head does not change);
    other verdicts are keyed on size and mtime too. When the head shows nothing (a long preamble of
    install output, say) and the file is longer than the head, its last :data:`HEAD_BYTES` are sniffed too.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_identity: dict[tuple[str, int], HeadKind] = {}
        self._by_version: dict[tuple[str, int, int, int], HeadKind] = {}

    def kind(self, path: Path, info: os.stat_result) -> HeadKind:
        identity = (str(path), info.st_ino)
        version = (str(path), info.st_ino, info.st_size, info.st_mtime_ns)
        with self._lock:
            known = self._by_identity.get(identity) or self._by_version.get(version)
        if known is not None:
            return known
        suffix = path.suffix.lower()
        with path.open("rb") as handle:
            head = handle.read(HEAD_BYTES)
            verdict = sniff_log_head(head, suffix=suffix)
            from_head = verdict == "rl" and len(head) >= HEAD_BYTES
            if verdict == "none" and info.st_size > HEAD_BYTES:
                handle.seek(max(HEAD_BYTES, info.st_size - HEAD_BYTES))
                tail = handle.read(HEAD_BYTES)
                # The tail may start mid-line; drop the partial first line.
                verdict = sniff_log_head(tail[tail.find(b"\n") + 1 :], suffix=suffix)
        with self._lock:
            if len(self._by_version) + len(self._by_identity) > 100_000:
                self._by_version.clear()
                self._by_identity.clear()
            if from_head:
                self._by_identity[identity] = verdict
            else:
                self._by_version[version] = verdict
        return verdict


_SNIFF = _SniffMemo()


# --------------------------------------------------------------------------------------------- discovery

FULL_WALK_S = 300.0
"""Discovery lists every folder of a root again at least this often (seconds). In between, a folder is listed
again only when its modification or change time moved (an entry was added, removed or renamed in it, or its
permissions changed), when it holds symlinks (their targets may change without the folder changing) or when
it changed in the last :data:`RECENT_CHANGE_S`. The log files found are stat'ed on every discovery, so a
growing log is seen at once."""

RECENT_CHANGE_S = 2.0
"""A folder modified this recently is listed again on the next discovery: a file system's clock is coarse
(and a network file system's may differ from ours), so a second change in the same tick would not move the
folder's time."""

_MAX_MEMO_ROOTS = 16

_EntryKind = Literal["problem", "folder", "file"]


@dataclass(frozen=True, slots=True)
class _Listing:
    """What listing one folder gave, in name order: ``(kind, path, text)`` per entry that matters.

    ``problem`` entries carry the message in ``text``; ``file`` entries (a ``*.log``/``*.jsonl`` name, not yet
    stat'ed) carry the file name; ``folder`` entries carry nothing. Other files are left out.
    """

    signature: tuple[int, int, int, int]
    """``(st_dev, st_ino, st_mtime_ns, st_ctime_ns)`` of the folder when it was listed."""
    entries: tuple[tuple[_EntryKind, str, str], ...]
    reusable: bool
    """False when the folder must be listed again next time (symlinks, problems, a recent change)."""


@dataclass
class _RootMemo:
    """The folder listings of one root from its last discovery; one discovery of a root at a time."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    listings: dict[str, _Listing] = field(default_factory=dict)
    logs: dict[str, tuple[tuple[int, int, int], LogFile]] = field(default_factory=dict)
    """The log files of the last discovery by path, with the ``(st_ino, st_size, st_mtime_ns)`` they were found
    with: a file found as it was is the same :class:`LogFile` again (no sniff, no name parsed)."""
    refs: dict[str, ExperimentRef] = field(default_factory=dict)
    """The experiments of the last discovery by folder path: one found with the same files (the same
    :class:`LogFile` objects) and settings is the same :class:`ExperimentRef` again."""
    full_walk_at: float | None = None
    """``time.monotonic()`` of the last discovery that listed every folder."""


_ROOT_MEMOS: dict[tuple[str, str], _RootMemo] = {}
_ROOT_MEMOS_LOCK = threading.Lock()


def _root_memo(root: Path, real_root: str) -> _RootMemo:
    """The memo of one root, shared by every caller (one server serves all sessions from it)."""
    key = (str(root), real_root)
    with _ROOT_MEMOS_LOCK:
        memo = _ROOT_MEMOS.pop(key, None) or _RootMemo()
        _ROOT_MEMOS[key] = memo  # most recently used last
        while len(_ROOT_MEMOS) > _MAX_MEMO_ROOTS:
            del _ROOT_MEMOS[next(iter(_ROOT_MEMOS))]
        return memo


@dataclass
class _Walk:
    root: Path
    real_root: str
    known: dict[str, _Listing] = field(default_factory=dict)
    """Listings from the previous discovery, by folder path; reused while the folder's signature holds."""
    listings: dict[str, _Listing] = field(default_factory=dict)
    """Listings of this discovery (the folders reached), for the next one."""
    known_logs: dict[str, tuple[tuple[int, int, int], LogFile]] = field(default_factory=dict)
    """The log files of the previous discovery (:attr:`_RootMemo.logs`)."""
    logs: dict[str, tuple[tuple[int, int, int], LogFile]] = field(default_factory=dict)
    """The log files of this discovery, for the next one."""
    problems: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    folders: dict[str, list[LogFile]] = field(default_factory=dict)
    """The log files of each folder that has some, by folder path."""
    visited: set[tuple[int, int]] = field(default_factory=set)


def _inside(real_path: str, real_root: str) -> bool:
    return real_path == real_root or real_path.startswith(real_root.rstrip(os.sep) + os.sep)


def _list_folder(walk: _Walk, folder: str, signature: tuple[int, int, int, int]) -> _Listing | None:
    """List one folder (``os.scandir``); None, with a problem, when it cannot be listed."""
    try:
        with os.scandir(folder) as listing:
            entries = sorted(listing, key=lambda entry: entry.name)
    except OSError as error:
        walk.problems.append(f"{folder}: cannot be listed ({error.strerror or error}); skipped")
        return None
    kept: list[tuple[_EntryKind, str, str]] = []
    has_links = False
    for entry in entries:
        if entry.name.startswith("."):
            continue
        path = entry.path
        try:
            if not entry.is_symlink():
                # d_type from the listing: no stat for folders and for files that are not logs
                if entry.is_dir(follow_symlinks=False):
                    kept.append(("folder", path, ""))
                elif os.path.splitext(entry.name)[1].lower() in LOG_SUFFIXES:
                    kept.append(("file", path, entry.name))
                continue
            has_links = True
            target = os.path.realpath(path)
            if not _inside(target, walk.real_root):
                kept.append(("problem", path, f"{path}: symlink to {target}, outside the log root; not followed"))
                continue
            if not os.path.exists(target):
                try:
                    os.stat(path)
                except OSError as error:
                    if error.errno == errno.ELOOP:
                        kept.append(("problem", path, f"{path}: symlink loop; not followed"))
                        continue
                kept.append(("problem", path, f"{path}: broken symlink (target {target} is missing); skipped"))
                continue
            mode = entry.stat(follow_symlinks=True).st_mode
        except OSError as error:
            if error.errno == errno.ELOOP:
                kept.append(("problem", path, f"{path}: symlink loop; not followed"))
            else:
                kept.append(("problem", path, f"{path}: cannot be read ({error.strerror or error}); skipped"))
            continue
        if stat.S_ISDIR(mode):
            kept.append(("folder", path, ""))
        elif os.path.splitext(entry.name)[1].lower() in LOG_SUFFIXES:
            kept.append(("file", path, entry.name))
    recent = time.time_ns() - signature[2] < RECENT_CHANGE_S * 1e9  # a future time counts as recent too
    reusable = not has_links and not recent and all(kind != "problem" for kind, _, _ in kept)
    return _Listing(signature=signature, entries=tuple(kept), reusable=reusable)


def _walk(walk: _Walk, folder: str, depth: int, *, recurse: bool = True) -> None:
    try:
        info = os.stat(folder)
    except OSError as error:
        walk.problems.append(f"{folder}: cannot be read ({error.strerror or error}); skipped")
        return
    identity = (info.st_dev, info.st_ino)
    if identity in walk.visited:
        walk.problems.append(f"{folder}: symlink loop (folder already visited); not followed")
        return
    walk.visited.add(identity)
    if depth > _MAX_DEPTH:
        walk.problems.append(f"{folder}: more than {_MAX_DEPTH} folder levels deep; not searched")
        return
    signature = (info.st_dev, info.st_ino, info.st_mtime_ns, info.st_ctime_ns)
    listing = walk.known.get(folder)
    if listing is None or not listing.reusable or listing.signature != signature:
        listing = _list_folder(walk, folder, signature)
        if listing is None:
            return
    walk.listings[folder] = listing
    logs: list[LogFile] = []
    for kind, path, text in listing.entries:
        if kind == "problem":
            walk.problems.append(text)
        elif kind == "folder":
            if recurse:
                _walk(walk, path, depth + 1)
        else:
            log = _log_file(walk, path, text)
            if log is not None:
                logs.append(log)
    if logs:
        walk.folders[folder] = sorted(logs, key=lambda item: item.sort_key)


def _log_file(walk: _Walk, path: str, name: str) -> LogFile | None:
    """Stat and sniff one ``*.log``/``*.jsonl`` entry (every discovery: size and mtime are always fresh)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        walk.problems.append(f"{path}: vanished while being listed; skipped")
        return None
    except OSError as error:
        if error.errno == errno.ELOOP:
            walk.problems.append(f"{path}: symlink loop; not followed")
        else:
            walk.problems.append(f"{path}: cannot be read ({error.strerror or error}); skipped")
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    version = (info.st_ino, info.st_size, info.st_mtime_ns)
    known = walk.known_logs.get(path)
    if known is not None and known[0] == version:
        walk.logs[path] = known
        return known[1]
    try:
        kind = _SNIFF.kind(Path(path), info)
    except FileNotFoundError:
        walk.problems.append(f"{path}: vanished while being listed; skipped")
        return None
    except OSError as error:
        walk.problems.append(f"{path}: cannot be read ({error.strerror or error}); skipped")
        return None
    if kind != "rl":
        walk.ignored.append(path)
        if kind == "sft":
            walk.problems.append(f"{path}: a verl SFT trainer log, not an RL run; ignored")
        return None
    log = LogFile(path=Path(path), name=name, size=info.st_size, mtime=info.st_mtime, named_time=name_timestamp(name))
    walk.logs[path] = (version, log)
    return log


def _walk_root(root: Path, real_root: str, *, full_walk_s: float) -> tuple[_Walk, _RootMemo]:
    """Walk one root, reusing the listings of unchanged folders from its previous walk (see :data:`FULL_WALK_S`);
    the walk and the root's memo."""
    memo = _root_memo(root, real_root)
    with memo.lock:
        now = time.monotonic()
        full = memo.full_walk_at is None or now - memo.full_walk_at >= full_walk_s
        walk = _Walk(root=root, real_root=real_root, known={} if full else memo.listings, known_logs=memo.logs)
        _walk(walk, str(root), 0)
        memo.listings = walk.listings  # folders no longer reached are forgotten
        memo.logs = walk.logs  # and files no longer found
        if full:
            memo.full_walk_at = now
    return walk, memo


def _root_labels(roots: Sequence[Path]) -> list[str]:
    labels: list[str] = []
    for root in roots:
        base = root.resolve().name or "root"
        label = base
        count = 2
        while label in labels:
            label = f"{base}~{count}"
            count += 1
        labels.append(label)
    return labels


def discover_experiments(roots: Sequence[Path], *, full_walk_s: float = FULL_WALK_S) -> Catalog:
    """List the experiments under the given log roots.

    Discovery is incremental: the folder listings of each root are kept (one memo per root, shared by every
    caller and thread) and a folder is listed again only when it changed; every folder is listed again at
    least every ``full_walk_s`` seconds. The log files found are stat'ed on every call, so their sizes and
    times are always current.

    Parameters
    ----------
    roots
        Log root folders (``Settings.log_roots``).
    full_walk_s
        Longest time between two discoveries that list every folder (:data:`FULL_WALK_S`); 0 lists every
        folder on this call.

    Returns
    -------
    Catalog
        Experiments sorted by order; problems and ignored files collected, never raised.

    Raises
    ------
    CatalogError
        A root does not exist, is not a folder or cannot be listed (the message names it).
    """
    experiments: list[ExperimentRef] = []
    problems: list[str] = []
    ignored: list[str] = []
    configs: dict[str, RootConfig] = {}
    labels = _root_labels(roots)
    for root, label in zip(roots, labels, strict=True):
        if not root.exists():
            raise CatalogError("log root does not exist", path=root)
        if not root.is_dir():
            raise CatalogError("log root is not a folder", path=root)
        if not os.access(root, os.R_OK | os.X_OK):
            raise CatalogError("log root cannot be listed (permission denied)", path=root)
        walk, memo = _walk_root(root, os.path.realpath(root), full_walk_s=full_walk_s)
        known_refs = memo.refs
        refs: dict[str, ExperimentRef] = {}
        config = read_root_config(root)
        configs[str(root)] = config
        problems.extend(config.problems)
        problems.extend(walk.problems)
        ignored.extend(walk.ignored)
        known: set[str] = set()
        for folder, files in walk.folders.items():
            before = known_refs.get(folder)
            path = before.path if before is not None else Path(folder)
            relative = before.relative if before is not None else path.relative_to(root).as_posix()
            known.add(relative)
            if relative == ".":
                experiment_id = label
            elif len(roots) > 1:
                experiment_id = f"{label}/{relative}"
            else:
                experiment_id = relative
            overrides = config.for_experiment(relative)
            if (
                before is not None
                and before.id == experiment_id
                and before.root == root
                and before.overrides == overrides
                and len(before.files) == len(files)
                and all(old is new for old, new in zip(before.files, files, strict=True))
            ):
                ref = before  # found as it was: the same object (its order worked out once)
            else:
                ref = ExperimentRef(
                    id=experiment_id, root=root, path=path, relative=relative, files=tuple(files), overrides=overrides
                )
            refs[folder] = ref
            experiments.append(ref)
        memo.refs = refs
        for name in config.experiments:
            if name not in known:
                problems.append(f"{config.path}: [experiments.{name}] matches no experiment folder under {root}")
        if not walk.folders:
            problems.append(f"{root}: no verl logs found under this log root")
    experiments.sort(key=lambda ref: ref.order_key)
    return Catalog(
        roots=tuple(roots),
        experiments=tuple(experiments),
        ignored=tuple(ignored),
        problems=tuple(problems),
        root_configs=configs,
    )


def list_log_files(folder: Path) -> tuple[Path, ...]:
    """The verl log files directly in one folder, oldest first (timestamp in the name, else mtime).

    Files without verl RL content and non-log files are left out. Raises :class:`CatalogError` when the
    folder cannot be listed.
    """
    if not folder.is_dir():
        raise CatalogError("not a folder", path=folder)
    walk = _Walk(root=folder, real_root=os.path.realpath(folder))
    _walk(walk, str(folder), 0, recurse=False)
    if str(folder) not in walk.folders and walk.problems and walk.problems[0].startswith(f"{folder}: cannot"):
        raise CatalogError(walk.problems[0].removeprefix(f"{folder}: "), path=folder)
    return tuple(item.path for item in walk.folders.get(str(folder), []))
