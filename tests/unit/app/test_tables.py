"""The experiments table's name column (rlmon.app.tables): as wide as its names need, wrapping a name wider than its
cap so every name is shown whole, and the header's help listing the whole names. Widths worked by hand from the
per-character estimates of ``_char_px`` (lower case 6.9 px, ``m`` 11.2, upper case 8.4, digits 7, ``·`` and spaces
3.6, CJK 14) and the cell's 26 px of padding."""

from __future__ import annotations

from rlmon.app.tables import NAME_COLUMN_MAX_PX, name_column_px, name_lines, whole_names_help, wrapped_row_px


def test_the_name_column_is_as_wide_as_its_widest_name() -> None:
    # "E1 · GRPO": E 8.4 + 1 7.0 + three 3.6 + four capitals 8.4 = 59.8, + 26 = 85.8: the least width wins
    assert name_column_px(["E1 · GRPO"], 150) == 150
    # twenty "m" are 224 px, + 26 = 250
    assert name_column_px(["E1 · GRPO", "m" * 20], 120) == 250
    # thirty are 336 + 26 = 362: past the cap, the column is the cap (the name wraps)
    assert NAME_COLUMN_MAX_PX == 320
    assert name_column_px(["m" * 30], 120) == 320
    # CJK: 21 characters are 294 + 26 = 320, one line; 22 are 334
    assert name_column_px(["实" * 21], 120) == 320
    assert name_column_px([], 150) == 150


def test_a_name_past_the_cap_wraps_to_the_lines_it_needs() -> None:
    # a line holds 320 - 26 - 40 (a word break's slack) = 254 px of text
    assert name_lines(["m" * 26]) == 1  # 291.2 + 26 = 317.2: fits on one line
    assert name_lines(["m" * 30]) == 2  # 336 / 254 = 1.3
    assert name_lines(["m" * 60]) == 3  # 672 / 254 = 2.6
    assert name_lines(["m" * 100]) == 3  # 4.4 lines, at most 3
    assert name_lines(["实" * 21]) == 1
    assert name_lines(["实" * 22]) == 2  # 308 + 26 = 334
    assert name_lines([]) == 1
    # rows taller than 64 px wrap their text: two lines in 66 px, three in 86
    assert (wrapped_row_px(2), wrapped_row_px(3)) == (66, 86)


def test_the_header_help_lists_each_shortened_name_with_its_whole_label() -> None:
    names = ["amd-mi300-deepseek7b… · GRPO", "E1 · GRPO"]
    wholes = ["amd-mi300-deepseek7b-grpo-gsm8k-2025-03 · GRPO", "E1 · GRPO"]
    assert whole_names_help(names, wholes, "en") == (
        "Long names are shown by the part that tells the runs apart; whole, with their ids:\n\n"
        "- amd\\-mi300\\-deepseek7b… · GRPO: amd\\-mi300\\-deepseek7b\\-grpo\\-gsm8k\\-2025\\-03 · GRPO"
    )  # markdown: each "-" escaped (a "- " would start a list), shown as written
    assert whole_names_help(names, wholes, "zh").startswith("较长的名称只显示能区分各实验的部分；完整名称与 id：\n\n- ")
    # no name shortened: how to open a page
    assert whole_names_help(["E1 · GRPO"], ["E1 · GRPO"], "en") == "Click a row to open the experiment's page."
    # markdown in a name is shown as written
    assert whole_names_help(["a*b…"], ["a*b*c"], "en").endswith("- a\\*b…: a\\*b\\*c")
    # thirty listed, the rest counted
    many = [f"run{index}…" for index in range(32)]
    listed = whole_names_help(many, [f"run{index}-whole" for index in range(32)], "en").split("\n")
    assert listed[2:4] == ["- run0…: run0\\-whole", "- run1…: run1\\-whole"]
    assert len(listed) == 2 + 30 + 1 and listed[-1] == "- and 2 more"
