"""The task runner seen through the core API: a request that arrives while the start-up
re-index runs waits for it, so its tools read the current index; the refresh is a background
task of the runner; /model waits for a running request; compaction is a task (or a phase of
the request it happens in) with start and end events."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from ipuaro.core.conveniences import compact_now
from ipuaro.core.errors import WorkspaceBusy
from ipuaro.core.events import (
    AgentEnd,
    AgentStart,
    IndexFinished,
    IndexProgress,
    MessageDelta,
    ModelChanged,
    TaskEnded,
    TaskStarted,
)
from ipuaro.core.tasks import RunningTask
from tests.core.conftest import open_workspace, wait_for
from tests.stubs.model_server import ModelStubServer, ScriptedReply, StubModel

CHANGED = 400


async def test_a_request_during_the_background_reindex_waits_for_it(
    project: Path, server: ModelStubServer
) -> None:
    steps = [ScriptedReply(text="Seen.")]
    async with open_workspace(project, server, steps) as opened:
        ws = opened.workspace
        folder = project / "generated"
        folder.mkdir()
        for number in range(CHANGED):
            (folder / f"m{number}.py").write_text(f"def fresh_{number}():\n    return {number}\n")
        refresh = ws.refresh_index()
        await wait_for(
            lambda: any(isinstance(e, IndexProgress) and e.background for e in opened.events)
        )
        assert ws.indexing
        end = await ws.send("what is in generated/?")
        assert end.reason == "done" and refresh.done()
        kinds = [type(e) for e in opened.events if isinstance(e, IndexFinished | AgentStart)]
        assert kinds == [IndexFinished, AgentStart], "the request started on the old index"
        assert ws.ctx.store.find_definitions(f"fresh_{CHANGED - 1}")


async def test_the_background_refresh_is_the_runners_and_does_not_block_the_session(
    project: Path, server: ModelStubServer
) -> None:
    """A refresh is a background task: /status names it, and the workspace is not busy (a
    session change goes ahead)."""
    async with open_workspace(project, server) as opened:
        ws = opened.workspace
        folder = project / "generated"
        folder.mkdir()
        for number in range(CHANGED):
            (folder / f"m{number}.py").write_text(f"def fresh_{number}():\n    return {number}\n")
        refresh = ws.refresh_index()
        await wait_for(
            lambda: any(isinstance(e, IndexProgress) and e.background for e in opened.events)
        )
        rows = dict((await ws.status()).rows)
        assert ws.indexing and not ws.busy
        assert rows["task"] == "the index is being refreshed in the background"
        old = ws.session_id
        assert ws.new_session() != old  # a session change does not wait for the index
        await asyncio.wait_for(refresh, 60)
        assert dict((await ws.status()).rows)["task"] == "none (idle)"
        assert ws.ctx.store.find_definitions(f"fresh_{CHANGED - 1}")


async def test_model_switch_during_a_request_waits_for_it(
    project: Path, server: ModelStubServer
) -> None:
    """/model while a request streams: the request keeps its model, the switch says what it
    waited for, the next request talks to the new model."""
    server.models.append(StubModel("llama3.1:8b", context_length=16384))
    steps = [
        ScriptedReply(text="slow answer", chunks=4, chunk_delay=0.3),
        ScriptedReply(text="from llama"),
    ]
    async with open_workspace(project, server, steps) as opened:
        ws = opened.workspace
        old = ws.model
        request = asyncio.ensure_future(ws.send("explain slowly"))
        await wait_for(lambda: any(isinstance(e, MessageDelta) for e in opened.events))
        switch = await ws.switch_model("llama3.1:8b")
        assert request.done(), "the switch returned before the running request ended"
        assert (await request).reason == "done"
        assert switch.switched and switch.waited_for == "the agent is answering a request"
        await ws.send("and now?")
        idle = await ws.switch_model(old)
        assert idle.switched and idle.waited_for is None
    models = [body["model"] for body in server.chat_requests() if body.get("stream")]
    assert models[-2:] == [old, "llama3.1:8b"]
    changed = [i for i, e in enumerate(opened.events) if isinstance(e, ModelChanged)]
    ended = [i for i, e in enumerate(opened.events) if isinstance(e, AgentEnd)]
    assert changed[0] > ended[0], "the model changed under the running request"


async def test_session_change_while_a_request_runs_is_refused_naming_it(
    project: Path, server: ModelStubServer
) -> None:
    steps = [ScriptedReply(text="slow answer", chunks=4, chunk_delay=0.2)]
    async with open_workspace(project, server, steps) as opened:
        ws = opened.workspace
        request = asyncio.ensure_future(ws.send("explain slowly"))
        await wait_for(lambda: any(isinstance(e, MessageDelta) for e in opened.events))
        with pytest.raises(WorkspaceBusy, match="the agent is answering a request"):
            ws.new_session()
        with pytest.raises(WorkspaceBusy, match="Ctrl\\+C interrupts it"):
            ws.clear_history()
        await request
        assert ws.new_session()


async def test_compact_is_a_task_with_start_and_end_events(
    project: Path, server: ModelStubServer
) -> None:
    steps = [ScriptedReply(text=f"answer {n} " + "word " * 50) for n in range(3)]
    steps.append(ScriptedReply(text="SUMMARY: three answers."))
    async with open_workspace(project, server, steps, **{"context.keepRecent": 2}) as opened:
        ws = opened.workspace
        for n in range(3):
            await ws.send(f"question {n}")
        seen: list[object] = []
        ws.subscribe(lambda e: seen.append(ws.tasks.running) if e.type == "task_started" else 0)
        reply = await compact_now(ws, None)
        assert reply.text.startswith("compacted:")
        started = [e for e in opened.events if isinstance(e, TaskStarted)]
        ended = [e for e in opened.events if isinstance(e, TaskEnded)]
        assert [(e.kind, e.what, e.within) for e in started] == [("compact", "/compact", None)]
        assert [(e.kind, e.outcome) for e in ended] == [("compact", "done")]
        (running,) = seen
        assert isinstance(running, RunningTask) and running.kind == "compact"
        assert not ws.busy


async def test_auto_compaction_is_a_phase_of_the_request(
    project: Path, server: ModelStubServer
) -> None:
    """The window fills up within a request: the compaction is announced as a phase of
    that request, and the runner names it while it lasts."""
    steps = [ScriptedReply(text=f"answer {n} " + "word " * 600) for n in range(4)]
    overrides = {
        "context.keepRecent": 2,
        "context.autoCompressAt": 0.15,
        "context.compressionMethod": "truncate",
    }
    async with open_workspace(project, server, steps, **overrides) as opened:
        ws = opened.workspace
        seen: list[object] = []
        ws.subscribe(lambda e: seen.append(ws.tasks.running) if e.type == "task_started" else 0)
        for n in range(4):
            await ws.send(f"question {n} " + "detail " * 600)
        types = [e.type for e in opened.events]
        assert "task_started" in types, "no compaction ran: raise the messages' length"
        first = types.index("task_started")
        assert types[:first].count("agent_start") == types[:first].count("agent_end") + 1
        assert types.index("task_ended") > first
        started = next(e for e in opened.events if isinstance(e, TaskStarted))
        assert started.kind == "compact" and started.within == "request"
        assert "auto-compaction" in started.what
        ended = next(e for e in opened.events if isinstance(e, TaskEnded))
        assert ended.outcome == "done" and ended.within == "request"
        running = seen[0]
        assert isinstance(running, RunningTask) and running.kind == "compact"
        assert running.within is not None and running.within.kind == "request"
        assert ws.tasks.running is None and not ws.busy
