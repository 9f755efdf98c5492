"""grep_search's time limit is wall clock (issue 22, QA D6): ``regex``'s ``timeout=`` counts
CPU time, so on a loaded machine a runaway match used to answer "timed out" only after its CPU
budget was spent — 16 s of wall time for a 5 s limit at load 11 on 2 cores. Now the tool
answers at its wall deadline while the worker still burns its CPU budget (which still ends it),
and a cancel returns at once.

No elapsed time is asserted: each test sets a CPU budget far above the wall deadline and a
pattern that cannot finish within it, then checks the *state* — the tool has answered (or been
cancelled) and the worker is still matching — and waits for the worker to end on its budget.
"""

from __future__ import annotations

import asyncio

import pytest

from ipuaro.tools.builtin.grep_search import GrepSearch, running_searches

from .conftest import Project

RUNAWAY = r"(a|aa)+$"
"""Exponential in a backtracking engine on a long run of ``a`` that ends in another char."""
WALL = 0.5
"""The wall deadline of the tests: far below the CPU budget."""
CPU_BUDGET = 2.0
"""What a match call may burn: the worker outlives the answer by up to this."""


@pytest.fixture
def runaway(project: Project, monkeypatch: pytest.MonkeyPatch) -> Project:
    monkeypatch.setattr(GrepSearch, "time_limit", WALL)
    monkeypatch.setattr(GrepSearch, "cpu_budget", CPU_BUDGET)
    (project.root / "as.txt").write_text("a" * 30000 + "!\n")
    project.indexer.update_paths(["as.txt"], [])
    return project


async def test_the_tool_answers_timed_out_while_the_worker_still_burns_its_cpu_budget(
    runaway: Project,
) -> None:
    assert running_searches() == []
    result = await runaway.call("grep_search", query=RUNAWAY, regex=True)
    assert not result.success
    assert "timed out after 0.5 s" in (result.error or "")
    # The answer came at the wall deadline, not when the match gave up: the worker is still
    # inside its match call (under the old CPU-time limit it had to end before the answer).
    [worker] = running_searches()
    assert not worker.finished.is_set() and worker.stop.is_set()
    assert await asyncio.to_thread(worker.finished.wait, 60), "the CPU budget ends the worker"
    assert running_searches() == []


async def test_cancel_returns_while_the_worker_is_still_matching(
    runaway: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(GrepSearch, "time_limit", 60.0)  # only the cancel ends this call
    call = asyncio.ensure_future(runaway.call("grep_search", query=RUNAWAY, regex=True))
    [worker] = await asyncio.to_thread(running_searches, 60)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert not worker.finished.is_set() and worker.stop.is_set()
    assert await asyncio.to_thread(worker.finished.wait, 60)


async def test_a_search_within_its_deadline_still_answers(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(GrepSearch, "cpu_budget", CPU_BUDGET)
    (project.root / "as.txt").write_text("a" * 60 + "b\n")
    project.indexer.update_paths(["as.txt"], [])
    found = await project.ok("grep_search", query="a+b$", regex=True)
    assert project.data(found)["matches"][0]["path"] == "as.txt"
    assert running_searches() == []
