"""Regressions from review: a model argument that ended the request, a concurrent batch that
left calls running after an abort, trimming that dropped the pinned request, and edits made
through ``edit_file`` or aliased path arguments missing from the request's changes."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pydantic import Field

from ipuaro.agent.context.history import (
    assistant_message,
    context_view,
    summary_message,
    user_message,
)
from ipuaro.agent.events import AgentEvent, ToolCallEnd
from ipuaro.agent.run.dispatch import CANCELLED, Dispatcher
from ipuaro.agent.sessions.keeper import SessionKeeper
from ipuaro.config.schema import Config, SessionConfig
from ipuaro.domain import ToolCall
from ipuaro.store.sqlite import SqliteStore
from ipuaro.tools.base import ArgsModel, BaseTool, ToolContext, ToolOutcome
from ipuaro.tools.context import build_context
from ipuaro.tools.registry import ToolRegistry
from tests.stubs.model_server import ModelStubServer, ScriptedReply

from .conftest import RecordingHandlers, ScriptedModel, call, open_harness, tool_outputs

# --- 1. arguments that are not finite numbers ----------------------------------------------


async def test_an_infinite_offset_is_an_error_the_model_reads_not_the_end(
    project: Path, model_server: ModelStubServer, provider: str
) -> None:
    text_call = (
        '<tool_call>{"name": "read_file", "arguments": '
        '{"path": "README.md", "offset": 1e999, "limit": 5}}</tool_call>'
    )
    model = ScriptedModel(
        [
            ScriptedReply(text=text_call),
            call("get_lines", path="README.md", start=1, end=float("inf")),
            ScriptedReply(text="done"),
        ]
    )
    async with open_harness(project, model_server, provider, model) as h:
        end = await h.app.agent.send("read the readme")
        assert end.reason == "done", end.detail
        outputs = tool_outputs(model.agent_bodies[-1])
        invalid = [o for o in outputs if "Invalid arguments for get_lines" in o]
        assert len(invalid) == 2, outputs
        assert all('"properties"' in o for o in invalid)  # the schema, so it can repair


# --- 1b. a concurrent batch that stops early ----------------------------------------------


class _ProbeArgs(ArgsModel):
    label: str = Field(description="any text")


class _Slow(BaseTool):
    """A read-only call that waits until cancelled, recording what happened to it."""

    name = "slow_probe"
    description = "Waits until cancelled."
    args_model = _ProbeArgs

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.finished: list[str] = []

    async def execute(self, args: Any, ctx: ToolContext) -> ToolOutcome:
        self.started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.finished.append("cancelled")
            raise
        return ToolOutcome.ok("never")


class _DiskFails(BaseTool):
    """A read-only call whose failure is the environment's: the user is asked (and aborts)."""

    name = "disk_probe"
    description = "Fails with an I/O error once the slow probe runs."
    args_model = _ProbeArgs

    def __init__(self, slow: _Slow) -> None:
        self.slow = slow

    async def execute(self, args: Any, ctx: ToolContext) -> ToolOutcome:
        await self.slow.started.wait()
        raise OSError("disk gone")


def _context(tmp_path: Path) -> tuple[ToolContext, SqliteStore]:
    root = tmp_path / "project"
    root.mkdir()
    store = SqliteStore(tmp_path / "data" / "store.db", "review-fixes")
    ctx = build_context(root, Config(), store, lambda c, d: None, session_id="s", auto_apply=True)
    return ctx, store


async def test_an_abort_in_a_concurrent_batch_cancels_and_awaits_the_siblings(
    tmp_path: Path,
) -> None:
    ctx, store = _context(tmp_path)
    slow = _Slow()
    registry = ToolRegistry([slow, _DiskFails(slow)])
    handlers = RecordingHandlers(error_choice="abort")
    events: list[AgentEvent] = []
    dispatcher = Dispatcher(registry, ctx, handlers, events.append, lambda t: (t, False))
    calls = [
        ToolCall(id="a", name="slow_probe", parameters={"label": "x"}),
        ToolCall(id="b", name="disk_probe", parameters={"label": "y"}),
    ]
    try:
        done = await asyncio.wait_for(dispatcher.run(calls, asyncio.Event()), timeout=10)
    finally:
        store.close()
    assert done.aborted is not None and "disk gone" in done.aborted
    assert [kind for kind, _ in handlers.errors] == ["file"]
    # The sibling did not keep running after the batch ended: it was cancelled and awaited.
    assert slow.finished == ["cancelled"]
    assert [r.call.id for r in done.records] == ["a", "b"]
    assert all(not r.result.success and r.result.error == CANCELLED for r in done.records)
    ends = [e for e in events if isinstance(e, ToolCallEnd)]
    assert sorted(e.call.id for e in ends) == ["a", "b"]
    others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    assert not [t for t in others if "_run_one" in repr(t.get_coro())]


# --- 2. trimming never drops the pinned request -------------------------------------------


def test_trim_keeps_the_pinned_request_after_a_long_compacted_turn(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "s.db", "trim-proj")
    try:
        keeper = SessionKeeper(store, SessionConfig())
        limit = keeper.config.max_history_messages
        session = keeper.create("m")
        session.history.append(user_message("old request"))
        session.history.append(assistant_message("old answer", []))
        pinned = user_message("CURRENT REQUEST: rename foo to bar everywhere")
        session.history.append(pinned)
        for i in range(limit):
            session.history.append(assistant_message(f"step {i}", []))
        session.history.append(summary_message("summary of steps", 0, 0))
        session.history.append(assistant_message("latest", []))
        assert any(m is pinned for m in context_view(session.history, pinned).messages)
        keeper.save(session)
        # The old turn (before the request) was trimmed; the request itself was not.
        assert [m.content for m in session.history[:1]] == [pinned.content]
        assert context_view(session.history, pinned).messages[0] is pinned
        stored = store.load_session(session.id)
        assert stored is not None
        assert [m.content for m in stored.history if m.role == "user"] == [pinned.content]
    finally:
        store.close()


def test_trim_still_drops_a_finished_request_before_the_cut(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "s.db", "trim-proj")
    try:
        keeper = SessionKeeper(store, SessionConfig(max_history_messages=4))
        session = keeper.create()
        session.history = [
            user_message("first"),
            assistant_message("a1", []),
            assistant_message("a2", []),
            summary_message("s", 1, 1),
            user_message("second"),
            assistant_message("a3", []),
        ]
        assert keeper.trim(session) == 2
        assert [m.content for m in session.history] == ["a2", "s", "second", "a3"]
    finally:
        store.close()


# --- 3. changes made through edit_file and aliased path arguments ------------------------


async def test_edit_file_and_aliased_paths_are_in_the_changes(
    project: Path, model_server: ModelStubServer
) -> None:
    pricing = (project / "shop" / "pricing.py").read_text(encoding="utf-8")
    first = pricing.splitlines()[0]
    model = ScriptedModel(
        [
            call(
                "edit_file",
                target_file="shop/notes.py",
                instructions="add a notes module",
                code_edit='"""Notes."""\n',
            ),
            call("replace", file_path="./shop/pricing.py", old=first, new=first + "  # priced"),
            ScriptedReply(text="Added notes and marked pricing."),
        ]
    )
    async with open_harness(project, model_server, "ollama", model) as h:
        end = await h.app.agent.send("add notes and mark pricing")
        assert end.reason == "done", end.detail
        assert (project / "shop" / "notes.py").exists()
        assert "# priced" in (project / "shop" / "pricing.py").read_text(encoding="utf-8")
        assert end.changes == ("shop/notes.py", "shop/pricing.py")
