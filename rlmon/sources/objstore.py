"""Log roots on object storage (S3 and S3-compatible stores): a local mirror kept in the cache folder.

Everything else in rlmon reads local files (discovery, the per-log cache, samples, reports). An object-storage
root ``s3://bucket/prefix`` is served by mirroring the objects discovery would take into the cache folder and
handing that mirror folder to the rest of rlmon as an ordinary log root.

Mirror layout: ``<cache_dir>/objects/<digest of the root url>/`` holds the mirror root ``<name>/`` (``name``:
the last part of the prefix, else the bucket, so the root gets the same label a local folder of that name
would), and beside it, outside the root, ``meta/`` (one JSON file per object: the key, size and ETag the
mirror copy matches) and ``locks/`` (one lock file per object).

:func:`sync_root` brings a mirror up to date with one listing of the prefix. It keeps ``*.log``/``*.jsonl``
objects (the suffixes discovery takes) and ``rlmon.toml`` at the root; for each one, under a per-object
``fcntl.flock`` (several app processes may share one cache folder):

* same size and ETag as the mirror copy: nothing is fetched;
* larger, with the mirror copy intact: ONE ranged GET from :data:`OVERLAP_BYTES` before the mirrored size to
  the end; when the returned overlap equals the mirror's last bytes the object was appended to, and only the
  new bytes are appended to the mirror file (in place: the parser cache then reads only those bytes);
* otherwise (new, smaller, overlap differs, same size with another ETag): downloaded whole to a temporary
  name and renamed over the mirror copy (a new inode: the parser cache parses it afresh).

The GETs carry ``If-Match`` with the listed ETag: an object rewritten between the listing and the read is
left for the next sync instead of being mirrored half old, half new. Each mirror file gets the object's
last-modified time, so a run's "stalled" status follows the object, not the sync. An object missing from a
successful listing has its mirror copy removed; when the listing fails, the mirror stays as it was and
:class:`SyncResult` says why (:class:`~rlmon.errors.ObjectStoreError` with a :attr:`kind`).

:func:`public_paths` names each mirror folder's ``s3://`` URL (:class:`PublicPaths`, a value built from the cache
folder and the configured roots); what shows text to a person takes it and writes the URL in place of the folder
(:func:`rlmon.text.display.display_text`).

The client is ``obstore`` (Rust ``object_store``), imported only when an object-storage root is used. It takes
credentials and endpoint from the standard places: ``AWS_ACCESS_KEY_ID``/``AWS_SECRET_ACCESS_KEY``/
``AWS_SESSION_TOKEN``, ``AWS_REGION``, ``AWS_ENDPOINT_URL`` (S3-compatible stores), and - when ``boto3`` is
installed - ``~/.aws/config`` and ``~/.aws/credentials`` (profiles, SSO, assumed roles) through boto3's
credential chain, and the profile's ``endpoint_url`` when ``AWS_ENDPOINT_URL`` is not set.

"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from rlmon.errors import ObjectStoreError
from rlmon.roots import ObjectRoot, safe_part
from rlmon.sources.discovery import LOG_SUFFIXES
from rlmon.sources.rlmon_toml import CONFIG_NAME

if TYPE_CHECKING:
    from obstore import GetOptions

__all__ = [
    "OVERLAP_BYTES",
    "PublicPaths",
    "RootSyncer",
    "SyncResult",
    "SyncStats",
    "classify_error",
    "last_synced",
    "mirror_folder",
    "open_store",
    "public_paths",
    "sync_root",
]

OVERLAP_BYTES = 4096
"""Bytes before the mirrored size fetched again with an append, to check the object was only appended to."""
_CHUNK_BYTES = 8 * 1024 * 1024

ErrorKind = Literal["missing_bucket", "denied", "unreachable", "failed"]


# ---------------------------------------------------------------------------------------------------- mirror


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]


def _base(cache_dir: Path, root: ObjectRoot) -> Path:
    # absolute: the parser cache and discovery name files by absolute path, and PublicPaths must find it there
    return Path(os.path.abspath(cache_dir)) / "objects" / _digest(root.url)


def mirror_folder(cache_dir: Path, root: ObjectRoot) -> Path:
    """The local folder that mirrors ``root`` (discovery runs on it as on any log root)."""
    return _base(cache_dir, root) / root.name


@dataclass(frozen=True)
class PublicPaths(Mapping[str, str]):
    """Mirror folder -> the ``s3://`` URL of the root it mirrors: what a person is shown in place of the folder
    (:func:`rlmon.text.display.display_text` and :func:`~rlmon.text.display.public_text` take it).

    Immutable and hashable (a cache key); iterates the longest folder first, so that a folder inside another
    one's path is replaced whole. Build it with :func:`public_paths`.
    """

    folders: tuple[tuple[str, str], ...] = ()
    """(mirror folder, URL) pairs, longest folder first."""

    def __getitem__(self, folder: str) -> str:
        for known, url in self.folders:
            if known == folder:
                return url
        raise KeyError(folder)

    def __iter__(self) -> Iterator[str]:
        return (folder for folder, _ in self.folders)

    def __len__(self) -> int:
        return len(self.folders)


def public_paths(cache_dir: Path, roots: Iterable[Path | ObjectRoot]) -> PublicPaths:
    """The mirror folder of every object-storage root among ``roots`` (local folders are shown as they are) in
    ``cache_dir``, with its URL. Pure: nothing is read or created.

    >>> from rlmon.roots import parse_object_url
    >>> paths = public_paths(Path("/cache"), [Path("/data/runs"), parse_object_url("s3://runs/team/verl")])
    >>> [(folder.endswith("/verl"), url) for folder, url in paths.items()]
    [(True, 's3://runs/team/verl')]
    """
    found = {str(mirror_folder(cache_dir, root)): root.url for root in roots if isinstance(root, ObjectRoot)}
    return PublicPaths(tuple(sorted(found.items(), key=lambda item: -len(item[0]))))


# ---------------------------------------------------------------------------------------------------- client


def open_store(root: ObjectRoot) -> Any:
    """An ``obstore`` S3 store for ``root``'s bucket, configured from the standard places (module docstring).

    Retries are few and timeouts short so that an endpoint that is down costs a refresh seconds, not minutes.
    """
    from obstore.store import S3Store

    options: dict[str, Any] = {
        "client_options": {"allow_http": True, "connect_timeout": "3s", "timeout": "600s"},
        "retry_config": {"max_retries": 2, "retry_timeout": timedelta(seconds=10)},
    }
    provider = _boto3_provider()
    if provider is not None:
        options["credential_provider"] = provider
    if not (os.environ.get("AWS_ENDPOINT_URL") or os.environ.get("AWS_ENDPOINT_URL_S3")):
        endpoint = _profile_endpoint()
        if endpoint:
            options["endpoint"] = endpoint
    return S3Store(root.bucket, **options)


def _profile_endpoint() -> str | None:
    """The ``endpoint_url`` of the active ``~/.aws/config`` profile (its ``s3`` section's first, as the AWS
    SDKs read it) when boto3 is installed; None otherwise (obstore reads ``AWS_ENDPOINT_URL`` itself)."""
    try:
        import botocore.session
    except ImportError:
        return None
    try:
        config = botocore.session.Session().get_scoped_config()
    except Exception:  # a broken ~/.aws file or an unknown profile: the listing then says what is wrong
        return None
    service = config.get("s3")
    nested = service.get("endpoint_url") if isinstance(service, dict) else None
    value = nested or config.get("endpoint_url")
    return value if isinstance(value, str) and value.strip() else None


def _boto3_provider() -> Any:
    """boto3's credential chain (environment, ``~/.aws`` profiles, SSO, roles) when boto3 is installed and finds
    credentials; None otherwise (obstore then reads the environment itself)."""
    try:
        import boto3
        from obstore.auth.boto3 import Boto3CredentialProvider
    except ImportError:
        return None
    try:
        session = boto3.Session()
        if session.get_credentials() is None:
            return None
        return Boto3CredentialProvider(session)
    except Exception:  # a broken ~/.aws file: fall back to the environment, the listing then says what is wrong
        return None


def classify_error(error: BaseException, *, root: ObjectRoot) -> ObjectStoreError:
    """An ``obstore`` exception as an :class:`ObjectStoreError` with a kind and a short reason for a person."""
    text = str(error)
    name = type(error).__name__
    kind: ErrorKind
    if "NoSuchBucket" in text:
        kind, reason = "missing_bucket", f"bucket {root.bucket} does not exist"
    elif (
        name in ("PermissionDeniedError", "UnauthenticatedError")
        or "403 Forbidden" in text
        or any(code in text for code in ("AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch"))
    ):
        kind, reason = "denied", "access denied (check the credentials and the bucket policy)"
    elif any(
        word in text.lower()
        for word in ("error sending request", "connection refused", "timed out", "dns error", "connect error")
    ):
        kind, reason = "unreachable", "endpoint not reachable"
    elif "credential" in text.lower():
        kind, reason = "denied", "no usable credentials (environment, ~/.aws)"
    elif name == "InvalidPathError" and (found := re.search(r'Path "([^"]*)"', text)):
        # object_store reads no key with an empty, "." or ".." part, and such a key breaks the whole listing
        kind = "failed"
        reason = (
            f"the object name {found.group(1)!r} has an empty, '.' or '..' part, which the S3 client cannot "
            "read; rename or remove that object (the other logs of this root wait until then)"
        )
    else:
        first = text.strip().splitlines()[0] if text.strip() else name
        kind, reason = "failed", f"{name}: {first[:200]}"
    return ObjectStoreError(reason, path=root.url, kind=kind)


# ------------------------------------------------------------------------------------------------------ sync


@dataclass
class SyncStats:
    """What one sync moved over the network."""

    listed: int = 0
    """Objects kept from the listing."""
    downloaded: int = 0
    """Objects fetched whole."""
    appended: int = 0
    """Objects read with a ranged GET and appended to."""
    unchanged: int = 0
    removed: int = 0
    bytes_fetched: int = 0
    """Body bytes received (overlaps included)."""
    skipped: list[str] = field(default_factory=list)
    """Keys left out, with why: ``<key>: <why>`` (unsafe names, objects changed while being read)."""


@dataclass(frozen=True)
class SyncResult:
    """The state of one object-storage root after a sync attempt."""

    root: ObjectRoot
    mirror: Path
    """The mirror root folder (may not exist when no sync ever succeeded)."""
    synced_at: float | None
    """Wall time of the last successful sync (None: never)."""
    error: ObjectStoreError | None = None
    """Why the last attempt failed; the mirror then holds the data of :attr:`synced_at`."""
    failing_since: float | None = None
    """Wall time of the first failed attempt of the current run of failures."""
    stats: SyncStats | None = None

    @property
    def usable(self) -> bool:
        """The mirror holds data from some successful sync."""
        return self.synced_at is not None and self.mirror.is_dir()

    @property
    def stale(self) -> bool:
        return self.error is not None and self.usable


def _wanted(key: str, root: ObjectRoot) -> str | None:
    """The key relative to the root when discovery would take it, else None."""
    relative = key[len(root.key_prefix) :]
    if relative == CONFIG_NAME:
        return relative
    if os.path.splitext(relative)[1].lower() not in LOG_SUFFIXES:
        return None
    return relative


def _relative_path(relative: str) -> Path | None:
    parts = relative.split("/")
    if not all(safe_part(part) for part in parts) or len(parts) > 32:
        return None
    return Path(*parts)


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _read_meta(path: Path) -> dict[str, Any] | None:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(value, dict) or not isinstance(value.get("size"), int) or not isinstance(value.get("key"), str):
        return None
    return value


def _write_json(path: Path, value: Mapping[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent, prefix=".tmp-", delete=False) as handle:
        json.dump(value, handle)
    os.replace(handle.name, path)


def _set_mtime(path: Path, meta: Mapping[str, Any]) -> None:
    modified = meta.get("last_modified")
    if modified is not None:
        stamp = modified.timestamp()
        os.utime(path, (stamp, stamp))


def _download(store: Any, key: str, target: Path, etag: str | None, stats: SyncStats) -> Any:
    import obstore

    target.parent.mkdir(parents=True, exist_ok=True)
    result = obstore.get(store, key, options={"if_match": etag} if etag else {})
    # a dot name: discovery skips it while it is being written
    with tempfile.NamedTemporaryFile("wb", dir=target.parent, prefix=".part-", delete=False) as handle:
        try:
            for chunk in result.stream(min_chunk_size=_CHUNK_BYTES):
                handle.write(chunk)
                stats.bytes_fetched += len(chunk)
        except BaseException:
            handle.close()
            os.unlink(handle.name)
            raise
    os.replace(handle.name, target)
    return result.meta


def _append(store: Any, key: str, target: Path, mirrored: int, size: int, etag: str | None, stats: SyncStats) -> bool:
    """Fetch ``[mirrored - overlap, size)`` once; append the new bytes when the overlap matches. False: rewritten.

    The answer is streamed: the overlap is compared first, and nothing is written when it differs. A read that
    fails half-way takes the written part back, so the copy stays a prefix of the object.
    """
    import obstore

    start = max(0, mirrored - OVERLAP_BYTES)
    overlap = mirrored - start
    options: GetOptions = {"range": (start, size)}
    if etag:
        options["if_match"] = etag
    result = obstore.get(store, key, options=options)
    with open(target, "r+b") as handle:
        handle.seek(start)
        expected = handle.read(overlap)
        head = b""
        written = 0
        try:
            for chunk in result.stream(min_chunk_size=_CHUNK_BYTES):
                stats.bytes_fetched += len(chunk)
                data = bytes(chunk)
                if len(head) < overlap:
                    need = overlap - len(head)
                    head, data = head + data[:need], data[need:]
                    if len(head) < overlap:
                        continue
                    if head != expected:
                        return False
                    handle.seek(mirrored)
                handle.write(data)
                written += len(data)
        except BaseException:
            handle.truncate(mirrored)
            raise
        if len(head) != overlap or mirrored + written != size:
            handle.truncate(mirrored)
            return False
    return True


def _sync_object(
    store: Any, base: Path, mirror: Path, item: tuple[str, Path, Mapping[str, Any]], stats: SyncStats
) -> str:
    """Bring one object's mirror copy up to date; returns what was done."""
    from obstore.exceptions import NotFoundError, PreconditionError

    key, relative, listed = item
    digest = _digest(key)
    meta_path = base / "meta" / f"{digest}.json"
    target = mirror / relative
    size, etag = int(listed["size"]), listed.get("e_tag")
    with _locked(base / "locks" / f"{digest}.lock"):
        known = _read_meta(meta_path)
        try:
            mirrored = target.stat().st_size if target.is_file() else None
        except OSError:
            mirrored = None
        intact = known is not None and known["key"] == key and mirrored == known["size"]
        try:
            if intact and mirrored == size and known is not None and known.get("etag") == etag:
                return "unchanged"
            if (
                intact
                and mirrored is not None
                and 0 < mirrored < size
                and _append(store, key, target, mirrored, size, etag, stats)
            ):
                _set_mtime(target, listed)
                _write_json(meta_path, {"key": key, "size": size, "etag": etag})
                return "appended"
            _download(store, key, target, etag, stats)
        except (PreconditionError, NotFoundError):
            # changed or deleted since the listing: the next sync takes it as it is then
            stats.skipped.append(f"{key}: changed while being read; taken at the next refresh")
            return "skipped"
        except (NotADirectoryError, IsADirectoryError, FileExistsError):
            # "a.log" and "a.log/b.log" both exist: a file system holds only one of them
            stats.skipped.append(f"{key}: its name clashes with another object's folder; skipped")
            return "skipped"
        _set_mtime(target, listed)
        _write_json(meta_path, {"key": key, "size": size, "etag": etag})
        return "downloaded"


def _remove_vanished(base: Path, mirror: Path, root: ObjectRoot, present: set[str], stats: SyncStats) -> None:
    meta_folder = base / "meta"
    if not meta_folder.is_dir():
        return
    for meta_path in meta_folder.glob("*.json"):
        known = _read_meta(meta_path)
        if known is None or known["key"] in present:
            continue
        relative = _relative_path(known["key"][len(root.key_prefix) :])
        with _locked(base / "locks" / f"{meta_path.stem}.lock"):
            if relative is not None:
                with contextlib.suppress(FileNotFoundError):
                    (mirror / relative).unlink()
            meta_path.unlink(missing_ok=True)
        stats.removed += 1


def sync_root(root: ObjectRoot, cache_dir: Path, *, store: Any = None) -> SyncStats:
    """Bring the mirror of ``root`` in ``cache_dir`` up to date with one listing (module docstring).

    Parameters
    ----------
    root
        The object-storage root.
    cache_dir
        The cache folder; the mirror is :func:`mirror_folder`.
    store
        An ``obstore`` store for the bucket (default: :func:`open_store`).

    Returns
    -------
    SyncStats

    Raises
    ------
    ObjectStoreError
        The listing failed (missing bucket, denied access, endpoint down...) or the mirror cannot be written
        (kind ``failed``, the cache folder named). The mirror is left as it was.
    """
    import obstore

    mirror = mirror_folder(cache_dir, root)
    base = mirror.parent
    try:
        mirror.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ObjectStoreError(
            f"the cache folder {cache_dir} cannot hold this root's mirror ({error.strerror or error})",
            path=root.url,
            kind="failed",
        ) from None
    if store is None:
        store = open_store(root)
    stats = SyncStats()
    try:
        listing: list[tuple[str, Path, Mapping[str, Any]]] = []
        for batch in obstore.list(store, root.key_prefix or None, chunk_size=1000):
            for meta in batch:
                key = str(meta["path"])
                if not key.startswith(root.key_prefix):
                    continue
                wanted = _wanted(key, root)
                if wanted is None or any(part.startswith(".") for part in wanted.split("/")):
                    continue  # not a log, or under a dot folder: discovery would skip it too
                relative = _relative_path(wanted)
                if relative is None:
                    stats.skipped.append(f"{key}: not a usable file name; skipped")
                    continue
                listing.append((key, relative, meta))
        stats.listed = len(listing)
        present = {key for key, _, _ in listing}
        for item in listing:
            done = _sync_object(store, base, mirror, item, stats)
            if done == "downloaded":
                stats.downloaded += 1
            elif done == "appended":
                stats.appended += 1
            elif done == "unchanged":
                stats.unchanged += 1
        _remove_vanished(base, mirror, root, present, stats)
        _write_json(base / "synced.json", {"url": root.url, "at": time.time()})
    except ObjectStoreError:
        raise
    except OSError as error:
        raise ObjectStoreError(
            f"this root's mirror in the cache folder {cache_dir} cannot be written ({error.strerror or error})",
            path=root.url,
            kind="failed",
        ) from None
    except Exception as error:
        # obstore raises its own exception classes (and builtins for bad configuration)
        raise classify_error(error, root=root) from None
    return stats


def last_synced(cache_dir: Path, root: ObjectRoot) -> float | None:
    """Wall time of the last successful sync of ``root``'s mirror by any process sharing the cache folder."""
    try:
        value = json.loads((_base(cache_dir, root) / "synced.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    at = value.get("at") if isinstance(value, dict) else None
    return float(at) if isinstance(at, int | float) else None


class RootSyncer:
    """Process-wide, throttled syncs of object-storage roots, shared by every session and thread.

    One sync per root at a time; a sync within ``refresh_s`` of the last attempt is skipped and the last result
    returned.
    """

    def __init__(self, cache_dir: Path, *, refresh_s: float, clock: Any = time.time) -> None:
        self.cache_dir = cache_dir
        self.refresh_s = refresh_s
        self._clock = clock
        self._lock = threading.Lock()
        self._root_locks: dict[str, threading.Lock] = {}
        self._results: dict[str, SyncResult] = {}
        self._attempted: dict[str, float] = {}
        self._stores: dict[str, Any] = {}

    def sync(self, root: ObjectRoot, *, force: bool = False) -> SyncResult:
        with self._lock:
            root_lock = self._root_locks.setdefault(root.url, threading.Lock())
        with root_lock:
            now = self._clock()
            last = self._results.get(root.url)
            if not force and last is not None and now - self._attempted.get(root.url, 0.0) < self.refresh_s:
                return last
            self._attempted[root.url] = now
            mirror = mirror_folder(self.cache_dir, root)
            synced_before = last.synced_at if last is not None else None
            if synced_before is None:
                synced_before = last_synced(self.cache_dir, root)
            try:
                store = self._stores.get(root.url)
                if store is None:
                    store = self._stores[root.url] = open_store(root)
                stats = sync_root(root, self.cache_dir, store=store)
            except ObjectStoreError as error:
                since = last.failing_since if last is not None and last.error is not None else None
                result = SyncResult(
                    root=root, mirror=mirror, synced_at=synced_before, error=error, failing_since=since or now
                )
            except Exception as error:  # obstore refusing its configuration (a malformed AWS_* value...)
                result = SyncResult(
                    root=root,
                    mirror=mirror,
                    synced_at=synced_before,
                    error=classify_error(error, root=root),
                    failing_since=now,
                )
            else:
                result = SyncResult(root=root, mirror=mirror, synced_at=now, stats=stats)
            self._results[root.url] = result
            return result
