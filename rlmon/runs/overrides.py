"""Hydra overrides on a verl launch command -> a nested config dict. Pure: no filesystem, no environment.

A log without a config dump often still holds the command that started the run: the ``set -x`` echo
(``+ python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo ...``) or a command pasted above the
output (``python3 -m verl.trainer.main_ppo \\`` with one override per line). Its overrides are the settings the
user chose explicitly (verl's defaults are not in it), in Hydra's ``key=value`` grammar (format reference §5.1):

* ``key=value``, ``+key=value`` (add), ``++key=value`` (add or override); ``~key`` (delete) is skipped;
* values: ``true``/``false`` (any case), ``null``, ints, floats (``1e-6``), quoted strings (``'x'``, ``"x"``),
  lists (``['console','wandb']``, ``[console,wandb]``); anything else is a string. A shell variable
  (``$MODEL_PATH``, ``${MODEL_PATH}``) is read through the assignments the log printed (``variables``:
  :attr:`rlmon.schema.RunMeta.shell_vars`); one the log never assigned is kept as text;
* the command is split like a POSIX shell would (quotes, ``\\``-newline continuations); only the words after
  the ``-m <module>`` word count, words starting with ``-`` (``--config-name=...``) are not overrides;
* a key given twice: the later one wins (Hydra applies overrides in order).

:func:`config_from_command` builds the nested dict :func:`rlmon.runs.experiment.extract_settings` and
:func:`rlmon.runs.experiment.infer_algorithm` read; :func:`merge_configs` lays it under a config dump.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from typing import Any

__all__ = [
    "command_model_paths",
    "config_from_command",
    "expand_variables",
    "merge_configs",
    "parse_override_value",
    "parse_overrides",
    "split_command",
]

_KEY_RE = re.compile(r"^[A-Za-z_][\w\-]*(?:\.[\w\-@]+)*$")
_INT_RE = re.compile(r"^[-+]?\d+$")
_FLOAT_RE = re.compile(r"^[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?$")


# ``$VAR``, ``${VAR}``, and ``${VAR:-default}`` / ``${VAR-default}`` (the default when VAR is unset; ``:-`` also
# when it is empty)
_VARIABLE_RE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)([^{}$]*))?\}|([A-Za-z_][A-Za-z0-9_]*))")
_EXPANDED_CHARS = 10_000


def expand_variables(text: str, variables: Mapping[str, str]) -> str:
    """``text`` with each ``$VAR`` / ``${VAR}`` replaced by the value the log showed being assigned; a variable
    the log never assigned is kept as written. A value that names variables itself is read through them too
    (three levels at most, the text kept under 10,000 characters).

    Examples
    --------
    >>> expand_variables("$BASE/${NAME}/global_step_58", {"BASE": "/ckpt", "NAME": "gemma-sft"})
    '/ckpt/gemma-sft/global_step_58'
    >>> expand_variables("$MODEL_PATH", {})
    '$MODEL_PATH'
    >>> expand_variables("${MODEL_PATH:-Qwen/Qwen2.5-7B}", {})
    'Qwen/Qwen2.5-7B'

    A default is taken when the variable is unset (``:-``: or empty), or when the value the log printed is the
    same expression (``MODEL_PATH=${MODEL_PATH:-...}``, a script's way of giving a default).
    """

    def value_of(match: re.Match[str]) -> str:
        name, operator, default = match.group(1) or match.group(4), match.group(2), match.group(3)
        value = variables.get(name)
        if operator is None:
            return match.group(0) if value is None else value
        if value is None or f"${{{name}" in value or (operator == ":-" and not value):
            return default
        return value

    for _ in range(3):
        if "$" not in text:
            break
        expanded = _VARIABLE_RE.sub(value_of, text)
        if expanded == text or len(expanded) > _EXPANDED_CHARS:
            break
        text = expanded
    return text


def split_command(command: str) -> list[str]:
    """The words of a shell command line: quotes removed, ``\\``-newline continuations joined.

    Unbalanced quotes (a command cut short) fall back to splitting on whitespace.

    Examples
    --------
    >>> split_command("python3 -m verl.trainer.main_ppo \\\\\\n  'trainer.logger=[console,wandb]'")
    ['python3', '-m', 'verl.trainer.main_ppo', 'trainer.logger=[console,wandb]']
    """
    joined = re.sub(r"\\\r?\n", " ", command)
    try:
        return shlex.split(joined, posix=True)
    except ValueError:
        return joined.replace("\\", " ").split()


def _split_list_items(text: str) -> list[str]:
    """Top-level comma-separated items of a list body (commas inside quotes or brackets do not split)."""
    items: list[str] = []
    depth = 0
    quote = ""
    current: list[str] = []
    for char in text:
        if quote:
            current.append(char)
            if char == quote:
                quote = ""
            continue
        if char in "'\"":
            quote = char
        elif char in "[{(":
            depth += 1
        elif char in "]})":
            depth -= 1
        elif char == "," and depth == 0:
            items.append("".join(current))
            current = []
            continue
        current.append(char)
    items.append("".join(current))
    return [item for item in (part.strip() for part in items) if item]


def parse_override_value(text: str) -> Any:
    """One override value in Hydra's grammar -> bool, None, int, float, str or list.

    Examples
    --------
    >>> parse_override_value("1e-6"), parse_override_value("True"), parse_override_value("['console','wandb']")
    (1e-06, True, ['console', 'wandb'])
    >>> parse_override_value("$MODEL_PATH")
    '$MODEL_PATH'
    """
    value = text.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    if value.startswith("[") and value.endswith("]"):
        return [parse_override_value(item) for item in _split_list_items(value[1:-1])]
    lowered = value.lower()
    if lowered == "true":
        return True
    if lowered == "false":
        return False
    if lowered == "null":
        return None
    if _INT_RE.match(value):
        return int(value)
    if _FLOAT_RE.match(value) or lowered in ("inf", "-inf", "+inf", "nan"):
        return float(value)
    return value


def _override_words(command: str) -> list[str]:
    """The words after ``-m <module>``: where the overrides are."""
    words = split_command(command)
    for index, word in enumerate(words[:-1]):
        if word == "-m":
            return words[index + 2 :]
    return words


def parse_overrides(command: str, *, variables: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The Hydra overrides of a launch command, as ``{dotted key: value}`` in command order.

    Only the words after ``-m <module>`` are read (environment assignments before ``python3`` are not
    overrides); ``--options``, ``~key`` deletions and words that are not ``key=value`` are skipped. A value's
    ``$VAR`` is read through ``variables`` (:func:`expand_variables`).

    Examples
    --------
    >>> parse_overrides("python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo +trainer.val_before_train=False")
    {'algorithm.adv_estimator': 'grpo', 'trainer.val_before_train': False}
    """
    overrides: dict[str, Any] = {}
    for word in _override_words(command):
        if word.startswith(("-", "~")) or "=" not in word:
            continue
        key, _, raw = word.partition("=")
        key = key.lstrip("+")
        if not _KEY_RE.match(key):
            continue
        overrides.pop(key, None)  # a repeated key moves to its last place, like Hydra applying it again
        overrides[key] = parse_override_value(expand_variables(raw, variables or {}))
    return overrides


def command_model_paths(command: str | None, *, variables: Mapping[str, str] | None = None) -> list[str]:
    """Every model path a launch command gives (``actor_rollout_ref.model.path=``, ``critic.model.path=``, ...),
    in command order, the ones a later word overrides included (the base model a script sets before the
    checkpoint given after it); ``$VAR`` read through ``variables``.

    Examples
    --------
    >>> command_model_paths("python3 -m verl.trainer.main_ppo actor_rollout_ref.model.path=google/gemma-2-2b-it "
    ...                     "actor_rollout_ref.model.path=$SFT/global_step_58", variables={"SFT": "/ckpt"})
    ['google/gemma-2-2b-it', '/ckpt/global_step_58']
    """
    paths: list[str] = []
    for word in _override_words(command or ""):
        key, sep, raw = word.partition("=")
        if sep and (key.lstrip("+") == "model.path" or key.endswith(".model.path")):
            value = parse_override_value(expand_variables(raw, variables or {}))
            if isinstance(value, str) and value and value not in paths:
                paths.append(value)
    return paths


def config_from_command(command: str | None, *, variables: Mapping[str, str] | None = None) -> dict[str, Any] | None:
    """A nested config dict from a launch command's overrides (``$VAR`` read through ``variables``); None when it
    holds none.

    ``actor_rollout_ref.rollout.n=8`` becomes ``{"actor_rollout_ref": {"rollout": {"n": 8}}}``. A later key
    below a path that an earlier one set to a plain value replaces that value.

    Examples
    --------
    >>> config_from_command("python3 -m verl.trainer.main_ppo data.train_batch_size=8 actor_rollout_ref.rollout.n=8")
    {'data': {'train_batch_size': 8}, 'actor_rollout_ref': {'rollout': {'n': 8}}}
    """
    if not command:
        return None
    overrides = parse_overrides(command, variables=variables)
    if not overrides:
        return None
    config: dict[str, Any] = {}
    for key, value in overrides.items():
        node = config
        *parents, leaf = key.split(".")
        for part in parents:
            child = node.get(part)
            if not isinstance(child, dict):
                child = {}
                node[part] = child
            node = child
        node[leaf] = value
    return config


def merge_configs(dump: Mapping[str, Any] | None, command: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A config dump completed by a command's overrides: per key the dump's value wins, the overrides only
    fill keys the dump lacks (the dump is the resolved config the trainer ran with; the command is what the
    user typed, possibly through ``$VARIABLES``).

    Examples
    --------
    >>> merge_configs({"data": {"train_batch_size": 8}}, {"data": {"train_batch_size": 16, "max_prompt_length": 512}})
    {'data': {'train_batch_size': 8, 'max_prompt_length': 512}}
    """
    if dump is None and command is None:
        return None
    merged: dict[str, Any] = dict(command or {})
    for key, value in (dump or {}).items():
        below = merged.get(key)
        if isinstance(value, Mapping) and isinstance(below, Mapping):
            merged[key] = merge_configs(value, below)
        else:
            merged[key] = value
    return merged
