"""The app against hostile input in a real browser (cases 6, 7 and 12 of tests/app/test_hostile.py): text from
logs, folders and ``rlmon.toml`` is shown literally and fetches nothing, no other host is asked for anything, and
long and bidi names keep the page narrow (no horizontal scrolling at 1440 and 390 px).

Round three (issue 27): no name from a log, a folder or ``rlmon.toml`` becomes a link on any page
(``test_no_name_becomes_a_link_...``: no link leaves any page), and each place a name is shown holds it as text,
in no ``<a>``: the header, the summary, the sidebar's chips and legend (its tooltip: the whole label and id), the
legend chips, the experiments table's cells and its name column's tooltip, a chart's hover tooltip (it must show),
the report the overview downloads and the experiment page's header
(``test_a_linkish_name_is_text_in_every_place_it_is_shown``); a description keeps its markdown but no image, HTML
or autolink (``test_a_description_keeps_its_markdown_...``); ``/home`` opens the overview without a "Page not
found" box.
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
    LINKISH,
    LINKISH_FAILURE,
    LINKISH_KEYS,
    LINKISH_SOURCE,
    LINKISH_TRACK,
    MARKUP,
    TRACK_MARKUP,
    VALIDATION_SOURCE,
    WIKI,
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


# Every <a> whose target is not the app itself: where it points, its text, the test id of the element around it.
FOREIGN_LINKS = """() => [...document.querySelectorAll('a[href]')]
    .filter((a) => { try { return new URL(a.getAttribute('href'), location.href).origin !== location.origin; }
                     catch { return true; } })
    .map((a) => ({href: a.getAttribute('href'), text: a.textContent,
                  where: a.closest('[data-testid]')?.getAttribute('data-testid') || ''}))"""


def foreign_links(page: Any) -> list[dict[str, str]]:
    """The page's links that leave the app (a fragment, a path or an address of the app itself stays)."""
    return list(page.evaluate(FOREIGN_LINKS))


def page_text(page: Any) -> str:
    """The app's text as a reader sees it (the invisible word joiners that keep text from the autolinker out)."""
    return str(page.evaluate("document.querySelector('[data-testid=stApp]').innerText")).replace("\u2060", "")


@pytest.mark.browser
def test_no_name_becomes_a_link_and_only_a_descriptions_own_link_leaves_the_page(
    chromium: Any, hostile: tuple[str, HostileRoot]
) -> None:
    # Repro: the label "see http://127.0.0.2/phish www.x.example/x" gave three working <a href> on the overview
    # (escaping the colon did not stop Streamlit's autolinker), and a description's ![x](http://other/p.png) made
    # every visitor's browser fetch it.
    url, root = hostile
    visit = Visit(chromium, url, width=1440)
    unknown = "www.u.example see http://127.0.0.2/u ops@u.example"
    pages = {
        # header (tracks), summary, experiments table, latest-samples links, legend chips, chart titles, sidebar
        # (the overview shows a label past 22 characters by its words that fit, whole in the tooltip: the rule of
        # rlmon.text.names, worked by hand: "see", then "http://127.0.0.2", then "…")
        "/?track=*&live=0": ["see http://127.0.0.2…", LINKISH_TRACK],
        # title, description, failure, sources, validation source, explorer, notes
        f"/{page_slug(root.linkish)}?live=0": [LINKISH, LINKISH_TRACK, LINKISH_FAILURE, LINKISH_SOURCE, *LINKISH_KEYS],
        "/generations?" + urllib.parse.urlencode({"id": root.linkish, "live": "0"}): [LINKISH],
        # what a visitor sends back in a notice: an unknown experiment in each link form
        "/?" + urllib.parse.urlencode({"exp": unknown, "live": "0"}): [unknown],
        "/exp?" + urllib.parse.urlencode({"id": unknown, "live": "0"}): [unknown],
        "/generations?" + urllib.parse.urlencode({"id": unknown, "live": "0"}): [unknown],
    }
    problems: list[str] = []
    for path, texts_shown in pages.items():
        page = visit.open(path, wait_for="Qwen3-8B", charts=0 if "generations" in path or "exp?" in path else 2)
        if path.startswith("/?track"):
            # the latest-samples links come once the background scan is done (a refresh later)
            deadline = time.monotonic() + 60
            while page.get_by_text("Latest samples").count() == 0 and time.monotonic() < deadline:
                page.wait_for_timeout(2000)
                page.reload()
                page.get_by_text("Qwen3-8B").first.wait_for(timeout=60_000)
            assert page.get_by_text("Latest samples").count(), "no latest-samples links"
        if "generations" in path and "u.example" not in path:
            page.get_by_text("Render markdown and math").click()
            page.wait_for_timeout(2000)
        page.mouse.wheel(0, 20_000)
        page.wait_for_timeout(1500)
        text = page_text(page)
        problems += [f"{path}: {shown!r} not shown" for shown in texts_shown if shown not in text]
        allowed = [WIKI] if path.startswith(f"/{page_slug(root.linkish)}?") else []
        problems += [f"{path}: a link {anchor}" for anchor in foreign_links(page) if anchor["href"] not in allowed]
        problems += [f"{path}: asked {visit.outside}"] if visit.outside else []
    visit.close()
    assert not problems, "\n".join(problems)


# What each place holds as a reader sees it (word joiners out), the text and target of every <a> in it, its tooltips.
PLACE = """(element) => {
  const text = (node) => (node.innerText ?? node.textContent ?? '').replaceAll('\u2060', '');
  return {text: text(element), links: [...element.querySelectorAll('a')].map((a) => [text(a), a.getAttribute('href')]),
          titles: [...element.querySelectorAll('[title]')].map((node) => node.getAttribute('title'))};
}"""


def place(locator: Any) -> dict[str, Any]:
    """:data:`PLACE` of the first element ``locator`` finds (waited for, up to 30 s)."""
    locator.first.wait_for(state="attached", timeout=30_000)
    return dict(locator.first.evaluate(PLACE))


def hover_tooltip(page: Any, chart: Any) -> str:
    """The SVG picture of a chart's hover tooltip (:mod:`rlmon.views.tooltip`), hovering across the plot until it
    shows (bounded); fails when no tooltip appears."""
    chart.scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    box = chart.bounding_box()
    assert box is not None
    tip = page.locator("#vg-tooltip-element")
    for share in (0.5, 0.6, 0.4, 0.7):
        x, y = box["x"] + box["width"] * share, box["y"] + box["height"] * 0.45
        page.mouse.move(x - 40, y)
        page.mouse.move(x, y, steps=8)
        try:
            tip.locator("img").wait_for(state="visible", timeout=5_000)
        except Exception:
            continue
        assert tip.locator("a").count() == 0, "a link in the chart's tooltip"
        src = tip.locator("img").get_attribute("src") or ""
        assert src.startswith("data:image/svg+xml,"), src[:80]
        return urllib.parse.unquote(src.removeprefix("data:image/svg+xml,"))
    raise AssertionError("no tooltip appeared over the chart")


@pytest.mark.browser
def test_a_linkish_name_is_text_in_every_place_it_is_shown(
    chromium: Any, hostile: tuple[str, HostileRoot], tmp_path: Any
) -> None:
    # Repro: the label "see http://127.0.0.2/phish www.x.example/x ops@x.example" gave working links on the
    # overview. Each place a name is shown holds it, as text and in no <a>: the short name where a name is short
    # (rlmon.text.names: "see", then "http://127.0.0.2", then "…"), the whole label and id in the tooltips.
    from xml.etree import ElementTree

    from tests.helpers.browser_pages import on_settled
    from tests.helpers.html_page import parse

    url, root = hostile
    short, whole = "see http://127.0.0.2…", f"{LINKISH} — {root.linkish}"
    visit = Visit(chromium, url, width=1440)
    page = visit.open("/?track=*&live=0", wait_for="Qwen3-8B", charts=2)
    main = page.locator('[data-testid="stMain"]')
    table = page.locator('.st-key-overview_table [data-testid="stDataFrame"]')
    places = {
        "header": place(main.locator('[data-testid="stCaptionContainer"]')),
        "summary": place(
            page.locator('[data-testid="stVerticalBlock"]').filter(has=page.get_by_role("heading", name="Summary")).last
        ),
        "sidebar chips": place(page.locator(".st-key-app_experiments")),
        "sidebar legend": place(
            page.locator('[data-testid="stSidebar"] [data-testid="stHtml"]').filter(has_text=short)
        ),
        "legend chips": place(page.locator(".st-key-overview_highlight")),
        # glide-data-grid draws on a canvas; the table it keeps beside it for screen readers holds each cell's text
        "experiments table": place(table.locator("table[role=grid]")),
    }
    problems = [f"{where}: {short!r} not shown" for where, found in places.items() if short not in found["text"]]
    problems += [
        f"{where}: a link {link!r}"
        for where, found in places.items()
        for link in found["links"]
        if short in link[0] or not (link[1] or "").startswith("#")  # a heading's own anchor stays
    ]
    # the experiments table: the name is a cell's whole text, and the track named in rlmon.toml another's
    cells = table.locator("table[role=grid] td").all_text_contents()
    problems += [f"table cells {cells[:12]}"] if short not in cells or LINKISH_TRACK not in cells else []
    # the sidebar legend's tooltip (title) gives the whole label and the id
    problems += [] if whole in places["sidebar legend"]["titles"] else [f"legend tooltips {places['sidebar legend']}"]
    # the name column's tooltip (its help) lists the whole label and id of each name shown shorter
    table.first.scroll_into_view_if_needed()
    box = table.first.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + 30, box["y"] + 17)
    page.mouse.move(box["x"] + 60, box["y"] + 17, steps=5)
    help_tip = page.locator('[data-testid="stDataFrameTooltipContent"]')
    help_tip.wait_for(state="visible", timeout=10_000)
    column = place(help_tip)
    problems += [] if f"{short}: {whole}" in column["text"] else [f"column tooltip: {column['text'][:300]!r}"]
    problems += [f"column tooltip: a link {link!r}" for link in column["links"]]  # it has no heading
    page.mouse.move(0, 0)
    # a chart's hover tooltip: a picture whose rows name the runs, as SVG text
    picture = ElementTree.fromstring(hover_tooltip(page, main.locator('[data-testid="stVegaLiteChart"]').first))
    rows = [node.text or "" for node in picture.iter("{http://www.w3.org/2000/svg}text")]
    problems += [] if short in rows else [f"chart tooltip rows {rows}"]
    problems += [f"chart tooltip: a link {node.attrib}" for node in picture.iter("{http://www.w3.org/2000/svg}a")]
    # the report the overview downloads: the whole label as text; its links its own sections' and the one a
    # description writes as [text](url)
    button = page.get_by_role("button", name="Download report (HTML)")
    on_settled(button, "scroll_into_view_if_needed")
    with page.expect_download(timeout=60_000) as download:
        on_settled(button, "click")
    saved = tmp_path / "report.html"
    download.value.save_as(saved)
    report = parse(saved.read_text(encoding="utf-8"))
    problems += [] if LINKISH in report.all_text and LINKISH_TRACK in report.all_text else ["report: name not shown"]
    hrefs = [attrs.get("href") or "" for tag, attrs in report.tags if tag == "a"]
    problems += [f"report: a link to {href}" for href in hrefs if not href.startswith("#") and href != WIKI]
    # the experiment's own page: its header is the whole label, as text
    page = visit.open(f"/{page_slug(root.linkish)}?live=0", wait_for="Qwen3-8B", charts=1)
    header = place(page.locator('[data-testid="stMain"] [data-testid="stHtml"]'))
    problems += [] if LINKISH in header["text"] and not header["links"] else [f"experiment header {header}"]
    problems += [f"asked {visit.outside}"] if visit.outside else []
    visit.close()
    assert not problems, "\n".join(problems)


@pytest.mark.browser
def test_a_description_keeps_its_markdown_and_loses_what_could_fetch(
    chromium: Any, hostile: tuple[str, HostileRoot]
) -> None:
    url, root = hostile
    visit = Visit(chromium, url, width=1440)
    page = visit.open(f"/{page_slug(root.linkish)}?live=0", wait_for="Qwen3-8B", charts=1)
    description = page.locator('[data-testid="stMarkdownContainer"]').filter(has_text="the wiki").first
    # kept: strong, emphasis, code, the list, the wiki link with its target shown after it
    assert description.locator("strong", has_text="GRPO").count() == 1
    assert description.locator("em", has_text="baseline").count() == 1
    assert description.locator("code", has_text="kl=1e-3").count() == 1
    assert description.locator("li").all_inner_texts() == ["one", "two"]
    links = description.evaluate("(element) => [...element.querySelectorAll('a')].map((a) => a.getAttribute('href'))")
    assert links == [WIKI]
    shown = description.inner_text().replace("\u2060", "")
    assert f"the wiki ({WIKI})" in shown
    # lost: the image (its alt text stays), HTML and autolinks (as text), the bidi control
    assert description.locator("img").count() == 0
    assert "diagram" in shown and f"<img src={EXTERNAL}/h.png>" in shown
    assert f"{EXTERNAL}/auto" in shown and f"{EXTERNAL}/bare" in shown and "www.d.example" in shown
    assert "\u202e" not in shown and "evil" in shown
    assert visit.outside == []
    visit.close()
