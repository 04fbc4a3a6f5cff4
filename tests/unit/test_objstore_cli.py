"""The command line on s3:// roots (moto's S3 server on loopback): output names s3:// URLs, faults are one line."""

from __future__ import annotations

import json
from pathlib import Path

import boto3
import pytest

from rlmon.cli import main
from tests.helpers.objstore_server import S3Server, aws_environment, step_lines


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> S3Server:
    started = S3Server()
    started.start()
    for name, value in aws_environment(started, tmp_path).items():
        monkeypatch.setenv(name, value)
    client = boto3.client("s3", endpoint_url=started.endpoint, region_name="us-east-1")
    client.create_bucket(Bucket="cli-runs")
    client.put_object(Bucket="cli-runs", Key="verl/e1_grpo/train.log", Body=step_lines(1, 12))
    client.put_object(Bucket="cli-runs", Key="verl/e2_dapo/train.log", Body=step_lines(1, 8))
    yield started
    started.stop()


def test_info_on_an_s3_root_lists_its_experiments(
    server: S3Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["info", "s3://cli-runs/verl", "--cache-dir", str(tmp_path / "cache")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == ["e1_grpo", "e2_dapo"]


def test_file_paths_print_as_s3_urls(
    server: S3Server, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # a relative cache folder: files are still named by their URL
    assert main(["info", "s3://cli-runs/verl/e1_grpo", "--json", "--cache-dir", "cache"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["path"] == "s3://cli-runs/verl/e1_grpo/train.log"
    assert info["steps"] == 12


def test_a_missing_bucket_is_one_line_and_exit_code_2(
    server: S3Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["info", "s3://no-such-bucket-y/verl", "--cache-dir", str(tmp_path / "cache")]) == 2
    captured = capsys.readouterr()
    assert captured.err == "rlmon: s3://no-such-bucket-y/verl: bucket no-such-bucket-y does not exist\n"
    assert captured.out == ""


def test_an_unreachable_endpoint_uses_the_earlier_copy_with_a_warning(
    server: S3Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = str(tmp_path / "cache")
    assert main(["info", "s3://cli-runs/verl", "--cache-dir", cache]) == 0
    capsys.readouterr()
    server.stop()
    assert main(["info", "s3://cli-runs/verl", "--cache-dir", cache]) == 0
    captured = capsys.readouterr()
    assert captured.err.startswith(
        "rlmon: warning: s3://cli-runs/verl: endpoint not reachable; using the copy synced at "
    )
    assert [line.split(":")[0] for line in captured.out.splitlines()] == ["e1_grpo", "e2_dapo"]
    assert main(["info", "s3://cli-runs/other", "--cache-dir", cache]) == 2
    assert capsys.readouterr().err == "rlmon: s3://cli-runs/other: endpoint not reachable\n"
    server.start()  # the fixture stops it again
