"""Command line: ``python -m rlmon ...`` (installed as ``rlmon``).

Exit codes: 0 done; 2 an input is missing or unreadable (one line on stderr naming it); 1 any other
:class:`~rlmon.errors.RlmonError` (one line on stderr).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from rlmon.cache import LogCache, read_logs
from rlmon.catalog import LOG_SUFFIXES, describe_root, list_log_files
from rlmon.errors import LogReadError, RlmonError
from rlmon.settings import load_settings

__all__ = ["main"]


def _cache(args: argparse.Namespace) -> LogCache:
    """The cache named by ``--cache-dir``, else the app's own (``RLMON_CACHE_DIR`` or the user's cache dir)."""
    if args.cache_dir:
        return LogCache(Path(args.cache_dir))
    return LogCache(load_settings([], os.environ).cache_dir)


def _log_files(inputs: Sequence[str]) -> list[Path]:
    """Files named on the command line; a folder stands for the verl logs directly inside it, in name order."""
    files: list[Path] = []
    for item in inputs:
        path = Path(item)
        if not path.exists():
            raise LogReadError("no such file or folder", path=path)
        if path.is_dir():
            found = list_log_files(path)
            if not found:
                raise LogReadError("no .log or .jsonl files in this folder", path=path)
            files.extend(found)
        else:
            files.append(path)
    return files


def _write_frame(frame: pl.DataFrame, out: Path) -> None:
    suffix = out.suffix.lower()
    if suffix not in (".parquet", ".csv"):
        raise RlmonError("--out must end in .parquet or .csv", path=out)
    if not out.parent.is_dir():
        raise RlmonError(f"cannot write {out.name}: folder {out.parent} does not exist", path=out)
    try:
        if suffix == ".parquet":
            frame.write_parquet(out)
        else:
            frame.write_csv(out)
    except (OSError, pl.exceptions.PolarsError) as error:
        raise RlmonError(f"cannot write: {error}", path=out) from error


def _cmd_parse(args: argparse.Namespace) -> int:
    files = _log_files(args.logs)
    parsed = read_logs(files, cache=_cache(args))
    out = Path(args.out)
    _write_frame(parsed.steps, out)
    meta = parsed.meta
    print(
        f"{out}: {parsed.steps.height} steps ({meta.first_step}–{meta.last_step}), "
        f"{parsed.steps.width - 1} keys from {len(files)} file(s)"
    )
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
        config_note = "config dump" if info["config"] else "no config dump"
        span = f"{info['steps']} steps ({info['first_step']}–{info['last_step']})" if info["steps"] else "no step lines"
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
    has_direct = any(p.suffix in LOG_SUFFIXES and p.is_file() for p in folder.iterdir())
    return not has_direct


def _root_info(root: Path, cache: LogCache, *, as_json: bool) -> int:
    described = describe_root([root], cache)
    if as_json:
        print(json.dumps(described, indent=2, ensure_ascii=False, default=str))
    else:
        for experiment in described.get("experiments", []):
            print(f"{experiment['id']}: {experiment['label']} · {experiment['status']} · {experiment['progress']}")
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from rlmon.demo import write_demo_root

    root = write_demo_root(Path(args.dir))
    print(f"demo log root written to {root}")
    return 0


def _cmd_summary(args: argparse.Namespace) -> int:
    from rlmon.insights import summary_for_root

    text = summary_for_root([Path(args.root)], lang=args.lang, as_json=args.json, cache=_cache(args))
    print(text)
    return 0


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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    args = build_parser().parse_args(argv)
    try:
        code: int = args.run(args)
    except LogReadError as error:
        print(f"rlmon: {error.describe()}", file=sys.stderr)
        return 2
    except RlmonError as error:
        print(f"rlmon: {error.describe()}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
    return code


if __name__ == "__main__":
    raise SystemExit(main())
