"""The app against hostile input: visitor patterns, failing experiments, replaced logs, markup and odd names.

Which test covers which case:

1. A visitor's pattern cannot freeze the server: ``test_catastrophic_patterns_match_in_linear_time``,
   ``test_patterns_the_regex_engine_rejects_fall_back_to_plain_text``, ``test_overview_filter_from_the_url``,
   ``test_explorer_filter_from_the_url``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_app import open_page, run_app, texts, unescape

from rlmon import panels
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
