"""Markdown from outside rlmon, made safe to show: the one sanitiser for an ``rlmon.toml`` description (in the app
and the report) and for a sample's text on the samples page when the visitor asks for markdown.

The text is parsed as CommonMark (:mod:`markdown_it`, raw HTML off) and written out again keeping only what a
team needs and nothing that can fetch, run or hide anything:

* kept: paragraphs, emphasis, strong, strikethrough, inline code, code blocks, lists, quotes, rules; headings
  become a strong paragraph (a description must not outshout the page);
* links written as ``[text](url)`` stay links when ``links`` is true, and only to ``http``, ``https`` or
  ``mailto`` targets, each shown after its text as ``(target)`` so a reader sees where it goes; otherwise (and
  for any other target) the text and the target are shown as text;
* dropped: images (their alt text stays, as text), raw HTML (shown as the text it is), autolinks (``<http://…>``,
  bare URLs and ``www.`` names stay text that no renderer turns into a link), bidi control characters;
* ``$…$`` math is kept when ``math`` is true (KaTeX, as Streamlit runs it, renders no link nor image).

:func:`safe_markdown` writes the result as markdown for Streamlit, :func:`safe_html` as HTML for the report.
Every piece of text is escaped for its target by :func:`escape_markdown_text` (markdown) or :func:`html.escape`.

Streamlit's markdown (remark-gfm) turns ``http://…``, ``www.…`` and ``name@host.tld`` in *text* into links, after
escapes are read (``http\\://`` still links): :func:`escape_markdown_text` puts an invisible word joiner (U+2060)
after the colon of ``://``, between ``www`` and its dot, and before ``@``, where the autolinker no longer sees a
URL; the text reads the same.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from functools import cache

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from markdown_it.tree import SyntaxTreeNode

from rlmon.text.display import without_bidi

__all__ = ["LINK_SCHEMES", "escape_markdown_text", "safe_html", "safe_markdown"]

LINK_SCHEMES = ("http", "https", "mailto")
"""The targets a kept link may have; any other (``javascript:``, ``data:``, a relative path) is shown as text."""

_MARKDOWN_SYNTAX = re.compile(r"([\\`*_{}\[\]<>()#+\-.!|~$&:])")
# Streamlit turns ":material/name:" into an icon before markdown sees a backslash, and ":name:" into an emoji
# after it (in the text, escapes gone); an invisible word joiner after the colon leaves neither a shortcode,
# and after the colon of "://" no URL for the autolinker.
_AFTER_COLON = re.compile(r"\\:(?=[\w+/-])")
_WWW_DOT = re.compile(r"(?i)(www)(\\\.)")
_WORD_JOINER = "\u2060"
_MARKS_APART = "&#x2060;"
"""What goes between two emphasis marks that would touch: a word joiner, written as a character reference so that
each mark has punctuation (``&``, ``;``) beside it in the source, where it opens and closes as it would beside
the other mark alone."""


def escape_markdown_text(text: str) -> str:
    """``text`` shown literally where Streamlit renders markdown: its markdown syntax, HTML, LaTeX and
    ``:shortcodes:`` escaped, and nothing in it turned into a link by the autolinker (a word joiner, U+2060,
    after a colon followed by a word or ``/``, between ``www`` and its dot, and before ``@``).

    Pure escaping: the caller takes bidi controls out first (:func:`rlmon.text.display.display_text`).

    >>> escape_markdown_text("see http://h.example/p www.x.example a@b.example")
    'see http\\\\:\\u2060//h\\\\.example/p www\\u2060\\\\.x\\\\.example a\\u2060@b\\\\.example'
    """
    escaped = _MARKDOWN_SYNTAX.sub(r"\\\1", text)
    escaped = _AFTER_COLON.sub(lambda match: match.group(0) + _WORD_JOINER, escaped)
    escaped = _WWW_DOT.sub(lambda match: match.group(1) + _WORD_JOINER + match.group(2), escaped)
    return escaped.replace("@", _WORD_JOINER + "@")


def safe_markdown(text: str, *, links: bool, math: bool) -> str:
    r"""``text`` (markdown from a team or a log) as markdown Streamlit can render safely (see the module).

    Parameters
    ----------
    text
        The markdown as written.
    links
        Keep ``[text](url)`` links to http, https and mailto targets as links (their target shown after them);
        False shows every link as its text and target, as text.
    math
        Keep ``$…$`` and ``$$…$$`` math; False shows the dollars as text.

    Examples
    --------
    >>> print(safe_markdown("**bold** ![x](http://h/p.png) [wiki](https://w.example/a)", links=True, math=False))
    **bold** x [wiki](<https://w.example/a>) :gray[(https\:⁠//w\.example/a)]
    """
    tree = SyntaxTreeNode(_parser(math).parse(without_bidi(text)))
    return _MarkdownWriter(links=links).blocks(tree.children).strip("\n")


def safe_html(text: str, *, links: bool) -> str:
    """``text`` (markdown from a team) as HTML for a page that must stay safe (the report); the same rules as
    :func:`safe_markdown`, math shown as text.

    >>> safe_html("*a* <b>b</b> [w](https://w.example) [r](notes.md)", links=True)
    '<p><em>a</em> &lt;b&gt;b&lt;/b&gt; <a href="https://w.example" rel="noopener noreferrer" target="_blank">w</a> \
<span class="link-target">(https://w.example)</span> r (notes.md)</p>'
    """
    tree = SyntaxTreeNode(_parser(False).parse(without_bidi(text)))
    return _HtmlWriter(links=links).blocks(tree.children)


# --------------------------------------------------------------------------------------------------- parsing


@cache
def _parser(math: bool) -> MarkdownIt:
    parser = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("strikethrough")
    if math:
        parser.inline.ruler.before("escape", "math", _math_rule)
    return parser


def _math_rule(state: StateInline, silent: bool) -> bool:
    """``$…$`` / ``$$…$$`` as remark-math reads them (like a code span: a run of dollars closed by a run of the
    same length), kept whole as a ``math`` token so nothing inside is read as markdown."""
    start = state.pos
    if state.src[start] != "$":
        return False
    opening = start
    while opening < state.posMax and state.src[opening] == "$":
        opening += 1
    run = opening - start
    search = opening
    while True:
        close = state.src.find("$" * run, search, state.posMax)
        if close < 0:
            return False
        end = close + run
        while end < state.posMax and state.src[end] == "$":
            end += 1
        if end - close == run:
            break
        search = end
    if close == opening:
        return False
    if not silent:
        token = state.push("math", "", 0)
        token.content = state.src[opening:close]
        token.markup = "$" * run
    state.pos = close + run
    return True


def _link_target(node: SyntaxTreeNode) -> str | None:
    """The target of a link node when it may stay a link: written as ``[text](url)`` (not an autolink), to an
    allowed scheme; else None."""
    href = str(node.attrs.get("href", ""))
    if node.markup == "autolink" or node.info == "auto":
        return None
    scheme = href.split(":", 1)[0].lower() if ":" in href else ""
    return href if scheme in LINK_SCHEMES else None


def _plain(node: SyntaxTreeNode) -> str:
    """The text a node shows, without its formatting (an image's alt text, a link's words)."""
    if node.type in ("text", "code_inline", "math"):
        return node.content
    if node.type in ("softbreak", "hardbreak"):
        return " "
    return "".join(_plain(child) for child in node.children)


# --------------------------------------------------------------------------------------------------- writing


class _Writer:
    """A parsed tree -> text, block by block and span by span (the two writers below say how)."""

    def __init__(self, *, links: bool) -> None:
        self.links = links

    def blocks(self, nodes: list[SyntaxTreeNode]) -> str:
        return "".join(self.block(node) for node in nodes)

    def inline(self, nodes: list[SyntaxTreeNode]) -> str:
        return "".join(self.span(node) for node in nodes)

    def block(self, node: SyntaxTreeNode) -> str:
        raise NotImplementedError

    def span(self, node: SyntaxTreeNode) -> str:
        raise NotImplementedError


class _MarkdownWriter(_Writer):
    """A parsed tree -> markdown for Streamlit; every text escaped by :func:`escape_markdown_text`.

    Emphasis is written with the marks the text used (``*x*`` or ``_x_``, ``**`` or ``__``): the parser read them
    as emphasis there, and the text around them is escaped without changing what a mark can do (a punctuation
    mark stays punctuation behind its backslash). Three things could still change it, and are taken care of:

    * an ``_`` mark that comes to stand beside a letter or digit (``_x_![i](u)`` keeps only the image's ``i``:
      ``_x_i``) cannot open or close inside a word; ``*`` can, and is written instead;
    * two marks of one kind that come to touch (``*x*`` then ``*y*``, from ``*x*_y_``) would be read as one run
      (``*x**y*`` is one emphasis): an invisible word joiner goes between them (:data:`_MARKS_APART`);
    * the word joiner :func:`escape_markdown_text` puts before ``@`` is neither space nor punctuation, so a mark
      just before it could no longer close (``_x_@y``): it is written as a character reference there too.
    """

    def inline(self, nodes: list[SyntaxTreeNode]) -> str:
        parts = [self.span(node) for node in nodes]
        for index, node in enumerate(nodes):
            if node.type in ("em", "strong") and node.markup.startswith("_"):
                before = parts[index - 1][-1:] if index else ""
                after = parts[index + 1][:1] if index + 1 < len(parts) else ""
                if before.isalnum() or after.isalnum():
                    parts[index] = self.emphasis(node, star=True)
        written = ""
        for part in parts:
            written = _apart(written, part)
        return written

    def emphasis(self, node: SyntaxTreeNode, *, star: bool = False) -> str:
        if node.type == "s":
            mark = "~~"
        else:
            mark = node.markup if node.markup in ("_", "__") and not star else "*" * (1 + (node.type == "strong"))
        return mark + self.inline(node.children) + mark

    def block(self, node: SyntaxTreeNode) -> str:
        kind = node.type
        if kind == "paragraph":
            return self.inline(node.children) + "\n\n"
        if kind == "heading":
            return "**" + self.inline(node.children) + "**\n\n"
        if kind in ("bullet_list", "ordered_list"):
            return self.list_block(node) + "\n"
        if kind == "blockquote":
            inner = self.blocks(node.children).strip("\n")
            return "\n".join("> " + line if line else ">" for line in inner.split("\n")) + "\n\n"
        if kind in ("fence", "code_block"):
            fence = "`" * max(3, _longest_run(node.content, "`") + 1)
            return f"{fence}\n{node.content.rstrip(chr(10))}\n{fence}\n\n"
        if kind == "hr":
            return "---\n\n"
        return self.blocks(node.children)

    def list_block(self, node: SyntaxTreeNode) -> str:
        number = int(node.attrs.get("start", 1) or 1)
        items = []
        for index, item in enumerate(node.children):
            marker = f"{number + index}. " if node.type == "ordered_list" else "- "
            tight = any(child.type == "paragraph" and child.hidden for child in item.children)
            parts = [self.block(child).strip("\n") for child in item.children]
            inner = ("\n" if tight else "\n\n").join(part for part in parts if part) or " "
            lines = inner.split("\n")
            # a tight list's paragraphs are hidden: one line each; a loose list keeps its blank lines
            shown = [marker + lines[0], *(" " * len(marker) + line if line else "" for line in lines[1:])]
            items.append("\n".join(shown))
        return "\n".join(items) + "\n"

    def span(self, node: SyntaxTreeNode) -> str:
        kind = node.type
        if kind == "inline":
            return self.inline(node.children)
        if kind == "text":
            return escape_markdown_text(node.content)
        if kind == "softbreak":
            return "\n"
        if kind == "hardbreak":
            return "  \n"
        if kind in ("em", "strong", "s"):
            return self.emphasis(node)
        if kind == "code_inline":
            return _code_span(node.content)
        if kind == "math":
            return node.markup + node.content + node.markup
        if kind == "image":
            return escape_markdown_text(_plain(node))
        if kind == "link":
            return self.link(node)
        return escape_markdown_text(_plain(node))

    def link(self, node: SyntaxTreeNode) -> str:
        words = self.inline(node.children)
        href = str(node.attrs.get("href", ""))
        target = _link_target(node)
        shown_target = escape_markdown_text(href)
        if target is None or not self.links:
            if node.markup == "autolink" or node.info == "auto" or _plain(node) == href:
                return words
            return f"{words} ({shown_target})"
        link = f"[{words}](<{target}>)"
        return link if _plain(node) == href else f"{link} :gray[({shown_target})]"


class _HtmlWriter(_Writer):
    """A parsed tree -> HTML; every text escaped by :func:`html.escape`."""

    def block(self, node: SyntaxTreeNode) -> str:
        kind = node.type
        if kind == "paragraph":
            if node.hidden:  # a tight list's item: no paragraph of its own
                return self.inline(node.children)
            return f"<p>{self.inline(node.children)}</p>"
        if kind == "heading":
            return f"<p><strong>{self.inline(node.children)}</strong></p>"
        if kind == "bullet_list":
            return f"<ul>{self.blocks(node.children)}</ul>"
        if kind == "ordered_list":
            start = int(node.attrs.get("start", 1) or 1)
            return f'<ol start="{start}">{self.blocks(node.children)}</ol>'
        if kind == "list_item":
            return f"<li>{self.blocks(node.children)}</li>"
        if kind == "blockquote":
            return f"<blockquote>{self.blocks(node.children)}</blockquote>"
        if kind in ("fence", "code_block"):
            return f"<pre><code>{html.escape(node.content)}</code></pre>"
        if kind == "hr":
            return "<hr>"
        return self.blocks(node.children)

    def span(self, node: SyntaxTreeNode) -> str:
        kind = node.type
        tags: dict[str, Callable[[str], str]] = {
            "em": lambda inner: f"<em>{inner}</em>",
            "strong": lambda inner: f"<strong>{inner}</strong>",
            "s": lambda inner: f"<s>{inner}</s>",
        }
        if kind == "inline":
            return self.inline(node.children)
        if kind in tags:
            return tags[kind](self.inline(node.children))
        if kind == "softbreak":
            return "\n"
        if kind == "hardbreak":
            return "<br>"
        if kind == "code_inline":
            return f"<code>{html.escape(node.content)}</code>"
        if kind == "link":
            return self.link(node)
        return html.escape(_plain(node))

    def link(self, node: SyntaxTreeNode) -> str:
        words = self.inline(node.children)
        href = str(node.attrs.get("href", ""))
        target = _link_target(node)
        if target is None or not self.links:
            if node.markup == "autolink" or node.info == "auto" or _plain(node) == href:
                return words
            return f"{words} ({html.escape(href)})"
        link = f'<a href="{html.escape(target)}" rel="noopener noreferrer" target="_blank">{words}</a>'
        return link if _plain(node) == href else f'{link} <span class="link-target">({html.escape(href)})</span>'


def _apart(left: str, right: str) -> str:
    """``left`` then ``right``, with a word joiner written as a character reference between when an emphasis mark
    ends ``left`` and the same mark or a word joiner starts ``right`` (see :class:`_MarkdownWriter`); an escaped
    mark (``\\*``) is text and needs none."""
    if not left or not right or left[-1] not in "*_~" or _escaped_end(left):
        return left + right
    if right[0] == left[-1]:
        return left + _MARKS_APART + right
    if right[0] == _WORD_JOINER:
        return left + _MARKS_APART + right[1:]
    return left + right


def _escaped_end(text: str) -> bool:
    """Whether the last character of ``text`` (markdown) is escaped by a backslash."""
    backslashes = len(text[:-1]) - len(text[:-1].rstrip("\\"))
    return backslashes % 2 == 1


def _longest_run(text: str, char: str) -> int:
    runs = re.findall(re.escape(char) + "+", text)
    return max((len(run) for run in runs), default=0)


def _code_span(content: str) -> str:
    """``content`` as an inline code span: fenced by more backticks than it holds in a row, padded when it
    starts or ends with a backtick; a colon before a word gets a word joiner (Streamlit reads ``:material/…:``
    as an icon even in code)."""
    fence = "`" * (_longest_run(content, "`") + 1)
    padded = f" {content} " if content.startswith("`") or content.endswith("`") else content
    padded = re.sub(r":(?=[\w+/-])", ":" + _WORD_JOINER, padded)
    return f"{fence}{padded}{fence}"
