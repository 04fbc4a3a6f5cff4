"""The overview's written summary as a person reads it, on the built-in demo (the Qwen3.5-4B track) at 1440x900
and 390x844, in English and Chinese: the pass rates each beside its run, a line per run on what sets it apart
(a list item each, E1-E5 in order), and no line of it cut or wider than the window. Real ``streamlit run``,
headless Chromium; screenshots in ``test-artifacts/``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers.browser_pages import NARROW, WIDE, no_exceptions, overview_url, screenshot, wait_for_app
from tests.helpers.server import serve

pytestmark = pytest.mark.browser

# From the demo's table (rlmon/demo/root.py): first-5 -> last-10-step mean pass rate of the four finished 4B runs.
PASS_RATES = {
    "en": "Pass rate, first-5 → last-10-step mean: E1 80.2% → 89.6%, E2 79.4% → 91.1%, E3 80.7% → 88.8%, "
    "E4 79.8% → 90.3%.",
    "zh": "pass rate（首 5 步 → 末 10 步均值）：E1 80.2% → 89.6%，E2 79.4% → 91.1%，E3 80.7% → 88.8%，"
    "E4 79.8% → 90.3%。",
}
LEAD = {"en": "What sets each run apart:", "zh": "各实验的不同之处："}
TITLE = {"en": "Summary", "zh": "小结"}
NAMES = ("E1 (GRPO)", "E2 (DAPO)", "E3 (Dr.GRPO)", "E4 (RLOO)", "E5 (REINFORCE++)")

# Each paragraph and list item of the summary: wider than its box (cut), or reaching past the window.
_OVERFLOWS = """(title) => {
  const heading = [...document.querySelectorAll('[data-testid="stMarkdownContainer"] h4')]
    .find((element) => element.innerText.trim() === title);
  if (!heading) return {cut: ["no summary heading " + title], seen: 0};
  const summary = heading.closest('[data-testid="stVerticalBlock"]');
  if (!summary) return {cut: ["no summary box"], seen: 0};
  const out = [];
  const markdown = '[data-testid="stMarkdownContainer"]';
  for (const element of summary.querySelectorAll(`${markdown} p, ${markdown} li`)) {
    const rect = element.getBoundingClientRect();
    if (element.scrollWidth > element.clientWidth + 1 || rect.right > window.innerWidth + 1) {
      out.push(element.innerText.slice(0, 60));
    }
  }
  return {cut: out, seen: summary.querySelectorAll(`${markdown} p, ${markdown} li`).length};
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("browser-summary")
    env = {"RLMON_CACHE_DIR": str(folder / "cache"), "RLMON_REFRESH_S": "3600"}
    with serve(folder, env, "server-summary.log") as url:
        yield url


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_summary_gives_each_run_its_numbers_and_a_line(browser: Any, server: str, lang: str) -> None:
    problems: list[str] = []
    for viewport in (WIDE, NARROW):
        context = browser.new_context(viewport=viewport, locale="en-US")
        try:
            page = context.new_page()
            page.goto(overview_url(server, all_tracks=False, lang=lang))
            wait_for_app(page, charts=1)
            no_exceptions(page)
            where = f"{viewport['width']} px ({lang})"
            first = page.locator('[data-testid="stMarkdownContainer"]', has_text=PASS_RATES[lang][:20]).first
            if PASS_RATES[lang] not in " ".join(first.inner_text().split()):
                problems.append(f"{where}: pass rates not as written by hand: {first.inner_text()!r}")
            openings = page.locator('[data-testid="stMarkdownContainer"]', has_text=LEAD[lang]).first
            items = [text.strip() for text in openings.locator("li").all_inner_texts()]
            colon = ": " if lang == "en" else "："
            if [item.split(colon, 1)[0] for item in items] != list(NAMES):
                problems.append(f"{where}: the lines on what sets each run apart are {items}")
            measured = page.evaluate(_OVERFLOWS, TITLE[lang])
            if measured["cut"]:
                problems.append(f"{where}: cut or wider than the window: {measured['cut']}")
            # the summary's paragraphs and list items were measured: at least the 4B track's 4 paragraphs, 5 lines
            if measured["seen"] < 9:
                problems.append(f"{where}: only {measured['seen']} paragraphs and items measured")
            openings.scroll_into_view_if_needed()
            screenshot(page, f"summary-{viewport['width']}-{lang}")
        finally:
            context.close()
    assert problems == []
