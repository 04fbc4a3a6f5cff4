"""Samples: what the model wrote, from verl's validation prints and generation dumps (rlmon.logs.samples).

Browse one experiment's samples by step, data source, score and text; compare one prompt across two steps,
or across two experiments at the same step, side by side. Text from logs is shown as text (``st.code``, which
keeps line breaks, in monospace); markdown and math are rendered only when the visitor asks, through the
sanitiser descriptions go through too (:func:`rlmon.text.markdown.safe_markdown`: a link shown as its text and
target, no image, HTML or autolink). The experiment comes from ``?id=`` (the overview's links) or the picker.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st

from rlmon.app import guards, state
from rlmon.app import samples as sample_rows
from rlmon.text import display, t
from rlmon.text.markdown import safe_markdown
from rlmon.views import model
from rlmon.views import samples as view_samples

app = state.app_state()
lang = state.lang()
settings = app.settings
ALL = "\x00all"
"""The "all" choice of a filter (None would show as no choice at all once the page reruns)."""
LIMIT = 30
"""Samples shown at once in the browse tab (each may be 30,000 characters long)."""
CODE_HEIGHT = 360
"""Pixels a long prompt or response takes before it scrolls."""
# Material icons: a headless or minimal system may lack an emoji font
OUTCOME_ICONS = {True: ":green[:material/check_circle:]", False: ":red[:material/cancel:]", None: ""}


def show_text(text: str, *, markdown: bool, key: str) -> None:
    if markdown:
        with st.container(height=CODE_HEIGHT if len(text) > 2000 else "content", key=key):
            st.markdown(safe_markdown(text, links=False, math=True))
    else:
        st.code(
            text,
            language=None,
            wrap_lines=True,
            height=CODE_HEIGHT if text.count("\n") > 14 or len(text) > 2000 else "content",
        )


def sample_card(card: view_samples.SampleCard, *, markdown: bool, key: str) -> None:
    """One sample: its header, the prompt (collapsed), the response, the ground truth and other fields."""
    with st.container(border=True, key=key):
        # the header is rlmon's own words and numbers; the file name is escaped
        where = guards.escape_markdown(card.where, limit=display.NAME_LIMIT)
        st.markdown(f"{OUTCOME_ICONS[card.passed]} **{card.header}** · {where}")
        with st.expander(t("samples_prompt", lang)):
            st.code(
                card.prompt,
                language=None,
                wrap_lines=True,
                height=CODE_HEIGHT if len(card.prompt) > 2000 else "content",
            )
        st.caption(t("samples_response", lang))
        show_text(card.response, markdown=markdown, key=f"{key}_md")
        st.caption(t("samples_ground_truth", lang))
        st.code(card.ground_truth, language=None, wrap_lines=True)
        if card.extra is not None:
            st.caption(t("samples_extra", lang))
            st.code(card.extra, language=None, wrap_lines=True)


def browse(samples: view_samples.SampleSet, markdown: bool) -> None:
    choices = view_samples.browse_choices(samples)
    step_col, source_col, outcome_col, search_col = st.columns([1, 1, 1, 2], vertical_alignment="bottom")
    linked = st.session_state.pop("_samples_linked_step", None)
    if linked is not None and linked.isdigit() and int(linked) in choices.steps:
        st.session_state["samples_step"] = int(linked)
    if st.session_state.get("samples_step") not in (ALL, *choices.steps):
        st.session_state["samples_step"] = ALL

    def all_or(value: Any) -> str:
        return t("samples_all", lang) if value == ALL else display.display_text(str(value))

    with step_col:
        step = st.selectbox(t("samples_step", lang), [ALL, *choices.steps], key="samples_step", format_func=all_or)
    with source_col:
        source = st.selectbox(
            t("samples_data_source", lang), [ALL, *choices.sources], key="samples_source",
            disabled=not choices.sources, format_func=all_or,
        )  # fmt: skip
    with outcome_col:
        outcome = st.selectbox(
            t("samples_outcome", lang), [ALL, "pass", "fail"], key="samples_outcome",
            format_func=lambda value: t("samples_all" if value == ALL else f"samples_{value}", lang),
        )  # fmt: skip
    with search_col:
        text = st.text_input(t("samples_search", lang), key="samples_search", max_chars=200)
    shown = view_samples.browse(
        samples, step=step if isinstance(step, int) else None, data_source=None if source == ALL else source,
        outcome=None if outcome == ALL else outcome, text=text or "", limit=LIMIT, lang=lang,
    )  # fmt: skip
    st.caption(shown.count)
    for index, card in enumerate(shown.cards):
        sample_card(card, markdown=markdown, key=f"samples_card_{index}")
    if shown.more is not None:
        st.caption(shown.more)


def prompt_picker(prompts: Sequence[str], key: str) -> str:
    return str(
        st.selectbox(t("samples_pick_prompt", lang), list(prompts), key=key, format_func=view_samples.prompt_label)
    )


def side_by_side(sides: Sequence[view_samples.Side], *, markdown: bool, key: str) -> None:
    for column, item, where in zip(st.columns(2), sides, ("left", "right"), strict=True):
        with column:
            st.markdown(f"**{guards.escape_markdown(item.title)}**")
            sample_card(item.card, markdown=markdown, key=f"{key}_{where}")


def across_steps(samples: view_samples.SampleSet, markdown: bool) -> None:
    prompts = view_samples.prompts_at_several_steps(samples)
    if not prompts:
        st.info(t("samples_one_step", lang))
        return
    prompt = prompt_picker(prompts, "samples_steps_prompt")
    steps = view_samples.prompt_steps(samples, prompt)
    left_col, right_col = st.columns(2)
    with left_col:
        left = st.selectbox(t("samples_left", lang), steps, index=0, key="samples_steps_left")
    with right_col:
        right = st.selectbox(t("samples_right", lang), steps, index=len(steps) - 1, key="samples_steps_right")
    sides = [view_samples.side(samples, prompt, step, lang=lang) for step in (left, right)]
    side_by_side(sides, markdown=markdown, key="samples_steps_card")


def across_experiments(
    view: model.ExperimentView, samples: view_samples.SampleSet, listed: Sequence[model.ExperimentView], markdown: bool
) -> None:
    others = sample_rows.shared_sample_sets(samples, [item for item in listed if item.id != view.id], settings)
    if not others:
        st.info(t("samples_no_other", lang))
        return
    labels = {item.id: item.label for item in listed}
    other_id = st.selectbox(t("samples_other", lang), list(others), key="samples_other", format_func=labels.__getitem__)
    theirs = others[other_id]
    # the prompts both printed, latest first
    prompt = prompt_picker(view_samples.prompts_latest_first(theirs), "samples_other_prompt")
    my_steps = view_samples.prompt_steps(samples, prompt)
    their_steps = view_samples.prompt_steps(theirs, prompt)
    common = sorted(set(my_steps) & set(their_steps))
    if common:
        step = st.selectbox(t("samples_step", lang), common, index=len(common) - 1, key="samples_other_step")
        my_step = their_step = step
    else:
        st.caption(t("samples_no_common_step", lang))
        my_step, their_step = view_samples.pair_steps(my_steps, their_steps)
    sides = [
        view_samples.side(samples, prompt, my_step, lang=lang, label=view.label),
        view_samples.side(theirs, prompt, their_step, lang=lang, label=labels[other_id]),
    ]
    side_by_side(sides, markdown=markdown, key="samples_pair_card")


PICKED_AFTER_LINK = "_samples_picked_after_link"
"""Session key: the ``?id=`` of the link the visitor picked another experiment after (its notice is gone)."""


def link_notice(asked: str) -> None:
    """Why a link's experiment (``?id=``) is not shown: hidden, unreadable, or not under the log roots."""
    unreadable = app.unreadable_notice(asked, lang)
    if asked in app.hidden_ids:
        st.info(app.hidden_notice(asked, lang), icon=":material/visibility_off:")
    elif unreadable is not None:
        st.error(unreadable, icon=":material/error:")
    else:
        shown_id = guards.escape_markdown(asked, limit=display.NAME_LIMIT)
        st.warning(t("samples_unknown_experiment", lang, id=shown_id), icon=":material/link_off:")


def page() -> None:
    listed = [view for view in app.views if view.id not in app.hidden_ids]
    if not listed:
        st.info(t("samples_no_experiments", lang))
        return
    ids = [view.id for view in listed]
    asked = st.query_params.get("id")
    asked_step = st.query_params.get("step")
    if asked is not None and asked not in ids and st.session_state.get(PICKED_AFTER_LINK) != asked:
        link_notice(asked)
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
            t("samples_experiment", lang), ids, key="samples_experiment", format_func=lambda value: labels[value],
            on_change=lambda: st.session_state.__setitem__(PICKED_AFTER_LINK, asked),
        )  # fmt: skip
    with markdown_col:
        markdown = st.toggle(t("samples_markdown", lang), key="samples_markdown", help=t("samples_markdown_help", lang))
    view = next(item for item in listed if item.id == chosen_id)
    samples = sample_rows.sample_set(view, settings)
    for folder in samples.refused:
        st.warning(
            t("samples_dump_outside", lang, folder=guards.escape_markdown(folder, paths=app.paths)),
            icon=":material/folder_off:",
        )
    if samples.is_empty:
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
        guards.guarded(lambda: across_experiments(view, samples, listed, markdown), lang=lang, paths=app.paths)


guards.guarded(page, lang=lang, paths=app.paths)
