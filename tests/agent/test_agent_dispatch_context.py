"""Dispatch gives every tool call a context of its own (call id, the request's cancel event,
its progress display) beside the session's shared services; the shared context is never
written, so side-by-side calls cannot see each other's parts."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

import pytest

from ipuaro.agent.events import AgentEvent, ToolCallOutput
from ipuaro.agent.run.dispatch import Dispatcher
from ipuaro.config.schema import Config
from ipuaro.domain import ToolCall
from ipuaro.store.sqlite import SqliteStore
from ipuaro.tools.base import ArgsModel, BaseTool, ToolContext, ToolOutcome
from ipuaro.tools.context import build_context
from ipuaro.tools.registry import ToolRegistry

from .conftest import RecordingHandlers


class _Args(ArgsModel):
    label: str


class _Probe(BaseTool):
    """Keeps the context each call got and reports progress when it may."""

    args_model = _Args

    def __init__(self, name: str, read_only: bool) -> None:
        self.name = name  # type: ignore[misc]
        self.description = "records its context"  # type: ignore[misc]
        self.read_only = read_only  # type: ignore[misc]
        self.seen: list[ToolContext] = []

    async def execute(self, args: Any, ctx: ToolContext) -> ToolOutcome:
        self.seen.append(ctx)
        await asyncio.sleep(0)
        if ctx.progress is not None:
            ctx.progress(f"working on {args.label}")
        return ToolOutcome.ok(args.label)


async def test_each_call_gets_its_own_context_and_the_shared_one_is_untouched(
    tmp_path: Path,
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    store = SqliteStore(tmp_path / "data" / "store.db", "dispatch-context")
    shared = build_context(root, Config(), store, lambda c, d: None, session_id="s")
    before = [getattr(shared, f.name) for f in dataclasses.fields(shared)]
    reader, writer = _Probe("probe_read", True), _Probe("probe_write", False)
    events: list[AgentEvent] = []
    dispatcher = Dispatcher(
        ToolRegistry([reader, writer]),
        shared,
        RecordingHandlers(),
        events.append,
        lambda t: (t, False),
    )
    calls = [
        ToolCall(id="r1", name="probe_read", parameters={"label": "a"}),
        ToolCall(id="r2", name="probe_read", parameters={"label": "b"}),
        ToolCall(id="w1", name="probe_write", parameters={"label": "c"}),
    ]
    cancel = asyncio.Event()
    try:
        done = await dispatcher.run(calls, cancel)
    finally:
        store.close()
    assert done.aborted is None
    assert sorted(ctx.call_id for ctx in reader.seen) == ["r1", "r2"]
    assert [ctx.call_id for ctx in writer.seen] == ["w1"]
    every = [*reader.seen, *writer.seen]
    assert all(ctx.cancel is cancel for ctx in every), "the request's cancel event"
    assert all(ctx.services is shared.services for ctx in every), "one set of services"
    assert all(ctx.grants is shared.grants for ctx in every), "the session's grants"
    # Calls side by side get no progress display; a call that runs alone streams.
    assert [ctx.progress for ctx in reader.seen] == [None, None]
    assert writer.seen[0].progress is not None
    outputs = [e for e in events if isinstance(e, ToolCallOutput)]
    assert [(e.call.id, e.text) for e in outputs] == [("w1", "working on c")]
    after = [getattr(shared, f.name) for f in dataclasses.fields(shared)]
    assert all(a is b for a, b in zip(after, before, strict=True)), "the shared one is as it was"
    with pytest.raises(dataclasses.FrozenInstanceError):
        shared.progress = None  # type: ignore[misc]


def test_a_session_change_gives_a_new_scope_with_only_configured_grants(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "store.db", "scope")
    try:
        ctx = build_context(tmp_path, Config(), store, lambda c, d: None, auto_apply=True)
        ctx.grants.grant_secret(".env")
        ctx.reads.record("a.py", "hash", ["line\n"])
        moved = ctx.for_session("other")
    finally:
        store.close()
    assert moved.session_id == "other" and moved.services is ctx.services
    assert not moved.grants.allows_secret(".env") and moved.auto_apply
    assert moved.reads is not ctx.reads
