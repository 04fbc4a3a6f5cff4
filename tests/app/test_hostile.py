"""The app against hostile input: visitor patterns, failing experiments, replaced logs, markup and odd names.

Which test covers which case:

1. A visitor's pattern cannot freeze the server: ``test_catastrophic_patterns_match_in_linear_time``,
   ``test_patterns_the_regex_engine_rejects_fall_back_to_plain_text``, ``test_overview_filter_from_the_url``,
   ``test_explorer_filter_from_the_url``.
3. An unexpected error in one experiment marks it unreadable, the rest works:
   ``test_load_experiment_names_the_folder_of_an_unexpected_error``,
   ``test_load_views_keeps_the_other_experiments``, ``test_the_app_keeps_working_around_an_unreadable_experiment``.
5. A log replaced by rename, with the same size and mtime, shows its new numbers:
   ``test_a_log_replaced_with_the_same_size_and_mtime_shows_the_new_numbers``.
10. Hidden means not listed; both link forms say the experiment is hidden:
   ``test_hidden_experiment_is_not_listed``, ``test_links_to_a_hidden_experiment_say_it_is_hidden``.
6. Text from logs, folders and ``rlmon.toml`` is shown literally and fetches nothing (browser):
   ``test_log_text_is_shown_literally_and_fetches_nothing`` in tests/browser/test_hostile.py; the escaping itself:
   ``test_escape_markdown_keeps_text_literal``.
7. The app asks no other host for anything (favicon included): ``test_the_app_fetches_nothing_from_other_hosts``
   in tests/browser/test_pages.py (demo root), and the same check on every page of tests/browser/test_hostile.py.
12. Odd names: ``test_display_text_neutralises_bidi_controls_and_cuts``,
   ``test_labels_cut_alike_stay_apart_in_the_settings_diff``,
   ``test_unknown_metrics_in_the_link_are_named`` (AppTest); in the browser (tests/browser/test_hostile.py),
   ``test_long_and_bidi_names_keep_the_page_narrow`` (no horizontal scrolling at 1440 and 390 px) and
   ``test_log_text_is_shown_literally_and_fetches_nothing`` (no bidi control reaches the page).

Round three (issue 27):

- The escaper leaves no URL, ``www.`` name or address to Streamlit's autolinker:
  ``test_escape_markdown_keeps_text_literal``; every page in the browser: ``test_no_name_becomes_a_link_and_only_a_
  descriptions_own_link_leaves_the_page`` and, place by place, ``test_a_linkish_name_is_text_in_every_place_it_is_
  shown`` (tests/browser/test_hostile.py); the report of ``rlmon report``: ``test_no_name_in_the_report_becomes_a_
  link`` (tests/unit/test_hostile_ops.py); the sanitiser: tests/unit/text/test_markdown.py.
- Names that look alike: ``test_names_that_look_alike_are_told_apart_wherever_they_are_shown``; ``rlmon info``:
  ``test_info_and_summary_of_a_root_tell_names_that_look_alike_apart`` (tests/unit/test_hostile_ops.py).
- Dump folders outside the log roots: ``test_samples_page_reads_no_dump_folder_outside_the_roots``.
- Many keys: ``test_the_metric_picker_offers_a_few_hundred_keys_and_finds_the_rest``,
  ``test_keys_past_max_keys_are_named_in_one_notice``, ``test_the_explorers_family_picker_stays_short``.
- A refresh period beyond its maximum: ``test_a_refresh_period_beyond_its_maximum_is_said_in_the_app``.
- The samples page: ``test_samples_page_shows_no_bidi_control``, ``test_samples_link_to_an_unknown_experiment_
  says_so``; an unusable cache folder: ``test_an_unusable_cache_folder_is_said_in_the_app``.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from rlmon.app import guards, loaders
from rlmon.demo import write_demo_root
from rlmon.errors import LogReadError
from rlmon.logs.cache import LogCache
from rlmon.runs.loading import load_experiment
from rlmon.settings import load_settings
from rlmon.sources import discovery
from rlmon.sources.discovery import discover_experiments
from rlmon.text import display
from rlmon.views import detail, model, overview, tables
from tests.helpers.apptest import TRACK_4B, charts, open_page, run_app, texts, unescape
from tests.helpers.logs import DISK_FULL, fail_parquet_writes
from tests.helpers.paths import APP, DATA
from tests.helpers.realdata_root import write_look_alike_root

BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"


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
    matched, regex = model.match_keys(keys, pattern)
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
    matched, regex = model.match_keys(keys, pattern)
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


@pytest.mark.parametrize("query", [{"live": "garbage"}, {"live": "2"}, {"track": "nope", "live": ""}])
def test_sidebar_values_a_link_cannot_hold_leave_the_defaults(app_env: Path, query: dict[str, str]) -> None:
    # Repro: `?live=garbage` on a first visit counted as the link's choice of live refresh without setting it, and
    # the sidebar then read a live refresh the session did not have (an error page instead of the overview).
    at = run_app(query)
    assert not at.exception, [item.value for item in at.exception]
    # the demo's E5 is running: live refresh on, as with no link; the first screen's track
    assert at.toggle(key="app_live").value is True
    assert at.selectbox(key="app_track").value == "Qwen3.5-4B"


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


# ------------------------------------------------------------------------------ 3: one experiment fails


class _FailingCache(LogCache):
    """A cache whose reads of one folder's logs fail the way a bug or a full memory would."""

    def __init__(self, folder: Path, error: BaseException) -> None:
        super().__init__(None)
        self._failing = folder
        self._error = error

    def read(self, path: str | Path) -> Any:
        if Path(path).parent == self._failing:
            raise self._error
        return super().read(path)


@pytest.mark.parametrize(
    "error",
    [MemoryError(), pl.exceptions.ComputeError("bad\nmulti-line"), KeyError("actor/entropy")],
    ids=["memory", "polars", "bug"],
)
def test_load_experiment_names_the_folder_of_an_unexpected_error(demo_root: Path, error: BaseException) -> None:
    refs = {ref.id: ref for ref in discover_experiments([demo_root]).experiments}
    ref = refs["4b/e2_dapo_4b"]
    cache = _FailingCache(ref.path, error)
    with pytest.raises(LogReadError) as raised:
        load_experiment(ref, cache, now=time.time(), settings=load_settings([], {}))
    assert raised.value.path == str(ref.path)
    assert type(error).__name__ in raised.value.reason
    assert "\n" not in raised.value.describe()
    # the others read through the same cache
    other = load_experiment(refs["4b/e1_grpo_4b"], cache, now=time.time(), settings=load_settings([], {}))
    assert other.steps_done == 150


def test_load_views_keeps_the_other_experiments(
    demo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = discover_experiments([demo_root])
    settings = load_settings([], {"RLMON_CACHE_DIR": str(tmp_path / "cache")})
    calls: list[str] = []
    real = loaders.load_experiment

    def failing(ref: discovery.ExperimentRef, *args: Any, **kwargs: Any) -> Any:
        calls.append(ref.id)
        if ref.id == "4b/e3_drgrpo_4b":
            raise RuntimeError("a bug")
        return real(ref, *args, **kwargs)

    monkeypatch.setattr(loaders, "load_experiment", failing)
    loaded = loaders.load_views(found, settings)
    assert [view.id for view in loaded.views] == [ref.id for ref in found.experiments if ref.id != "4b/e3_drgrpo_4b"]
    (unreadable,) = loaded.errors
    assert unreadable.id == "4b/e3_drgrpo_4b"
    assert unreadable.path == str(demo_root / "4b" / "e3_drgrpo_4b")
    assert unreadable.reason == "RuntimeError"
    # a failure in assembling the view (after the summary was read) is caught the same way
    monkeypatch.setattr(loaders, "load_experiment", real)

    def broken_view(*args: Any, **kwargs: Any) -> Any:
        raise pl.exceptions.ShapeError("shapes")

    monkeypatch.setattr(model, "view_of", broken_view)
    settings = load_settings([], {"RLMON_CACHE_DIR": str(tmp_path / "cache2")})
    loaded = loaders.load_views(found, settings)
    assert loaded.views == ()
    assert {item.reason for item in loaded.errors} == {"ShapeError"}
    # the failure is kept until the files change: no re-read on every run
    monkeypatch.setattr(loaders, "load_experiment", failing)
    calls.clear()
    loaders.load_views(found, settings)
    assert calls == []


def test_the_app_keeps_working_around_an_unreadable_experiment(app_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = loaders.load_experiment

    def failing(ref: discovery.ExperimentRef, *args: Any, **kwargs: Any) -> Any:
        if ref.id == "4b/e2_dapo_4b":
            raise MemoryError()
        return real(ref, *args, **kwargs)

    monkeypatch.setattr(loaders, "load_experiment", failing)
    folder = str(app_env / "4b" / "e2_dapo_4b")
    at = run_app()
    assert not at.exception, [item.value for item in at.exception]
    # the overview shows the other four of the track, and says which folder could not be read
    assert at.multiselect(key="app_experiments").value == [item for item in TRACK_4B if item != "4b/e2_dapo_4b"]
    table = next(item for item in at.dataframe if "first5" in item.value.columns).value
    assert len(table) == 4
    warnings = unescape("\n".join(item.value for item in at.warning))
    assert folder in warnings and "MemoryError" in warnings
    assert "Traceback" not in texts(at)
    # its page (by its path and by ?id=) says the same instead of a chart
    for page, query in (("4b-e2-dapo-4b", None), ("exp", {"id": "4b/e2_dapo_4b"})):
        at = run_app()
        open_page(at, page, query)
        assert not at.exception, [item.value for item in at.exception]
        errors = unescape("\n".join(item.value for item in at.error))
        assert folder in errors and "MemoryError" in errors
        assert not at.get("vega_lite_chart")


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
    time.sleep(loaders.CATALOG_TTL_S + 0.2)
    at.run()
    assert not at.exception
    table = next(item for item in at.dataframe if "first5" in item.value.columns).value
    assert table["first5"][0] == "60.0%" and table["last10"][0] == "60.0%"


# --------------------------------------------------------------------------------------------- 10: hidden

HIDDEN = "4b/e3_drgrpo_4b"


@pytest.fixture
def hidden_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The demo root with E3 of the 4B track marked hidden in rlmon.toml."""
    root = write_demo_root(tmp_path / "logs")
    toml = root / "rlmon.toml"
    table = f'[experiments."{HIDDEN}"]\n'
    text = toml.read_text(encoding="utf-8")
    assert table in text
    toml.write_text(text.replace(table, table + "hidden = true\n"), encoding="utf-8")
    monkeypatch.setenv("RLMON_LOG_ROOT", str(root))
    monkeypatch.setenv("RLMON_CACHE_DIR", str(tmp_path / "cache"))
    return root


def notices(at: AppTest) -> str:
    return unescape("\n".join(str(item.value) for item in [*at.info, *at.warning, *at.error]))


def test_hidden_experiment_is_not_listed(hidden_root: Path) -> None:
    at = run_app()
    assert not at.exception
    listed = [item for item in TRACK_4B if item != HIDDEN]
    assert at.multiselect(key="app_experiments").value == listed
    table = next(item for item in at.dataframe if "first5" in item.value.columns).value
    assert not any("E3" in label for label in table["experiment"])
    assert "is hidden" not in notices(at)


def test_links_to_a_hidden_experiment_say_it_is_hidden(hidden_root: Path) -> None:
    expected = f"{HIDDEN} is hidden"
    # ?exp= on the overview: the hidden one is left out, and said to be hidden (not missing)
    at = run_app({"exp": ["4b/e1_grpo_4b", HIDDEN]})
    assert not at.exception, [item.value for item in at.exception]
    assert at.multiselect(key="app_experiments").value == ["4b/e1_grpo_4b"]
    said = notices(at)
    assert expected in said and "hidden = false" in said and "rlmon.toml" in said
    assert "not under the configured log roots" not in said
    # /exp?id= and the experiment's own path: the same notice instead of the experiment
    for page, query in (("exp", {"id": HIDDEN}), ("4b-e3-drgrpo-4b", None)):
        at = run_app()
        open_page(at, page, query)
        assert not at.exception, [item.value for item in at.exception]
        said = notices(at)
        assert expected in said and "hidden = false" in said, (page, said)
        assert "There is no experiment" not in said
        assert not at.get("vega_lite_chart")
        assert "Dr.GRPO" not in "\n".join(str(item.proto.body) for item in at.get("html"))


# ------------------------------------------------------------------------------------- 12: odd names (app)


def test_unknown_metrics_in_the_link_are_named(app_env: Path) -> None:
    at = run_app({"m": ["pass_rate", "actor/no_such_key", "**bold** <b>x</b>"]})
    assert not at.exception, [item.value for item in at.exception]
    assert [spec.get("title") for spec, _ in charts(at) if spec.get("title") != "Total training hours"] == [
        "pass rate (%)"
    ]
    warning = "\n".join(str(item.value) for item in at.warning)
    assert "actor/no\\_such\\_key" in warning  # escaped for markdown
    assert "\\*\\*bold\\*\\* \\<b\\>x\\</b\\>" in warning
    assert "pass\\_rate" not in warning
    # known metrics only: no notice
    at = run_app({"m": ["pass_rate", "actor/entropy"]})
    assert not at.warning


def test_display_text_neutralises_bidi_controls_and_cuts() -> None:
    # each control is taken out; what is left reads in the order it was written
    assert display.display_text(f"E4 \u202eevil{BIDI}·RLO") == "E4 evil·RLO"
    assert display.display_text("e4_\u202egnp.exe") == "e4_gnp.exe"
    # other control characters become spaces; a line break stays
    assert display.display_text("a\tb\x00c\x85d\ne") == "a b c d\ne"
    long = "E3_" + "long" * 750
    assert display.display_text(long) == long
    cut = display.display_text(long, limit=display.NAME_LIMIT)
    assert len(cut) == display.NAME_LIMIT and cut.endswith("…") and long.startswith(cut[:-1])
    # the escaping helper neutralises them too
    assert guards.escape_markdown(f"a\u202eb{BIDI}") == "ab"


def test_escape_markdown_keeps_text_literal() -> None:
    escaped = guards.escape_markdown("![t](http://h/p.png) <img src=x> **b** $x$ `c` :material/home: :smile: a&#58;b")
    # every markdown, HTML and LaTeX character is backslash-escaped
    assert escaped.startswith("\\!\\[t\\]\\(http\\:\u2060//h/p\\.png\\) \\<img src=x\\> \\*\\*b\\*\\* \\$x\\$ \\`c\\`")
    # a colon that could start an icon or emoji shortcode is followed by an invisible word joiner (Streamlit
    # reads icons before backslashes, emoji after them); a character reference keeps its ampersand
    assert "\\:\u2060material/home\\:" in escaped and "\\:\u2060smile\\:" in escaped
    assert escaped.endswith("a\\&\\#58;b")
    # nor one that starts "://": Streamlit's autolinker would make the text a link, escaped or not
    assert "http\\:\u2060//h" in escaped
    assert guards.escape_markdown("x" * 200, limit=10) == "x" * 9 + "…"


def test_labels_cut_alike_stay_apart_in_the_settings_diff(tmp_path: Path) -> None:
    root = write_demo_root(tmp_path / "logs")
    same = "E" + "x" * 100  # two labels that agree far beyond NAME_LIMIT
    toml = root / "rlmon.toml"
    text = toml.read_text(encoding="utf-8")
    for experiment, end in (("4b/e1_grpo_4b", "1"), ("4b/e2_dapo_4b", "2")):
        table = f'[experiments."{experiment}"]\n'
        text = text.replace(table, f'{table}label = "{same}{end}"\n')
    toml.write_text(text, encoding="utf-8")
    settings = load_settings([], {})
    refs = [ref for ref in discover_experiments([root]).experiments if ref.id in ("4b/e1_grpo_4b", "4b/e2_dapo_4b")]
    views = [
        model.view_of(ref, load_experiment(ref, LogCache(None), now=time.time(), settings=settings)) for ref in refs
    ]
    cut = same[: display.NAME_LIMIT - 1] + "…"
    assert [view.label for view in views] == [cut, cut]
    assert [view.full_label for view in views] == [same + "1", same + "2"]
    table = tables.settings_diff_frame(views, "en")
    assert table is not None
    assert table.columns[-2:] == [cut, f"{cut} (2)"]


def test_names_that_look_alike_are_told_apart_wherever_they_are_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # folders E1, E1 + U+200B and a Cyrillic Е1: each "E1 · GRPO"; shown without the invisible character and told
    # apart in view order: "E1 · GRPO", "E1 · GRPO (2)", "Е1 · GRPO (3)", in the sidebar's chips and legend, the
    # charts' legend and the page menu; the whole id, its odd characters spelled out, on hover
    root = write_look_alike_root(tmp_path / "logs")
    monkeypatch.setenv("RLMON_LOG_ROOT", str(root))
    monkeypatch.setenv("RLMON_CACHE_DIR", str(tmp_path / "cache"))
    at = run_app()
    assert not at.exception, [item.value for item in at.exception]
    shown = ["E1 · GRPO", "E1 · GRPO (2)", "\u04151 · GRPO (3)"]
    assert at.multiselect(key="app_experiments").options == [f"{name} ✓" for name in shown]
    legend = " ".join(str(item.proto.body) for item in at.get("html") if "display:flex" in str(item.proto.body))
    for name in shown:
        assert f">{name}</span>" in legend
    assert 'title="E1 · GRPO — E1[U+200B]"' in legend and 'title="\u04151 · GRPO — [U+0415]1"' in legend
    assert "\u200b" not in legend
    pills = [element for element in at.get("button_group") if element.proto.id.endswith("overview_highlight")]
    assert [unescape(option.content) for option in pills[0].proto.options] == shown
    # the summary tells the three as one group: their logs differ only in their folders (repeats of one setting,
    # and no seed differs: "runs", not "seeds"), so no member is named there
    summary = unescape(texts(at))
    assert "Qwen3-4B: GRPO (3 runs) finished 3/3." in summary
    assert "\u200b" not in summary
    menu = [unescape(info["page_name"]) for info in at._registered_pages.values()]
    assert menu[-3:] == shown


# --- the app on a full cache disk ----------------------------------------------------------------
def test_full_cache_disk_in_the_app(tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every page still works and shows its numbers; one notice in the sidebar names the cache folder."""
    from streamlit.testing.v1 import AppTest

    from rlmon.demo import write_demo_root

    root = write_demo_root(tmp_path / "logs")
    monkeypatch.setenv("RLMON_LOG_ROOT", str(root))
    monkeypatch.setenv("RLMON_CACHE_DIR", str(cache_dir))
    monkeypatch.setenv("RLMON_LANGUAGE", "en")
    fail_parquet_writes(monkeypatch, DISK_FULL["polars"])
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    assert not at.exception, [item.value for item in at.exception]
    # the markdown source of the notice: names from the file system are escaped, so unescape to compare
    notices = [re.sub(r"\\(.)", r"\1", item.value) for item in at.sidebar.warning]
    notices = [text for text in notices if "cache cannot be written" in text]
    assert len(notices) == 1
    assert str(cache_dir) in notices[0] and "No space left on device" in notices[0]
    # the experiments table is there, with the runs of the track shown first (the demo's 2B track has four
    # experiments, its 4B track five)
    assert at.dataframe, "no experiments table"
    assert len(at.dataframe[0].value) in (4, 5)
    # no temporary file is left behind in the cache
    assert not [path for path in cache_dir.rglob("*") if path.name.endswith(".tmp")]


def test_demo_with_an_unusable_cache_folder_names_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With no log root, the demo is written in the cache folder: when it cannot be, the message names that
    folder and the setting for it (not the log root the user never gave)."""
    from streamlit.testing.v1 import AppTest

    not_a_folder = tmp_path / "cache"
    not_a_folder.write_text("a file where the cache folder should be")
    monkeypatch.delenv("RLMON_LOG_ROOT", raising=False)
    monkeypatch.setenv("RLMON_CACHE_DIR", str(not_a_folder))
    monkeypatch.setenv("RLMON_LANGUAGE", "en")
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    assert not at.exception, [item.value for item in at.exception]
    errors = [re.sub(r"\\(.)", r"\1", item.value) for item in at.error]
    assert any("demo logs cannot be written" in text and str(not_a_folder) in text for text in errors), errors
    assert not any("--log-root` / RLMON_LOG_ROOT" in text for text in errors)


# ----------------------------------------------------------------- round three: links, samples, the cache folder

SAMPLES_LOG = (
    "(TaskRunner pid=7) Total training steps: 4\n"
    "(TaskRunner pid=7) [prompt] Which word is \u202eevil\n"
    "(TaskRunner pid=7) [response] \u202eevil\n"
    "(TaskRunner pid=7) [ground_truth] \u202elive\n"
    "(TaskRunner pid=7) [score] 1.0\n"
    "(TaskRunner pid=7) step:1 - critic/score/mean:0.5 - actor/grad_norm:0.2\n"
    "(TaskRunner pid=7) step:2 - critic/score/mean:0.6 - actor/grad_norm:0.2\n"
)


@pytest.fixture
def samples_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two experiments whose printed sample holds U+202E, and a hidden one (e2)."""
    root = tmp_path / "logs"
    for name in ("e1", "e2", "e3"):
        (root / name).mkdir(parents=True)
        (root / name / "train.log").write_text(SAMPLES_LOG, encoding="utf-8")
    (root / "rlmon.toml").write_text('[experiments."e2"]\nhidden = true\n', encoding="utf-8")
    monkeypatch.setenv("RLMON_LOG_ROOT", str(root))
    monkeypatch.setenv("RLMON_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RLMON_LANGUAGE", "en")
    return root


def test_samples_page_shows_no_bidi_control(samples_root: Path) -> None:
    # Repro: a response holding U+202E kept it on the samples page ("evil" read as "live").
    at = open_page(run_app(), "generations", {"id": "e1"})
    assert not at.exception, [item.value for item in at.exception]
    shown = [code.value for code in at.code]
    assert "Which word is evil" in shown and "evil" in shown and "live" in shown
    assert not any(set(text) & set(BIDI) for text in shown)


@pytest.mark.parametrize(
    ("asked", "said"),
    [("no/such", "There is no experiment no/such"), ("e2", "e2 is hidden")],
)
def test_samples_link_to_an_unknown_experiment_says_so(samples_root: Path, asked: str, said: str) -> None:
    # Repro: /generations?id=<unknown> silently showed the first experiment.
    at = open_page(run_app(), "generations", {"id": asked})
    assert not at.exception, [item.value for item in at.exception]
    assert said in notices(at)
    # the picker is still there; once the visitor picks an experiment the notice goes
    at.selectbox(key="samples_experiment").set_value("e3").run()
    assert said not in notices(at)


def test_an_unusable_cache_folder_is_said_in_the_app(demo_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Repro: RLMON_CACHE_DIR=/dev/null was only a line in the server's log; the page said nothing.
    monkeypatch.setenv("RLMON_LOG_ROOT", str(demo_root))
    monkeypatch.setenv("RLMON_CACHE_DIR", "/dev/null")
    monkeypatch.setenv("RLMON_LANGUAGE", "en")
    at = run_app()
    assert not at.exception, [item.value for item in at.exception]
    said = [unescape(item.value) for item in at.sidebar.warning]
    assert any("cache folder /dev/null cannot be used (not a folder)" in text for text in said), said
    assert any("RLMON_CACHE_DIR" in text for text in said)
    assert at.dataframe, "the pages still work, parsing in memory"


def test_a_refresh_period_beyond_its_maximum_is_said_in_the_app(app_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Repro: RLMON_REFRESH_S=4000 was accepted and the page refreshed every 2 s.
    monkeypatch.setenv("RLMON_REFRESH_S", "4000")
    at = run_app()
    errors = [unescape(item.value) for item in at.error]
    assert any("refresh_s" in text and "above the maximum 3600" in text for text in errors), errors


@pytest.mark.parametrize("allowed", [False, True])
def test_samples_page_reads_no_dump_folder_outside_the_roots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, allowed: bool
) -> None:
    # Repro: `rollout_data_dir: '/any/folder'` in a log's config dump made the samples page show that folder's
    # <int>.jsonl records to every visitor.
    elsewhere = tmp_path / "any" / "folder"
    shutil.copytree(DATA / "samples_dump", elsewhere)
    root = tmp_path / "logs"
    (root / "e1").mkdir(parents=True)
    (root / "e1" / "train.log").write_text(
        "(TaskRunner pid=7) {'actor_rollout_ref': {'model': {'path': '/models/Qwen3-8B'}}, "
        "'trainer': {'rollout_data_dir': '" + str(elsewhere) + "', 'total_epochs': 1}}\n" + SAMPLES_LOG,
        encoding="utf-8",
    )
    monkeypatch.setenv("RLMON_LOG_ROOT", str(root))
    monkeypatch.setenv("RLMON_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RLMON_LANGUAGE", "en")
    if allowed:
        monkeypatch.setenv("RLMON_DUMP_ROOT", str(tmp_path / "any"))
    at = open_page(run_app(), "generations", {"id": "e1"})
    assert not at.exception, [item.value for item in at.exception]
    said = notices(at)
    shown = "\n".join(code.value for code in at.code)
    if allowed:
        assert "What is 7*6?" in shown and "outside the log roots" not in said
    else:
        assert f"Dump folder outside the log roots: {elsewhere} is not read" in said
        assert "RLMON_DUMP_ROOT" in said
        assert "What is 7*6?" not in shown and "Which word is evil" in shown  # the log's own prints stay


# ------------------------------------------------------------------------------------ many keys in the app

WIDE_LINES = 30
"""Step lines of the wide experiment: each brings 40 keys no line before it had (1,201 keys in all)."""


@pytest.fixture
def wide_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "logs"
    (root / "wide").mkdir(parents=True)
    lines = ["(TaskRunner pid=1) Total training steps: 30"]
    for step in range(1, WIDE_LINES + 1):
        pairs = [f"critic/score/mean:{step / 100}", *(f"k/{step}_{index}:{index}.5" for index in range(40))]
        lines.append(f"(TaskRunner pid=1) step:{step} - " + " - ".join(pairs))
    (root / "wide" / "train.log").write_text("\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.setenv("RLMON_LOG_ROOT", str(root))
    monkeypatch.setenv("RLMON_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RLMON_LANGUAGE", "en")
    return root


def test_the_metric_picker_offers_a_few_hundred_keys_and_finds_the_rest(wide_root: Path) -> None:
    # Repro: with 200,001 keys the picker (one option per key) threw "Maximum call stack size exceeded" in the
    # browser and the charts were gone. It offers the chosen keys and the first 300 others; the filter finds any.
    at = run_app()
    assert not at.exception, [item.value for item in at.exception]
    picker = at.multiselect(key="overview_metrics")
    chosen = list(picker.value)
    assert len(picker.options) == len(chosen) + overview.PICKER_LIMIT
    captions = [item.value for item in at.caption]
    # 1,201 logged keys + the derived ones, less the chosen and the 300 offered
    more = next(text for text in captions if "are found with the filter" in text)
    assert more.startswith("The first 300 keys are offered;")
    at.text_input(key="overview_filter").input("^k/29_3").run()
    assert not at.exception
    picker = at.multiselect(key="overview_metrics")
    # k/29_3 and k/29_30 ... k/29_39: eleven keys, offered after the ones chosen
    matched = [f"k/29_3{suffix}" for suffix in ["", *map(str, range(10))]]
    assert [option for option in picker.options if option.startswith("k/")] == matched
    picker.select("k/29_35").run()
    assert not at.exception
    assert any(spec.get("title") == "k/29_35" for spec, _ in charts(at))


def test_keys_past_max_keys_are_named_in_one_notice(wide_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RLMON_MAX_KEYS", "500")
    at = run_app()
    assert not at.exception, [item.value for item in at.exception]
    notes = "\n".join(item.value for item in at.text)
    # 1 + 12 x 40 = 481 keys after step 12 (line 13); step 13, on line 14, brings the 501st
    log = wide_root / "wide" / "train.log"
    said = [line for line in notes.splitlines() if "distinct keys" in line]
    assert said == [f"wide: {log}: line 14: more than 500 distinct keys; the keys first logged from this line on "
                    "are dropped (the max_keys setting)"]  # fmt: skip


def test_the_explorers_family_picker_stays_short(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a key without a slash is a family of its own: 400 of them must not make a picker of 400 options
    root = tmp_path / "logs"
    (root / "flat").mkdir(parents=True)
    lines = [
        "(TaskRunner pid=1) step:"
        + f"{step} - critic/score/mean:0.5 - "
        + " - ".join(f"k_{step}_{index}:1.5" for index in range(20))
        for step in range(1, 21)
    ]
    (root / "flat" / "train.log").write_text("\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.setenv("RLMON_LOG_ROOT", str(root))
    monkeypatch.setenv("RLMON_CACHE_DIR", str(tmp_path / "cache"))
    at = open_page(run_app(), "flat")
    assert not at.exception, [item.value for item in at.exception]
    families = at.selectbox(key="experiment_family").options
    assert len(families) == 1 + detail.FAMILY_LIMIT  # "all", then the first 300 families
    # the filter still finds a key of a family left out
    at.text_input(key="experiment_filter").input("^k_20_19$").run()
    assert any(spec.get("title") == "k_20_19" for spec, _ in charts(at))
