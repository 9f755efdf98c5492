"""The task runner on its own (real asyncio tasks, a recording save and emit): one
conversation task at a time, ``until_idle`` for what waits, phases announced, background
refreshes beside the tasks."""

from __future__ import annotations

import asyncio

import pytest

from ipuaro.core.errors import WorkspaceBusy
from ipuaro.core.events import Event, TaskEnded, TaskStarted
from ipuaro.core.tasks import RunningTask, TaskRunner


class Recorder:
    def __init__(self) -> None:
        self.saves = 0
        self.events: list[Event] = []

    def save(self) -> None:
        self.saves += 1

    def runner(self) -> TaskRunner:
        return TaskRunner(self.save, self.events.append)


async def test_a_second_task_is_refused_naming_the_first_and_until_idle_waits() -> None:
    recorder = Recorder()
    tasks = recorder.runner()
    release = asyncio.Event()

    async def request() -> str:
        await release.wait()
        return "answered"

    running = asyncio.ensure_future(tasks.run("request", "a new request", request))
    await asyncio.sleep(0)
    assert tasks.busy and tasks.describe() == "the agent is answering a request"
    with pytest.raises(WorkspaceBusy, match=r"/reindex waits .* answering a request"):
        await tasks.run("index", "/reindex", request)
    waiter = asyncio.ensure_future(tasks.until_idle())
    await asyncio.sleep(0.01)
    assert not waiter.done()
    release.set()
    waited = await waiter
    assert isinstance(waited, RunningTask) and waited.kind == "request"
    assert await running == "answered" and not tasks.busy
    assert await tasks.until_idle() is None
    assert recorder.saves == 1  # after the task, however it ended


async def test_a_phase_is_announced_and_named_while_it_lasts() -> None:
    recorder = Recorder()
    tasks = recorder.runner()
    inside: list[RunningTask | None] = []

    async def compaction() -> int:
        inside.append(tasks.running)
        return 1

    async def request() -> int:
        return await tasks.phase("compact", "auto-compaction", compaction)

    assert await tasks.run("request", "a new request", request) == 1
    (running,) = inside
    assert running is not None and running.kind == "compact"
    assert running.within is not None and running.within.kind == "request"
    assert recorder.events == [
        TaskStarted("compact", "auto-compaction", "request"),
        TaskEnded("compact", "auto-compaction", "done", "request"),
    ]
    # With no task running, a phase is a task of its own (and a failure is said).
    recorder.events.clear()

    async def failing() -> int:
        raise ValueError("summary failed")

    with pytest.raises(ValueError):
        await tasks.phase("compact", "/compact", failing)
    assert recorder.events == [
        TaskStarted("compact", "/compact", None),
        TaskEnded("compact", "/compact", "failed", None),
    ]


async def test_background_refreshes_run_beside_tasks_which_wait_for_them() -> None:
    recorder = Recorder()
    tasks = recorder.runner()
    release = asyncio.Event()
    order: list[str] = []

    async def refresh() -> None:
        await release.wait()
        order.append("refreshed")

    async def request() -> None:
        order.append("request")

    tasks.start_background(refresh())
    assert tasks.indexing and not tasks.busy
    assert tasks.describe() == "the index is being refreshed in the background"
    started = asyncio.ensure_future(tasks.run("request", "a new request", request))
    await asyncio.sleep(0.01)
    assert order == [] and tasks.busy  # the task holds its turn while it waits
    release.set()
    await started
    assert order == ["refreshed", "request"] and not tasks.indexing
    never = asyncio.Event()
    tasks.start_background(never.wait())
    await tasks.cancel_background()  # closing: nothing waits for it any more
    assert not tasks.indexing
