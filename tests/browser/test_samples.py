"""The samples page in a real browser (Playwright, Debian's headless Chromium) at 1440x900 and 390x844, in
English and 中文: it renders without an exception, nothing from the logs becomes a script, link or image, no
text pushes the page wider than the screen (a 30,000-character response without a space included), and the
side-by-side comparison keeps both sides on screen. Screenshots go to ``test-artifacts/samples-*.png``."""

from __future__ import annotations

import contextlib
import re
import shutil
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers.paths import DATA
from tests.helpers.server import ARTIFACTS, serve

pytestmark = pytest.mark.browser

PRINTS = DATA / "samples_prints.log"
# Each size and each language once: desktop in English, phone in Chinese.
EACH_SIZE_AND_LANGUAGE = [("desktop", "en"), ("phone", "zh")]
VIEWPORTS = {"desktop": {"width": 1440, "height": 900}, "phone": {"width": 390, "height": 844}}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("browser-samples")
    root = folder / "logs"
    for name in ("e1", "e2", "e3"):
        (root / name).mkdir(parents=True)
    shutil.copy(PRINTS, root / "e1" / "train.log")
    text = PRINTS.read_text(encoding="utf-8")
    (root / "e2" / "train.log").write_text(text.replace("[response] 5\n", "[response] five, written out\n"))
    long_word = "x" * 30_000
    (root / "e3" / "train.log").write_text(
        text.replace("[response] It is 6.\n", f"[response] {long_word}\n").replace("#### 5", "$$\\frac{10}{2} = 5$$")
    )
    env = {"RLMON_LOG_ROOT": str(root), "RLMON_CACHE_DIR": str(folder / "cache")}
    with serve(folder, env, "server-samples.log") as url:
        yield url


def open_page(browser: Any, url: str, viewport: dict[str, int]) -> Any:
    context = browser.new_context(viewport=viewport, locale="en-US")
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector('[data-testid="stCode"]', state="attached", timeout=60_000)
    deadline = time.monotonic() + 30
    while page.locator('[data-testid="stStatusWidget"]').count() and time.monotonic() < deadline:
        page.wait_for_timeout(200)
    page.wait_for_timeout(800)
    return page


def page_problems(page: Any) -> list[str]:
    found = page.evaluate(
        """() => {
          const problems = [];
          const width = window.innerWidth;
          if (document.documentElement.scrollWidth > width + 1) problems.push('page scrolls sideways');
          for (const block of document.querySelectorAll('[data-testid="stCode"]')) {
            const box = block.getBoundingClientRect();
            if (box.width > 0 && box.right > width + 1) problems.push('code block past the right edge');
          }
          for (const link of document.querySelectorAll('a[href]'))
            if (/evil|javascript:/.test(link.getAttribute('href'))) problems.push('link from the log');
          for (const image of document.querySelectorAll('img'))
            if (/evil/.test(image.getAttribute('src') || '')) problems.push('image from the log');
          for (const script of document.querySelectorAll('script'))
            if (script.textContent.includes('alert(1)')) problems.push('script from the log');
          if (document.querySelector('[data-testid="stException"]')) problems.push('exception');
          return problems;
        }"""
    )
    return list(found)


@pytest.mark.parametrize(("size", "lang"), EACH_SIZE_AND_LANGUAGE)
def test_browse(browser: Any, server: str, size: str, lang: str) -> None:
    # step 2 of E3: the 30,000-character response without a space
    page = open_page(browser, f"{server}/generations?id=e3&step=2&lang={lang}", VIEWPORTS[size])
    assert page_problems(page) == []
    title = "What the model wrote" if lang == "en" else "模型写了什么"
    assert page.get_by_text(title).count() == 1
    ARTIFACTS.mkdir(exist_ok=True)
    page.get_by_text("Response" if lang == "en" else "回复", exact=True).first.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / f"samples-browse-{size}-{lang}.png"), full_page=False)
    # markdown on: math rendered, links and images still not formed
    page.get_by_text("Render markdown and math" if lang == "en" else "渲染 Markdown 与公式").click()
    page.wait_for_timeout(2500)
    assert page_problems(page) == []
    page.get_by_text("Response" if lang == "en" else "回复", exact=True).first.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / f"samples-markdown-{size}-{lang}.png"), full_page=False)
    page.context.close()


@pytest.mark.parametrize(("size", "lang"), EACH_SIZE_AND_LANGUAGE)
def test_compare_experiments_side_by_side(browser: Any, server: str, size: str, lang: str) -> None:
    page = open_page(browser, f"{server}/generations?id=e1&lang={lang}", VIEWPORTS[size])
    tab = "One prompt across experiments" if lang == "en" else "同一提示词跨实验"
    page.get_by_role("tab", name=tab).click()
    page.wait_for_selector("text=five, written out", timeout=30_000)
    page.wait_for_timeout(800)
    assert page_problems(page) == []
    right = page.get_by_text("five, written out").bounding_box()
    assert right is not None
    width = VIEWPORTS[size]["width"]
    assert right["x"] >= 0 and right["x"] + right["width"] <= width
    if size == "desktop":
        assert right["x"] > width / 2 - 200  # side by side on a wide screen, stacked on a phone
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"samples-compare-{size}-{lang}.png"), full_page=True)
    page.context.close()


@pytest.mark.parametrize("size", list(VIEWPORTS))
def test_hostile_sample_with_markdown_on(browser: Any, server: str, size: str) -> None:
    # step 0 of E1: a response holding <script>, an image and two links (crafted log, lines 16-21)
    page = open_page(browser, f"{server}/generations?id=e1&step=0", VIEWPORTS[size])
    page.get_by_text("Render markdown and math").click()
    page.wait_for_selector("text=def f(x):", timeout=30_000)
    page.wait_for_timeout(1500)
    assert page_problems(page) == []
    page.get_by_text("def f(x):").first.scroll_into_view_if_needed()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"samples-hostile-markdown-{size}-en.png"), full_page=False)
    page.context.close()


@pytest.mark.parametrize(("size", "lang"), EACH_SIZE_AND_LANGUAGE)
def test_overview_links_latest_samples(browser: Any, server: str, size: str, lang: str) -> None:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    context = browser.new_context(viewport=VIEWPORTS[size], locale="en-US")
    page = context.new_page()
    label = "Latest samples" if lang == "en" else "最新样例"
    deadline = time.monotonic() + 60
    while True:  # the first visit starts the scan for samples in the background; a later one shows the links
        page.goto(f"{server}/?lang={lang}")
        page.wait_for_selector('[data-testid="stApp"]', timeout=60_000)
        with contextlib.suppress(PlaywrightTimeout):  # once the scan is done the heading comes at once
            page.get_by_text(label).first.wait_for(timeout=2500)
        if page.get_by_text(label).count() or time.monotonic() > deadline:
            break
    links = page.locator('[data-testid="stPageLink"]')
    until = time.monotonic() + 30
    while links.count() < 3 and time.monotonic() < until:  # the heading can come a moment before its links
        page.wait_for_timeout(300)
    assert links.count() == 3
    assert page_problems(page) == []
    page.get_by_text(label).scroll_into_view_if_needed()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"samples-overview-{size}-{lang}.png"), full_page=False)
    # The overview's text can hold "step 3…" too: wait for the samples page's address, then its text. A live
    # rerun of the overview may replace the link while it is clicked (the click then lands on the old element):
    # click the link as it is then, up to three times.
    for _ in range(3):
        links.first.click()
        with contextlib.suppress(PlaywrightTimeout):
            page.wait_for_url(re.compile(r"/generations"), timeout=10_000)
            break
    assert "/generations" in page.url
    page.wait_for_selector("text=step 3", timeout=30_000)
    context.close()
