"""Golden cases: the 21 real verl logs in ``../shared/realdata/verl/`` read through ``rlmon.logs.cache.LogCache``.

Expected values live in :mod:`tests.helpers.realdata_cases`, each with the log lines it was read from. The logs are
read in place (never copied into the repo); every test skips when that folder is absent.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from tests.helpers.realdata_cases import CASES, RealCase


def _rel(expected: float) -> Any:
    # Full-precision logs carry 16-17 significant digits: demand them, not just "close".
    return pytest.approx(expected, rel=1e-12, abs=0.0)


_parsed: dict[str, Any] = {}


def _read(realdata_dir: Path, case: RealCase) -> Any:
    """Parse each file once per test session (memory-only cache).

    The files are finished logs, read as such (``quiet_s=0``): one of them ends without a final newline, and a
    fresh copy of the folder (a new mtime) would otherwise hold back its last pair for ``QUIET_S``.
    """
    if case.file not in _parsed:
        from rlmon.logs.cache import LogCache

        _parsed[case.file] = LogCache(quiet_s=0).read(realdata_dir / case.file)
    return _parsed[case.file]


cases = pytest.mark.parametrize("case", CASES, ids=[case.file for case in CASES])


def test_every_real_log_has_a_case(realdata_dir: Path) -> None:
    on_disk = sorted(path.name for path in realdata_dir.glob("*.log"))
    assert len(on_disk) == 21
    assert sorted(case.file for case in CASES) == on_disk


@cases
def test_steps(realdata_dir: Path, case: RealCase) -> None:
    parsed = _read(realdata_dir, case)
    steps: pl.DataFrame = parsed.steps
    assert steps.schema["step"] == pl.Int64()
    step_values = steps["step"].to_list()
    assert step_values == sorted(set(step_values)), "steps must be unique and ascending"
    if case.steps is None:
        assert steps.height == 0
        assert steps.columns == ["step"]
        assert parsed.meta.first_step is None
        assert parsed.meta.last_step is None
    else:
        first, last, count = case.steps
        assert (step_values[0], step_values[-1], steps.height) == (first, last, count)
        assert (parsed.meta.first_step, parsed.meta.last_step) == (first, last)
    assert parsed.meta.step_lines == case.step_lines


@cases
def test_key_count_and_dtypes(realdata_dir: Path, case: RealCase) -> None:
    steps: pl.DataFrame = _read(realdata_dir, case).steps
    metric_columns = [name for name in steps.columns if name != "step"]
    assert len(metric_columns) == case.keys
    assert steps.columns[0] == "step"
    wrong = {name: str(steps.schema[name]) for name in metric_columns if steps.schema[name] != pl.Float64()}
    assert not wrong, f"metric columns must be Float64: {wrong}"


@cases
def test_spot_values(realdata_dir: Path, case: RealCase) -> None:
    steps: pl.DataFrame = _read(realdata_dir, case).steps
    for step, key, expected in case.spots:
        assert key in steps.columns, f"key {key!r} missing"
        row = steps.filter(pl.col("step") == step)
        assert row.height == 1, f"step {step} missing"
        value = row.item(0, key)
        where = f"step {step}, {key}"
        if expected is None:
            assert value is None, f"{where}: expected null, got {value!r}"
        elif math.isnan(expected):
            assert value is not None and math.isnan(value), where
        else:
            assert value == _rel(expected), where


@cases
def test_metadata(realdata_dir: Path, case: RealCase) -> None:
    meta = _read(realdata_dir, case).meta
    wrong: list[str] = []
    if meta.kind != case.kind:
        wrong.append(f"kind: expected {case.kind!r}, got {meta.kind!r}")
    for name, expected in case.meta.items():
        actual = getattr(meta, name)
        matches = (
            actual == pytest.approx(expected, rel=1e-12, abs=0.0) if isinstance(expected, dict) else actual == expected
        )
        if not matches:
            wrong.append(f"{name}: expected {expected!r}, got {actual!r}")
    for name, needles in case.contains.items():
        actual = getattr(meta, name)
        wrong.extend(
            f"{name}: {needle!r} not in {actual!r}" for needle in needles if actual is None or needle not in actual
        )
    # every mismatch at once, so one run shows all that a log disagrees on
    assert not wrong, "\n".join(wrong)


@cases
def test_failure(realdata_dir: Path, case: RealCase) -> None:
    meta = _read(realdata_dir, case).meta
    if case.failure is None:
        assert meta.failure is None, f"no fatal failure in this log, got {meta.failure!r}"
    else:
        assert meta.failure is not None
        assert case.failure in meta.failure


@cases
def test_config(realdata_dir: Path, case: RealCase) -> None:
    config = _read(realdata_dir, case).meta.config
    if case.config is None:
        assert config is None
        return
    assert isinstance(config, dict), "the config dump was not read"
    for path, expected in case.config.items():
        node: Any = config
        for part in path:
            assert isinstance(node, dict) and part in node, f"config path {'.'.join(path)} missing at {part!r}"
            node = node[part]
        assert node == expected, ".".join(path)
