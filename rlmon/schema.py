"""The data contract of rlmon, defined once.

Step frame (what the parser, the cache and the catalog return)
    ``step`` (Int64, unique, sorted ascending) plus one Float64 column per logged key, named exactly as
    verl logged it (``actor/grad_norm``, ``val-core/aime24/acc/mean@1``). ``True``/``False`` become 1.0/0.0,
    ``nan``/``inf``/``-inf`` stay non-finite, a key a step did not log is null. At most ``max_keys`` (default
    :data:`MAX_KEYS`) key columns: the first keys to get a value, in file order; keys first logged after them
    are dropped (``RunMeta.keys_dropped_line``), so a log cannot make a frame of any width.

Long frame (what charts and smoothing take)
    ``experiment`` (String, the experiment id), ``step`` (Int64), ``hours`` (Float64, elapsed training
    hours at the end of that step, null when unknown), ``metric`` (String), ``value`` (Float64).

Run metadata (:class:`RunMeta`)
    What one log file says about its run besides the step lines.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import polars as pl

__all__ = [
    "EXPERIMENT",
    "HOURS",
    "LONG_SCHEMA",
    "MAX_KEYS",
    "METRIC",
    "NON_TRAINING_KEY",
    "PALETTE",
    "STEP",
    "VALUE",
    "LogKind",
    "RunMeta",
    "empty_steps",
]

STEP = "step"
MAX_KEYS = 20_000
"""Default bound on the distinct keys of a log and of an experiment (the ``max_keys`` setting): far above any
real verl log (a few hundred), low enough that a step frame of every row stays small."""
EXPERIMENT = "experiment"
HOURS = "hours"
METRIC = "metric"
VALUE = "value"

LONG_SCHEMA: dict[str, pl.DataType] = {
    EXPERIMENT: pl.String(),
    STEP: pl.Int64(),
    HOURS: pl.Float64(),
    METRIC: pl.String(),
    VALUE: pl.Float64(),
}

PALETTE: tuple[str, ...] = (
    # Tableau-10
    "#4c78a8",
    "#f58518",
    "#54a24b",
    "#e45756",
    "#72b7b2",
    "#b279a2",
    "#eeca3b",
    "#9d755d",
    "#ff9da6",
    "#bab0ac",
    # ten more, each picked to be as far (CIEDE2000) from all before it as possible, among mid-lightness,
    # moderately saturated colours
    "#005544",
    "#662288",
    "#881100",
    "#554400",
    "#aa1155",
    "#33bbff",
    "#aaaaee",
    "#998822",
    "#336600",
    "#004477",
)
"""Experiment colours: Tableau-10, then ten more. Every pair differs by CIEDE2000 >= 18 (the closest pair is
Tableau's own ``#e45756``/``#ff9da6``; tests/unit/runs/test_experiment.py checks the bound), so up to 20 experiments in
view get distinguishable colours (see :func:`rlmon.runs.experiment.assign_colors`)."""

NON_TRAINING_KEY = r"^(val-core/|val-aux/|val/|test_score/|timing/save_checkpoint$|timing_s/testing$)"
"""Keys a step line can hold without being a training step: validation, and the DAPO end-of-data save."""

LogKind = Literal["rl", "sft", "none"]
"""``rl``: a verl RL trainer log; ``sft``: verl's SFT trainer (``train/loss`` lines); ``none``: no verl content."""


def empty_steps() -> pl.DataFrame:
    """A step frame with no rows and no metric columns."""
    return pl.DataFrame(schema={STEP: pl.Int64()})


@dataclass
class RunMeta:
    """What one log file says about its run, besides the per-step metrics.

    Every field has a neutral default, so a file with no verl content gives ``RunMeta(kind="none")``.
    Line numbers are 1-based line numbers in the file (``\\r`` counts as a line break).
    """

    kind: LogKind = "none"
    config: dict[str, Any] | None = None
    """The trainer's pretty-printed config dump, reassembled and parsed (``{'actor_rollout_ref': ...}``)."""
    config_line: int | None = None
    launch_command: str | None = None
    """The ``set -x`` echo of the launch command (``python3 -m verl.trainer.main_ppo ...``), if any."""
    shell_vars: dict[str, str] = field(default_factory=dict)
    """Shell variables the log shows being set before the launch (``MODEL_PATH="..."`` of a pasted script,
    ``export VAR=...``, ``+ VAR=...`` of ``set -x``): name -> value as the shell reads it, the last assignment
    wins; at most 200 names, values cut at 1,000 characters. The launch command's ``$VAR`` is read through them."""
    model_names: list[str] = field(default_factory=list)
    """Model paths the log prints outside the config (Hugging Face ``"_name_or_path": "..."``), in order, no
    repeats, at most 16."""
    model_sizes: list[str] = field(default_factory=list)
    """The language models verl says it built, as its model-size print names them (``LlamaForCausalLM contains
    134.52M parameters`` -> ``Llama 134.52M``), in order, no repeats, at most 4."""
    total_steps: int | None = None
    """From ``Total training steps: N``; v0.1 prints none, so there it is ``trainer.total_training_steps`` or
    ``Size of train dataloader`` x ``trainer.total_epochs`` from the config dump (format reference §5.2)."""
    train_batches: int | None = None
    """From ``Size of train dataloader: N``."""
    resume_steps: list[int] = field(default_factory=list)
    """Steps set by ``Setting global step to N`` (or the V1 ``..., setting global step to N``), in file order."""
    resume_paths: list[str] = field(default_factory=list)
    """Folders named by ``Resuming from ...`` / ``Load from checkpoint folder: ...``."""
    from_scratch: bool = False
    """``Training from scratch`` was printed."""
    final_validation: bool = False
    """``Final validation metrics`` was printed (the run reached its end)."""
    final_validation_metrics: dict[str, float] = field(default_factory=dict)
    initial_validation: dict[str, float] = field(default_factory=dict)
    """The pretty-printed ``Initial validation metrics`` dict (v0.1 logs have it only there)."""
    initial_validation_step: int | None = None
    """The step row the print's keys were filled into where its line lacked them (the first step line after
    the print: ``step:0``, the resumed step, or v0.1's first training step); None when no step line followed."""
    failure: str | None = None
    """The first exception line of a fatal failure, e.g. ``NotImplementedError: Reward function ...``."""
    failure_kind: str | None = None
    """``hydra`` | ``ray_task_error`` | ``actor_died`` | ``dapo_max_gen_batches`` | ``traceback``."""
    failure_line: int | None = None
    failure_frames: list[str] = field(default_factory=list)
    """The last (innermost) frames of the failure's traceback, outermost first, each ``path:line in function``
    as logged (at most 5; for a Ray task error, frames of the remote traceback after Ray's wrapper line)."""
    failure_step: int | None = None
    """The last training step logged before the failure (as logged: 0-based in v0.1 logs); None when the run
    failed before its first training step."""
    tqdm_n: int | None = None
    """The last ``Training Progress`` bar's n in ``n/N``."""
    tqdm_total: int | None = None
    step_lines: int = 0
    """Lines that carried a ``step:N - ...`` metrics record."""
    first_step: int | None = None
    last_step: int | None = None
    zero_based: bool = False
    """v0.1 trainer: the first training step is logged as ``step:0``."""
    three_decimals: bool = False
    """Every value of the step lines that has a decimal point has at most 3 decimals (verl <= 0.4.1 printed
    ``f"{v:.3f}"``), and there are at least 20 of them: curves of small quantities are staircases."""
    cut_lines: int = 0
    """Step lines exactly 4096 characters long (captured through wandb, which cuts lines there); their last
    pair was dropped, it may have been cut inside its value."""
    dapo_keep_generating: int = 0
    """DAPO dynamic sampling: how many ``num_gen_batches=N. Keep generating...`` lines."""
    lines: int = 0
    """Lines read (complete lines plus a provisional last one)."""
    warnings: list[str] = field(default_factory=list)
    """Damaged input that was read around: ``line N: reason``."""
    keys_dropped_line: int | None = None
    """The line of the first key dropped because the log's distinct keys reached ``max_keys`` (every key first
    logged after the bound is reached is dropped); None when none was."""

    @property
    def is_rl(self) -> bool:
        return self.kind == "rl"

    def to_json_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every field."""
        return asdict(self)

    @classmethod
    def from_json_dict(cls, data: dict[str, Any]) -> RunMeta:
        """Inverse of :meth:`to_json_dict`; unknown keys are ignored (older cache files)."""
        known = {name: value for name, value in data.items() if name in cls.__dataclass_fields__}
        return cls(**known)
