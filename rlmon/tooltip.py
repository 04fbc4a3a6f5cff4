"""Hover tooltips drawn as a small SVG picture: one row per series, in its colour, highest value first.

Streamlit draws Vega-Lite charts with vega-embed's default tooltip handler (vega-tooltip), and keeps no
custom handler or tooltip options from the spec. That handler turns an object tooltip into HTML with every
string escaped: ``title`` becomes a heading, ``image`` an ``<img src>`` and the other keys a two-column
table. The only way to get colours into it is the picture, so the hover rule's tooltip is the expression
built by :func:`tooltip_expr`, which evaluates to ``{title: <header text>, image: "data:image/svg+xml,…"}``.

What the expression is made of:

* percent-encoded SVG text, as JSON string literals of the characters ``A-Z a-z 0-9 % . _ ~ -`` only (no
  quote, bracket or backslash can appear in them). Labels, which may come from logs or ``rlmon.toml``, are
  XML-escaped and then percent-encoded here, in Python, before they become such a literal; colours must be
  ``#rrggbb``;
* column names of the hover table (``datum.o0``, ``datum['s' + datum.o0]``, ``datum._head``, …);
* d3 number formats and numeric constants.

The sorting is done in polars (:func:`with_rank_columns`): ``o<k>`` is the index of the series in place
``k`` at that x (highest value first, ties in series order; series with no value there are left out), and
``_n`` how many there are, which sets the picture's height. Each series is drawn once in the SVG's
``<defs>`` (its swatch and label) and placed per row with ``<use href="#e<i>">``, so the expression grows
with the number of series, not its square.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import quote

import polars as pl

__all__ = [
    "COUNT",
    "HEAD",
    "ORDER",
    "TooltipSeries",
    "encode_text",
    "label_width",
    "svg_literal",
    "tooltip_expr",
    "tooltip_size",
    "with_rank_columns",
    "xml_text",
]

ORDER = "o"
"""Prefix of the rank columns: ``o0`` holds the index of the series with the highest value at that x."""
COUNT = "_n"
"""Column: how many series have a value at that x (the rows of the picture)."""
HEAD = "_head"
"""Column: the tooltip heading (the step and the elapsed hours), plain text."""
COUNT_FIELD = f"datum.{COUNT}"

ROW_HEIGHT = 18
PAD = 8
FONT_SIZE = 12
SWATCH = 10
VALUE_WIDTH = 72
GAP = 14
MAX_LABEL_CHARS = 48
FALLBACK_COLOR = "#888888"
TEXT_COLOR = "#222222"
MUTED_COLOR = "#777777"

_SAFE_LITERAL = re.compile(r"[A-Za-z0-9%._~-]*")
_COLOR = re.compile(r"#[0-9a-fA-F]{6}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_DASH = "\u2013"


@dataclass(frozen=True)
class TooltipSeries:
    """One row of the picture: the series' display label (any text) and its ``#rrggbb`` colour."""

    label: str
    color: str


def xml_text(text: str, *, limit: int = MAX_LABEL_CHARS) -> str:
    """``text`` as SVG character data: control characters become spaces, long text is cut with an ellipsis,
    and ``& < > " '`` are escaped.

    >>> xml_text('<b a="1">&\\n')
    '&lt;b a=&quot;1&quot;&gt;&amp; '
    """
    clean = _CONTROL.sub(" ", text)
    if len(clean) > limit:
        clean = clean[: limit - 1] + "\u2026"
    return (
        clean.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&#39;")
    )


def encode_text(markup: str) -> str:
    """Percent-encode ``markup`` (UTF-8) for a data URL, leaving only ``A-Z a-z 0-9 % . _ ~ -``.

    >>> encode_text('<text fill="#fff">a b</text>')
    '%3Ctext%20fill%3D%22%23fff%22%3Ea%20b%3C%2Ftext%3E'
    """
    return quote(markup, safe="")


def svg_literal(markup: str) -> str:
    """A Vega expression string literal holding ``markup`` percent-encoded (see :func:`encode_text`)."""
    encoded = encode_text(markup)
    if not _SAFE_LITERAL.fullmatch(encoded):  # pragma: no cover - quote(safe="") guarantees it
        raise ValueError("percent-encoding left an unsafe character")
    return json.dumps(encoded)


def safe_color(color: str) -> str:
    """``color`` when it is ``#rrggbb`` (lower-cased), else a neutral grey."""
    return color.lower() if _COLOR.fullmatch(color) else FALLBACK_COLOR


def label_width(label: str) -> int:
    """Rough pixel width of ``label`` at 12 px sans-serif (wide CJK characters count double)."""
    text = label if len(label) <= MAX_LABEL_CHARS else label[: MAX_LABEL_CHARS - 1] + "\u2026"
    return sum(12 if unicodedata.east_asian_width(char) in "WF" else 7 for char in text)


def tooltip_size(
    labels: Sequence[str], *, rows: int, columns: int, header: bool = False, total: bool = False
) -> tuple[int, int]:
    """(width, height) in pixels of the picture for these labels, ``rows`` series rows and ``columns`` values."""
    width = PAD + SWATCH + 6 + max((label_width(label) for label in labels), default=0) + GAP
    width += VALUE_WIDTH * columns + PAD
    return width, _top(header) + rows * ROW_HEIGHT + (ROW_HEIGHT + 4 if total else 0) + PAD


def _top(header: bool) -> int:
    return PAD + (ROW_HEIGHT if header else 0)


def with_rank_columns(frame: pl.DataFrame, columns: Sequence[str]) -> pl.DataFrame:
    """``frame`` plus ``o0 … o<n-1>`` and ``_n``: per row, the positions in ``columns`` by value.

    ``o<k>`` is the index (into ``columns``) of the ``k``-th highest value in that row; equal values keep
    the order of ``columns``; null and NaN values are left out, so the last ``o`` columns of a row can be
    null. ``_n`` counts the values. Both are Int32 (JavaScript numbers, not BigInt, in the browser).

    >>> f = pl.DataFrame({"a": [1.0, None], "b": [2.0, 5.0]})
    >>> with_rank_columns(f, ["a", "b"]).rows()
    [(1.0, 2.0, 1, 0, 2), (None, 5.0, 1, None, 1)]
    """
    n = len(columns)
    indexed = frame.with_row_index("_row")
    values = (
        indexed.select(
            pl.col("_row"),
            *[
                pl.struct(pl.lit(i, dtype=pl.Int32).alias("i"), pl.col(c).cast(pl.Float64).alias("v")).alias(c)
                for i, c in enumerate(columns)
            ],
        )
        .unpivot(index="_row", on=list(columns), value_name="_cell")
        .select(pl.col("_row"), pl.col("_cell").struct.field("i"), pl.col("_cell").struct.field("v"))
        .filter(pl.col("v").is_not_null() & pl.col("v").is_not_nan())
        .sort(["_row", "v", "i"], descending=[False, True, False])
        .group_by("_row", maintain_order=True)
        .agg(pl.col("i"))
    )
    ranks = values.select(
        pl.col("_row"),
        *[pl.col("i").list.get(k, null_on_oob=True).cast(pl.Int32).alias(f"{ORDER}{k}") for k in range(n)],
        pl.col("i").list.len().cast(pl.Int32).alias(COUNT),
    )
    return (
        indexed.join(ranks, on="_row", how="left", maintain_order="left")
        .with_columns(pl.col(COUNT).fill_null(0))
        .with_columns(pl.col(f"{ORDER}{k}").cast(pl.Int32) for k in range(n))
        .drop("_row")
    )


def _number(value: str, fmt: str | None, suffix: str) -> str:
    """Expression: the percent-encoded text of the number ``value`` (an expression on columns), or a dash."""
    if fmt is None:
        # 3-4 significant digits, thousands separated; tiny magnitudes in exponent form.
        text = f'(abs({value}) >= 1e-4 || {value} == 0 ? format({value}, ",.4~r") : format({value}, ".3~e"))'
    else:
        text = f"format({value}, {json.dumps(fmt)})"
    shown = f"encodeURIComponent({text})"
    if suffix:
        shown += " + " + svg_literal(suffix)
    return f"(isValid({value}) ? {shown} : {svg_literal(_DASH)})"


def tooltip_expr(
    series: Sequence[TooltipSeries],
    *,
    columns: Sequence[str],
    fmt: str | None,
    suffix: str = "",
    column_titles: Sequence[str] = (),
    total: tuple[str, str] | None = None,
) -> str:
    """The Vega expression of the hover tooltip: ``{title: datum._head, image: <SVG data URL>}``.

    Parameters
    ----------
    series
        The series in index order (``o<k>`` values index into it).
    columns
        Value column prefixes shown per row, the first being the one the rows are sorted by: the value of
        series ``i`` is the column ``<prefix><i>`` (e.g. ``("s", "r")``: smoothed, then raw).
    fmt, suffix
        d3 format of the values (None: 3-4 significant digits) and text appended to each (e.g. ``%``).
    column_titles
        Small grey titles over the value columns (e.g. ``("", "(raw)")``); none drawn when all are empty.
    total
        (column, title): a last row, below a thin rule, with that column's value.
    """
    header = any(column_titles)
    labels = [item.label for item in series] + ([total[1]] if total else [])
    width, _height = tooltip_size(labels, rows=0, columns=len(columns), header=header, total=total is not None)
    top = _top(header)
    extra = (ROW_HEIGHT + 4 if total else 0) + PAD
    value_x = [width - PAD - VALUE_WIDTH * (len(columns) - 1 - j) for j in range(len(columns))]
    baseline = ROW_HEIGHT - 5

    defs = "".join(
        f'<g id="e{i}"><rect x="0" y="-{SWATCH}" width="{SWATCH}" height="{SWATCH}" rx="2" '
        f'fill="{safe_color(item.color)}"/><text x="{SWATCH + 6}">{xml_text(item.label)}</text></g>'
        for i, item in enumerate(series)
    )
    parts: list[str] = [
        svg_literal(f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="'),
        f"({top + extra} + {COUNT_FIELD} * {ROW_HEIGHT})",
        svg_literal(
            f'" font-family="sans-serif" font-size="{FONT_SIZE}" fill="{TEXT_COLOR}">'
            f'<rect width="100%" height="100%" fill="#ffffff"/><defs>{defs}</defs>'
        ),
    ]
    if header:
        titles = "".join(
            f'<text x="{x}" y="{PAD + baseline}" text-anchor="end" font-size="10" fill="{MUTED_COLOR}">'
            f"{xml_text(title, limit=16)}</text>"
            for x, title in zip(value_x, column_titles, strict=False)
            if title
        )
        parts.append(svg_literal(titles))
    for k in range(len(series)):
        rank = f"datum.{ORDER}{k}"
        y = top + k * ROW_HEIGHT + baseline
        row = [svg_literal('<use href="#e'), rank, svg_literal(f'" x="{PAD}" y="{y}"/>')]
        for j, (prefix, x) in enumerate(zip(columns, value_x, strict=True)):
            color = "" if j == 0 else f' fill="{MUTED_COLOR}"'
            row.append(svg_literal(f'<text x="{x}" y="{y}" text-anchor="end"{color}>'))
            row.append(_number(f"datum[{json.dumps(prefix)} + {rank}]", fmt, suffix))
            row.append(svg_literal("</text>"))
        parts.append(f"(isValid({rank}) ? {' + '.join(row)} : '')")
    if total:
        column, title = total
        rule_y = f"({top + 2} + {COUNT_FIELD} * {ROW_HEIGHT})"
        text_y = f"({top + 4 + baseline} + {COUNT_FIELD} * {ROW_HEIGHT})"
        parts += [
            svg_literal(f'<line x1="{PAD}" x2="{width - PAD}" stroke="#cccccc" y1="'),
            rule_y,
            svg_literal('" y2="'),
            rule_y,
            svg_literal(f'"/><text font-weight="bold" x="{PAD + SWATCH + 6}" y="'),
            text_y,
            svg_literal(f'">{xml_text(title)}</text><text font-weight="bold" text-anchor="end" x="{value_x[0]}" y="'),
            text_y,
            svg_literal('">'),
            _number(f"datum.{column}", fmt, suffix),
            svg_literal("</text>"),
        ]
    parts.append(svg_literal("</svg>"))
    image = '"data:image/svg+xml," + ' + " + ".join(parts)
    return f"{{title: datum.{HEAD}, image: {image}}}"


def heading(
    *, x: str, x_title: str, x_value: pl.Expr, other_low: pl.Expr, other_high: pl.Expr, step_title: str = "step"
) -> pl.Expr:
    """The tooltip heading as a polars String expression (plain text: the tooltip escapes it).

    On the step axis: ``"<x_title> 120 · 3.4 h"`` (``3.1–3.6 h`` when the runs' elapsed hours at that step
    differ); on the hours axis: ``"<x_title> 3.42 · step 118–121"``. ``other_low``/``other_high`` are the
    smallest and largest value of the other coordinate among the series shown (null: left out).
    """
    if x == "hours":
        shown = x_value.round(2).cast(pl.String)
        low, high = other_low.cast(pl.Int64).cast(pl.String), other_high.cast(pl.Int64).cast(pl.String)
        span = pl.when(low == high).then(low).otherwise(pl.concat_str(low, pl.lit(_DASH), high))
        other = pl.concat_str(pl.lit(f" · {step_title} "), span)
    else:
        shown = x_value.cast(pl.Int64).cast(pl.String)
        low, high = other_low.round(1).cast(pl.String), other_high.round(1).cast(pl.String)
        span = pl.when(low == high).then(low).otherwise(pl.concat_str(low, pl.lit(_DASH), high))
        other = pl.concat_str(pl.lit(" · "), span, pl.lit(" h"))
    return pl.concat_str(pl.lit(f"{x_title} "), shown, other.fill_null(""))
