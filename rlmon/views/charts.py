"""Chart builders: long frames in (see :mod:`rlmon.schema`), Vega-Lite out.

Each chart comes two ways from one code path:

* ``*_spec`` functions (:func:`metric_chart_spec`, …) return the finished Vega-Lite dict. The data goes in
  top-level ``datasets`` under names given by their role (``rlmon_raw``, ``rlmon_smoothed``, ``rlmon_hover``
  …); the views refer to them by name. With ``arrow=True`` each dataset is Arrow IPC stream bytes, which
  ``st.vega_lite_chart`` ships to the browser as they are; otherwise a list of row dicts (strict JSON).
* ``*_chart`` functions (:func:`metric_chart`, …) return the same chart as an ``alt.LayerChart`` whose
  ``to_dict()`` equals the spec (the tests check it, which also validates every spec against Altair's
  Vega-Lite schema).

The specs are written as plain dicts, not built from Altair objects: building a layered chart with Altair
costs ~0.1 s (its object model, not the data), which a dashboard redrawing a dozen charts on every widget
change cannot afford. Altair is imported only by the ``*_chart`` functions.

Every builder
- downsamples before plotting (per experiment and metric, keeping each bucket's min, max and last point; a line
  chart's raw lines then keep the lowest and highest point of each pixel column of the widest plot,
  :data:`PLOT_WIDTH`),
- sends numbers as 32-bit (Float32, Int32 where they fit): 7 significant digits where 3-4 are shown,
- sends non-finite numbers as null (strict JSON has no NaN or inf),
- returns a chart with a centred text mark instead of raising when there is nothing to draw,
- takes every visible text (titles, tooltip titles, the empty-chart text) from the caller; the defaults are
  neutral column names.

Renderer. Line and area charts ask the browser for a canvas (``usermeta.embedOptions.renderer``): they draw up
to a few thousand points per line, which as SVG become DOM nodes the browser lays out and paints one by one (on
an experiment page of 35 charts, SVG made the page take 13 s where a canvas took 7 s). Bar charts and the
empty-chart text stay SVG: a few marks, where crisp text matters more. Hover tooltips and the hover rule work
the same on either (Vega handles the pointer, not the DOM). :func:`with_renderer` puts every chart on one
renderer (rlmon's ``chart_renderer`` setting; the browser tests measure layout in the SVG).

Browser work. The browser evaluates every encoding channel of every point with Vega's expression interpreter,
so the specs keep per-point work small: no spoken description per point (``aria: false``), no validity test per
point of a line (rows are tested once where they enter), no sort expression for the colours (rows come in the
colour domain's order), no opacity test unless a run is highlighted, explicit scale domains (no extents), and
tooltip pictures joined from texts formatted on the server (:mod:`rlmon.views.tooltip`). A smoothing change leaves
the spec text as it was: the browser keeps the chart and swaps in only the datasets whose bytes changed (the
smoothed line and the hover table), and the raw lines, whose scales did not move, are not drawn again.

Text read from logs only ever reaches the chart as data fields shown in tooltips or legends (plain text), or
inside the hover tooltip's SVG picture XML-escaped and percent-encoded in Python (:mod:`rlmon.views.tooltip`);
only column names, number formats and such percent-encoded literals enter Vega expressions.
"""

from __future__ import annotations

import io
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

import polars as pl

from rlmon.analysis.groups import GROUP, Band, group_steps
from rlmon.analysis.smoothing import SMOOTHED, Smoothing, decimate, downsample, with_smoothed
from rlmon.errors import SettingError
from rlmon.runs.axes import SAMPLES, TOKENS, X_AXES, XAxis
from rlmon.runs.experiment import DASH_PATTERNS
from rlmon.schema import EXPERIMENT, HOURS, LONG_SCHEMA, METRIC, PALETTE, STEP, VALUE
from rlmon.views import ticks, tooltip

if TYPE_CHECKING:
    import altair as alt

__all__ = [
    "DEFAULT_PALETTE",
    "PLOT_HEIGHT",
    "PLOT_WIDTH",
    "RENDERERS",
    "SCHEMA_URL",
    "THRESHOLD_COLOR",
    "ChartOptions",
    "Renderer",
    "XAxis",
    "bar_chart",
    "bar_chart_spec",
    "metric_chart",
    "metric_chart_spec",
    "sparkline_values",
    "stacked_area_chart",
    "stacked_area_chart_spec",
    "validation_chart",
    "validation_chart_spec",
    "with_highlight_test",
    "with_renderer",
]

Renderer = Literal["svg", "canvas"]
RENDERERS = ("auto", "svg", "canvas")
"""Values of :func:`with_renderer`'s ``renderer``: ``auto`` keeps each builder's choice."""

SCHEMA_URL = "https://vega.github.io/schema/vega-lite/v6.4.1.json"
"""The Vega-Lite schema the specs follow (Altair 6.3's ``alt.SCHEMA_URL``; a test keeps them equal)."""

DEFAULT_PALETTE = PALETTE
"""Colours for experiments (or phases) the caller gave no colour for, in order."""

LABEL = "label"
"""Column holding the display label (experiment label or phase label) that colours the marks."""

_HIGHLIGHTED = "hl"
"""Boolean column: the row's experiment is drawn in full (highlighted, or nothing is highlighted)."""
_HOVER_PARAM = "hover"
# View names (a parameter names the views it listens on); distinct from the parameter names.
_HOVER_VIEW = "view_hover"
_AXIS_STYLE = {"labelFontSize": 11, "titleFontSize": 11, "titleFontWeight": "normal", "labelOverlap": True}
_Y_TICKS = 5
_X_TICKS = 6
PLOT_HEIGHT = 220
"""Default height of a chart's plot area (the data rectangle), in pixels."""
PLOT_WIDTH = 800
"""Default width bound of a line chart's plot area, in pixels: the widest rlmon's chart grids draw one (two charts a
row in a window just under 1,600 px with the sidebar closed; three a row above). A narrower plot (a phone's
330 px) gets more points than it has pixels, never fewer."""
_TOOLTIP_FIELD = "_tooltip"
_RAW_OPACITY = 0.25
_DIMMED_OPACITY = 0.15
_MEMBER = "_member"
"""Column: the row's run is a member of a group of repeats (drawn faint)."""
_OF = "_of"
"""Column: the legend entry of the row's run's group (null for a run in no group)."""
_MEMBERS_PARAM = "members"
"""The legend-bound selection of the groups whose runs are drawn (:func:`_members_param`)."""
_MEMBER_OPACITY = 0.35
"""A group member's line under its group's mean line."""
_BAND_OPACITY = 0.2
"""A group's band: its colour, light enough for the lines in it to show."""
_REFERENCE_DASH = [6, 4]
THRESHOLD_COLOR = "#b45309"
"""Colour of a health threshold's dashed rule and label (amber, apart from the grey response cap; 5:1 on white)."""
_NO_SMOOTHING = Smoothing()
_BULK_MARK: dict[str, Any] = {"aria": False, "invalid": "filter"}
"""Mark properties of the layers drawn per point. The browser computes every encoding channel of every point
with Vega's expression interpreter: ``aria: false`` drops a spoken description string per point, and
``invalid: "filter"`` tests each row once where its dataset enters (a dataset a rerun did not change is not
tested again) instead of a ``defined`` test per point of a line on every draw."""
SMOOTHED_POINTS = 1_200
"""Points one chart's smoothed lines carry at most, over all its lines (each line at least
:data:`MIN_SMOOTHED_BUCKETS`, at most ``max_points``): 120 per line up to 10 lines, 60 per line from 20. A
smoothed line changes slowly and every point costs the browser work each time the smoothing changes: the
overview of 20 runs redrew its 4 line charts about 0.06 s sooner at 60 points a line (one per 10 px of a
600-pixel plot) than at 120, which helped put a smoothing change under half a second. Where many lines
overlap, the trend is what is read; the raw line beneath keeps every downsampled point, spikes included."""
MIN_SMOOTHED_BUCKETS = 60
MAX_SMOOTHED_BUCKETS = 600
"""Points one smoothed line carries at most, however few lines share the chart: about one per pixel of the widest
plot (a single run of 2,000 steps drew a smoothed line of 2,000 points, three per pixel, which the browser
encoded point by point at every draw and smoothing change)."""
_HOVER_POINTS = 320
_ROW_ORDER = {"value": 0}
"""A line's ``order``: the rows come sorted by x within each run, and a constant order spares the browser a
number conversion per point (Vega-Lite still sorts the points by x, a cheap pass over a sorted list)."""
_DOT = "y"
"""Most positions of the hover rule: one per 2-4 pixels of a chart. Each carries a tooltip picture the browser
joins from text columns on every redraw (the lines keep their own, finer points)."""


# --- options ----------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class ChartOptions:
    """How one chart is drawn: every builder takes one (:func:`metric_chart_spec`, :func:`validation_chart_spec`,
    :func:`bar_chart_spec`, :func:`stacked_area_chart_spec`), reading the fields that apply to it.

    Keyword-only; only the titles are required. Every visible text comes from the caller (the defaults are
    neutral column names). A page builds one with what all its charts share and derives each chart's with
    :func:`dataclasses.replace`.

    Examples
    --------
    >>> base = ChartOptions(title="", y_title="", colors={"e1": "#1f77b4"}, labels={"e1": "E1"}, height=190)
    >>> replace(base, title="entropy", y_title="nats").height
    190
    """

    title: str
    """Chart title."""
    y_title: str
    """Y-axis title (a title of ``%`` means the values are already in percent, as the pass rate)."""
    colors: Mapping[str, str] = field(default_factory=dict)
    """Experiment id -> hex colour. Its order fixes the legend order; an experiment missing from it gets a colour
    from :data:`DEFAULT_PALETTE` (and, missing from ``labels``, its id as label)."""
    labels: Mapping[str, str] = field(default_factory=dict)
    """Experiment id -> display label."""
    dashes: Mapping[str, int] = field(default_factory=dict)
    """Line charts: experiment id -> its dash (:data:`rlmon.runs.experiment.DASH_PATTERNS`; missing or 0: solid).
    A view of more experiments than colours draws those that share a colour in different dashes."""
    x: XAxis = "step"
    """One of :data:`rlmon.runs.axes.X_AXES` (rows with no value on that axis are left out); on an axis other than
    step and hours the long frame carries that axis's column (:func:`rlmon.views.model.long_frame`)."""
    x_title: str | None = None
    """X-axis title; default: the x column name."""
    smoothing: Smoothing = _NO_SMOOTHING
    """Line charts: :class:`rlmon.analysis.smoothing.Smoothing`, computed on every logged point, then
    downsampled."""
    log_scale: bool = False
    """Logarithmic y axis; values <= 0 are left out."""
    percent: bool = False
    """Values are fractions shown as percent (axis ``.0%``, hover tooltip ``.1%``)."""
    value_format: str | None = None
    """d3 format of tooltip values. Line charts default to ``.1%`` when ``percent``, ``.1f`` and a ``%`` when
    ``y_title`` is ``%``, else 3-4 significant digits; bars and stacked areas to ``,.1f``."""
    axis_format: str | None = None
    """d3 format of the y-axis labels (e.g. ``~s`` for token counts: 5k, 10k); default: Vega's own."""
    reference: float | None = None
    """A horizontal dashed rule at this y value (e.g. the response-length cap)."""
    reference_label: str | None = None
    """The reference rule's label."""
    thresholds: tuple[tuple[float, str], ...] = ()
    """Line charts: health thresholds (y value, label) drawn as dashed rules in the threshold colour, e.g. verl's
    (:func:`rlmon.analysis.health.threshold_lines`); the y scale reaches them. One further than
    :data:`THRESHOLD_REACH` spans from the values is not drawn: the note under the title names it
    (``threshold_above`` / ``threshold_below``)."""
    threshold_above: str = "{lines}:\nfar above these values, not drawn"
    """Line charts: the note naming the thresholds left out above the values (``{lines}``: their labels); a
    ``\n`` starts a line of its own (a subtitle does not wrap: on a phone's column one line would run under the
    chart's corner button)."""
    threshold_below: str = "{lines}:\nfar below these values, not drawn"
    """Line charts: the note naming the thresholds left out below the values."""
    threshold_spans: tuple[tuple[float, float, str], ...] = ()
    """Line charts: x ranges (from, to, label) where a rule found a problem, shaded in the threshold colour with
    the label as their tooltip (rlmon's collapse signature); the x scale reaches them."""
    threshold_span_tag: str = ""
    """Line charts: a short text written inside each span at its right edge (what the shade is), under its strip or,
    where the curve ends high there, at the bottom of the plot."""
    max_points: int = 2000
    """Points per experiment line (steps of a stacked area) sent to the browser: the downsampling bound."""
    plot_width: int = PLOT_WIDTH
    """Line charts: the widest the plot area is drawn, in pixels. A raw line keeps, per pixel column, its lowest
    and highest point (:func:`rlmon.analysis.smoothing.decimate`): at most two points a pixel, whatever
    ``max_points``."""
    height: int = PLOT_HEIGHT
    """Height of the plot area in pixels; titles, axes and a legend are added around it."""
    highlight: Sequence[str] = ()
    """Experiment ids drawn in full while the others are dimmed; empty: every line in full. The page's legend
    (outside the chart) sets it, so one click highlights a run in every chart."""
    legend: bool = False
    """Line charts: a colour legend below the plot (for series that are not experiments, e.g. the clip fractions
    of one run). It grows the chart; labels are never cut."""
    note: str | None = None
    """Line charts: a line of small text under the title (e.g. "logged with 3 decimals")."""
    experiment_title: str = "experiment"
    """Tooltip title of the experiment."""
    raw_suffix: str = " (raw)"
    """Tooltip title of the raw value beside the smoothed one."""
    marker_title: str = "signal"
    """Tooltip title of a marker's text."""
    projected_title: str = "projected"
    """Bars: tooltip title of a running run's projected total."""
    total_title: str = "total"
    """Stacked areas: tooltip title of the per-step total."""
    empty_text: str = "no data"
    """Text shown when there is nothing to draw."""
    arrow: bool = False
    """Datasets as Arrow IPC stream bytes (for ``st.vega_lite_chart``) instead of lists of row dicts."""
    groups: Mapping[str, str] = field(default_factory=dict)
    """Line charts: experiment id -> the key of its group of repeats (:mod:`rlmon.runs.groups`). A group is drawn in
    its first member's colour (``colors``): its mean line, a band (``band``) where two or more members have values,
    and its members as faint lines. Empty: every run on its own, as always."""
    band: Band = "minmax"
    """The groups' band: ``minmax`` (the members' range) or ``std`` (mean ± one sample standard deviation)."""
    group_names: Mapping[str, str] = field(default_factory=dict)
    """Line charts: group key -> its entry in the chart's legend of groups (a click there shows or hides the
    group's runs); a group without one is named by its key."""
    group_titles: tuple[str, str, str, str] = ("group", "mean", "band", "runs")
    """Line charts: tooltip titles of a group's point on its mean line (the group, its mean, its band, how many
    runs have a value there)."""


# --- public builders ---------------------------------------------------------------------------------


def metric_chart_spec(
    long: pl.DataFrame, options: ChartOptions, *, markers: pl.DataFrame | None = None
) -> dict[str, Any]:
    """One metric for several experiments: lines, hover tooltip, highlighted runs (a Vega-Lite dict).

    Layers, in order: the raw line per experiment (faded to opacity 0.25 under the smoothed line when
    smoothing is on; it carries the legend selection, which Vega-Lite only honours on the first layer), the
    smoothed line, points marking the hovered step, a nearest-x hover rule whose tooltip lists every
    experiment's value there, the dashed reference rule, and the markers.

    Parameters
    ----------
    long
        A long frame for one metric (extra metrics would be drawn as one line per experiment).
    options
        Titles, colours, axes, smoothing, size (:class:`ChartOptions`).
    markers
        Optional frame (``experiment``, ``step``, ``value``, ``text``) drawn as triangles with a tooltip.

    Returns
    -------
    dict
        The Vega-Lite spec. The main dataset (top-level ``data``) has the columns ``experiment``,
        ``label``, ``step``, ``hours``, ``value`` and ``smoothed`` (equal to ``value`` without smoothing).

    Raises
    ------
    SettingError
        ``x`` is not ``step``/``hours``, or ``markers`` lacks a column.
    """
    return _line_spec(long, options, markers=markers, with_points=False)


def validation_chart_spec(long: pl.DataFrame, options: ChartOptions) -> dict[str, Any]:
    """Validation scores at their test steps: a point per test step, joined per experiment.

    Only the rows where the key was logged are drawn, so the line joins consecutive test steps (every
    ``test_freq`` steps) rather than breaking at the steps in between. Same hover tooltip and legend
    selection as :func:`metric_chart_spec`; ``options`` as there, without smoothing, legend or note.

    Returns
    -------
    dict
        The Vega-Lite spec.
    """
    unsmoothed = replace(options, smoothing=_NO_SMOOTHING, legend=False, note=None, marker_title="", raw_suffix="")
    return _line_spec(long, unsmoothed, markers=None, with_points=True)


PROJECTION_REACH = 3.0
"""Bars: a running run's projected total is drawn up to this many times the longest bar (the text says it all)."""


def bar_chart_spec(values: pl.DataFrame, options: ChartOptions) -> dict[str, Any]:
    """One bar per experiment with its value written on it (e.g. total training hours).

    A bar whose row has a ``projected`` value (a run still going: its hours so far, and where it will end)
    is drawn lighter with a dashed outline, with a faint dashed bar up to the projection behind it.

    Parameters
    ----------
    values
        Frame with ``experiment`` (String) and ``value`` (numeric); optional ``projected`` (numeric, null for
        a finished run) and ``text`` (String: what is written over the bar, lines separated by ``\n``;
        default: the value in ``value_format``). Rows with a non-finite value are left out. An experiment
        listed twice gets its last row.
    options
        Its titles, colours and labels (bars follow their order), ``value_format`` (of the value in the tooltip
        and over the bar without ``text``), ``experiment_title``, ``projected_title``, ``empty_text``,
        ``height``, ``highlight`` and ``arrow`` (:class:`ChartOptions`).

    Returns
    -------
    dict
        The Vega-Lite spec; its main dataset has the columns ``experiment``, ``value``, ``projected``,
        ``text``, ``label`` and ``hl``.

    Raises
    ------
    SettingError
        ``values`` lacks a column.
    """
    title, y_title, colors, labels = options.title, options.y_title, options.colors, options.labels
    value_format = options.value_format or ",.1f"
    experiment_title, projected_title, empty_text = (
        options.experiment_title,
        options.projected_title,
        options.empty_text,
    )
    height, highlight, arrow = options.height, options.highlight, options.arrow
    _require_columns(values, [EXPERIMENT, VALUE], "bar_chart")
    projected = pl.col("projected").cast(pl.Float64) if "projected" in values.columns else pl.lit(None, pl.Float64)
    bars = (
        values.select(
            pl.col(EXPERIMENT).cast(pl.String),
            pl.col(VALUE).cast(pl.Float64),
            _finite_or_null(projected).alias("projected"),
            (pl.col("text").cast(pl.String) if "text" in values.columns else pl.lit(None, pl.String)).alias("text"),
        )
        .filter(pl.col(VALUE).is_finite())
        .unique(EXPERIMENT, keep="last", maintain_order=True)
    )
    if bars.is_empty():
        return _empty_spec(title=title, text=empty_text, height=height, arrow=arrow)
    domain, color_range, label_of = _color_scale(bars[EXPERIMENT].to_list(), colors, labels)
    shown_in_full = set(highlight) & set(label_of) or set(label_of)
    bars = bars.with_columns(
        pl.col(EXPERIMENT).replace_strict(label_of).alias(LABEL),
        pl.col(EXPERIMENT).is_in(list(shown_in_full)).alias(_HIGHLIGHTED),
        pl.col("projected").is_not_null().alias("running"),
    )
    # A projection from a run's first steps can be absurd (2 of 563,250 steps: 164,878 h): drawn in full it would
    # squash every other bar to nothing, so a projected bar stops at PROJECTION_REACH times the longest run so far
    # (its text and tooltip still give the whole projected total).
    reach = PROJECTION_REACH * float(bars[VALUE].max())  # type: ignore[arg-type]
    bars = bars.with_columns(
        pl.when(pl.col("projected") > reach).then(reach).otherwise(pl.col("projected")).alias("projected_drawn")
    ).with_columns(pl.max_horizontal(VALUE, "projected_drawn").alias("top"))
    top = float(bars["top"].max())  # type: ignore[arg-type]
    datasets = _Datasets(arrow=arrow)
    main = datasets.add(bars, "bars")
    # Horizontal bars: a label of any length sits on the left axis (cut at 160 px, whole in the tooltip), and
    # each value is written past the end of its bar.
    band_px = 22
    headroom = 2.4 if bool(bars["running"].any()) else 1.3

    def y_enc() -> dict[str, Any]:
        return {
            "axis": {"labelLimit": 160, "labelFontSize": 11},
            "field": LABEL,
            "sort": list(domain),
            "title": None,
            "type": "nominal",
        }

    value_axis: dict[str, Any] = {"tickCount": _Y_TICKS}
    domain_max = top * headroom
    if (found := ticks.position_ticks(0.0, domain_max)) is not None:
        value_axis = _with_ticks(value_axis, found)
        if found.values[-1] >= domain_max * (1 - 1e-9):
            # A last tick at the very end (10 steps of 60 s x 2.4 = 0.4 h) would put its label flush with the
            # plot's edge, a pixel past the chart: the axis runs on a little, so the label sits inside.
            domain_max *= 1.05

    def x_enc(field: str) -> dict[str, Any]:
        # Room right of the longest bar for its text, so no value is pushed out of the plot.
        return {
            "axis": value_axis,
            "field": field,
            "scale": {"domainMax": domain_max, "domainMin": 0, "nice": False},
            "title": y_title,
            "type": "quantitative",
        }

    def color() -> dict[str, Any]:
        return {"field": LABEL, "legend": None, "scale": _scale(domain, color_range), "type": "nominal"}

    tooltip = [
        {"field": LABEL, "title": experiment_title, "type": "nominal"},
        {"field": VALUE, "format": value_format, "title": y_title, "type": "quantitative"},
        {"field": "projected", "format": value_format, "title": projected_title, "type": "quantitative"},
    ]
    dim = {"condition": {"test": f"datum.{_HIGHLIGHTED}", "value": 1.0}, "value": _DIMMED_OPACITY}
    projection_layer = {
        "mark": {"type": "bar", "fillOpacity": 0.12, "strokeDash": [4, 3], "strokeWidth": 1.2},
        "encoding": {
            "color": color(),
            "stroke": color(),
            "opacity": dim,
            "tooltip": tooltip,
            "x": x_enc("projected_drawn"),
            "y": y_enc(),
        },
        "transform": [{"filter": "datum.running"}],
    }
    bar_layer = {
        "mark": {"type": "bar", "strokeWidth": 1.5},
        "encoding": {
            "color": color(),
            "fillOpacity": {"condition": {"test": "datum.running", "value": 0.45}, "value": 1.0},
            "opacity": dim,
            "stroke": color(),
            "strokeDash": {"condition": {"test": "datum.running", "value": [4, 3]}, "value": [1, 0]},
            "tooltip": tooltip,
            "x": x_enc(VALUE),
            "y": y_enc(),
        },
    }
    text_layer = {
        "mark": {"type": "text", "align": "left", "baseline": "middle", "dx": 4, "fontSize": 10},
        "encoding": {
            "text": {"field": "_text", "type": "nominal"},
            "opacity": dim,
            "x": x_enc("top"),
            "y": y_enc(),
        },
        "transform": [
            {
                # One line beside the bar: the lines of ``text`` joined with spaces.
                "calculate": f"isValid(datum.text) ? replace(datum.text, /\\n/g, ' ') "
                f": format(datum.{VALUE}, {json.dumps(value_format)})",
                "as": "_text",
            }
        ],
    }
    height = max(height, band_px * len(domain))
    return _top_level(
        [projection_layer, bar_layer, text_layer], data=main, title=title, height=height, datasets=datasets
    )


def stacked_area_chart_spec(
    long: pl.DataFrame,
    options: ChartOptions,
    *,
    phase_labels: Mapping[str, str] | None = None,
    phase_colors: Mapping[str, str] | None = None,
    limit: tuple[pl.DataFrame, str, str] | None = None,
) -> dict[str, Any]:
    """Per-step time of one experiment, stacked by phase (``timing_s/gen``, ``timing_s/update_actor``, …).

    Pass the phase keys only: ``timing_s/step`` is their total, and nested keys such as
    ``timing_s/generate_sequences`` (inside ``gen``) would be counted twice. A phase a step did not log
    counts as 0 at that step. Steps are downsampled on the total per step, so slow steps survive.

    Parameters
    ----------
    long
        A long frame for one experiment; ``metric`` names the phase.
    options
        Its titles, ``x`` (``"step"`` or ``"hours"``), ``value_format`` (tooltip numbers), ``total_title``,
        ``empty_text``, ``max_points`` (steps kept), ``height`` and ``arrow`` (:class:`ChartOptions`).
    phase_labels
        Metric key -> display label; its order is the stacking order (bottom first). Keys missing from it
        are labelled without their ``timing_s/`` prefix and stacked after, largest mean first.
    phase_colors
        Metric key -> hex colour; the others take :data:`DEFAULT_PALETTE` in order.
    limit
        A rule's limit per step (a frame of ``step``, the ``x`` column and ``value``), its label and a short tag:
        drawn as a dashed line in :data:`THRESHOLD_COLOR` over the areas, the label as its tooltip, the tag written
        under its first point; the y scale reaches its median and its last value (higher stretches are cut at the
        plot's top) (rlmon's slower-steps rule, :func:`rlmon.analysis.signals.step_time_limits`).

    Returns
    -------
    dict
        The Vega-Lite spec.

    Raises
    ------
    SettingError
        When the frame holds more than one experiment, or ``x`` is not ``step``/``hours``.
    """
    title, y_title, x, x_title = options.title, options.y_title, options.x, options.x_title
    value_format, total_title, empty_text = options.value_format or ",.1f", options.total_title, options.empty_text
    max_points, height, arrow = options.max_points, options.height, options.arrow
    _check_x(x)
    frame = _prepare(long, x=x, log_scale=False)
    if frame.is_empty():
        return _empty_spec(title=title, text=empty_text, height=height, arrow=arrow)
    experiments = frame[EXPERIMENT].unique().to_list()
    if len(experiments) > 1:
        raise SettingError(f"stacked_area_chart draws one experiment, got {len(experiments)}")
    given_labels = dict(phase_labels or {})
    present = frame[METRIC].unique().to_list()
    means = frame.group_by(METRIC).agg(pl.col(VALUE).mean()).sort(VALUE, descending=True)
    order = [key for key in given_labels if key in present] + [
        key for key in means[METRIC].to_list() if key not in given_labels
    ]
    label_of = {key: given_labels.get(key, key.removeprefix("timing_s/")) for key in order}
    label_of = _unique_labels(label_of)
    palette = iter(DEFAULT_PALETTE * (len(order) // len(DEFAULT_PALETTE) + 1))
    color_of = {key: (phase_colors or {}).get(key) or next(palette) for key in order}

    # Stacking needs every phase at every kept step: pivot, fill gaps with 0, downsample on the total.
    wide = (
        frame.with_columns(pl.col(VALUE).fill_null(0.0))
        .pivot(on=METRIC, index=[STEP, x] if x != STEP else [STEP], values=VALUE, aggregate_function="last")
        .sort(STEP)
        .with_columns(pl.col(key).fill_null(0.0) for key in order)
        .with_columns(pl.sum_horizontal(*order).alias("_total"))
    )
    totals = wide.select(
        pl.lit(experiments[0]).alias(EXPERIMENT),
        pl.col(STEP),
        pl.col(x).alias("_x"),
        pl.lit("_total").alias(METRIC),
        pl.col("_total").alias(VALUE),
    )
    kept_steps = downsample(totals, max_points=max_points, x="_x")[STEP]
    wide = wide.filter(pl.col(STEP).is_in(kept_steps.implode()))
    stacked = (
        wide.unpivot(on=order, index=[STEP] if x == STEP else [STEP, x], variable_name=METRIC, value_name=VALUE)
        .with_columns(
            pl.col(METRIC).replace_strict(label_of).alias(LABEL),
            pl.col(METRIC)
            .replace_strict({key: i for i, key in enumerate(order)}, return_dtype=pl.Int64)
            .alias("_order"),
        )
        .sort("_order", STEP)
    )
    domain = [label_of[key] for key in order]
    tooltip_rows = _phase_hover_table(wide, frame, order=order, x=x, x_title=x_title)
    tooltip_rows = tooltip.with_cell_texts(
        tooltip_rows, prefixes=("p",), count=len(order), fmt=value_format, total="_total"
    )
    hover_tooltip = tooltip.tooltip_expr(
        [tooltip.TooltipSeries(label_of[key], color_of[key]) for key in order], total_title=total_title
    )
    datasets = _Datasets(arrow=arrow)
    main = datasets.add(stacked, "stacked")
    stack_y: dict[str, Any] = {
        "axis": {"tickCount": _Y_TICKS},
        "field": VALUE,
        "stack": "zero",
        "title": y_title,
        "type": "quantitative",
    }
    limit_rows = None if limit is None else limit[0].filter(pl.col(VALUE).is_finite())
    top = float(wide["_total"].max() or 0.0)  # type: ignore[arg-type]
    if limit_rows is not None and not limit_rows.is_empty():
        # the scale reaches the limit's median and its last value (what the signal compares the last steps with):
        # where the limit rises further for a while (slow steps in its base) the line is cut at the plot's top
        # rather than squeezing the areas under it
        top = max(top, float(limit_rows[VALUE].median()), float(limit_rows[VALUE][-1]))  # type: ignore[arg-type]
    if (total_ticks := ticks.value_ticks(0.0, top)) is not None:
        stack_y["axis"] = _with_ticks(stack_y["axis"], total_ticks)
        stack_y["scale"] = {"domain": total_ticks.domain}
    area = {
        "mark": {"type": "area", "interpolate": "step-after" if x == STEP else "linear", "opacity": 0.85},
        "encoding": {
            "color": {
                "field": LABEL,
                "legend": {**_bottom_legend(domain), "symbolType": "square"},
                "scale": _scale(domain, [color_of[key] for key in order]),
                "sort": list(domain),
                "type": "nominal",
            },
            "order": {"field": "_order", "type": "quantitative"},
            "x": _x_encoding(x, x_title, _extent([wide[x]])),
            "y": stack_y,
        },
    }
    rule = _hover_rule(datasets.add(tooltip_rows, "hover"), x=x, tooltip_expr=hover_tooltip)
    layers = [area, rule]
    if limit is not None and limit_rows is not None and not limit_rows.is_empty():
        layers.extend(_limit_layers(limit_rows, limit[1:], x=x, titles=(x_title or x, y_title), fmt=value_format,
                                    datasets=datasets, x_range=_extent([wide[x]])))  # fmt: skip
    return _top_level(
        layers, data=main, title=title, height=height, datasets=datasets, params=[_hover_param(x)],
        renderer="canvas",
    )  # fmt: skip


def metric_chart(long: pl.DataFrame, options: ChartOptions, *, markers: pl.DataFrame | None = None) -> alt.LayerChart:
    """:func:`metric_chart_spec` as an Altair chart (datasets as rows: ``arrow`` is left off)."""
    return _to_altair(metric_chart_spec(long, replace(options, arrow=False), markers=markers))


def validation_chart(long: pl.DataFrame, options: ChartOptions) -> alt.LayerChart:
    """:func:`validation_chart_spec` as an Altair chart (datasets as rows)."""
    return _to_altair(validation_chart_spec(long, replace(options, arrow=False)))


def bar_chart(values: pl.DataFrame, options: ChartOptions) -> alt.LayerChart:
    """:func:`bar_chart_spec` as an Altair chart (datasets as rows)."""
    return _to_altair(bar_chart_spec(values, replace(options, arrow=False)))


def stacked_area_chart(
    long: pl.DataFrame,
    options: ChartOptions,
    *,
    phase_labels: Mapping[str, str] | None = None,
    phase_colors: Mapping[str, str] | None = None,
) -> alt.LayerChart:
    """:func:`stacked_area_chart_spec` as an Altair chart (datasets as rows)."""
    return _to_altair(
        stacked_area_chart_spec(
            long, replace(options, arrow=False), phase_labels=phase_labels, phase_colors=phase_colors
        )
    )


def with_renderer(spec: dict[str, Any], renderer: str) -> dict[str, Any]:
    """``spec`` drawn with ``renderer`` (``svg`` or ``canvas``); ``auto`` keeps the builder's choice.

    Returns a new top-level dict sharing everything else with ``spec`` (which is left as it is).

    Raises
    ------
    SettingError
        ``renderer`` is not one of :data:`RENDERERS`.
    """
    if renderer not in RENDERERS:
        raise SettingError(f"chart renderer {renderer!r} is not one of {', '.join(RENDERERS)}")
    if renderer == "auto":
        return spec
    usermeta = dict(spec.get("usermeta") or {})
    usermeta["embedOptions"] = {**(usermeta.get("embedOptions") or {}), "renderer": renderer}
    return {**spec, "usermeta": usermeta}


def with_highlight_test(spec: dict[str, Any]) -> dict[str, Any]:
    """``spec`` with the dimming test on every line layer even when nothing is highlighted, for a page that
    highlights runs by rewriting the rows' ``hl`` column itself (the report). Returns a new dict; line layers
    are copied, everything else is shared with ``spec``."""
    dim = {"condition": [{"test": f"datum.{_HIGHLIGHTED}", "value": 1.0}], "value": _DIMMED_OPACITY}

    def layer(item: dict[str, Any]) -> dict[str, Any]:
        if item.get("mark", {}).get("type") != "line" or item.get("encoding", {}).get("opacity") != {"value": 1.0}:
            return item
        return {**item, "encoding": {**item["encoding"], "opacity": dim}}

    if "layer" not in spec:
        return spec
    return {**spec, "layer": [layer(item) for item in spec["layer"]]}


def sparkline_values(series: pl.Series, *, max_points: int = 60) -> list[float]:
    """The finite values of ``series`` in order, thinned to at most ``max_points`` keeping spikes and the last.

    For ``st.column_config.LineChartColumn`` cells.

    Examples
    --------
    >>> sparkline_values(pl.Series([0.5, float("nan"), 0.7]))
    [0.5, 0.7]
    """
    finite = series.cast(pl.Float64).filter(series.cast(pl.Float64).is_finite())
    if finite.len() <= max_points:
        return [float(v) for v in finite.to_list()]
    frame = pl.DataFrame(
        {
            EXPERIMENT: pl.Series([""] * finite.len(), dtype=pl.String),
            STEP: pl.int_range(finite.len(), eager=True, dtype=pl.Int64),
            METRIC: pl.Series([""] * finite.len(), dtype=pl.String),
            VALUE: finite,
        }
    )
    return [float(v) for v in downsample(frame, max_points=max_points)[VALUE].to_list()]


# --- the line chart behind metric_chart and validation_chart ----------------------------------------


def _line_spec(
    long: pl.DataFrame, options: ChartOptions, *, markers: pl.DataFrame | None, with_points: bool
) -> dict[str, Any]:
    title, y_title, colors, labels = options.title, options.y_title, options.colors, options.labels
    smoothing, x, x_title, log_scale = options.smoothing, options.x, options.x_title, options.log_scale
    percent, value_format, axis_format = options.percent, options.value_format, options.axis_format
    reference, reference_label = options.reference, options.reference_label
    marker_title, raw_suffix, experiment_title = options.marker_title, options.raw_suffix, options.experiment_title
    empty_text, max_points, height, highlight = (
        options.empty_text,
        options.max_points,
        options.height,
        options.highlight,
    )
    legend, note, arrow = options.legend, options.note, options.arrow
    _check_x(x)
    frame = _prepare(long, x=x, log_scale=log_scale)
    if frame.is_empty():
        return _empty_spec(title=title, text=empty_text, height=height, arrow=arrow)
    smoothed = with_smoothed(frame, method=smoothing.method, weight=smoothing.weight, window=smoothing.window).filter(
        pl.col(VALUE).is_not_null()
    )
    # The points bound, then what the plot can show of them: the lowest and highest point of each pixel column.
    points = decimate(downsample(smoothed, max_points=max_points, x=x), columns=options.plot_width, x=x)
    experiments = _ordered_experiments(points[EXPERIMENT].unique().to_list(), colors)
    groups = {experiment: key for experiment, key in options.groups.items() if experiment in experiments}
    if groups:
        # every member in its group's colour: the first member's (in the colour order)
        group_color: dict[str, str | None] = {}
        for experiment in experiments:
            if experiment in groups:
                group_color.setdefault(groups[experiment], colors.get(experiment))
        colors = {**colors, **{experiment: group_color[key] or "" for experiment, key in groups.items()}}
    domain, color_range, label_of = _color_scale(experiments, colors, labels)
    # The colour scale also holds each group's legend entry (in its colour), after the runs.
    legend_of = _group_legend_labels(groups, options.group_names, taken=set(domain))
    scale_domain = domain + list(dict.fromkeys(legend_of.values()))
    first_member = {
        key: domain.index(label_of[next(e for e in experiments if groups.get(e) == key)]) for key in legend_of
    }
    scale_range = color_range + [color_range[first_member[key]] for key in legend_of]
    shown_in_full = set(highlight) & set(experiments) or set(experiments)
    order = {experiment: i for i, experiment in enumerate(experiments)}
    member_group = {experiment: legend_of[key] for experiment, key in groups.items()}

    def labelled(frame: pl.DataFrame) -> pl.DataFrame:
        """``frame`` with each row's label and highlight, in the colour domain's order of runs, then by x."""
        return frame.with_columns(
            pl.col(EXPERIMENT).replace_strict(label_of).alias(LABEL),
            pl.col(EXPERIMENT).is_in(list(shown_in_full)).alias(_HIGHLIGHTED),
            *(
                [
                    pl.col(EXPERIMENT).is_in(list(groups)).alias(_MEMBER),
                    pl.col(EXPERIMENT).replace_strict(member_group, default=None, return_dtype=pl.String).alias(_OF),
                ]
                if groups
                else []
            ),
        ).sort(pl.col(EXPERIMENT).replace_strict(order, return_dtype=pl.Int32), x, maintain_order=True)

    points = labelled(points)
    fmt = value_format or (".2%" if percent else None)
    faded = smoothing.enabled
    line = points
    buckets = 0
    if faded:
        # The smoothed line is thinner than the raw one (see SMOOTHED_POINTS); the hover rule stops at its points.
        buckets = min(max_points, MAX_SMOOTHED_BUCKETS, max(MIN_SMOOTHED_BUCKETS, SMOOTHED_POINTS // len(experiments)))
        line = labelled(_thin_line(smoothed.sort(EXPERIMENT, x, maintain_order=True), x=x, buckets=buckets))
    tooltip_rows = _hover_table(
        smoothed,
        grid=line[x],
        experiments=experiments,
        x=x,
        x_title=x_title,
        smoothing_on=faded,
        max_points=min(max_points, _HOVER_POINTS),
    )
    tip_format, tip_suffix = _tooltip_format(percent=percent, value_format=value_format, y_title=y_title)
    shown_prefix = "s" if faded else "r"
    dot_keys = [f"{_DOT}{i}" for i in range(len(experiments))]
    tooltip_rows = tooltip_rows.with_columns(pl.col(f"{shown_prefix}{i}").alias(key) for i, key in enumerate(dot_keys))
    tooltip_rows = tooltip.with_cell_texts(
        tooltip_rows,
        prefixes=("s", "r") if faded else ("r",),
        count=len(experiments),
        fmt=tip_format,
        suffix=tip_suffix,
    )
    hover_tooltip = tooltip.tooltip_expr(
        [tooltip.TooltipSeries(label, color) for label, color in zip(domain, color_range, strict=True)],
        values=2 if faded else 1,
        column_titles=("", raw_suffix.strip()) if faded else (),
    )
    marker_rows = None
    if markers is not None:
        marker_rows = _marker_rows(markers, long=frame, label_of=label_of, x=x, log_scale=log_scale)

    datasets = _Datasets(arrow=arrow)
    # The raw points and the smoothed ones are separate datasets: a smoothing change replaces only the second.
    member = [_MEMBER, _OF] if groups else []
    main = datasets.add(
        points.select(EXPERIMENT, LABEL, *dict.fromkeys([STEP, HOURS, x]), VALUE, _HIGHLIGHTED, *member), "raw"
    )
    smooth = datasets.add(line.select(LABEL, x, SMOOTHED, _HIGHLIGHTED, *member), "smoothed")

    # Explicit domains: the browser computes no extents, and a smoothing change (the smoothed values stay within
    # the raw ones) leaves the scales as they are, so the raw lines are not drawn again.
    group_rows = None
    if groups:
        # The groups' rows, thinned as the lines they sit on: on the smoothed lines' buckets when smoothing is on,
        # else to the plot's pixel columns (the band's lowest and highest edge in each).
        stats = group_steps(smoothed, groups, band=options.band, value=SMOOTHED, x=x)
        group_rows = _thin_groups(
            stats.with_columns(pl.col(GROUP).replace_strict(dict(legend_of), return_dtype=pl.String).alias(LABEL)),
            x=x, buckets=buckets if faded else None, columns=options.plot_width,
        ).select(LABEL, x, "mean", "low", "high", "n")  # fmt: skip
    x_values = [points[x]] + ([marker_rows[x]] if marker_rows is not None else [])
    y_values = [points[VALUE]] + ([marker_rows[VALUE]] if marker_rows is not None else [])
    if group_rows is not None:
        # a band of mean ± std may reach past every run's values (members at 0, 0.1 and 1: down to -0.18)
        edges = pl.concat([group_rows["low"], group_rows["high"]])
        y_values.append(edges.filter(edges > 0) if log_scale else edges)
    if reference is not None and math.isfinite(reference) and not (log_scale and reference <= 0):
        y_values.append(pl.Series([float(reference)]))
    thresholds = _thresholds_in_reach(options.thresholds, points[VALUE], log_scale=log_scale)
    y_values.extend(pl.Series([float(value)]) for value, _ in thresholds)
    notes = _with_far_thresholds(note, options, shown=thresholds, values=points[VALUE], log_scale=log_scale)
    spans = [(low, high, label) for low, high, label in options.threshold_spans if math.isfinite(low + high)]
    x_values.extend(pl.Series([float(low), float(high)]) for low, high, _ in spans)
    x_domain, y_domain = _extent(x_values), _extent(y_values)

    def x_enc() -> dict[str, Any]:
        encoding = _x_encoding(x, x_title, x_domain)
        if x_domain is not None:
            encoding["scale"] = {**encoding["scale"], "domain": x_domain}
        elif (only := points[x].drop_nulls().unique()).len() == 1:
            # One x (a first validation at step 0): a scale of zero width gives Vega's axis a NaN tick, so the
            # point sits in the middle of a unit-wide scale with its own tick.
            value = float(only[0])
            encoding["scale"] = {**encoding["scale"], "domain": [value - 1, value + 1]}
            encoding["axis"] = {**encoding["axis"], "values": [value]}
        return encoding

    # 4-7 round ticks chosen here (rlmon.views.ticks); the domain grows to the outer ones. A log scale keeps Vega's.
    y_ticks = None if log_scale or y_domain is None else ticks.value_ticks(*y_domain)

    def y_enc(field: str) -> dict[str, Any]:
        scale: dict[str, Any] = {"type": "log"} if log_scale else {"zero": False}
        if y_domain is not None:
            scale["domain"] = y_domain
        encoding: dict[str, Any] = {
            "field": field,
            "scale": scale,
            "title": y_title,
            "type": "quantitative",
        }
        axis: dict[str, Any] = {"tickCount": _Y_TICKS}
        if percent:
            axis["format"] = ".0%"
        elif axis_format:
            axis["format"] = axis_format
        if y_ticks is not None:
            scale["domain"] = y_ticks.domain
            axis = _with_ticks(axis, y_ticks, percent=percent, axis_format=None if percent else axis_format)
        encoding["axis"] = axis
        return encoding

    def color() -> dict[str, Any]:
        # No "sort": the scale's domain fixes the colours and legend order, and the rows come in domain order
        # (a sort would cost a comparison chain per point in the browser).
        shown_legend = _bottom_legend(domain) if legend else None
        if groups and not legend:  # a legend of the groups only: its clicks show or hide their runs
            entries = list(legend_of.values())
            shown_legend = {**_bottom_legend(entries), "values": entries, "columns": _group_legend_columns(entries)}
        return {
            "field": LABEL,
            "legend": shown_legend,
            "scale": _scale(scale_domain, scale_range),
            "type": "nominal",
        }

    dash_encoding = _dash_encoding(experiments, label_of, options.dashes)

    def dashed(encoding: dict[str, Any]) -> dict[str, Any]:
        """A line layer's encoding, with the runs' dashes when any run is drawn dashed."""
        return encoding if dash_encoding is None else {**encoding, "strokeDash": dict(dash_encoding)}

    dimming = shown_in_full != set(experiments)

    def dimmed() -> dict[str, Any]:
        conditions: list[dict[str, Any]] = []
        if groups:  # a group's members are faint lines under its mean, hidden when its legend entry is off
            shown = f"indexof({_MEMBERS_PARAM}.{LABEL} || [], datum.{_OF}) >= 0"
            conditions.append({"test": f"datum.{_MEMBER} && !({shown})", "value": 0.0})
            conditions.append({"test": f"datum.{_MEMBER}", "value": _MEMBER_OPACITY})
        if dimming:
            conditions.append({"test": f"datum.{_HIGHLIGHTED}", "value": 1.0})
        if not conditions:  # nothing highlighted, no group: no per-point test
            return {"value": 1.0}
        return {"condition": conditions, "value": _DIMMED_OPACITY if dimming else 1.0}

    # The fading of the raw line is the mark's strokeOpacity, not the opacity encoding, which a legend's
    # symbols would copy.
    layers: list[dict[str, Any]] = [
        {
            "mark": {
                "type": "line",
                "point": with_points,
                "strokeOpacity": _RAW_OPACITY if faded else 1.0,
                "strokeWidth": 1.2 if faded else 1.8,
                **_BULK_MARK,
            },
            "encoding": dashed(
                {
                    "color": color(),
                    "opacity": dimmed(),
                    "order": _ROW_ORDER,
                    "x": x_enc(),
                    "y": y_enc(VALUE),
                }
            ),
        }
    ]
    if faded:
        layers.append(
            {
                "data": smooth,
                "mark": {"type": "line", "strokeWidth": 2, **_BULK_MARK},
                "encoding": dashed(
                    {
                        "color": color(),
                        "opacity": dimmed(),
                        "order": _ROW_ORDER,
                        "x": x_enc(),
                        "y": y_enc(SMOOTHED),
                    }
                ),
            }
        )
    group_points: dict[str, Any] | None = None
    if group_rows is not None:
        layers[0]["params"] = [_members_param(list(legend_of.values()))]
        band_layer, mean_layer, group_points = _group_layers(
            group_rows, x=x, datasets=datasets, color=color, x_enc=x_enc, y_enc=y_enc,
            tip_format=tip_format or ".4~g", titles=options.group_titles, x_title=x_title or x,
        )  # fmt: skip
        layers.extend([band_layer, mean_layer])
    hover_data = datasets.add(tooltip_rows, "hover")
    # The dots at the hovered x come from the hover table's one row there (folded into one row per run), not
    # from filtering every point of the lines on each pointer move.
    layers.append(
        {
            "data": hover_data,
            "mark": {"type": "point", "filled": True, "opacity": 1.0, "size": 45, **_BULK_MARK},
            "encoding": {
                # each dot's colour looked up by its column (no scale: the legend's colour scale is untouched)
                "color": {"field": "_color", "legend": None, "scale": None, "type": "nominal"},
                "x": x_enc(),
                "y": y_enc("_y"),
            },
            "transform": [
                {"filter": {"param": _HOVER_PARAM, "empty": False}},
                {"fold": dot_keys, "as": ["_key", "_y"]},
                {
                    "lookup": "_key",
                    "from": {
                        "data": {
                            "values": [
                                {"_key": key, "_color": tooltip.safe_color(color)}
                                for key, color in zip(dot_keys, color_range, strict=True)
                            ]
                        },
                        "key": "_key",
                        "fields": ["_color"],
                    },
                },
            ],
        }
    )
    layers.append(_hover_rule(hover_data, x=x, tooltip_expr=hover_tooltip))
    if group_points is not None:  # over the hover rule: near a mean line, its point's tooltip is the group's
        layers.append(group_points)
    if reference is not None and math.isfinite(reference):
        layers.extend(_reference_layers(reference, reference_label, y_title=y_title, fmt=fmt, datasets=datasets))
    for value, label in thresholds:
        layers.extend(
            _reference_layers(value, label, y_title=y_title, fmt=fmt, datasets=datasets, color=THRESHOLD_COLOR)
        )
    if spans:
        tag_at = [
            height - SPAN_TAG_PX if _ends_high(points, x=x, span=(low, top), y_domain=y_domain) else SPAN_STRIP_PX + 2
            for low, top, _ in spans
        ]
        shade, *over = _span_layers(spans, x_enc(), datasets=datasets, tag=options.threshold_span_tag, tag_at=tag_at)
        layers.insert(0, shade)
        layers.extend(over)
    if marker_rows is not None:
        layers.append(
            {
                "data": datasets.add(marker_rows, "markers"),
                "mark": {
                    "type": "point",
                    "filled": True,
                    "opacity": 1.0,
                    "shape": "triangle-down",
                    "size": 110,
                    "stroke": "#ffffff",
                    "strokeWidth": 0.8,
                },
                "encoding": {
                    "color": {
                        "field": LABEL,
                        "legend": None,
                        "scale": _scale(scale_domain, scale_range),
                        "type": "nominal",
                    },
                    "tooltip": [
                        {"field": LABEL, "title": experiment_title, "type": "nominal"},
                        {"field": x, "title": x_title or x, "type": "quantitative"},
                        {"field": VALUE, "format": fmt or "", "title": y_title, "type": "quantitative"},
                        {"field": "text", "title": marker_title, "type": "nominal"},
                    ],
                    # the line's own axes and scales: a layer without them merges Vega's default ticks in
                    "x": x_enc(),
                    "y": y_enc(VALUE),
                },
            }
        )
    return _top_level(
        layers, data=main, title=title, height=height, datasets=datasets, params=[_hover_param(x)], note=notes,
        renderer="canvas",
    )  # fmt: skip


def _group_layers(
    rows: pl.DataFrame,
    *,
    x: str,
    datasets: _Datasets,
    color: Callable[[], dict[str, Any]],
    x_enc: Callable[[], dict[str, Any]],
    y_enc: Callable[[str], dict[str, Any]],
    tip_format: str | None,
    titles: tuple[str, str, str, str],
    x_title: str,
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """A band and a mean line per group of repeats from ``rows`` (``label`` - the group's legend entry, which the
    colour scale gives its group's colour -, ``x``, ``mean``, ``low``, ``high``, ``n``: :func:`_thin_groups`), over
    the values the lines show (smoothed when smoothing is on); and the mean line's points, invisible, whose tooltip
    says the group's mean, band and how many runs have a value at that x (drawn over the hover rule, so they answer
    the pointer near the mean line)."""
    data = datasets.add(_inline(rows), "groups")
    quiet = {"legend": None}
    # A row of one member (no band there) breaks the area instead of being bridged: the band covers only the
    # steps where two or more members have values, also across a gap of one member.
    band_layer = {
        "data": data,
        # clipped to the plot: on a log scale a band edge at or below zero has no place in the y domain
        "mark": {
            "type": "area",
            "opacity": _BAND_OPACITY,
            **_BULK_MARK,
            "invalid": "break-paths-filter-domains",
            "clip": True,
        },
        "encoding": {"color": {**color(), **quiet}, "x": x_enc(), "y": y_enc("low"), "y2": {"field": "high"}},
    }
    mean_layer = {
        "data": data,
        "mark": {"type": "line", "strokeWidth": 2.4, **_BULK_MARK},
        "encoding": {"color": {**color(), **quiet}, "x": x_enc(), "y": y_enc("mean")},
    }
    group_title, mean_title, band_title, runs_title = titles
    number = {"format": tip_format} if tip_format else {}
    points_layer = {
        "data": data,
        "mark": {"type": "point", "filled": True, "opacity": 0.0, "size": 90, "aria": False},
        "encoding": {
            "color": {**color(), **quiet},
            "tooltip": [
                {"field": LABEL, "title": group_title, "type": "nominal"},
                {"field": x, "title": x_title, "type": "quantitative"},
                {"field": "mean", "title": mean_title, "type": "quantitative", **number},
                {"field": "low", "title": f"{band_title} ↓", "type": "quantitative", **number},
                {"field": "high", "title": f"{band_title} ↑", "type": "quantitative", **number},
                {"field": "n", "title": runs_title, "type": "quantitative"},
            ],
            "x": x_enc(),
            "y": y_enc("mean"),
        },
    }
    return band_layer, mean_layer, points_layer


def _group_legend_labels(groups: Mapping[str, str], names: Mapping[str, str], *, taken: set[str]) -> dict[str, str]:
    """Group key -> its legend entry (its name, else its key), in the order of the groups' first members; an entry
    that equals a run's label or another entry gets a trailing mark so each keeps its own colour."""
    legend_of: dict[str, str] = {}
    used = set(taken)
    for key in dict.fromkeys(groups.values()):
        label = names.get(key) or key
        while label in used:
            label += " ·"
        used.add(label)
        legend_of[key] = label
    return legend_of


def _group_legend_columns(entries: Sequence[str]) -> int:
    """Columns of the groups' legend that fit a phone-width chart: by the entries' drawn width, in which a wide
    (CJK) character counts double (``DAPO（3 次运行）`` is as wide as 15 Latin letters)."""
    widest = max((tooltip.label_width(entry) for entry in entries), default=0)
    return 1 if widest > 150 else 2 if widest > 80 else 3


def _members_param(entries: Sequence[str]) -> dict[str, Any]:
    """The legend-bound selection of the groups whose runs are shown: all at first; a click on a group's entry
    takes it out or puts it back (``toggle``). Vega-Lite honours a legend binding only on the first layer."""
    return {
        "name": _MEMBERS_PARAM,
        "select": {"type": "point", "fields": [LABEL], "toggle": "true"},
        "bind": "legend",
        "value": [{LABEL: entry} for entry in entries],
    }


def _hover_table(
    smoothed: pl.DataFrame,
    *,
    grid: pl.Series,
    experiments: Sequence[str],
    x: str,
    x_title: str | None,
    smoothing_on: bool,
    max_points: int,
) -> pl.DataFrame:
    """One row per x with every experiment's value there (nearest logged point within the run's range).

    Columns: ``x``; per experiment ``i`` (in ``experiments`` order) ``r<i>`` (the value) and, with smoothing
    on, ``s<i>`` (the smoothed value); the rank columns ``o0 …`` and ``_n`` of
    :func:`~rlmon.views.tooltip.with_rank_columns` (by the smoothed value when smoothing is on); and the tooltip
    heading ``_head`` (the x value and the range of the other coordinate - hours on the step axis, steps on the
    hours axis - over the runs shown).
    """
    xs = grid.unique().sort()
    if xs.len() > max_points:
        # Evenly spaced grid positions, always including the last x.
        picks = pl.int_range(0, max_points, eager=True) * (xs.len() - 1) // (max_points - 1)
        xs = xs.gather(picks.unique().sort())
    other = HOURS if x == STEP else STEP
    index_of = {experiment: i for i, experiment in enumerate(experiments)}
    runs = (
        smoothed.filter(pl.col(EXPERIMENT).is_in(list(experiments)))
        .select(
            pl.col(EXPERIMENT).replace_strict(index_of, return_dtype=pl.Int64).alias("_i"),
            *[pl.col(name) for name in dict.fromkeys([x, STEP])],
            pl.col(other).cast(pl.Float64).alias("_other"),
            pl.col(VALUE).alias("r"),
            pl.col(SMOOTHED).alias("s"),
        )
        # Sorted within each experiment, as the as-of join needs. Of points sharing an x (hours that did not
        # advance) the join takes the last one: the later step.
        .sort("_i", x, STEP)
        .select("_i", x, "_other", "r", "s")
    )
    bounds = runs.group_by("_i").agg(pl.col(x).min().alias("_lo"), pl.col(x).max().alias("_hi"))
    # Every (x, experiment) pair at once (in x order: xs is sorted), one as-of join grouped by experiment,
    # then one row per x.
    pairs = pl.DataFrame({x: xs}).join(
        pl.DataFrame({"_i": list(range(len(experiments)))}, schema={"_i": pl.Int64}), how="cross"
    )
    inside = pl.col(x).is_between(pl.col("_lo"), pl.col("_hi"))
    cells = (
        pairs.join_asof(runs, on=x, by="_i", strategy="nearest", check_sortedness=False)
        .join(bounds, on="_i", how="left")
        .select(
            pl.col(x),
            pl.col("_i"),
            pl.when(inside).then(pl.col("_other")).alias("_other"),
            pl.when(inside).then(pl.col("r")).alias("r"),
            pl.when(inside).then(pl.col("s")).alias("s"),
        )
    )
    wide = cells.pivot(on="_i", index=x, values=["r", "s"], maintain_order=True).sort(x)
    others = cells.group_by(x).agg(
        pl.col("_other").filter(pl.col("r").is_not_null()).min().alias("_other_lo"),
        pl.col("_other").filter(pl.col("r").is_not_null()).max().alias("_other_hi"),
    )

    def column(name: str, i: int) -> pl.Expr:
        found = f"{name}_{i}"  # the pivot's name; absent only when the grid is empty
        return (pl.col(found) if found in wide.columns else pl.lit(None, dtype=pl.Float64)).alias(f"{name}{i}")

    columns: list[pl.Expr] = [pl.col(x)]
    for i in range(len(experiments)):
        columns.append(column("r", i))
        if smoothing_on:
            columns.append(column("s", i))
    table = wide.select(columns).join(others, on=x, how="left", maintain_order="left")
    sort_by = "s" if smoothing_on else "r"
    table = tooltip.with_rank_columns(table, [f"{sort_by}{i}" for i in range(len(experiments))])
    head = tooltip.heading(
        x=x,
        x_title=x_title or x,
        x_value=pl.col(x),
        other_low=pl.col("_other_lo"),
        other_high=pl.col("_other_hi"),
    )
    return table.with_columns(head.alias(tooltip.HEAD)).drop("_other_lo", "_other_hi")


def _phase_hover_table(
    wide: pl.DataFrame, frame: pl.DataFrame, *, order: Sequence[str], x: str, x_title: str | None
) -> pl.DataFrame:
    """The stacked chart's hover rows: ``x``, ``p<i>`` per phase (in ``order``), ``_total``, the rank
    columns of the phases and the heading ``_head`` (step and hours)."""
    if x == STEP:
        hours = frame.group_by(STEP).agg(pl.col(HOURS).max().alias("_other"))
        rows = wide.join(hours, on=STEP, how="left", maintain_order="left")
    else:
        rows = wide.with_columns(pl.col(STEP).cast(pl.Float64).alias("_other"))
    table = rows.select(
        pl.col(x), *[pl.col(key).alias(f"p{i}") for i, key in enumerate(order)], pl.col("_total"), pl.col("_other")
    )
    table = tooltip.with_rank_columns(table, [f"p{i}" for i in range(len(order))])
    head = tooltip.heading(
        x=x, x_title=x_title or x, x_value=pl.col(x), other_low=pl.col("_other"), other_high=pl.col("_other")
    )
    return table.with_columns(head.alias(tooltip.HEAD)).drop("_other")


def _thin_line(frame: pl.DataFrame, *, x: str, buckets: int) -> pl.DataFrame:
    """Per experiment, its first point and the last point in each of ``buckets`` equal slices of the x range
    (``frame`` sorted by experiment and ``x``). Runs logging the same steps keep the same x values, so the
    hover rule, which stops at these x values, finds a point of every run there."""
    if frame.is_empty() or frame.group_by(EXPERIMENT).len()["len"].max() <= buckets:  # type: ignore[operator]
        return frame
    low, high = float(frame[x].min()), float(frame[x].max())  # type: ignore[arg-type]
    if not high > low:
        return frame
    # Slice k (1 … buckets) starts at low + (high - low) * k / buckets; an x on that edge opens the slice.
    edges = pl.Series([low + (high - low) * k / buckets for k in range(1, buckets + 1)], dtype=pl.Float64)
    bucket = pl.lit(edges).search_sorted(pl.col(x).cast(pl.Float64), side="right")
    first = pl.int_range(pl.len()).over(EXPERIMENT) == 0
    last_in_bucket = (bucket != bucket.shift(-1).over(EXPERIMENT)).fill_null(True)
    return frame.filter(first | last_in_bucket)


def _thin_groups(stats: pl.DataFrame, *, x: str, buckets: int | None, columns: int) -> pl.DataFrame:
    """The rows of :func:`rlmon.analysis.groups.group_steps` a chart draws, sorted by group and ``x``: with
    ``buckets`` (smoothing on), those of :func:`_thin_line` (the x values of the smoothed lines, which the hover
    rule stops at); else, per pixel column of a plot ``columns`` wide, the row of the band's lowest edge and the
    row of its highest (the mean where there is no band), as :func:`rlmon.analysis.smoothing.decimate` keeps a
    line's lowest and highest point. Each group keeps its first and last row, and the rows on either side of
    where its band starts or stops (one member left), so the band breaks where it did. A group of at most
    ``2 * columns`` rows is kept whole in the second case, as ``decimate`` keeps a short line."""
    ordered = stats.filter(pl.col(x).is_not_null()).sort(GROUP, x, maintain_order=True)
    if ordered.is_empty():
        return ordered
    no_band = pl.col("low").is_null()
    around_break = (no_band != no_band.shift(1).over(GROUP)) | (no_band != no_band.shift(-1).over(GROUP))
    marked = ordered.with_row_index("_row").with_columns(around_break.fill_null(True).alias("_edge"))
    if buckets:
        kept = _thin_line(marked.rename({GROUP: EXPERIMENT}), x=x, buckets=buckets)["_row"]
    else:
        longest = marked.group_by(GROUP).len()["len"].max()
        low, high = float(marked[x].min()), float(marked[x].max())  # type: ignore[arg-type]
        if not isinstance(longest, int) or longest <= 2 * columns or not high > low:
            return ordered
        column = ((pl.col(x).cast(pl.Float64) - low) * (columns / (high - low))).floor().cast(pl.Int64)
        bottom, top = pl.coalesce("low", "mean"), pl.coalesce("high", "mean")
        picks = marked.group_by(GROUP, column.clip(0, columns - 1).alias("_column")).agg(
            pl.col("_row").sort_by(bottom, nulls_last=True, maintain_order=True).first().alias("_bottom"),
            pl.col("_row").sort_by(top, descending=True, nulls_last=True, maintain_order=True).first().alias("_top"),
        )
        kept = pl.concat([picks["_bottom"], picks["_top"]])
    keep = pl.col("_row").is_in(kept.implode()) | pl.col("_edge")
    return marked.filter(keep).drop("_row", "_edge")


def _hover_rule(data: dict[str, Any], *, x: str, tooltip_expr: str) -> dict[str, Any]:
    """A vertical rule per x, invisible until the pointer is nearest to it; its tooltip is ``tooltip_expr``.

    The tooltip is an expression built by :func:`rlmon.views.tooltip.tooltip_expr` (a heading and an SVG picture
    of every series' value there, sorted): only column names, formats and percent-encoded literals enter it.
    """
    return {
        "data": data,
        "mark": {"type": "rule", "color": "#888888", "strokeWidth": 1, **_BULK_MARK},
        "encoding": {
            "opacity": {"condition": [{"param": _HOVER_PARAM, "value": 0.6, "empty": False}], "value": 0.0},
            "tooltip": {"field": _TOOLTIP_FIELD, "type": "nominal"},
            "x": {"field": x, "type": "quantitative"},
        },
        "name": _HOVER_VIEW,
        "transform": [{"calculate": tooltip_expr, "as": _TOOLTIP_FIELD}],
    }


def _hover_param(x: str) -> dict[str, Any]:
    return {
        "name": _HOVER_PARAM,
        "select": {"type": "point", "clear": "pointerout", "fields": [x], "nearest": True, "on": "pointerover"},
        "views": [_HOVER_VIEW],
    }


def _tooltip_format(*, percent: bool, value_format: str | None, y_title: str) -> tuple[str | None, str]:
    """(d3 format, suffix) of the hover tooltip's values: the caller's ``value_format``; fractions shown as
    percent with 1 decimal; values already in percent (y title ``%``, as pass rate) with 1 decimal and a
    ``%``; otherwise None (3-4 significant digits)."""
    if value_format:
        return value_format, ""
    if percent:
        return ".1%", ""
    if y_title.strip() == "%":
        return ",.1f", "%"
    return None, ""


THRESHOLD_REACH = 4.0
"""How far from the data a health threshold is still drawn, in spans of the data's own range: a rule further off
would squeeze the curves into less than a fifth of the plot (verl's 10% clip ratio over a run near 0.4%)."""


def _thresholds_in_reach(
    thresholds: Sequence[tuple[float, str]], values: pl.Series, *, log_scale: bool
) -> list[tuple[float, str]]:
    """The thresholds a line chart draws: finite ones (positive on a log scale) within :data:`THRESHOLD_REACH`
    spans of the values drawn; all of them when nothing is drawn yet."""
    shown = [(value, label) for value, label in thresholds if math.isfinite(value) and not (log_scale and value <= 0)]
    numbers = values.cast(pl.Float64)
    finite = numbers.filter(numbers.is_finite())
    if finite.is_empty():
        return shown
    low, high = float(finite.min()), float(finite.max())  # type: ignore[arg-type]
    span = high - low or abs(high) or 1.0
    return [
        (value, label)
        for value, label in shown
        if low - THRESHOLD_REACH * span <= value <= high + THRESHOLD_REACH * span
    ]


def _with_far_thresholds(
    note: str | None,
    options: ChartOptions,
    *,
    shown: Sequence[tuple[float, str]],
    values: pl.Series,
    log_scale: bool,
) -> str | list[str] | None:
    """``note`` and, on a line of its own, the thresholds too far from the values to be drawn (above, then below
    them): a rule left out still says it exists."""
    numbers = values.cast(pl.Float64)
    finite = numbers.filter(numbers.is_finite())
    if finite.is_empty():
        return note
    top = float(finite.max())  # type: ignore[arg-type]
    left_out = [
        (value, label)
        for value, label in options.thresholds
        if (value, label) not in shown and math.isfinite(value) and not (log_scale and value <= 0)
    ]
    lines = [note] if note else []
    for template, side in ((options.threshold_above, True), (options.threshold_below, False)):
        labels = [label for value, label in left_out if (value > top) == side]
        if labels:
            lines.extend(template.format(lines=", ".join(labels)).split("\n"))
    return None if not lines else lines[0] if len(lines) == 1 else lines


SPAN_STRIP_PX = 8
"""Height of the strip at the top of a shaded span that answers the pointer with the rule's label (the shade
beneath the lines leaves the hover read-out to the rest of the plot)."""


SPAN_TAG_PX = 14
"""A span's tag written at the bottom of the plot: its top this far above the plot's bottom edge."""


def _ends_high(points: pl.DataFrame, *, x: str, span: tuple[float, float], y_domain: Sequence[float] | None) -> bool:
    """Whether the values in the right quarter of ``span`` lie mostly in the upper half of the y range (a span's tag,
    written at its right edge, then goes to the bottom of the plot, clear of the curve)."""
    if y_domain is None:
        return False
    low, high = span
    start = high - (high - low) / 4
    values = points.filter(pl.col(x).cast(pl.Float64).is_between(start, high)).get_column(VALUE).cast(pl.Float64)
    values = values.filter(values.is_finite())
    middle = (y_domain[0] + y_domain[-1]) / 2
    return bool(values.len()) and float(values.median()) > middle  # type: ignore[arg-type]


def _span_layers(
    spans: Sequence[tuple[float, float, str]],
    x_encoding: dict[str, Any],
    *,
    datasets: _Datasets,
    tag: str,
    tag_at: Sequence[float],
) -> list[dict[str, Any]]:
    """The x ranges a rule found a problem over: a faint shade across the plot in the threshold colour, under every
    other layer, and a strip of :data:`SPAN_STRIP_PX` at its top, over them, whose tooltip is the rule's label; with
    a ``tag``, that text ending at the span's right edge (so it stays inside the plot), its top ``tag_at`` pixels
    below the plot's top (under the strip, or at the bottom where the curve ends high)."""
    frame = pl.DataFrame(
        {"_from": [float(low) for low, _, _ in spans], "_to": [float(high) for _, high, _ in spans],
         "_rule": [label for _, _, label in spans], "_tag_y": [float(at) for at in tag_at]},
        schema={"_from": pl.Float64, "_to": pl.Float64, "_rule": pl.String, "_tag_y": pl.Float64},
    )  # fmt: skip
    data = datasets.add(frame, "threshold_spans")
    x = {**x_encoding, "field": "_from"}
    shade = {
        "data": data,
        "mark": {"type": "rect", "color": THRESHOLD_COLOR, "opacity": 0.1},
        "encoding": {"x": x, "x2": {"field": "_to"}},
    }
    strip = {
        "data": data,
        "mark": {"type": "rect", "color": THRESHOLD_COLOR, "opacity": 0.55},
        "encoding": {
            "tooltip": [{"field": "_rule", "title": " ", "type": "nominal"}],
            "x": x,
            "x2": {"field": "_to"},
            "y": {"value": 0},
            "y2": {"value": SPAN_STRIP_PX},
        },
    }
    if not tag:
        return [shade, strip]
    text = {
        "data": data,
        "mark": {"type": "text", "align": "right", "baseline": "top", "color": THRESHOLD_COLOR, "dx": -3,
                 "fontSize": 10, "text": tag},
        "encoding": {"x": {**x_encoding, "field": "_to"}, "y": {"field": "_tag_y", "scale": None,
                                                                   "type": "quantitative"}},
    }  # fmt: skip
    return [shade, strip, text]


def _limit_layers(
    rows: pl.DataFrame,
    texts: tuple[str, str],
    *,
    x: str,
    titles: tuple[str, str],
    fmt: str,
    datasets: _Datasets,
    x_range: Sequence[float] | None,
) -> list[dict[str, Any]]:
    """A rule's limit per step as a dashed line in the threshold colour, its label (``texts[0]``) and the limit as
    its tooltip, and its tag (``texts[1]``) written under the line at its first point: starting there, or, when that
    point is in the right half of ``x_range`` (a short run), ending there, so the text stays inside the plot."""
    label, tag = texts
    frame = rows.select(pl.col(x).cast(pl.Float64), pl.col(VALUE).cast(pl.Float64)).with_columns(
        pl.lit(label, dtype=pl.String).alias("_rule")
    )
    start = float(frame[x][0])
    left = x_range is None or start <= (x_range[0] + x_range[-1]) / 2
    # under the line, at its lowest where the text runs (the first 40% of the run from its start), so the line never
    # crosses it; the areas lie well below a limit of several times their median
    reach = start + (0.4 * (x_range[-1] - x_range[0]) if left and x_range is not None else 0.0)
    under = frame.filter(pl.col(x).is_between(start, reach))[VALUE].min()
    first = pl.DataFrame({x: [start], VALUE: [float(under)], "_tag": [tag]})  # type: ignore[arg-type]
    text = {
        "data": datasets.add(first, "threshold_limit_tag"),
        "mark": {"type": "text", "align": "left" if left else "right", "baseline": "top", "color": THRESHOLD_COLOR,
                 "dx": 2 if left else -2, "dy": 4, "fontSize": 11},
        "encoding": {"text": {"field": "_tag", "type": "nominal"}, "x": {"field": x, "type": "quantitative"},
                     "y": {"field": VALUE, "type": "quantitative"}},
    }  # fmt: skip
    return [_limit_line(frame, x=x, titles=titles, fmt=fmt, datasets=datasets), text]


def _limit_line(
    frame: pl.DataFrame, *, x: str, titles: tuple[str, str], fmt: str, datasets: _Datasets
) -> dict[str, Any]:
    return {
        "data": datasets.add(frame, "threshold_limit"),
        "mark": {
            "type": "line",
            "color": THRESHOLD_COLOR,
            "strokeDash": list(_REFERENCE_DASH),
            "strokeWidth": 1.5,
            "interpolate": "step-after" if x == STEP else "linear",
            "clip": True,
        },
        "encoding": {
            "tooltip": [
                {"field": "_rule", "title": " ", "type": "nominal"},
                {"field": x, "title": titles[0], "type": "quantitative"},
                {"field": VALUE, "format": fmt, "title": titles[1], "type": "quantitative"},
            ],
            "x": {"field": x, "type": "quantitative"},
            "y": {"field": VALUE, "type": "quantitative"},
        },
    }


def _reference_layers(
    reference: float,
    label: str | None,
    *,
    y_title: str,
    fmt: str | None,
    datasets: _Datasets,
    color: str = "#666666",
) -> list[dict[str, Any]]:
    rule = {
        "data": datasets.add(pl.DataFrame({"ref": [float(reference)]}), "reference"),
        "mark": {"type": "rule", "color": color, "strokeDash": list(_REFERENCE_DASH), "strokeWidth": 1.5},
        "encoding": {
            "tooltip": [{"field": "ref", "format": fmt or ",", "title": label or y_title, "type": "quantitative"}],
            "y": {"datum": reference},
        },
    }
    if not label:
        return [rule]
    text = {
        "data": datasets.add(pl.DataFrame({"ref": [float(reference)], "text": [label]}), "reference_label"),
        "mark": {
            "type": "text",
            "align": "left",
            "baseline": "bottom",
            "color": color,
            "dx": 4,
            "dy": -3,
            "fontSize": 11,
        },
        "encoding": {"text": {"field": "text", "type": "nominal"}, "x": {"value": 0}, "y": {"datum": reference}},
    }
    return [rule, text]


def _marker_rows(
    markers: pl.DataFrame, *, long: pl.DataFrame, label_of: Mapping[str, str], x: str, log_scale: bool
) -> pl.DataFrame | None:
    """The markers on charted experiments with a value (and a known position on an axis other than step),
    labelled."""
    _require_columns(markers, [EXPERIMENT, STEP, VALUE, "text"], "markers")
    rows = markers.select(
        pl.col(EXPERIMENT).cast(pl.String),
        pl.col(STEP).cast(pl.Int64),
        _finite_or_null(pl.col(VALUE).cast(pl.Float64)).alias(VALUE),
        pl.col("text").cast(pl.String),
    ).filter(pl.col(EXPERIMENT).is_in(list(label_of)), pl.col(VALUE).is_not_null())
    if log_scale:
        rows = rows.filter(pl.col(VALUE) > 0)
    if x != STEP:
        positions = long.select(EXPERIMENT, STEP, x).unique([EXPERIMENT, STEP])
        rows = rows.join(positions, on=[EXPERIMENT, STEP], how="inner", maintain_order="left").filter(
            pl.col(x).is_not_null()
        )
    if rows.is_empty():
        return None
    return rows.with_columns(pl.col(EXPERIMENT).replace_strict(label_of).alias(LABEL))


# --- shared pieces -----------------------------------------------------------------------------------


class _Datasets:
    """The named datasets of one spec, named by their role (``rlmon_raw``, ``rlmon_hover`` …), not by their
    rows. A chart whose rows changed but whose spec did not (a smoothing change) then keeps its spec text, and
    the browser swaps the changed datasets into the chart it has (Streamlit replaces a dataset whose bytes
    differ) instead of building the chart again; a dataset whose bytes did not change (the raw lines) is not
    touched at all."""

    def __init__(self, *, arrow: bool) -> None:
        self._arrow = arrow
        self.named: dict[str, Any] = {}

    def add(self, frame: pl.DataFrame, role: str) -> dict[str, Any]:
        """Register ``frame`` (non-finite floats become null) as ``rlmon_<role>``; returns the ``data``
        reference to it."""
        frame = _inline(frame)
        name = f"rlmon_{role}"
        suffix = 1
        while name in self.named:
            suffix += 1
            name = f"rlmon_{role}{suffix}"
        if self._arrow:
            buffer = io.BytesIO()
            # Text columns that repeat go as Arrow dictionaries: a line's experiment and label are on every one of
            # its points, and sent once per distinct value they are a small part of the bytes instead of most of
            # them. The oldest compatibility level writes (large) strings, which Streamlit's Arrow reader takes.
            texts = [
                name
                for name, dtype in frame.schema.items()
                if dtype == pl.String and 2 * frame.get_column(name).n_unique() <= frame.height
            ]
            if texts:
                frame = frame.with_columns(pl.col(texts).cast(pl.Categorical))
            frame = _narrowed(frame)
            frame.write_ipc_stream(buffer, compat_level=pl.CompatLevel.oldest())
            self.named[name] = buffer.getvalue()
        else:
            self.named[name] = frame.to_dicts()
        # The rows are typed (Arrow): no per-row parsing of fields in the browser.
        return {"name": name, "format": {"parse": None}}


_INT32_RANGE = (-(2**31), 2**31 - 1)


def _narrowed(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with numbers in the narrowest type that keeps what a chart shows: floats as Float32 and whole
    numbers as Int32 when every value fits.

    A chart shows a value with 3-4 significant digits (tooltips, axis labels) and places it on a plot a few
    hundred pixels tall: Float32's 24-bit mantissa (about 7 significant digits) is finer than both, and it halves
    the bytes of every number sent (8 to 4), and so the bytes of a line's points. Integers beyond Int32 (never a
    step) keep their 64 bits.
    """
    casts: list[pl.Expr] = []
    for name, dtype in frame.schema.items():
        if dtype == pl.Float64:
            casts.append(pl.col(name).cast(pl.Float32))
        elif dtype == pl.Int64 and frame.height:
            low, high = frame.get_column(name).min(), frame.get_column(name).max()
            fits = low is None or (_INT32_RANGE[0] <= low and high <= _INT32_RANGE[1])  # type: ignore[operator]
            if fits:
                casts.append(pl.col(name).cast(pl.Int32))
    return frame.with_columns(casts) if casts else frame


def _top_level(
    layers: list[dict[str, Any]],
    *,
    data: dict[str, Any],
    title: str,
    height: int,
    datasets: _Datasets,
    params: list[dict[str, Any]] | None = None,
    note: str | Sequence[str] | None = None,
    renderer: Renderer = "svg",
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        # Altair's default view width: the spec draws at a sensible size outside Streamlit too.
        "config": {
            "view": {"continuousWidth": 300, "continuousHeight": 300},
            "axis": dict(_AXIS_STYLE),
            "title": {"anchor": "start", "fontSize": 13, "offset": 6},
        },
        "layer": layers,
        "data": data,
        "height": height,
        # ``height`` is the plot area's height: axes, titles and any legend are added around it (the chart
        # element grows), and only the width follows the page column.
        "autosize": {"type": "fit-x", "contains": "padding"},
        # Canvas for many marks, SVG for a few (see the module docstring).
        "usermeta": {"embedOptions": {"renderer": renderer}},
    }
    if params:
        spec["params"] = params
    spec["title"] = (
        {
            "text": title,
            "subtitle": note if isinstance(note, str) else list(note),
            "subtitleFontSize": 10,
            "subtitleColor": "#6b7280",
        }
        if note
        else title
    )
    spec["$schema"] = SCHEMA_URL
    spec["datasets"] = datasets.named
    return spec


def _empty_spec(*, title: str, text: str, height: int, arrow: bool) -> dict[str, Any]:
    datasets = _Datasets(arrow=arrow)
    layer = {
        "mark": {"type": "text", "color": "#888888", "fontSize": 14},
        "encoding": {"text": {"field": "text", "type": "nominal"}},
    }
    data = datasets.add(pl.DataFrame({"text": [text]}, schema={"text": pl.String}), "text")
    return _top_level([layer], data=data, title=title, height=height, datasets=datasets)


def _to_altair(spec: dict[str, Any]) -> alt.LayerChart:
    """The spec as an Altair chart (``to_dict()`` gives the spec back)."""
    import altair as alt

    structure = {key: value for key, value in spec.items() if key != "datasets"}
    chart: alt.LayerChart = alt.LayerChart.from_dict(structure, validate=False)
    # Set after from_dict, which would otherwise wrap every row in a schema object.
    chart.datasets = spec["datasets"]
    return chart


def _prepare(long: pl.DataFrame, *, x: str, log_scale: bool) -> pl.DataFrame:
    """The long columns with their schema dtypes (and the ``x`` axis's column), non-finite values as null, rows
    off the x axis dropped."""
    schema = LONG_SCHEMA if x in LONG_SCHEMA else {**LONG_SCHEMA, x: pl.Float64()}
    _require_columns(long, list(schema), "long frame")
    frame = long.select(pl.col(name).cast(dtype) for name, dtype in schema.items())
    value = _finite_or_null(pl.col(VALUE))
    if log_scale:
        value = pl.when(value > 0).then(value)
    return frame.with_columns(value.alias(VALUE)).filter(pl.col(x).is_not_null(), pl.col(VALUE).is_not_null())


def _finite_or_null(expr: pl.Expr) -> pl.Expr:
    return pl.when(expr.is_finite()).then(expr)


def _inline(frame: pl.DataFrame) -> pl.DataFrame:
    """Chart data: the frame with non-finite floats as null (strict JSON has no NaN or inf)."""
    return frame.with_columns(
        _finite_or_null(pl.col(name)).alias(name) for name, dtype in frame.schema.items() if dtype.is_float()
    )


def _ordered_experiments(present: Sequence[str], colors: Mapping[str, str]) -> list[str]:
    """Experiments in the caller's colour order, then any others sorted."""
    known = [experiment for experiment in colors if experiment in present]
    return known + sorted(experiment for experiment in present if experiment not in colors)


def _color_scale(
    experiments: Sequence[str], colors: Mapping[str, str], labels: Mapping[str, str]
) -> tuple[list[str], list[str], dict[str, str]]:
    """(labels in a fixed order = the colour domain, their colours, experiment id -> label)."""
    ordered = _ordered_experiments(list(experiments), colors)
    label_of = _unique_labels({experiment: labels.get(experiment, experiment) for experiment in ordered})
    spare = iter(DEFAULT_PALETTE * (len(ordered) // len(DEFAULT_PALETTE) + 1))
    color_range = [colors.get(experiment) or next(spare) for experiment in ordered]
    return [label_of[experiment] for experiment in ordered], color_range, label_of


def _dash_encoding(
    experiments: Sequence[str], label_of: Mapping[str, str], dashes: Mapping[str, int]
) -> dict[str, Any] | None:
    """The ``strokeDash`` encoding of the runs' dashes (:data:`~rlmon.runs.experiment.DASH_PATTERNS`), in the colour
    domain's order; None when every run is solid."""
    levels = [dashes.get(experiment, 0) % len(DASH_PATTERNS) for experiment in experiments]
    if not any(levels):
        return None
    return {
        "field": LABEL,
        "legend": None,
        "scale": {"domain": [label_of[experiment] for experiment in experiments],
                  "range": [list(DASH_PATTERNS[level]) for level in levels]},
        "type": "nominal",
    }  # fmt: skip


def _scale(domain: Sequence[str], color_range: Sequence[str]) -> dict[str, Any]:
    # A fresh dict per use: no two places of a spec share a mutable object.
    return {"domain": list(domain), "range": list(color_range)}


def _unique_labels(label_of: Mapping[str, str]) -> dict[str, str]:
    """Disambiguate repeated labels with their key, so two series never share a colour entry."""
    counts: dict[str, int] = {}
    for label in label_of.values():
        counts[label] = counts.get(label, 0) + 1
    return {key: label if counts[label] == 1 else f"{label} ({key})" for key, label in label_of.items()}


def _bottom_legend(labels: Sequence[str]) -> dict[str, Any]:
    """A legend under the plot, in as many columns as fit a phone-width chart: it adds to the chart's height
    (autosize fit-x) instead of taking plot height, and never cuts a label."""
    longest = max((len(label) for label in labels), default=0)
    columns = 1 if longest > 22 else 2 if longest > 12 else 3
    return {
        "orient": "bottom",
        "title": None,
        "columns": columns,
        "labelLimit": 0,
        "symbolType": "stroke",
        "columnPadding": 14,
    }


def _x_encoding(x: str, x_title: str | None, domain: Sequence[float] | None = None) -> dict[str, Any]:
    """The x axis (:data:`rlmon.runs.axes.X_AXES`). Over a ``domain`` (the data's extent, kept as the scale's), 4-7
    round ticks inside it (:func:`rlmon.views.ticks.position_ticks`; whole steps on the step axis; SI suffixes
    on the counting axes, steps, samples and tokens)."""
    counting = x in _COUNTING_AXES
    axis: dict[str, Any] = {"format": "~s", "tickMinStep": 1} if counting else {"format": "~r"}
    axis["tickCount"] = _X_TICKS
    found = None if domain is None else ticks.position_ticks(domain[0], domain[1], integer=counting)
    if found is not None:
        axis = _with_ticks(axis, found, axis_format="~s" if counting else None)
    return {"axis": axis, "field": x, "scale": {"nice": False}, "title": x_title or x, "type": "quantitative"}


def _with_ticks(
    axis: dict[str, Any], found: ticks.Ticks, *, percent: bool = False, axis_format: str | None = None
) -> dict[str, Any]:
    """``axis`` with ``found``'s tick values and a format that writes each of them whole
    (:func:`rlmon.views.ticks.tick_format`; ``axis_format="~s"`` asks for SI suffixes, for tokens and steps)."""
    axis = {key: value for key, value in axis.items() if key != "tickMinStep"}
    axis["values"] = found.values
    # Vega thins given values down to the tick count (its default grows with the plot's size, and a layer
    # without this axis, as a reference rule, brings that default back): the count is the values'.
    axis["tickCount"] = len(found.values)
    if axis_format not in (None, "~s"):
        axis["format"] = axis_format
    else:  # SI suffixes with the precision the values need (see rlmon.views.ticks.tick_format)
        axis["format"] = ticks.tick_format(found, percent=percent, si=axis_format == "~s")
    return axis


def _extent(columns: Sequence[pl.Series]) -> list[float] | None:
    """[smallest, largest] finite value of ``columns`` (plain floats, for a scale's domain); None when they
    are one value (or none): Vega then widens the scale around it as it always did."""
    values = pl.concat([column.cast(pl.Float64) for column in columns]).drop_nulls()
    values = values.filter(values.is_finite())
    low, high = values.min(), values.max()
    if low is None or high is None or not high > low:  # type: ignore[operator]
        return None
    return [float(low), float(high)]  # type: ignore[arg-type]


_COUNTING_AXES = (STEP, SAMPLES, TOKENS)
"""X axes of whole counts: whole ticks with SI suffixes (``12k``), whole numbers in the tooltip heading."""


def _check_x(x: str) -> None:
    if x not in X_AXES:
        raise SettingError(f"x axis {x!r} is not one of {', '.join(X_AXES)}")


def _require_columns(frame: pl.DataFrame, names: Sequence[str], what: str) -> None:
    missing = [name for name in names if name not in frame.columns]
    if missing:
        raise SettingError(f"{what} lacks column(s) {', '.join(missing)} (has {', '.join(frame.columns)})")
