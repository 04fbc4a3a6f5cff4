"""The health rules as the browser draws them, measured in the rendered SVG: verl's threshold on a real log that
crosses it (gpg-qwen2-7b-fsdp of ../shared/realdata/verl: response_length/clip_ratio up to 0.493, above verl's 0.1)
sits at its value inside the plot area, and the grad-norm note is shown under its chart; rlmon's own rules on the
crafted logs of tests/data (the slower-steps limit, the collapse signature's steps); on the demo, the note naming
verl's 10% where it lies too far off to draw, and the chart of correct and incorrect responses' length. Each page
in English and Chinese at 1440x900 and 390x844, with screenshots of the charts in test-artifacts/.

Skipped, with the reason, when ``/usr/bin/chromium`` or the ``playwright`` package is missing, and (the real log)
when ../shared is absent.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rlmon.views.charts import THRESHOLD_COLOR
from tests.helpers.browser_geometry import CLIP_TOLERANCE_PX, measure_charts
from tests.helpers.browser_pages import NARROW, WIDE, label_value, no_exceptions, wait_for_charts
from tests.helpers.paths import ARTIFACTS, DATA
from tests.helpers.server import serve

pytestmark = pytest.mark.browser

GPG = "gpg-qwen2-7b-fsdp-gsm8k-math-2025-06"
CRAFTED = ("health_step_time_slower", "health_collapse")

# One chart (by its drawn title): its plot area, the y and x axes' labels with the pixel of their tick (the grid
# line nearest each label), the threshold-coloured rules, dashed lines and rects, its subtitle lines, and the
# captions under it in its grid cell.
_CHART_JS = r"""
([title, color]) => {
  const rgb = (hex) => {
    const n = parseInt(hex.slice(1), 16);
    return `rgb(${n >> 16}, ${(n >> 8) & 255}, ${n & 255})`;
  };
  const amber = (value) => value && (value.toLowerCase() === color || value === rgb(color));
  const box = (r) => ({x: r.x, y: r.y, width: r.width, height: r.height});
  for (const element of document.querySelectorAll('[data-testid="stVegaLiteChart"]')) {
    const svg = element.querySelector('svg.marks');
    if (!svg) continue;
    const drawn = [...svg.querySelectorAll('g.role-title-text text')].map((t) => t.textContent).join(' ').trim();
    if (drawn !== title) continue;
    const background = svg.querySelector('g.mark-group.role-frame.root path.background');
    const ticks = (axis, vertical) => {
      const grid = [...svg.querySelectorAll('g.role-axis-grid line')].map((l) => l.getBoundingClientRect())
        .filter((r) => vertical ? r.height < 0.5 : r.width < 0.5).map((r) => vertical ? r.y : r.x);
      return [...axis.querySelectorAll('g.role-axis-label text')].map((t) => {
        const r = t.getBoundingClientRect();
        const at = vertical ? r.y + r.height / 2 : r.x + r.width / 2;
        const tick = grid.reduce((best, p) => Math.abs(p - at) < Math.abs(best - at) ? p : best, Infinity);
        return {text: t.textContent.trim(), at, tick};
      });
    };
    const axes = [...svg.querySelectorAll('g.role-axis')];
    const yAxis = axes.find((a) => (a.getAttribute('aria-label') || '').startsWith('Y-axis'));
    const xAxis = axes.find((a) => (a.getAttribute('aria-label') || '').startsWith('X-axis'));
    const rules = [...svg.querySelectorAll('g.mark-rule.role-mark line')].filter((l) => amber(l.getAttribute('stroke')))
      .map((l) => ({label: l.getAttribute('aria-label') || '', ...box(l.getBoundingClientRect())}));
    const lines = [...svg.querySelectorAll('g.mark-line path')].filter((p) => amber(p.getAttribute('stroke')))
      .map((p) => ({dash: p.getAttribute('stroke-dasharray'), ...box(p.getBoundingClientRect())}));
    const rects = [...svg.querySelectorAll('g.mark-rect path')].filter((p) => amber(p.getAttribute('fill')))
      .map((p) => ({opacity: Number(p.getAttribute('fill-opacity') || p.getAttribute('opacity') || 1),
                    label: p.getAttribute('aria-label') || '', ...box(p.getBoundingClientRect())}));
    const cell = element.closest('[class*="st-key-rlmon_cell_"]');
    const captions = cell ? [...cell.querySelectorAll('[data-testid="stCaptionContainer"]')]
      .map((c) => ({text: c.textContent.trim(), ...box(c.getBoundingClientRect()),
                    visible: getComputedStyle(c).visibility !== 'hidden'})) : [];
    return {
      plot: box(background.getBoundingClientRect()), element: box(element.getBoundingClientRect()),
      y: yAxis ? ticks(yAxis, true) : [], x: xAxis ? ticks(xAxis, false) : [], rules, lines, rects, captions,
      subtitle: [...svg.querySelectorAll('g.role-title-subtitle text')].flatMap((t) => {
        const spans = t.querySelectorAll('tspan');
        return spans.length ? [...spans].map((s) => s.textContent) : [t.textContent];
      }),
      subtitle_right: Math.max(0, ...[...svg.querySelectorAll('g.role-title-subtitle text')]
        .map((t) => t.getBoundingClientRect().right)),
      button_left: Math.min(Infinity, ...(cell ? [...cell.querySelectorAll('[class*="st-key-rlmon_svg_"] button')]
        .map((b) => b.getBoundingClientRect()).filter((r) => r.width > 0).map((r) => r.left) : [])),
    };
  }
  return null;
}
"""


def _chart(page: Any, title: str) -> dict[str, Any]:
    found = page.evaluate(_CHART_JS, [title, THRESHOLD_COLOR])
    assert found is not None, f"no chart titled {title!r}"
    return found


def _pixel_of(ticks: list[dict[str, Any]], value: float) -> float:
    """The pixel of ``value`` on a linear axis, from two of its labelled ticks (their grid lines)."""
    known = [(label_value(tick["text"]), tick["tick"]) for tick in ticks]
    known = [(number, pixel) for number, pixel in known if number is not None]
    assert len(known) >= 2, ticks
    (v0, p0), (v1, p1) = known[0], known[-1]
    return p0 + (value - v0) * (p1 - p0) / (v1 - v0)


def _inside(item: dict[str, Any], plot: dict[str, Any]) -> bool:
    tolerance = CLIP_TOLERANCE_PX
    return (
        plot["x"] - tolerance <= item["x"]
        and item["x"] + item["width"] <= plot["x"] + plot["width"] + tolerance
        and plot["y"] - tolerance <= item["y"]
        and item["y"] + item["height"] <= plot["y"] + plot["height"] + tolerance
    )


def _shoot(page: Any, title: str, name: str) -> None:
    """A screenshot of the grid cell of the chart titled ``title`` (the chart and the caption under it)."""
    cell = page.locator('[class*="st-key-rlmon_cell_"]').filter(
        has=page.locator('[data-testid="stVegaLiteChart"]').filter(has_text=title)
    )
    target = (
        cell.first if cell.count() else page.locator('[data-testid="stVegaLiteChart"]').filter(has_text=title).first
    )
    target.scroll_into_view_if_needed()
    page.wait_for_timeout(400)
    ARTIFACTS.mkdir(exist_ok=True)
    target.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def _nothing_clipped(page: Any, titles: tuple[str, ...]) -> None:
    """No text of the charts titled ``titles`` reaches outside its chart (tests/helpers/browser_geometry.py)."""
    measured = [chart for chart in measure_charts(page) if chart.title in titles]
    assert len(measured) == len(titles), [chart.title for chart in measured]
    for chart in measured:
        assert chart.clipped == (), (chart.title, chart.clipped)


def _open(browser: Any, url: str, viewport: dict[str, int], *, charts: int) -> tuple[Any, Any]:
    context = browser.new_context(viewport=viewport, locale="en-US")
    page = context.new_page()
    page.goto(url)
    wait_for_charts(page, at_least=charts)
    no_exceptions(page)
    return context, page


@pytest.fixture(scope="module")
def rules_root(tmp_path_factory: pytest.TempPathFactory, realdata_dir: Path) -> Iterator[str]:
    """The app on a root of the real gpg log and the crafted logs of rlmon's two rules, charts drawn as SVG."""
    folder = tmp_path_factory.mktemp("rule-lines")
    sources = [realdata_dir / f"{GPG}.log", *(DATA / f"{name}.log" for name in CRAFTED)]
    for source in sources:
        (folder / "logs" / source.stem).mkdir(parents=True)
        shutil.copyfile(source, folder / "logs" / source.stem / source.name)
    env = {
        "RLMON_LOG_ROOT": str(folder / "logs"),
        "RLMON_CACHE_DIR": str(folder / "cache"),
        "RLMON_CHART_RENDERER": "svg",
    }
    with serve(folder, env, "server-rule-lines.log") as url:
        yield url


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("viewport", [WIDE, NARROW], ids=["1440", "390"])
def test_verls_threshold_on_a_real_log_sits_at_its_value(
    browser: Any, rules_root: str, lang: str, viewport: dict[str, int]
) -> None:
    words = {
        "en": ("Responses cut at the cap (%)", "rollout↔training probability difference (mean)",
               "Gradient norm (grad_norm)", "measured before clipping"),
        "zh": ("被截断的响应（%）", "rollout↔训练概率差（均值）", "梯度范数（grad_norm）", "裁剪前的值"),
    }[lang]  # fmt: skip
    clip_title, diff_title, grad_title, grad_note = words
    query = "?live=0" + ("&lang=zh" if lang == "zh" else "")
    context, page = _open(browser, f"{rules_root}/{GPG.replace('_', '-')}{query}", viewport, charts=8)
    try:
        width = viewport["width"]
        # verl's best practices: clip_ratio above 0.1, on the chart in percent: one amber rule at 10, across the plot
        clip = _chart(page, clip_title)
        (rule,) = clip["rules"]
        assert _inside(rule, clip["plot"]), (rule, clip["plot"])
        assert rule["width"] >= clip["plot"]["width"] - 2, (rule, clip["plot"])
        assert abs(rule["y"] - _pixel_of(clip["y"], 10.0)) <= 1.5, (rule, clip["y"])
        # verl's FAQ: 0.01 (a precision problem) and 0.005 (normal below)
        diff = _chart(page, diff_title)
        assert len(diff["rules"]) == 2
        for found, value in zip(sorted(diff["rules"], key=lambda r: r["y"]), (0.01, 0.005), strict=True):
            assert _inside(found, diff["plot"]), (found, diff["plot"])
            assert abs(found["y"] - _pixel_of(diff["y"], value)) <= 1.5, (found, value, diff["y"])
        # the grad-norm note: under its chart, as wide as the column at most, shown whole
        grad = _chart(page, grad_title)
        (caption,) = [item for item in grad["captions"] if grad_note in item["text"]]
        chart_bottom = grad["element"]["y"] + grad["element"]["height"]
        assert caption["visible"] and caption["y"] >= chart_bottom - 1, (caption, grad["element"])
        assert caption["x"] >= grad["element"]["x"] - 1
        assert caption["x"] + caption["width"] <= grad["element"]["x"] + grad["element"]["width"] + 1
        _nothing_clipped(page, (clip_title, diff_title, grad_title))
        _shoot(page, clip_title, f"rule-line-clip-{lang}-{width}")
        _shoot(page, grad_title, f"metric-note-grad-norm-{lang}-{width}")
    finally:
        context.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("viewport", [WIDE, NARROW], ids=["1440", "390"])
def test_rlmons_rules_drawn_on_crafted_logs(browser: Any, rules_root: str, lang: str, viewport: dict[str, int]) -> None:
    step_title, grad_title = {
        "en": ("Time per step by phase (s)", "Gradient norm (grad_norm)"),
        "zh": ("每步各阶段耗时（秒）", "梯度范数（grad_norm）"),
    }[lang]
    query = "?live=0" + ("&lang=zh" if lang == "zh" else "")
    width = viewport["width"]
    # steps 1-12 8 s, 13-25 10 s, 26-30 35 s: the limit is 24 s from step 10, 27 s at 27 and 30 s from 28 on
    context, page = _open(browser, f"{rules_root}/health-step-time-slower{query}", viewport, charts=3)
    try:
        chart = _chart(page, step_title)
        (line,) = chart["lines"]
        assert line["dash"], line
        assert _inside(line, chart["plot"]), (line, chart["plot"])
        # from step 10 to 30 across, from 30 s (its top) to 24 s (its bottom)
        assert abs(line["x"] - _pixel_of(chart["x"], 10)) <= 1.5, (line, chart["x"])
        assert abs(line["x"] + line["width"] - _pixel_of(chart["x"], 30)) <= 1.5, (line, chart["x"])
        assert abs(line["y"] - _pixel_of(chart["y"], 30)) <= 1.5, (line, chart["y"])
        assert abs(line["y"] + line["height"] - _pixel_of(chart["y"], 24)) <= 1.5, (line, chart["y"])
        _nothing_clipped(page, (step_title,))
        _shoot(page, step_title, f"rule-step-time-{lang}-{width}")
    finally:
        context.close()
    # the signature over steps 21-30: a faint shade and a strip at the top of the plot, from step 21 to 30
    context, page = _open(browser, f"{rules_root}/health-collapse{query}", viewport, charts=3)
    try:
        chart = _chart(page, grad_title)
        shade, strip = sorted(chart["rects"], key=lambda r: r["height"], reverse=True)
        for rect in (shade, strip):
            assert _inside(rect, chart["plot"]), (rect, chart["plot"])
            assert abs(rect["x"] - _pixel_of(chart["x"], 21)) <= 1.5, (rect, chart["x"])
            assert abs(rect["x"] + rect["width"] - _pixel_of(chart["x"], 30)) <= 1.5, (rect, chart["x"])
        assert abs(shade["height"] - chart["plot"]["height"]) <= 1.5
        assert abs(strip["y"] - chart["plot"]["y"]) <= 1 and abs(strip["height"] - 8) <= 1
        _nothing_clipped(page, (grad_title,))
        _shoot(page, grad_title, f"rule-collapse-{lang}-{width}")
    finally:
        context.close()


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("rule-lines-demo")
    with serve(folder, {"RLMON_CACHE_DIR": str(folder / "cache"), "RLMON_CHART_RENDERER": "svg"},
               "server-rule-lines-demo.log") as url:  # fmt: skip
        yield url


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("viewport", [WIDE, NARROW], ids=["1440", "390"])
def test_demo_names_verls_far_threshold_and_draws_the_outcome_lengths(
    browser: Any, demo: str, lang: str, viewport: dict[str, int]
) -> None:
    clip_title, far, outcome_title = {
        "en": ("Responses cut at the cap (%)", ["verl 10% (docs/perf/best_practices.rst):",
               "far above these values, not drawn"], "Length of correct and incorrect responses (tokens)"),
        "zh": ("被截断的响应（%）", ["verl 10%（docs/perf/best_practices.rst）：", "远高于这些值，未画出"],
               "正确与错误回答的长度（词元）"),
    }[lang]  # fmt: skip
    query = "?live=0" + ("&lang=zh" if lang == "zh" else "")
    width = viewport["width"]
    context, page = _open(browser, f"{demo}/4b-e1-grpo-4b{query}", viewport, charts=10)
    try:
        # the demo's clipped share stays far under 10%: no rule, and the note says where verl's lies
        clip = _chart(page, clip_title)
        assert clip["rules"] == []
        # its two lines, under the title (each a text of its own), the second not under the chart's SVG button
        assert clip["subtitle"] == far, clip["subtitle"]
        assert clip["subtitle_right"] <= clip["button_left"] < viewport["width"], clip
        outcome = _chart(page, outcome_title)
        assert outcome["plot"]["height"] >= 150, outcome["plot"]
        _shoot(page, clip_title, f"far-threshold-note-{lang}-{width}")
        _shoot(page, outcome_title, f"outcome-lengths-{lang}-{width}")
        _nothing_clipped(page, (clip_title, outcome_title))
    finally:
        context.close()
