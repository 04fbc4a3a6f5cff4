"""Errors raised by rlmon.

Hierarchy::

    RlmonError                 every error rlmon raises on purpose; carries path and line when known
    ├── LogReadError           a log file cannot be opened or read (missing, permission, a directory)
    ├── CatalogError           a log root is missing or unreadable
    │   └── ObjectStoreError   an object-storage root cannot be listed or mirrored (``kind`` says why)
    ├── ConfigFileError        an ``rlmon.toml`` has an error (path and line)
    ├── UnknownExperimentError an experiment id that no configured root holds
    └── SettingError           a setting has a value it cannot take

Anything else escaping rlmon is a bug.
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "CatalogError",
    "ConfigFileError",
    "LogReadError",
    "ObjectStoreError",
    "RlmonError",
    "SettingError",
    "UnknownExperimentError",
]


class RlmonError(Exception):
    """Base class: a message for a person, plus the file and line it is about."""

    def __init__(self, reason: str, *, path: str | Path | None = None, line: int | None = None) -> None:
        self.reason = reason
        self.path = None if path is None else str(path)
        self.line = line
        super().__init__(self.describe())

    def describe(self) -> str:
        """One line: ``path:line: reason`` (parts that are unknown are left out)."""
        where = self.path or ""
        if where and self.line is not None:
            where = f"{where}:{self.line}"
        return f"{where}: {self.reason}" if where else self.reason


class LogReadError(RlmonError):
    """A log file cannot be read."""


class CatalogError(RlmonError):
    """A log root is missing or cannot be listed."""


class ObjectStoreError(CatalogError):
    """An object-storage root (``s3://...``) cannot be listed or mirrored.

    ``kind``: ``missing_bucket``, ``denied``, ``unreachable`` or ``failed`` (anything else).
    """

    def __init__(self, reason: str, *, path: str | Path | None = None, kind: str = "failed") -> None:
        self.kind = kind
        super().__init__(reason, path=path)


class ConfigFileError(RlmonError):
    """An ``rlmon.toml`` file has an error."""


class UnknownExperimentError(RlmonError):
    """No configured root holds this experiment id."""


class SettingError(RlmonError):
    """A setting has a value it cannot take."""
