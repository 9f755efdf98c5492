"""Environment failures inside a tool carry an error kind (the agent offers retry/skip/abort);
the model's own mistakes do not."""

from __future__ import annotations

import logging

import pytest

from ipuaro.tools.base import ToolOutcome

from .conftest import Project


async def test_store_failure_is_marked_store(
    project: Project, caplog: pytest.LogCaptureFixture
) -> None:
    project.store.close()  # every later query fails inside sqlite3
    with caplog.at_level(logging.WARNING):
        outcome: ToolOutcome = await project.registry.call_outcome(
            "find_definition", {"symbol": "anything"}, project.ctx
        )
    assert not outcome.success
    assert outcome.error_kind == "store"
    assert "find_definition failed" in (outcome.error or "")
    # The message is in the outcome; a traceback on the user's terminal adds only noise.
    assert not [r for r in caplog.records if r.exc_info]


async def test_bad_arguments_have_no_error_kind(project: Project) -> None:
    outcome = await project.registry.call_outcome("get_lines", {"nope": 1}, project.ctx)
    assert not outcome.success
    assert outcome.error_kind is None
    assert "Invalid arguments for get_lines" in (outcome.error or "")
