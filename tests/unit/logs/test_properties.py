"""Property tests: random metric dicts printed the way verl prints them parse back exactly, whatever noise
surrounds them; and feeding a log to the cache in random chunks (with restarts from the disk cache between
them) ends with the same answer as one cold parse, column order included: generated logs, damaged step
lines, the files of tests/data and the real logs of ../shared/realdata/verl.

The two formatters are verl's own (format reference §1.1), applied here without numpy:

* v0.1-v0.4.1 ``f"{k}:{v:.3f}"`` (numbers and bools; numpy scalars format like floats), and
* v0.5.0+ ``f"{k}:{pprint.pformat(v)}"``, where numpy >= 2 scalars print as ``np.float64(…)``,
  ``np.float32(…)``, ``np.int64(…)`` — those wrapper strings are built here from the value's repr.
"""

from __future__ import annotations

import itertools
import math
import pprint
import random
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from rlmon.logs.cache import QUIET_S, LogCache
from rlmon.logs.parse import parse_jsonl_bytes, parse_log_bytes, parse_log_text
from tests.helpers.logs import Clock
from tests.helpers.paths import DATA, REALDATA

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- values -------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Logged:
    """One metric value as the trainer held it."""

    kind: str  # "int" | "float" | "bool" | "np.float64" | "np.float32" | "np.int64"
    value: Any

    def v05(self) -> tuple[str, float]:
        """``pprint.pformat(v)`` under numpy >= 2, and the number it stands for."""
        if self.kind in ("int", "float", "bool"):
            text = pprint.pformat(self.value)
        elif self.kind == "np.int64":
            text = f"np.int64({self.value!r})"
        else:  # np.float64 / np.float32: numpy 2 repr = wrapper around the shortest round-trip digits
            text = f"{self.kind}({_float_repr(self.value)})"
        return text, float(self.value)

    def v01(self) -> tuple[str, float]:
        """``f"{v:.3f}"`` and the number it stands for (the rounded one)."""
        text = f"{self.value:.3f}"
        return text, float(text)


def _float_repr(value: float) -> str:
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return repr(value)


# float32 values whose shortest float32 digits equal Python's repr: small dyadic rationals
FLOAT32 = st.builds(lambda k, j: k / 2**j, st.integers(-4096, 4096), st.integers(0, 10)) | st.sampled_from(
    [math.nan, math.inf, -math.inf]
)
FLOATS = st.floats(allow_nan=True, allow_infinity=True, width=64) | st.sampled_from(
    [0.0, -0.0, 1e-06, 6.183079727109635e-10, 0.3159233629703522, 1e20, -0.0004]
)
INTS = st.integers(-(10**12), 10**12)

LOGGED = st.one_of(
    st.builds(Logged, st.just("int"), INTS),
    st.builds(Logged, st.just("float"), FLOATS),
    st.builds(Logged, st.just("bool"), st.booleans()),
    st.builds(Logged, st.just("np.float64"), FLOATS),
    st.builds(Logged, st.just("np.float32"), FLOAT32),
    st.builds(Logged, st.just("np.int64"), INTS),
)

# --- keys ---------------------------------------------------------------------------------------------------------
REAL_KEYS = [
    "actor/pg_loss",
    "actor/lr(1e-4)",
    "critic/score/mean",
    "training/global_step",
    "timing_s/step",
    "timing/step",
    "val-core/openai/gsm8k/acc/mean@1",
    "val-core/Hothan/OlympiadBench:OE_MM_maths_en_COMP/acc/mean@1",
    "val-aux/aime24/score/maj@32/std",
    "rollout_corr/rollout_is_mean",
    "mismatch/mismatch_kl",
    "train/num_gen_batches",
    "perf/max_memory_allocated_gb",
    "num_turns/min",
]
SEGMENT = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCXYZ0123456789_-.@():", min_size=1, max_size=12)
KEY = st.sampled_from(REAL_KEYS) | st.lists(SEGMENT, min_size=1, max_size=4).map("/".join)
METRICS = st.dictionaries(KEY, LOGGED, min_size=1, max_size=12)

# --- noise (never a step record) --------------------------------------------------------------------------------
PREFIXES = [
    "",
    "(TaskRunner pid=678203) ",
    "(main_task pid=54569) ",
    "(TaskRunnerV1 pid=1) ",
    "(WorkerDict pid=1609, ip=172.26.135.50) ",
    "(wiQkzJWorkerDict_0:0 WorkerDict pid=934604) ",
    "(raylet) ",
    "(pid=) ",
    "\x1b[36m(TaskRunner pid=20910)\x1b[0m ",
    "\x1b[2m\x1b[36m(main_task pid=54569)\x1b[0m ",
]
NOISE_LINES = [
    "Training Progress:  10%|█         | 21/210 [1:30:25<14:38:40, 278.94s/it]",
    "\rTraining Progress:  11%|█▏        | 22/210 [1:35:00<14:30:00, 277.00s/it]",
    "WARNING 07-01 15:09:40 [cuda.py:93] something about step 3",
    "local_global_step_folder: checkpoints/run/global_step_20",
    "  training/global_step:7 - training/epoch:1",
    "timing/step:8 - x:3.0",
    "A worker died or was killed while executing a task by an unexpected system error.",
    "wandb: Syncing run 进度 ✓",
    "Flash Attention 2.0 only supports torch.float16 and torch.bfloat16 dtypes",
    "[prompt] what is 2 + 2? [response] 4 [score] 1.0",
    " [repeated 15x across cluster]",
    "",
]
RANDOM_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=["Cs", "Cc"], blacklist_characters="\x1f"), max_size=60
).filter(lambda text: "step:" not in text and "pid=" not in text)
NOISE = st.tuples(st.sampled_from(PREFIXES), st.sampled_from(NOISE_LINES) | RANDOM_TEXT).map("".join)

# Multi-line run metadata (§3.2, §5, §6): blocks the metadata reader must reassemble across chunk boundaries.
_CONFIG_DUMP = pprint.pformat(
    {
        "actor_rollout_ref": {"actor": {"optim": {"lr": 1e-06}}, "rollout": {"n": 8, "name": "vllm"}},
        "algorithm": {"adv_estimator": "grpo", "kl_ctrl": {"kl_coef": 0.001, "type": "fixed"}},
        "data": {"max_prompt_length": 1024, "max_response_length": 16384, "train_batch_size": 256},
        "trainer": {"experiment_name": "进度/run 1", "total_epochs": 15, "total_training_steps": None},
    }
)
META_BLOCKS = [
    [f"(TaskRunner pid=77) {line}" for line in _CONFIG_DUMP.splitlines()],
    [
        "(TaskRunner pid=5) (\"Final validation metrics: {'val-core/openai/gsm8k/acc/mean@1': \"",
        "(TaskRunner pid=5)  'np.float64(0.7125), '",
        "(TaskRunner pid=5)  \"'val-core/Hothan/OlympiadBench:OE_MM_maths_en_COMP/acc/mean@1': \"",
        "(TaskRunner pid=5)  \"np.float64(0.3125), 'val-aux/num_turns/min': np.int64(2)}\")",
    ],
    [
        "Error executing job with overrides: ['trainer.nnodes=2']",
        "Traceback (most recent call last):",
        '  File "/workspace/verl/verl/trainer/main_ppo.py", line 64, in main',
        "ray.exceptions.RayTaskError(RuntimeError): ray::TaskRunner.run() (pid=300, ip=10.0.0.1)",
        "RuntimeError: CUDA error: an illegal memory access was encountered",
    ],
    [
        "(TaskRunner pid=22) Load from checkpoint folder: /checkpoints/global_step_100",
        "(TaskRunner pid=22) Setting global step to 100",
        "(TaskRunner pid=22) Resuming from /checkpoints/global_step_100",
    ],
    ["(TaskRunner pid=1) Size of train dataloader: 29, Size of val dataloader: 1", "Total training steps: 435"],
    ["(TaskRunner pid=300) num_prompt_in_batch=200 < prompt_bsz=512", "num_gen_batches=1. Keep generating..."],
    ["(TaskRunner pid=1) Training from scratch"],
    ["ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task."],
]
META_NOISE = st.sampled_from(META_BLOCKS).map("\n".join)
GLUED_BEFORE = st.sampled_from(
    ["", "Training Progress:  20%|██        | 1/5 [00:03<00:12, 3.00s/it]\r", "Epoch 1/3:  83%|#####  | 29/35 [06:26]"]
)
GLUED_AFTER = st.sampled_from(
    ["", "(TaskRunnerV1 pid=1) INFO:2026-09-11 10:00:00,000:saved", "(WorkerDict pid=7, ip=10.0.0.2) step:99 - z:1"]
)


@dataclass(frozen=True)
class Record:
    step: int
    metrics: dict[str, Logged]
    era: str  # "v01" | "v05"
    prefix: str
    before: str
    after: str

    def line(self) -> str:
        pairs = []
        for key, logged in self.metrics.items():
            text, _ = logged.v01() if self.era == "v01" else logged.v05()
            pairs.append(f"{key}:{text}")
        return f"{self.prefix}{self.before}step:{self.step} - " + " - ".join(pairs) + self.after

    def expected(self) -> dict[str, float]:
        return {key: (logged.v01() if self.era == "v01" else logged.v05())[1] for key, logged in self.metrics.items()}


RECORD = st.builds(
    Record,
    step=st.integers(0, 10**6) | st.integers(0, 5),
    metrics=METRICS,
    era=st.sampled_from(["v01", "v05"]),
    prefix=st.sampled_from(PREFIXES),
    before=GLUED_BEFORE,
    after=GLUED_AFTER,
)


@st.composite
def logs(draw: st.DrawFn, *, with_meta: bool = False) -> tuple[str, list[Record]]:
    """A log: step records in random order (steps may repeat) with noise lines between them.

    ``with_meta`` also mixes in multi-line run metadata (config dump, validation print, failures, resume).
    """
    records = draw(st.lists(RECORD, min_size=0, max_size=8))
    noise = NOISE | META_NOISE if with_meta else NOISE
    lines: list[str] = []
    for record in records:
        lines.extend(draw(st.lists(noise, max_size=3)))
        lines.append(record.line())
    lines.extend(draw(st.lists(noise, max_size=3)))
    ending = draw(st.sampled_from(["\n", "\r\n"]))
    text = "\n".join(lines).replace("\n", ending)
    return text + draw(st.sampled_from(["", ending])), records


def expected_table(records: list[Record]) -> dict[int, dict[str, float]]:
    """Merge per step in file order: a later line wins per key; keys a later line lacks keep their value."""
    table: dict[int, dict[str, float]] = {}
    for record in records:
        table.setdefault(record.step, {}).update(record.expected())
    return table


def same(actual: Any, expected: float) -> bool:
    if math.isnan(expected):
        return isinstance(actual, float) and math.isnan(actual)
    return isinstance(actual, float) and actual == expected


# --- properties ---------------------------------------------------------------------------------------------------
@SETTINGS
@given(st.booleans().flatmap(lambda with_meta: logs(with_meta=with_meta)))
def test_printed_metrics_parse_back_exactly(log: tuple[str, list[Record]]) -> None:
    text, records = log
    steps = parse_log_text(text).steps
    table = expected_table(records)
    keys = {key for values in table.values() for key in values}
    assert steps.schema["step"] == pl.Int64()
    assert set(steps.columns) == {"step", *keys}
    assert all(dtype == pl.Float64() for name, dtype in steps.schema.items() if name != "step")
    assert steps["step"].to_list() == sorted(table)
    for row in steps.to_dicts():
        want = table[row["step"]]
        for key in keys:
            if key in want:
                assert same(row[key], want[key]), (row["step"], key, row[key], want[key])
            else:
                assert row[key] is None, (row["step"], key, row[key])


def _chunks(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({cut % (len(data) + 1) for cut in cuts} | {0, len(data)})
    return [data[start:end] for start, end in itertools.pairwise(points)]


@SETTINGS
@given(logs(with_meta=True), st.lists(st.integers(0, 10**6), max_size=10), st.integers(0, 10**6), st.booleans())
def test_random_chunks_give_the_cold_result(
    log: tuple[str, list[Record]], cuts: list[int], inside_char: int, restart: bool
) -> None:
    text, _ = log
    data = "(WorkerDict pid=3) 进度 ██\n".encode() + text.encode("utf-8") + "\n(raylet) ✓ done".encode()
    # one cut always lands inside a multi-byte character (before one of its continuation bytes)
    continuation = [index for index, byte in enumerate(data) if 0x80 <= byte < 0xC0]
    cuts = [*cuts, continuation[inside_char % len(continuation)]]
    cold = parse_log_bytes(data)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "logs" / "run.log"
        path.parent.mkdir()
        cache_dir = Path(folder) / "cache" if restart else None
        path.write_bytes(b"")
        clock = Clock()
        cache = LogCache(cache_dir, clock=clock)
        result = cache.read(path)
        for chunk in _chunks(data, cuts):
            with open(path, "ab") as handle:
                handle.write(chunk)
            if restart:
                # a new process each refresh: only the persisted state carries over
                cache = LogCache(cache_dir, clock=clock)
            result = cache.read(path)
        clock.now += QUIET_S + 60  # the writer is done: the unterminated last line counts in full
        result = cache.read(path)
        assert_frame_equal(result.steps, cold.steps)
        got_meta, want_meta = result.meta.to_json_dict(), cold.meta.to_json_dict()
        for meta in (got_meta, want_meta):
            meta.pop("warnings")
        assert got_meta == want_meta


# --- incremental == cold, on real logs, the test data and damaged step lines ---------------------------------------
DATA_FILES = sorted((*DATA.glob("*.log"), *DATA.glob("*.jsonl")), key=lambda path: path.stat().st_size)
_cold: dict[Path, Any] = {}


def cold_read(path: Path) -> Any:
    """One cold parse per file and test run."""
    if path not in _cold:
        data = path.read_bytes()
        _cold[path] = parse_jsonl_bytes(data) if path.suffix == ".jsonl" else parse_log_bytes(data)
    return _cold[path]


def read_in_pieces(data: bytes, suffix: str, cuts: list[int], restarts: list[bool]) -> Any:
    """Write ``data`` in pieces, reading after each (a fresh process reading the disk cache where ``restarts``
    says so); the last read comes once the file is quiet."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "logs" / f"run{suffix}"
        path.parent.mkdir()
        cache_dir = Path(folder) / "cache"
        clock = Clock()
        cache = LogCache(cache_dir, clock=clock)
        path.write_bytes(b"")
        for chunk, restart in zip(_chunks(data, cuts), itertools.cycle(restarts or [False]), strict=False):
            with open(path, "ab") as handle:
                handle.write(chunk)
            if restart:
                cache = LogCache(cache_dir, clock=clock)
            cache.read(path)
        clock.now += QUIET_S + 60
        return cache.read(path)


def assert_same_as_cold(result: Any, cold: Any) -> None:
    assert_frame_equal(result.steps, cold.steps)  # rows, values and column order
    got_meta, want_meta = result.meta.to_json_dict(), cold.meta.to_json_dict()
    for meta in (got_meta, want_meta):
        meta.pop("warnings")
    assert repr(got_meta) == repr(want_meta)  # repr: nan == nan


CUTS = st.lists(st.integers(0, 10**7), min_size=1, max_size=8)
RESTARTS = st.lists(st.booleans(), max_size=4)


@SETTINGS
@given(st.sampled_from(DATA_FILES), CUTS, RESTARTS)
def test_test_data_read_in_pieces_gives_the_cold_result(path: Path, cuts: list[int], restarts: list[bool]) -> None:
    assert_same_as_cold(read_in_pieces(path.read_bytes(), path.suffix, cuts, restarts), cold_read(path))


REAL_LOGS = sorted(path.name for path in REALDATA.glob("*.log")) or ["(absent)"]


@pytest.mark.parametrize("name", REAL_LOGS)
def test_a_real_log_read_in_pieces_gives_the_cold_result(realdata_dir: Path, name: str) -> None:
    path = realdata_dir / name
    data = path.read_bytes()
    rng = random.Random(name)
    for restarts in ([False], [True, False]):
        cuts = sorted(rng.sample(range(1, len(data)), 4))
        assert_same_as_cold(read_in_pieces(data, path.suffix, cuts, restarts), cold_read(path))


# step lines with nothing usable, values that do not read, keys damaged in one place and fine in another,
# an initial-validation print whose keys fill the next step line
DAMAGED_PAIRS = [
    "a:1.0",
    "a:xyz",
    "a:None",
    "b:np.float64(0.5)",
    "zzz",
    "",
    "k:bad",
    "k:2.5",
    "x:1 -",
    "c:d:1e-3",
    "late:3.0",
    "v/a:0.125",
    "step:9",
]
DAMAGED_LINE = st.builds(
    lambda prefix, step, pairs: f"{prefix}step:{step} - " + " - ".join(pairs),
    st.sampled_from(PREFIXES[:3]),
    st.integers(0, 4),
    st.lists(st.sampled_from(DAMAGED_PAIRS), max_size=4),
)
INITIAL_PRINT = "(\"Initial validation metrics: {'v/a': 0.5, 'late': 0.25, 'k': 1.5}\")"
DAMAGED_LOG = st.lists(
    DAMAGED_LINE | RECORD.map(Record.line) | NOISE | st.just(INITIAL_PRINT), min_size=1, max_size=14
).map("\n".join)


@SETTINGS
@given(DAMAGED_LOG, st.sampled_from(["", "\n"]), CUTS, RESTARTS)
def test_damaged_logs_read_in_pieces_give_the_cold_result(
    text: str, ending: str, cuts: list[int], restarts: list[bool]
) -> None:
    data = (text + ending).encode("utf-8")
    assert_same_as_cold(read_in_pieces(data, ".log", cuts, restarts), parse_log_bytes(data))
