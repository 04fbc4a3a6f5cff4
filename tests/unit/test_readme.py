"""The documentation keeps up with the code: the README starts with the two commands users run and lists every
CLI command; docs/settings.md has every setting, docs/metric-names.md every renamed and derived metric; every
relative link in the README and docs/ points at a file (and a heading) that exists."""

from __future__ import annotations

import re
import unicodedata

from rlmon.cli import build_parser
from rlmon.runs.metrics import DERIVED_METRICS, METRIC_ALIASES
from rlmon.settings import SETTINGS
from tests.helpers.paths import REPO_ROOT

ROOT = REPO_ROOT
DOCS = ROOT / "docs"
README = (ROOT / "README.md").read_text(encoding="utf-8")


def read_doc(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def table_rows(text: str) -> dict[str, str]:
    """First cell (as written, backticks included) -> the whole row, for every table row of ``text``."""
    return {line.split("|")[1].strip(): line for line in text.splitlines() if line.startswith("| `")}


def test_every_setting_is_documented() -> None:
    """Each setting has a row in docs/settings.md: its option, its environment variable and its help text."""
    rows = table_rows(read_doc("settings.md"))
    missing = []
    for spec in SETTINGS:
        row = rows.get(f"`{spec.option}`")
        if row is None or f"| `{spec.env}` |" not in row or spec.help not in row:
            missing.append(spec.name)
    assert not missing, f"settings missing from docs/settings.md (or with another help text): {missing}"


def test_settings_page_lists_no_setting_that_does_not_exist() -> None:
    options = {f"`{spec.option}`" for spec in SETTINGS}
    unknown = [cell for cell in table_rows(read_doc("settings.md")) if cell.startswith("`--") and cell not in options]
    assert not unknown, f"docs/settings.md documents options rlmon does not have: {unknown}"


def test_every_command_is_documented() -> None:
    subparsers = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    section = README.split("## Command line", 1)[1].split("\n## ", 1)[0]
    missing = [name for name in subparsers if f"`rlmon {name}" not in section]
    assert not missing, f"commands missing from the README's command table: {missing}"


def test_first_two_commands_install_and_run() -> None:
    block = README.split("```bash", 1)[1].split("```", 1)[0]
    commands = [line for line in block.splitlines() if line and not line.startswith("#")]
    assert commands[0] == "pip install -e . && streamlit run streamlit_app.py"
    assert commands[1] == 'pip install -e ".[dev]" && pytest'


def test_readme_stays_short() -> None:
    lines = README.count("\n")
    assert lines <= 250, f"README.md has {lines} lines; move detail into docs/"


def test_every_metric_alias_is_documented() -> None:
    """Each row of the alias table (current name -> older names) appears in docs/metric-names.md's table."""
    section = read_doc("metric-names.md").split("## Derived metrics", 1)[0]
    rows = table_rows(section)
    missing = []
    for name, keys in METRIC_ALIASES.items():
        row = rows.get(f"`{name}`")
        if row is None:
            missing.append(name)
            continue
        missing += [key for key in keys if key != name and f"`{key}`" not in row]
    assert not missing, f"metric aliases missing from docs/metric-names.md: {missing}"


def test_every_derived_metric_is_documented() -> None:
    section = read_doc("metric-names.md").split("## Derived metrics", 1)[1]
    rows = table_rows(section)
    missing = [metric.name for metric in DERIVED_METRICS if f"`{metric.name}`" not in rows]
    assert not missing, f"derived metrics missing from docs/metric-names.md: {missing}"


def test_what_a_track_is_and_where_it_comes_from() -> None:
    section = read_doc("using.md").split("## What a track is", 1)[1].split("\n#", 1)[0]
    for words in ("actor_rollout_ref.model.path", "launch command", "unknown model", "rlmon.toml", "first screen"):
        assert words in section, words


def heading_anchors(text: str) -> set[str]:
    """The anchors GitHub gives the headings of a markdown text: lower case, punctuation dropped, spaces to '-'."""
    anchors = set()
    in_code = False
    for line in text.splitlines():
        if line.startswith("```"):
            in_code = not in_code
        if in_code or not line.startswith("#"):
            continue
        title = line.lstrip("#").strip().lower()
        kept = "".join(
            char for char in title if char in " -_" or unicodedata.category(char)[0] in "LN"
        )  # letters and digits of any script
        anchors.add(kept.replace(" ", "-"))
    return anchors


LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_relative_links_point_at_files_and_headings_that_exist() -> None:
    broken = []
    for page in [ROOT / "README.md", ROOT / "benchmarks" / "README.md", *sorted(DOCS.glob("*.md"))]:
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target):
                continue  # https://..., mailto:
            path_part, _, anchor = target.partition("#")
            linked = (page.parent / path_part).resolve() if path_part else page
            if not linked.exists():
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such file)")
            elif anchor and linked.suffix == ".md" and anchor not in heading_anchors(linked.read_text("utf-8")):
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
    assert not broken, "broken links:\n" + "\n".join(broken)


def test_the_architecture_page_names_every_package() -> None:
    """docs/architecture.md says what each package owns: a package added to rlmon/ without a row fails here."""
    page = (DOCS / "architecture.md").read_text(encoding="utf-8")
    packages = sorted(path.parent.name for path in (ROOT / "rlmon").glob("*/__init__.py"))
    assert packages, "no packages found under rlmon/"
    missing = [name for name in packages if f"`rlmon/{name}/`" not in page]
    assert not missing
