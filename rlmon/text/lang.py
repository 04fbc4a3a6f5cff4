"""The languages rlmon speaks and the punctuation each one writes, decided here and nowhere else.

English joins sentences with a space and puts a space before an opening parenthesis; Chinese writes full-width
punctuation (``（）``, ``：``, ``；``, ``、``) with no space around it. Code that assembles text from pieces asks
the functions here instead of testing ``lang == "zh"``.

>>> join_list(["E1", "E2", "E3"], "en"), join_list(["E1", "E2", "E3"], "zh")
('E1, E2 and E3', 'E1、E2、E3')
>>> parenthesized("moving average", "10 steps", "en"), parenthesized("移动平均", "10 步", "zh")
('moving average (10 steps)', '移动平均（10 步）')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "LANGUAGES",
    "LANGUAGE_NAMES",
    "Lang",
    "Punctuation",
    "join_clauses",
    "join_items",
    "join_list",
    "join_sentences",
    "join_steps",
    "join_values",
    "labelled",
    "language_from_locale",
    "parenthesized",
    "punctuation",
]

Lang = Literal["en", "zh"]
LANGUAGES: tuple[Lang, ...] = ("en", "zh")
"""Every language rlmon writes; every message of the catalog has a template in each."""
LANGUAGE_NAMES: dict[Lang, str] = {"en": "English", "zh": "中文"}
"""Each language in its own words, for the language picker."""


@dataclass(frozen=True)
class Punctuation:
    """How one language joins the pieces of a text."""

    sentence_space: str
    """Between two sentences."""
    list_sep: str
    """Between the items of a list of clauses (``A, B`` / ``A，B``)."""
    value_sep: str
    """Between names or values in a list (``A, B`` / ``A、B``)."""
    last_sep: str
    """Before the last name of a list (``A, B and C`` / ``A、B、C``)."""
    clause_sep: str
    """Between clauses of one sentence (``A; B`` / ``A；B``)."""
    step_sep: str
    """Between step numbers (``33, 43 and 167`` / ``33/43/167``); empty: as a list of names."""
    open_paren: str
    close_paren: str
    colon: str


_PUNCTUATION: dict[str, Punctuation] = {
    "en": Punctuation(
        sentence_space=" ",
        list_sep=", ",
        value_sep=", ",
        last_sep=" and ",
        clause_sep="; ",
        step_sep="",
        open_paren=" (",
        close_paren=")",
        colon=": ",
    ),
    "zh": Punctuation(
        sentence_space="",
        list_sep="，",
        value_sep="、",
        last_sep="、",
        clause_sep="；",
        step_sep="/",
        open_paren="（",
        close_paren="）",
        colon="：",
    ),
}


def punctuation(lang: str) -> Punctuation:
    """The punctuation of ``lang`` (English for a language rlmon does not speak)."""
    return _PUNCTUATION.get(lang, _PUNCTUATION["en"])


def language_from_locale(locale: str | None, *, default: str = "en") -> str:
    """``zh`` for a Chinese browser locale (``zh-CN``, ``zh_TW``), ``en`` for English, else ``default``.

    >>> language_from_locale("zh_TW"), language_from_locale("fr-FR"), language_from_locale(None, default="zh")
    ('zh', 'en', 'zh')
    """
    if not locale:
        return default
    prefix = locale.replace("_", "-").split("-")[0].lower()
    return prefix if prefix in LANGUAGES else default


def join_list(items: Sequence[str], lang: str) -> str:
    """Names as a sentence lists them: ``A, B and C`` / ``A、B、C``; one item as it is."""
    if len(items) <= 1:
        return "".join(items)
    marks = punctuation(lang)
    return marks.value_sep.join(items[:-1]) + marks.last_sep + items[-1]


def join_values(items: Sequence[str], lang: str) -> str:
    """Values side by side: ``0.96, 1.13`` / ``0.96、1.13``."""
    return punctuation(lang).value_sep.join(items)


def join_steps(steps: Sequence[str], lang: str) -> str:
    """Step numbers: ``33``, ``33 and 43``, ``33, 43 and 167`` / ``33/43/167``."""
    separator = punctuation(lang).step_sep
    return separator.join(steps) if separator else join_list(steps, lang)


def join_items(items: Sequence[str], lang: str) -> str:
    """Clauses listed in one sentence: ``A, B`` / ``A，B``."""
    return punctuation(lang).list_sep.join(items)


def join_clauses(clauses: Sequence[str], lang: str) -> str:
    """Clauses of one sentence: ``A; B`` / ``A；B``."""
    return punctuation(lang).clause_sep.join(clauses)


def join_sentences(sentences: Sequence[str], lang: str) -> str:
    """Whole sentences one after the other: ``A. B.`` / ``A。B。``."""
    return punctuation(lang).sentence_space.join(sentences)


def parenthesized(text: str, note: str, lang: str) -> str:
    """``text (note)`` / ``text（note）``."""
    marks = punctuation(lang)
    return f"{text}{marks.open_paren}{note}{marks.close_paren}"


def labelled(label: str, text: str, lang: str) -> str:
    """``label: text`` / ``label：text``."""
    return f"{label}{punctuation(lang).colon}{text}"
