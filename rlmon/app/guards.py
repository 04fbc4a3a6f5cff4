"""Guards between a page and the browser: text shown literally in markdown, page parts that fail alone.

:func:`guarded` runs a page part and turns :class:`~rlmon.errors.RlmonError` into an in-page message with the
path, and any other exception into a short message; tracebacks go to the server log (:data:`LOG`) only.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping

import streamlit as st

from rlmon.errors import RlmonError
from rlmon.logs.parse import TracebackText
from rlmon.text import display, t
from rlmon.text.markdown import escape_markdown_text

__all__ = ["LOG", "escape_markdown", "guarded"]

LOG = logging.getLogger("rlmon.app")
"""The app's log: what goes wrong in a page goes here (tracebacks never go to the browser)."""
LOG.addFilter(TracebackText())


def escape_markdown(text: str, *, limit: int | None = None, paths: Mapping[str, str] = display.NO_PATHS) -> str:
    """``text`` shown literally wherever Streamlit renders markdown (``st.markdown``, captions, notices, widget
    labels, expander labels, page titles, pills): markdown syntax, HTML, LaTeX and ``:shortcodes:`` escaped, no
    URL, ``www.`` name or e-mail address left for the autolinker (:func:`rlmon.text.markdown.escape_markdown_text`:
    an invisible word joiner, U+2060, after a colon before a word or ``/``, in ``www.`` and before ``@``), bidi
    controls taken out, cut to ``limit`` characters and the folders of ``paths`` shown by their public names
    (:func:`rlmon.text.display.display_text`: an object-storage mirror as its ``s3://`` URL).

    Every piece of text from folders, ``rlmon.toml`` or logs that reaches markdown goes through this.

    >>> escape_markdown("![t](http://h/p.png) :smile:")
    '\\\\!\\\\[t\\\\]\\\\(http\\\\:\\u2060//h/p\\\\.png\\\\) \\\\:\\u2060smile\\\\:'
    """
    return escape_markdown_text(display.display_text(str(text), limit=limit, paths=paths))


def guarded(render: Callable[[], None], *, lang: str, paths: Mapping[str, str] = display.NO_PATHS) -> None:
    """Run a page part; an :class:`RlmonError` becomes ``st.error`` with its path, anything else a short
    message (the traceback goes to the server log, never to the browser). A path in the error is shown by its
    public name (``paths``)."""
    try:
        render()
    except RlmonError as error:
        st.error(escape_markdown(error.describe(), paths=paths))
    except Exception as error:
        LOG.exception("rlmon page part failed")
        st.error(t("unexpected_error", lang, kind=type(error).__name__))
