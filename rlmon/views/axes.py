"""What a page says under its charts about the x axis chosen: the runs an axis leaves out and why, and where the
tokens axis's counts come from (:mod:`rlmon.runs.axes`)."""

from __future__ import annotations

from collections.abc import Sequence

from rlmon.runs.axes import X_AXES, missing_for_axis
from rlmon.schema import HOURS, STEP
from rlmon.text import t
from rlmon.text.lang import join_list
from rlmon.views.model import ExperimentView

__all__ = ["X_AXES", "axis_notes"]


def axis_notes(views: Sequence[ExperimentView], x: str, lang: str) -> tuple[str, ...]:
    """The sentences that go with the ``x`` axis over ``views`` (plain text, names as views show them; empty on
    the step axis and when nothing needs saying).

    - Per reason, the runs left out (``Not on the tokens axis: E3 · GRPO (…).``).
    - On the tokens axis, where the counts come from, per source (and for which runs when the runs shown use
      different sources).
    - On a counting axis other than step and hours, that the counts start at each log's first training step.
    """
    if x == STEP or x not in X_AXES:
        return ()
    left_out: dict[str, list[str]] = {}
    sources: dict[str, list[str]] = {}
    for view in views:
        # elapsed_h is derived only from logged step times (rlmon.runs.metrics)
        reason = missing_for_axis(view.axis_facts, x, has_hours="elapsed_h" in view.columns)
        if reason is not None:
            left_out.setdefault(reason, []).append(view.label)
        elif x == "tokens" and view.axis_facts.token_source is not None:
            sources.setdefault(view.axis_facts.token_source, []).append(view.label)
    axis_name = t("x_" + x, lang)
    notes = [
        t("axis_left_out", lang, axis=axis_name, runs=join_list(runs, lang), missing=t(reason, lang))
        for reason, runs in left_out.items()
    ]
    for source, runs in sources.items():
        which = t("axis_tokens_runs", lang, runs=join_list(runs, lang)) if len(sources) > 1 else ""
        notes.append(t(f"axis_tokens_{'total' if source == 'total_num_tokens' else 'response'}", lang, runs=which))
    if x != HOURS and sum(len(runs) for runs in left_out.values()) < len(views):
        notes.append(t("axis_counted_from", lang))
    return tuple(notes)
