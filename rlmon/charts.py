"""Altair chart builders: long frames in (see :mod:`rlmon.schema`), ``alt.LayerChart`` out.

Every builder
- downsamples before plotting (per experiment and metric, keeping each bucket's min, max and last point),
- hands its data to Altair as polars frames (Streamlit ships them as Arrow; non-finite numbers become null),
- returns a chart with a centred text mark instead of raising when there is nothing to draw,
- takes every visible text (titles, tooltip titles, the empty-chart text) from the caller; the defaults are
  neutral column names.

Altair's 5,000-row limit does not apply inside Streamlit; importing this module lifts it for the default
data transformer too (``alt.data_transformers.disable_max_rows()``), so ``chart.to_dict()`` works on
downsampled data of any number of experiments outside Streamlit as well.

Text read from logs only ever reaches the chart as data fields shown in tooltips or legends (plain text).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import altair as alt
import polars as pl

from rlmon.errors import SettingError
from rlmon.schema import EXPERIMENT, HOURS, LONG_SCHEMA, METRIC, STEP, VALUE
from rlmon.smoothing import SMOOTHED, Smoothing, downsample, with_smoothed

__all__ = [
    "DEFAULT_PALETTE",
    "XAxis",
    "bar_chart",
    "metric_chart",
    "sparkline_values",
    "stacked_area_chart",
    "validation_chart",
]

XAxis = Literal["step", "hours"]

# Charts are downsampled before they are built; the row limit only guards against undownsampled data.
alt.data_transformers.disable_max_rows()

DEFAULT_PALETTE: tuple[str, ...] = (
    "#4c78a8",
    "#f58518",
    "#54a24b",
    "#e45756",
    "#72b7b2",
    "#b279a2",
    "#eeca3b",
    "#9d755d",
    "#ff9da6",
    "#bab0ac",
)
"""Colours for experiments (or phases) the caller gave no colour for, in order."""

LABEL = "label"
"""Column holding the display label (experiment label or phase label) that colours the marks."""

_LEGEND_PARAM = "legend"
_HOVER_PARAM = "hover"
_RAW_OPACITY = 0.25
_DIMMED_OPACITY = 0.15
_REFERENCE_DASH = [6, 4]
_NO_SMOOTHING = Smoothing()


# --- public builders ---------------------------------------------------------------------------------


def metric_chart(
    long: pl.DataFrame,
    *,
    title: str,
    y_title: str,
    colors: Mapping[str, str],
    labels: Mapping[str, str],
    smoothing: Smoothing = _NO_SMOOTHING,
    x: XAxis = "step",
    x_title: str | None = None,
    log_scale: bool = False,
    percent: bool = False,
    value_format: str | None = None,
    reference: float | None = None,
    reference_label: str | None = None,
    markers: pl.DataFrame | None = None,
    marker_title: str = "signal",
    raw_suffix: str = " (raw)",
    experiment_title: str = "experiment",
    empty_text: str = "no data",
    max_points: int = 2000,
    height: int = 260,
) -> alt.LayerChart:
    """One metric for several experiments: lines, hover tooltip, clickable legend.

    Layers, in order: the raw line per experiment (faded to opacity 0.25 under the smoothed line when
    smoothing is on; it carries the legend selection, which Vega-Lite only honours on the first layer), the
    smoothed line, points marking the hovered step, a nearest-x hover rule whose tooltip lists every
    experiment's value there, the dashed reference rule, and the markers.

    Parameters
    ----------
    long
        A long frame for one metric (extra metrics would be drawn as one line per experiment).
    title, y_title, x_title
        Chart and axis titles; ``x_title`` defaults to the x column name.
    colors, labels
        Experiment id -> hex colour / display label. Their order fixes the legend order; an experiment
        missing from them gets its id as label and a colour from :data:`DEFAULT_PALETTE`.
    smoothing
        :class:`rlmon.smoothing.Smoothing`; computed on every logged point, then downsampled.
    x
        ``"step"`` or ``"hours"`` (rows with unknown hours are left out on the hours axis).
    log_scale
        Logarithmic y axis; values <= 0 are left out.
    percent
        Values are fractions shown as percent (axis ``.0%``, tooltip ``.2%``).
    value_format
        d3 format for tooltip values (default: ``.2%`` when ``percent``, else full precision).
    reference, reference_label
        A horizontal dashed rule at this y value (e.g. the response-length cap) and its label.
    markers
        Optional frame (``experiment``, ``step``, ``value``, ``text``) drawn as triangles with a tooltip.
    marker_title, raw_suffix, experiment_title, empty_text
        Tooltip titles for the marker text, the raw value (appended to the label) and the experiment, and
        the text shown when there is nothing to draw.
    max_points
        Points per experiment line sent to the browser (downsampling bound).
    height
        Chart height in pixels.

    Returns
    -------
    alt.LayerChart
    """
    return _line_chart(
        long,
        title=title,
        y_title=y_title,
        colors=colors,
        labels=labels,
        smoothing=smoothing,
        x=x,
        x_title=x_title,
        log_scale=log_scale,
        percent=percent,
        value_format=value_format,
        reference=reference,
        reference_label=reference_label,
        markers=markers,
        marker_title=marker_title,
        raw_suffix=raw_suffix,
        experiment_title=experiment_title,
        empty_text=empty_text,
        max_points=max_points,
        height=height,
        with_points=False,
    )


def validation_chart(
    long: pl.DataFrame,
    *,
    title: str,
    y_title: str,
    colors: Mapping[str, str],
    labels: Mapping[str, str],
    x: XAxis = "step",
    x_title: str | None = None,
    percent: bool = False,
    log_scale: bool = False,
    value_format: str | None = None,
    reference: float | None = None,
    reference_label: str | None = None,
    experiment_title: str = "experiment",
    empty_text: str = "no data",
    max_points: int = 2000,
    height: int = 260,
) -> alt.LayerChart:
    """Validation scores at their test steps: a point per test step, joined per experiment.

    Only the rows where the key was logged are drawn, so the line joins consecutive test steps (every
    ``test_freq`` steps) rather than breaking at the steps in between. Same hover tooltip and legend
    selection as :func:`metric_chart`; parameters as there.

    Returns
    -------
    alt.LayerChart
    """
    return _line_chart(
        long,
        title=title,
        y_title=y_title,
        colors=colors,
        labels=labels,
        smoothing=_NO_SMOOTHING,
        x=x,
        x_title=x_title,
        log_scale=log_scale,
        percent=percent,
        value_format=value_format,
        reference=reference,
        reference_label=reference_label,
        markers=None,
        marker_title="",
        raw_suffix="",
        experiment_title=experiment_title,
        empty_text=empty_text,
        max_points=max_points,
        height=height,
        with_points=True,
    )


def bar_chart(
    values: pl.DataFrame,
    *,
    title: str,
    y_title: str,
    colors: Mapping[str, str],
    labels: Mapping[str, str],
    value_format: str = ",.1f",
    experiment_title: str = "experiment",
    empty_text: str = "no data",
    height: int = 260,
) -> alt.LayerChart:
    """One bar per experiment with its value written on the bar (e.g. total training hours).

    Parameters
    ----------
    values
        Frame with ``experiment`` (String) and ``value`` (numeric); rows with a non-finite value are left out.
        An experiment listed twice gets the value of its last row.
    title, y_title
        Chart and y-axis titles.
    colors, labels
        As in :func:`metric_chart`; bars follow their order.
    value_format
        d3 format of the value text and tooltip.
    experiment_title, empty_text
        Tooltip title for the experiment; text shown when there is nothing to draw.
    height
        Chart height in pixels.

    Returns
    -------
    alt.LayerChart
    """
    _require_columns(values, [EXPERIMENT, VALUE], "bar_chart")
    bars = (
        values.select(pl.col(EXPERIMENT).cast(pl.String), pl.col(VALUE).cast(pl.Float64))
        .filter(pl.col(VALUE).is_finite())
        .unique(EXPERIMENT, keep="last", maintain_order=True)
    )
    if bars.is_empty():
        return _empty_chart(title=title, text=empty_text, height=height)
    scale, label_of = _color_scale(bars[EXPERIMENT].to_list(), colors, labels)
    bars = bars.with_columns(pl.col(EXPERIMENT).replace_strict(label_of).alias(LABEL))
    x_enc = alt.X(f"{LABEL}:N", sort=scale.domain, title=None, axis=alt.Axis(labelAngle=0))
    y_enc = alt.Y(f"{VALUE}:Q", title=y_title)
    tooltip = [
        alt.Tooltip(f"{LABEL}:N", title=experiment_title),
        alt.Tooltip(f"{VALUE}:Q", title=y_title, format=value_format),
    ]
    bar_layer = (
        alt.Chart()
        .mark_bar()
        .encode(x=x_enc, y=y_enc, color=alt.Color(f"{LABEL}:N", scale=scale, legend=None), tooltip=tooltip)
    )
    text_layer = (
        alt.Chart()
        .mark_text(baseline="bottom", dy=-3)
        .encode(x=x_enc, y=y_enc, text=alt.Text(f"{VALUE}:Q", format=value_format))
    )
    chart: alt.LayerChart = alt.LayerChart(layer=[bar_layer, text_layer], data=_inline(bars)).properties(
        title=title, height=height
    )
    return chart


def stacked_area_chart(
    long: pl.DataFrame,
    *,
    title: str,
    y_title: str,
    phase_labels: Mapping[str, str] | None = None,
    phase_colors: Mapping[str, str] | None = None,
    x: XAxis = "step",
    x_title: str | None = None,
    value_format: str = ",.1f",
    total_title: str = "total",
    empty_text: str = "no data",
    max_points: int = 2000,
    height: int = 260,
) -> alt.LayerChart:
    """Per-step time of one experiment, stacked by phase (``timing_s/gen``, ``timing_s/update_actor``, …).

    Pass the phase keys only: ``timing_s/step`` is their total, and nested keys such as
    ``timing_s/generate_sequences`` (inside ``gen``) would be counted twice. A phase a step did not log
    counts as 0 at that step. Steps are downsampled on the total per step, so slow steps survive.

    Parameters
    ----------
    long
        A long frame for one experiment; ``metric`` names the phase.
    title, y_title, x_title
        Chart and axis titles.
    phase_labels
        Metric key -> display label; its order is the stacking order (bottom first). Keys missing from it
        are labelled without their ``timing_s/`` prefix and stacked after, largest mean first.
    phase_colors
        Metric key -> hex colour; the others take :data:`DEFAULT_PALETTE` in order.
    x
        ``"step"`` or ``"hours"``.
    value_format, total_title, empty_text
        Tooltip number format, tooltip title of the per-step total, text shown when there is nothing to draw.
    max_points, height
        Downsampling bound (steps) and height in pixels.

    Returns
    -------
    alt.LayerChart

    Raises
    ------
    SettingError
        When the frame holds more than one experiment, or ``x`` is not ``step``/``hours``.
    """
    _check_x(x)
    frame = _prepare(long, x=x, log_scale=False)
    if frame.is_empty():
        return _empty_chart(title=title, text=empty_text, height=height)
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
    scale = alt.Scale(domain=domain, range=[color_of[key] for key in order])
    x_enc = _x_encoding(x, x_title)
    area = (
        alt.Chart()
        .mark_area(interpolate="step-after" if x == STEP else "linear", opacity=0.85)
        .encode(
            x=x_enc,
            y=alt.Y(f"{VALUE}:Q", stack="zero", title=y_title),
            color=alt.Color(f"{LABEL}:N", scale=scale, sort=domain, legend=alt.Legend(title=None, orient="bottom")),
            order=alt.Order("_order:Q"),
        )
    )
    hover = _hover_param(x)
    tooltip_rows = wide.select(
        pl.col(x), *[pl.col(key).alias(f"p{i}") for i, key in enumerate(order)], pl.col("_total")
    )
    values = [("_total", total_title, value_format)] + [
        (f"p{i}", label_of[key], value_format) for i, key in enumerate(order)
    ]
    rule = _hover_rule(tooltip_rows, x=x, x_title=x_title, hover=hover, values=values)
    chart: alt.LayerChart = alt.LayerChart(layer=[area, rule], data=_inline(stacked)).properties(
        title=title, height=height
    )
    return chart


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


def _line_chart(
    long: pl.DataFrame,
    *,
    title: str,
    y_title: str,
    colors: Mapping[str, str],
    labels: Mapping[str, str],
    smoothing: Smoothing,
    x: XAxis,
    x_title: str | None,
    log_scale: bool,
    percent: bool,
    value_format: str | None,
    reference: float | None,
    reference_label: str | None,
    markers: pl.DataFrame | None,
    marker_title: str,
    raw_suffix: str,
    experiment_title: str,
    empty_text: str,
    max_points: int,
    height: int,
    with_points: bool,
) -> alt.LayerChart:
    _check_x(x)
    frame = _prepare(long, x=x, log_scale=log_scale)
    if frame.is_empty():
        return _empty_chart(title=title, text=empty_text, height=height)
    smoothed = with_smoothed(frame, method=smoothing.method, weight=smoothing.weight, window=smoothing.window).filter(
        pl.col(VALUE).is_not_null()
    )
    points = downsample(smoothed, max_points=max_points, x=x)
    experiments = _ordered_experiments(points[EXPERIMENT].unique().to_list(), colors)
    scale, label_of = _color_scale(experiments, colors, labels)
    points = points.with_columns(pl.col(EXPERIMENT).replace_strict(label_of).alias(LABEL))
    fmt = value_format or (".2%" if percent else None)
    x_enc = _x_encoding(x, x_title)
    y_scale = alt.Scale(type="log") if log_scale else alt.Scale(zero=False)
    y_axis = alt.Axis(format=".0%") if percent else alt.Axis()
    color = alt.Color(f"{LABEL}:N", scale=scale, sort=scale.domain, legend=alt.Legend(title=None, orient="bottom"))
    legend = alt.selection_point(name=_LEGEND_PARAM, fields=[LABEL], bind="legend")
    hover = _hover_param(x)
    faded = smoothing.enabled

    def y_of(field: str) -> Any:
        return alt.Y(f"{field}:Q", title=y_title, scale=y_scale, axis=y_axis)

    # The legend selection sits on this first layer: Vega-Lite ignores a legend binding on later layers.
    # The fading is the mark's strokeOpacity, not the opacity encoding, which the legend symbols copy.
    raw_layer = (
        alt.Chart()
        .mark_line(
            strokeWidth=1.2 if faded else 1.8,
            strokeOpacity=_RAW_OPACITY if faded else 1.0,
            point=with_points,
        )
        .encode(
            x=x_enc,
            y=y_of(VALUE),
            color=color,
            opacity=alt.when(legend).then(alt.value(1.0)).otherwise(alt.value(_DIMMED_OPACITY)),
        )
        .add_params(legend)
    )
    layers: list[Any] = [raw_layer]
    shown = SMOOTHED if faded else VALUE
    if faded:
        layers.append(
            alt.Chart()
            .mark_line(strokeWidth=2)
            .encode(
                x=x_enc,
                y=y_of(SMOOTHED),
                color=color,
                opacity=alt.when(legend).then(alt.value(1.0)).otherwise(alt.value(_DIMMED_OPACITY)),
            )
            .transform_filter(f"isValid(datum.{SMOOTHED})")
        )
    layers.append(
        alt.Chart()
        .mark_point(filled=True, size=45)
        .encode(x=x_enc, y=y_of(shown), color=color)
        .transform_filter(hover)
        .transform_filter(f"isValid(datum.{shown})")
    )
    tooltip_rows, tooltip = _hover_table(
        smoothed,
        grid=points[x],
        experiments=experiments,
        label_of=label_of,
        x=x,
        x_title=x_title,
        smoothing_on=faded,
        raw_suffix=raw_suffix,
        fmt=fmt,
        max_points=max_points,
    )
    layers.append(_hover_rule(tooltip_rows, x=x, x_title=x_title, hover=hover, values=tooltip))
    if reference is not None:
        layers.extend(_reference_layers(reference, reference_label, y_title=y_title, fmt=fmt))
    if markers is not None:
        marker_layer = _marker_layer(
            markers,
            long=frame,
            label_of=label_of,
            scale=scale,
            x=x,
            x_title=x_title,
            y_title=y_title,
            fmt=fmt,
            marker_title=marker_title,
            experiment_title=experiment_title,
            log_scale=log_scale,
        )
        if marker_layer is not None:
            layers.append(marker_layer)
    records = points.select(EXPERIMENT, LABEL, STEP, HOURS, VALUE, SMOOTHED)
    chart: alt.LayerChart = alt.LayerChart(layer=layers, data=_inline(records)).properties(title=title, height=height)
    return chart


def _hover_table(
    smoothed: pl.DataFrame,
    *,
    grid: pl.Series,
    experiments: Sequence[str],
    label_of: Mapping[str, str],
    x: str,
    x_title: str | None,
    smoothing_on: bool,
    raw_suffix: str,
    fmt: str | None,
    max_points: int,
) -> tuple[pl.DataFrame, list[tuple[str, str, str | None]]]:
    """One row per x with every experiment's value there (nearest logged point within the run's range).

    Also returns the tooltip entries: (column, title, d3 format or None for full precision).
    """
    xs = grid.unique().sort()
    if xs.len() > max_points:
        # Evenly spaced grid positions, always including the last x.
        picks = pl.int_range(0, max_points, eager=True) * (xs.len() - 1) // (max_points - 1)
        xs = xs.gather(picks.unique().sort())
    table = pl.DataFrame({x: xs})
    tooltip: list[tuple[str, str, str | None]] = []
    for i, experiment in enumerate(experiments):
        run = (
            smoothed.filter(pl.col(EXPERIMENT) == experiment)
            .select(pl.col(x), pl.col(VALUE).alias(f"r{i}"), pl.col(SMOOTHED).alias(f"s{i}"))
            .sort(x)
        )
        lo, hi = run[x].min(), run[x].max()
        joined = table.join_asof(run, on=x, strategy="nearest")
        inside = pl.col(x).is_between(lo, hi)
        table = joined.with_columns(
            pl.when(inside).then(pl.col(f"r{i}")).alias(f"r{i}"),
            pl.when(inside).then(pl.col(f"s{i}")).alias(f"s{i}"),
        )
        label = label_of[experiment]
        if smoothing_on:
            tooltip.append((f"s{i}", label, fmt))
            tooltip.append((f"r{i}", f"{label}{raw_suffix}", fmt))
        else:
            tooltip.append((f"r{i}", label, fmt))
    if not smoothing_on:
        table = table.drop([f"s{i}" for i in range(len(experiments))])
    return table, tooltip


def _hover_rule(
    rows: pl.DataFrame,
    *,
    x: str,
    x_title: str | None,
    hover: Any,
    values: Sequence[tuple[str, str, str | None]],
) -> Any:
    """A vertical rule per x, invisible until the pointer is nearest to it; its tooltip lists every series.

    Each value is shown through a text field computed in Vega (``t_<column>``), so a run with no point at
    that x reads "–" instead of "null". Only column names and formats enter the expressions; titles (which
    may come from configuration) stay plain tooltip titles.
    """
    calculated = {
        f"t_{column}": f"isValid(datum.{column}) ? {_format_expr(column, fmt)} : '–'" for column, _title, fmt in values
    }
    tooltip = [alt.Tooltip(f"{x}:Q", title=x_title or x)] + [
        alt.Tooltip(f"t_{column}:N", title=title) for column, title, _fmt in values
    ]
    return (
        alt.Chart(_inline(rows))
        .transform_calculate(**calculated)
        .mark_rule(color="#888888", strokeWidth=1)
        .encode(
            x=alt.X(f"{x}:Q"),
            opacity=alt.when(hover).then(alt.value(0.6)).otherwise(alt.value(0.0)),
            tooltip=tooltip,
        )
        .add_params(hover)
    )


def _format_expr(column: str, fmt: str | None) -> str:
    if fmt:
        return f"format(datum.{column}, {json.dumps(fmt)})"
    return f"toString(datum.{column})"


def _reference_layers(reference: float, label: str | None, *, y_title: str, fmt: str | None) -> list[Any]:
    tooltip = [alt.Tooltip("ref:Q", title=label or y_title, format=fmt or ",")]
    rule = (
        alt.Chart(_values([{"ref": reference}]))
        .mark_rule(strokeDash=_REFERENCE_DASH, color="#666666", strokeWidth=1.5)
        .encode(y=alt.datum(reference), tooltip=tooltip)
    )
    if not label:
        return [rule]
    text = (
        alt.Chart(_values([{"ref": reference, "text": label}]))
        .mark_text(align="left", baseline="bottom", dx=4, dy=-3, color="#666666", fontSize=11)
        .encode(x=alt.value(0), y=alt.datum(reference), text="text:N")
    )
    return [rule, text]


def _marker_layer(
    markers: pl.DataFrame,
    *,
    long: pl.DataFrame,
    label_of: Mapping[str, str],
    scale: Any,
    x: str,
    x_title: str | None,
    y_title: str,
    fmt: str | None,
    marker_title: str,
    experiment_title: str,
    log_scale: bool,
) -> Any | None:
    _require_columns(markers, [EXPERIMENT, STEP, VALUE, "text"], "markers")
    rows = markers.select(
        pl.col(EXPERIMENT).cast(pl.String),
        pl.col(STEP).cast(pl.Int64),
        _finite_or_null(pl.col(VALUE).cast(pl.Float64)).alias(VALUE),
        pl.col("text").cast(pl.String),
    ).filter(pl.col(EXPERIMENT).is_in(list(label_of)), pl.col(VALUE).is_not_null())
    if log_scale:
        rows = rows.filter(pl.col(VALUE) > 0)
    if x == HOURS:
        hours = long.select(EXPERIMENT, STEP, HOURS).unique([EXPERIMENT, STEP])
        rows = rows.join(hours, on=[EXPERIMENT, STEP], how="inner", maintain_order="left").filter(
            pl.col(HOURS).is_not_null()
        )
    if rows.is_empty():
        return None
    rows = rows.with_columns(pl.col(EXPERIMENT).replace_strict(label_of).alias(LABEL))
    tooltip = [
        alt.Tooltip(f"{LABEL}:N", title=experiment_title),
        alt.Tooltip(f"{x}:Q", title=x_title or x),
        alt.Tooltip(f"{VALUE}:Q", title=y_title, format=fmt or ""),
        alt.Tooltip("text:N", title=marker_title),
    ]
    return (
        alt.Chart(_inline(rows))
        .mark_point(shape="triangle-down", filled=True, size=110, opacity=1.0, stroke="#ffffff", strokeWidth=0.8)
        .encode(
            x=alt.X(f"{x}:Q"),
            y=alt.Y(f"{VALUE}:Q"),
            color=alt.Color(f"{LABEL}:N", scale=scale, legend=None),
            tooltip=tooltip,
        )
    )


# --- shared pieces -----------------------------------------------------------------------------------


def _empty_chart(*, title: str, text: str, height: int) -> alt.LayerChart:
    layer = alt.Chart(_values([{"text": text}])).mark_text(fontSize=14, color="#888888").encode(text="text:N")
    chart: alt.LayerChart = alt.LayerChart(layer=[layer]).properties(title=title, height=height)
    return chart


def _prepare(long: pl.DataFrame, *, x: str, log_scale: bool) -> pl.DataFrame:
    """The long columns with their schema dtypes, non-finite values as null, rows off the x axis dropped."""
    _require_columns(long, list(LONG_SCHEMA), "long frame")
    frame = long.select(pl.col(name).cast(dtype) for name, dtype in LONG_SCHEMA.items())
    value = _finite_or_null(pl.col(VALUE))
    if log_scale:
        value = pl.when(value > 0).then(value)
    return frame.with_columns(value.alias(VALUE)).filter(pl.col(x).is_not_null(), pl.col(VALUE).is_not_null())


def _finite_or_null(expr: pl.Expr) -> pl.Expr:
    return pl.when(expr.is_finite()).then(expr)


def _inline(frame: pl.DataFrame) -> pl.DataFrame:
    """Chart data: the frame itself with non-finite floats as null (strict JSON has no NaN or inf).

    A frame, not a list of dicts: Streamlit ships it as Arrow, and Altair neither deep-copies nor
    validates it row by row (with 40k rows as dicts, building and serialising a chart took ~1 s).
    """
    return frame.with_columns(
        _finite_or_null(pl.col(name)).alias(name) for name, dtype in frame.schema.items() if dtype.is_float()
    )


def _values(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {"values": rows}


def _ordered_experiments(present: Sequence[str], colors: Mapping[str, str]) -> list[str]:
    """Experiments in the caller's colour order, then any others sorted."""
    known = [experiment for experiment in colors if experiment in present]
    return known + sorted(experiment for experiment in present if experiment not in colors)


def _color_scale(
    experiments: Sequence[str], colors: Mapping[str, str], labels: Mapping[str, str]
) -> tuple[Any, dict[str, str]]:
    """A colour scale whose domain is the labels in a fixed order, and experiment id -> label."""
    ordered = _ordered_experiments(list(experiments), colors)
    label_of = _unique_labels({experiment: labels.get(experiment, experiment) for experiment in ordered})
    spare = iter(DEFAULT_PALETTE * (len(ordered) // len(DEFAULT_PALETTE) + 1))
    color_range = [colors.get(experiment) or next(spare) for experiment in ordered]
    scale = alt.Scale(domain=[label_of[experiment] for experiment in ordered], range=color_range)
    return scale, label_of


def _unique_labels(label_of: Mapping[str, str]) -> dict[str, str]:
    """Disambiguate repeated labels with their key, so two series never share a colour entry."""
    counts: dict[str, int] = {}
    for label in label_of.values():
        counts[label] = counts.get(label, 0) + 1
    return {key: label if counts[label] == 1 else f"{label} ({key})" for key, label in label_of.items()}


def _x_encoding(x: str, x_title: str | None) -> Any:
    axis = alt.Axis(format="d", tickMinStep=1) if x == STEP else alt.Axis(format=",.1f")
    return alt.X(f"{x}:Q", title=x_title or x, axis=axis, scale=alt.Scale(nice=False))


def _hover_param(x: str) -> Any:
    return alt.selection_point(
        name=_HOVER_PARAM, fields=[x], nearest=True, on="pointerover", clear="pointerout", empty=False
    )


def _check_x(x: str) -> None:
    if x not in (STEP, HOURS):
        raise SettingError(f"x axis {x!r} is not one of step, hours")


def _require_columns(frame: pl.DataFrame, names: Sequence[str], what: str) -> None:
    missing = [name for name in names if name not in frame.columns]
    if missing:
        raise SettingError(f"{what} lacks column(s) {', '.join(missing)} (has {', '.join(frame.columns)})")
