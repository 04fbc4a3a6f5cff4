"""An experiment's summary as JSON and back, without its step frame: what a server keeps in its cache folder so
that a restart shows every experiment's status and numbers without reading a frame.

:func:`to_state` gives a JSON-ready dict of every field of :class:`~rlmon.runs.experiment.Experiment` but the frame
(its columns are kept); :func:`experiment_from_state` builds the experiment again, its frame read back through
the log cache (:class:`~rlmon.runs.loading.CachedSteps`). What does not have the shape it was written with raises
``ValueError``: a caller reads the experiment's logs instead.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import polars as pl

from rlmon.logs.cache import LogCache
from rlmon.runs.experiment import Algorithm, Experiment, Setting, SourceFile
from rlmon.runs.loading import CachedSteps
from rlmon.schema import STEP, RunMeta

__all__ = ["experiment_from_state", "to_state"]

_DTYPES = {"Int64": pl.Int64(), "Float64": pl.Float64()}
"""The column types a step frame holds (schema.py): ``step`` an Int64, every key a Float64."""
_OWN = frozenset({"algorithm", "settings", "sources", "metas", "steps", "step_source"})
"""The fields :func:`to_state` writes in a form of their own; every other field is a JSON value as it is."""
_SCALARS: dict[str, tuple[type, ...]] = {
    "str": (str,),
    "int": (int,),
    "bool": (bool,),
    "int | None": (int, type(None)),
    "float | None": (int, float, type(None)),
    "str | None": (str, type(None)),
}
"""The JSON types a field of each of these annotations is read back from (a bool is an int to Python: the
``int`` fields refuse it below)."""


def to_state(experiment: Experiment) -> dict[str, Any]:
    """Every field of ``experiment`` as a JSON-ready value, its step frame as its columns and their types.

    Raises
    ------
    TypeError
        A field holds what JSON cannot (a config dump with a set in it): such an experiment is not kept.
    """
    state: dict[str, Any] = {}
    for item in dataclasses.fields(experiment):
        if item.name in _OWN:
            continue
        state[item.name] = _plain(getattr(experiment, item.name))
    state["algorithm"] = _plain(dataclasses.asdict(experiment.algorithm))
    state["settings"] = [_plain(dataclasses.asdict(setting)) for setting in experiment.settings]
    state["sources"] = [_plain(dataclasses.asdict(source)) for source in experiment.sources]
    state["metas"] = [meta.to_json_dict() for meta in experiment.metas]
    state["steps"] = [[name, str(dtype)] for name, dtype in experiment.steps.schema.items()]
    return state


def experiment_from_state(state: Any, *, cache: LogCache) -> Experiment:
    """The experiment :func:`to_state` wrote, its frame read back through ``cache`` (the log cache that read it,
    or one on the same cache folder).

    Raises
    ------
    ValueError
        ``state`` is not what :func:`to_state` writes for an experiment of this version of rlmon.
    """
    try:
        return _experiment(state, cache)
    except (KeyError, TypeError, AttributeError) as error:
        raise ValueError(f"not an experiment's state ({type(error).__name__}: {error})") from error


def _experiment(state: dict[str, Any], cache: LogCache) -> Experiment:
    if not isinstance(state, dict):
        raise ValueError("not an object")
    names = {item.name for item in dataclasses.fields(Experiment)}
    if set(state) != names - {"step_source"}:
        raise ValueError("its fields are not the experiment's")
    values: dict[str, Any] = {}
    for item in dataclasses.fields(Experiment):
        if item.name in _OWN:
            continue
        value = state[item.name]
        allowed = _SCALARS.get(str(item.type))
        if allowed is not None and (
            not isinstance(value, allowed) or (isinstance(value, bool) and bool not in allowed)
        ):
            raise ValueError(f"{item.name} is {value!r}")
        # the annotations are strings (postponed): a tuple field was written as a JSON list
        if str(item.type).startswith("tuple") and isinstance(value, list):
            value = tuple(value)
        values[item.name] = value
    algorithm = dict(state["algorithm"])
    algorithm["evidence"] = tuple(algorithm.get("evidence", ()))
    values["algorithm"] = Algorithm(**algorithm)
    values["settings"] = tuple(_setting(item) for item in state["settings"])
    values["sources"] = tuple(SourceFile(**item) for item in state["sources"])
    values["metas"] = tuple(_meta(item) for item in state["metas"])
    columns: list[tuple[str, str]] = []
    for name, dtype in state["steps"]:
        if not isinstance(name, str) or dtype not in _DTYPES:
            raise ValueError(f"column {name!r} of type {dtype!r}")
        columns.append((name, dtype))
    if not columns or columns[0][0] != STEP or len({name for name, _ in columns}) != len(columns):
        raise ValueError("the frame's first column is not the step, or a column comes twice")
    values["steps"] = _empty_frame(tuple(columns))
    values["step_source"] = None
    return dataclasses.replace(Experiment(**values), step_source=CachedSteps.of(values["sources"], cache))


@functools.lru_cache(maxsize=64)
def _empty_frame(columns: tuple[tuple[str, str], ...]) -> pl.DataFrame:
    """A frame of no rows with these columns: one per set of columns (the experiments of a root mostly log the
    same keys, and a frame of 150 columns takes milliseconds to make: 400 of them were most of a restart)."""
    return pl.DataFrame(schema={name: _DTYPES[dtype] for name, dtype in columns})


def _setting(item: dict[str, Any]) -> Setting:
    item = dict(item)
    item["fields"] = tuple((str(name), value) for name, value in item.get("fields", ()))
    return Setting(**item)


def _meta(item: Any) -> RunMeta:
    if not isinstance(item, dict):
        raise ValueError("a file's metadata is not an object")
    return RunMeta.from_json_dict(item)


def _plain(value: Any) -> Any:
    """``value`` with its tuples as lists, checked to be what JSON holds (TypeError otherwise)."""
    if value is None or isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        if not all(isinstance(key, str) for key in value):
            raise TypeError("a mapping with keys other than text")
        return {key: _plain(item) for key, item in value.items()}
    raise TypeError(f"{type(value).__name__} is not a JSON value")
