"""Small helpers shared by the model-layer tests."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import AsyncIterator
from typing import Any

from ipuaro.domain.session import ChatMessage, ToolCall, ToolResult
from ipuaro.llm.protocol import (
    ModelEvent,
    StreamDone,
    StreamError,
    TextDelta,
    ToolSpec,
)

GET_LINES = ToolSpec(
    name="get_lines",
    description="Read lines of a file.\nMore detail that the listing leaves out.",
    parameters={
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "start": {"type": "integer"},
            "end": {"type": "integer"},
        },
        "required": ["path"],
    },
)
EDIT_LINES = ToolSpec(
    name="edit_lines",
    description="Replace a range of lines.",
    parameters={
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "start": {"type": "integer"},
            "end": {"type": "integer"},
            "content": {"type": "string"},
        },
        "required": ["path", "start", "end", "content"],
    },
)
GIT_STATUS = ToolSpec(
    name="git_status",
    description="Show the working tree status.",
    parameters={"type": "object", "properties": {}},
)
TOOLS = [GET_LINES, EDIT_LINES, GIT_STATUS]


def user(text: str) -> ChatMessage:
    return ChatMessage(role="user", content=text, timestamp=time.time())


def conversation_with_tool_result() -> list[ChatMessage]:
    """user → assistant calling get_lines → tool result → user."""
    call = ToolCall(id="call_1", name="get_lines", parameters={"path": "src/a.ts"})
    return [
        user("show me a.ts"),
        ChatMessage(role="assistant", content="", timestamp=time.time(), tool_calls=[call]),
        ChatMessage(
            role="tool",
            content="1: export const a = 1;",
            timestamp=time.time(),
            tool_name="get_lines",
            tool_results=[ToolResult(call_id="call_1", success=True, data="ok")],
        ),
        user("thanks, now explain it"),
    ]


async def collect(stream: AsyncIterator[ModelEvent]) -> list[ModelEvent]:
    return [event async for event in stream]


def final(events: list[ModelEvent]) -> StreamDone | StreamError:
    last = events[-1]
    assert isinstance(last, StreamDone | StreamError), f"stream did not end properly: {events}"
    ends = [e for e in events if isinstance(e, StreamDone | StreamError)]
    assert len(ends) == 1, f"more than one end event: {ends}"
    return last


def done(events: list[ModelEvent]) -> StreamDone:
    last = final(events)
    assert isinstance(last, StreamDone), f"expected success, got {last}"
    return last


def failed(events: list[ModelEvent]) -> StreamError:
    last = final(events)
    assert isinstance(last, StreamError), f"expected an error, got {last}"
    return last


def deltas(events: list[ModelEvent]) -> list[str]:
    return [e.text for e in events if isinstance(e, TextDelta)]


def closed_port() -> int:
    """A loopback port with nothing listening (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def wait_for(predicate: Any, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        await asyncio.sleep(0.01)
    return bool(predicate())
