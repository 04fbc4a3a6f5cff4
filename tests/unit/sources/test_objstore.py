"""Object-storage log roots against a real S3 protocol server on loopback (moto's ThreadedMotoServer).

Expected values come from the bytes each test uploads: step lines written here, sizes counted by hand.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import boto3
import pytest
from moto.core.authorization import enable_iam_authentication

from rlmon.errors import ObjectStoreError, SettingError
from rlmon.logs.cache import LogCache
from rlmon.roots import ObjectRoot, parse_object_url
from rlmon.settings import load_settings
from rlmon.sources import objstore
from rlmon.sources.discovery import discover_experiments
from rlmon.sources.objstore import OVERLAP_BYTES, RootSyncer, sync_root
from rlmon.text.display import public_text
from tests.helpers.objstore_server import S3Server, aws_environment, step_lines

_BUCKETS = itertools.count(1)


@pytest.fixture(scope="module")
def s3_server() -> Iterator[S3Server]:
    server = S3Server()
    server.start()
    yield server
    server.stop()


def set_s3_env(s3_server: S3Server, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> S3Server:
    for name, value in aws_environment(s3_server, tmp_path).items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    return s3_server


@pytest.fixture
def s3_env(s3_server: S3Server, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> S3Server:
    return set_s3_env(s3_server, monkeypatch, tmp_path)


@pytest.fixture
def bucket(s3_env: S3Server) -> str:
    name = f"runs-{os.getpid()}-{next(_BUCKETS)}"
    client(s3_env).create_bucket(Bucket=name)
    return name


def client(server: S3Server) -> object:
    return boto3.client("s3", endpoint_url=server.endpoint, region_name="us-east-1")


def put(server: S3Server, bucket: str, key: str, body: bytes) -> None:
    client(server).put_object(Bucket=bucket, Key=key, Body=body)  # type: ignore[attr-defined]


# --------------------------------------------------------------------------------------------- settings


def test_settings_take_s3_roots_mixed_with_folders_on_the_command_line() -> None:
    cli = ["--log-root", "/data/a", "--log-root", "s3://runs/team/verl/", "--log-root=S3://other"]
    roots = load_settings(cli, {}).log_roots
    assert roots == (Path("/data/a"), ObjectRoot("s3", "runs", "team/verl"), ObjectRoot("s3", "other", ""))
    assert [str(root) for root in roots] == ["/data/a", "s3://runs/team/verl", "s3://other"]


@pytest.mark.skipif(os.pathsep != ":", reason="the ':' separated list is the POSIX form")
def test_settings_take_s3_roots_in_the_environment_list() -> None:
    env = {"RLMON_LOG_ROOT": "/data/a:s3://runs/verl::/data/b:s3://logs-x"}
    assert load_settings([], env).log_roots == (
        Path("/data/a"),
        ObjectRoot("s3", "runs", "verl"),
        Path("/data/b"),
        ObjectRoot("s3", "logs-x", ""),
    )


@pytest.mark.parametrize("text", ["s3://", "s3:///prefix", "s3://UPPER/x", "s3://a/x"])
def test_settings_reject_a_url_without_a_bucket_name(text: str) -> None:
    with pytest.raises(SettingError, match="log_roots"):
        load_settings(["--log-root", text], {})


def test_root_name_is_the_last_prefix_part_else_the_bucket() -> None:
    assert parse_object_url("s3://runs/team/verl").name == "verl"
    assert parse_object_url("s3://runs").name == "runs"
    assert parse_object_url("s3://runs/a//b/").prefix == "a/b"
    assert parse_object_url("s3://runs/..").name == "runs"


# -------------------------------------------------------------------------------------------- discovery


def test_folders_holding_logs_become_experiments_and_rlmon_toml_is_honoured(
    s3_env: S3Server, bucket: str, cache_dir: Path
) -> None:
    put(s3_env, bucket, "verl/4B/e1_grpo/train_20260716_021500.log", step_lines(1, 3))
    put(s3_env, bucket, "verl/4B/e2_dapo/train.log", step_lines(1, 2))
    put(s3_env, bucket, "verl/4B/e2_dapo/notes.txt", b"not a log\n")
    put(s3_env, bucket, "verl/4B/e3/metrics.jsonl", b'{"step": 1, "data": {"actor/pg_loss": 0.5}}\n')
    put(s3_env, bucket, "verl/rlmon.toml", b'[experiments."4B/e2_dapo"]\nlabel = "E2 DAPO"\norder = 0\n')
    put(s3_env, bucket, "verl/4B/e9/.hidden/train.log", step_lines(1, 2))
    put(s3_env, bucket, "verlother/e1/train.log", step_lines(1, 2))  # shares the prefix text, not the folder
    root = parse_object_url(f"s3://{bucket}/verl")
    stats = sync_root(root, cache_dir)
    assert (stats.listed, stats.downloaded) == (4, 4)  # three logs + rlmon.toml; the dot folder is skipped
    assert stats.skipped == []
    mirror = objstore.mirror_folder(cache_dir, root)
    assert mirror.name == "verl" and mirror.is_relative_to(cache_dir / "objects")
    assert not (mirror / "4B" / "e2_dapo" / "notes.txt").exists()
    catalog = discover_experiments([mirror], full_walk_s=0)
    assert catalog.ids == ("4B/e2_dapo", "4B/e1_grpo", "4B/e3")  # rlmon.toml's order puts e2 first
    assert catalog.get("4B/e2_dapo").overrides.label == "E2 DAPO"
    assert (mirror / "4B" / "e1_grpo" / "train_20260716_021500.log").read_bytes() == step_lines(1, 3)


def test_a_key_the_client_cannot_read_is_named_and_the_last_good_mirror_stays(
    s3_env: S3Server, bucket: str, cache_dir: Path
) -> None:
    """S3 keys are any text; the client reads none with an empty or '..' part (``verl/e2//train.log``, as a
    sync to ``s3://bucket/verl//e2`` writes), and such a key breaks the root's whole listing: the message names
    it and says what to do, and what was mirrored before stays (no file is ever written outside the mirror)."""
    put(s3_env, bucket, "verl/e1/train.log", step_lines(1, 2))
    root = parse_object_url(f"s3://{bucket}/verl")
    assert sync_root(root, cache_dir).downloaded == 1
    put(s3_env, bucket, "verl/e1/train.log", step_lines(1, 3))
    put(s3_env, bucket, "verl/e2//train.log", step_lines(1, 2))
    with pytest.raises(ObjectStoreError, match=r"'verl/e2//train.log' has an empty, '\.' or '\.\.' part"):
        sync_root(root, cache_dir)
    mirror = objstore.mirror_folder(cache_dir, root)
    assert (mirror / "e1" / "train.log").read_bytes() == step_lines(1, 2)
    assert sorted(path.name for path in cache_dir.rglob("train.log")) == ["train.log"]


def test_an_object_whose_name_is_another_objects_folder_is_skipped(
    s3_env: S3Server, bucket: str, cache_dir: Path
) -> None:
    put(s3_env, bucket, "verl/e1.log", step_lines(1, 2))
    put(s3_env, bucket, "verl/e1.log/train.log", step_lines(1, 3))
    root = parse_object_url(f"s3://{bucket}/verl")
    stats = sync_root(root, cache_dir)
    assert (stats.listed, stats.downloaded) == (2, 1)
    assert stats.skipped == ["verl/e1.log/train.log: its name clashes with another object's folder; skipped"]
    assert (objstore.mirror_folder(cache_dir, root) / "e1.log").read_bytes() == step_lines(1, 2)


def test_a_mixed_list_of_a_local_folder_and_an_s3_root(
    s3_env: S3Server, bucket: str, cache_dir: Path, tmp_path: Path
) -> None:
    local = tmp_path / "nfs"
    (local / "e1").mkdir(parents=True)
    (local / "e1" / "train.log").write_bytes(step_lines(1, 2))
    put(s3_env, bucket, "cloud/e7/train.log", step_lines(1, 4))
    root = parse_object_url(f"s3://{bucket}/cloud")
    sync_root(root, cache_dir)
    catalog = discover_experiments([local, objstore.mirror_folder(cache_dir, root)], full_walk_s=0)
    assert catalog.ids == ("cloud/e7", "nfs/e1")


def test_mirror_paths_are_shown_as_s3_urls(s3_env: S3Server, bucket: str, cache_dir: Path) -> None:
    root = parse_object_url(f"s3://{bucket}/verl")
    mirror = objstore.mirror_folder(cache_dir, root)
    text = f"{mirror}/e1/train.log: line 3: cut short"
    paths = objstore.public_paths(cache_dir, [root])
    assert public_text(text, paths) == f"s3://{bucket}/verl/e1/train.log: line 3: cut short"


# ------------------------------------------------------------------------------------------- incremental


def test_an_append_fetches_only_the_new_bytes_and_the_overlap(
    s3_env: S3Server, bucket: str, cache_dir: Path, parsed_sizes: list[int]
) -> None:
    first = step_lines(1, 150)  # 150 lines of 74 or 75 bytes: over 4 KiB
    added = step_lines(151, 160, score=0.75)
    key = "verl/e1/train.log"
    put(s3_env, bucket, key, first)
    root = parse_object_url(f"s3://{bucket}/verl")
    sync_root(root, cache_dir)
    log = objstore.mirror_folder(cache_dir, root) / "e1" / "train.log"
    cache = LogCache(None)
    assert cache.read(log).steps.height == 150
    inode = log.stat().st_ino
    s3_env.take_requests()
    parsed_sizes.clear()

    put(s3_env, bucket, key, first + added)
    s3_env.take_requests()  # the upload itself
    stats = sync_root(root, cache_dir)
    requests = s3_env.take_requests()
    gets = [request for request in requests if request.method == "GET" and request.path.endswith(key)]
    assert len(gets) == 1
    start, end = len(first) - OVERLAP_BYTES, len(first) + len(added) - 1  # HTTP ranges end inclusive
    assert gets[0].range == f"bytes={start}-{end}"
    assert gets[0].sent == OVERLAP_BYTES + len(added)
    assert (stats.appended, stats.downloaded, stats.bytes_fetched) == (1, 0, OVERLAP_BYTES + len(added))
    assert log.stat().st_ino == inode and log.read_bytes() == first + added
    steps = cache.read(log).steps
    assert steps.height == 160 and steps["critic/score/mean"][-1] == 0.75
    assert parsed_sizes == [len(added)]  # the parser cache read only the appended bytes


def test_an_unchanged_object_is_not_fetched(s3_env: S3Server, bucket: str, cache_dir: Path) -> None:
    put(s3_env, bucket, "verl/e1/train.log", step_lines(1, 5))
    root = parse_object_url(f"s3://{bucket}/verl")
    sync_root(root, cache_dir)
    s3_env.take_requests()
    stats = sync_root(root, cache_dir)
    assert [request.method for request in s3_env.take_requests()] == ["GET"]  # the listing only
    assert (stats.unchanged, stats.bytes_fetched) == (1, 0)


@pytest.mark.parametrize("change", ["same size", "shorter", "longer, prefix differs"])
def test_a_rewritten_object_is_downloaded_whole_and_parsed_afresh(
    s3_env: S3Server, bucket: str, cache_dir: Path, change: str
) -> None:
    key = "verl/e1/train.log"
    original = step_lines(1, 80)
    put(s3_env, bucket, key, original)
    root = parse_object_url(f"s3://{bucket}/verl")
    sync_root(root, cache_dir)
    log = objstore.mirror_folder(cache_dir, root) / "e1" / "train.log"
    cache = LogCache(None)
    assert cache.read(log).steps["critic/score/mean"].to_list() == [0.5] * 80
    rewritten = {
        "same size": step_lines(1, 80, score=0.7),
        "shorter": step_lines(1, 40, score=0.7),
        "longer, prefix differs": step_lines(1, 90, score=0.7),
    }[change]
    assert (len(rewritten) == len(original)) == (change == "same size")
    put(s3_env, bucket, key, rewritten)
    s3_env.take_requests()
    stats = sync_root(root, cache_dir)
    gets = [request for request in s3_env.take_requests() if request.method == "GET" and request.path.endswith(key)]
    assert gets[-1].range is None and gets[-1].sent == len(rewritten)
    assert stats.downloaded == 1 and log.read_bytes() == rewritten
    rows = {"same size": 80, "shorter": 40, "longer, prefix differs": 90}[change]
    assert cache.read(log).steps["critic/score/mean"].to_list() == [0.7] * rows


def test_two_syncs_of_one_root_into_one_cache_folder_fetch_each_object_once(
    s3_env: S3Server, bucket: str, cache_dir: Path
) -> None:
    # Two app processes on one cache folder; here two threads, each with its own lock file handles, which
    # fcntl.flock treats as two owners just as it treats two processes.
    logs = {f"verl/e{index}/train.log": step_lines(1, 40 + index) for index in range(1, 7)}
    for key, body in logs.items():
        put(s3_env, bucket, key, body)
    root = parse_object_url(f"s3://{bucket}/verl")
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda _: sync_root(root, cache_dir), range(2)))
    assert sum(stats.downloaded for stats in results) == len(logs)
    assert sum(stats.bytes_fetched for stats in results) == sum(len(body) for body in logs.values())
    mirror = objstore.mirror_folder(cache_dir, root)
    for key, body in logs.items():
        assert (mirror / key.removeprefix("verl/")).read_bytes() == body
    assert not [path for path in mirror.rglob(".part-*")]


def test_an_object_gone_from_a_successful_listing_leaves_the_mirror(
    s3_env: S3Server, bucket: str, cache_dir: Path
) -> None:
    put(s3_env, bucket, "verl/e1/train.log", step_lines(1, 3))
    put(s3_env, bucket, "verl/e2/train.log", step_lines(1, 3))
    root = parse_object_url(f"s3://{bucket}/verl")
    sync_root(root, cache_dir)
    client(s3_env).delete_object(Bucket=bucket, Key="verl/e2/train.log")  # type: ignore[attr-defined]
    stats = sync_root(root, cache_dir)
    mirror = objstore.mirror_folder(cache_dir, root)
    assert stats.removed == 1
    assert (mirror / "e1" / "train.log").is_file() and not (mirror / "e2" / "train.log").exists()


# ------------------------------------------------------------------------------------------- credentials


def test_credentials_come_from_an_aws_profile_when_the_environment_has_none(
    s3_env: S3Server, bucket: str, cache_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    put(s3_env, bucket, "verl/e1/train.log", step_lines(1, 2))
    credentials = tmp_path / "aws-credentials"
    credentials.write_text("[team]\naws_access_key_id = AKIDFROMPROFILE\naws_secret_access_key = from-the-file\n")
    config = tmp_path / "aws-config"
    config.write_text("[profile team]\nregion = eu-west-1\n")
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION", "AWS_DEFAULT_REGION"):
        monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(credentials))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(config))
    monkeypatch.setenv("AWS_PROFILE", "team")
    root = parse_object_url(f"s3://{bucket}/verl")
    store = objstore.open_store(root)
    given = store.credential_provider()
    assert (given["access_key_id"], given["secret_access_key"]) == ("AKIDFROMPROFILE", "from-the-file")
    assert store.config["region"] == "eu-west-1"
    assert sync_root(root, cache_dir, store=store).downloaded == 1  # moto checks no signature unless told to


@pytest.mark.parametrize("nested", [False, True], ids=["profile", "s3 section"])
def test_the_endpoint_comes_from_the_aws_profile_when_the_environment_has_none(
    s3_env: S3Server, bucket: str, cache_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, nested: bool
) -> None:
    """An S3-compatible store named in ``~/.aws/config`` (``endpoint_url``, or under ``s3 =``) is reached
    without AWS_ENDPOINT_URL; without it the client would ask AWS itself, which loopback tests cannot reach."""
    pytest.importorskip("botocore")
    put(s3_env, bucket, "verl/e1/train.log", step_lines(1, 2))
    config = tmp_path / "aws-config"
    setting = f"s3 =\n    endpoint_url = {s3_env.endpoint}\n" if nested else f"endpoint_url = {s3_env.endpoint}\n"
    config.write_text(f"[profile team]\nregion = us-east-1\n{setting}")
    monkeypatch.delenv("AWS_ENDPOINT_URL")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(config))
    monkeypatch.setenv("AWS_PROFILE", "team")
    root = parse_object_url(f"s3://{bucket}/verl")
    assert sync_root(root, cache_dir).downloaded == 1


# ------------------------------------------------------------------------------------------------ faults


def test_a_missing_bucket_is_one_clear_error(s3_env: S3Server, cache_dir: Path) -> None:
    with pytest.raises(ObjectStoreError) as caught:
        sync_root(parse_object_url("s3://no-such-bucket-here/verl"), cache_dir)
    assert caught.value.kind == "missing_bucket"
    assert caught.value.describe() == "s3://no-such-bucket-here/verl: bucket no-such-bucket-here does not exist"


def test_a_cache_folder_that_cannot_be_written_is_named_for_that_root(
    s3_env: S3Server, bucket: str, tmp_path: Path
) -> None:
    not_a_folder = tmp_path / "cache"
    not_a_folder.write_text("a file where the cache folder should be\n")
    result = RootSyncer(not_a_folder, refresh_s=30).sync(parse_object_url(f"s3://{bucket}/verl"))
    assert result.error is not None and result.error.kind == "failed" and not result.usable
    assert result.error.describe() == (
        f"s3://{bucket}/verl: the cache folder {not_a_folder} cannot hold this root's mirror (Not a directory)"
    )


def test_denied_access_keeps_the_last_good_mirror_marked_stale(s3_env: S3Server, bucket: str, cache_dir: Path) -> None:
    put(s3_env, bucket, "verl/e1/train.log", step_lines(1, 3))
    root = parse_object_url(f"s3://{bucket}/verl")
    clock = iter([1000.0, 2000.0, 2010.0])
    syncer = RootSyncer(cache_dir, refresh_s=30, clock=lambda: next(clock))
    good = syncer.sync(root)
    assert good.error is None and good.synced_at == 1000.0 and good.usable
    with enable_iam_authentication():  # moto checks the key now: "testing" is no IAM user's key
        denied = syncer.sync(root)
        again = syncer.sync(root)
    assert denied.error is not None and denied.error.kind == "denied"
    assert "access denied" in denied.error.reason
    assert denied.stale and denied.synced_at == 1000.0 and denied.failing_since == 2000.0
    assert again is denied  # within refresh_s of the last attempt: not tried again
    assert (denied.mirror / "e1" / "train.log").read_bytes() == step_lines(1, 3)


def test_an_endpoint_that_goes_away_keeps_the_mirror_and_says_since_when(
    cache_dir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    server = S3Server()
    server.start()
    try:
        set_s3_env(server, monkeypatch, tmp_path)
        client(server).create_bucket(Bucket="going-away")  # type: ignore[attr-defined]
        put(server, "going-away", "verl/e1/train.log", step_lines(1, 3))
        root = parse_object_url("s3://going-away/verl")
        clock = iter([10.0, 100.0, 200.0])
        syncer = RootSyncer(cache_dir, refresh_s=30, clock=lambda: next(clock))
        assert syncer.sync(root).error is None
    finally:
        server.stop()
    down = syncer.sync(root)
    later = syncer.sync(root)
    assert down.error is not None and down.error.kind == "unreachable"
    assert down.error.describe() == "s3://going-away/verl: endpoint not reachable"
    assert later.stale and later.synced_at == 10.0 and later.failing_since == 100.0  # since the first failure
    assert (later.mirror / "e1" / "train.log").read_bytes() == step_lines(1, 3)
