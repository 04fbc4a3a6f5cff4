"""Groups of repeats as a person sees them (tests/helpers/repeats_root.py: 3 algorithms × 3 seeds; DAPO's seeds ran
10, 8 and 6 steps, RLOO's seed 3 crashed after 5): at 1440x900 and 390x844, in English with the min-max band and in
Chinese with the ± 1 std band (``band=std``), each group's band is filled in its mean line's colour and lies inside
the plot area, DAPO's band stops where only one of its runs is left (step 8 of 1-10: 7/9 of its mean line's width),
the plot areas keep the overview's sizes, no text is cut, and a click on a group's legend entry hides its runs and
a second click shows them. Real ``streamlit run``, headless Chromium, the SVG measured; a full-page screenshot at
each width and language (``repeats-<lang>-<width>.png``)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers.browser_geometry import BandGeometry, Box, measure_bands
from tests.helpers.browser_pages import (
    NARROW,
    NARROW_MIN_PLOT_HEIGHT,
    OVERVIEW_MIN_PLOT,
    WIDE,
    WIDE_CHARTS_PER_ROW,
    charts_per_row,
    full_page_screenshot,
    no_exceptions,
    require_svg,
    text_problems,
    wait_for_charts,
)
from tests.helpers.repeats_root import write_repeats_root
from tests.helpers.server import serve

pytestmark = pytest.mark.browser

LEGEND = {
    "en": ("DAPO (3 runs)", "GRPO (3 runs)", "RLOO (3 runs)"),
    "zh": ("DAPO（3 次运行）", "GRPO（3 次运行）", "RLOO（3 次运行）"),
}
CHARTS = 3
"""The overview's default charts this root allows: pass rate, mean response length, the hours bars."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("browser-repeats")
    write_repeats_root(folder / "logs", now=time.time())  # DAPO's seeds 2 and 3 running
    env = {"RLMON_LOG_ROOT": str(folder / "logs"), "RLMON_CACHE_DIR": str(folder / "cache"),
           "RLMON_CHART_RENDERER": "svg", "RLMON_REFRESH_S": "3600"}  # fmt: skip
    with serve(folder, env, "server-repeats.log") as url:
        yield url


def _band_problems(chart: BandGeometry, plot: Box, width: int, lang: str) -> list[str]:
    """Each group's band in its mean line's colour (the legend entry's) and inside the plot area ``plot``, and
    DAPO's band 7/9 of its mean's width."""
    where = f"at {width} px ({lang})"
    legend = dict(chart.legend)
    if tuple(legend) != LEGEND[lang]:
        return [f"{where}: legend {chart.legend}, wanted {LEGEND[lang]}"]
    means = {line.stroke: line for line in chart.lines if line.opacity == 1}  # the members are faint (0.35)
    bands = {area.fill: area for area in chart.areas}
    problems = []
    for label, colour in legend.items():
        if colour not in bands or colour not in means:
            problems.append(f"{where}: {label} ({colour}): band fills {sorted(bands)}, mean strokes {sorted(means)}")
            continue
        band, mean = bands[colour], means[colour]
        if not (plot.y - 1 <= band.y and band.y + band.height <= plot.y + plot.height + 1):
            problems.append(f"{where}: {label}'s band {band} leaves the plot area {plot}")
        if not band.y - 1 <= mean.y and mean.y + mean.height <= band.y + band.height + 1:
            problems.append(f"{where}: {label}'s mean line {mean} leaves its band {band}")
    dapo = legend[LEGEND[lang][0]]
    if dapo in bands and dapo in means:
        ratio = bands[dapo].width / means[dapo].width
        if abs(ratio - 7 / 9) > 0.02:
            problems.append(f"{where}: DAPO's band is {ratio:.3f} of its mean line's width, wanted 7/9")
    return problems


def _look(page: Any, width: int, lang: str) -> list[str]:
    """The page at ``width``: its charts' sizes and texts, the bands of its pass-rate chart."""
    charts = wait_for_charts(page, at_least=CHARTS)
    no_exceptions(page)
    require_svg(charts)
    lines = [chart for chart in charts if chart.is_line_chart]
    problems = text_problems(charts, width)
    for chart in lines:
        low_width, low_height = OVERVIEW_MIN_PLOT if width == WIDE["width"] else (0, NARROW_MIN_PLOT_HEIGHT)
        if chart.plot_width < low_width or chart.plot_height < low_height:
            problems.append(f"at {width} px ({lang}), {chart.describe()}; wanted >= {low_width}x{low_height}")
    wanted = WIDE_CHARTS_PER_ROW if width == WIDE["width"] else 1
    if max(charts_per_row(charts)) != wanted:
        problems.append(f"at {width} px ({lang}) the charts per row are {charts_per_row(charts)}; wanted {wanted}")
    pass_rate = measure_bands(page)[0]
    assert pass_rate is not None and charts[0].is_line_chart and len(charts[0].plots) == 1
    problems += _band_problems(pass_rate, charts[0].plots[0], width, lang)
    full_page_screenshot(page, f"repeats-{lang}-{width}", WIDE if width == WIDE["width"] else NARROW)
    return problems


def _grpo_members_opacity(page: Any) -> set[float]:
    """The opacities of GRPO's runs' lines in the pass-rate chart (its first layer: the runs)."""
    chart = measure_bands(page)[0]
    assert chart is not None
    grpo = next(colour for label, colour in chart.legend if label.startswith("GRPO"))
    return {line.opacity for line in chart.lines if line.stroke == grpo and line.layer == "layer_0_marks"}


def test_bands_in_their_mean_lines_colour_and_legend_hides_runs(browser: Any, server: str) -> None:
    """English, the min-max band, at both widths."""
    context = browser.new_context(viewport=WIDE, locale="en-US")
    page = context.new_page()
    page.goto(f"{server}/?live=0&lang=en")
    problems = _look(page, WIDE["width"], "en")
    entry = page.locator('[data-testid="stVegaLiteChart"]').first.locator("g.role-legend-label text", has_text="GRPO")
    assert _grpo_members_opacity(page) == {0.35}
    entry.click()
    page.wait_for_timeout(500)
    assert _grpo_members_opacity(page) == {0.0}  # hidden
    entry.click()
    page.wait_for_timeout(500)
    assert _grpo_members_opacity(page) == {0.35}  # shown again
    page.set_viewport_size(NARROW)
    problems += _look(page, NARROW["width"], "en")
    context.close()
    assert not problems, "\n".join(problems)


def test_std_bands_in_chinese_at_both_widths(browser: Any, server: str) -> None:
    """Chinese (the legend's entries as wide as 15 Latin letters each: two columns at 390 px), the ± 1 std band."""
    context = browser.new_context(viewport=WIDE, locale="zh-CN")
    page = context.new_page()
    page.goto(f"{server}/?live=0&lang=zh&band=std")
    problems = _look(page, WIDE["width"], "zh")
    page.set_viewport_size(NARROW)
    problems += _look(page, NARROW["width"], "zh")
    context.close()
    assert not problems, "\n".join(problems)
