"""Command line: ``python -m rlmon ...`` (installed as ``rlmon``).

Exit codes (every error is one line on stderr naming the path, never a traceback):

- 0: done.
- 2: the command cannot start. A usage error (argparse's own; an ``--out`` with an unsupported suffix, or in a
  missing or unwritable folder - checked before anything is read; a ``demo`` target that is not a folder; a
  ``report`` output inside a log root, or an experiment or track the roots do not hold; for ``watch``, an alert
  target apprise cannot use, or none at all, or a log root that is not a folder), or
  an input that is missing, unreadable, not a regular file or folder, or holds no verl logs (a log root or an
  experiment folder without any).
- 1: the command failed while working: the output could not be written (disk full...), any other
  :class:`~rlmon.errors.RlmonError` or operating-system error.
- 130: interrupted (Ctrl-C).

Object storage: a log root or experiment folder given as ``s3://bucket/prefix`` is synced into its mirror in
the cache folder first (:mod:`rlmon.sources.objstore`; only what changed since the last run travels), and every path
printed reads as its ``s3://`` URL. A bucket that is missing, denied or unreachable is exit code 2 with one line
naming it, unless an earlier run mirrored it: then that copy is used with a warning saying when it was synced.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import logging
import os
import signal
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from rlmon.analysis.groups import BAND_KINDS
from rlmon.errors import CatalogError, LogReadError, RlmonError, SettingError, UnknownExperimentError
from rlmon.logs.cache import LogCache, read_logs
from rlmon.roots import ObjectRoot, is_object_url, parse_object_url
from rlmon.runs.axes import X_AXES
from rlmon.runs.loading import describe_root
from rlmon.settings import load_settings
from rlmon.sources.discovery import LOG_SUFFIXES, discover_experiments, list_log_files
from rlmon.sources.objstore import PublicPaths, RootSyncer, public_paths
from rlmon.text.display import public_text, terminal_text

__all__ = ["OUT_SUFFIXES", "main"]

OUT_SUFFIXES = (".parquet", ".csv")


class _UsageError(RlmonError):
    """The command cannot start as asked (exit code 2)."""


_CANNOT_START = (_UsageError, LogReadError, CatalogError)
"""Errors that mean the command cannot start: a usage error, or an input it cannot use (exit code 2)."""


def _cache_folder(args: argparse.Namespace) -> Path:
    cache_dir = getattr(args, "cache_dir", None)
    return Path(cache_dir) if cache_dir else load_settings([], os.environ).cache_dir


def _cache(args: argparse.Namespace) -> LogCache:
    """The cache named by ``--cache-dir``, else the app's own (``RLMON_CACHE_DIR`` or the user's cache dir)."""
    cache = LogCache(_cache_folder(args), max_keys=load_settings([], os.environ).max_keys)
    args.cache_in_use = cache  # main() reports a cache that could not be written
    return cache


def _file_kind(mode: int) -> str:
    kinds = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
             (stat.S_ISBLK, "a block device"))  # fmt: skip
    return next((name for test, name in kinds if test(mode)), "a special file")


def _input_file(path: Path) -> Path:
    """A log file named on the command line, checked before any parsing: a regular file that opens."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise LogReadError("no such file or folder", path=path) from None
    except OSError as error:
        raise LogReadError(f"cannot be read ({error.strerror or error})", path=path) from error
    if not stat.S_ISREG(mode):
        # never opened: opening a FIFO would wait for a writer
        raise LogReadError(f"not a regular file ({_file_kind(mode)})", path=path)
    try:
        with path.open("rb"):
            pass
    except OSError as error:
        raise LogReadError(f"cannot read: {error.strerror or error}", path=path) from error
    return path


def _log_files(inputs: Sequence[str]) -> list[Path]:
    """Files named on the command line; a folder stands for the verl logs directly inside it, in name order."""
    files: list[Path] = []
    for item in inputs:
        path = Path(item)
        if path.is_dir():
            found = list_log_files(path)
            if not found:
                raise LogReadError("no verl .log or .jsonl files in this folder", path=path)
            files.extend(found)
        else:
            files.append(_input_file(path))
    return files


def _check_out(out: Path, suffixes: Sequence[str] = OUT_SUFFIXES) -> None:
    """Fail before any parsing when ``--out`` cannot be written: its suffix, its folder, permissions."""
    names = " or ".join(suffixes)
    if out.is_dir():
        raise _UsageError(f"--out is a folder; give a file name ending in {names}", path=out)
    if out.suffix.lower() not in suffixes:
        raise _UsageError(f"--out must end in {names}", path=out)
    folder = out.parent
    if not folder.exists():
        raise _UsageError(f"cannot write {out.name}: folder {folder} does not exist", path=out)
    if not folder.is_dir():
        raise _UsageError(f"cannot write {out.name}: {folder} is not a folder", path=out)
    # Trying is the only reliable test (root, ACLs, read-only mounts all fool os.access).
    try:
        if out.exists():
            with out.open("r+b"):  # opened for writing, not truncated: the file stays as it is
                pass
        else:
            with tempfile.NamedTemporaryFile(dir=folder, prefix=".rlmon-check-"):
                pass
    except OSError as error:
        raise _UsageError(f"cannot be written ({error.strerror or error})", path=out) from error


def _write_frame(frame: pl.DataFrame, out: Path) -> None:
    try:
        if out.suffix.lower() == ".parquet":
            frame.write_parquet(out)
        else:
            frame.write_csv(out)
    except (OSError, pl.exceptions.PolarsError) as error:
        raise RlmonError(f"cannot write: {error}", path=out) from error


def _without_verl_output(path: Path) -> str:
    """Why a file named on the command line gave nothing: it holds no verl output, and is binary data when its
    first bytes hold a NUL byte or are not text."""
    try:
        with path.open("rb") as handle:
            head = handle.read(4096)
    except OSError:
        head = b""
    binary = b"\0" in head or head.decode("utf-8", errors="replace").count("\ufffd") > len(head) // 10
    return "no verl output in it (binary data)" if binary else "no verl output in it"


def _verl_files(files: Sequence[Path], cache: LogCache) -> list[Path]:
    """The ``files`` that hold verl output (a config dump, a step line...); the others are named in a warning.
    None holding any is an error naming the first (exit code 2): a binary file is not a run of 0 steps."""
    kept = [path for path in files if cache.read(path).meta.kind != "none"]
    if not kept:
        raise LogReadError(_without_verl_output(files[0]), path=files[0])
    for path in files:
        if path not in kept:
            print(f"warning: {path}: {_without_verl_output(path)}; left out", file=sys.stderr)
    return kept


def _step_span(steps: int, first: int | None, last: int | None) -> str:
    """``120 steps (1–120)``; ``0 steps`` while a run has logged none."""
    return f"{steps} steps ({first}–{last})" if steps and first is not None else f"{steps} steps"


def _cmd_parse(args: argparse.Namespace) -> int:
    out = Path(args.out)
    _check_out(out)
    cache = _cache(args)
    files = _verl_files(_log_files(args.logs), cache)
    parsed = read_logs(files, cache=cache)
    _write_frame(parsed.steps, out)
    meta = parsed.meta
    span = _step_span(parsed.steps.height, meta.first_step, meta.last_step)
    print(f"{out}: {span}, {parsed.steps.width - 1} keys from {len(files)} file(s)")
    for warning in meta.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return 0


def _file_info(path: Path, cache: LogCache) -> dict[str, Any]:
    parsed = cache.read(path)
    info: dict[str, Any] = {"path": str(path), "steps": parsed.steps.height, "keys": parsed.steps.width - 1}
    info.update(parsed.meta.to_json_dict())
    return info


def _cmd_info(args: argparse.Namespace) -> int:
    cache = _cache(args)
    paths = [Path(item) for item in args.logs]
    for path in paths:
        if not path.exists():
            raise LogReadError("no such file or folder", path=path)
    if len(paths) == 1 and paths[0].is_dir() and _looks_like_root(paths[0]):
        return _root_info(paths[0], cache, as_json=args.json)
    files = _log_files(args.logs)
    infos = [_file_info(path, cache) for path in files]
    if args.json:
        print(json.dumps(infos if len(infos) > 1 else infos[0], indent=2, ensure_ascii=False, default=str))
        return 0
    for info in infos:
        if info["kind"] == "none":  # said, not an error: an empty log may be a run that has not written yet
            print(f"{info['path']}: {_without_verl_output(Path(info['path']))}")
            continue
        config_note = "config dump" if info["config"] else "no config dump"
        span = _step_span(info["steps"], info["first_step"], info["last_step"]) if info["steps"] else "no step lines"
        print(f"{info['path']}: {info['kind']}, {span},")
        print(f"  {info['keys']} keys, total steps {info['total_steps']}, {config_note}")
        if info["resume_steps"]:
            print(f"  resumed at step {', '.join(str(step) for step in info['resume_steps'])}")
        if info["failure"]:
            print(f"  failed (line {info['failure_line']}): {info['failure']}")
        if info["final_validation"]:
            print("  finished: final validation printed")
    return 0


def _looks_like_root(folder: Path) -> bool:
    """A folder whose log files sit in subfolders (a log root), rather than an experiment folder."""
    try:
        with os.scandir(folder) as entries:
            return not any(os.path.splitext(entry.name)[1] in LOG_SUFFIXES and entry.is_file() for entry in entries)
    except OSError as error:
        raise CatalogError(f"cannot be listed ({error.strerror or error})", path=folder) from error


def _require_logs(root: Path) -> None:
    """Raise (exit code 2) when a log root is missing or holds no verl logs, rather than print nothing."""
    catalog = discover_experiments([root])
    if catalog.experiments:
        return
    ignored = catalog.ignored_files
    without = f" ({ignored} .log/.jsonl file(s) without verl RL content)" if ignored else ""
    raise CatalogError(f"no verl logs found under this folder{without}", path=root)


def _root_info(root: Path, cache: LogCache, *, as_json: bool) -> int:
    _require_logs(root)
    described = describe_root([root], cache)
    if as_json:
        print(json.dumps(described, indent=2, ensure_ascii=False, default=str))
        return 0
    for experiment in described["experiments"]:
        print(f"{experiment['id']}: {experiment['name']} · {experiment['status']} · {experiment['progress']}")
    for problem in described["problems"]:
        print(f"warning: {problem}", file=sys.stderr)
    return 0


def _cmd_watch(args: argparse.Namespace) -> int:
    from rlmon.alerts import Watcher, check_targets
    from rlmon.alerts.watcher import LOG as ALERT_LOG

    env = dict(os.environ)
    if args.refresh_s is not None:
        env["RLMON_REFRESH_S"] = str(args.refresh_s)
    if args.lang is not None:
        env["RLMON_LANGUAGE"] = args.lang
    if args.cache_dir:
        env["RLMON_CACHE_DIR"] = args.cache_dir
    try:
        settings = load_settings([], env)
    except SettingError as error:
        raise _UsageError(error.reason) from None
    roots: list[Path | ObjectRoot] = []
    for item in args.roots:
        try:
            roots.append(parse_object_url(item) if is_object_url(item) else Path(item))
        except SettingError as error:
            raise _UsageError(error.reason) from None
    roots = roots or list(settings.log_roots)
    if not roots:
        raise _UsageError("give a log root (or set RLMON_LOG_ROOT)")
    for root in roots:
        # a root without logs yet is watched all the same: its first runs are what the team waits for
        if isinstance(root, Path) and not root.is_dir():
            raise CatalogError("log root does not exist or is not a folder", path=root)
    if args.notify:
        urls, origin = list(args.notify), "--notify"
    else:
        urls, origin = list(settings.alert_targets), "RLMON_ALERT_TARGETS"
    targets, problems = check_targets(urls, origin)
    if problems:
        raise _UsageError(problems[0] + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""))
    watcher = Watcher(
        roots, settings=settings, cache=_cache(args), targets=targets, dry_run=args.dry_run,
        printer=lambda text: print(text, flush=True),
    )  # fmt: skip
    if not targets and not args.dry_run and not watcher.has_root_targets():
        raise _UsageError(
            "no alert target: give --notify URL, set RLMON_ALERT_TARGETS, or list targets in a root's rlmon.toml "
            "[alerts] (or try --dry-run)"
        )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("rlmon watch %(asctime)s %(message)s", "%Y-%m-%d %H:%M:%S"))
    ALERT_LOG.addHandler(handler)
    ALERT_LOG.setLevel(logging.INFO)
    ALERT_LOG.propagate = False
    shown = ", ".join(target.shown for target in targets) or "the roots' rlmon.toml targets"
    what = "printing what would be sent" if args.dry_run else f"sending to {shown}"
    ALERT_LOG.info("watching %s every %d s, %s", ", ".join(map(str, roots)), settings.refresh_s, what)
    try:
        if args.once:
            watcher.cycle()
            return 0
        stop = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        watcher.run(stop)
        return 0
    finally:
        watcher.close()
        ALERT_LOG.removeHandler(handler)


def _cmd_demo(args: argparse.Namespace) -> int:
    from rlmon.demo import write_demo_root

    target = Path(args.dir)
    if target.exists() and not target.is_dir():
        raise _UsageError("not a folder; give a folder to write the demo log root into", path=target)
    root = write_demo_root(target)
    print(f"demo log root written to {root}")
    return 0


def _cmd_summary(args: argparse.Namespace) -> int:
    from rlmon.analysis.summary import summary_for_root

    root = Path(args.root)
    _require_logs(root)  # raises too when the root is missing or not a folder
    text = summary_for_root([root], lang=args.lang, as_json=args.json, cache=_cache(args))
    print(text)
    return 0


def _cmd_samples(args: argparse.Namespace) -> int:
    from rlmon.logs.samples import SampleCache, filter_samples, read_samples, to_text

    target = Path(args.log)
    files = _log_files([args.log])
    folder = target if target.is_dir() else target.parent
    cache = _cache(args)
    config = next((meta.config for meta in (cache.read(path).meta for path in files) if meta.config), None)
    sample_cache = SampleCache(cache.cache_dir)
    settings = load_settings([], os.environ)
    # dump folders are read inside the experiment's folder, the log roots and the dump roots (the app's rule)
    allowed = [folder, *(root for root in settings.log_roots if isinstance(root, Path)), *settings.dump_roots]
    allowed += [Path(item) for item in args.dump_root or []]
    found = read_samples(files, folder=folder, config=config, cache=sample_cache, allowed=allowed)
    for refused in found.refused:
        print(
            f"warning: dump folder outside the log roots: {refused} is not read; add it with --dump-root or "
            "RLMON_DUMP_ROOT",
            file=sys.stderr,
        )
    for problem in found.problems:
        print(f"warning: {problem}", file=sys.stderr)
    samples = filter_samples(found.frame, step=args.step)
    if args.json:
        records = [{**row, "extra": json.loads(row["extra"])} for row in samples.iter_rows(named=True)]
        print(json.dumps(records, indent=2, ensure_ascii=False))
        return 0
    if samples.is_empty():
        at = f" at step {args.step}" if args.step is not None else ""
        print(f"{target}: no samples{at} (no [prompt]/[response] prints, no generation dumps found)")
        return 0
    print(to_text(samples), end="")
    return 0


def _outside_roots(path: Path, roots: Sequence[Path], option: str) -> None:
    """rlmon never writes into log folders: an output inside a log root is a usage error."""
    target = path.resolve()
    for root in roots:
        if target == root.resolve() or target.is_relative_to(root.resolve()):
            raise _UsageError(f"{option} is inside the log root {root}; rlmon never writes into log folders", path=path)


def _cmd_report(args: argparse.Namespace) -> int:
    from rlmon.analysis.smoothing import Smoothing
    from rlmon.views import report

    roots = [Path(item) for item in args.roots]
    out = Path(args.out) if args.out else None
    images = Path(args.png) if args.png else None
    if out is None and images is None:
        raise _UsageError("give --out FILE.html, --png DIR, or both")
    for root in roots:
        _require_logs(root)  # raises too when the root is missing or not a folder
    if out is not None:
        _check_out(out, (".html", ".htm"))
        _outside_roots(out, roots, "--out")
    if images is not None:
        if images.exists() and not images.is_dir():
            raise _UsageError("--png is not a folder", path=images)
        _outside_roots(images, roots, "--png")
    settings = load_settings([], os.environ)
    method = {"ma": "moving_average"}.get(args.smoothing, args.smoothing)
    try:
        smoothing = Smoothing(method, weight=args.weight, window=args.window)
    except RlmonError as error:
        raise _UsageError(error.reason) from None
    options = report.ReportOptions(
        lang=args.lang,
        smoothing=smoothing,
        metrics=tuple(args.metric) if args.metric else None,
        x=args.x,
        max_points=settings.max_points,
        band=args.band,
    )
    try:
        selection = report.read_selection(
            roots, experiment_ids=args.exp or (), track=args.track, settings=settings, cache=_cache(args)
        )
    except (report.ReportError, UnknownExperimentError) as error:  # asked for what the roots do not hold
        raise _UsageError(error.reason, path=error.path) from None
    insights = report.report_insights(selection.views, settings, args.lang)
    if out is not None:
        numbers = {view.id: report.report_numbers(view) for view in selection.views}
        text = report.render_report(
            selection.views,
            numbers=numbers,
            insights=insights,
            options=options,
            problems=selection.problems,
            paths=args.public_paths,
        )
        _write_text(text, out)
        count = len(selection.views)
        print(f"{out}: report on {count} experiment(s), {len(text.encode('utf-8')) / 1e6:.1f} MB")
    if images is not None:
        found = report.report_charts(selection.views, insights=insights, options=options)
        written = report.write_chart_images(found, images)
        print(f"{images}: {len(written)} chart images (PNG and SVG)")
    return 0


def _write_text(text: str, out: Path) -> None:
    """Write through a temporary file in the same folder: a reader never sees half a report."""
    try:
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=out.parent, prefix=".rlmon-", delete=False) as f:
            f.write(text)
        os.replace(f.name, out)
    except OSError as error:
        raise RlmonError(f"cannot write: {error.strerror or error}", path=out) from error


_INPUTS = ("logs", "log", "root", "roots")
"""The arguments that name logs, experiment folders or log roots: each may be an ``s3://`` URL."""


def _mirror_inputs(args: argparse.Namespace) -> PublicPaths:
    """Replace every ``s3://`` input by its mirror folder in the cache folder, synced now; returns those folders
    with their URLs (empty when no input was on object storage).

    A root whose sync fails but that was mirrored before is used as it was then, with a warning; one that was
    never mirrored is an error that names it.
    """
    roots: list[ObjectRoot] = []
    for name in _INPUTS:
        value = getattr(args, name, None)
        items = value if isinstance(value, list) else [value]
        mirrored: list[Any] = []
        for item in items:
            if not isinstance(item, str) or not is_object_url(item):
                mirrored.append(item)
                continue
            try:
                root = parse_object_url(item)
            except SettingError as error:
                raise _UsageError(error.reason) from None
            roots.append(root)
            result = RootSyncer(_cache_folder(args), refresh_s=0).sync(root)
            if result.error is not None and not result.usable:
                raise result.error
            if result.error is not None and result.synced_at is not None:
                synced = time.strftime("%Y-%m-%d %H:%M", time.localtime(result.synced_at))
                print(f"rlmon: warning: {result.error.describe()}; using the copy synced at {synced}", file=sys.stderr)
            mirrored.append(str(result.mirror))
        setattr(args, name, mirrored if isinstance(value, list) else mirrored[0])
    return public_paths(_cache_folder(args), roots)


class _PublicText(io.TextIOBase):
    """A text stream that writes mirror folder paths as their ``s3://`` URLs, and bidi control characters as
    their escapes (:func:`rlmon.text.display.terminal_text`: a name holding U+202E must not read backwards)."""

    def __init__(self, stream: Any, paths: PublicPaths) -> None:
        self._stream = stream
        self._paths = paths

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self._stream.write(terminal_text(public_text(text, self._paths)))
        return len(text)

    def flush(self) -> None:
        self._stream.flush()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rlmon", description="Read and summarise verl RL training logs.")
    sub = parser.add_subparsers(dest="command", required=True)

    def add_cache(command: argparse.ArgumentParser) -> None:
        command.add_argument("--cache-dir", help="cache folder (default: the app's, RLMON_CACHE_DIR or ~/.cache/rlmon)")

    parse = sub.add_parser("parse", help="write the merged per-step table of logs as Parquet or CSV")
    parse.add_argument("logs", nargs="+", help="log files (one experiment, in order) or an experiment folder")
    parse.add_argument("--out", required=True, help="output file, .parquet or .csv")
    add_cache(parse)
    parse.set_defaults(run=_cmd_parse)

    info = sub.add_parser("info", help="print what logs (or a log root) say about their runs")
    info.add_argument("logs", nargs="+", help="log files, an experiment folder, or a log root")
    info.add_argument("--json", action="store_true", help="print JSON")
    add_cache(info)
    info.set_defaults(run=_cmd_info)

    demo = sub.add_parser("demo", help="write the demo log root into DIR")
    demo.add_argument("dir")
    demo.set_defaults(run=_cmd_demo)

    summary = sub.add_parser("summary", help="print the written summary and the run-health signals of a root")
    summary.add_argument("root")
    summary.add_argument("--lang", choices=["en", "zh"], default="en")
    summary.add_argument("--json", action="store_true")
    add_cache(summary)
    summary.set_defaults(run=_cmd_summary)

    samples = sub.add_parser("samples", help="print what the model wrote: the prompt/response prints and dumps")
    samples.add_argument("log", help="a log file or an experiment folder")
    samples.add_argument("--step", type=int, help="only the samples of this step")
    samples.add_argument("--json", action="store_true", help="print JSON")
    samples.add_argument(
        "--dump-root", action="append", metavar="DIR",
        help="a folder outside the experiment's folder and the log roots whose generation dumps may be read "
        "(repeatable; also RLMON_DUMP_ROOT)",
    )  # fmt: skip
    add_cache(samples)
    samples.set_defaults(run=_cmd_samples)
    report = sub.add_parser(
        "report", help="write a single-file HTML report (opens offline) and/or PNG and SVG images of its charts"
    )
    report.add_argument("roots", nargs="+", metavar="ROOT", help="log root(s)")
    report.add_argument(
        "--exp", action="append", metavar="ID", help="an experiment id (repeatable; see 'rlmon info ROOT')"
    )
    report.add_argument("--track", help="every experiment of this track (default: the track the app opens on)")
    report.add_argument("--lang", choices=["en", "zh"], default="en")
    report.add_argument("--smoothing", choices=["ema", "ma", "none"], default="ema", help="default: ema")
    report.add_argument("--weight", type=float, default=0.6, help="EMA weight in [0, 1) (default 0.6)")
    report.add_argument("--window", type=int, default=5, help="moving-average window in steps (default 5)")
    report.add_argument(
        "--metric", action="append", metavar="KEY", help="a comparison chart (repeatable; default: the app's)"
    )
    report.add_argument("--x", choices=list(X_AXES), default="step", help="x axis (default: step)")
    report.add_argument(
        "--band", choices=list(BAND_KINDS), default="std",
        help="band of each group of repeats: std (mean ± 1 standard deviation, the default) or minmax",
    )  # fmt: skip
    report.add_argument("--out", help="the report, a .html file")
    report.add_argument("--png", metavar="DIR", help="also write every chart as PNG and SVG into DIR")
    add_cache(report)
    report.set_defaults(run=_cmd_report)

    watch = sub.add_parser(
        "watch", help="watch log roots and send alerts (crashes, stalls, NaN/inf, signals, finished runs)"
    )
    watch.add_argument("roots", nargs="*", metavar="ROOT", help="log root(s) (default: RLMON_LOG_ROOT)")
    watch.add_argument(
        "--notify", action="append", metavar="URL",
        help="an apprise URL to send to (repeatable; default: RLMON_ALERT_TARGETS)",
    )  # fmt: skip
    watch.add_argument("--dry-run", action="store_true", help="print what would be sent; send and write nothing")
    watch.add_argument("--once", action="store_true", help="one refresh, then exit")
    watch.add_argument("--lang", choices=["en", "zh"], help="the messages' language (default: RLMON_LANGUAGE or en)")
    watch.add_argument("--refresh-s", type=int, help="seconds between refreshes (default: RLMON_REFRESH_S or 30)")
    add_cache(watch)
    watch.set_defaults(run=_cmd_watch)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (see the module docstring)."""
    args = build_parser().parse_args(argv)
    with contextlib.ExitStack() as outputs:
        return _run(args, outputs)


def _run(args: argparse.Namespace, outputs: contextlib.ExitStack) -> int:
    args.public_paths = paths = PublicPaths()
    try:
        if args.command != "watch":  # the watcher syncs its s3:// roots at every refresh itself
            args.public_paths = paths = _mirror_inputs(args)
        outputs.enter_context(contextlib.redirect_stdout(_PublicText(sys.stdout, paths)))
        outputs.enter_context(contextlib.redirect_stderr(_PublicText(sys.stderr, paths)))
        code: int = args.run(args)
    except RlmonError as error:
        print(f"rlmon: {terminal_text(public_text(error.describe(), paths))}", file=sys.stderr)
        return 2 if isinstance(error, _CANNOT_START) else 1
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("rlmon: interrupted", file=sys.stderr)
        return 130
    except OSError as error:  # the environment failing (a full disk under the cache folder...), not a bug
        where = f"{error.filename}: " if error.filename else ""
        print(f"rlmon: {where}{error.strerror or error}", file=sys.stderr)
        return 1
    cache: LogCache | None = getattr(args, "cache_in_use", None)
    if cache is not None and cache.write_problem:
        # the results are right; the cache only saves the next run a parse
        print(f"rlmon: warning: {cache.write_problem}; the next run parses again", file=sys.stderr)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
