"""The names experiments are shown by: short enough to read whole, and never two alike in one view.

An experiment's label is ``E2 · DAPO`` (its folder's ``E<n>`` code and its algorithm), a label from ``rlmon.toml``,
or its folder's name and its algorithm: ``amd-mi300-deepseek7b-grpo-gsm8k-2025-03 · GRPO`` for a folder of real
logs. :func:`experiment_names` gives every experiment of a view (the runs shown together: a track, or all of them)
the name the pages, the report, the summary and ``rlmon info`` show, computed once for the view:

* **Short**: a label's first part (before `` · ``) longer than :data:`HEAD_CHARS` keeps only what tells the run
  apart from the others in view (:func:`short_head`): its first word, the word where it first differs from each
  run it could be taken for (a run whose label ends alike: the algorithm tells the others apart), then as many
  of its words, in order, as fit; words left out read ``…``. ``amd-mi300-deepseek7b-grpo-gsm8k-2025-03 · GRPO``
  beside ``amd-mi300-deepseek7b-ppo-gsm8k-2025-03 · PPO`` reads ``amd-mi300-deepseek7b… · GRPO``.
* **Clean**: invisible characters (zero-width spaces, joiners, soft hyphens, variation selectors, tags, bidi
  controls) are taken out and white space runs read as one space (:func:`clean_name`).
* **Told apart**: names that still look the same (:func:`look_alike_key`: ``E1``, ``E1`` + U+200B and a Cyrillic
  ``Е1``) get `` (2)``, `` (3)``... in view order after the first: ``E1 · GRPO``, ``E1 · GRPO (2)``. The whole
  label and the id stay in the tooltip.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from rlmon.text.display import display_text

__all__ = ["HEAD_CHARS", "NameEntry", "clean_name", "experiment_names", "look_alike_key", "short_head", "spelled_out"]

HEAD_CHARS = 22
"""Characters of a label's first part (before `` · ``) kept whole; a longer one is shortened (:func:`short_head`)."""

_SPACES = re.compile(r"\s+")
_SEPARATORS = re.compile(r"([-_ /:]+)")
_ELLIPSIS = "…"
_PART = " · "

# Letters of other scripts drawn like Latin letters (Unicode's confusables for Cyrillic and Greek), and digits.
_LATIN_LOOKS = str.maketrans(
    "АВСЕНІЈКМОРЅТХУаеорсхуіјѕԁԛԝҮҺһӀӏԜ"  # Cyrillic
    "ΑΒΕΖΗΙΚΜΝΟΡΤΥΧοϲϳ",  # Greek
    "ABCEHIJKMOPSTXYaeopcxyijsdqwYhhIlWABEZHIKMNOPTYXocj",
)


def clean_name(text: str) -> str:
    """``text`` as a name is shown: :func:`rlmon.text.display.display_text` (bidi controls and characters that draw
    nothing out), then one line: control characters and runs of white space as one space, none at either end.

    >>> clean_name(" E1\\u200b\\n · GRPO ")
    'E1 · GRPO'
    """
    return _SPACES.sub(" ", display_text(text)).strip()


def look_alike_key(text: str) -> str:
    """What ``text`` looks like: the same key for names a reader cannot tell apart (invisible characters, NFKC
    compatibility forms such as full-width letters, Cyrillic and Greek letters drawn like Latin ones).

    >>> look_alike_key("E1") == look_alike_key("E1\\u200b") == look_alike_key("\\u04151") == look_alike_key("Ｅ1")
    True
    >>> look_alike_key("E1") == look_alike_key("e1")
    False
    """
    return unicodedata.normalize("NFKC", clean_name(text)).translate(_LATIN_LOOKS)


def spelled_out(text: str) -> str:
    """``text`` with every character a reader could not see or could take for another written out as its code
    point (``E1`` + U+200B -> ``E1[U+200B]``, a Cyrillic ``Е1`` -> ``[U+0415]1``): how a tooltip shows an id that
    looks like another.

    >>> spelled_out("E1\u200b"), spelled_out("\u04151"), spelled_out("e1_grpo")
    ('E1[U+200B]', '[U+0415]1', 'e1_grpo')
    """
    out = []
    for char in text:
        hidden = clean_name(char) != char.strip()
        plain = unicodedata.normalize("NFKC", char)
        out.append(
            f"[U+{ord(char):04X}]" if hidden or plain != char or plain.translate(_LATIN_LOOKS) != plain else char
        )
    return "".join(out)


@dataclass(frozen=True)
class NameEntry:
    """One experiment of a view, as :func:`experiment_names` reads it."""

    id: str
    label: str
    """Its whole label: ``E2 · DAPO``, ``amd-mi300-deepseek7b-grpo-gsm8k-2025-03 · GRPO``."""
    group: str = ""
    """Names are told apart within a group: the track when the view shows each name with its track."""


def _words(head: str) -> tuple[list[str], list[str]]:
    """(words, separators): ``separators[k]`` stands before ``words[k]`` (``separators[0]`` is empty)."""
    pieces = _SEPARATORS.split(head)
    words = pieces[0::2]
    separators = ["", *pieces[1::2]]
    if words and not words[0]:  # a head starting with a separator: it belongs to the first word
        words, separators = words[1:], separators[1:]
        if words:
            words[0] = pieces[1] + words[0]
            separators[0] = ""
    return words, separators


def _render(words: Sequence[str], separators: Sequence[str], kept: set[int]) -> str:
    out: list[str] = []
    last = -1
    for index in sorted(kept):
        if out:
            out.append(separators[index] if index == last + 1 else _ELLIPSIS)
        out.append(words[index])
        last = index
    if last < len(words) - 1:
        out.append(_ELLIPSIS)
    return "".join(out)


def short_head(head: str, others: Sequence[str], *, limit: int = HEAD_CHARS) -> str:
    """A label's first part, shortened to what tells it apart from ``others`` (the first parts of the labels it
    could be taken for), as words of ``head`` in order, ``…`` where words are left out.

    Kept: the first word; for each of ``others``, the first word where ``head`` differs from it; then the words
    that follow, in order, while the name stays within ``limit`` characters. A head within ``limit`` is kept whole.

    >>> short_head("amd-mi300-deepseek7b-grpo-gsm8k-2025-03", [])
    'amd-mi300-deepseek7b…'
    >>> short_head("ehl-qwen25-05b-ppo-gsm8k-resp256-v0.1-2024-12", ["ehl-qwen25-05b-ppo-gsm8k-v0.1-2024-12"])
    'ehl-qwen25…resp256…'
    """
    if len(head) <= limit:
        return head
    words, separators = _words(head)
    if len(words) < 2:
        return head
    kept = {0}
    for other in others:
        other_words, _ = _words(other)
        differ = next(
            (index for index, word in enumerate(words) if index >= len(other_words) or other_words[index] != word),
            None,
        )
        if differ is not None:
            kept.add(differ)
    for index in range(1, len(words)):
        if index in kept:
            continue
        if len(_render(words, separators, kept | {index})) > limit:
            break
        kept.add(index)
    return _render(words, separators, kept)


def _split_label(label: str) -> tuple[str, str]:
    head, sep, rest = label.partition(_PART)
    return head, sep + rest


def experiment_names(entries: Sequence[NameEntry], *, limit: int = HEAD_CHARS) -> dict[str, str]:
    """Experiment id -> the name it is shown by in a view of ``entries`` (in view order): cleaned
    (:func:`clean_name`), its first part shortened (:func:`short_head`, against the runs whose label ends alike),
    and `` (2)``, `` (3)``... after names that look like an earlier one of the same group (:func:`look_alike_key`).

    >>> names = experiment_names([NameEntry("a/E1", "E1 · GRPO"), NameEntry("b/E1\\u200b", "E1\\u200b · GRPO"),
    ...                           NameEntry("c/\\u04151", "\\u04151 · GRPO")])
    >>> list(names.values())
    ['E1 · GRPO', 'E1 · GRPO (2)', 'Е1 · GRPO (3)']
    """
    cleaned = [(entry, *_split_label(clean_name(entry.label))) for entry in entries]
    names: dict[str, str] = {}
    for entry, head, rest in cleaned:
        if len(head) <= limit:
            names[entry.id] = head + rest
            continue
        # the runs it could be taken for: those whose label ends alike (another algorithm tells the others apart)
        others = [other_head for other, other_head, other_rest in cleaned if other is not entry and other_rest == rest]
        names[entry.id] = short_head(head, others, limit=limit) + rest
    taken: set[tuple[str, str]] = set()
    for entry in entries:
        name, count = names[entry.id], 1
        while (entry.group, look_alike_key(name)) in taken:
            count += 1
            name = f"{names[entry.id]} ({count})"
        taken.add((entry.group, look_alike_key(name)))
        names[entry.id] = name
    return names
