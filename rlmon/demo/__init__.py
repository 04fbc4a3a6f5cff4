"""The built-in demo log root: seeded verl runs written as a real trainer would, one of them still training."""

from __future__ import annotations

from rlmon.demo.root import RUNNING_EXPERIMENT, TOTAL_STEPS, advance_running, default_demo_root, write_demo_root

__all__ = ["RUNNING_EXPERIMENT", "TOTAL_STEPS", "advance_running", "default_demo_root", "write_demo_root"]
