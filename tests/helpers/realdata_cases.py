"""Expected parse results for the 21 real verl logs in ``../shared/realdata/verl/``.

Every number here was read off the raw log text by hand (grep, sed, cat -A, small regex one-liners over
the bytes), never by running rlmon. "line N" is the line number ``grep -n`` prints for the raw file (the
``# source:`` header is line 1; only ``\\n`` counts, so it may differ from RunMeta's ``\\r``-aware
numbering). Each case names the lines its values come from.

Fields of :class:`RealCase`
    ``steps``: ``(first, last, distinct)`` over the merged per-step table, or ``None`` for no step lines.
    ``step_lines``: lines that carry a ``step:N - ...`` record (``grep -c``; same-step lines counted each).
    ``keys``: distinct metric keys over the whole file (= columns minus ``step``).
    ``spots``: ``(step, key, value)``; ``None`` means the step's row exists but that key is null there.
    ``meta``: RunMeta fields compared with ``==`` (dicts of floats with ``pytest.approx``).
    ``contains``: RunMeta fields (str or list) that must contain each given substring / item.
    ``failure``: a substring of ``meta.failure`` (``None``: no failure must be reported).
    ``config``: ``{path: value}`` into ``meta.config``; ``None``: ``meta.config is None``;
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["CASES", "RealCase"]

"""Sentinel for ``RealCase.config``: the case says why the config is not asserted."""

Spot = tuple[int, str, "float | None"]


@dataclass(frozen=True)
class RealCase:
    file: str
    kind: str
    steps: tuple[int, int, int] | None
    step_lines: int
    keys: int
    spots: tuple[Spot, ...]
    meta: dict[str, Any]
    failure: str | None = None
    config: Any = None
    contains: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.file


def _meta(**fields: Any) -> dict[str, Any]:
    """Every case checks these RunMeta fields; a case states only where its log differs from the default."""
    expected: dict[str, Any] = {
        "total_steps": None,
        "train_batches": None,
        "resume_steps": [],
        "from_scratch": False,
        "final_validation": False,
        "tqdm_n": None,
        "tqdm_total": None,
        "failure_kind": None,
        "failure_frames": [],
        "failure_step": None,
        "three_decimals": False,
        "cut_lines": 0,
    }
    expected.update(fields)
    return expected


CASES: list[RealCase] = [
    # v0.1 PPO, 0-based steps 0..434 (line 252 .. line 1990), one line per step; no tqdm, no
    # "Total training steps". Config dump lines 10-134 is interleaved with (WorkerDict pid=55154) lines.
    RealCase(
        file="ehl-qwen25-05b-ppo-gsm8k-v0.1-2024-12.log",
        kind="rl",
        steps=(0, 434, 435),
        step_lines=435,
        # 40 on line 252 + timing/testing + val/test_score/openai/gsm8k (line 297) + the initial validation's
        # test_score/openai/gsm8k (line 251, printed only), filled into step 0, the first step line after it
        keys=43,
        spots=(
            (0, "critic/kl", -0.0),  # line 252 `critic/kl:-0.000`
            (0, "actor/lr(1e-4)", 0.010),  # line 252, key with parentheses
            (0, "critic/vpred_mean", -1.928),  # line 252
            (0, "val/test_score/openai/gsm8k", None),  # no validation on step 0 (v0.1: (step+1) % 10)
            (0, "test_score/openai/gsm8k", 0.0007621951219512195),  # line 251, the Initial validation print
            (1, "test_score/openai/gsm8k", None),
            (9, "val/test_score/openai/gsm8k", 0.013),  # line 297
            (429, "val/test_score/openai/gsm8k", 0.543),  # line 1985
            (434, "critic/advantages/min", -8.766),  # line 1990, last step
            (434, "response_length/mean", 272.527),  # line 1990
        ),
        meta=_meta(
            three_decimals=True,  # grep of the step lines: no value with 4+ decimals, an exponent or np.
            # v0.1 prints no total (format reference §5.2): 29 batches x trainer.total_epochs 15 from the dump
            total_steps=435,
            train_batches=29,  # line 139 `Size of train dataloader: 29`
            final_validation=True,  # line 2047
            zero_based=True,
            initial_validation={"test_score/openai/gsm8k": 0.0007621951219512195},  # line 251
            initial_validation_step=0,  # line 252 `step:0 - timing/gen:18.859 - ...` follows the print
            final_validation_metrics={"test_score/openai/gsm8k": 0.5685975609756098},  # line 2047
        ),
        config={
            ("algorithm", "adv_estimator"): "gae",  # line 52
            ("data", "max_response_length"): 512,  # line 79
            ("trainer", "total_epochs"): 15,  # line 134, after 27 interleaved WorkerDict lines
            ("trainer", "logger"): ["console"],  # line 101
        },
    ),
    # v0.1 PPO, resp 256. Older Ray colouring ESC[2mESC[36m; a non-fatal worker traceback on lines 115-118
    # (`TypeError: '0' has type str` while registering a metric agent) long before training: not a failure.
    # Config line 104 has `(pid=934604) ` glued on its end. Two NUL bytes on worker lines 125, 149.
    RealCase(
        file="ehl-qwen25-05b-ppo-gsm8k-resp256-v0.1-2024-12.log",
        kind="rl",
        steps=(0, 434, 435),
        step_lines=435,
        keys=43,  # 42 logged keys + test_score/openai/gsm8k of the Initial validation print (line 271)
        spots=(
            (0, "critic/vpred_mean", 0.255),  # line 272
            (0, "test_score/openai/gsm8k", 0.0),  # line 271 `{'test_score/openai/gsm8k': 0.0}`, filled into step 0
            (0, "critic/lr(1e-4)", 0.100),  # line 272
            (9, "val/test_score/openai/gsm8k", 0.0),  # line 305 `val/test_score/openai/gsm8k:0.000`
            (434, "actor/pg_loss", -0.021),  # line 1302, last step
            (434, "response_length/max", 256.0),  # line 1302
        ),
        meta=_meta(
            three_decimals=True,  # grep of the step lines: no value with 4+ decimals, an exponent or np.
            # v0.1 prints no total (format reference §5.2): 29 batches (line 165) x total_epochs 15 (line 160)
            total_steps=435,
            train_batches=29,  # line 165
            final_validation=True,  # line 1316
            zero_based=True,
            initial_validation={"test_score/openai/gsm8k": 0.0},  # line 271
            initial_validation_step=0,  # line 272 `step:0 - timing/gen:20.251 - ...` follows the print
            final_validation_metrics={"test_score/openai/gsm8k": 0.5190548780487805},  # line 1316
        ),
        config={
            ("algorithm", "adv_estimator"): "gae",  # line 56
            ("data", "max_response_length"): 256,  # line 83
            ("trainer", "experiment_name"): "gemma2b_function_rm",  # line 104 (glued `(pid=934604) ` cut)
            ("trainer", "total_epochs"): 15,  # line 160
        },
    ),
    # v0.1 PPO gemma: two `step:0` lines (line 334 val-only `step:0 - test_score/openai/gsm8k:0.521`, line 335
    # training) merged into one row; steps 0..105; the file ends inside line 530 (`step:105 ...` with no
    # final newline) and has no Final validation. `+ python3 -m verl.trainer.main_ppo ...` echo on line 8.
    # Config: the source file itself is damaged inside the dump (lines 30-33, 72-79 and 102-105 are
    # `commit:` + blank lines that replaced dump lines, one of them a closing `}`), so it cannot be
    # reassembled (its opening `{'actor_rollout_ref': ...` line is not in the file either): config is None.
    RealCase(
        file="ehl-gemma2-2b-ppo-gsm8k-v0.1-2024-12.log",
        kind="rl",
        steps=(0, 105, 106),
        step_lines=107,
        keys=43,  # 40 (line 335) + test_score/openai/gsm8k + timing/testing + val/test_score/openai/gsm8k
        spots=(
            (0, "test_score/openai/gsm8k", 0.521),  # line 334, first of the two step:0 lines
            (0, "actor/pg_loss", -0.025),  # line 335, second step:0 line
            (0, "actor/lr(1e-4)", 0.010),  # line 335
            (1, "test_score/openai/gsm8k", None),
            (99, "val/test_score/openai/gsm8k", 0.621),  # line 524
            (105, "prompt_length/min", 37.0),  # line 530, last bytes of the file (no newline)
            (105, "actor/pg_loss", 0.005),  # line 530
        ),
        meta=_meta(
            initial_validation_step=0,  # line 334 `step:0 - test_score/openai/gsm8k:0.521` follows line 333
            three_decimals=True,  # grep of the step lines: no value with 4+ decimals, an exponent or np.
            train_batches=14,  # line 180
            zero_based=True,
            initial_validation={"test_score/openai/gsm8k": 0.520579268292683},  # line 333
        ),
        config=None,
        contains={"launch_command": ("verl.trainer.main_ppo", "data.max_response_length=512")},  # line 8
    ),
    # v0.1 SFT trainer (fsdp_sft_trainer), no Ray prefix: steps 0..58; step 29 on two lines (line 93
    # `step:29 - val/loss:0.420`, line 103 training), step 58 is val-only (line 132). The SFT config is a
    # one-line `{'data': ...}` dict (line 50), not the RL dump rlmon reads: config is None. `-Werror=format-security`
    # in compiler lines 99/101 is not a failure. `+ torchrun ... -m verl.trainer.fsdp_sft_trainer` on line 21.
    RealCase(
        file="ehl-gemma2-2b-sft-gsm8k-v0.1-2024-12.log",
        kind="sft",
        steps=(0, 58, 59),
        step_lines=60,
        keys=3,  # train/loss, train/lr(1e-3), val/loss
        spots=(
            (0, "train/loss", 0.046),  # line 64
            (0, "train/lr(1e-3)", 0.002),  # line 64
            (29, "val/loss", 0.420),  # line 93
            (29, "train/loss", 0.010),  # line 103
            (57, "train/lr(1e-3)", 0.0),  # line 131
            (58, "val/loss", 0.411),  # line 132
            (58, "train/loss", None),
        ),
        meta=_meta(
            three_decimals=True,  # grep of the step lines: no value with 4+ decimals, an exponent or np.
        ),
        config=None,
        contains={"launch_command": ("verl.trainer.fsdp_sft_trainer",)},  # line 21
    ),
    # AMD MI300 GRPO, Mar 2025: bare lines (no Ray prefix, no ANSI), no config dump, no Total training steps,
    # `Training from scratch` (line 53). Training lines step:1..1119 (line 54 .. line 2539), then
    # `"Final validation metrics: ..."` (line 2552) and the val-only `step:1120` line (line 2553).
    RealCase(
        file="amd-mi300-deepseek7b-grpo-gsm8k-2025-03.log",
        kind="rl",
        steps=(1, 1120, 1120),
        step_lines=1120,
        keys=50,  # 48 on line 54 + timing_s/testing + val/test_score/openai/gsm8k (line 75)
        spots=(
            (1, "global_seqlen/mean", 176548.125),  # line 54
            (1, "Tokens/Sec/GPU", 1448.439),  # line 54
            (1, "critic/advantages/min", -1.789),  # line 54
            (1, "val/test_score/openai/gsm8k", None),
            (10, "val/test_score/openai/gsm8k", 0.648),  # line 75
            (1110, "val/test_score/openai/gsm8k", 0.705),  # line 2530
            (1119, "critic/score/mean", 0.981),  # line 2539
            (1120, "val/test_score/openai/gsm8k", 0.697),  # line 2553, val-only final line
            (1120, "critic/score/mean", None),
        ),
        meta=_meta(
            three_decimals=True,  # grep of the step lines: no value with 4+ decimals, an exponent or np.
            from_scratch=True,
            final_validation=True,
            final_validation_metrics={"val/test_score/openai/gsm8k": 0.6974981046247157},  # line 2552
        ),
        config=None,
        # pasted command, lines 10-45 joined at their backslashes (lines 11, 32 and the last one, 45)
        contains={
            "launch_command": (
                "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo data.train_files",
                "actor_rollout_ref.rollout.n=5",
                "trainer.total_epochs=160",
            )
        },
    ),
    # AMD MI300 PPO (GAE) counterpart: steps 1..1119 + val-only step:1120 (line 2667); Final line 2666.
    RealCase(
        file="amd-mi300-deepseek7b-ppo-gsm8k-2025-03.log",
        kind="rl",
        steps=(1, 1120, 1120),
        step_lines=1120,
        keys=64,  # 62 on line 59 + timing_s/testing + val/test_score/openai/gsm8k (line 80)
        spots=(
            (1, "critic/vf_explained_var", -0.647),  # line 59
            (1, "actor/ppo_kl", -0.0),  # line 59 `actor/ppo_kl:-0.000`
            (1, "Tokens/Sec/GPU", 557.774),  # line 59
            (1110, "timing_s/testing", 29.437),  # line 2644
            (1119, "critic/kl", 0.175),  # line 2653
            (1120, "val/test_score/openai/gsm8k", 0.701),  # line 2667
            (1120, "critic/kl", None),
        ),
        meta=_meta(
            three_decimals=True,  # grep of the step lines: no value with 4+ decimals, an exponent or np.
            from_scratch=True,  # line 58
            final_validation=True,
            final_validation_metrics={"val/test_score/openai/gsm8k": 0.7005307050796058},  # line 2666
        ),
        config=None,
        # pasted command from line 15 on, joined at its backslashes (lines 16 and 35)
        contains={
            "launch_command": ("python3 -m verl.trainer.main_ppo data.train_files=$train_files", "critic.optim.lr=1e-5")
        },
    ),
    # GPG FSDP, two data sources. All tqdm lines come before the step lines; wrapped 4-line Initial (line 952)
    # and Final (line 2795) prints; `step:0` val line (line 956); step 210 (line 2794) after segfault
    # noise; `(raylet) A worker died` lines 2799-2800 after the Final print: a success, not a failure.
    RealCase(
        file="gpg-qwen2-7b-fsdp-gsm8k-math-2025-06.log",
        kind="rl",
        steps=(0, 210, 211),
        step_lines=211,
        keys=57,  # 53 (line 957) + timing_s/testing + 2 val-core (line 999) + timing_s/save_checkpoint
        spots=(
            (0, "val-core/openai/gsm8k/reward/mean@1", 0.221),  # line 956
            (0, "val-core/DigitalLearningGmbH/MATH-lighteval/reward/mean@1", 0.514),  # line 956
            (0, "actor/pg_loss", None),
            (1, "actor/pg_loss", -0.034),  # line 957
            (1, "training/global_step", 1.0),  # line 957 `training/global_step:1.000`
            (1, "training/rollout_probs_diff_max", 0.225),  # line 957
            (210, "timing_s/save_checkpoint", 136.505),  # line 2794
            (210, "val-core/DigitalLearningGmbH/MATH-lighteval/reward/mean@1", 0.499),  # line 2794
            (210, "critic/advantages/min", -0.854),  # line 2794
        ),
        meta=_meta(
            initial_validation_step=0,  # line 956 `step:0 - ...` follows the print opened on line 952
            three_decimals=True,  # grep of the step lines: no value with 4+ decimals, an exponent or np.
            total_steps=210,  # line 851
            train_batches=14,  # line 850
            from_scratch=True,  # line 901
            final_validation=True,
            tqdm_n=210,  # line 2715, two `210/210` renders on one line (last bar in the file)
            tqdm_total=210,
            zero_based=False,  # step:0 is the initial validation, training starts at step:1
            final_validation_metrics={  # lines 2795-2798
                "val-core/openai/gsm8k/reward/mean@1": 0.8794541319181198,
                "val-core/DigitalLearningGmbH/MATH-lighteval/reward/mean@1": 0.49879951980792314,
            },
        ),
        config={
            ("algorithm", "adv_estimator"): "gpg",  # line 715
            ("actor_rollout_ref", "rollout", "n"): 5,  # line 701 (line 711 is val_kwargs.n = 1)
            ("data", "max_response_length"): 1024,  # line 776
            ("trainer", "test_freq"): 5,  # line 838
        },
        contains={"launch_command": ("verl.trainer.main_ppo", "algorithm.adv_estimator=gpg")},  # line 8 (`++`)
    ),
    # GPG Megatron: tqdm (lines 54-263) and the wandb run history/summary (lines 269-347) come before the
    # config dump (line 384) and the step lines (795-1367). The wandb summary has `actor/pg_loss -0.00176`
    # (line 328); the step:105 line says -0.002 and that is what the table must hold.
    RealCase(
        file="gpg-qwen2-7b-megatron-gsm8k-2025-06.log",
        kind="rl",
        steps=(0, 105, 106),
        step_lines=106,
        keys=53,  # 50 (line 796) + val-core + timing_s/testing + timing_s/save_checkpoint (line 1367)
        spots=(
            (0, "val-core/openai/gsm8k/reward/mean@1", 0.212),  # line 795
            (1, "actor/pg_loss", -0.027),  # line 796
            (1, "critic/advantages/min", -3.089),  # line 796
            (5, "val-core/openai/gsm8k/reward/mean@1", 0.874),  # line 843
            (105, "actor/pg_loss", -0.002),  # line 1367 (not the wandb summary's -0.00176)
            (105, "global_seqlen/min", 154703.0),  # line 1367
            (105, "timing_s/save_checkpoint", 175.280),  # line 1367
        ),
        meta=_meta(
            initial_validation_step=0,  # line 795 `step:0 - ...` follows the print opened on line 793
            three_decimals=True,  # grep of the step lines: no value with 4+ decimals, an exponent or np.
            total_steps=105,  # line 670
            train_batches=7,  # line 669
            from_scratch=True,  # line 760
            final_validation=True,  # line 1368
            tqdm_n=105,  # line 263 (the last Training Progress bar in file order)
            tqdm_total=105,
            zero_based=False,
            final_validation_metrics={"val-core/openai/gsm8k/reward/mean@1": 0.8802122820318423},
        ),
        config={
            ("algorithm", "adv_estimator"): "gpg",  # line 521
            ("actor_rollout_ref", "rollout", "n"): 5,  # line 508
            ("data", "max_response_length"): 1024,  # line 596
        },
        contains={"launch_command": ("verl.trainer.main_ppo", "--config-name=ppo_megatron_trainer.yaml")},
    ),
    # Resumed PPO run: `Load from checkpoint folder: /checkpoints/global_step_100` (line 367), `Setting global
    # step to 100` (368), `Resuming from ...` (369); val_before_train False so the first line is step:101
    # (line 378) and the last step:435 (line 2762); last bar `434/435` (line 2769, the bar never shows 435).
    RealCase(
        file="dstack-ppo-qwen25-7b-resumed-2025-05.log",
        kind="rl",
        steps=(101, 435, 335),
        step_lines=335,
        keys=68,  # 65 (line 378) + timing_s/testing + val-core (line 440) + timing_s/save_checkpoint
        spots=(
            (101, "training/global_step", 101.0),  # line 378
            (101, "actor/entropy_loss", 0.035),  # line 378
            (101, "critic/advantages/min", -4.252),  # line 378
            (101, "val-core/openai/gsm8k/reward/mean@1", None),
            (110, "val-core/openai/gsm8k/reward/mean@1", 0.892),  # line 440
            (435, "val-core/openai/gsm8k/reward/mean@1", 0.867),  # line 2762
            (435, "training/epoch", 11.0),  # line 2762
        ),
        meta=_meta(
            three_decimals=True,  # grep of the step lines: no value with 4+ decimals, an exponent or np.
            total_steps=435,  # line 236
            train_batches=29,  # line 235
            resume_steps=[100],  # line 368
            final_validation=True,  # line 2763
            tqdm_n=434,  # line 2769
            tqdm_total=435,
            final_validation_metrics={"val-core/openai/gsm8k/reward/mean@1": 0.866565579984837},
        ),
        config={
            ("algorithm", "adv_estimator"): "gae",  # line 115
            ("actor_rollout_ref", "rollout", "n"): 1,  # line 101
            ("data", "max_response_length"): 256,  # line 166
            ("trainer", "val_before_train"): False,  # line 222
        },
        contains={"resume_paths": ("/checkpoints/global_step_100",)},  # lines 367, 369
    ),
    # TPU/XLA fork: never produced a step. `Total training steps: 58` (line 252), `Training from scratch`
    # (line 7178), first bar `0/58 [00:00<?` (line 7159), file ends with `0/58 [07:16<?` (line 7619).
    RealCase(
        file="tpu-xla-ppo-stalled-at-step0-2025-07.log",
        kind="rl",
        steps=None,
        step_lines=0,
        keys=0,
        spots=(),
        meta=_meta(total_steps=58, train_batches=58, from_scratch=True, tqdm_n=0, tqdm_total=58),
        config={
            ("algorithm", "adv_estimator"): "gae",  # line 117
            ("actor_rollout_ref", "rollout", "n"): 1,  # line 103
            ("data", "max_response_length"): 128,  # line 178
            ("trainer", "total_epochs"): 1,  # line 242
        },
    ),
    # v0.2 PPO crash before step 1: Hydra block from line 265 (`Error executing job with overrides`),
    # line 282 `ray.exceptions.RayTaskError(NotImplementedError): ray::main_task() (pid=19443, ...)`,
    # line 293 `NotImplementedError`, line 295 HYDRA_FULL_ERROR hint.
    RealCase(
        file="maze-ppo-main_task-crash-2025-03.log",
        kind="rl",
        steps=None,
        step_lines=0,
        keys=0,
        spots=(),
        meta=_meta(
            total_steps=30,
            train_batches=2,
            from_scratch=True,
            failure_kind="hydra",
            # lines 283-291, the remote traceback after Ray's wrapper (line 282), before `NotImplementedError`
            failure_frames=[
                "/root/LLM-Reasoning-Maze/verl/verl/trainer/main_ppo.py:159 in main_task",
                "/root/LLM-Reasoning-Maze/verl/verl/trainer/ppo/ray_trainer.py:996 in fit",
                "/root/LLM-Reasoning-Maze/verl/verl/workers/reward_manager/naive.py:64 in __call__",
                "/root/LLM-Reasoning-Maze/verl/verl/utils/reward_score/__init__.py:37 in _default_compute_score",
            ],
            failure_step=None,  # no step line at all: it died before step 1
        ),
        failure="NotImplementedError",
        config={
            ("algorithm", "adv_estimator"): "gae",  # line 66
            ("actor_rollout_ref", "rollout", "n"): 1,  # line 57
            ("data", "max_response_length"): 256,  # line 104
            ("trainer", "val_before_train"): False,  # line 147
        },
    ),
    # Logic-RL GRPO startup crash. Non-fatal raylet import tracebacks first (lines 139-245,
    # `RuntimeError: The actor with name WorkerDict failed to import ...`), then the fatal Hydra block:
    # line 247 `Error executing job ...`, line 259 `ray.exceptions.RayTaskError(AssertionError): ...`,
    # line 268 `AssertionError: failed to get register_center_actor: V9zrH5_register_center in []`.
    # Config dump lines 3-135 has three (main_task pid=2105103) vllm warning lines inside it (95-97).
    RealCase(
        file="logicrl-grpo-main_task-startup-crash-2025-02.log",
        kind="rl",
        steps=None,
        step_lines=0,
        keys=0,
        spots=(),
        meta=_meta(
            total_steps=560,
            train_batches=112,
            failure_kind="hydra",
            # lines 260-266, after Ray's wrapper `ray.exceptions.RayTaskError(AssertionError)` (line 259)
            failure_frames=[
                "/home/tri/zhiyuan/Logic-RL/verl/trainer/main_ppo.py:190 in main_task",
                "/home/tri/zhiyuan/Logic-RL/verl/trainer/ppo/ray_trainer.py:528 in init_workers",
                "/home/tri/zhiyuan/Logic-RL/verl/single_controller/ray/base.py:197 in __init__",
                "/home/tri/zhiyuan/Logic-RL/verl/single_controller/ray/base.py:274 in _init_with_resource_pool",
            ],
            failure_step=None,  # no step line
        ),
        failure="AssertionError",
        config={
            ("algorithm", "adv_estimator"): "grpo",  # line 60
            ("actor_rollout_ref", "rollout", "n"): 16,  # line 52
            ("data", "max_response_length"): 2048,  # line 98, right after the interleaved warning
            ("trainer", "total_epochs"): 5,  # line 130
        },
    ),
    # REINFORCE++ launched through `eval` (line 17 `+ python3 -m verl.trainer.main_ppo ...`); config dump
    # lines 19-174 has three (main_task pid=457932) vllm warning lines inside it (111-113); ends in raylet
    # `is over 95% full` warnings with no step and no error.
    RealCase(
        file="logicrl-reinforce_plus_plus-raylet-warnings-2025-03.log",
        kind="rl",
        steps=None,
        step_lines=0,
        keys=0,
        spots=(),
        meta=_meta(total_steps=560, train_batches=112),  # lines 181, 179
        config={
            ("algorithm", "adv_estimator"): "reinforce_plus_plus",  # line 76
            ("actor_rollout_ref", "rollout", "n"): 8,  # line 68
            ("data", "max_response_length"): 4096,  # line 110
            ("trainer", "save_freq"): 60,  # line 171
        },
        contains={"launch_command": ("verl.trainer.main_ppo", "algorithm.adv_estimator=reinforce_plus_plus")},
    ),
    # Console logger off (`'logger': ['wandb']`, line 175): no step lines at all; `\r`-prefixed bars up to
    # `33/15625` (the file's last line); no `Training from scratch`.
    RealCase(
        file="walar-grpo-wandb-only-no-step-lines-2025-06.log",
        kind="rl",
        steps=None,
        step_lines=0,
        keys=0,
        spots=(),
        meta=_meta(total_steps=15625, train_batches=15625, tqdm_n=33, tqdm_total=15625),  # lines 284, 283
        config={
            ("algorithm", "adv_estimator"): "grpo",  # line 85
            ("actor_rollout_ref", "rollout", "n"): 8,  # line 77
            ("data", "max_response_length"): 1024,  # line 126
            ("trainer", "logger"): ["wandb"],  # line 175
        },
    ),
    # Resume of a finished run: `Load from checkpoint folder: .../global_step_105` (line 296), `Setting global
    # step to 105` (297), bar `105/105` (line 300), then a (Pdb) session with `*** TypeError: ...` (line 311):
    # interactive debugger output, not a failure.
    RealCase(
        file="alignx-resume-at-final-step-pdb-2025-07.log",
        kind="rl",
        steps=None,
        step_lines=0,
        keys=0,
        spots=(),
        meta=_meta(total_steps=105, train_batches=7, resume_steps=[105], tqdm_n=105, tqdm_total=105),
        config={
            ("algorithm", "adv_estimator"): "gae",  # line 105
            ("actor_rollout_ref", "rollout", "n"): 1,  # line 91
            ("data", "max_response_length"): 1024,  # line 164
        },
        contains={
            "resume_paths": ("/ossfs/workspace/nas/yuting/code/verl/checkpoints/verl_examples/gsm8k/global_step_105",)
        },
    ),
    # Startup failure right after a complete config dump (lines 10-69): line 71 `✗ Error: ray::TaskRunner.run()
    # (pid=735145, ...)` (a RayTaskError rendered by the launch script), traceback, line 90
    # `omegaconf.errors.ConfigAttributeError: Missing key enable`. No Hydra block, no Total training steps.
    RealCase(
        file="selfplay-grpo-config-error-startup-2025.log",
        kind="rl",
        steps=None,
        step_lines=0,
        keys=0,
        spots=(),
        meta=_meta(
            failure_kind="ray_task_error",
            # the last 5 of the 9 frames on lines 72-88 (after `✗ Error: ray::TaskRunner.run()`, line 71)
            failure_frames=[
                "/home/nickatomlin/georgiazhou/self_play/test_venv/lib/python3.10/site-packages/omegaconf/_utils.py"
                ":797 in _raise",  # line 80
                "/home/nickatomlin/georgiazhou/self_play/test_venv/lib/python3.10/site-packages/omegaconf/"
                "dictconfig.py:351 in __getattr__",  # line 82
                "/home/nickatomlin/georgiazhou/self_play/test_venv/lib/python3.10/site-packages/omegaconf/"
                "dictconfig.py:442 in _get_impl",  # line 84
                "/home/nickatomlin/georgiazhou/self_play/test_venv/lib/python3.10/site-packages/omegaconf/"
                "basecontainer.py:73 in _get_child",  # line 86
                "/home/nickatomlin/georgiazhou/self_play/test_venv/lib/python3.10/site-packages/omegaconf/"
                "dictconfig.py:480 in _get_node",  # line 88
            ],
            failure_step=None,  # no step line
        ),
        failure="Missing key enable",
        config={
            ("algorithm", "adv_estimator"): "grpo",  # line 43
            ("actor_rollout_ref", "rollout", "n"): 1,  # line 35
            ("data", "max_response_length"): 512,  # line 52
            ("trainer", "test_freq"): -1,  # line 68
        },
    ),
    # v0.5 GRPO from a README (no ANSI, bars unprefixed): 13-line wrapped Initial validation (lines 430-441),
    # `step:0` val line (442), `step:1` full-precision line (444) with bare ints; last bar `1/140` (443).
    RealCase(
        file="charcount-grpo-readme-2025-08.log",
        kind="rl",
        steps=(0, 1, 2),
        step_lines=2,
        keys=68,  # 13 val keys (line 442) + 55 training keys (line 444)
        spots=(
            (0, "val-aux/char_count/reward/mean@1", 0.121524201853759),  # line 442
            (0, "val-core/char_count/reward/best@3/mean", 0.0),  # line 442, key with `@` and `/`
            (1, "actor/lr", 1e-06),  # line 444 `actor/lr:1e-06`
            (1, "actor/pg_loss", -0.0036091046008680547),  # line 444
            (1, "global_seqlen/min", 159906.0),  # line 444, int printed bare
            (1, "critic/advantages/min", -1.20761239528656),  # line 444
            (1, "val-core/char_count/reward/mean@3", None),
        ),
        meta=_meta(
            initial_validation_step=0,  # line 442 `step:0 - ...` follows the print opened on line 430
            total_steps=140,  # line 341
            train_batches=70,  # line 340
            from_scratch=True,  # line 399
            tqdm_n=1,
            tqdm_total=140,
            zero_based=False,
        ),
        config={
            ("algorithm", "adv_estimator"): "grpo",  # line 153 (not on the 'algorithm' line)
            ("actor_rollout_ref", "rollout", "n"): 8,  # line 136 (line 148 is val_kwargs.n = 1)
            ("data", "max_response_length"): 128,  # line 230
            ("trainer", "val_before_train"): True,  # line 319
        },
        contains={"launch_command": ("verl.trainer.main_ppo", "algorithm.adv_estimator=grpo")},  # line 3
    ),
    # v0.5 SFT trainer: step lines glued after the `Epoch n/3: ...|` bar; steps 1, 100..105; step 105 on two
    # lines (27 training, 28 `val/loss`); `Final validation metrics: {'val/loss': ...}` printed (line 36).
    RealCase(
        file="charcount-sft-trainer-readme-2025-08.log",
        kind="sft",
        steps=(1, 105, 7),
        step_lines=8,
        keys=3,
        spots=(
            (1, "train/lr(1e-3)", 0.0010000000000000002),  # line 19, glued after the tqdm bar
            (1, "train/loss", 1.1166926622390747),  # line 19
            (104, "train/lr(1e-3)", 2.7337132953697555e-06),  # line 26
            (105, "train/loss", 0.06290543079376221),  # line 27
            (105, "val/loss", 0.058481086045503616),  # line 28, same step as line 27
            (100, "val/loss", None),
        ),
        meta=_meta(
            final_validation=True,  # line 36, printed (not pprinted) by the SFT trainer
            final_validation_metrics={"val/loss": 0.058481086045503616},  # line 36
        ),
        config=None,  # SFT config is a one-line `{'data': ...}` dict (line 18), not the RL dump rlmon reads
        contains={"launch_command": ("verl.trainer.fsdp_sft_trainer",)},  # line 6
    ),
    # 2026 agent loop GRPO: two full-precision step lines (1727, 2286); many non-fatal worker
    # `ERROR:...:Traceback` blocks before and after them (handled errors inside CursorLoopWorker);
    # `Next step: move ...` (line 2335) is model text, not a step line.
    RealCase(
        file="gui-cursor-agentloop-grpo-2026-03.log",
        kind="rl",
        steps=(1, 2, 2),
        step_lines=2,
        keys=69,
        spots=(
            (1, "actor/pg_loss", 6.183079727109635e-10),  # line 1727
            (1, "critic/score/max", 1.090000033378601),  # line 1727
            (1, "num_turns/min", 0.0),  # line 1727 `num_turns/min:0`
            (1, "timing_s/stop_profile", 3.790156915783882e-05),  # line 1727
            (1, "rollout/total_num_samples", 96.0),  # line 1727, first key of the line
            (2, "actor/pg_loss", 3.859289182716122e-10),  # line 2286
            (2, "critic/advantages/min", -2.5054633617401123),  # line 2286
            (2, "perf/total_num_tokens", 2838007.0),  # line 2286
        ),
        meta=_meta(
            total_steps=563250,  # line 535
            train_batches=2253,  # line 534
            from_scratch=True,  # line 780
            tqdm_n=2,  # line 2288
            tqdm_total=563250,
        ),
        config={
            ("algorithm", "adv_estimator"): "grpo",  # line 263
            ("actor_rollout_ref", "rollout", "n"): 12,  # line 220
            ("data", "max_response_length"): 20480,  # line 396
            ("trainer", "total_epochs"): 250,  # line 514
        },
    ),
    # Tail of a finished 870-step 2026 NPU run (text view: no ANSI, no \r). Two `870/870` renders on line 2;
    # post-run tracebacks (lines 3-27) come *before* the last metrics line (34, 85 keys); 4-line wrapped
    # Final validation (35-38); shell error last line. No config, no totals in the excerpt.
    RealCase(
        file="rlinsight-npu-opd-grpo-end-of-run-2026-03.log",
        kind="rl",
        steps=(870, 870, 1),
        step_lines=1,
        keys=85,
        spots=(
            (870, "actor/distillation/loss_min", -6.149532794952393),  # line 34
            (870, "timing_s/agent_loop/num_preempted/min", -1.0),  # line 34 `...num_preempted/min:-1`
            (870, "val-aux/num_turns/min", 2.0),  # line 34, bare int
            (870, "timing_s/reward", 3.482983447611332e-05),  # line 34
            (870, "actor/lr", 1e-06),  # line 34
            (870, "val-core/openai/gsm8k/acc/mean@1", 0.3434420015163002),  # line 34
        ),
        meta=_meta(
            final_validation=True,
            tqdm_n=870,
            tqdm_total=870,
            final_validation_metrics={  # lines 35-38
                "val-aux/openai/gsm8k/reward/mean@1": 0.3434420015163002,
                "val-core/openai/gsm8k/acc/mean@1": 0.3434420015163002,
                "val-aux/num_turns/min": 2.0,
                "val-aux/num_turns/max": 2.0,
                "val-aux/num_turns/mean": 2.0,
            },
        ),
        config=None,
    ),
    # Two example lines from the quickstart docs (4-space rst indent). Line 3 (step:1) prints
    # `actor/reward_kl_penalty` twice (0.000 then 0.001) and no `actor/reward_kl_penalty_coeff`: the later
    # pair wins, the missing key is null.
    RealCase(
        file="verl-docs-quickstart-example-lines.log",
        kind="rl",
        steps=(0, 1, 2),
        step_lines=2,
        keys=40,
        spots=(
            (0, "critic/lr(1e-4)", 0.100),  # line 2
            (0, "critic/advantages/mean", -0.0),  # line 2 `critic/advantages/mean:-0.000`
            (0, "actor/reward_kl_penalty_coeff", 0.001),  # line 2
            (1, "actor/reward_kl_penalty", 0.001),  # line 3, second of two pairs with this key
            (1, "actor/reward_kl_penalty_coeff", None),
            (1, "critic/values/min", -16.0),  # line 3
        ),
        meta=_meta(
            three_decimals=True,  # grep of the step lines: no value with 4+ decimals, an exponent or np.
        ),
        config=None,
    ),
]
