"""Real verl logs (``../shared/realdata/verl``) growing on a loopback S3 server: synced after each cut, the mirror
parses to the values read off the log text by hand (:mod:`tests.helpers.realdata_cases`), and only the new bytes
travel."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest

from rlmon.logs.cache import LogCache
from rlmon.roots import parse_object_url
from rlmon.sources import objstore
from rlmon.sources.objstore import OVERLAP_BYTES, sync_root
from tests.helpers.objstore_server import S3Server, aws_environment
from tests.helpers.realdata_cases import CASES

FILES = ("dstack-ppo-qwen25-7b-resumed-2025-05.log", "amd-mi300-deepseek7b-grpo-gsm8k-2025-03.log")
BY_FILE = {case.file: case for case in CASES}


@pytest.fixture(scope="module")
def server() -> Iterator[S3Server]:
    started = S3Server()
    started.start()
    yield started
    started.stop()


@pytest.mark.parametrize("name", FILES)
def test_a_real_log_growing_in_three_uploads(
    name: str,
    server: S3Server,
    realdata_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for variable, value in aws_environment(server, tmp_path).items():
        monkeypatch.setenv(variable, value)
    case = BY_FILE[name]
    text = (realdata_dir / name).read_bytes()
    bucket = "real-" + name[:20].lower().strip("-")
    client = boto3.client("s3", endpoint_url=server.endpoint, region_name="us-east-1")
    client.create_bucket(Bucket=bucket)
    root = parse_object_url(f"s3://{bucket}/verl")
    cache_dir = tmp_path / "cache"
    cache = LogCache(cache_dir, quiet_s=0)
    # cuts in the middle of lines, as a trainer's sync tool uploads whatever the file holds at the time
    cuts = [len(text) // 3 + 17, 2 * len(text) // 3 + 5, len(text)]
    fetched = []
    for cut in cuts:
        client.put_object(Bucket=bucket, Key=f"verl/{name[:-4]}/train.log", Body=text[:cut])
        stats = sync_root(root, cache_dir)
        fetched.append(stats.bytes_fetched)
        log = objstore.mirror_folder(cache_dir, root) / name[:-4] / "train.log"
        assert log.read_bytes() == text[:cut]
        parsed = cache.read(log)
    assert fetched == [cuts[0], cuts[1] - cuts[0] + OVERLAP_BYTES, cuts[2] - cuts[1] + OVERLAP_BYTES]
    steps = parsed.steps
    assert case.steps is not None
    first, last, distinct = case.steps
    assert (steps["step"].min(), steps["step"].max(), steps.height) == (first, last, distinct)
    assert steps.width - 1 == case.keys
    for step, key, value in case.spots:
        got = steps.filter(steps["step"] == step)[key].item()
        if value is None:
            assert got is None or (isinstance(got, float) and math.isnan(got))
        else:
            assert got == pytest.approx(value, rel=1e-12, abs=0.0)
