"""The samples page and the overview's "latest samples" links, through AppTest and the real navigation, on a
log root of two experiments made from the crafted log ``tests/data/samples_prints.log``."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from tests.helpers.paths import APP, DATA

PRINTS = DATA / "samples_prints.log"


@pytest.fixture
def samples_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    root = tmp_path / "logs"
    (root / "e1").mkdir(parents=True)
    (root / "e2").mkdir()
    shutil.copy(PRINTS, root / "e1" / "train.log")
    # E2: the same prompts, another answer to "What is 2+3?" at step 3 (line 37 of the crafted log)
    text = PRINTS.read_text(encoding="utf-8").replace("[response] 5\n", "[response] five, written out\n")
    (root / "e2" / "train.log").write_text(text, encoding="utf-8")
    monkeypatch.setenv("RLMON_LOG_ROOT", str(root))
    monkeypatch.setenv("RLMON_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("RLMON_LANGUAGE", raising=False)
    yield root


def open_samples(query: dict[str, str]) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    matches = [key for key, info in at._registered_pages.items() if info.get("url_pathname") == "generations"]
    assert matches
    at._page_hash = matches[0]
    at.query_params.update(query)
    at.run()
    return at


def test_overview_links_latest_samples(samples_env: Path) -> None:
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    assert not at.exception
    # the first visit starts the scan for samples in the background and does not wait for it (bounded by what a
    # loaded machine needs: each run of the script alone can take seconds there)
    deadline = time.monotonic() + 120
    links: list[Any] = []
    while len(links) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
        at.run()
        links = [element.proto for element in at.get("page_link")]
    # both experiments' last print belongs to step:3 (line 40)
    assert sorted(link.label for link in links) == ["E1 · step 3", "E2 · step 3"]
    assert sorted(link.query_string for link in links) == ["id=e1&step=3", "id=e2&step=3"]


def test_browse_filters(samples_env: Path) -> None:
    at = open_samples({"id": "e1", "step": "0"})
    assert not at.exception
    assert at.selectbox(key="samples_experiment").value == "e1"
    assert at.selectbox(key="samples_step").value == 0
    # two prints at step 0; the first one's response, verbatim, as code (never HTML)
    assert "2 of 2 samples" in [caption.value for caption in at.caption]
    codes = [code.value for code in at.code]
    assert "<script>alert(1)</script> ![img](http://evil.example/x.png) [click](javascript:alert(1))" in "\n".join(
        codes
    )
    at.selectbox(key="samples_step").set_value("\x00all").run()
    at.selectbox(key="samples_outcome").set_value("fail").run()
    assert "2 of 2 samples" in [caption.value for caption in at.caption]
    at.text_input(key="samples_search").input("It is 6").run()
    assert "1 of 1 samples" in [caption.value for caption in at.caption]
    assert not at.exception


def test_markdown_is_opt_in_and_defused(samples_env: Path) -> None:
    at = open_samples({"id": "e1", "step": "0"})
    assert not [markdown for markdown in at.markdown if "evil.example" in markdown.value]
    at.toggle(key="samples_markdown").set_value(True).run()
    rendered = [markdown.value for markdown in at.markdown if "script" in markdown.value]
    assert rendered
    # no link or image can form (the image is dropped, its alt text stays), HTML stays text (escaped, and
    # st.markdown never allows HTML here)
    assert all("](" not in value and "evil.example" not in value for value in rendered)
    assert any("\\<script\\>alert\\(1\\)\\</script\\> img \\[click\\]" in value for value in rendered)
    assert not at.exception


def test_compare_across_steps_and_experiments(samples_env: Path) -> None:
    at = open_samples({"id": "e1"})
    assert not at.exception
    # "system\nWhat is 2+3?" was printed at steps 2 and 3
    assert at.selectbox(key="samples_steps_left").value == 2
    assert at.selectbox(key="samples_steps_right").value == 3
    assert at.selectbox(key="samples_other").value == "e2"
    assert at.selectbox(key="samples_other_step").value == 3
    codes = [code.value for code in at.code]
    assert "It is 6." in codes and "5" in codes and "five, written out" in codes


def test_zh(samples_env: Path) -> None:
    at = open_samples({"id": "e1", "lang": "zh"})
    assert not at.exception
    assert "模型写了什么" in "".join(markdown.value for markdown in at.markdown)
