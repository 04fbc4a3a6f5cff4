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
* column names of the hover table (``datum.o0``, ``datum.t0_0``, ``datum._head``, …) and numeric constants.

The sorting and the number formatting are done in polars, once per chart on the server, so that the browser,
which evaluates the expression for every hover position of every chart on each redraw (with Vega's
expression interpreter), only joins strings. :func:`with_rank_columns` adds ``o<k>``, the index of the
series in place ``k`` at that x (highest value first, ties in series order; series with no value there are
left out), and ``_n``, how many there are, which sets the picture's height. :func:`with_cell_texts` then
replaces the values by ``t<j>_<k>``, the percent-encoded text of value column ``j`` of the series in place
``k``, written as d3-format would (:func:`d3_format`; only digits, ``, . e + %`` and minus and dash signs, so
no markup can come of it). Each series is drawn once in the SVG's ``<defs>`` (its swatch and label) and
placed per row with ``<use href="#e<i>">``, so the expression grows with the number of series, not its square.
"""

from __future__ import annotations

import functools
import json
import math
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
    "TEXT",
    "TOTAL_TEXT",
    "TooltipSeries",
    "cell_text",
    "d3_format",
    "encode_text",
    "label_width",
    "number_texts",
    "svg_literal",
    "text_column",
    "tooltip_expr",
    "tooltip_size",
    "with_cell_texts",
    "with_rank_columns",
    "xml_text",
]

ORDER = "o"
"""Prefix of the rank columns: ``o0`` holds the index of the series with the highest value at that x."""
COUNT = "_n"
"""Column: how many series have a value at that x (the rows of the picture)."""
HEAD = "_head"
"""Column: the tooltip heading (the step and the elapsed hours), plain text."""
TEXT = "t"
"""Prefix of the text columns (:func:`text_column`): the percent-encoded value texts, by place."""
TOTAL_TEXT = "_tt"
"""Column: the percent-encoded text of the total row (stacked charts)."""
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
_NUMBER_ESCAPES = {ord(char): quote(char, safe="") for char in "%,+\u2212\u2013"}
"""Percent-encoding of the characters a formatted number can hold besides ``0-9 . e -`` (faster than quote)."""
_NO_VALUE = quote(_DASH, safe="")
_D3_FORMAT = re.compile(r"(,)?(?:\.(\d+))?(~)?([efr%])")


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


def d3_format(value: float, fmt: str | None) -> str:
    """``value`` as d3-format (the browser's number formatting) writes it, for the formats rlmon uses:
    ``[,][.precision][~](r|e|f|%)``; None means 4 significant digits (``,.4~r``), or ``.3~e`` below 1e-4.
    Negative numbers take d3's minus sign (U+2212); a value that rounds to zero is shown unsigned.

    >>> [d3_format(v, None) for v in (0.5, 123456.0, -2.0, 0.0, 3.2e-6)]
    ['0.5', '123,500', '−2', '0', '3.2e-6']
    >>> [d3_format(0.1234, ".1%"), d3_format(1234.5, ",.1f"), d3_format(-0.0001, ".2f")]
    ['12.3%', '1,234.5', '0.00']
    """
    if fmt is None:
        fmt = ",.4~r" if abs(value) >= 1e-4 or value == 0 else ".3~e"
    comma, digits, trim, kind = _parse_format(fmt)
    magnitude = abs(value)
    tail = ""
    if kind == "r":
        body = _rounded(magnitude, max(1, min(21, digits)))
    elif kind == "e":
        mantissa, exponent = f"{magnitude:.{digits}e}".split("e")
        body = f"{mantissa}e{int(exponent):+d}"
    elif kind == "%":
        body, tail = f"{magnitude * 100:.{digits}f}", "%"
    else:
        body = f"{magnitude:.{digits}f}"
    mantissa, _, exponent_part = body.partition("e")
    if trim and "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    if comma:
        whole, _, fraction = mantissa.partition(".")
        mantissa = f"{int(whole):,}" + ("." + fraction if fraction else "")
    body = mantissa + ("e" + exponent_part if exponent_part else "")
    negative = value < 0 and any(char in "123456789" for char in mantissa)
    return ("−" if negative else "") + body + tail


@functools.lru_cache(maxsize=64)
def _parse_format(fmt: str) -> tuple[bool, int, bool, str]:
    """(group thousands, precision, trim zeros, type) of a d3 format string."""
    match = _D3_FORMAT.fullmatch(fmt)
    if match is None:
        raise ValueError(f"unsupported number format {fmt!r}")
    comma, precision, trim, kind = match.groups()
    digits = int(precision) if precision is not None else (12 if kind == "r" else 6)
    return comma is not None, digits, trim is not None, kind


def _rounded(magnitude: float, digits: int) -> str:
    """d3's ``r`` type: ``digits`` significant digits in fixed notation (no exponent)."""
    if magnitude == 0:
        return "0" + ("." + "0" * (digits - 1) if digits > 1 else "")
    mantissa, exponent_text = f"{magnitude:.{digits - 1}e}".split("e")
    coefficient, exponent = mantissa.replace(".", ""), int(exponent_text)
    if exponent < 0:
        return "0." + "0" * (-exponent - 1) + coefficient
    if len(coefficient) > exponent + 1:
        return coefficient[: exponent + 1] + "." + coefficient[exponent + 1 :]
    return coefficient + "0" * (exponent + 1 - len(coefficient))


def cell_text(value: float | None, fmt: str | None, suffix: str = "") -> str:
    """The percent-encoded text of one value in the picture (a dash for no value). Only digits, ``, . e + %``
    and the minus and dash signs are formatted, so no markup can come of it."""
    if value is None or not math.isfinite(value):
        return _NO_VALUE
    encoded = (d3_format(value, fmt) + suffix).translate(_NUMBER_ESCAPES)
    return encoded if _SAFE_LITERAL.fullmatch(encoded) else encode_text(d3_format(value, fmt) + suffix)


def text_column(rank: int, column: int = 0) -> str:
    """Name of the text column of the series in place ``rank``, value column ``column`` (0: the sort key)."""
    return f"{TEXT}{column}_{rank}"


def number_texts(values: pl.Series, fmt: str | None, suffix: str = "") -> pl.Series:
    """:func:`cell_text` of every value of ``values`` (a String series, the dash for no value).

    The usual cases (4 significant digits between 1e-4 and 1,000; fixed decimals below 1,000) are formatted by
    polars in one pass; the rest (exponents, thousands separators) one by one as :func:`d3_format` does.

    >>> number_texts(pl.Series([0.52341, -2.0, None, 123456.0, 3.2e-6]), None).to_list()
    ['0.5234', '%E2%88%922', '%E2%80%93', '123%2C500', '3.2e-6']
    >>> number_texts(pl.Series([0.1234, 0.5]), ".1%").to_list()
    ['12.3%25', '50.0%25']
    """
    number = values.cast(pl.Float64)
    frame = pl.DataFrame({"v": number})
    fast = _fast_texts(fmt, _Needs.of(number * 100 if fmt is not None and fmt.endswith("%") else number))
    if fast is not None:
        frame = frame.with_columns(fast.alias("text"))
    else:
        frame = frame.with_columns(pl.lit(None, dtype=pl.String).alias("text"))
    # Percent-encoded in one pass; a text polars could not write (null) or that holds anything else than a
    # number's characters is formatted one by one.
    escapes = {chr(code): text for code, text in _NUMBER_ESCAPES.items()}
    encoded = pl.concat_str(pl.col("text"), pl.lit(suffix)).str.replace_many(
        list(escapes), list(escapes.values()), ascii_case_insensitive=False
    )
    frame = frame.with_columns(pl.when(encoded.str.contains(f"^{_SAFE_LITERAL.pattern}$")).then(encoded).alias("text"))
    texts = frame["text"].to_list()
    if None in texts:
        for row, value in enumerate(number.to_list()):
            if texts[row] is None:
                texts[row] = cell_text(value, fmt, suffix)
    return pl.Series(values.name, texts, dtype=pl.String)


@dataclass(frozen=True)
class _Needs:
    """Which of the costlier cases of :func:`_fast_texts` occur among the values: a branch no value takes is left
    out of the expression (polars computes every branch of a ``when`` for every row)."""

    groups: int
    """Digit groups of the widest whole part a value can be written with (1: below 1,000, so no separator)."""
    tiny: bool
    """Some value is below 1e-4 in magnitude and not zero (an exponent)."""

    @classmethod
    def of(cls, values: pl.Series) -> _Needs:
        """What ``values`` (scaled as they are written: times 100 for a percent format) need."""
        magnitude = values.abs().filter(values.is_finite())
        top = magnitude.max()
        # One digit more than the largest value has, for the rounding up to the next power of ten (999.5 -> 1,000).
        digits = len(str(int(top))) + 1 if isinstance(top, float) and top < 1e15 else 15
        return cls(
            groups=min(5, (digits - 1) // 3 + 1),
            tiny=bool(((magnitude < 1e-4) & (magnitude != 0)).any()),
        )


def _fast_texts(fmt: str | None, needs: _Needs) -> pl.Expr | None:
    """Expression on ``v``: its d3 text where polars writes it the same way, else null (done one by one).
    ``needs`` tells which of the costlier cases occur."""
    v = pl.col("v")
    finite = v.is_not_null() & v.is_finite()
    if fmt is None:
        rounded = v.round_sig_figs(4)
        plain = rounded.abs().cast(pl.String).str.strip_suffix(".0")
        text = plain
        if needs.groups > 1:
            grouped = _group_thousands(rounded.abs().round(0).cast(pl.Int64).cast(pl.String), needs.groups)
            text = pl.when(rounded.abs() >= 1000).then(grouped).otherwise(plain)
        negative = rounded < 0
        ok = finite & (rounded.abs() < 1e11)
        if needs.tiny:
            # d3's .3~e below 1e-4: a mantissa of up to 4 digits, trimmed, and a signed exponent.
            exponent = v.abs().log10().floor().cast(pl.Int64)
            mantissa = (v.abs() / pl.lit(10.0).pow(exponent)).round(3)
            exponent = pl.when(mantissa >= 10).then(exponent + 1).otherwise(exponent)
            mantissa = pl.when(mantissa >= 10).then((mantissa / 10).round(3)).otherwise(mantissa)
            tiny = pl.concat_str(
                mantissa.cast(pl.String).str.strip_suffix(".0"),
                pl.lit("e"),
                pl.when(exponent < 0).then(pl.lit("-")).otherwise(pl.lit("+")),
                exponent.abs().cast(pl.String),
            )
            small = (v.abs() < 1e-4) & (v != 0)
            text = pl.when(small).then(tiny).otherwise(text)
            negative = (small & (v < 0)) | negative
            ok = ok & (small | ~plain.str.contains("e", literal=True))
        else:
            ok = ok & ~plain.str.contains("e", literal=True)
        sign = pl.when(negative).then(pl.lit("\u2212")).otherwise(pl.lit(""))
        return pl.when(ok).then(pl.concat_str(sign, text))
    comma, digits, trim, kind = _parse_format(fmt)
    if kind not in "f%" or trim:
        return None
    scaled = v * 100 if kind == "%" else v
    rounded = scaled.round(digits, mode="half_away_from_zero")
    text = rounded.abs().cast(pl.String)
    parts = text.str.split_exact(".", 1)
    whole = parts.struct.field("field_0")
    if comma and needs.groups > 1:
        whole = _group_thousands(whole, needs.groups)
    if digits == 0:
        text = whole
    else:
        text = pl.concat_str(whole, pl.lit("."), parts.struct.field("field_1").str.pad_end(digits, "0"))
    sign = pl.when(rounded < 0).then(pl.lit("\u2212")).otherwise(pl.lit(""))
    ok = finite & (rounded.abs() < 1e11)
    tail = "%" if kind == "%" else ""
    return pl.when(ok & ~text.str.contains("e", literal=True)).then(pl.concat_str(sign, text, pl.lit(tail)))


def _group_thousands(digits: pl.Expr, most: int) -> pl.Expr:
    """A string of up to ``3 * most`` (at most 15) digits with a comma between thousands (``1234567`` ->
    ``1,234,567``)."""
    length = digits.str.len_chars()
    result = digits
    for groups in range(2, most + 1):  # 4-6 digits up to 13-15: the widest case tested last, outermost
        head = length - 3 * (groups - 1)
        pieces = [digits.str.slice(0, head)]
        for g in range(groups - 1):
            pieces += [pl.lit(","), digits.str.slice(head + 3 * g, 3)]
        result = pl.when(length > 3 * (groups - 1)).then(pl.concat_str(pieces)).otherwise(result)
    return result


def with_cell_texts(
    frame: pl.DataFrame,
    *,
    prefixes: Sequence[str],
    count: int,
    fmt: str | None,
    suffix: str = "",
    total: str | None = None,
) -> pl.DataFrame:
    """``frame`` (with :func:`with_rank_columns` done) with its value columns ``<prefix><i>`` replaced by the
    texts the picture shows: ``t<j>_<k>`` holds value column ``j`` of the series in place ``k`` (empty past
    ``_n``), and ``total`` (a column) becomes :data:`TOTAL_TEXT`. The browser then only joins strings: it
    formats nothing per hover position.

    >>> f = with_rank_columns(pl.DataFrame({"r0": [0.25, None], "r1": [0.5, 2.0]}), ["r0", "r1"])
    >>> with_cell_texts(f, prefixes=["r"], count=2, fmt=None).rows()
    [(1, 0, 2, '0.5', '0.25'), (1, None, 1, '2', '')]
    """
    order = [frame[f"{ORDER}{k}"].to_list() for k in range(count)]
    columns: list[pl.Series] = []
    names = [f"{prefix}{i}" for prefix in prefixes for i in range(count)]
    # Every value formatted in one pass (its cost is mostly per pass), then picked per column and place.
    flat = number_texts(pl.concat([frame[name].cast(pl.Float64) for name in names]), fmt, suffix).to_list()
    height = frame.height
    for j in range(len(prefixes)):
        start = j * count * height
        for k in range(count):
            cells = ["" if i is None else flat[start + i * height + row] for row, i in enumerate(order[k])]
            columns.append(pl.Series(text_column(k, j), cells, dtype=pl.String))
    dropped = [f"{prefix}{i}" for prefix in prefixes for i in range(count)]
    if total is not None:
        columns.append(number_texts(frame[total], fmt, suffix).alias(TOTAL_TEXT))
        dropped.append(total)
    return frame.drop(dropped).with_columns(columns)


def tooltip_expr(
    series: Sequence[TooltipSeries],
    *,
    values: int = 1,
    column_titles: Sequence[str] = (),
    total_title: str | None = None,
) -> str:
    """The Vega expression of the hover tooltip: ``{title: datum._head, image: <SVG data URL>}``.

    It joins string literals and the hover table's columns (:func:`with_cell_texts`): per place ``k`` the
    series index ``o<k>`` and the texts ``t<j>_<k>``. No number is formatted in the browser.

    Parameters
    ----------
    series
        The series in index order (``o<k>`` values index into it).
    values
        Value columns shown per row (e.g. 2: smoothed, then raw).
    column_titles
        Small grey titles over the value columns (e.g. ``("", "(raw)")``); none drawn when all are empty.
    total_title
        Title of a last row, below a thin rule, showing :data:`TOTAL_TEXT`.
    """
    header = any(column_titles)
    total = total_title is not None
    labels = [item.label for item in series] + ([total_title] if total_title is not None else [])
    width, _height = tooltip_size(labels, rows=0, columns=values, header=header, total=total)
    top = _top(header)
    extra = (ROW_HEIGHT + 4 if total else 0) + PAD
    value_x = [width - PAD - VALUE_WIDTH * (values - 1 - j) for j in range(values)]
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
        row = [svg_literal('<use href="#e'), rank]
        markup = f'" x="{PAD}" y="{y}"/>'
        for j, x in enumerate(value_x):
            color = "" if j == 0 else f' fill="{MUTED_COLOR}"'
            row += [
                svg_literal(markup + f'<text x="{x}" y="{y}" text-anchor="end"{color}>'),
                f"datum.{text_column(k, j)}",
            ]
            markup = "</text>"
        row.append(svg_literal(markup))
        # No test per place: past ``_n`` the texts are empty and ``<use href="#enull">`` draws nothing, below
        # the picture's height anyway.
        parts.append(" + ".join(row))
    if total_title is not None:
        rule_y = f"({top + 2} + {COUNT_FIELD} * {ROW_HEIGHT})"
        text_y = f"({top + 4 + baseline} + {COUNT_FIELD} * {ROW_HEIGHT})"
        parts += [
            svg_literal(f'<line x1="{PAD}" x2="{width - PAD}" stroke="#cccccc" y1="'),
            rule_y,
            svg_literal('" y2="'),
            rule_y,
            svg_literal(f'"/><text font-weight="bold" x="{PAD + SWATCH + 6}" y="'),
            text_y,
            svg_literal(
                f'">{xml_text(total_title)}</text><text font-weight="bold" text-anchor="end" x="{value_x[0]}" y="'
            ),
            text_y,
            svg_literal('">'),
            f"datum.{TOTAL_TEXT}",
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
    differ); on the other axes: ``"<x_title> 3.42 · step 118–121"`` (samples and tokens whole).
    ``other_low``/``other_high`` are the smallest and largest value of the other coordinate among the series
    shown (null: left out).
    """
    if x != "step":
        counting = x in ("samples", "tokens")
        shown = (x_value.round(0).cast(pl.Int64) if counting else x_value.round(2)).cast(pl.String)
        low, high = other_low.cast(pl.Int64).cast(pl.String), other_high.cast(pl.Int64).cast(pl.String)
        span = pl.when(low == high).then(low).otherwise(pl.concat_str(low, pl.lit(_DASH), high))
        other = pl.concat_str(pl.lit(f" · {step_title} "), span)
    else:
        shown = x_value.cast(pl.Int64).cast(pl.String)
        low, high = other_low.round(1).cast(pl.String), other_high.round(1).cast(pl.String)
        span = pl.when(low == high).then(low).otherwise(pl.concat_str(low, pl.lit(_DASH), high))
        other = pl.concat_str(pl.lit(" · "), span, pl.lit(" h"))
    return pl.concat_str(pl.lit(f"{x_title} "), shown, other.fill_null(""))
