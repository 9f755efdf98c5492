from __future__ import annotations

from ipuaro.agent.run.guard import LoopGuard
from ipuaro.domain import ToolCall


def call(name: str, **params: object) -> ToolCall:
    return ToolCall(id=f"c{len(params)}", name=name, parameters=dict(params))


def test_three_identical_calls_in_a_row_trip_the_guard() -> None:
    guard = LoopGuard()
    counts = [guard.observe(call("get_lines", path="a.py", start=1)) for _ in range(3)]
    assert counts == [1, 2, 3]
    assert not guard.tripped(2)
    assert guard.tripped(3)


def test_argument_order_does_not_matter_but_values_do() -> None:
    guard = LoopGuard()
    guard.observe(ToolCall(id="1", name="get_lines", parameters={"path": "a", "start": 1}))
    assert (
        guard.observe(ToolCall(id="2", name="get_lines", parameters={"start": 1, "path": "a"})) == 2
    )
    assert (
        guard.observe(ToolCall(id="3", name="get_lines", parameters={"start": 2, "path": "a"})) == 1
    )


def test_a_different_call_resets_the_count() -> None:
    guard = LoopGuard()
    guard.observe(call("grep_search", pattern="x"))
    guard.observe(call("grep_search", pattern="x"))
    guard.observe(call("get_structure"))
    assert guard.observe(call("grep_search", pattern="x")) == 1


def test_reset_forgets_the_last_call() -> None:
    guard = LoopGuard(limit=2)
    guard.observe(call("git_status"))
    guard.reset()
    assert guard.observe(call("git_status")) == 1
