"""Wrapper-heavy logs, built from rules: every column carries numpy-2 wrappers on some rows.

Like the file ``../shared/bench/genlog.py`` writes (verl v0.5+ with numpy 2: a value is printed as ``repr``,
``np.float64(…)``, ``np.float32(…)``, ``np.int64(…)``, 3-decimal, ``nan``, or a boolean), with noise lines
that hold ``timing/step:`` (not a step marker) between the step lines. Every value is chosen so that its text
reads back exactly (multiples of 1/8), so the expected frame is known by construction, not by running rlmon.
"""

from __future__ import annotations

import math

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from rlmon.logs.parse import parse_log_bytes

KEYS = [
    "actor/pg_loss",
    "critic/score/mean",
    "timing_s/step",
    "val-core/Hothan/OlympiadBench:OE_MM_maths_en_COMP/acc/mean@1",
    "perf/total_num_tokens",
    "training/global_step",
]
FLAG = "actor/is_offload"
STEPS = 48
NOISE = [
    "(TaskRunner pid=4242) timing/step:1.25 - not a metrics line",
    "\x1b[36m(WorkerDict pid=5151)\x1b[0m INFO 09-11 10:41:00 [cuda.py:93] Using Flash Attention backend.",
    "(raylet) [2026-09-11 10:41:00,000 E 123 456] logging.cc:497: worker_pool.cc: some warning text here",
    "Training Progress:   3%|▎         | 5/150 [1:02:03<30:00:00, 744.1s/it]",
]
PREFIXES = ["", "(TaskRunner pid=4242) ", "\x1b[36m(TaskRunner pid=4242)\x1b[0m "]


def value_of(step: int, column: int) -> float:
    """The value logged for key ``column`` at ``step``: a multiple of 1/8, negative on some rows."""
    sign = -1 if (step + column) % 5 == 0 else 1
    return sign * (step * 8 + column * 3) / 8


def logged(step: int, column: int) -> tuple[str, float]:
    """(text as logged, value it stands for); the form cycles so each column sees every form."""
    value = value_of(step, column)
    form = (step + 2 * column) % 7
    if form == 0:
        return repr(value), value
    if form == 1:
        return f"np.float64({value!r})", value
    if form == 2:
        return f"np.float32({value!r})", value
    if form == 3:
        return f"{value:.3f}", value
    if form == 4:
        return f"np.int64({int(value)})", float(int(value))
    if form == 5:
        return "np.float64(nan)", math.nan
    return "nan", math.nan


FLAG_FORMS = [("True", 1.0), ("False", 0.0), ("np.bool_(True)", 1.0), ("np.bool_(False)", 0.0), ("True_", 1.0)]
"""A boolean key, printed bare or wrapped, and what it reads as."""


def build() -> tuple[bytes, pl.DataFrame]:
    lines = ["(TaskRunner pid=4242) Total training steps: 100"]
    expected: dict[str, list[float]] = {name: [] for name in [*KEYS, FLAG]}
    for step in range(1, STEPS + 1):
        lines += [NOISE[(step + index) % len(NOISE)] for index in range(step % 3 + 1)]
        pairs = []
        for column, key in enumerate(KEYS):
            text, value = logged(step, column)
            pairs.append(f"{key}:{text}")
            expected[key].append(value)
        flag_text, flag_value = FLAG_FORMS[step % len(FLAG_FORMS)]
        pairs.append(f"{FLAG}:{flag_text}")
        expected[FLAG].append(flag_value)
        lines.append(f"{PREFIXES[step % 3]}step:{step} - " + " - ".join(pairs))
    frame = pl.DataFrame(
        {"step": list(range(1, STEPS + 1)), **expected},
        schema={"step": pl.Int64, **dict.fromkeys(expected, pl.Float64)},
    )
    return ("\n".join(lines) + "\n").encode(), frame


def test_the_rules_give_every_form_in_every_column() -> None:
    data, _expected = build()
    text = data.decode()
    for key in KEYS:
        for form in ("np.float64(", "np.float32(", "np.int64(", "nan"):
            assert f"{key}:{form}" in text, (key, form)


@pytest.mark.parametrize("block_bytes", [1 << 24, 4096, 700])
def test_wrapped_values_in_every_column_read_as_their_numbers(block_bytes: int) -> None:
    data, expected = build()
    parsed = parse_log_bytes(data, block_bytes=block_bytes)
    assert_frame_equal(parsed.steps, expected)
    assert parsed.meta.step_lines == STEPS
    assert parsed.meta.total_steps == 100


def test_numpy_booleans_read_as_one_and_zero() -> None:
    # numpy >= 2 prints np.bool_ as np.True_ / np.False_ (repr), beside the plain True / False of Python bools
    log = parse_log_bytes(b"step:1 - a:np.True_ - b:np.False_ - c:True - d:False\n")
    assert log.steps.select("a", "b", "c", "d").row(0) == (1.0, 0.0, 1.0, 0.0)
