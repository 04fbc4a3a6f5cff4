"""Samples: what the model wrote, from verl's validation prints and generation dumps (rlmon.logs.samples).

Browse one experiment's samples by step, data source, score and text; compare one prompt across two steps,
or across two experiments at the same step, side by side. Text from logs is shown as text (``st.code``, which
keeps line breaks, in monospace); markdown and math are rendered only when the visitor asks, through
:func:`rlmon.logs.samples.to_safe_markdown` (no links, images or HTML). The experiment comes from ``?id=`` (the
overview's links) or the picker.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import streamlit as st

from rlmon.app import guards, state
from rlmon.app import samples as sample_rows
from rlmon.errors import RlmonError
from rlmon.logs.samples import to_safe_markdown
from rlmon.text import display, t
from rlmon.views import model

if TYPE_CHECKING:  # the page holds the samples' frames, the app's functions look into them
    import polars as pl

app = state.app_state()
lang = state.lang()
settings = app.settings
ALL = "\x00all"
"""The "all" choice of a filter (None would show as no choice at all once the page reruns)."""
LIMIT = 30
"""Samples shown at once in the browse tab (each may be 30,000 characters long)."""
CODE_HEIGHT = 360
"""Pixels a long prompt or response takes before it scrolls."""


def samples_of(view: model.ExperimentView) -> pl.DataFrame:
    """The experiment's samples (raises RlmonError when a log cannot be read)."""
    return sample_rows.experiment_samples(view, settings)


def step_text(step: int | None) -> str:
    return t("samples_step_pending", lang) if step is None else t("samples_step_n", lang, step=step)


def length_text(row: dict[str, Any]) -> str:
    if row["response_tokens"] is not None:
        return t("samples_tokens", lang, count=f"{row['response_tokens']:,}")
    return t("samples_chars", lang, count=f"{len(row['response']):,}")


def header_text(row: dict[str, Any]) -> str:
    score = "–" if row["score"] is None else f"{row['score']:g}"
    parts = [step_text(row["step"])]
    if row["kind"]:
        parts.append(t(f"samples_kind_{row['kind']}", lang))
    parts += [
        t("samples_score", lang, score=score),
        length_text(row),
        t(f"samples_origin_{row['origin']}", lang),
    ]
    return " · ".join(parts)


def show_text(text: str, *, markdown: bool, key: str) -> None:
    if markdown:
        with st.container(height=CODE_HEIGHT if len(text) > 2000 else "content", key=key):
            st.markdown(to_safe_markdown(text))
    else:
        st.code(
            text,
            language=None,
            wrap_lines=True,
            height=CODE_HEIGHT if text.count("\n") > 14 or len(text) > 2000 else "content",
        )


def sample_card(row: dict[str, Any], *, markdown: bool, key: str) -> None:
    """One sample: its header, the prompt (collapsed), the response, the ground truth and other fields."""
    with st.container(border=True, key=key):
        passed = row["score"] is not None and row["score"] > 0
        # Material icons: a headless or minimal system may lack an emoji font
        icon = ":green[:material/check_circle:]" if passed else ""
        if row["score"] is not None and not passed:
            icon = ":red[:material/cancel:]"
        # the header is rlmon's own words and numbers; the file name is escaped
        where = guards.escape_markdown(f"{Path(row['file']).name}:{row['line']}", limit=display.NAME_LIMIT)
        st.markdown(f"{icon} **{header_text(row)}** · {where}")
        with st.expander(t("samples_prompt", lang)):
            st.code(
                row["prompt"],
                language=None,
                wrap_lines=True,
                height=CODE_HEIGHT if len(row["prompt"]) > 2000 else "content",
            )
        st.caption(t("samples_response", lang))
        show_text(row["response"], markdown=markdown, key=f"{key}_md")
        st.caption(t("samples_ground_truth", lang))
        st.code(row["ground_truth"] if row["ground_truth"] is not None else "–", language=None, wrap_lines=True)
        extra = extra_fields(row["extra"])
        if extra:
            st.caption(t("samples_extra", lang))
            st.code("\n".join(f"{name}: {value}" for name, value in extra), language=None, wrap_lines=True)


def extra_fields(extra: str | None) -> list[tuple[str, str]]:
    try:
        values = json.loads(extra or "{}")
    except ValueError:
        return []
    return [(str(name), str(value)) for name, value in values.items()] if isinstance(values, dict) else []


def prompt_label(prompt: str) -> str:
    """A prompt as one short line for a picker: its last non-empty lines (the question), cut."""
    lines = [line.strip() for line in prompt.splitlines() if line.strip()]
    tail = [line for line in lines if line.lower() not in ("assistant", "user", "system")]
    text = " ".join(tail[-2:] if tail else lines)[:120]
    return display.display_text(text) or "–"


def browse(samples: pl.DataFrame, markdown: bool) -> None:
    steps = sample_rows.sample_steps(samples)
    sources = sample_rows.sample_sources(samples)
    step_col, source_col, outcome_col, search_col = st.columns([1, 1, 1, 2], vertical_alignment="bottom")
    linked = st.session_state.pop("_samples_linked_step", None)
    if linked is not None and linked.isdigit() and int(linked) in steps:
        st.session_state["samples_step"] = int(linked)
    if st.session_state.get("samples_step") not in (ALL, *steps):
        st.session_state["samples_step"] = ALL

    def all_or(value: Any) -> str:
        return t("samples_all", lang) if value == ALL else display.display_text(str(value))

    with step_col:
        step = st.selectbox(t("samples_step", lang), [ALL, *steps], key="samples_step", format_func=all_or)
    with source_col:
        source = st.selectbox(
            t("samples_data_source", lang), [ALL, *sources], key="samples_source", disabled=not sources,
            format_func=all_or,
        )  # fmt: skip
    with outcome_col:
        outcome = st.selectbox(
            t("samples_outcome", lang), [ALL, "pass", "fail"], key="samples_outcome",
            format_func=lambda value: t("samples_all" if value == ALL else f"samples_{value}", lang),
        )  # fmt: skip
    with search_col:
        text = st.text_input(t("samples_search", lang), key="samples_search", max_chars=200)
    rows, total = sample_rows.browse_rows(
        samples, step=step if isinstance(step, int) else None, data_source=None if source == ALL else source,
        outcome=None if outcome == ALL else outcome, text=text or "", limit=LIMIT,
    )  # fmt: skip
    st.caption(t("samples_count", lang, shown=min(total, LIMIT), total=total))
    for index, row in enumerate(rows):
        sample_card(row, markdown=markdown, key=f"samples_card_{index}")
    if total > LIMIT:
        st.caption(t("samples_first", lang, limit=LIMIT))


def prompt_picker(prompts: Sequence[str], key: str) -> str:
    return str(st.selectbox(t("samples_pick_prompt", lang), list(prompts), key=key, format_func=prompt_label))


def side_by_side(
    left: dict[str, Any], right: dict[str, Any], *, markdown: bool, titles: tuple[str, str], key: str
) -> None:
    columns = st.columns(2)
    for column, row, title, side in zip(columns, (left, right), titles, ("left", "right"), strict=True):
        with column:
            st.markdown(f"**{guards.escape_markdown(title)}**")
            sample_card(row, markdown=markdown, key=f"{key}_{side}")


def across_steps(samples: pl.DataFrame, markdown: bool) -> None:
    prompts = sample_rows.prompts_at_several_steps(samples)
    if not prompts:
        st.info(t("samples_one_step", lang))
        return
    prompt = prompt_picker(prompts, "samples_steps_prompt")
    steps = sample_rows.prompt_steps(samples, prompt)
    left_col, right_col = st.columns(2)
    with left_col:
        left = st.selectbox(t("samples_left", lang), steps, index=0, key="samples_steps_left")
    with right_col:
        right = st.selectbox(t("samples_right", lang), steps, index=len(steps) - 1, key="samples_steps_right")
    pick = [sample_rows.sample_at(samples, prompt, step) for step in (left, right)]
    side_by_side(
        pick[0], pick[1], markdown=markdown, titles=(step_text(left), step_text(right)), key="samples_steps_card"
    )


def across_experiments(view: model.ExperimentView, samples: pl.DataFrame, markdown: bool) -> None:
    others: dict[str, pl.DataFrame] = {}
    for other in app.views:
        if other.id == view.id or other.id in app.hidden_ids:
            continue
        try:
            theirs = samples_of(other)
        except RlmonError:
            continue
        shared = sample_rows.shared_samples(samples, theirs)
        if shared is not None:
            others[other.id] = shared
    if not others:
        st.info(t("samples_no_other", lang))
        return
    labels = {item.id: item.label for item in app.views}
    other_id = st.selectbox(
        t("samples_other", lang),
        list(others),
        key="samples_other",
        format_func=lambda value: labels.get(value, value),
    )
    theirs = others[other_id]
    # the prompts both printed, latest first
    prompt = prompt_picker(sample_rows.prompts_latest_first(theirs), "samples_other_prompt")
    my_steps = set(sample_rows.prompt_steps(samples, prompt))
    their_steps = set(sample_rows.prompt_steps(theirs, prompt))
    common = sorted(my_steps & their_steps)
    if common:
        step = st.selectbox(t("samples_step", lang), common, index=len(common) - 1, key="samples_other_step")
        my_step = their_step = step
    else:
        st.caption(t("samples_no_common_step", lang))
        my_step = max(my_steps)
        their_step = min(their_steps, key=lambda value: abs(value - my_step))
    left = sample_rows.sample_at(samples, prompt, my_step)
    right = sample_rows.sample_at(theirs, prompt, their_step)
    side_by_side(
        left, right, markdown=markdown,
        titles=(f"{view.label} · {step_text(my_step)}", f"{labels.get(other_id, other_id)} · {step_text(their_step)}"),
        key="samples_pair_card",
    )  # fmt: skip


def page() -> None:
    listed = [view for view in app.views if view.id not in app.hidden_ids]
    if not listed:
        st.info(t("samples_no_experiments", lang))
        return
    ids = [view.id for view in listed]
    asked = st.query_params.get("id")
    asked_step = st.query_params.get("step")
    if asked in ids and st.session_state.get("_samples_seen_link") != (asked, asked_step):
        # a link (the overview's "latest samples"): its experiment, and its step once the steps are known
        st.session_state["samples_experiment"] = asked
        st.session_state["_samples_seen_link"] = (asked, asked_step)
        st.session_state["_samples_linked_step"] = asked_step
    if st.session_state.get("samples_experiment") not in ids:
        current = app.selected[0].id if app.selected else ids[0]
        st.session_state["samples_experiment"] = current
    labels = {view.id: view.label for view in listed}
    st.markdown(f"## {t('samples_title', lang)}")
    st.caption(t("samples_caption", lang))
    pick_col, markdown_col = st.columns([3, 2], vertical_alignment="bottom")
    with pick_col:
        chosen_id = st.selectbox(
            t("samples_experiment", lang), ids, key="samples_experiment", format_func=lambda value: labels[value]
        )
    with markdown_col:
        markdown = st.toggle(t("samples_markdown", lang), key="samples_markdown", help=t("samples_markdown_help", lang))
    view = next(item for item in listed if item.id == chosen_id)
    samples = samples_of(view)
    if samples.is_empty():
        st.info(t("samples_none", lang, name=guards.escape_markdown(view.label)), icon=":material/chat_bubble_outline:")
        return
    browse_tab, steps_tab, experiments_tab = st.tabs(
        [t("samples_tab_browse", lang), t("samples_tab_steps", lang), t("samples_tab_experiments", lang)]
    )
    with browse_tab:
        guards.guarded(lambda: browse(samples, markdown), lang=lang, paths=app.paths)
    with steps_tab:
        guards.guarded(lambda: across_steps(samples, markdown), lang=lang, paths=app.paths)
    with experiments_tab:
        guards.guarded(lambda: across_experiments(view, samples, markdown), lang=lang, paths=app.paths)


guards.guarded(page, lang=lang, paths=app.paths)
