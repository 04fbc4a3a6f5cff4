"""A server's first request in a real browser: a link to an experiment's page is the first thing a newly
started server sees (on the demo root, and on a root of real logs, whose overview table is then measured at
1440 px). Each test starts a server of its own.

Skipped, with the reason, when ``/usr/bin/chromium`` or the ``playwright`` package is missing.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.helpers.browser_pages import WIDE, drawn_text_width, no_exceptions, screenshot, wait_for_app
from tests.helpers.server import page_not_found_frames, serve, watch_page_not_found

pytestmark = pytest.mark.browser


def test_first_request_after_a_restart_opens_an_experiment_page(
    browser: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # A server of its own: the first request this process sees goes straight to an experiment's page.
    folder = tmp_path_factory.mktemp("restart")
    with serve(folder, {"RLMON_CACHE_DIR": str(folder / "cache")}, "server-restart.log") as url:
        context = browser.new_context(viewport={"width": 1500, "height": 1100}, locale="en-US")
        page = context.new_page()
        watch_page_not_found(page)
        page.goto(f"{url}/2b-e3-drgrpo-2b", wait_until="commit")
        # a cold server reads the demo first: on a loaded machine that can take a minute
        page.get_by_text("Training curves").wait_for(timeout=90_000)
        wait_for_app(page, charts=6, timeout_s=90)
        page.wait_for_timeout(1000)
        assert page.get_by_text("You have requested page").count() == 0
        assert page.locator('[data-testid="stMain"]').get_by_text("E3 · Dr.GRPO").count() >= 1
        assert re.search(r"/2b-e3-drgrpo-2b", page.url)
        # not one frame with Streamlit's "Page not found" box (it was painted 0.15-0.6 s before the app
        # declared its navigation at server start)
        boxed, painted = page_not_found_frames(page)
        assert painted > 30 and boxed == 0, (boxed, painted)
        no_exceptions(page)
        screenshot(page, "first-request-experiment")
        context.close()


REAL_ROOT_LOGS = (
    "dstack-ppo-qwen25-7b-resumed-2025-05.log",
    "amd-mi300-deepseek7b-grpo-gsm8k-2025-03.log",
    "maze-ppo-main_task-crash-2025-03.log",
    "gpg-qwen2-7b-fsdp-gsm8k-math-2025-06.log",
)


def test_real_root_link_after_a_restart_and_the_table_at_1440_px(
    browser: Any, tmp_path_factory: pytest.TempPathFactory, realdata_dir: Any
) -> None:
    import shutil

    folder = tmp_path_factory.mktemp("real-root")
    for name in REAL_ROOT_LOGS:
        (folder / "logs" / name.removesuffix(".log")).mkdir(parents=True)
        shutil.copyfile(realdata_dir / name, folder / "logs" / name.removesuffix(".log") / name)
    env = {"RLMON_LOG_ROOT": str(folder / "logs"), "RLMON_CACHE_DIR": str(folder / "cache")}
    with serve(folder, env, "server-real-root.log") as url:
        context = browser.new_context(viewport=WIDE, locale="en-US")
        page = context.new_page()
        # a shared link to an experiment page is the first request the new server sees
        watch_page_not_found(page)
        page.goto(f"{url}/maze-ppo-main-task-crash-2025-03", wait_until="commit")
        page.get_by_text("Training curves").wait_for(timeout=30_000)
        # maze log line 293: the error, under its last frames
        # (the page is still being sent when its heading shows, on a loaded machine)
        page.locator('[data-testid="stCode"]').get_by_text("NotImplementedError").first.wait_for(timeout=30_000)
        boxed, painted = page_not_found_frames(page)  # not one frame with a "Page not found" box
        assert painted > 30 and boxed == 0, (boxed, painted)
        no_exceptions(page)
        # the overview at 1440 px: the experiments table shows every run's name whole (its pinned column as wide
        # as the longest name drawn in the page's font, with the cell's 8 px padding on each side); the other
        # columns fit beside it but for what those long names add (120 px is the name column's least width)
        page.goto(url)
        wait_for_app(page, charts=4)
        table = page.locator('[data-testid="stDataFrame"]').filter(has_text="last-10 pass")
        table.first.wait_for(state="visible", timeout=30_000)
        widths = table.first.evaluate(
            "(t) => { const s = t.querySelector('.dvn-scroller'); return [s.scrollWidth, s.clientWidth]; }"
        )
        # rows in catalog order: amd (its name the widest), dstack, gpg, maze; each cell's text drawn whole is
        # as wide as the page's font makes that name (glide-data-grid cuts a longer text with its own "…")
        names = ["amd-mi300-deepseek7b… · GRPO", "dstack-ppo-qwen25-7b… · PPO", "gpg-qwen2-7b-fsdp… · GPG",
                 "maze-ppo-main_task… · PPO"]  # fmt: skip
        font = "14px " + table.first.evaluate("(t) => getComputedStyle(t).fontFamily")
        expected = page.evaluate(
            "([names, font]) => { const c = document.createElement('canvas').getContext('2d'); c.font = font;"
            " return names.map((n) => c.measureText(n).width); }",
            [names, font],
        )
        table.first.scroll_into_view_if_needed()
        page.wait_for_timeout(500)
        box = table.first.bounding_box()
        assert box is not None
        for row, width in enumerate(expected):
            drawn = drawn_text_width(page, x=box["x"] + 1, y=box["y"] + 35 * (row + 1) + 10, height=15, width=400)
            assert abs(drawn - width) <= 4, (names[row], drawn, width)
        column = drawn_text_width(page, x=box["x"] + 1, y=box["y"] + 10, height=15, width=400)  # "experiment"
        assert column > 0
        # the columns beside it fit but for what the long names add to the name column's least width (120 px)
        assert widths[0] <= widths[1] + 1 + max(expected) + 26 - 120, widths
        screenshot(page, "real-root-overview")
        # a click on a row's name opens its experiment's page
        table.scroll_into_view_if_needed()
        page.wait_for_timeout(500)
        box = table.bounding_box()
        assert box is not None
        page.mouse.click(box["x"] + 60, box["y"] + 35 + 17)
        page.wait_for_url(re.compile(r"/(dstack|amd|maze|gpg)-"), timeout=30_000)
        page.get_by_text("Training curves").wait_for(timeout=30_000)
        no_exceptions(page)
        context.close()
