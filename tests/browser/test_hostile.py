"""The app against hostile input in a real browser (cases 6, 7 and 12 of tests/app/test_hostile.py): text from
logs, folders and ``rlmon.toml`` is shown literally and fetches nothing, no other host is asked for anything, and
long and bidi names keep the page narrow (no horizontal scrolling at 1440 and 390 px).
"""

from __future__ import annotations

import re
import time
import urllib.parse
from collections.abc import Iterator
from typing import Any

import pytest

from rlmon.app import navigation
from tests.helpers.generated_roots import (
    BIDI_CONTROLS,
    EXTERNAL,
    FAILURE,
    FOLDER_MARKUP,
    HOSTILE_KEYS,
    LAUNCH_MARKUP,
    MARKUP,
    TRACK_MARKUP,
    VALIDATION_SOURCE,
    HostileRoot,
    write_hostile_root,
)
from tests.helpers.paths import ARTIFACTS
from tests.helpers.server import CHROMIUM, CHROMIUM_ARGS, page_not_found_frames, serve, watch_page_not_found


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, HostileRoot]]:
    """The app on a root whose names and log text carry markup, bidi controls and a 3,000-character label."""
    folder = tmp_path_factory.mktemp("browser-hostile")
    written = write_hostile_root(folder / "logs")
    # Chart titles are read back from the page's text: every chart drawn at once, as SVG (a canvas holds pixels).
    env = {"RLMON_LOG_ROOT": str(written.root), "RLMON_CACHE_DIR": str(folder / "cache"),
           "RLMON_CHART_RENDERER": "svg", "RLMON_DRAW_ALL_CHARTS": "1"}  # fmt: skip
    with serve(folder, env, "server-hostile.log") as url:
        yield url, written


@pytest.fixture(scope="module")
def chromium(hostile: tuple[str, HostileRoot]) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield instance
        instance.close()


class Visit:
    """A browser tab on the app that aborts, and records, every request not to the app's own origin."""

    def __init__(self, chromium: Any, origin: str, *, width: int, height: int = 900) -> None:
        self.origin = origin
        self.context = chromium.new_context(viewport={"width": width, "height": height}, locale="en-US")
        self.page = self.context.new_page()
        self.outside: list[str] = []
        self.page.route("**/*", self._only_the_app)

    def _only_the_app(self, route: Any) -> None:
        if route.request.url == self.origin or route.request.url.startswith(self.origin + "/"):
            route.continue_()
        else:
            self.outside.append(route.request.url)
            route.abort()

    def open(self, path: str, *, wait_for: str, charts: int = 1) -> Any:
        page = self.page
        page.goto(self.origin + path)
        page.get_by_text(wait_for).first.wait_for(timeout=60_000)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            drawn = page.locator('[data-testid="stVegaLiteChart"] svg, [data-testid="stVegaLiteChart"] canvas').count()
            if drawn >= charts:
                break
            page.wait_for_timeout(300)
        page.wait_for_timeout(1500)
        assert page.locator('[data-testid="stException"]').count() == 0
        return page

    def close(self) -> None:
        self.context.close()


def shown(page: Any, text: str) -> bool:
    """Whether ``text`` is on the page as it is (markdown or HTML that was rendered would not read the same).

    A colon may be followed by the invisible word joiner :func:`rlmon.app.guards.escape_markdown` puts after it."""
    pattern = re.compile("".join(re.escape(char) + ("\u2060?" if char == ":" else "") for char in text))
    return bool(page.get_by_text(pattern).count())


def page_slug(experiment_id: str) -> str:
    return navigation.experiment_slug(experiment_id)


@pytest.mark.browser
def test_log_text_is_shown_literally_and_fetches_nothing(chromium: Any, hostile: tuple[str, HostileRoot]) -> None:
    url, root = hostile
    visit = Visit(chromium, url, width=1440)
    unknown_metric = f"no/such<img src={EXTERNAL}/u>"
    metrics = [HOSTILE_KEYS[0], f"val-core/{VALIDATION_SOURCE}/acc/mean@1", unknown_metric]
    query = urllib.parse.urlencode({"track": "*", "live": "0", "m": metrics}, doseq=True)
    pages = {
        # labels (folder names, rlmon.toml), tracks (a config value, a launch command), metric keys and a
        # validation source in chart titles, a metric name in a notice
        f"/?{query}": [FOLDER_MARKUP, TRACK_MARKUP, LAUNCH_MARKUP, HOSTILE_KEYS[0], VALIDATION_SOURCE, unknown_metric],
        # the whole label, the failure and its frame (a folder name), the validation source, metric keys
        f"/{page_slug(root.markup)}?live=0": [MARKUP, FAILURE, FOLDER_MARKUP, VALIDATION_SOURCE, *HOSTILE_KEYS],
        f"/{page_slug(root.folder)}?live=0": [FOLDER_MARKUP, TRACK_MARKUP],
        f"/{page_slug(root.rlo)}?live=0": ["E4 evil·RLO", LAUNCH_MARKUP],
    }
    missing: list[str] = []
    for path, texts_shown in pages.items():
        page = visit.open(path, wait_for="Qwen3-8B", charts=2)
        page.mouse.wheel(0, 20_000)
        page.wait_for_timeout(1000)
        missing += [f"{path}: {text!r}" for text in texts_shown if not shown(page, text)]
        assert page.locator(f'img[src*="{EXTERNAL[7:]}"], img[src$="p.png"], img[src$="x.png"]').count() == 0
        content = page.evaluate("document.querySelector('[data-testid=stApp]').textContent")
        assert not set(content) & set(BIDI_CONTROLS), f"{path}: bidi controls reached the page"
        # ":smile:" and ":material/home:" in names stay text, not an emoji or an icon
        assert "\U0001f604" not in content, f"{path}: an emoji shortcode from a name was rendered"
        assert page.locator('[data-testid="stIconMaterial"]', has_text=re.compile(r"^home$")).count() == 0
        assert visit.outside == [], f"{path} asked other hosts for {visit.outside}"
    visit.close()
    assert not missing, "not shown literally:\n" + "\n".join(missing)


@pytest.mark.browser
@pytest.mark.parametrize("width", [1440, 390])
def test_long_and_bidi_names_keep_the_page_narrow(chromium: Any, hostile: tuple[str, HostileRoot], width: int) -> None:
    url, root = hostile
    visit = Visit(chromium, url, width=width)
    too_wide = []
    for path in ("/?track=*&live=0", f"/{page_slug(root.long)}?live=0", f"/{page_slug(root.rlo)}?live=0"):
        page = visit.open(path, wait_for="Qwen3-8B", charts=2)
        measured = page.evaluate(
            """() => {
              const width = (testid) => {
                const element = document.querySelector(`[data-testid=${testid}]`);
                return element ? [element.scrollWidth, element.clientWidth] : null;
              };
              const sidebar = document.querySelector('[data-testid=stSidebar]');
              const open = sidebar && sidebar.getAttribute('data-collapsed') === 'false';
              return {document: [document.documentElement.scrollWidth, window.innerWidth], main: width('stMain'),
                      sidebar: open ? width('stSidebarContent') : null};
            }"""
        )
        for where, sizes in measured.items():
            if sizes is not None and sizes[0] > sizes[1] + 1:
                too_wide.append(f"{path} at {width} px: {where} is {sizes[0]} px wide in {sizes[1]} px")
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"hostile-{path.strip('/').split('?')[0] or 'overview'}-{width}.png"))
    visit.close()
    assert not too_wide, "\n".join(too_wide)


@pytest.mark.browser
def test_home_opens_the_overview_without_a_page_not_found_box(chromium: Any, hostile: tuple[str, HostileRoot]) -> None:
    # Repro: /home (the overview's own name) opened Streamlit's "Page not found" box.
    url, _root = hostile
    visit = Visit(chromium, url, width=1440)
    watch_page_not_found(visit.page)
    page = visit.open("/home?live=0", wait_for="Experiments", charts=1)
    boxed, painted = page_not_found_frames(page)
    visit.close()
    assert painted > 30 and boxed == 0, (boxed, painted)
