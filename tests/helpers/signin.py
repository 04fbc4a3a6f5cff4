"""What the sign-in tests share: a real OpenID Connect provider on loopback (the ``oidc-provider-mock`` package: its
authorization page signs in whatever address is typed in it), the ``[auth]`` section and secrets file that point
rlmon at it, signing in and out in Chromium, and reading what reached the browser over the websocket."""

from __future__ import annotations

import contextlib
import secrets
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.paths import REPO_ROOT

COOKIE_SECRET = secrets.token_hex(32)
"""Every replica of a test's servers signs its cookies with this one (it is in every replica's secrets)."""
CLIENT_ID = "rlmon-tests"
CLIENT_SECRET = "rlmon-tests-secret"


@contextlib.contextmanager
def oidc_provider(users: Sequence[Any] = ()) -> Iterator[str]:
    """A real OpenID provider on a free loopback port, in a thread of this process, for the block; yields its
    base URL. ``users`` (``oidc_provider_mock.User``) are predefined with the claims they carry; any other
    address typed on its page signs in with ``{"email": address}``. Skips without the package."""
    # it imports Authlib modules that warn of their deprecation (Authlib turns its warnings on when first imported)
    deprecation = pytest.importorskip("authlib.deprecate", reason="Authlib is not installed").AuthlibDeprecationWarning
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", deprecation)
        provider_mock = pytest.importorskip("oidc_provider_mock", reason="oidc-provider-mock is not installed")
    with provider_mock.run_server_in_thread(port=0, user_claims=list(users)) as server:
        yield f"http://localhost:{server.server_port}"


def auth_section(provider: str, *, redirect_uri: str) -> dict[str, str]:
    """Streamlit's ``[auth]`` keys for ``provider`` (a base URL) and the app at ``redirect_uri``."""
    return {
        "redirect_uri": redirect_uri,
        "cookie_secret": COOKIE_SECRET,
        "client_id": CLIENT_ID,
        "client_secret": CLIENT_SECRET,
        "server_metadata_url": f"{provider}/.well-known/openid-configuration",
    }


def write_recipe_secrets(path: Path, section: dict[str, str]) -> Path:
    """deploy/secrets.toml (the recipe's template) with the values of ``section`` put in, written at ``path``."""
    recipe = (REPO_ROOT / "deploy" / "secrets.toml").read_text()
    lines = []
    for line in recipe.splitlines():
        key = line.split("=", 1)[0].strip()
        if "=" in line and not line.lstrip().startswith("#") and key in section:
            line = f'{key} = "{section[key]}"'
        lines.append(line)
    text = "\n".join(lines) + "\n"
    missing = [key for key in section if f'{key} = "{section[key]}"' not in text]
    assert not missing, f"deploy/secrets.toml has no line for {missing}"
    path.write_text(text)
    return path


def sign_in(page: Any, app_url: str, email: str, *, timeout_s: float = 60) -> None:
    """From rlmon's sign-in page (open in ``page``): its button, the provider's page (the address typed in),
    and back to the app at ``app_url``."""
    page.get_by_role("button", name="Sign in").click(timeout=timeout_s * 1000)
    page.wait_for_url("**/oauth2/authorize**", timeout=timeout_s * 1000)
    page.fill("input[name=sub]", email)
    page.get_by_role("button", name="Authorize").click()
    page.wait_for_url(f"{app_url}/", timeout=timeout_s * 1000)


def sign_out(page: Any, app_url: str, *, button: str = "Sign out", timeout_s: float = 60) -> None:
    """rlmon's sign-out button, the provider's end of session (it asks to confirm), and back to the app."""
    page.get_by_role("button", name=button).click(timeout=timeout_s * 1000)
    page.wait_for_url("**/oauth2/end_session**", timeout=timeout_s * 1000)
    page.get_by_role("button", name="End session").click()
    page.wait_for_url(f"{app_url}/", timeout=timeout_s * 1000)


class Frames:
    """Every websocket frame the app sent to a page, from the moment it is attached (before ``page.goto``)."""

    def __init__(self, page: Any) -> None:
        self.received: list[bytes] = []
        page.on("websocket", lambda socket: socket.on("framereceived", self._keep))

    def _keep(self, payload: Any) -> None:
        self.received.append(payload if isinstance(payload, bytes) else str(payload).encode())

    @property
    def data(self) -> bytes:
        return b"".join(self.received)

    def message_kinds(self) -> set[str]:
        """What the frames carried, decoded as Streamlit's ForwardMsg: the message kinds, and for each element sent
        its kind (``element:markdown``, ``element:vega_lite_chart``...)."""
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        kinds: set[str] = set()
        for payload in self.received:
            message = ForwardMsg.FromString(payload)
            kind = message.WhichOneof("type")
            kinds.add(str(kind))
            if kind == "delta" and message.delta.WhichOneof("type") == "new_element":
                kinds.add(f"element:{message.delta.new_element.WhichOneof('type')}")
            if kind == "navigation":
                kinds.update(f"page:{page.url_pathname}" for page in message.navigation.app_pages)
        return kinds
