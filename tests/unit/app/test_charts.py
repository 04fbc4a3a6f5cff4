"""The shared memo of chart specs (rlmon.app.charts): specs nobody asks for go, so a server gives its memory back
once its pages close (benchmarks/bench_live.py measures it on a live server)."""

from __future__ import annotations

from typing import Any

from rlmon.app.charts import _SpecMemo


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def spec(name: str) -> dict[str, Any]:
    return {"mark": "line", "title": name, "data": {"values": [{"x": 1, "y": 2}]}}


def test_specs_not_asked_for_go_after_idle_s() -> None:
    clock = Clock()
    memo = _SpecMemo(idle_s=120, clock=clock)
    for version in range(3):  # a growing log: each refresh draws the chart of a new version
        memo.get(("pass_rate", version), lambda version=version: spec(f"v{version}"))
        clock.now += 50
    # v0 was built 150 s ago, v1 100 s ago, v2 50 s ago: only v0 has been idle for more than 120 s
    assert memo.drop_idle() == 1 and len(memo) == 2
    # asking for a spec keeps it: v1 is read now, v2 is not; 121 s later only v1 is left
    assert memo.get(("pass_rate", 1), lambda: spec("never built"))["title"] == "v1"
    clock.now += 121
    memo.get(("pass_rate", 1), lambda: spec("never built"))
    assert memo.drop_idle() == 1 and len(memo) == 1
    # the pages close: nobody asks any more, and the memo empties
    clock.now += 121
    assert memo.drop_idle() == 1 and len(memo) == 0


def test_a_build_drops_what_is_idle() -> None:
    clock = Clock()
    memo = _SpecMemo(idle_s=120, clock=clock)
    memo.get(("a",), lambda: spec("a"))
    clock.now += 200
    memo.get(("b",), lambda: spec("b"))
    assert len(memo) == 1
