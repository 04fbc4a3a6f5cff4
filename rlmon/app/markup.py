"""The HTML and CSS rlmon writes itself: colour chips, the sidebar legend. Colours are validated and every
other interpolated string is escaped.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence

from rlmon.runs.experiment import DASH_PATTERNS
from rlmon.text import display, format_progress, t, track_name
from rlmon.views import model
from rlmon.views.model import ExperimentView

__all__ = ["chip_css", "color_dot", "css_color", "legend_html", "roots_html", "swatch_css", "title_html"]


def chip_css(views: Sequence[ExperimentView], labels: Mapping[str, str]) -> str:
    """CSS colouring the experiment picker's chips with each experiment's colour.

    ``labels`` maps experiment id -> the text its chip shows. Every interpolated string is CSS-escaped;
    colours are validated ``#rrggbb``.
    """
    rules: list[str] = []
    for view in views:
        color = css_color(view.color)
        label = labels.get(view.id)
        if label is None:
            continue
        title = _css_string(label)
        rules.append(
            f'[data-testid="stSidebar"] span[data-tag][aria-label="{title}"]'
            f" {{ background-color: {color}; color: #ffffff; }}"
        )
    return "\n".join(rules)


def css_color(color: str) -> str:
    """``color`` when it is a hex colour (``#rgb`` / ``#rrggbb``), else grey: the only colour text put in CSS."""
    return color if re.fullmatch(r"#[0-9a-fA-F]{3}(?:[0-9a-fA-F]{3})?", color) else "#888888"


def _css_string(text: str) -> str:
    return "".join(char if char.isalnum() or char in " ·-_.,/" else f"\\{ord(char):x} " for char in text)


def color_dot(color: str, dash: int = 0) -> str:
    """An HTML coloured swatch (the colour is validated, nothing else is interpolated): a square, or for a run
    drawn dashed (``dash`` > 0, :data:`rlmon.runs.experiment.DASH_PATTERNS`) a short line in that dash."""
    safe = css_color(color)
    if dash:
        return (f'<span style="display:inline-block;flex:none;width:1.1em;height:0;'
                f'border-top:3px {_swatch_style(dash)} {safe}"></span>')  # fmt: skip
    return f'<span style="display:inline-block;width:0.75em;height:0.75em;border-radius:2px;background:{safe}"></span>'


def _swatch_style(dash: int) -> str:
    """The CSS border style closest to a dash pattern (CSS has two: dashed, dotted)."""
    return "dotted" if DASH_PATTERNS[dash % len(DASH_PATTERNS)][0] <= 2 else "dashed"


def swatch_css(color: str, dash: int = 0) -> str:
    """CSS declarations of a swatch drawn by ``::before`` (the highlight legend's chips), as :func:`color_dot`."""
    safe = css_color(color)
    if dash:
        return f"width: 1.1em; height: 0; border-top: 3px {_swatch_style(dash)} {safe}; vertical-align: middle;"
    return f"width: 0.8em; height: 0.8em; border-radius: 2px; background: {safe};"


def legend_html(views: Sequence[ExperimentView], lang: str, *, labels: Mapping[str, str] | None = None) -> str:
    """Colour chip, label, status glyph and progress of each experiment as HTML (labels escaped).

    ``labels`` maps id -> label (default :func:`display_labels` of ``views``)."""
    names = model.display_labels(views, lang) if labels is None else labels
    items = []
    for view in views:
        status = t("status_" + view.status, lang)
        progress = format_progress(view.experiment.steps_done, view.experiment.total_steps, lang)
        # A long name wraps anywhere (a name without spaces would widen the sidebar); the whole label is its
        # tooltip; unicode-bidi keeps right-to-left text from reordering the progress beside it.
        items.append(
            f'<div style="display:flex;gap:0.45em;align-items:center;font-size:0.86rem;line-height:1.5">'
            f'{color_dot(view.color, view.dash)}<span style="min-width:0;overflow-wrap:anywhere;'
            f'unicode-bidi:isolate" title="{html.escape(view.tooltip)}">{html.escape(names.get(view.id, view.label))}'
            f"</span>"
            f'<span style="margin-left:auto;color:#6b7280;white-space:nowrap" title="{html.escape(status)}">'
            f"{model.STATUS_GLYPHS.get(view.status, '')} {html.escape(progress)}</span></div>"
        )
    return "".join(items)


def roots_html(labels: Sequence[str], title: str) -> str:
    """The sidebar's note of where the logs come from: ``title``, then each root (all text escaped)."""
    root_list = "<br>".join(html.escape(display.display_text(label)) for label in labels)
    return (f'<div style="font-size:0.8rem;color:#6b7280;overflow-wrap:anywhere">'
            f"{html.escape(title)}:<br><code>{root_list}</code></div>")  # fmt: skip


def title_html(view: ExperimentView, lang: str) -> str:
    """An experiment page's title: its colour chip, its label and its algorithm and track (text escaped).

    Wrapped anywhere (a name without spaces must not widen the page), cut when very long: the whole label is
    the title's tooltip.
    """
    experiment = view.experiment
    chip = color_dot(view.color, view.dash).replace("0.75em", "1.1em")
    title = display.display_text(view.full_label, limit=2 * display.NAME_LIMIT)
    track = display.display_text(track_name(experiment.track, lang))
    algorithm = t("algorithm_unknown", lang) if experiment.algorithm.key == "unknown" else experiment.algorithm.name
    return (
        f'<div style="display:flex;flex-wrap:wrap;align-items:center;gap:0.6rem;margin:0.2rem 0 0.1rem 0">{chip}'
        f'<span style="font-size:2rem;font-weight:700;line-height:1.2;min-width:0;overflow-wrap:anywhere;'
        f'unicode-bidi:isolate" title="{html.escape(view.tooltip)}">{html.escape(title)}</span>'
        f'<span style="color:#6b7280;font-size:1.05rem;min-width:0;overflow-wrap:anywhere">'
        f"{html.escape(algorithm)} · {html.escape(track)}</span></div>"
    )
