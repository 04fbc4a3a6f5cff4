"""The optional ``rlmon.toml`` at a log root: per-experiment labels, colours, order, tracks.

Example::

    # applies to every experiment under this root unless the experiment's table says otherwise
    pass_rate = "pm1"

    [experiments.e2_dapo_4b]          # the folder's path relative to the root ("a/b" quoted)
    label = "E2 · DAPO"
    description = "Clip-higher + dynamic sampling. **No KL loss.**"   # markdown
    color = "#f58518"
    order = 2
    track = "4B"
    hidden = false
    pass_rate = "pm1"                 # "pm1": scores are ±1; "01": scores are 0/1; "raw": as logged

    [alerts]                          # what rlmon watch (or the app's watcher) sends about this root
    targets = ["feishu://token"]      # apprise URLs, sent to besides the alert_targets setting's
    tracks = ["Qwen3-4B"]             # only these tracks' experiments (default: all)
    experiments = ["4B/*"]            # only these experiment ids or folders, * wildcards (default: all)
    kinds = ["crashed", "stalled", "signals"]   # default: the alert_kinds setting
    min_severity = "warning"          # default: the alert_min_severity setting

An error in the file never stops rlmon: it becomes a problem message with the file and line, and the
entries (or the whole file, when it does not parse) fall back to the defaults.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rlmon.errors import ConfigFileError
from rlmon.settings import ALERT_KINDS, ALERT_SEVERITIES

__all__ = [
    "CONFIG_NAME",
    "PASS_RATE_CHOICES",
    "AlertsTable",
    "ExperimentOverrides",
    "RootConfig",
    "parse_root_config",
    "read_root_config",
]

CONFIG_NAME = "rlmon.toml"
PASS_RATE_CHOICES = ("pm1", "01", "raw")
_COLOR = re.compile(r"^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$")


@dataclass(frozen=True)
class ExperimentOverrides:
    """What ``rlmon.toml`` sets for one experiment (None = not set, use the default)."""

    label: str | None = None
    description: str | None = None
    color: str | None = None
    order: int | None = None
    track: str | None = None
    hidden: bool | None = None
    pass_rate: str | None = None

    def merged_over(self, base: ExperimentOverrides) -> ExperimentOverrides:
        """These values, falling back to ``base`` where unset."""
        return ExperimentOverrides(
            label=self.label if self.label is not None else base.label,
            description=self.description if self.description is not None else base.description,
            color=self.color if self.color is not None else base.color,
            order=self.order if self.order is not None else base.order,
            track=self.track if self.track is not None else base.track,
            hidden=self.hidden if self.hidden is not None else base.hidden,
            pass_rate=self.pass_rate if self.pass_rate is not None else base.pass_rate,
        )


@dataclass(frozen=True)
class AlertsTable:
    """The ``[alerts]`` table: what is sent about this root's experiments, and where besides the setting's
    targets. None = not set (the settings decide)."""

    targets: tuple[str, ...] = field(default=(), repr=False)
    """apprise URLs; they hold secrets: never in a message or a repr."""
    targets_line: int | None = None
    """The line of ``targets =`` (a target apprise refuses is reported there)."""
    tracks: tuple[str, ...] | None = None
    experiments: tuple[str, ...] | None = None
    """Experiment ids or folders relative to the root, ``*`` and ``?`` wildcards."""
    kinds: tuple[str, ...] | None = None
    """Among :data:`rlmon.settings.ALERT_KINDS`."""
    min_severity: str | None = None


@dataclass(frozen=True)
class RootConfig:
    """A parsed ``rlmon.toml`` (empty when the root has none)."""

    path: str | None = None
    defaults: ExperimentOverrides = ExperimentOverrides()
    """Top-level keys: apply to every experiment of the root."""
    experiments: dict[str, ExperimentOverrides] = field(default_factory=dict)
    """Experiment path relative to the root (posix) -> its table."""
    problems: tuple[str, ...] = ()
    """``path:line: reason`` for each error found."""
    alerts: AlertsTable | None = None
    """The ``[alerts]`` table; None when the file has none."""

    def for_experiment(self, relative: str) -> ExperimentOverrides:
        """The overrides of one experiment (its table over the root defaults)."""
        return self.experiments.get(relative, ExperimentOverrides()).merged_over(self.defaults)


_FIELDS: dict[str, type] = {
    "label": str,
    "description": str,
    "color": str,
    "order": int,
    "track": str,
    "hidden": bool,
    "pass_rate": str,
}


def _line_of(lines: list[str], key: str, *, section: str | None) -> int | None:
    """1-based line of ``key = ...`` inside ``[experiments.<section>]`` (or the top level), best effort."""
    start = 0
    if section is not None:
        header = re.compile(
            r"^\s*\[\s*experiments\s*\.\s*(?:" + re.escape(section) + r'|"' + re.escape(section) + r'"|\''
            + re.escape(section) + r"')\s*\]"
        )  # fmt: skip
        for index, line in enumerate(lines):
            if header.match(line):
                start = index
                break
        else:
            return None
    pattern = re.compile(r"^\s*[\"']?" + re.escape(key) + r"[\"']?\s*=")
    for index in range(start, len(lines)):
        if index > start and section is None and lines[index].lstrip().startswith("["):
            break
        if index > start and section is not None and lines[index].lstrip().startswith("["):
            break
        if pattern.match(lines[index]):
            return index + 1
    return start + 1 if section is not None else None


def _problem(path: str, line: int | None, reason: str) -> str:
    return ConfigFileError(reason, path=path, line=line).describe()


def _read_table(
    table: dict[str, Any], *, path: str, lines: list[str], section: str | None, problems: list[str]
) -> ExperimentOverrides:
    values: dict[str, Any] = {}
    where = f"[experiments.{section}]" if section is not None else "top level"
    for key, value in table.items():
        if section is None and key in ("experiments", "alerts"):
            continue
        expected = _FIELDS.get(key)
        line = _line_of(lines, key, section=section)
        if expected is None:
            known = ", ".join(_FIELDS)
            problems.append(_problem(path, line, f"unknown key {key!r} in {where} (known: {known}); ignored"))
            continue
        if expected is int and (isinstance(value, bool) or not isinstance(value, int)):
            problems.append(_problem(path, line, f"{key} in {where} must be an integer, not {value!r}; ignored"))
            continue
        if expected is not int and not isinstance(value, expected):
            problems.append(
                _problem(path, line, f"{key} in {where} must be a {expected.__name__}, not {value!r}; ignored")
            )
            continue
        if key == "color" and not _COLOR.match(value):
            problems.append(_problem(path, line, f"color in {where} must look like #rrggbb, not {value!r}; ignored"))
            continue
        if key == "pass_rate" and value not in PASS_RATE_CHOICES:
            problems.append(
                _problem(
                    path,
                    line,
                    f"pass_rate in {where} must be one of {', '.join(PASS_RATE_CHOICES)}, not {value!r}; ignored",
                )
            )
            continue
        values[key] = value
    return ExperimentOverrides(**values)


_ALERT_LISTS = ("targets", "tracks", "experiments", "kinds")


def _read_alerts(table: Any, *, path: str, lines: list[str], problems: list[str]) -> AlertsTable | None:
    """The ``[alerts]`` table; a bad entry is dropped with a problem (a target's value is never quoted)."""
    if not isinstance(table, dict):
        problems.append(_problem(path, _line_of(lines, "alerts", section=None), "alerts must be a table; ignored"))
        return None
    start = next((index for index, line in enumerate(lines) if re.match(r"^\s*\[\s*alerts\s*\]", line)), 0)
    scoped = lines[start:]

    def line_of(key: str) -> int | None:
        found = _line_of(scoped, key, section=None)
        return None if found is None else found + start

    values: dict[str, Any] = {}
    for key, value in table.items():
        line = line_of(key)
        if key in _ALERT_LISTS:
            if not isinstance(value, list) or not all(isinstance(item, str) and item.strip() for item in value):
                problems.append(_problem(path, line, f"{key} in [alerts] must be a list of strings; ignored"))
                continue
            items = tuple(item.strip() for item in value)
            if key == "kinds":
                unknown = [item for item in items if item not in ALERT_KINDS]
                if unknown:
                    problems.append(
                        _problem(path, line, f"kinds in [alerts]: {', '.join(map(repr, unknown))} not among "
                                 f"{', '.join(ALERT_KINDS)}; ignored")
                    )  # fmt: skip
                    items = tuple(item for item in items if item in ALERT_KINDS)
            values[key] = items
            if key == "targets":
                values["targets_line"] = line
        elif key == "min_severity":
            if value not in ALERT_SEVERITIES:
                problems.append(
                    _problem(path, line, f"min_severity in [alerts] must be one of {', '.join(ALERT_SEVERITIES)}, "
                             f"not {value!r}; ignored")
                )  # fmt: skip
                continue
            values[key] = value
        else:
            known = ", ".join((*_ALERT_LISTS, "min_severity"))
            problems.append(_problem(path, line, f"unknown key {key!r} in [alerts] (known: {known}); ignored"))
    return AlertsTable(**values)


def parse_root_config(text: str, *, path: str = CONFIG_NAME) -> RootConfig:
    """Parse the text of an ``rlmon.toml`` (pure).

    Parameters
    ----------
    text
        The file's text.
    path
        Shown in problem messages.

    Returns
    -------
    RootConfig
        Syntax errors give an empty config with one problem naming the line; bad entries are dropped
        one by one, each with a problem.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        message = str(error)
        match = re.search(r"\(at line (\d+), column \d+\)", message)
        line = int(match.group(1)) if match else None
        reason = re.sub(r"\s*\(at line \d+, column \d+\)", "", message) or "not valid TOML"
        problem = _problem(path, line, f"{reason}; the whole file is ignored")
        return RootConfig(path=path, problems=(problem,))
    lines = text.splitlines()
    problems: list[str] = []
    defaults = _read_table(data, path=path, lines=lines, section=None, problems=problems)
    experiments: dict[str, ExperimentOverrides] = {}
    raw = data.get("experiments", {})
    if not isinstance(raw, dict):
        problems.append(_problem(path, _line_of(lines, "experiments", section=None), "experiments must be a table"))
        raw = {}
    for name, table in raw.items():
        if not isinstance(table, dict):
            line = _line_of(lines, name, section=None)
            problems.append(_problem(path, line, f"experiments.{name} must be a table; ignored"))
            continue
        key = name.strip("/")
        experiments[key] = _read_table(table, path=path, lines=lines, section=name, problems=problems)
    alerts = _read_alerts(data["alerts"], path=path, lines=lines, problems=problems) if "alerts" in data else None
    return RootConfig(path=path, defaults=defaults, experiments=experiments, problems=tuple(problems), alerts=alerts)


def read_root_config(root: Path) -> RootConfig:
    """Read ``<root>/rlmon.toml``; a root without one gives an empty :class:`RootConfig`.

    An unreadable or non-UTF-8 file gives a config with one problem; this never raises.
    """
    config_path = root / CONFIG_NAME
    try:
        data = config_path.read_bytes()
    except FileNotFoundError:
        return RootConfig()
    except OSError as error:
        return RootConfig(
            path=str(config_path),
            problems=(_problem(str(config_path), None, f"cannot be read ({error.strerror}); ignored"),),
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        return RootConfig(
            path=str(config_path),
            problems=(_problem(str(config_path), line, "not UTF-8 text; the whole file is ignored"),),
        )
    return parse_root_config(text, path=str(config_path))
