"""grep_search with patterns the model wrote badly: exponential backtracking never freezes the
agent. Matching runs off the event loop under one deadline for the whole search, a runaway
pattern answers with a clear "too slow" error, and a cancelled search gives the loop back at
once."""

from __future__ import annotations

import asyncio

import pytest

from ipuaro.tools.builtin.grep_search import GrepSearch

from .conftest import Project

RUNAWAY = r"(a|aa)+$"
"""Exponential in every backtracking engine (``re`` and ``regex`` alike) on ``a…ab``."""


def add_file(project: Project, name: str, text: str) -> None:
    (project.root / name).write_text(text)
    project.indexer.update_paths([name], [])


async def test_patterns_from_the_issue_answer_at_once(project: Project) -> None:
    # Both ran past 30 s under ``re``: (\w+\s?)*;$ on a long line of words without the ``;``,
    # (.*)*ZZZ on any line without ZZZ.
    add_file(project, "words.txt", "word " * 40 + "!\n" + "x" * 60 + "\n")
    words = await project.ok("grep_search", query=r"(\w+\s?)*;$", regex=True, path="words.txt")
    assert "No matches" in words.data
    dots = await project.ok("grep_search", query="(.*)*ZZZ", regex=True, path="words.txt")
    assert "No matches" in dots.data


async def test_a_runaway_pattern_answers_too_slow(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(GrepSearch, "time_limit", 0.5)
    add_file(project, "as.txt", "a" * 60 + "b\n")
    result = await project.call("grep_search", query=RUNAWAY, regex=True)
    assert not result.success
    assert "too slow" in (result.error or "") and "timed out" in (result.error or "")
    assert "regex=false" in (result.error or "")  # says what to do instead
    # The tool still works afterwards.
    again = await project.ok("grep_search", query="a+b$", regex=True)
    assert project.data(again)["matches"][0]["path"] == "as.txt"


async def test_the_loop_keeps_running_and_cancel_reaches_a_slow_search(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(GrepSearch, "time_limit", 3.0)
    add_file(project, "as.txt", "a" * 60 + "b\n")
    search = asyncio.ensure_future(project.call("grep_search", query=RUNAWAY, regex=True))
    other = asyncio.ensure_future(asyncio.sleep(0))
    done, _ = await asyncio.wait({search, other}, return_when=asyncio.FIRST_COMPLETED)
    # The search matches in a worker thread: the event loop ran something else meanwhile
    # (under ``re`` on the loop, the search ran to its end before anything else could).
    assert other in done and not search.done()
    search.cancel()
    with pytest.raises(asyncio.CancelledError):
        await search
