"""The settings table and load_settings."""

from __future__ import annotations

import os
import re
from dataclasses import fields
from pathlib import Path

import pytest

from rlmon.errors import SettingError
from rlmon.settings import SETTINGS, Settings, load_settings


def test_every_setting_has_help_env_and_a_field() -> None:
    assert SETTINGS
    names = [spec.name for spec in SETTINGS]
    assert len(names) == len(set(names))
    assert set(names) == {item.name for item in fields(Settings)}
    for spec in SETTINGS:
        assert spec.help.strip() and len(spec.help) > 20, f"setting {spec.name} has no help text"
        assert spec.env == "RLMON_" + spec.env.removeprefix("RLMON_") and spec.env.isupper()
        assert spec.option.startswith("--")


def test_table_defaults_match_the_dataclass() -> None:
    by_name = {item.name: item.default for item in fields(Settings)}
    for spec in SETTINGS:
        if spec.default is not None:
            assert by_name[spec.name] == spec.default, spec.name


def test_defaults() -> None:
    settings = load_settings([], {"HOME": "/home/ana"})
    assert settings.log_roots == ()
    assert settings.cache_dir == Path("/home/ana/.cache/rlmon")
    assert settings.stall_factor == 3.0
    assert settings.refresh_s == 30
    assert settings.max_points == 2000
    assert settings.language == "en"
    assert settings.spike_factor > 1 and settings.spike_window >= 3


def test_xdg_cache_home() -> None:
    assert load_settings([], {"XDG_CACHE_HOME": "/var/cache/x", "HOME": "/h"}).cache_dir == Path("/var/cache/x/rlmon")


def test_log_roots_from_env_path_list_and_cli_repeat() -> None:
    env = {"RLMON_LOG_ROOT": os.pathsep.join(["/data/a", "", "/data/b"])}
    assert load_settings([], env).log_roots == (Path("/data/a"), Path("/data/b"))
    cli = ["--log-root", "/x", "--log-root=/y"]
    assert load_settings(cli, env).log_roots == (Path("/x"), Path("/y"))


def test_cli_beats_env_beats_default() -> None:
    env = {"RLMON_STALL_FACTOR": "4", "RLMON_REFRESH_S": "10"}
    settings = load_settings(["--stall-factor", "5.5"], env)
    assert settings.stall_factor == 5.5
    assert settings.refresh_s == 10
    assert settings.max_points == 2000


def test_frozen() -> None:
    settings = load_settings([], {})
    with pytest.raises(AttributeError):
        settings.refresh_s = 5  # type: ignore[misc]


@pytest.mark.parametrize(
    ("argv", "env", "named"),
    [
        ([], {"RLMON_STALL_FACTOR": "fast"}, "stall_factor"),
        ([], {"RLMON_REFRESH_S": "1"}, "refresh_s"),
        ([], {"RLMON_MAX_POINTS": "2.5"}, "max_points"),
        ([], {"RLMON_LANGUAGE": "fr"}, "language"),
        ([], {"RLMON_SMOOTHING_WEIGHT": "1"}, "smoothing_weight"),
        ([], {"RLMON_STALL_FACTOR": "nan"}, "stall_factor"),
        (["--refresh-s"], {}, "refresh_s"),
        (["--refresh-s", "5", "--refresh-s", "6"], {}, "refresh_s"),
        (["--bogus", "1"], {}, "--bogus"),
        (["stray"], {}, "stray"),
        ([], {"RLMON_DRAW_ALL_CHARTS": "maybe"}, "draw_all_charts"),
        ([], {"RLMON_CHART_RENDERER": "webgl"}, "chart_renderer"),
        ([], {"RLMON_ALERT_KINDS": "crashed,explosions"}, "alert_kinds"),
        ([], {"RLMON_ALERT_MIN_SEVERITY": "loud"}, "alert_min_severity"),
        ([], {"RLMON_ALERT_TARGETS": "hooks.example.com/T0KEN"}, "alert_targets"),
        ([], {"RLMON_PUBLIC_URL": "rlmon.example.com"}, "public_url"),
        ([], {"RLMON_ALERT_DIGEST_COUNT": "0"}, "alert_digest_count"),
    ],
)
def test_invalid_values_name_the_setting(argv: list[str], env: dict[str, str], named: str) -> None:
    with pytest.raises(SettingError) as caught:
        load_settings(argv, env)
    assert named in str(caught.value)


def test_draw_all_charts_is_a_flag_off_by_default() -> None:
    assert load_settings([], {}).draw_all_charts is False
    assert load_settings([], {"RLMON_DRAW_ALL_CHARTS": "1"}).draw_all_charts is True
    assert load_settings([], {"RLMON_DRAW_ALL_CHARTS": "off"}).draw_all_charts is False
    # the option alone means true, before another option or at the end; a value may follow it
    assert load_settings(["--draw-all-charts"], {}).draw_all_charts is True
    assert load_settings(["--draw-all-charts", "--refresh-s", "5"], {}).draw_all_charts is True
    assert load_settings(["--draw-all-charts", "no"], {"RLMON_DRAW_ALL_CHARTS": "yes"}).draw_all_charts is False
    assert load_settings(["--draw-all-charts=true"], {}).draw_all_charts is True


def test_chart_renderer_defaults_to_auto() -> None:
    assert load_settings([], {}).chart_renderer == "auto"
    assert load_settings(["--chart-renderer", "svg"], {}).chart_renderer == "svg"
    assert load_settings([], {"RLMON_CHART_RENDERER": "canvas"}).chart_renderer == "canvas"


def test_settings_read_the_lists_from_the_environment_and_the_options() -> None:
    settings = load_settings([], {})
    assert (settings.allowed_emails, settings.allowed_domains) == ((), ())
    env = {
        "RLMON_ALLOWED_EMAILS": "Carol@Partner.Example, dave@partner.example",
        "RLMON_ALLOWED_DOMAINS": "team.example",
    }
    settings = load_settings([], env)
    assert settings.allowed_emails == ("carol@partner.example", "dave@partner.example")
    assert settings.allowed_domains == ("team.example",)
    # the option wins over the environment, repeats, and takes a list too; repeats are dropped
    argv = ["--allowed-email", "erin@partner.example", "--allowed-email", "Erin@partner.example,frank@partner.example"]
    settings = load_settings([*argv, "--allowed-domain=*.lab.example"], env)
    assert settings.allowed_emails == ("erin@partner.example", "frank@partner.example")
    assert settings.allowed_domains == ("*.lab.example",)


@pytest.mark.parametrize(
    ("argv", "env", "named"),
    [
        ([], {"RLMON_ALLOWED_EMAILS": "team.example"}, "allowed_emails (RLMON_ALLOWED_EMAILS / --allowed-email)"),
        (["--allowed-domain", "alice@team.example"], {}, "allowed_domains (RLMON_ALLOWED_DOMAINS / --allowed-domain)"),
    ],
)
def test_a_list_entry_that_is_not_one_names_the_setting(argv: list[str], env: dict[str, str], named: str) -> None:
    with pytest.raises(SettingError, match=re.escape(named)):
        load_settings(argv, env)


def test_alert_settings() -> None:
    defaults = load_settings([], {})
    assert defaults.alert_targets == ()
    assert defaults.alert_kinds == ("crashed", "stalled", "non_finite", "signals", "finished")
    assert (defaults.alert_min_severity, defaults.public_url) == ("info", "")
    env = {
        "RLMON_ALERT_TARGETS": " json://127.0.0.1:8080/hook\n mailto://mail.example.com?to=a@x.org,b@x.org ",
        "RLMON_ALERT_KINDS": "crashed, best spike",
        "RLMON_PUBLIC_URL": "https://rlmon.example.com/team/",
    }
    settings = load_settings([], env)
    assert settings.alert_targets == ("json://127.0.0.1:8080/hook", "mailto://mail.example.com?to=a@x.org,b@x.org")
    assert settings.alert_kinds == ("crashed", "best", "spike")
    assert settings.public_url == "https://rlmon.example.com/team"
    # the option repeats and wins over the environment
    given = load_settings(["--alert-target", "tgram://bot/chat", "--alert-target", "json://h/x"], env)
    assert given.alert_targets == ("tgram://bot/chat", "json://h/x")


def test_a_target_never_shows_in_an_error_or_the_settings_repr() -> None:
    with pytest.raises(SettingError) as caught:
        load_settings([], {"RLMON_ALERT_TARGETS": "json://ok/x T0KEN-without-scheme"})
    assert "target 2 is not a URL" in str(caught.value)
    assert "T0KEN" not in str(caught.value)
    assert "T0KEN" not in repr(load_settings([], {"RLMON_ALERT_TARGETS": "json://h/T0KEN"}))
