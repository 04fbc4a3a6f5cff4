"""Sign-in through AppTest and the real frame (streamlit_app.py) on the demo root: who the allow-list lets in (case,
subdomains, empty lists), what a visitor not signed in sees, and a set-up that cannot work (keys missing, a provider
that does not answer, secrets that cannot be read), which shows one message and no data and says it once in the
server log. Signing in end to end, in Chromium against a real provider: tests/browser/test_signin.py."""

from __future__ import annotations

import importlib.metadata
import tomllib
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from streamlit import config
from streamlit.testing.v1 import AppTest

from rlmon.app import signin
from rlmon.settings import load_settings
from tests.helpers.alert_logs import GrowingLog
from tests.helpers.apptest import texts, unescape
from tests.helpers.paths import APP, REPO_ROOT
from tests.helpers.receivers import wait_until
from tests.helpers.server import free_port, serve
from tests.helpers.signin import auth_section, oidc_provider

REDIRECT_URI = "http://localhost:8501/oauth2callback"
AUTHLIB_MISSING = 'Authlib, which Streamlit\'s sign-in needs, is not installed (`pip install "rlmon[auth]"`)'
# Names and numbers of the demo's overview that must never reach a visitor the gate keeps out.
DATA_WORDS = ("Qwen3.5", "GRPO", "DAPO", "150/150", "aime24", "pass rate")
WORD_JOINED_AT = "\u2060@"


def closed_provider() -> str:
    """A provider address on loopback where nothing listens."""
    return f"http://127.0.0.1:{free_port()}"


@pytest.fixture
def fresh_log(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server log's "said once" memory starts empty (another test of this process may have said the same)."""
    monkeypatch.setattr(signin, "_SAID", set())


def signed_in(email: str | None, **claims: object) -> dict[str, object]:
    user: dict[str, object] = {"is_logged_in": True, "sub": "subject-1", **claims}
    if email is not None:
        user["email"] = email
    return user


def admitted(at: AppTest) -> bool:
    """True when the run drew the app (the sidebar's track picker) and no refusal; False when it drew the refusal
    and nothing of the data."""
    assert not at.exception, [item.value for item in at.exception]
    page = unescape(texts(at))
    if "Not on this server's list" in page:
        assert at.button(key="signin_sign_out").label == "Sign out"
        assert not [key for key in ("app_track", "app_experiments") if _has(at, key)]
        assert not [word for word in DATA_WORDS if word in page], page
        return False
    assert _has(at, "app_track") and at.button(key="app_sign_out").label == "Sign out", page
    return True


def _has(at: AppTest, key: str) -> bool:
    try:
        return at.get_by_key(key) is not None
    except KeyError:
        return False


def test_the_allow_list_decides_who_enters(app_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One session, run again for each person and list: (allowed_emails, allowed_domains, who) -> enters?"""
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()  # sign-in off: the app as always, nobody to sign out
    assert _has(at, "app_track") and not _has(at, "app_sign_out")
    at.secrets["auth"] = auth_section(closed_provider(), redirect_uri=REDIRECT_URI)
    cases = [
        ("", "team.example", signed_in("Alice@Team.EXAMPLE"), True),  # case never matters
        ("", "TEAM.example", signed_in("alice@team.example"), True),
        ("", "team.example", signed_in("bob@eng.team.example"), False),  # a domain is that domain only
        ("", "*.team.example", signed_in("bob@eng.team.example"), True),  # ... *. adds its subdomains
        ("", "*.team.example", signed_in("alice@team.example"), False),  # ... and not the domain itself
        ("", "team.example", signed_in("mallory@team.example.evil.example"), False),
        ("", "team.example", signed_in("mallory@evilteam.example"), False),
        ("Carol@Partner.Example", "team.example", signed_in("carol@partner.example"), True),
        ("carol@partner.example", "team.example", signed_in("dave@partner.example"), False),
        ("", "team.example", signed_in("alice@team.example", email_verified=False), False),
        ("", "team.example", signed_in(None, name="No Address"), False),
        ("", "", signed_in("anyone@anywhere.example"), True),  # empty lists: everyone who can sign in
        ("", "", signed_in(None, name="No Address"), True),
    ]
    for emails, domains, user, expected in cases:
        monkeypatch.setenv("RLMON_ALLOWED_EMAILS", emails)
        monkeypatch.setenv("RLMON_ALLOWED_DOMAINS", domains)
        at.user = user
        at.run()
        assert admitted(at) is expected, (emails, domains, user)
        page = unescape(texts(at))
        # as shown: an "@" is followed by an invisible word joiner (no mailto: link)
        shown = str(user.get("email") or user.get("name")).replace("@", WORD_JOINED_AT)
        if expected:
            assert f"Signed in as {shown}" in page  # the sidebar says who is signed in
        elif "email" in user:
            assert f"You are signed in as **{shown}**" in page
        else:
            assert "Your sign-in gave rlmon no verified email address" in page


def test_the_refusal_speaks_chinese(app_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RLMON_ALLOWED_DOMAINS", "team.example")
    at = AppTest.from_file(APP, default_timeout=60)
    at.secrets["auth"] = auth_section(closed_provider(), redirect_uri=REDIRECT_URI)
    at.user = signed_in("bob@other.example")
    at.query_params["lang"] = "zh"
    at.run()
    page = unescape(texts(at))
    assert "不在此服务器的名单上" in page and "你以 **bob\u2060@other.example** 登录" in page
    assert at.button(key="signin_sign_out").label == "退出登录"


def test_a_visitor_not_signed_in_sees_the_sign_in_only(app_env: Path, tmp_path: Path) -> None:
    with oidc_provider(tmp_path) as provider:
        at = AppTest.from_file(APP, default_timeout=60)
        at.secrets["auth"] = auth_section(provider, redirect_uri=REDIRECT_URI)
        at.user = {"is_logged_in": False}
        at.run()
    assert not at.exception
    assert at.button(key="signin_button").label == "Sign in"
    page = unescape(texts(at))
    assert "You sign in at 127.0.0.1, then come back here." in page
    assert not _has(at, "app_track") and not _has(at, "app_sign_out")
    assert not [word for word in DATA_WORDS if word in page]
    assert not at.get("vega_lite_chart") and not at.get("arrow_data_frame")


def test_a_provider_that_does_not_answer_is_one_message(
    app_env: Path, fresh_log: None, caplog: pytest.LogCaptureFixture
) -> None:
    provider = closed_provider()
    at = AppTest.from_file(APP, default_timeout=60)
    at.secrets["auth"] = auth_section(provider, redirect_uri=REDIRECT_URI)
    at.user = {"is_logged_in": False}
    with caplog.at_level("WARNING", logger="rlmon.app"):
        at.run()
        at.run()
    assert not at.exception
    (error,) = at.error
    host = provider.removeprefix("http://").split(":")[0]
    assert unescape(error.value).startswith(f"The sign-in provider {host} does not answer (")
    assert "so no one can sign in now" in error.value
    assert not _has(at, "signin_button") and not _has(at, "app_track")
    said = [record.getMessage() for record in caplog.records if "does not answer" in record.getMessage()]
    assert len(said) == 1 and f"{provider}/.well-known/openid-configuration" in said[0], said


def provider_warnings(at: AppTest) -> list[str]:
    return [unescape(item.value) for item in at.warning if "sign-in provider" in item.value]


def test_a_person_signed_in_stays_in_while_the_provider_is_down_and_is_told(
    app_env: Path, tmp_path: Path, fresh_log: None, caplog: pytest.LogCaptureFixture
) -> None:
    at = AppTest.from_file(APP, default_timeout=60)
    at.user = signed_in("alice@team.example")
    with oidc_provider(tmp_path) as provider:
        metadata_url = f"{provider}/.well-known/openid-configuration"
        at.secrets["auth"] = auth_section(provider, redirect_uri=REDIRECT_URI)
        at.run()
        # the provider is asked on a thread of its own: her page does not wait for it
        assert wait_until(lambda: metadata_url in signin._PROVIDER_ASKED, timeout_s=10)
        assert signin._PROVIDER_STATE[metadata_url] is None
        at.run()
        assert admitted(at) and provider_warnings(at) == []  # it answers: nothing to say
    # the provider stopped: the cookie is still a verified sign-in, so she stays in, and is told
    del signin._PROVIDER_ASKED[metadata_url]  # asked again at once, not 30 s later
    with caplog.at_level("WARNING", logger="rlmon.app"):
        at.run()
        assert wait_until(lambda: signin._PROVIDER_STATE.get(metadata_url) is not None, timeout_s=10)
        at.run()
        at.run()
    assert admitted(at)
    (warning,) = provider_warnings(at)
    assert warning.startswith("The sign-in provider 127.0.0.1 does not answer (")
    assert warning.endswith(
        "). You stay signed in, but no one can sign in until it answers again: if you sign out now, you cannot come "
        "back before then."
    )
    said = [record.getMessage() for record in caplog.records if "does not answer" in record.getMessage()]
    assert len(said) == 1, said  # once, not at every run
    assert said[0].startswith(f"sign-in provider {provider}/.well-known/openid-configuration does not answer (")
    assert "people signed in stay in" in said[0]
    at.query_params["lang"] = "zh"
    at.run()
    (warning,) = [unescape(item.value) for item in at.warning if "登录服务" in item.value]
    assert warning.startswith("登录服务 127.0.0.1 没有响应（") and "你仍保持登录" in warning


def _without(key: str) -> dict[str, str]:
    section = auth_section(closed_provider(), redirect_uri=REDIRECT_URI)
    del section[key]
    return section


@pytest.mark.parametrize(
    ("section", "reason"),
    [
        (_without("client_secret"), "`[auth]` lacks `client_secret`"),
        (
            {"redirect_uri": REDIRECT_URI, "cookie_secret": "x" * 40},
            "`[auth]` lacks `client_id`, `client_secret`, `server_metadata_url`",
        ),
        (
            auth_section(closed_provider(), redirect_uri=REDIRECT_URI) | {"cookie_secret": "short"},
            "`cookie_secret` must have at least 32 characters (it signs the sign-in cookie)",
        ),
        (
            auth_section(closed_provider(), redirect_uri="http://localhost:8501/"),
            "`redirect_uri` must be the app's own address (http:// or https://) ending in `/oauth2callback`",
        ),
        (
            auth_section(closed_provider(), redirect_uri=REDIRECT_URI) | {"server_metadata_url": "accounts.example"},
            "`server_metadata_url` must be an http:// or https:// address",
        ),
        (
            {"redirect_uri": REDIRECT_URI, "cookie_secret": "x" * 40}
            | {
                "google": {
                    key: value
                    for key, value in auth_section(closed_provider(), redirect_uri="").items()
                    if key in ("client_id", "client_secret", "server_metadata_url")
                }
            },
            "rlmon signs in with one provider, whose `client_id`, `client_secret` and `server_metadata_url` go in "
            "`[auth]` itself; it does not use Streamlit's named providers (`[auth.google]`): move that provider's keys "
            "into `[auth]`",
        ),
        (auth_section(closed_provider(), redirect_uri=REDIRECT_URI) | {"authlib": "1.2.1"}, AUTHLIB_MISSING),
        (auth_section(closed_provider(), redirect_uri=REDIRECT_URI) | {"authlib": None}, AUTHLIB_MISSING),
    ],
    ids=[
        "one-key",
        "three-keys",
        "short-secret",
        "redirect",
        "metadata-url",
        "named-provider",
        "old-authlib",
        "no-authlib",
    ],
)
def test_a_set_up_that_cannot_work_shows_one_message_and_no_data(
    app_env: Path,
    fresh_log: None,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    section: dict[str, Any],
    reason: str,
) -> None:
    section = dict(section)
    if "authlib" in section:  # the Authlib installed here, as Python's package metadata would see it elsewhere
        installed = section.pop("authlib")
        real_version = importlib.metadata.version

        def version(name: str) -> str:
            if name.lower() != "authlib":
                return real_version(name)
            if installed is None:
                raise importlib.metadata.PackageNotFoundError(name)
            return str(installed)

        monkeypatch.setattr(importlib.metadata, "version", version)
    signin._authlib_version.cache_clear()
    try:
        at = AppTest.from_file(APP, default_timeout=60)
        at.secrets["auth"] = section
        # even a person the provider signed in, on the list, gets no further
        at.user = signed_in("alice@team.example")
        with caplog.at_level("ERROR", logger="rlmon.app"):
            at.run()
            at.run()
    finally:
        signin._authlib_version.cache_clear()  # the next test reads the real metadata again
    assert not at.exception
    (error,) = at.error
    assert error.value.startswith(f"Sign-in is set up wrong, so rlmon shows nothing: {reason}.")
    assert not _has(at, "app_track") and not _has(at, "signin_button") and not _has(at, "app_sign_out")
    assert not [word for word in DATA_WORDS if word in unescape(texts(at))]
    said = [record.getMessage() for record in caplog.records if "sign-in is set up wrong" in record.getMessage()]
    assert len(said) == 1 and reason in said[0], said


@pytest.fixture
def secrets_file(tmp_path: Path) -> Iterator[Path]:
    """Streamlit reads its secrets from this test's own file (written by the test) for the test."""
    path = tmp_path / "secrets.toml"
    before = config.get_option("secrets.files")
    config.set_option("secrets.files", [str(path)])
    yield path
    config.set_option("secrets.files", before)


def test_secrets_that_cannot_be_read_keep_the_door_closed(app_env: Path, secrets_file: Path) -> None:
    secrets_file.write_text('[auth]\nredirect_uri = "http://localhost:8501/oauth2callback\n')  # an unclosed string
    at = AppTest.from_file(APP, default_timeout=60)
    at.user = signed_in("alice@team.example")
    at.run()
    (error,) = at.error
    assert "the secrets file cannot be read (not valid TOML?)" in error.value
    assert not _has(at, "app_track")


def test_the_recipe_secrets_stay_closed_until_filled_in(app_env: Path) -> None:
    """deploy/secrets.toml as shipped: a sign-in that says what to fill in, not one that lets anyone in."""
    shipped = tomllib.loads((REPO_ROOT / "deploy" / "secrets.toml").read_text())
    assert set(shipped["auth"]) == set(signin.REQUIRED_KEYS)
    at = AppTest.from_file(APP, default_timeout=60)
    at.secrets["auth"] = shipped["auth"]
    at.user = signed_in("alice@team.example")
    at.run()
    (error,) = at.error
    assert "`[auth]` lacks `cookie_secret`, `client_id`, `client_secret`" in error.value


def test_the_download_gate_opens_only_with_sign_in_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without an [auth] section files go to everyone; with one that cannot work, to no one, cookies or not (the
    browser tests check signed-in browsers: tests/browser/test_signin.py)."""
    gate = signin.DownloadGate(app=lambda *_: None, settings=lambda: load_settings([], {}))  # type: ignore[arg-type]
    monkeypatch.setattr(signin, "sign_in_setup", lambda: None)
    assert gate.admits({})
    broken = signin.SignInSetup(problem="signin_reason_missing", problem_fields={"keys": "`client_id`"})
    monkeypatch.setattr(signin, "sign_in_setup", lambda: broken)
    assert not gate.admits({"_streamlit_user": "anything"})


def test_a_server_started_with_a_sign_in_that_cannot_work_says_so_in_its_log_at_start(tmp_path: Path) -> None:
    """A real server (streamlit run) whose secrets file lacks a key: its log says so as it starts, before any visit,
    once; the health check stays open for the proxy and systemd."""
    section = auth_section(closed_provider(), redirect_uri=REDIRECT_URI)
    del section["client_secret"]
    secrets = tmp_path / "secrets.toml"
    secrets.write_text("[auth]\n" + "".join(f'{key} = "{value}"\n' for key, value in section.items()))
    root = tmp_path / "logs"
    GrowingLog(root, "team/grpo_run").start(5)
    env = {"RLMON_LOG_ROOT": str(root), "RLMON_CACHE_DIR": str(tmp_path / "cache")}
    with serve(tmp_path, env, "server-signin-broken.log") as url:
        log = (tmp_path / "server.log").read_text(errors="replace")
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=10) as health:
            assert health.status == 200
    said = [line for line in log.splitlines() if "sign-in is set up wrong" in line]
    assert len(said) == 1, log
    assert said[0].endswith(
        "sign-in is set up wrong: `[auth]` lacks `client_secret`; every page shows only this until it is fixed "
        f"(secrets files: {secrets}); no data is shown"
    ), said
