"""Bytes -> per-step frames: the first room a log enters.

- :mod:`~rlmon.logs.lines`: line helpers every reader shares (splitting, complete lines, a file's mark, the ANSI,
  Ray-prefix and step-marker patterns).
- :mod:`~rlmon.logs.parse`: one verl console log or file-logger ``.jsonl`` -> a step frame (:mod:`rlmon.schema`)
  and what the log says of its run (:class:`~rlmon.schema.RunMeta`).
- :mod:`~rlmon.logs.cache`: a frame per log kept on disk, so that a refresh reads only what was appended;
  :func:`~rlmon.logs.cache.read_log` and :func:`~rlmon.logs.cache.read_logs` are the way in.
- :mod:`~rlmon.logs.locks` and :mod:`~rlmon.logs.checksum`: the cache's lock files and CRC-32 sums, so several
  processes can share one cache folder.
- :mod:`~rlmon.logs.samples`: the prompts, responses and scores a log prints or dumps (imported where samples are
  read, not here: most readers of a log never need it).
"""

from __future__ import annotations

from rlmon.logs.cache import LogCache, read_log, read_logs
from rlmon.logs.parse import ParsedLog, parse_log_bytes, parse_log_text

__all__ = [
    "LogCache",
    "ParsedLog",
    "parse_log_bytes",
    "parse_log_text",
    "read_log",
    "read_logs",
]
