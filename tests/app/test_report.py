"""The app's "Download report (HTML)" buttons: on the overview and on an experiment's page."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.apptest import open_page, run_app


def test_overview_offers_the_report(app_env: Path) -> None:
    at = run_app()
    assert not at.exception
    assert at.get_by_key("overview_report") is not None


def test_experiment_page_offers_the_report(app_env: Path) -> None:
    at = run_app()
    open_page(at, "4b-e1-grpo-4b")
    assert not at.exception
    assert at.get_by_key("experiment_report") is not None


def test_the_button_speaks_chinese(app_env: Path) -> None:
    at = run_app({"lang": "zh"})
    assert not at.exception
    button = at.get_by_key("overview_report")
    assert button is not None and button.proto.label == "下载报告（HTML）"
