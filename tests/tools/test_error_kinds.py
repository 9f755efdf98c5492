"""Environment failures inside a tool carry an error kind (the agent offers retry/skip/abort);
the model's own mistakes do not."""

from __future__ import annotations

from ipuaro.tools.base import ToolOutcome

from .conftest import Project


async def test_store_failure_is_marked_store(project: Project) -> None:
    project.store.close()  # every later query fails inside sqlite3
    outcome: ToolOutcome = await project.registry.call_outcome(
        "find_definition", {"symbol": "anything"}, project.ctx
    )
    assert not outcome.success
    assert outcome.error_kind == "store"
    assert "find_definition failed" in (outcome.error or "")


async def test_bad_arguments_have_no_error_kind(project: Project) -> None:
    outcome = await project.registry.call_outcome("get_lines", {"nope": 1}, project.ctx)
    assert not outcome.success
    assert outcome.error_kind is None
    assert "Invalid arguments for get_lines" in (outcome.error or "")
