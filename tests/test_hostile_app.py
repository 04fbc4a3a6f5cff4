"""The app against hostile input: visitor patterns, failing experiments, replaced logs, markup and odd names.

Which test covers which case:

1. A visitor's pattern cannot freeze the server: ``test_catastrophic_patterns_match_in_linear_time``,
   ``test_patterns_the_regex_engine_rejects_fall_back_to_plain_text``, ``test_overview_filter_from_the_url``,
   ``test_explorer_filter_from_the_url``.
5. A log replaced by rename, with the same size and mtime, shows its new numbers:
   ``test_a_log_replaced_with_the_same_size_and_mtime_shows_the_new_numbers``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_app import open_page, run_app, texts, unescape

from rlmon import panels, ui
from rlmon.demo import write_demo_root


@pytest.fixture(scope="module")
def demo_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_demo_root(tmp_path_factory.mktemp("logs") / "demo")


@pytest.fixture
def app_env(demo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("RLMON_LOG_ROOT", str(demo_root))
    monkeypatch.setenv("RLMON_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("RLMON_LANGUAGE", raising=False)
    yield demo_root


# ------------------------------------------------------------------------------------- 1: visitor patterns

# 2,000 keys of 200 characters, made so each pattern below nearly matches every key (what makes a
# backtracking engine explode).
WORD_KEYS = [f"actor/{'w' * 190}{index:04d}" for index in range(2000)]
A_KEYS = [f"{'a' * 196}{index:04d}" for index in range(2000)]
X_KEYS = [f"{'x' * 196}{index:04d}" for index in range(2000)]
CATASTROPHIC = [
    (r"^([\w/]+)+#", WORD_KEYS),
    ("(a*)*b", A_KEYS),
    ("(x+x+)+y", X_KEYS),
    ("(a|aa)+$b", A_KEYS),
    ("a" * 10_000, A_KEYS),
]


@pytest.mark.parametrize(("pattern", "keys"), CATASTROPHIC, ids=["word-plus", "a-star-star", "x-plus", "alt", "10k"])
def test_catastrophic_patterns_match_in_linear_time(pattern: str, keys: list[str]) -> None:
    started = time.perf_counter()
    matched, regex = panels.match_keys(keys, pattern)
    elapsed = time.perf_counter() - started
    # None of the keys has the character each pattern needs ('#', 'b', 'y'), nor 10,000 a's.
    assert matched == []
    assert regex is True
    assert elapsed < 1.0, f"{pattern[:40]!r} took {elapsed:.2f}s over {len(keys)} keys"


@pytest.mark.parametrize(
    ("pattern", "keys", "expected"),
    [
        # look-around and back-references: Python's re has them, the linear-time engine rejects them
        ("(?<=actor/)w+", WORD_KEYS, []),
        ("(?=a)", A_KEYS, []),
        (r"(a)\1", A_KEYS, []),
        # unbalanced: matched as the text itself
        ("0001(", A_KEYS, []),
        ("A" * 196 + "0007", [*A_KEYS, "lr(1e-4)"], [A_KEYS[7]]),  # a valid regex, but case matters there
        ("lr(1E", ["actor/lr(1e-4)", "actor/entropy"], ["actor/lr(1e-4)"]),
        ("x" * 10_000 + "(", X_KEYS, []),
    ],
    ids=["look-behind", "look-ahead", "back-reference", "unbalanced", "valid", "literal-case", "10k-invalid"],
)
def test_patterns_the_regex_engine_rejects_fall_back_to_plain_text(
    pattern: str, keys: list[str], expected: list[str]
) -> None:
    started = time.perf_counter()
    matched, regex = panels.match_keys(keys, pattern)
    assert time.perf_counter() - started < 1.0
    if pattern.startswith("A" * 196):
        # a valid pattern is a regex, case-sensitive: "A..." matches nothing; in plain text it would match
        assert regex is True and matched == []
        return
    assert regex is False
    assert matched == expected


def test_overview_filter_from_the_url(app_env: Path) -> None:
    at = run_app({"f": r"^([\w/]+)+#"})
    assert not at.exception, [item.value for item in at.exception]
    assert at.text_input(key="overview_filter").value == r"^([\w/]+)+#"
    assert "0 keys match" in unescape(texts(at))
    # look-behind: not a pattern the engine takes; said so, matched as text, no error
    at = run_app({"f": "(?<=actor/)entropy"})
    assert not at.exception
    page = unescape(texts(at))
    assert "0 keys match · not a valid regular expression: matched as plain text" in page


def test_explorer_filter_from_the_url(app_env: Path) -> None:
    at = run_app()
    open_page(at, "4b-e1-grpo-4b", {"f": "(x+x+)+y"})
    assert not at.exception, [item.value for item in at.exception]
    assert at.text_input(key="experiment_filter").value == "(x+x+)+y"
    assert "0 of " in unescape(texts(at))
    at = run_app()
    open_page(at, "4b-e1-grpo-4b", {"f": "(?=timing_s/)gen"})
    assert not at.exception
    page = unescape(texts(at))
    assert "not a valid regular expression: matched as plain text" in page


# ----------------------------------------------------------------------------- 5: a log replaced in place


def _score_log(score: str) -> str:
    """Ten steps with ``critic/score/mean`` at ``score`` (0/1 scores: the pass rate is score x 100)."""
    lines = ["(TaskRunner pid=1) Total training steps: 10"]
    for step in range(1, 11):
        lines.append(
            f"(TaskRunner pid=1) step:{step} - critic/score/mean:{score} - critic/score/min:0.0 - "
            "actor/entropy:0.5 - timing_s/step:30.0"
        )
    return "\n".join(lines) + "\n"


def test_a_log_replaced_with_the_same_size_and_mtime_shows_the_new_numbers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "logs"
    log = root / "e1_grpo" / "train.log"
    log.parent.mkdir(parents=True)
    log.write_text(_score_log("0.20"), encoding="utf-8")
    monkeypatch.setenv("RLMON_LOG_ROOT", str(root))
    monkeypatch.setenv("RLMON_CACHE_DIR", str(tmp_path / "cache"))
    at = run_app()
    assert not at.exception
    table = next(item for item in at.dataframe if "first5" in item.value.columns).value
    assert table["first5"][0] == "20.0%" and table["last10"][0] == "20.0%"
    before = log.stat()
    # the trainer's tooling writes the new log beside the old one and renames it over: same size, and the
    # mtime set back to the old one's (a copy keeping times, a restore from a backup)
    fresh = log.with_name("train.log.tmp")
    fresh.write_text(_score_log("0.60"), encoding="utf-8")
    os.utime(fresh, ns=(before.st_atime_ns, before.st_mtime_ns))
    os.replace(fresh, log)
    after = log.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert after.st_ino != before.st_ino
    time.sleep(ui.CATALOG_TTL_S + 0.2)
    at.run()
    assert not at.exception
    table = next(item for item in at.dataframe if "first5" in item.value.columns).value
    assert table["first5"][0] == "60.0%" and table["last10"][0] == "60.0%"
