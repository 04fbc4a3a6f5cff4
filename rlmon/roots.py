"""What a log-root setting names: a local folder, or an object-storage prefix ``s3://bucket/prefix``.

Pure parsing, no client: :mod:`rlmon.settings` reads roots with it, and :mod:`rlmon.sources.objstore` mirrors
the object roots it names.

>>> parse_object_url("s3://runs/team/verl/").url
's3://runs/team/verl'
>>> parse_object_url("s3://runs").name
'runs'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rlmon.errors import SettingError

__all__ = ["SCHEMES", "ObjectRoot", "is_object_url", "parse_object_url", "safe_part"]

SCHEMES = ("s3",)
_BUCKET = re.compile(r"^[a-z0-9][a-z0-9.\-_]{1,62}$")


@dataclass(frozen=True)
class ObjectRoot:
    """A log root on object storage: ``s3://bucket/prefix``."""

    scheme: str
    bucket: str
    prefix: str
    """Key prefix without leading or trailing ``/``; empty for the whole bucket."""

    @property
    def url(self) -> str:
        return f"{self.scheme}://{self.bucket}/{self.prefix}" if self.prefix else f"{self.scheme}://{self.bucket}"

    @property
    def name(self) -> str:
        """The last part of the prefix, else the bucket: the root's label, as a local folder's name is."""
        last = self.prefix.rsplit("/", 1)[-1] if self.prefix else self.bucket
        return last if safe_part(last) else self.bucket

    @property
    def key_prefix(self) -> str:
        """The prefix as listed: ``team/verl/`` (``""`` for the whole bucket)."""
        return self.prefix + "/" if self.prefix else ""

    def __str__(self) -> str:
        return self.url


def is_object_url(text: str) -> bool:
    """True for ``s3://...`` (any case of the scheme)."""
    scheme, sep, _ = text.strip().partition("://")
    return bool(sep) and scheme.lower() in SCHEMES


def parse_object_url(text: str) -> ObjectRoot:
    """``s3://bucket/prefix`` -> :class:`ObjectRoot`.

    Raises
    ------
    SettingError
        Not an ``s3://`` URL, or no valid bucket name.
    """
    scheme, sep, rest = text.strip().partition("://")
    if not sep or scheme.lower() not in SCHEMES:
        raise SettingError(f"{text!r} is not an object-storage URL (s3://bucket/prefix)")
    bucket, _, prefix = rest.partition("/")
    if not _BUCKET.match(bucket):
        raise SettingError(f"{text!r}: {bucket!r} is not a bucket name (3-63 lowercase letters, digits, '.', '-')")
    prefix = "/".join(part for part in prefix.split("/") if part)
    return ObjectRoot(scheme=scheme.lower(), bucket=bucket, prefix=prefix)


def safe_part(part: str) -> bool:
    """A key part that can be a file or folder name in the mirror (and that discovery would not skip)."""
    return bool(part) and not part.startswith(".") and "\x00" not in part and "\\" not in part and len(part) <= 255
