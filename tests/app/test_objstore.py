"""The app with an object-storage root (moto's S3 server on loopback) beside a local folder, through AppTest."""

from __future__ import annotations

import html
import time
from pathlib import Path

import boto3
import pytest
from streamlit.testing.v1 import AppTest

from tests.helpers.objstore_server import S3Server, aws_environment, step_lines
from tests.helpers.paths import APP


def page_paths(at: AppTest) -> list[str]:
    return [str(info.get("url_pathname")) for info in at._registered_pages.values()]


def shown(elements: object) -> str:
    # markdown escapes (\: \. \/) and the word joiner after a colon are taken out to read the text
    text = "\n".join(item.value for item in elements)  # type: ignore[attr-defined]
    return html.unescape(text).replace("\\", "").replace("\u2060", "")


def test_an_s3_root_shows_its_experiments_and_stays_on_screen_when_its_endpoint_goes_away(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = S3Server()
    server.start()
    try:
        for name, value in aws_environment(server, tmp_path).items():
            monkeypatch.setenv(name, value)
        client = boto3.client("s3", endpoint_url=server.endpoint, region_name="us-east-1")
        client.create_bucket(Bucket="team-runs")
        client.put_object(Bucket="team-runs", Key="verl/e1_grpo/train.log", Body=step_lines(1, 12))
        client.put_object(Bucket="team-runs", Key="verl/e2_dapo/train.log", Body=step_lines(1, 8))
        client.put_object(Bucket="team-runs", Key="verl/e2_dapo/old\\run.log", Body=step_lines(1, 2))
        local = tmp_path / "nfs"
        (local / "e3_rloo").mkdir(parents=True)
        (local / "e3_rloo" / "train.log").write_bytes(step_lines(1, 5))
        monkeypatch.setenv("RLMON_LOG_ROOT", f"{local}:s3://team-runs/verl:s3://no-such-bucket-x/verl")
        monkeypatch.setenv("RLMON_CACHE_DIR", str(tmp_path / "cache"))
        monkeypatch.setenv("RLMON_REFRESH_S", "2")
        at = AppTest.from_file(APP, default_timeout=60)
        at.run()
        assert not at.exception
        assert {"verl-e1-grpo", "verl-e2-dapo", "nfs-e3-rloo"} <= set(page_paths(at))
        errors = shown(at.error)
        assert "Log root s3://no-such-bucket-x/verl cannot be used: the bucket does not exist" in errors
        assert str(tmp_path / "cache") not in errors + shown(at.warning) + shown(at.info)
        assert not at.warning or "endpoint" not in shown(at.warning)
        notes = "\n".join(item.value for item in at.text)
        assert "s3://team-runs/verl/e2_dapo/old\\run.log: not a usable file name; skipped" in notes
    finally:
        server.stop()
    time.sleep(2.2)  # past refresh_s: the next run syncs again, and fails
    at.run()
    assert not at.exception
    assert {"verl-e1-grpo", "verl-e2-dapo", "nfs-e3-rloo"} <= set(page_paths(at))
    warnings = shown(at.warning)
    assert "s3://team-runs/verl: endpoint not reachable since " in warnings
    assert "showing the data from" in warnings
