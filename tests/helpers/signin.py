"""What the sign-in tests share: a real OpenID Connect provider on loopback (the ``oidc-provider-mock`` package, run
as its own process: its authorization page signs in whatever address is typed in it), the ``[auth]`` section and
secrets file that point rlmon at it, signing in and out in Chromium, and reading what reached the browser over the
websocket."""

from __future__ import annotations

import contextlib
import importlib.util
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.paths import REPO_ROOT
from tests.helpers.server import answers, free_port, stop

COOKIE_SECRET = secrets.token_hex(32)
"""Every replica of a test's servers signs its cookies with this one (it is in every replica's secrets)."""
CLIENT_ID = "rlmon-tests"
CLIENT_SECRET = "rlmon-tests-secret"


@contextlib.contextmanager
def oidc_provider(folder: Path, *, timeout_s: float = 30) -> Iterator[str]:
    """A real OpenID provider (``python -m oidc_provider_mock``) on a free loopback port for the block, its output in
    ``folder/provider.log``; yields its base URL once its OpenID configuration answers. Any address typed on its
    authorization page signs in with the claims ``{"sub": address, "email": address}``. Skips without the
    package."""
    if importlib.util.find_spec("oidc_provider_mock") is None:
        pytest.skip("oidc-provider-mock is not installed (it is in the dev extra)")
    log_path = folder / "provider.log"
    with log_path.open("wb") as log:
        for attempt in range(3):  # a port found free can be taken before the provider binds it
            port = free_port()
            process = subprocess.Popen(
                [sys.executable, "-m", "oidc_provider_mock", "--port", str(port), "--host", "127.0.0.1"],
                stdout=log, stderr=subprocess.STDOUT,
            )  # fmt: skip
            url = f"http://127.0.0.1:{port}"
            if answers(process, f"{url}/.well-known/openid-configuration", timeout_s=timeout_s):
                break
            process.kill()
            process.wait()
            assert attempt < 2, log_path.read_text(errors="replace")[-3000:]
        try:
            yield url
        finally:
            stop(process)


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
