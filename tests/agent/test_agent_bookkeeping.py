"""The store-failure choice shared by session saves and index reads."""

from __future__ import annotations

import pytest

from ipuaro.agent.events import AgentError, ErrorChoice
from ipuaro.agent.run.bookkeeping import Ask, Stop, with_store_retry
from ipuaro.store.protocol import StoreError


class FlakyAction:
    """Fails ``failures`` times with a StoreError, then succeeds."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.calls = 0

    def __call__(self) -> None:
        self.calls += 1
        if self.calls <= self.failures:
            raise StoreError(f"disk full #{self.calls}")


def answering(*choices: ErrorChoice) -> tuple[list[AgentError], Ask]:
    asked: list[AgentError] = []
    queue = list(choices)

    async def ask(error: AgentError) -> ErrorChoice:
        asked.append(error)
        return queue.pop(0)

    return asked, ask


async def test_retry_runs_the_action_again_until_it_succeeds() -> None:
    action = FlakyAction(2)
    asked, ask = answering("retry", "retry")
    await with_store_retry(action, "saving the session", ask)
    assert action.calls == 3
    assert [e.message for e in asked] == [
        "saving the session failed: disk full #1",
        "saving the session failed: disk full #2",
    ]
    assert all(e.kind == "store" for e in asked)


async def test_skip_returns_without_running_it_again() -> None:
    action = FlakyAction(5)
    asked, ask = answering("skip")
    await with_store_retry(action, "reading the index", ask)
    assert action.calls == 1 and len(asked) == 1


async def test_abort_stops_the_request_with_the_store_error() -> None:
    action = FlakyAction(5)
    _, ask = answering("abort")
    with pytest.raises(Stop) as stop:
        await with_store_retry(action, "reading the index", ask)
    assert stop.value.reason == "error"
    assert stop.value.detail == "the store failed: disk full #1"


async def test_no_question_when_the_store_works() -> None:
    action = FlakyAction(0)
    asked, ask = answering()
    await with_store_retry(action, "saving the session", ask)
    assert action.calls == 1 and asked == []
