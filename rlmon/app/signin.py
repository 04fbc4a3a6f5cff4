"""Sign-in with the team's OpenID Connect provider, and who may enter.

Off until Streamlit's secrets (``.streamlit/secrets.toml``, or the files ``--secrets.files`` names) hold an
``[auth]`` section with Streamlit's own keys; then:

* :func:`admit_or_stop` runs before the frame lists a single experiment. A visitor gets past it only signed in
  (Streamlit's ``st.login``: the identity in a cookie signed with ``cookie_secret``) and on the allow-list (the
  settings ``allowed_emails`` and ``allowed_domains``, :func:`rlmon.access.is_allowed`). Anyone else gets one
  page (the sign-in; the refusal, with a sign-out button; or what is wrong with the set-up) and the run stops
  there, so nothing read from a log reaches that browser.
* :class:`DownloadGate` keeps the files the app hands out over HTTP (``/media/...``: the report, the CSV and
  Parquet tables, chart SVGs) to browsers whose sign-in cookie names a person on the list; anyone else is sent
  to the first page, which is the sign-in.
* A set-up that cannot work (a key missing, Authlib not installed, secrets that cannot be read) is never an open
  door: every page says what is wrong, the server log says it once, and no data is shown. A provider that does
  not answer keeps out those not signed in yet (their page says so); a person already signed in stays in (the
  cookie is a sign-in this server verified), with a warning on every page that no one can sign in now (a sign-out
  could not be undone until it answers); the server log says it once.
"""

from __future__ import annotations

import functools
import importlib.metadata
import json
import logging
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import streamlit as st
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import RedirectResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from rlmon.access import is_allowed
from rlmon.app.guards import LOG, escape_markdown
from rlmon.app.widgets import language_picker
from rlmon.errors import RlmonError
from rlmon.settings import Settings
from rlmon.text import t

__all__ = [
    "MIN_COOKIE_SECRET",
    "PROVIDER_EVERY_S",
    "PROVIDER_TIMEOUT_S",
    "REQUIRED_KEYS",
    "DownloadGate",
    "Person",
    "SignInSetup",
    "admit_or_stop",
    "check_at_start",
    "known_provider_problem",
    "provider_problem",
    "sign_in_setup",
    "signed_in_block",
]

REQUIRED_KEYS = ("redirect_uri", "cookie_secret", "client_id", "client_secret", "server_metadata_url")
"""The keys of ``[auth]`` rlmon needs (Streamlit's, for its default provider: a named provider's section,
``[auth.google]``, is not one rlmon signs in with)."""
_PROVIDER_KEYS = ("client_id", "client_secret", "server_metadata_url")
MIN_COOKIE_SECRET = 32
"""Characters a ``cookie_secret`` needs at least: it signs every cookie, the sign-in's included, so a short one
could be guessed and a sign-in forged."""
PROVIDER_TIMEOUT_S = 5.0
PROVIDER_EVERY_S = 30
"""How often the provider is asked whether it answers, at most."""
_CALLBACK = "/oauth2callback"
_AUTHLIB_MINIMUM = (1, 3, 2)  # what Streamlit's st.login asks for


@dataclass(frozen=True)
class SignInSetup:
    """The ``[auth]`` section as rlmon checked it."""

    problem: str | None = None
    """Key of the message saying what is wrong (``signin_reason_*``), None when sign-in can work."""
    problem_fields: dict[str, Any] = field(default_factory=dict)
    metadata_url: str = ""
    """The provider's OpenID configuration (``server_metadata_url``)."""
    origin: str = ""
    """``scheme://host:port`` of ``redirect_uri``: the one address a sign-in cookie is good for."""

    def reason(self, lang: str) -> str:
        """What is wrong, in ``lang``."""
        assert self.problem is not None
        return t(self.problem, lang, **self.problem_fields)


@dataclass(frozen=True)
class Person:
    """Who is signed in, as the provider named them."""

    email: str
    """The ``email`` claim; empty when the provider sent none."""
    name: str
    """The ``name`` claim, else the subject (``sub``); empty when neither came."""

    @classmethod
    def from_claims(cls, claims: Mapping[str, Any]) -> Person:
        email, name = claims.get("email"), claims.get("name") or claims.get("sub")
        return cls(email=email.strip() if isinstance(email, str) else "", name=name if isinstance(name, str) else "")

    @property
    def shown(self) -> str:
        """The email address, else the name."""
        return self.email or self.name


def _secrets_file_present() -> bool:
    files = st.get_option("secrets.files") or []
    return any(Path(path).is_file() for path in files)


@functools.cache
def _authlib_version() -> tuple[int, ...] | None:
    try:
        text = importlib.metadata.version("authlib")
    except importlib.metadata.PackageNotFoundError:
        return None
    return tuple(int(part) for part in text.split(".")[:3] if part.isdigit())


def _problem(key: str, **fields: Any) -> SignInSetup:
    return SignInSetup(problem=key, problem_fields=fields)


def _web_address(text: str) -> bool:
    parts = urlsplit(text)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def sign_in_setup() -> SignInSetup | None:
    """The sign-in as the secrets set it up; None when it is off (no ``[auth]`` section).

    Secrets that exist but cannot be read count as a sign-in set up wrong: they may hold an ``[auth]`` section,
    and a door that opens when its lock breaks is no door.
    """
    secrets = st.secrets
    if not secrets.load_if_toml_exists():
        return _problem("signin_reason_unreadable") if _secrets_file_present() else None
    if "auth" not in secrets:
        return None
    section = secrets["auth"]
    if not isinstance(section, Mapping):
        return _problem("signin_reason_not_a_section")
    version = _authlib_version()
    if version is None or version < _AUTHLIB_MINIMUM:
        return _problem("signin_reason_no_authlib")
    missing = [key for key in REQUIRED_KEYS if not isinstance(section.get(key), str) or not section[key].strip()]
    named = [name for name, value in section.items() if isinstance(value, Mapping)]
    if named and set(missing) & set(_PROVIDER_KEYS):
        # Streamlit's named providers ([auth.google]): rlmon signs in with the one provider of [auth] itself
        return _problem("signin_reason_named", names=", ".join(f"`[auth.{name}]`" for name in named))
    if missing:
        return _problem("signin_reason_missing", keys=", ".join(f"`{key}`" for key in missing))
    # Streamlit fills "{port}" in redirect_uri with the server's port
    redirect_uri = section["redirect_uri"].strip().replace("{port}", str(st.get_option("server.port")))
    if not _web_address(redirect_uri) or not urlsplit(redirect_uri).path.endswith(_CALLBACK):
        return _problem("signin_reason_redirect")
    if len(section["cookie_secret"]) < MIN_COOKIE_SECRET:
        return _problem("signin_reason_short_secret", count=MIN_COOKIE_SECRET)
    metadata_url = section["server_metadata_url"].strip()
    if not _web_address(metadata_url):
        return _problem("signin_reason_metadata_url")
    parts = urlsplit(redirect_uri)
    return SignInSetup(metadata_url=metadata_url, origin=f"{parts.scheme}://{parts.netloc}")


_SAID: set[str] = set()
_SAID_LOCK = threading.Lock()


def _log_once(level: int, message: str) -> None:
    """``message`` in the server log the first time this process meets it (every visit meets it again)."""
    with _SAID_LOCK:
        if message in _SAID:
            return
        _SAID.add(message)
    LOG.log(level, message)


def _log_setup_problem(setup: SignInSetup) -> None:
    files = ", ".join(str(path) for path in st.get_option("secrets.files") or []) or "none"
    _log_once(
        logging.ERROR,
        f"sign-in is set up wrong: {setup.reason('en')}; every page shows only this until it is fixed "
        f"(secrets files: {files}); no data is shown",
    )


def check_at_start() -> None:
    """Say in the server log, as the server starts, when the sign-in is set up wrong (visits say it again on
    their page)."""
    setup = sign_in_setup()
    if setup is not None and setup.problem is not None:
        _log_setup_problem(setup)


_PROVIDER_STATE: dict[str, str | None] = {}
"""metadata URL -> its last answer (None: it answers)."""
_PROVIDER_ASKED: dict[str, float] = {}
"""metadata URL -> when it was last asked (monotonic)."""
_PROVIDER_ASKING: set[str] = set()


def _read_provider(metadata_url: str) -> str | None:
    try:
        with urllib.request.urlopen(metadata_url, timeout=PROVIDER_TIMEOUT_S) as response:
            metadata = json.loads(response.read(1_000_000))
    except urllib.error.HTTPError as error:
        return f"HTTP {error.code}"
    except urllib.error.URLError as error:
        return str(error.reason)
    except (OSError, ValueError) as error:  # a timeout while reading, a reset; JSON that is not
        return str(error) or type(error).__name__
    if not isinstance(metadata, dict):
        return "its metadata is not a JSON object"
    missing = [key for key in ("authorization_endpoint", "token_endpoint", "jwks_uri") if not metadata.get(key)]
    return "its metadata lacks " + ", ".join(missing) if missing else None


def _check_provider(metadata_url: str) -> str | None:
    """Ask the provider now; the server log says when its answer changes."""
    problem = _read_provider(metadata_url)
    with _SAID_LOCK:
        before = _PROVIDER_STATE.get(metadata_url)
        _PROVIDER_STATE[metadata_url] = problem
        _PROVIDER_ASKED[metadata_url] = time.monotonic()
    if problem is not None and problem != before:
        LOG.warning("sign-in provider %s does not answer (%s): no one can sign in until it does (people signed in "
                    "stay in, and their pages say so)", metadata_url, problem)  # fmt: skip
    elif problem is None and before is not None:
        LOG.warning("sign-in provider %s answers again", metadata_url)
    return problem


@st.cache_resource(ttl=PROVIDER_EVERY_S, max_entries=8, show_spinner=False)
def provider_problem(metadata_url: str) -> str | None:
    """Why the provider cannot sign anyone in now (it does not answer its OpenID configuration within
    :data:`PROVIDER_TIMEOUT_S`, or answers something else), None when it can. Asked at most every 30 s; the server
    log says when the answer changes."""
    return _check_provider(metadata_url)


def known_provider_problem(metadata_url: str) -> str | None:
    """The provider's last answer (None before a first one), asked again on a thread of its own when it is older
    than :data:`PROVIDER_EVERY_S`: a signed-in person's page never waits for the provider."""
    with _SAID_LOCK:
        asked = _PROVIDER_ASKED.get(metadata_url)
        due = asked is None or time.monotonic() - asked > PROVIDER_EVERY_S
        if due and metadata_url not in _PROVIDER_ASKING:
            _PROVIDER_ASKING.add(metadata_url)

            def ask() -> None:
                try:
                    _check_provider(metadata_url)
                finally:
                    with _SAID_LOCK:
                        _PROVIDER_ASKING.discard(metadata_url)

            threading.Thread(target=ask, name="rlmon-signin-provider", daemon=True).start()
        return _PROVIDER_STATE.get(metadata_url)


@contextmanager
def _card(lang: str) -> Iterator[None]:
    """A narrow bordered card in the middle of the page (the page's full width on a phone), under rlmon's name."""
    with st.container(horizontal_alignment="center"), st.container(border=True, width=460):
        st.markdown(f"### :material/monitoring: rlmon\n{t('app_tagline', lang)}")
        yield


def _sign_in_page(setup: SignInSetup, lang: str) -> None:
    provider = urlsplit(setup.metadata_url).hostname or setup.metadata_url
    problem = provider_problem(setup.metadata_url)
    with _card(lang):
        st.markdown(f"#### :material/lock: {t('signin_title', lang)}")
        st.markdown(t("signin_intro", lang))
        if problem is not None:
            st.error(
                t("signin_provider_down", lang, provider=escape_markdown(provider), reason=escape_markdown(problem))
            )
        else:
            st.button(
                t("signin_button", lang), key="signin_button", on_click=st.login, type="primary",
                icon=":material/login:", width="stretch",
            )  # fmt: skip
            st.caption(t("signin_provider_note", lang, provider=escape_markdown(provider)))
        language_picker(lang)


def _refusal_page(person: Person, lang: str) -> None:
    with _card(lang):
        st.markdown(f"#### :material/block: {t('signin_refused_title', lang)}")
        if person.email:
            st.markdown(t("signin_refused_body", lang, who=escape_markdown(person.email)))
        else:
            st.markdown(t("signin_refused_no_email", lang))
        st.markdown(t("signin_refused_next", lang))
        st.button(t("signin_sign_out", lang), key="signin_sign_out", on_click=st.logout, icon=":material/logout:")
        language_picker(lang)


def admit_or_stop(settings: Settings, lang: str) -> Person | None:
    """The person signed in, when sign-in is on and they are on the allow-list; None when sign-in is off.

    Anyone else sees one page instead of the app, and the run stops (``st.stop``) before anything is read: the
    sign-in; the refusal, for a person signed in but not on the list; what is wrong, when the set-up cannot work.
    """
    setup = sign_in_setup()
    if setup is None:
        return None
    if setup.problem is not None:
        _log_setup_problem(setup)
        with _card(lang):
            st.error(t("signin_setup_wrong", lang, reason=setup.reason(lang)), icon=":material/lock:")
        st.stop()
    claims = st.user.to_dict()
    if claims.get("is_logged_in") is not True:
        _sign_in_page(setup, lang)
        st.stop()
    person = Person.from_claims(claims)
    email_verified = claims.get("email_verified")
    emails, domains = settings.allowed_emails, settings.allowed_domains
    if not is_allowed(claims.get("email"), emails=emails, domains=domains, email_verified=email_verified):
        if not st.session_state.get("_rlmon_refusal_logged"):
            st.session_state["_rlmon_refusal_logged"] = True
            LOG.warning("sign-in refused: %r is not on allowed_emails / allowed_domains", person.shown)
        _refusal_page(person, lang)
        st.stop()
    problem = known_provider_problem(setup.metadata_url)
    if problem is not None:
        # their cookie is a sign-in this server verified: they stay in, told that no new sign-in works
        provider = urlsplit(setup.metadata_url).hostname or setup.metadata_url
        st.warning(
            t("signin_provider_down_signed_in", lang, provider=escape_markdown(provider),
              reason=escape_markdown(problem)),
            icon=":material/warning:",
        )  # fmt: skip
    return person


def signed_in_block(person: Person, lang: str) -> None:
    """Who is signed in, and the sign-out button (one row in the sidebar, under rlmon's name)."""
    with st.container(horizontal=True, vertical_alignment="center", gap="small"):
        st.caption(f":material/account_circle: {t('signin_signed_in_as', lang, who=escape_markdown(person.shown))}")
        st.button(
            t("signin_sign_out", lang), key="app_sign_out", on_click=st.logout, icon=":material/logout:",
            type="tertiary",
        )  # fmt: skip


def _signed_in_claims(cookies: Mapping[str, str]) -> dict[str, Any]:
    """The identity in a request's sign-in cookie when its signature holds, else ``{}``: read as Streamlit reads it
    for a websocket (the same secret, the same chunks)."""
    from streamlit.auth_util import get_cookie_with_chunks
    from streamlit.web.server.server_util import get_cookie_secret
    from streamlit.web.server.starlette.starlette_app_utils import decode_signed_value
    from streamlit.web.server.starlette.starlette_server_config import USER_COOKIE_NAME

    secret = get_cookie_secret()

    def one_cookie(name: str) -> bytes | None:
        raw = cookies.get(name)
        # HTTP cookies are latin-1 text: its bytes are the signed value's
        return None if raw is None else decode_signed_value(secret, name, raw.encode("latin-1"))

    value = get_cookie_with_chunks(one_cookie, USER_COOKIE_NAME)
    try:
        claims = json.loads(value) if value else {}
    except (UnicodeDecodeError, ValueError):
        return {}
    return claims if isinstance(claims, dict) else {}


def _base_path() -> str:
    base = str(st.get_option("server.baseUrlPath") or "").strip("/")
    return f"/{base}" if base else ""


class DownloadGate:
    """ASGI middleware: with sign-in on, the files the app hands out (``/media/...``) go only to a browser whose
    sign-in cookie (signed, for this server's address) names a person on the allow-list; any other request is sent
    to the app's first page, which shows the sign-in (or the refusal). With sign-in off it lets everything through.

    Parameters
    ----------
    app
        The rest of the server.
    settings
        Returns the app's settings (the allow-list); a setting that cannot be read closes the gate.
    """

    def __init__(self, app: ASGIApp, *, settings: Callable[[], Settings]) -> None:
        self.app = app
        self.settings = settings

    @classmethod
    def middleware(cls, *, settings: Callable[[], Settings]) -> Middleware:
        """The gate as ``st.App(..., middleware=[...])`` takes it."""
        return Middleware(cls, settings=settings)

    def admits(self, cookies: Mapping[str, str]) -> bool:
        """True when a request with these cookies may have a file."""
        setup = sign_in_setup()
        if setup is None:
            return True
        if setup.problem is not None:
            return False
        try:
            settings = self.settings()
        except RlmonError:
            return False
        claims = _signed_in_claims(cookies)
        if claims.get("is_logged_in") is not True or claims.get("origin") != setup.origin:
            return False
        return is_allowed(
            claims.get("email"), emails=settings.allowed_emails, domains=settings.allowed_domains,
            email_verified=claims.get("email_verified"),
        )  # fmt: skip

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and str(scope.get("path", "")).startswith(_base_path() + "/media/"):
            request = Request(scope)
            if not self.admits(request.cookies):
                await RedirectResponse(_base_path() + "/", status_code=303)(scope, receive, send)
                return
        await self.app(scope, receive, send)
