"""The names experiments are shown by (rlmon.text.names): short, clean, never two alike in one view. Expected names
follow the rule by hand: the first word, the word where a run of the same algorithm first differs, then the words in
order while the name stays within 22 characters, ``…`` for the words left out."""

from __future__ import annotations

from rlmon.text.display import display_text
from rlmon.text.names import NameEntry, clean_name, experiment_names, look_alike_key, short_head, spelled_out

# Folder names of the shape a root of downloaded public runs has (the nine-run track; made up after the ids
# it quotes: amd-mi300-deepseek7b-grpo…, aopd-opd-grpo…, houkawa-…, rlinsight-…).
UNRELATED = [
    ("amd-mi300-deepseek7b-grpo-gsm8k-2025-03", "GRPO"),
    ("amd-mi300-deepseek7b-ppo-gsm8k-2025-03", "PPO"),
    ("aopd-opd-grpo-qwen3-8b-math-2025-11", "GRPO"),
    ("aopd-opd-grpo-qwen3-8b-code-2025-11", "GRPO"),
    ("houkawa-grpo-qwen2.5-7b-countdown-run1", "GRPO"),
    ("houkawa-grpo-qwen2.5-7b-countdown-run2", "GRPO"),
    ("rlinsight-npu-opd-grpo-end-of-run-2026-03", "GRPO"),
    ("verl-docs-quickstart-example-lines", "PPO"),
    ("e3_short", "GRPO"),
]


def test_long_names_keep_what_tells_the_runs_apart() -> None:
    names = experiment_names([NameEntry(folder, f"{folder} · {algorithm}") for folder, algorithm in UNRELATED])
    assert list(names.values()) == [
        "amd-mi300-deepseek7b… · GRPO",  # beside a PPO run: the algorithm tells them apart
        "amd-mi300-deepseek7b… · PPO",
        "aopd-opd-grpo…math… · GRPO",  # the word where the two aopd runs differ (4: math, code) is kept
        "aopd-opd-grpo…code… · GRPO",
        "houkawa-grpo…run1 · GRPO",  # they differ only in their last word
        "houkawa-grpo…run2 · GRPO",
        "rlinsight-npu-opd… · GRPO",
        "verl-docs-quickstart… · PPO",
        "e3_short · GRPO",  # within 22 characters: whole
    ]
    # every one is told apart, and each short enough for a table cell
    assert len(set(names.values())) == len(names)
    assert all(len(name.partition(" · ")[0]) <= 22 for name in names.values())


def test_short_head() -> None:
    assert short_head("moe_lite_sft_lr1e-5_04082007_hf", []) == "moe_lite_sft_lr1e-5…"
    assert short_head("within-twenty-two-char", ["anything"]) == "within-twenty-two-char"
    assert short_head("oneverylongwordwithoutanyseparatoratall", []) == "oneverylongwordwithoutanyseparatoratall"
    # a head that is all another's first words (the other goes on): kept up to where it ends
    assert short_head("ehl-qwen25-05b-ppo-gsm8k-v0.1-2024-12", ["ehl-qwen25-05b-ppo-gsm8k-resp256-v0.1-2024-12"]) == (
        "ehl-qwen25-05b…v0.1…"
    )


def test_names_that_look_alike_are_told_apart() -> None:
    # folders E1, E1 + U+200B (zero-width space) and a Cyrillic Е1 (U+0415) all read "E1 · GRPO"
    entries = [
        NameEntry("a/E1", "E1 · GRPO"),
        NameEntry("b/E1\u200b", "E1\u200b · GRPO"),
        NameEntry("c/\u04151", "\u04151 · GRPO"),
        NameEntry("d/E2", "E2 · GRPO"),
    ]
    names = experiment_names(entries)
    assert names == {"a/E1": "E1 · GRPO", "b/E1\u200b": "E1 · GRPO (2)", "c/\u04151": "\u04151 · GRPO (3)",
                     "d/E2": "E2 · GRPO"}  # fmt: skip
    assert "\u200b" not in "".join(names.values())
    # told apart within a group only (labels that carry their track are told apart by it)
    grouped = experiment_names([NameEntry("2b/e1", "E1 · GRPO", "2B"), NameEntry("4b/e1", "E1 · GRPO", "4B")])
    assert grouped == {"2b/e1": "E1 · GRPO", "4b/e1": "E1 · GRPO"}
    # a label that already reads "… (2)" is not taken twice
    taken = experiment_names(
        [NameEntry("x", "E1 · GRPO (2)"), NameEntry("y", "E1 · GRPO"), NameEntry("z", "E1 · GRPO")]
    )
    assert taken == {"x": "E1 · GRPO (2)", "y": "E1 · GRPO", "z": "E1 · GRPO (3)"}


def test_invisible_characters_are_removed_from_shown_text() -> None:
    for invisible in ("\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u180e", "\ufe0f", "\U000e0041"):
        assert display_text(f"E{invisible}1") == "E1", repr(invisible)
        assert clean_name(f" E{invisible}1\n · GRPO ") == "E1 · GRPO", repr(invisible)
    assert display_text("e4_\u202egnp.exe") == "e4_gnp.exe"  # bidi controls, as before


def test_look_alike_key_and_spelled_out_ids() -> None:
    assert look_alike_key("E1") == look_alike_key("E1\u200b") == look_alike_key("\u04151") == look_alike_key("Ｅ1")
    assert look_alike_key("Qwen") == look_alike_key("Qw\u0435n")  # a Cyrillic е inside a Latin word
    assert look_alike_key("E1") != look_alike_key("e1") != look_alike_key("E2")
    # how a tooltip shows an id a reader could not tell from another
    assert spelled_out("b/E1\u200b") == "b/E1[U+200B]"
    assert spelled_out("c/\u04151") == "c/[U+0415]1"
    assert spelled_out("4b/e2_dapo_4b") == "4b/e2_dapo_4b"
    assert spelled_out("实验/运行 1") == "实验/运行 1"
