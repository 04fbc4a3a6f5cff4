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
   ``test_log_text_is_shown_literally_and_fetches_nothing``; the escaping itself:
   ``test_escape_markdown_keeps_text_literal``.
7. The app asks no other host for anything (favicon included): ``test_the_app_fetches_nothing_from_other_hosts``
   in tests/test_browser.py (demo root), and the same check on every page of the browser tests here.
12. Odd names: ``test_display_text_neutralises_bidi_controls_and_cuts``,
   ``test_labels_cut_alike_stay_apart_in_the_settings_diff``,
   ``test_unknown_metrics_in_the_link_are_named`` (AppTest); in the browser,
   ``test_long_and_bidi_names_keep_the_page_narrow`` (no horizontal scrolling at 1440 and 390 px) and
   ``test_log_text_is_shown_literally_and_fetches_nothing`` (no bidi control reaches the page).
"""

from __future__ import annotations

import os
import re
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from browser_roots import (
    EXTERNAL,
    FAILURE,
    FOLDER_MARKUP,
    HOSTILE_KEYS,
    LAUNCH_MARKUP,
    MARKUP,
    TRACK_MARKUP,
    VALIDATION_SOURCE,
    HostileRoot,
    write_hostile_root,
)
from browser_server import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, serve
from streamlit.testing.v1 import AppTest
from test_app import TRACK_4B, charts, open_page, run_app, texts, unescape

from rlmon.app import guards, loaders, navigation
from rlmon.demo import write_demo_root
from rlmon.errors import LogReadError
from rlmon.logs.cache import LogCache
from rlmon.runs.loading import load_experiment
from rlmon.settings import load_settings
from rlmon.sources import discovery
from rlmon.sources.discovery import discover_experiments
from rlmon.views import panels

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

    monkeypatch.setattr(panels, "view_of", broken_view)
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
    assert panels.display_text(f"E4 \u202eevil{BIDI}·RLO") == "E4 evil·RLO"
    assert panels.display_text("e4_\u202egnp.exe") == "e4_gnp.exe"
    # other control characters become spaces; a line break stays
    assert panels.display_text("a\tb\x00c\x85d\ne") == "a b c d\ne"
    long = "E3_" + "long" * 750
    assert panels.display_text(long) == long
    cut = panels.display_text(long, limit=panels.NAME_LIMIT)
    assert len(cut) == panels.NAME_LIMIT and cut.endswith("…") and long.startswith(cut[:-1])
    # the escaping helper neutralises them too
    assert guards.escape_markdown(f"a\u202eb{BIDI}") == "ab"


def test_escape_markdown_keeps_text_literal() -> None:
    escaped = guards.escape_markdown("![t](http://h/p.png) <img src=x> **b** $x$ `c` :material/home: :smile: a&#58;b")
    # every markdown, HTML and LaTeX character is backslash-escaped
    assert escaped.startswith("\\!\\[t\\]\\(http\\://h/p\\.png\\) \\<img src=x\\> \\*\\*b\\*\\* \\$x\\$ \\`c\\`")
    # a colon that could start an icon or emoji shortcode is followed by an invisible word joiner (Streamlit
    # reads icons before backslashes, emoji after them); a character reference keeps its ampersand
    assert "\\:\u2060material/home\\:" in escaped and "\\:\u2060smile\\:" in escaped
    assert escaped.endswith("a\\&\\#58;b")
    assert "http\\://h" in escaped  # not followed by a word character: left as it is
    assert guards.escape_markdown("x" * 200, limit=10) == "x" * 9 + "…"


# --------------------------------------------------------------------------- 6, 7, 12: in a real browser


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, HostileRoot]]:
    """The app on a root whose names and log text carry markup, bidi controls and a 3,000-character label."""
    folder = tmp_path_factory.mktemp("browser-hostile")
    written = write_hostile_root(folder / "logs")
    # Chart titles are read back from the page's text: every chart drawn at once, as SVG (a canvas holds pixels).
    env = {"RLMON_LOG_ROOT": str(written.root), "RLMON_CACHE_DIR": str(folder / "cache"),
           "RLMON_CHART_RENDERER": "svg", "RLMON_DRAW_ALL_CHARTS": "1"}  # fmt: skip
    with serve(folder, env, "server-hostile.log") as url:
        yield url, written


@pytest.fixture(scope="module")
def chromium(hostile: tuple[str, HostileRoot]) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield instance
        instance.close()


class Visit:
    """A browser tab on the app that aborts, and records, every request not to the app's own origin."""

    def __init__(self, chromium: Any, origin: str, *, width: int, height: int = 900) -> None:
        self.origin = origin
        self.context = chromium.new_context(viewport={"width": width, "height": height}, locale="en-US")
        self.page = self.context.new_page()
        self.outside: list[str] = []
        self.page.route("**/*", self._only_the_app)

    def _only_the_app(self, route: Any) -> None:
        if route.request.url == self.origin or route.request.url.startswith(self.origin + "/"):
            route.continue_()
        else:
            self.outside.append(route.request.url)
            route.abort()

    def open(self, path: str, *, wait_for: str, charts: int = 1) -> Any:
        page = self.page
        page.goto(self.origin + path)
        page.get_by_text(wait_for).first.wait_for(timeout=60_000)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            drawn = page.locator('[data-testid="stVegaLiteChart"] svg, [data-testid="stVegaLiteChart"] canvas').count()
            if drawn >= charts:
                break
            page.wait_for_timeout(300)
        page.wait_for_timeout(1500)
        assert page.locator('[data-testid="stException"]').count() == 0
        return page

    def close(self) -> None:
        self.context.close()


def shown(page: Any, text: str) -> bool:
    """Whether ``text`` is on the page as it is (markdown or HTML that was rendered would not read the same).

    A colon may be followed by the invisible word joiner :func:`rlmon.app.guards.escape_markdown` puts after it."""
    pattern = re.compile("".join(re.escape(char) + ("\u2060?" if char == ":" else "") for char in text))
    return bool(page.get_by_text(pattern).count())


def page_slug(experiment_id: str) -> str:
    return navigation.experiment_slug(experiment_id)


@pytest.mark.browser
def test_log_text_is_shown_literally_and_fetches_nothing(chromium: Any, hostile: tuple[str, HostileRoot]) -> None:
    url, root = hostile
    visit = Visit(chromium, url, width=1440)
    unknown_metric = f"no/such<img src={EXTERNAL}/u>"
    metrics = [HOSTILE_KEYS[0], f"val-core/{VALIDATION_SOURCE}/acc/mean@1", unknown_metric]
    query = urllib.parse.urlencode({"track": "*", "live": "0", "m": metrics}, doseq=True)
    pages = {
        # labels (folder names, rlmon.toml), tracks (a config value, a launch command), metric keys and a
        # validation source in chart titles, a metric name in a notice
        f"/?{query}": [FOLDER_MARKUP, TRACK_MARKUP, LAUNCH_MARKUP, HOSTILE_KEYS[0], VALIDATION_SOURCE, unknown_metric],
        # the whole label, the failure and its frame (a folder name), the validation source, metric keys
        f"/{page_slug(root.markup)}?live=0": [MARKUP, FAILURE, FOLDER_MARKUP, VALIDATION_SOURCE, *HOSTILE_KEYS],
        f"/{page_slug(root.folder)}?live=0": [FOLDER_MARKUP, TRACK_MARKUP],
        f"/{page_slug(root.rlo)}?live=0": ["E4 evil·RLO", LAUNCH_MARKUP],
    }
    missing: list[str] = []
    for path, texts_shown in pages.items():
        page = visit.open(path, wait_for="Qwen3-8B", charts=2)
        page.mouse.wheel(0, 20_000)
        page.wait_for_timeout(1000)
        missing += [f"{path}: {text!r}" for text in texts_shown if not shown(page, text)]
        assert page.locator(f'img[src*="{EXTERNAL[7:]}"], img[src$="p.png"], img[src$="x.png"]').count() == 0
        content = page.evaluate("document.querySelector('[data-testid=stApp]').textContent")
        assert not set(content) & set(BIDI), f"{path}: bidi controls reached the page"
        # ":smile:" and ":material/home:" in names stay text, not an emoji or an icon
        assert "\U0001f604" not in content, f"{path}: an emoji shortcode from a name was rendered"
        assert page.locator('[data-testid="stIconMaterial"]', has_text=re.compile(r"^home$")).count() == 0
        assert visit.outside == [], f"{path} asked other hosts for {visit.outside}"
    visit.close()
    assert not missing, "not shown literally:\n" + "\n".join(missing)


@pytest.mark.browser
@pytest.mark.parametrize("width", [1440, 390])
def test_long_and_bidi_names_keep_the_page_narrow(chromium: Any, hostile: tuple[str, HostileRoot], width: int) -> None:
    url, root = hostile
    visit = Visit(chromium, url, width=width)
    too_wide = []
    for path in ("/?track=*&live=0", f"/{page_slug(root.long)}?live=0", f"/{page_slug(root.rlo)}?live=0"):
        page = visit.open(path, wait_for="Qwen3-8B", charts=2)
        measured = page.evaluate(
            """() => {
              const width = (testid) => {
                const element = document.querySelector(`[data-testid=${testid}]`);
                return element ? [element.scrollWidth, element.clientWidth] : null;
              };
              const sidebar = document.querySelector('[data-testid=stSidebar]');
              const open = sidebar && sidebar.getAttribute('data-collapsed') === 'false';
              return {document: [document.documentElement.scrollWidth, window.innerWidth], main: width('stMain'),
                      sidebar: open ? width('stSidebarContent') : null};
            }"""
        )
        for where, sizes in measured.items():
            if sizes is not None and sizes[0] > sizes[1] + 1:
                too_wide.append(f"{path} at {width} px: {where} is {sizes[0]} px wide in {sizes[1]} px")
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"hostile-{path.strip('/').split('?')[0] or 'overview'}-{width}.png"))
    visit.close()
    assert not too_wide, "\n".join(too_wide)


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
        panels.view_of(ref, load_experiment(ref, LogCache(None), now=time.time(), settings=settings)) for ref in refs
    ]
    cut = same[: panels.NAME_LIMIT - 1] + "…"
    assert [view.label for view in views] == [cut, cut]
    assert [view.full_label for view in views] == [same + "1", same + "2"]
    table = panels.settings_diff_frame(views, "en")
    assert table is not None
    assert table.columns[-2:] == [cut, f"{cut} (2)"]
