"""A root of real, unrelated logs in a real browser: every log of ``../shared/realdata/verl`` in a folder of its own,
three hours after the logs last grew, its overview of all tracks at 1440 x 900 and 390 x 844, in English and
Chinese. One server; one page per size and language.

Measured on each: the sidebar's tracks are the ones named by hand from the logs (tests/helpers/realdata_root.py),
no two runs share a colour in the sidebar legend or in the charts, the experiments table draws every name whole
(no cell's text cut), and each run has one status word, the same in the table and in the hours bars.

Skipped, with the reason, when ``/usr/bin/chromium``, the ``playwright`` package or the real logs are missing.
"""

from __future__ import annotations

import csv
import io
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.browser_pages import NARROW, WIDE, drawn_text_width, no_exceptions, screenshot, wait_for_app
from tests.helpers.realdata_root import REAL_STATES, REAL_TRACKS, write_realdata_root
from tests.helpers.server import serve

pytestmark = pytest.mark.browser

QUIET_S = 3 * 3600.0
"""The logs last grew three hours before the page is looked at: every run that did not finish or crash is stalled."""
# by hand, from the message catalog's Chinese
WORDS = {
    "en": {"finished": "finished", "stalled": "stalled", "crashed": "crashed", "running": "running"},
    "zh": {"finished": "已完成", "stalled": "停滞", "crashed": "崩溃", "running": "运行中"},
}
ALL_TRACKS = {"en": "All tracks", "zh": "全部赛道"}
UNKNOWN = {"en": "unknown model", "zh": "未知模型"}
CASES = [(size, lang) for size in ("wide", "narrow") for lang in ("en", "zh")]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, realdata_dir: Path) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("real-root-browser")
    write_realdata_root(realdata_dir, folder / "logs", mtime=time.time() - QUIET_S)
    env = {
        "RLMON_LOG_ROOT": str(folder / "logs"),
        "RLMON_CACHE_DIR": str(folder / "cache"),
        "RLMON_CHART_RENDERER": "svg",
    }
    with serve(folder, env, "server-real-root-all.log") as url:
        yield url


def _progress(progress: str, lang: str) -> str:
    """A progress as REAL_STATES writes it (``1,120 steps``), in ``lang`` (``1,120 步``)."""
    return progress.replace(" steps", " 步") if lang == "zh" else progress


def _open_sidebar(page: Any) -> Any:
    sidebar = page.locator('[data-testid="stSidebar"]')
    expand = page.locator('[data-testid="stExpandSidebarButton"]')
    if expand.count() and expand.first.is_visible():
        expand.first.click()
        page.wait_for_timeout(800)
    return sidebar


def _close_sidebar(page: Any) -> None:
    collapse = page.locator('[data-testid="stSidebarCollapseButton"] button')
    if collapse.count():
        page.locator('[data-testid="stSidebar"]').hover()
        collapse.first.click(force=True)
        page.wait_for_timeout(800)


def _legend(page: Any) -> list[tuple[str, str, str]]:
    """The sidebar legend, in order: (experiment id, name shown, colour) of each row; the id is the name's
    tooltip (the whole label: the folder's name, then `` · `` and the algorithm)."""
    rows = page.evaluate(
        """() => Array.from(document.querySelectorAll('[data-testid="stSidebar"] span[title]'))
             .filter((s) => s.previousElementSibling && s.previousElementSibling.style.background)
             .map((s) => [s.title, s.textContent, getComputedStyle(s.previousElementSibling).backgroundColor])"""
    )
    return [(title.split(" · ")[0], name, colour) for title, name, colour in rows]


def _track_options(page: Any) -> list[str]:
    page.locator(".st-key-app_track").first.click()
    options = page.locator('[role="option"]')
    options.first.wait_for(timeout=10_000)
    texts = [text.strip() for text in options.all_inner_texts()]
    page.keyboard.press("Escape")
    page.wait_for_timeout(300)
    return texts


def _experiments_table(page: Any) -> Any:
    """The overview's experiments table (its element, toolbar included)."""
    table = page.locator(".st-key-overview_table").first
    table.scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    return table


def _table_csv(page: Any, table: Any) -> list[dict[str, str]]:
    """The table's rows as its own "Download as CSV" gives them (a file download: the page has no save dialog)."""
    table.hover()
    page.wait_for_timeout(300)
    buttons = table.locator('[data-testid="stElementToolbarButton"] button')
    labels = buttons.evaluate_all("(all) => all.map((b) => b.getAttribute('aria-label') || b.textContent)")
    index = next((i for i, label in enumerate(labels) if re.search("CSV", label or "")), None)
    assert index is not None, labels
    with page.expect_download(timeout=30_000) as info:
        buttons.nth(index).click()
    text = Path(info.value.path()).read_text(encoding="utf-8-sig")
    return list(csv.DictReader(io.StringIO(text)))


@pytest.mark.parametrize(("size", "lang"), CASES)
def test_an_overview_of_every_real_log_reads_clearly(browser: Any, server: str, size: str, lang: str) -> None:
    viewport = WIDE if size == "wide" else NARROW
    context = browser.new_context(viewport=viewport, locale="zh-CN" if lang == "zh" else "en-US", accept_downloads=True)
    page = context.new_page()
    # without the File System Access API, the table's CSV comes as a download Playwright can read
    page.add_init_script("delete Window.prototype.showSaveFilePicker; delete window.showSaveFilePicker;")
    try:
        page.goto(f"{server}/?lang={lang}&track=*&live=0")
        wait_for_app(page, charts=4, timeout_s=120)
        page.wait_for_timeout(1000)
        no_exceptions(page)
        screenshot(page, f"real-root-all-{size}-{lang}")

        # the sidebar: every track as named by hand from its log, in the page's language
        _open_sidebar(page)
        expected_tracks = {
            UNKNOWN[lang] + track.removeprefix("unknown model") if track.startswith("unknown model") else track
            for track in REAL_TRACKS.values()
        }
        screenshot(page, f"real-root-sidebar-{size}-{lang}")
        options = _track_options(page)
        assert set(options) == expected_tracks | {ALL_TRACKS[lang]}, options
        assert len(options) == len(expected_tracks) + 1

        # the legend: every run, each in a colour of its own; its status glyph's tooltip is its status word
        legend = _legend(page)
        assert sorted(experiment for experiment, _, _ in legend) == sorted(REAL_TRACKS)
        colours = [colour for _, _, colour in legend]
        assert len(set(colours)) == len(colours) == 19, colours
        statuses = page.evaluate(
            """() => Array.from(document.querySelectorAll('[data-testid="stSidebar"] span[title]'))
                 .filter((s) => s.style.whiteSpace === 'nowrap').map((s) => [s.title, s.textContent])"""
        )
        assert len(statuses) == 19
        for (experiment, _, _), (word, progress) in zip(legend, statuses, strict=True):
            status, steps = REAL_STATES[experiment]
            assert word == WORDS[lang][status], (experiment, word)
            assert progress.endswith(_progress(steps, lang)), (experiment, progress)
        names = {experiment: name for experiment, name, _ in legend}
        if size == "narrow":
            _close_sidebar(page)

        # the charts: in each layer of lines (one line a run), no two lines share a colour, and each is a run's
        # colour in the legend
        rgb = {tuple(int(part) for part in re.findall(r"\d+", colour)[:3]) for _, _, colour in legend}
        layers = page.evaluate(
            """() => Array.from(document.querySelectorAll('[data-testid="stVegaLiteChart"] svg')).flatMap((svg) => {
                 const byMark = {};  // a layer's lines: its marks (one a run, in a facet) share their class name
                 for (const g of svg.querySelectorAll('g.mark-line')) {
                   const strokes = Array.from(g.querySelectorAll('path')).map((p) => (p.getAttribute('stroke') || '')
                     .toLowerCase()).filter((s) => s.startsWith('#'));
                   (byMark[g.getAttribute('class')] ||= []).push(...strokes);
                 }
                 return Object.values(byMark); })"""
        )
        layers = [layer for layer in layers if len(layer) > 1]
        assert layers, "no chart draws several runs"
        for layer in layers:
            assert len(set(layer)) == len(layer), layer
            assert {tuple(int(hex_[i : i + 2], 16) for i in (1, 3, 5)) for hex_ in layer} <= rgb, layer

        # the hours bars: each run's bar names the same status as the legend ("finished" runs say none)
        bars = page.evaluate(
            """() => { for (const c of document.querySelectorAll('[data-testid="stVegaLiteChart"]')) {
                 const marks = Array.from(c.querySelectorAll('g.mark-text text')).map((t) => {
                   const lines = t.querySelectorAll('tspan');  // a text of two lines: one tspan each
                   return lines.length ? Array.from(lines).map((l) => l.textContent).join(' ') : t.textContent; });
                 if (marks.some((m) => /^(Total training hours|总训练耗时)/.test(m)))
                   return marks.filter((m) => /^[\\d.]+ ?(h|小时)( |$)/.test(m)); } return []; }"""
        )
        assert bars, "no hours bars"
        hours_chart = page.locator('[data-testid="stVegaLiteChart"]').filter(
            has_text=re.compile("Total training hours|总训练耗时")
        )
        if hours_chart.count():
            hours_chart.first.scroll_into_view_if_needed()
            page.wait_for_timeout(500)
            screenshot(page, f"real-root-hours-{size}-{lang}")
        said = {word: re.compile(rf"(?<!\w){re.escape(word)}(?!\w)") for word in WORDS[lang].values()}
        for text in bars:
            words = [word for word, pattern in said.items() if pattern.search(text)]
            assert len(words) <= 1, text
        stalled_bars = [text for text in bars if said[WORDS[lang]["stalled"]].search(text)]
        running_bars = [text for text in bars if said[WORDS[lang]["running"]].search(text)]
        assert not running_bars, running_bars  # three hours quiet: nothing runs
        # by hand: the 12 runs with hours logged (step times); 4 of them stalled (charcount, ehl-gemma2-2b,
        # gui-cursor, the quickstart's two lines), 8 finished, saying no word
        assert len(bars) == 12, bars
        assert len(stalled_bars) == 4, bars
        finished = [text for text in bars if not any(pattern.search(text) for pattern in said.values())]
        assert len(finished) == 8, bars

        # the table: one status word per run, as the legend says it
        table = _experiments_table(page)
        rows = _table_csv(page, table)
        assert len(rows) == 19
        by_name = {name: experiment for experiment, name in names.items()}
        name_column = next(iter(rows[0]))  # the first column: the names
        status_column = next(key for key in rows[0] if key in ("status", "状态"))
        for row in rows:
            experiment = by_name[row[name_column]]
            status, steps = REAL_STATES[experiment]
            _glyph, word, progress = row[status_column].split(" ", 2)
            assert (word, progress) == (WORDS[lang][status], _progress(steps, lang)), (experiment, row[status_column])

        # the table draws every name whole: each row's drawn text as wide as the page's font makes the name
        # (glide-data-grid cuts a longer text); the table full screen shows all 19 rows
        table.hover()
        table.get_by_role("button", name=re.compile("Fullscreen|全屏", re.IGNORECASE)).first.click()
        page.wait_for_timeout(1000)
        grid = table.locator('[data-testid="stDataFrameResizable"]').first
        box = grid.bounding_box()
        assert box is not None
        font = "14px " + grid.evaluate("(t) => getComputedStyle(t).fontFamily")
        shown = [row[name_column] for row in rows]
        expected = page.evaluate(
            "([names, font]) => { const c = document.createElement('canvas').getContext('2d'); c.font = font;"
            " return names.map((n) => c.measureText(n).width); }",
            [shown, font],
        )
        row_px = 35
        assert box["height"] >= row_px * 20, box
        for index, width in enumerate(expected):
            drawn = drawn_text_width(
                page, x=box["x"] + 1, y=box["y"] + row_px * (index + 1) + 10, height=15, width=min(400, box["width"])
            )
            assert abs(drawn - width) <= 4, (shown[index], drawn, width)
        screenshot(page, f"real-root-table-{size}-{lang}")
        page.keyboard.press("Escape")
    finally:
        context.close()
