"""How rlmon shows text that comes from folders, ``rlmon.toml`` and logs: the display rules every page, table,
chart title and report applies.

* :func:`display_text`: bidi control characters taken out (each reorders the text around it), and so are
  characters that draw nothing (:func:`strip_invisible`: zero-width spaces and joiners, soft hyphens, variation
  selectors, tags), other control characters but the line break as spaces, a name cut at :data:`NAME_LIMIT`
  where space is short, and local folders written as the names people know them by (``paths``: an
  object-storage mirror's folder as its ``s3://`` URL, :class:`rlmon.sources.objstore.PublicPaths`).
* :func:`public_text`: only that last rule (the command line's output and error lines).
* :func:`without_bidi`: only the first rule (long text from a log: a sample's prompt and response).
* :func:`terminal_text`: bidi control characters written as their ``\\uXXXX`` escapes (what the command line
  prints: visible in text, and the same string once a JSON reader reads it).
* :func:`description_text`: an experiment's description in the reader's language.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType

from rlmon.text import MESSAGES, t

__all__ = [
    "NAME_LIMIT",
    "NO_PATHS",
    "description_text",
    "display_text",
    "public_text",
    "strip_invisible",
    "terminal_text",
    "without_bidi",
]

NAME_LIMIT = 80
"""Characters of a name (label, track, metric key, data source) shown where space is short: menus, chips,
legends, chart titles. Longer names are cut with an ellipsis."""
NO_PATHS: Mapping[str, str] = MappingProxyType({})
"""No folder to rename (no object-storage root in use)."""
_BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_NO_BIDI = dict.fromkeys(map(ord, _BIDI_CONTROLS))
_BIDI_ESCAPES = {ord(char): f"\\u{ord(char):04x}" for char in _BIDI_CONTROLS}
_DISPLAY = {
    **dict.fromkeys(map(ord, _BIDI_CONTROLS)),
    **{code: " " for code in [*range(0x00, 0x20), *range(0x7F, 0xA0)] if code != 0x0A},
}


_INVISIBLE = re.compile(
    "[\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200d\u2060-\u2064\u206a-\u206f\u3164"
    "\ufe00-\ufe0f\ufeff\uffa0\U0001d173-\U0001d17a\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
)
"""Characters that draw nothing: zero-width spaces and joiners, the soft hyphen, Hangul fillers, variation
selectors, invisible operators, tags."""


def strip_invisible(text: str) -> str:
    """``text`` without the characters that draw nothing, so a name never hides one (``E1`` + U+200B reads as
    ``E1``, and is told apart from ``E1`` by :func:`rlmon.text.names.experiment_names`).

    >>> strip_invisible("E1\u200b\u00ad")
    'E1'
    """
    return _INVISIBLE.sub("", text)


def public_text(text: str, paths: Mapping[str, str]) -> str:
    """``text`` with every folder of ``paths`` replaced by its public name, in ``paths``' order (longest folder
    first, as :class:`rlmon.sources.objstore.PublicPaths` keeps them, so a folder inside another is replaced
    whole).

    >>> public_text("/cache/objects/ab12/verl/e1/train.log: cut short", {"/cache/objects/ab12/verl": "s3://runs/verl"})
    's3://runs/verl/e1/train.log: cut short'
    """
    for folder, url in paths.items():
        if folder in text:
            text = text.replace(folder, url)
    return text


def without_bidi(text: str) -> str:
    r"""``text`` without its bidi control characters, nothing else changed (tabs and line breaks stay).

    >>> without_bidi("evil\u202e\tlive")
    'evil\tlive'
    """
    return text.translate(_NO_BIDI)


def terminal_text(text: str) -> str:
    r"""``text`` as the command line prints it: each bidi control character written as its escape (``\u202e``),
    so a name that would read backwards in a terminal shows what it holds, and JSON output stays the same data.

    >>> print(terminal_text("e4_\u202egnp.exe"))
    e4_\u202egnp.exe
    """
    return text.translate(_BIDI_ESCAPES)


def display_text(text: str, *, limit: int | None = None, paths: Mapping[str, str] = NO_PATHS) -> str:
    """``text`` as rlmon shows names from folders and logs: without bidi control characters (U+202A-U+202E,
    U+2066-U+2069, U+200E/U+200F, U+061C: each reorders the text around it), other control characters but
    the line break as spaces, and cut to ``limit`` characters with an ellipsis. A folder of ``paths`` reads as
    its public name (:func:`public_text`: an object-storage mirror's folder as its ``s3://`` URL).

    >>> display_text("e4_\u202egnp.exe")
    'e4_gnp.exe'
    >>> display_text("E3_" + "long" * 750, limit=12)
    'E3_longlong…'
    """
    shown = strip_invisible(public_text(str(text), paths).translate(_DISPLAY))
    if limit is not None and len(shown) > limit:
        return shown[: limit - 1] + "…"
    return shown


def description_text(description: str, *, algorithm: str, algorithm_description: str, lang: str) -> str:
    """An experiment's description in ``lang``: the team's ``rlmon.toml`` text (``description``) as written,
    else rlmon's own description of its ``algorithm`` (``algo_<key>`` in :mod:`rlmon.text.messages`) in the
    reader's language; ``""`` when there is neither.

    ``algorithm_description`` is rlmon's English description of that algorithm: a ``description`` word for
    word that text is rlmon's own, and is translated.
    """
    key = f"algo_{algorithm}"
    if description and description == algorithm_description and key in MESSAGES:
        return t(key, lang)
    return description
