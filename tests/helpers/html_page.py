"""An HTML page read back as a browser would parse it: its tags with their attributes, its text, its scripts (for
tests of the report, which is one HTML file)."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from typing import Any

__all__ = ["Page", "parse"]


class Page(HTMLParser):
    """Every tag with its attributes, the text outside scripts, and the scripts' text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self._script: dict[str, str | None] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._script = dict(attrs)
            self.scripts.append((self._script, ""))

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._script = None

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            attrs, text = self.scripts[-1]
            self.scripts[-1] = (attrs, text + data)
        else:
            self.text.append(data)

    @property
    def all_text(self) -> str:
        return "".join(self.text)

    def data_block(self) -> dict[str, Any]:
        block = next(text for attrs, text in self.scripts if attrs.get("id") == "rlmon-data")
        return json.loads(block)  # type: ignore[no-any-return]


def parse(text: str) -> Page:
    page = Page()
    page.feed(text)
    page.close()
    return page
