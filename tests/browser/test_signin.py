"""Sign-in end to end: two replicas set up as the deployment recipe says (deploy/rlmon.env, deploy/secrets.toml,
deploy/nginx-rlmon.conf in front), a real OpenID Connect provider on loopback (oidc-provider-mock, started here),
driven in headless Chromium through the proxy.

* an address on the list signs in and sees the overview, the sidebar saying who is signed in;
* an address off the list sees the refusal, and nothing of the data reaches its browser (page and websocket);
* signed out (never signed in, or after signing out), a link to an experiment page and to a report, CSV or Parquet
  download lands on the sign-in; ``/_stcore/health`` answers without a sign-in;
* a person signed in on one replica stays signed in when it stops and the proxy sends them to the other;
* a person signed in stays in when the provider stops (one replica and a provider of its own), and every page says
  at its top that no one can sign in now (test-artifacts/signin-provider-down-*.png).

Screenshots of the sign-in and refusal pages and of the sidebar's signed-in block, at 1440x900 and 390x844, in
English and 中文, go to test-artifacts/signin-*.png. Skipped, with the reason, without Chromium and playwright,
Debian's nginx or the oidc-provider-mock package.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from rlmon.text import t
from tests.helpers.browser_pages import screenshot
from tests.helpers.logs import env_file, step_lines
from tests.helpers.nginx import health, require_nginx, run_nginx, served_by
from tests.helpers.paths import REPO_ROOT
from tests.helpers.server import free_port, page_not_found_frames, serve, watch_page_not_found
from tests.helpers.signin import Frames, auth_section, oidc_provider, sign_in, sign_out, write_recipe_secrets

pytestmark = pytest.mark.browser

HEADER = b"+ python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo\n"
EXPERIMENT_PAGE = "zebra-lab-run-zebra-17"
"""The page of the one experiment, ``zebra_lab/run_zebra_17`` (200 steps of metrics actor/m0..actor/m5)."""
SECRET_WORDS = (b"zebra_lab", b"run_zebra_17", b"actor/m", b"200 steps", b"grpo", b"GRPO")
"""What the data would show of itself in a frame: the folder and experiment names, a metric, the progress."""
GATE_ELEMENTS = {"element:markdown", "element:button", "element:button_group", "element:alert"}
"""All a page in front of the app is made of: text, the sign-in or sign-out button, the language picker, a message."""
WIDE = {"width": 1440, "height": 900}
NARROW = {"width": 390, "height": 844}


@dataclass
class Deployment:
    proxy: str
    nginx_folder: Path
    replica_urls: list[str]
    server_logs: list[Path]
    stops: list[contextlib.ExitStack] = field(default_factory=list)


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    """The provider, two replicas with the recipe's settings and secrets (who may enter: team.example, and
    carol@partner.example), and nginx in front of them."""
    require_nginx()
    folder = tmp_path_factory.mktemp("signin")
    log = folder / "logs" / "zebra_lab" / "run_zebra_17" / "run.log"
    log.parent.mkdir(parents=True)
    log.write_bytes(HEADER + step_lines(1, 200, keys=6))
    listen = free_port()
    proxy = f"http://127.0.0.1:{listen}"
    env = env_file(REPO_ROOT / "deploy" / "rlmon.env") | {
        "RLMON_LOG_ROOT": str(folder / "logs"),
        "RLMON_CACHE_DIR": str(folder / "cache"),
        "RLMON_ALLOWED_DOMAINS": "team.example",
        "RLMON_ALLOWED_EMAILS": "carol@partner.example",
    }
    with oidc_provider(folder) as provider, contextlib.ExitStack() as outer:
        # every replica reads its own copy of one secrets file (as on several machines): one cookie secret
        section = auth_section(provider, redirect_uri=f"{proxy}/oauth2callback")
        found = Deployment(proxy=proxy, nginx_folder=folder / "nginx", replica_urls=[], server_logs=[])
        for index in range(2):
            home = folder / f"replica-{index}"
            home.mkdir()
            write_recipe_secrets(home / "secrets.toml", section)
            stack = outer.enter_context(contextlib.ExitStack())
            found.replica_urls.append(stack.enter_context(serve(home, env, f"server-signin-{index}.log")))
            found.server_logs.append(home / "server.log")
            found.stops.append(stack)
        found.nginx_folder.mkdir()
        ports = [int(url.rsplit(":", 1)[1]) for url in found.replica_urls]
        assert outer.enter_context(run_nginx(found.nginx_folder, listen=listen, replica_ports=ports)) == proxy
        yield found


def new_page(browser: Any, *, lang: str = "en-US") -> Any:
    return browser.new_context(viewport=WIDE, locale=lang, accept_downloads=True).new_page()


def text_of(page: Any) -> str:
    """The page's text as a person reads it (the invisible word joiner after an "@" left out)."""
    return str(page.inner_text("body")).replace("\u2060", "")


def wait_for_overview(page: Any, *, timeout_s: float = 60) -> None:
    page.locator('[data-testid="stVegaLiteChart"]').first.wait_for(timeout=timeout_s * 1000)
    # the progress as a person reads it, in either language (the table's own cells are hidden copies)
    page.wait_for_function("() => /(^|[^\\d,])200 (steps|步)/.test(document.body.innerText)", timeout=timeout_s * 1000)


def no_errors(page: Any) -> None:
    assert page.locator('[data-testid="stException"]').count() == 0
    assert "Traceback" not in page.content()


def assert_nothing_of_the_data(page: Any, frames: Frames) -> None:
    """Neither the page nor any websocket frame holds a name or number of the experiment; the frames held no element
    but text, buttons and the language picker (no chart, table or download), and no page menu."""
    content = page.content().encode()
    assert not [word for word in SECRET_WORDS if word in content]
    assert not [word for word in SECRET_WORDS if word in frames.data]
    kinds = frames.message_kinds()
    assert "element:markdown" in kinds, kinds  # the frames were seen (the page was drawn from them)
    assert {kind for kind in kinds if kind.startswith("element:")} <= GATE_ELEMENTS, kinds
    assert "navigation" not in kinds and not [kind for kind in kinds if kind.startswith("page:")], kinds


def shoot_both_widths(page: Any, name: str) -> None:
    page.set_viewport_size(WIDE)
    page.wait_for_timeout(300)
    screenshot(page, f"{name}-1440")
    page.set_viewport_size(NARROW)
    page.wait_for_timeout(300)
    screenshot(page, f"{name}-390")
    page.set_viewport_size(WIDE)


def choose_language(page: Any, name: str) -> None:
    page.get_by_role("radio", name=name, exact=True).first.click()
    page.wait_for_timeout(500)


def test_an_address_on_the_list_signs_in_and_sees_the_overview(deployment: Deployment, browser: Any) -> None:
    page = new_page(browser)
    frames = Frames(page)
    page.goto(deployment.proxy)
    page.get_by_role("button", name="Sign in").wait_for(timeout=60_000)
    assert "This rlmon server shows the team's training runs to signed-in members only." in text_of(page)
    assert_nothing_of_the_data(page, frames)
    shoot_both_widths(page, "signin-page-en")
    choose_language(page, "中文")
    page.get_by_role("button", name="登录").wait_for(timeout=30_000)
    shoot_both_widths(page, "signin-page-zh")
    choose_language(page, "English")
    # case does not matter: the provider says Alice@Team.Example, the list team.example
    sign_in(page, deployment.proxy, "Alice@Team.Example")
    wait_for_overview(page)
    no_errors(page)
    assert "run_zebra_17" in text_of(page)
    sidebar = page.locator('[data-testid="stSidebar"]')
    assert "Signed in as Alice@Team.Example" in sidebar.inner_text().replace("\u2060", "")
    assert sidebar.get_by_role("button", name="Sign out").is_visible()
    assert page.locator('a[href^="mailto:"]').count() == 0  # the address is text, not a link
    screenshot(page, "signin-sidebar-en-1440")
    choose_language(page, "中文")
    sidebar.get_by_text(re.compile("已登录：Alice\u2060?@")).wait_for(timeout=30_000)
    screenshot(page, "signin-sidebar-zh-1440")
    page.set_viewport_size(NARROW)
    page.locator('[data-testid="stExpandSidebarButton"]').click()
    sidebar.get_by_role("button", name="退出登录").wait_for(timeout=30_000)
    page.wait_for_timeout(500)
    screenshot(page, "signin-sidebar-zh-390")
    page.context.close()


def test_an_address_off_the_list_sees_the_refusal_and_none_of_the_data(deployment: Deployment, browser: Any) -> None:
    page = new_page(browser)
    frames = Frames(page)
    page.goto(deployment.proxy)
    sign_in(page, deployment.proxy, "bob@other.example")
    page.get_by_text("Not on this server's list").wait_for(timeout=60_000)
    shown = text_of(page)
    assert "You are signed in as bob@other.example, an address this rlmon server does not let in." in shown
    assert "Sign out and sign in with another account, or ask whoever runs rlmon to add you." in shown
    assert page.locator('a[href^="mailto:"]').count() == 0
    assert_nothing_of_the_data(page, frames)
    shoot_both_widths(page, "signin-refused-en")
    choose_language(page, "中文")
    page.get_by_text("不在此服务器的名单上").wait_for(timeout=30_000)
    shoot_both_widths(page, "signin-refused-zh")
    # a link to the experiment's page gets the refusal too
    page.goto(f"{deployment.proxy}/{EXPERIMENT_PAGE}")
    page.get_by_role("button", name="Sign out").wait_for(timeout=60_000)
    assert_nothing_of_the_data(page, frames)
    # signing out leads back to the sign-in
    sign_out(page, deployment.proxy)
    page.get_by_role("button", name="Sign in").wait_for(timeout=60_000)
    assert "_streamlit_user" not in {cookie["name"] for cookie in page.context.cookies()}
    assert_nothing_of_the_data(page, frames)
    page.context.close()


def download_url(page: Any, label: str) -> str:
    """The address of the file behind one of the overview's download buttons."""
    button = page.get_by_role("button", name=label, exact=True)
    button.scroll_into_view_if_needed(timeout=60_000)
    with page.expect_download(timeout=60_000) as download:
        button.click()
    return str(download.value.url)


def lands_on_the_sign_in(browser: Any, deployment: Deployment, url: str) -> None:
    """A browser never signed in, sent to ``url``, ends on the sign-in, with no Page-not-found box and none of
    the data."""
    page = new_page(browser)
    frames = Frames(page)
    watch_page_not_found(page)
    page.goto(url)
    page.get_by_role("button", name="Sign in").wait_for(timeout=60_000)
    assert page_not_found_frames(page)[0] == 0
    assert_nothing_of_the_data(page, frames)
    page.context.close()


def test_links_while_signed_out_land_on_the_sign_in(deployment: Deployment, browser: Any) -> None:
    alice = new_page(browser)
    alice.goto(deployment.proxy)
    sign_in(alice, deployment.proxy, "alice@team.example")
    wait_for_overview(alice)
    files = {
        "report": download_url(alice, t("report_download", "en")),
        "csv": download_url(alice, t("download_csv", "en")),
        "parquet": download_url(alice, t("download_parquet", "en")),
    }
    assert all(f"{deployment.proxy}/media/" in url for url in files.values()), files
    # signed in and on the list: the files come
    report = alice.request.get(files["report"])
    assert report.status == 200 and b"run_zebra_17" in report.body()
    csv = alice.request.get(files["csv"])
    assert csv.status == 200 and csv.body().startswith(b"experiment") and b"zebra_lab/run_zebra_17" in csv.body()
    # never signed in: a link to the experiment's page, to the report, to the tables -> the sign-in
    lands_on_the_sign_in(browser, deployment, f"{deployment.proxy}/{EXPERIMENT_PAGE}")
    lands_on_the_sign_in(browser, deployment, files["report"])
    stranger = new_page(browser).context.request
    for url in files.values():
        refused = stranger.get(url, max_redirects=0)
        assert (refused.status, refused.headers.get("location")) == (303, "/"), url
        assert b"zebra" not in refused.body()
    # signed in but off the list: no file either
    bob = new_page(browser)
    bob.goto(deployment.proxy)
    sign_in(bob, deployment.proxy, "bob@other.example")
    bob.get_by_text("Not on this server's list").wait_for(timeout=60_000)
    assert bob.request.get(files["report"], max_redirects=0).status == 303
    bob.context.close()
    # alice signs out: her page is the sign-in, her links lead there too
    sign_out(alice, deployment.proxy)
    alice.get_by_role("button", name="Sign in").wait_for(timeout=60_000)
    assert alice.request.get(files["report"], max_redirects=0).status == 303
    alice.goto(f"{deployment.proxy}/{EXPERIMENT_PAGE}")
    alice.get_by_role("button", name="Sign in").wait_for(timeout=60_000)
    alice.context.close()
    # the health check needs no sign-in, through the proxy and on each replica
    for url in [deployment.proxy, *deployment.replica_urls]:
        assert health(url) == (200, "ok")


def test_a_sign_in_survives_its_replica_stopping(deployment: Deployment, browser: Any) -> None:
    """Last in this module: it stops a replica."""
    page = new_page(browser)
    page.goto(deployment.proxy)
    sign_in(page, deployment.proxy, "carol@partner.example")
    wait_for_overview(page)
    serving = served_by(deployment.nginx_folder)[-1][2]
    index = [url.removeprefix("http://") for url in deployment.replica_urls].index(serving)
    deployment.stops[index].close()
    other = deployment.replica_urls[1 - index].removeprefix("http://")
    # the open page reconnects through the proxy to the other replica, still signed in: its controls work
    sidebar = page.locator('[data-testid="stSidebar"]')
    deadline = time.monotonic() + 60
    while True:
        with contextlib.suppress(Exception):
            choose_language(page, "中文")
            sidebar.get_by_text(re.compile("已登录：carol\u2060?@")).wait_for(timeout=5_000)
            break
        assert time.monotonic() < deadline, text_of(page)[:2000]
    wait_for_overview(page)
    no_errors(page)
    assert page.get_by_role("button", name="登录", exact=True).count() == 0
    # a new page load is served by the other replica, which reads the same sign-in
    page.goto(f"{deployment.proxy}/{EXPERIMENT_PAGE}")
    page.get_by_text("Training curves").wait_for(timeout=60_000)
    assert "Signed in as carol@partner.example" in text_of(page)
    no_errors(page)
    assert served_by(deployment.nginx_folder)[-1][2] == other
    page.context.close()
    for path in deployment.server_logs:
        problems = [line for line in path.read_text(errors="replace").splitlines() if "Traceback" in line]
        assert not problems, path.read_text(errors="replace")[-3000:]


def test_a_person_signed_in_stays_in_and_is_told_when_the_provider_stops(tmp_path: Path, browser: Any) -> None:
    """One replica and its own provider (stopped by the test): signed in, then the provider gone, the overview stays
    and says at its top that no one can sign in now; the server log says it once."""
    log = tmp_path / "logs" / "zebra_lab" / "run_zebra_17" / "run.log"
    log.parent.mkdir(parents=True)
    log.write_bytes(HEADER + step_lines(1, 200, keys=6))
    env = {
        "RLMON_LOG_ROOT": str(tmp_path / "logs"),
        "RLMON_CACHE_DIR": str(tmp_path / "cache"),
        "RLMON_ALLOWED_DOMAINS": "team.example",
    }
    with contextlib.ExitStack() as provider_stack:
        provider = provider_stack.enter_context(oidc_provider(tmp_path))
        # Streamlit puts the port it serves on in place of "{port}"
        section = auth_section(provider, redirect_uri="http://127.0.0.1:{port}/oauth2callback")
        write_recipe_secrets(tmp_path / "secrets.toml", section)
        with serve(tmp_path, env, "server-signin-provider-down.log") as url:
            page = new_page(browser)
            page.goto(url)
            sign_in(page, url, "alice@team.example")
            wait_for_overview(page)
            warning = page.locator('[data-testid="stAlert"]').filter(has_text="sign-in provider")
            assert warning.count() == 0  # it answers: nothing to say
            provider_stack.close()  # the provider stops
            # the server asks it again within 30 s; a page drawn after that says so
            deadline = time.monotonic() + 90
            while warning.count() == 0 and time.monotonic() < deadline:
                page.wait_for_timeout(5000)
                page.reload()
                wait_for_overview(page)
            said = warning.locator('[data-testid="stMarkdownContainer"]').inner_text().replace("\u2060", "")
            assert re.fullmatch(
                r"The sign-in provider 127\.0\.0\.1 does not answer \(.+\)\. You stay signed in, but no one can sign "
                r"in until it answers again: if you sign out now, you cannot come back before then\.",
                said.strip(),
            ), said
            no_errors(page)
            assert "run_zebra_17" in text_of(page)
            sidebar = page.locator('[data-testid="stSidebar"]')
            assert "Signed in as alice@team.example" in sidebar.inner_text().replace("\u2060", "")
            for viewport, name in ((WIDE, "1440"), (NARROW, "390")):
                page.set_viewport_size(viewport)
                page.wait_for_timeout(500)
                box = warning.bounding_box()
                assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"] + 1, box
                screenshot(page, f"signin-provider-down-en-{name}")
            page.set_viewport_size(WIDE)
            choose_language(page, "中文")
            zh = page.locator('[data-testid="stAlert"]').filter(has_text="登录服务")
            zh.wait_for(timeout=30_000)
            assert "你仍保持登录" in zh.inner_text()
            for viewport, name in ((WIDE, "1440"), (NARROW, "390")):
                page.set_viewport_size(viewport)
                page.wait_for_timeout(500)
                screenshot(page, f"signin-provider-down-zh-{name}")
            page.context.close()
        server_log = (tmp_path / "server.log").read_text(errors="replace")
    lines = [line for line in server_log.splitlines() if "does not answer" in line]
    assert len(lines) == 1, lines
    assert f"sign-in provider {provider}/.well-known/openid-configuration does not answer (" in lines[0]
