"""The one markdown sanitiser (rlmon.text.markdown): descriptions in the app and the report, samples on request.

Expected outputs are written by hand from the rules in the module's docstring; the browser side (no request
leaves the page, no <img>, no autolinked <a>) is tests/browser/test_hostile.py.
"""

from __future__ import annotations

import html as _html
import re

import pytest
from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode

from rlmon.text.markdown import escape_markdown_text, safe_html, safe_markdown

WJ = "\u2060"
EXTERNAL = "http://127.0.0.2:9"


def rendered(markdown: str) -> str:
    """``markdown`` as HTML, read as Streamlit's renderer reads it (CommonMark with strikethrough)."""
    return MarkdownIt("commonmark").enable("strikethrough").render(markdown).strip()


def nodes(markdown: str) -> list[SyntaxTreeNode]:
    """Every node of ``markdown`` as a CommonMark renderer reads it, in document order."""
    return list(SyntaxTreeNode(MarkdownIt("commonmark").parse(markdown)).walk())


def test_the_autolinker_finds_no_url_address_or_www_name() -> None:
    escaped = escape_markdown_text("see http://127.0.0.2/phish www.x.example/x WWW.Y.example a@b.example")
    assert escaped == (
        f"see http\\:{WJ}//127\\.0\\.0\\.2/phish www{WJ}\\.x\\.example/x WWW{WJ}\\.Y\\.example a{WJ}@b\\.example"
    )
    # with the joiners out and the escapes read, it is the text as written
    assert (
        escaped.replace(WJ, "").replace("\\", "")
        == "see http://127.0.0.2/phish www.x.example/x WWW.Y.example a@b.example"
    )


def test_a_description_keeps_what_a_team_needs() -> None:
    text = "**DAPO** with *clip-higher*, ~~KL~~ and `loss_agg_mode=token-mean`:\n\n- one\n- two\n  1. nested"
    assert safe_markdown(text, links=True, math=False) == (
        "**DAPO** with *clip\\-higher*, ~~KL~~ and `loss_agg_mode=token-mean`\\:\n\n- one\n- two\n  1. nested"
    )


def test_links_written_as_text_and_url_stay_links_showing_their_target() -> None:
    shown = safe_markdown("[wiki](https://wiki.example/grpo) and [same](https://s.example)", links=True, math=False)
    assert shown == (
        f"[wiki](<https://wiki.example/grpo>) :gray[(https\\:{WJ}//wiki\\.example/grpo)] and "
        f"[same](<https://s.example>) :gray[(https\\:{WJ}//s\\.example)]"
    )
    # a link whose words are its target is shown once
    assert safe_markdown("[https://s.example](https://s.example)", links=True, math=False) == (
        f"[https\\:{WJ}//s\\.example](<https://s.example>)"
    )
    # samples: no link at all, its words and target as text
    assert safe_markdown("[wiki](https://wiki.example/g)", links=False, math=True) == (
        f"wiki (https\\:{WJ}//wiki\\.example/g)"
    )


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        # images: the alt text stays, as text; inline, by reference, nested in a link
        (f"![diagram]({EXTERNAL}/p.png)", "diagram"),
        (f"![ref][r]\n\n[r]: {EXTERNAL}/r.png", "ref"),
        (
            f"[![x]({EXTERNAL}/i.png)](https://l.example)",
            f"[x](<https://l.example>) :gray[(https\\:{WJ}//l\\.example)]",
        ),
        # raw HTML is the text it is
        (f"<img src={EXTERNAL}/x> <b>b</b>", f"\\<img src=http\\:{WJ}//127\\.0\\.0\\.2\\:{WJ}9/x\\> \\<b\\>b\\</b\\>"),
        ("<div>\n<script>alert(1)</script>\n</div>", "\\<div\\>\n\\<script\\>alert\\(1\\)\\</script\\>\n\\</div\\>"),
        # autolinks and bare addresses are text the autolinker does not take
        (f"<{EXTERNAL}/a>", f"http\\:{WJ}//127\\.0\\.0\\.2\\:{WJ}9/a"),
        ("<ops@corp.example>", f"ops{WJ}@corp\\.example"),
        ("www.x.example/x", f"www{WJ}\\.x\\.example/x"),
        # links to other schemes, or relative ones, are text with their target
        ("[run](javascript:alert(1))", "\\[run\\]\\(javascript\\:" + WJ + "alert\\(1\\)\\)"),
        ("[notes](notes.md)", "notes (notes\\.md)"),
        # bidi controls are taken out
        ("E4 \u202eevil\u2066", "E4 evil"),
        # a heading is a strong paragraph; math is text in a description
        ("# Title", "**Title**"),
        ("$x^2$ costs $5", "\\$x^2\\$ costs \\$5"),
    ],
)
def test_what_a_description_loses(written: str, shown: str) -> None:
    assert safe_markdown(written, links=True, math=False) == shown


def test_no_image_and_only_the_written_links_reach_the_renderer() -> None:
    hostile = (
        f"![a]({EXTERNAL}/a.png) [![b]({EXTERNAL}/b.png)](https://ok.example) <{EXTERNAL}/c> "
        f'<img src="{EXTERNAL}/d"> [e]: {EXTERNAL}/e.png\n\n![e] [f](<{EXTERNAL}/f>) [g](https://ok.example "t")'
    )
    for links in (True, False):
        rendered = nodes(safe_markdown(hostile, links=links, math=True))
        assert not [node for node in rendered if node.type == "image"]
        hrefs = [str(node.attrs["href"]) for node in rendered if node.type == "link"]
        assert hrefs == (["https://ok.example", f"{EXTERNAL}/f", "https://ok.example"] if links else [])


def test_code_is_kept_verbatim_and_closed() -> None:
    assert safe_markdown("```py\nx = `a` ```\n```", links=True, math=False) == "````\nx = `a` ```\n````"
    assert safe_markdown("a ``x`y`` b", links=True, math=False) == "a ``x`y`` b"
    # Streamlit reads ":material/home:" as an icon even in code: a word joiner keeps it text
    assert safe_markdown("`:material/home:`", links=True, math=False) == f"`:{WJ}material/home:`"


def test_math_in_samples_is_left_to_katex() -> None:
    assert safe_markdown("$\\frac{a_1}{*b*}$ and $$x_2$$ and *y*", links=False, math=True) == (
        "$\\frac{a_1}{*b*}$ and $$x_2$$ and *y*"
    )
    # a lone dollar is text
    assert safe_markdown("costs $5", links=False, math=True) == "costs \\$5"


def test_the_report_gets_the_same_rules_as_html() -> None:
    written = (
        f"**GRPO** ![i]({EXTERNAL}/p.png) <{EXTERNAL}/a> <b>x</b> [wiki](https://wiki.example/g) "
        "[j](notes.md) \u202eevil\n\n1. `one`\n2. two"
    )
    assert safe_html(written, links=True) == (
        f"<p><strong>GRPO</strong> i {EXTERNAL}/a &lt;b&gt;x&lt;/b&gt; "
        '<a href="https://wiki.example/g" rel="noopener noreferrer" target="_blank">wiki</a> '
        '<span class="link-target">(https://wiki.example/g)</span> j (notes.md) evil</p>'
        '<ol start="1"><li><code>one</code></li><li>two</li></ol>'
    )


IMAGE = f"![]({EXTERNAL}/p.png)"


@pytest.mark.parametrize(
    ("written", "shown", "html"),
    [
        # Repro: `*x*_y_` came out as `*x**y*`, one emphasis "x**y"
        ("*x*_y_", "*x*_y_", "<p><em>x</em><em>y</em></p>"),
        ("_x_*y*", "_x_*y*", "<p><em>x</em><em>y</em></p>"),
        ("**x**__y__", "**x**__y__", "<p><strong>x</strong><strong>y</strong></p>"),
        (
            "*x*__y__ and _a_ *b*",
            "*x*__y__ and _a_ *b*",
            "<p><em>x</em><strong>y</strong> and <em>a</em> <em>b</em></p>",
        ),
        # what was one emphasis stays one, its stars text
        ("*x**y*", "*x\\*\\*y*", "<p><em>x**y</em></p>"),
        # emphasis in emphasis, and a word's inner emphasis
        ("*_x_*", "*_x_*", "<p><em><em>x</em></em></p>"),
        ("***x** y*", "***x** y*", "<p><em><strong>x</strong> y</em></p>"),
        ("un*frigging*believable", "un*frigging*believable", "<p>un<em>frigging</em>believable</p>"),
        # marks that come to touch once an image is gone get a word joiner between them
        (f"*x*{IMAGE}*y*", "*x*&#x2060;*y*", f"<p><em>x</em>{WJ}<em>y</em></p>"),
        (f"~~x~~{IMAGE}~~y~~", "~~x~~&#x2060;~~y~~", f"<p><s>x</s>{WJ}<s>y</s></p>"),
        # an `_` that comes to stand beside a letter (the image's alt text) is written `*`
        (f"_x_![i]({EXTERNAL}/p.png)", "*x*i", "<p><em>x</em>i</p>"),
        # the word joiner before "@" stays a character reference next to a mark, which still closes
        ("_x_@y.example", "_x_&#x2060;@y\\.example", f"<p><em>x</em>{WJ}@y.example</p>"),
        ("**x**@y", "**x**&#x2060;@y", f"<p><strong>x</strong>{WJ}@y</p>"),
    ],
)
def test_emphasis_is_shown_as_written(written: str, shown: str, html: str) -> None:
    # what was written renders as asserted, but for the image (its alt text) and the word joiner
    as_written = re.sub(r'<img src="[^"]*" alt="([^"]*)" />', r"\1", rendered(written))
    assert as_written == html.replace(WJ, "")
    assert safe_markdown(written, links=True, math=False) == shown
    assert rendered(shown) == html


@pytest.mark.parametrize(
    "name",
    [
        "**x**",
        "[a](b)",
        "$x$ y$",
        "$$x$$",
        "&lt;b&gt; &amp; &#x41; &copy;",
        "_u_ ~~s~~ \\*t\\* #h",
        "<b>b</b> <!-- c -->",
        "1. not a list",
        "- not a list",
        "> not a quote",
        "e9_" + "verylongname" * 20,
    ],
)
def test_a_name_is_rendered_as_the_text_it_is(name: str) -> None:
    # Names a folder or rlmon.toml may hold: markdown, LaTeX, HTML entities (they must stay "&lt;", not become
    # "<"), block syntax at the start of a line, one long word
    html = rendered(escape_markdown_text(name))
    assert re.fullmatch(r"<p>[^<]*</p>", html), html  # one paragraph of text: no tag, no entity decoded
    assert _html.unescape(html.removeprefix("<p>").removesuffix("</p>")).replace(WJ, "") == name
