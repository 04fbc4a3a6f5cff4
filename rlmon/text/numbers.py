"""Numbers as rlmon shows them to people: one family of ``format_*`` functions, each taking the language.

Rules every function here keeps:

* a missing or non-finite number reads :data:`~rlmon.text.messages.UNKNOWN` (``–``), in every language;
* a count moves up a unit once its figure in the smaller unit would round to the bigger one, so 999.6 reads
  ``1.0k`` (not ``1000``) and 999,950 reads ``1.0M`` (not ``1000.0k``); English counts in k/M/G, Chinese in
  千/万/亿;
* words (``h``, ``小时``) come from the message catalog's ``fmt_*`` templates.

>>> format_count(5123, "en"), format_count(51000, "zh"), format_hours(32.56, "en"), format_duration(4.39, "zh")
('5.1k', '5.1万', '32.6h', '4小时23分')
>>> format_score(0.8333, "en"), format_percent(88.84, "en"), format_value(0.0042, "en"), format_band(0.13, 0.26, "en")
('0.833', '88.8%', '0.0042', '0.1–0.3')
"""

from __future__ import annotations

import math
import time

from rlmon.text.messages import UNKNOWN, t

__all__ = [
    "UNKNOWN",
    "format_band",
    "format_clock",
    "format_count",
    "format_duration",
    "format_hours",
    "format_percent",
    "format_progress",
    "format_range",
    "format_score",
    "format_size",
    "format_value",
    "format_whole",
]


_COUNT_UNITS: dict[str, tuple[tuple[float, str], ...]] = {
    "en": ((1e3, "k"), (1e6, "M"), (1e9, "G")),
    "zh": ((1e3, "千"), (1e4, "万"), (1e8, "亿")),
}
"""Count units per language, smallest first."""


def _finite(value: float | None) -> bool:
    return value is not None and isinstance(value, int | float) and math.isfinite(value)


def _strip(text: str) -> str:
    return text.rstrip("0").rstrip(".") if "." in text else text


def format_count(value: float | None, lang: str) -> str:
    """A count for people: ``512``, ``5.1k``, ``16.4k``, ``1.2M`` (``5.1千``, ``5.1万``, ``1.2亿``).

    Below the first unit the count is whole (``999.4`` -> ``999``); from there one decimal of the largest unit
    the figure reaches once rounded (the module's rule).

    Examples
    --------
    >>> format_count(999.4, "en"), format_count(999.6, "en"), format_count(1_234_567, "en"), format_count(None, "en")
    ('999', '1.0k', '1.2M', '–')
    >>> format_count(5100, "zh"), format_count(9_960, "zh"), format_count(123_456_789, "zh")
    ('5.1千', '1.0万', '1.2亿')
    """
    if value is None or not _finite(value):
        return UNKNOWN
    size = abs(value)
    chosen: tuple[float, str] | None = None
    # Each unit starts half a last digit of the unit below short of it: 999.5 (whole numbers round up to 1000),
    # then 999,950 (999.95k would read 1000.0k).
    precision = 1.0
    for unit, name in _COUNT_UNITS.get(lang, _COUNT_UNITS["en"]):
        if size < unit - precision / 2:
            break
        chosen = (unit, name)
        precision = unit / 10
    if chosen is None:
        return f"{value:.0f}"
    unit, name = chosen
    return f"{value / unit:.1f}{name}"


def format_whole(value: int | None, lang: str) -> str:
    """An exact whole number, where each unit counts (a sample's tokens): ``12,345`` in either language.

    >>> format_whole(12345, "en"), format_whole(7, "zh"), format_whole(None, "en")
    ('12,345', '7', '–')
    """
    return UNKNOWN if value is None else f"{value:,}"


def format_hours(hours: float | None, lang: str) -> str:
    """Hours with one decimal: ``32.6h`` / ``32.6 小时``."""
    if hours is None or not _finite(hours):
        return UNKNOWN
    return t("fmt_hours", lang, value=f"{hours:.1f}")


def format_duration(hours: float | None, lang: str) -> str:
    """A duration for people: ``4h23m``, ``45m``, ``30s``, ``2d3h`` (``4小时23分`` ...).

    A negative duration reads as none (``0s``): a clock step back is not a time to show.

    Examples
    --------
    >>> format_duration(32 + 33 / 60, "en"), format_duration(0.75, "en"), format_duration(50.5, "zh")
    ('32h33m', '45m', '2天2小时')
    """
    if hours is None or not _finite(hours):
        return UNKNOWN
    seconds = max(0, round(hours * 3600))
    if seconds < 60:
        return t("fmt_duration_s", lang, s=seconds)
    minutes = round(seconds / 60)
    if minutes < 60:
        return t("fmt_duration_m", lang, m=minutes)
    whole, rest = divmod(minutes, 60)
    if whole >= 48:
        days, whole = divmod(whole, 24)
        return t("fmt_duration_d", lang, d=days, h=whole)
    return t("fmt_duration_hm", lang, h=whole, m=rest)


def format_clock(seconds: float, *, now: float | None = None, with_seconds: bool = False) -> str:
    """A moment as a clock shows it, in the server's time zone: ``08:01`` today, else ``2026-07-16 08:01`` (the
    same in every language); ``08:01:25`` ``with_seconds``."""
    moment = time.localtime(seconds)
    today = time.localtime(time.time() if now is None else now)
    clock = "%H:%M:%S" if with_seconds else "%H:%M"
    if moment[:3] == today[:3]:
        return time.strftime(clock, moment)
    return time.strftime("%Y-%m-%d " + clock, moment)


def format_progress(done: int, total: int | None, lang: str) -> str:
    """How far a run has come: ``21/150``, ``1,120/1,120``; ``1,120 steps`` (``1,120 步``) when its total is unknown.

    >>> format_progress(21, 150, "en"), format_progress(1120, None, "en"), format_progress(1, None, "zh")
    ('21/150', '1,120 steps', '1 步')
    """
    if total is None:
        return t("fmt_steps_one" if done == 1 else "fmt_steps", lang, count=format_whole(done, lang))
    return f"{format_whole(done, lang)}/{format_whole(total, lang)}"


def format_percent(value: float | None, lang: str, *, digits: int = 1) -> str:
    """A value already in percent: ``88.8%``."""
    if value is None or not _finite(value):
        return UNKNOWN
    return f"{value:.{digits}f}%"


def format_score(value: float | None, lang: str) -> str:
    """A validation score or an entropy, three decimals: ``0.833``."""
    if value is None or not _finite(value):
        return UNKNOWN
    return f"{value:.3f}"


def format_size(size: int | None, lang: str) -> str:
    """A file size: ``512 B``, ``12.3 KB``, ``4.5 MB``."""
    if size is None:
        return UNKNOWN
    value = float(size)
    for unit in ("B", "KB", "MB"):
        if value < 1024:
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"


def format_value(value: float | None, lang: str) -> str:
    """Any metric value, short: ``0.96``, ``1.13``, ``0.1``, ``0.0042``, ``37``, ``5.1k``, ``nan``, ``inf``.

    Two decimals (trailing zeros dropped) between 0.01 and 100, two significant digits below,
    :func:`format_count` from 1000 up; ``nan`` and ``inf`` as they are, since a metric that logged them says so.

    Examples
    --------
    >>> format_value(0.30, "en"), format_value(37.0, "en"), format_value(5123.0, "en"), format_value(-math.inf, "en")
    ('0.3', '37', '5.1k', '-inf')
    """
    if value is None:
        return UNKNOWN
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    size = abs(value)
    if size >= 999.5:
        return format_count(value, lang)
    if size >= 100:
        return f"{value:.0f}"
    if size >= 0.01 or size == 0:
        return _strip(f"{value:.2f}")
    return f"{value:.2g}"


def format_range(low: float | None, high: float | None, lang: str, *, unit: str = "") -> str:
    """``0.1–0.3``, ``88.8–91.1%`` (pass ``unit="%"`` and values in percent).

    Percent ranges use one decimal, other ranges :func:`format_value`.
    """
    if low is None or high is None or not (_finite(low) and _finite(high)):
        return UNKNOWN
    if unit == "%":
        return f"{low:.1f}–{high:.1f}%"
    return f"{format_value(low, lang)}–{format_value(high, lang)}{unit}"


def _round_out(value: float, *, up: bool) -> str:
    """``value`` rounded away from the band's inside at its own leading digit (0.13 down -> 0.1, 0.26 up -> 0.3)."""
    if value == 0:
        return "0"
    exponent = math.floor(math.log10(abs(value)))
    unit = 10.0**exponent
    # The epsilon keeps 0.3 (stored as 0.30000000000000004) from rounding up to 0.4.
    scaled = math.ceil(value / unit - 1e-9) if up else math.floor(value / unit + 1e-9)
    return _strip(f"{scaled * unit:.{max(0, -exponent)}f}")


def format_band(low: float | None, high: float | None, lang: str) -> str:
    """A typical range as a person would say it: each bound rounded outward at its leading digit.

    Used for "otherwise 0.1–0.3": 0.13–0.26 reads ``0.1–0.3``, 2.3–6.02 ``2–7``, 0.003–0.07 ``0.003–0.07``,
    0.58–2.09 ``0.5–3``.
    """
    if low is None or high is None or not (_finite(low) and _finite(high)):
        return UNKNOWN
    return f"{_round_out(low, up=False)}–{_round_out(high, up=True)}"
