"""The README documents every setting and every CLI command, and starts with the two commands users run."""

from __future__ import annotations

from rlmon.cli import build_parser
from rlmon.settings import SETTINGS
from tests.helpers.paths import REPO_ROOT

README = (REPO_ROOT / "README.md").read_text(encoding="utf-8")


def test_every_setting_is_documented() -> None:
    missing = [spec.name for spec in SETTINGS if f"`{spec.option}`" not in README or f"`{spec.env}`" not in README]
    assert not missing, f"settings missing from README.md: {missing}"


def test_every_command_is_documented() -> None:
    subparsers = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    missing = [name for name in subparsers if f"rlmon {name}" not in README]
    assert not missing, f"commands missing from README.md: {missing}"


def test_first_two_commands_install_and_run() -> None:
    block = README.split("```bash", 1)[1].split("```", 1)[0]
    commands = [line for line in block.splitlines() if line and not line.startswith("#")]
    assert commands[0] == "pip install -e . && streamlit run streamlit_app.py"
    assert commands[1] == 'pip install -e ".[dev]" && pytest'


def test_every_metric_alias_is_documented() -> None:
    """Each row of the alias table (current name -> older names) appears in the README's section on it."""
    from rlmon.runs.metrics import METRIC_ALIASES

    section = README.split("## Metric names across verl versions", 1)[1].split("\n## ", 1)[0]
    rows = {line.split("|")[1].strip(): line for line in section.splitlines() if line.startswith("| `")}
    missing = []
    for name, keys in METRIC_ALIASES.items():
        row = rows.get(f"`{name}`")
        if row is None:
            missing.append(name)
            continue
        missing += [key for key in keys if key != name and f"`{key}`" not in row]
    assert not missing, f"metric aliases missing from README.md: {missing}"


def test_what_a_track_is_and_where_it_comes_from() -> None:
    section = README.split("### What a track is", 1)[1].split("\n#", 1)[0]
    for words in ("actor_rollout_ref.model.path", "launch command", "unknown model", "rlmon.toml", "first screen"):
        assert words in section, words
