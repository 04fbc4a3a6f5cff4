"""A verl console log that a test grows as a trainer would, with the events alerts are about written into it: a
grad-norm spike, a NaN, a quiet spell (a stall), a crash. Lines follow docs' verl log format (the v0.5+ step line
``(TaskRunner pid=N) step:N - key:value - ...``, §1.1; the Hydra failure block, §6.3).

Values are known from the step: grad_norm 0.20 + 0.01 x (step mod 3), score 0.1 + step / 1000, a step every
``timing_s/step`` = 0.5 s, so a test's stall threshold (seconds) is reached by the log keeping quiet alone; while
a test waits for something else, :meth:`GrowingLog.alive` keeps the log growing with worker chatter, as a live
run's log does between steps.
"""

from __future__ import annotations

import contextlib
import math
import threading
from collections.abc import Iterator
from pathlib import Path

__all__ = ["CRASH_EXCEPTION", "CRASH_FRAME", "GrowingLog"]

CRASH_EXCEPTION = "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB"
CRASH_FRAME = "verl/workers/fsdp_workers.py:512 in update_actor"
"""The crash's innermost frame as rlmon shortens it (its last three path parts)."""

_HEADER = (
    "+ python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo actor_rollout_ref.model.path=Qwen/Qwen3-4B "
    "trainer.total_training_steps=200\n"
    "(TaskRunner pid=7) Total training steps: 200\n"
)


class GrowingLog:
    """``<root>/<experiment>/train.log``, written a few lines at a time."""

    def __init__(self, root: Path, experiment: str) -> None:
        self.path = root / experiment / "train.log"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.step = 0

    def _append(self, text: str) -> None:
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(text)

    def start(self, steps: int) -> None:
        """The launch command, then ``steps`` quiet steps."""
        self._append(_HEADER)
        self.steps(steps)

    def steps(self, count: int, *, grad_norm: float | None = None) -> None:
        """``count`` more steps; ``grad_norm`` (when given) is the first one's grad norm (a spike, a NaN)."""
        lines = []
        for index in range(count):
            self.step += 1
            norm = 0.20 + 0.01 * (self.step % 3)
            if index == 0 and grad_norm is not None:
                norm = grad_norm
            shown = "nan" if math.isnan(norm) else f"{norm}"
            lines.append(
                f"(TaskRunner pid=7) step:{self.step} - actor/grad_norm:{shown} - actor/pg_loss:0.01 - "
                f"critic/score/mean:{0.1 + self.step / 1000:.3f} - actor/entropy:0.5 - timing_s/step:0.5\n"
            )
        self._append("".join(lines))

    def chatter(self) -> None:
        """One line of worker chatter: the log grows, no step."""
        self._append("(WorkerDict pid=9) INFO: vllm engine is generating\n")

    @contextlib.contextmanager
    def alive(self, every_s: float = 0.5) -> Iterator[None]:
        """While inside, a line of worker chatter every ``every_s`` seconds: the run is not stalled."""
        stop = threading.Event()

        def chatter() -> None:
            while not stop.wait(every_s):
                self.chatter()

        thread = threading.Thread(target=chatter, name="log-chatter", daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join(timeout=5)

    def crash(self) -> None:
        """The Hydra failure block of a crash in the actor update."""
        self._append(
            "Error executing job with overrides: ['algorithm.adv_estimator=grpo']\n"
            "Traceback (most recent call last):\n"
            '  File "/workspace/verl/verl/trainer/main_ppo.py", line 42, in main\n'
            "    run_ppo(config)\n"
            '  File "/workspace/verl/verl/workers/fsdp_workers.py", line 512, in update_actor\n'
            "    metrics = self.actor.update_policy(data=data)\n"
            f"{CRASH_EXCEPTION}\n"
            "\n"
            "Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace.\n"
        )
