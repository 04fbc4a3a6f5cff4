"""What a chart looks like once drawn: geometry measured in the rendered SVG of every ``st.vega_lite_chart``.

:func:`measure_charts` runs one JavaScript snippet in the page and returns one :class:`ChartGeometry` per
chart element (``[data-testid="stVegaLiteChart"]``), in document order:

- **plot areas** — the data rectangles. Vega draws every view as a group mark whose first child holds a
  ``path.background`` the size of the view: ``g.mark-group.role-frame.root`` for a single (layered) view, and
  ``g.mark-group.role-scope`` groups for the cells of a facet or concat. Of those groups, the ones that hold no
  other view group and do hold an axis or a data mark are plot areas; their background path's
  ``getBoundingClientRect`` is the size. Group marks that are not views are left out: legends, axes and titles
  (``role-legend``/``role-axis``/``role-title`` and what is inside them) and the per-series path groups Vega-Lite
  makes for a line with a colour field (class ``*_pathgroup``), whose background just repeats their view's.
- **clipped texts** — every visible SVG ``text`` whose glyph box (see ``inkBox`` in the snippet) reaches
  outside the ``svg``, the chart element, or any ancestor whose computed ``overflow`` is ``hidden`` or
  ``clip``, up to the nearest scrolling container (Streamlit's ``stMain``: what hides overflow above it clips
  the scrolled view, not the chart), by more than :data:`CLIP_TOLERANCE_PX`.
- **legend labels** (``g.role-legend-label text``) and every text ending in an ellipsis, with its role.
- **line colours** — the distinct ``stroke`` values of ``path`` in ``g.mark-line``.
- **axes** — each ``g.role-axis`` with its description and the tick labels it shows.

A chart drawn on a canvas cannot be measured: its :attr:`ChartGeometry.renderer` is ``"canvas"`` and
:func:`require_svg` fails naming it (the specs ask for SVG with ``usermeta.embedOptions.renderer``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

CLIP_TOLERANCE_PX = 1.0
ELLIPSIS = "…"

_MEASURE_JS = r"""
([tolerance, ellipsis, selector]) => {
  const round = (value) => Math.round(value * 10) / 10;
  const box = (rect) => ({x: round(rect.x), y: round(rect.y), width: round(rect.width), height: round(rect.height)});
  const NOT_VIEW = /role-(legend|axis|title)/;
  const insideNonView = (node, svg) => {
    for (let up = node.parentElement; up && up !== svg; up = up.parentElement) {
      if (up.matches('g.mark-group') && NOT_VIEW.test(up.getAttribute('class') || '')) return true;
    }
    return false;
  };
  const isView = (group, svg) => {
    const cls = group.getAttribute('class') || '';
    if (!/role-(frame|scope)/.test(cls) || NOT_VIEW.test(cls) || /_pathgroup\b/.test(cls)) return false;
    return !insideNonView(group, svg);
  };
  const clippers = (element) => {
    const found = [];
    for (let up = element.parentElement; up && up !== document.documentElement; up = up.parentElement) {
      const style = getComputedStyle(up);
      // Content inside a scrolling container is reached by scrolling: what clips that container does not
      // clip the chart.
      if (/auto|scroll/.test(style.overflowX) || /auto|scroll/.test(style.overflowY)) break;
      if (/hidden|clip/.test(style.overflowX) || /hidden|clip/.test(style.overflowY)) {
        const cls = typeof up.className === 'string' && up.className ? '.' + up.className.split(' ')[0] : '';
        const name = up.getAttribute('data-testid') || up.tagName.toLowerCase() + cls;
        const x = /hidden|clip/.test(style.overflowX);
        found.push({name, rect: up.getBoundingClientRect(), x, y: /hidden|clip/.test(style.overflowY)});
      }
    }
    return found;
  };
  const outside = (inner, outer, checkX, checkY) => {
    let worst = 0;
    if (checkX) worst = Math.max(worst, outer.left - inner.left, inner.right - outer.right);
    if (checkY) worst = Math.max(worst, outer.top - inner.top, inner.bottom - outer.bottom);
    return worst;
  };
  // The box a text's glyphs can take: its advance width across, and from 0.8 em above the baseline to 0.25 em
  // below it. getBoundingClientRect gives the font's whole line box, which reaches ~0.2 em above any glyph
  // and would make every title Vega sets flush with the top of its chart look clipped.
  const inkBox = (text) => {
    const bbox = text.getBBox();
    if (bbox.width === 0 && bbox.height === 0) return null;
    const size = parseFloat(getComputedStyle(text).fontSize) || 12;
    let baseline = bbox.y + bbox.height * 0.75;
    try { baseline = text.getStartPositionOfChar(0).y; } catch (error) { /* keep the estimate */ }
    const matrix = text.getScreenCTM();
    if (!matrix) return null;
    const corners = [[bbox.x, baseline - 0.8 * size], [bbox.x + bbox.width, baseline - 0.8 * size],
                     [bbox.x, baseline + 0.25 * size], [bbox.x + bbox.width, baseline + 0.25 * size]]
      .map(([x, y]) => new DOMPoint(x, y).matrixTransform(matrix));
    const xs = corners.map((point) => point.x);
    const ys = corners.map((point) => point.y);
    return {left: Math.min(...xs), right: Math.max(...xs), top: Math.min(...ys), bottom: Math.max(...ys)};
  };
  const roleOf = (text) => {
    const group = text.closest('g[class*="role-"]');
    const match = group && (group.getAttribute('class') || '').match(/role-[\w-]+/);
    return match ? match[0].slice(5) : '';
  };
  return [...document.querySelectorAll(selector)].map((element, index) => {
    const elementRect = element.getBoundingClientRect();
    const svg = element.querySelector('svg.marks') || element.querySelector('svg');
    const canvas = element.querySelector('canvas');
    const result = {index, renderer: svg ? 'svg' : (canvas ? 'canvas' : 'none'), element: box(elementRect),
                    title: '', plots: [], clipped: [], legend_labels: [], ellipsized: [], line_colors: [], lines: 0,
                    axes: []};
    if (!svg) {
      result.title = element.getAttribute('aria-label') || '';
      return result;
    }
    result.title = [...svg.querySelectorAll('g.role-title-text text')].map((t) => t.textContent).join(' ').trim();
    const views = [...svg.querySelectorAll('g.mark-group')].filter((group) => isView(group, svg));
    for (const view of views) {
      if (views.some((other) => other !== view && view.contains(other))) continue;
      const drawn = 'g.role-axis, g.mark-line, g.mark-area, g.mark-rect, g.mark-symbol, g.mark-rule';
      if (!view.querySelector(drawn)) continue;
      const background = view.querySelector(':scope > g > path.background');
      if (!background) continue;
      result.plots.push(box(background.getBoundingClientRect()));
    }
    const svgRect = svg.getBoundingClientRect();
    const outer = clippers(element);
    for (const text of svg.querySelectorAll('text')) {
      const content = (text.textContent || '').trim();
      if (!content) continue;
      const style = getComputedStyle(text);
      if (style.display === 'none' || style.visibility === 'hidden' || Number(style.opacity) === 0) continue;
      if (text.closest('[opacity="0"], [display="none"]')) continue;
      const rect = inkBox(text);
      if (!rect) continue;
      const by = [];
      const bySvg = outside(rect, svgRect, true, true);
      if (bySvg > tolerance) by.push(`svg ${round(bySvg)}px`);
      const byElement = outside(rect, elementRect, true, true);
      if (byElement > tolerance) by.push(`chart element ${round(byElement)}px`);
      for (const clipper of outer) {
        const over = outside(rect, clipper.rect, clipper.x, clipper.y);
        if (over > tolerance) by.push(`${clipper.name} ${round(over)}px`);
      }
      if (by.length) result.clipped.push({text: content, role: roleOf(text), by: by.join(', ')});
      if (content.endsWith(ellipsis)) result.ellipsized.push({text: content, role: roleOf(text)});
    }
    result.legend_labels = [...svg.querySelectorAll('g.role-legend-label text')].map((t) => t.textContent || '');
    const strokes = [...svg.querySelectorAll('g.mark-line path')]
      .map((path) => (path.getAttribute('stroke') || getComputedStyle(path).stroke || '').toLowerCase())
      .filter((stroke) => stroke && stroke !== 'none' && stroke !== 'transparent');
    result.lines = svg.querySelectorAll('g.mark-line path').length;
    const shown = (text) => {
      const style = getComputedStyle(text);
      return (text.textContent || '').trim() && style.display !== 'none' && style.visibility !== 'hidden'
        && Number(style.opacity) !== 0 && !text.closest('[opacity="0"], [display="none"]');
    };
    result.axes = [...svg.querySelectorAll('g.role-axis')].map((axis) => ({
      description: axis.getAttribute('aria-label') || '',
      labels: [...axis.querySelectorAll('g.role-axis-label text')].filter(shown).map((t) => t.textContent.trim()),
    }));
    result.line_colors = [...new Set(strokes)].sort();
    return result;
  });
}
"""


@dataclass(frozen=True)
class Box:
    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True)
class ChartGeometry:
    """One drawn chart. Sizes are CSS pixels of the page as it is (``getBoundingClientRect``)."""

    index: int
    renderer: str  # "svg", "canvas" or "none" (not drawn yet)
    title: str
    element: Box
    plots: tuple[Box, ...]
    clipped: tuple[dict[str, str], ...] = field(default=())
    legend_labels: tuple[str, ...] = field(default=())
    ellipsized: tuple[dict[str, str], ...] = field(default=())
    line_colors: tuple[str, ...] = field(default=())
    lines: int = 0
    axes: tuple[dict[str, Any], ...] = field(default=())
    """Each axis: ``description`` (Vega's aria-label, e.g. "X-axis titled 'step' for a linear scale with values
    from 1 to 150") and the ``labels`` it shows (those Vega hides for overlap left out)."""

    @property
    def name(self) -> str:
        """The chart's title as drawn, else its position: how failure messages name it."""
        return repr(self.title) if self.title else f"chart #{self.index} (no title)"

    @property
    def is_line_chart(self) -> bool:
        return self.lines > 0

    @property
    def plot_height(self) -> float:
        """The smallest plot area's height (0 when the chart has none)."""
        return min((plot.height for plot in self.plots), default=0.0)

    @property
    def plot_width(self) -> float:
        return min((plot.width for plot in self.plots), default=0.0)

    @property
    def ellipsized_legend_labels(self) -> list[str]:
        return [label for label in self.legend_labels if label.rstrip().endswith(ELLIPSIS)]

    @property
    def linear_axes(self) -> list[dict[str, Any]]:
        """The axes of linear scales (values, steps, hours); band (experiment names) and log axes left out."""
        return [axis for axis in self.axes if "linear scale" in axis["description"]]

    def describe(self) -> str:
        plots = ", ".join(f"{plot.width:.0f}x{plot.height:.0f}" for plot in self.plots) or "none"
        return f"{self.name}: element {self.element.width:.0f}x{self.element.height:.0f}, plot area {plots}"


def measure_charts(page: Any, *, selector: str = '[data-testid="stVegaLiteChart"]') -> list[ChartGeometry]:
    """Every ``st.vega_lite_chart`` on ``page`` (a Playwright page), measured in its rendered SVG; ``selector``
    names other chart elements (an rlmon report's)."""
    raw = page.evaluate(_MEASURE_JS, [CLIP_TOLERANCE_PX, ELLIPSIS, selector])
    return [
        ChartGeometry(
            index=item["index"],
            renderer=item["renderer"],
            title=item["title"],
            element=Box(**item["element"]),
            plots=tuple(Box(**plot) for plot in item["plots"]),
            clipped=tuple(item["clipped"]),
            legend_labels=tuple(item["legend_labels"]),
            ellipsized=tuple(item["ellipsized"]),
            line_colors=tuple(item["line_colors"]),
            lines=int(item["lines"]),
            axes=tuple(item["axes"]),
        )
        for item in raw
    ]


def require_svg(charts: list[ChartGeometry]) -> None:
    """Fail, naming the charts, when any is drawn on a canvas or not drawn at all: nothing could be measured."""
    wrong = [f"{chart.name} ({chart.renderer})" for chart in charts if chart.renderer != "svg"]
    assert not wrong, (
        "charts not rendered as SVG, so their geometry cannot be measured (the spec should set "
        f'usermeta.embedOptions.renderer = "svg"): {"; ".join(wrong)}'
    )


def charts_per_row(charts: list[ChartGeometry]) -> list[int]:
    """How many of ``charts`` sit side by side on each row (elements whose tops are within 4 px)."""
    rows: list[list[float]] = []
    for chart in sorted(charts, key=lambda chart: chart.element.y):
        if rows and abs(rows[-1][0] - chart.element.y) <= 4:
            rows[-1].append(chart.element.y)
        else:
            rows.append([chart.element.y])
    return [len(row) for row in rows]


_BANDS_JS = r"""
(selector) => [...document.querySelectorAll(selector)].map((element) => {
  const svg = element.querySelector('svg.marks') || element.querySelector('svg');
  if (!svg) return null;
  const box = (node) => { const r = node.getBoundingClientRect();
    return {x: r.x, y: r.y, width: r.width, height: r.height}; };
  const layer = (node) => ((node.closest('g.mark-area, g.mark-line') || {}).getAttribute?.('class') || '')
    .split(' ').find((name) => name.startsWith('layer_')) || '';
  const paths = (kind) => [...svg.querySelectorAll(`g.mark-${kind} path`)].map((path) => ({
    layer: layer(path), fill: (path.getAttribute('fill') || '').toLowerCase(),
    stroke: (path.getAttribute('stroke') || '').toLowerCase(),
    opacity: Number(getComputedStyle(path).opacity), ...box(path)}));
  const symbols = [...svg.querySelectorAll('g.role-legend-symbol path')]
    .map((path) => (path.getAttribute('stroke') || path.getAttribute('fill') || '').toLowerCase());
  const labels = [...svg.querySelectorAll('g.role-legend-label text')].map((text) => text.textContent || '');
  return {areas: paths('area'), lines: paths('line'), legend: labels.map((label, i) => [label, symbols[i] || ''])};
})
"""


@dataclass(frozen=True)
class DrawnPath:
    """One ``path`` of a line or area mark: its layer (``layer_2_marks`` ...), colours, opacity and box (CSS px)."""

    layer: str
    fill: str
    stroke: str
    opacity: float
    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True)
class BandGeometry:
    """A line chart's bands (area paths), lines and legend entries (label, symbol colour), as drawn."""

    areas: tuple[DrawnPath, ...]
    lines: tuple[DrawnPath, ...]
    legend: tuple[tuple[str, str], ...]


def measure_bands(page: Any, *, selector: str = '[data-testid="stVegaLiteChart"]') -> list[BandGeometry | None]:
    """Per chart element on ``page`` (None when not drawn as SVG): its area and line paths and its legend."""
    return [
        None
        if item is None
        else BandGeometry(
            areas=tuple(DrawnPath(**path) for path in item["areas"]),
            lines=tuple(DrawnPath(**path) for path in item["lines"]),
            legend=tuple((label, colour) for label, colour in item["legend"]),
        )
        for item in page.evaluate(_BANDS_JS, selector)
    ]
