"""Every word and number rlmon shows people, in English and Chinese.

Three modules, one job each:

* :mod:`rlmon.text.messages` — the message catalog (:data:`~rlmon.text.messages.MESSAGES`, grouped by where the
  words appear) and :func:`t`, which fills a message in the visitor's language;
* :mod:`rlmon.text.numbers` — the one ``format_*`` family (counts, whole numbers, hours, durations, percents,
  scores, sizes, values, ranges, bands), one glyph for anything unknown (:data:`~rlmon.text.messages.UNKNOWN`);
* :mod:`rlmon.text.lang` — the languages and their punctuation (lists, sentences, parentheses, colons).

Beside them, :mod:`rlmon.text.display` holds the display rules for text from folders and logs, and
:mod:`rlmon.text.names` the names experiments are shown by in a view (short, never two alike).

>>> t("status_running", "zh"), format_duration(4.39, "en"), join_list(["E1", "E2", "E3"], "en")
('运行中', '4h23m', 'E1, E2 and E3')
"""

from __future__ import annotations

from rlmon.text.lang import LANGUAGE_NAMES, LANGUAGES, Lang, join_list, language_from_locale, parenthesized
from rlmon.text.messages import MESSAGES, UNKNOWN, metric_title, setting_display, setting_label, t, track_name
from rlmon.text.numbers import (
    format_band,
    format_count,
    format_duration,
    format_hours,
    format_percent,
    format_progress,
    format_range,
    format_score,
    format_size,
    format_value,
    format_whole,
)

__all__ = [
    "LANGUAGES",
    "LANGUAGE_NAMES",
    "MESSAGES",
    "UNKNOWN",
    "Lang",
    "format_band",
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
    "join_list",
    "language_from_locale",
    "metric_title",
    "parenthesized",
    "setting_display",
    "setting_label",
    "t",
    "track_name",
]
