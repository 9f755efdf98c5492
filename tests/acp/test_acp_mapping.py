"""The pure half of the ACP server: locations, permission options for every kind
of question, prompts, replayed history, and the line transport's answers to bad lines."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError
from acp.schema import (
    AgentMessageChunk,
    AgentThoughtChunk,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
    ToolCallProgress,
    ToolCallStart,
    UserMessageChunk,
)

from ipuaro.acp.channel import LineTransport
from ipuaro.acp.mapping import locations, permission_options, replay, tool_ended
from ipuaro.acp.server import prompt_text
from ipuaro.core.calls import CallFacts
from ipuaro.core.decisions import (
    ConfirmChange,
    ConfirmRequest,
    LargeProject,
    LoopDetected,
    OverwriteChanges,
    RecoverError,
    ResolveConflict,
)
from ipuaro.core.events import AgentError
from ipuaro.domain import ChatMessage, ToolCall, ToolResult

ROOT = Path("/work/project")


def test_locations_are_absolute_and_the_first_has_the_line() -> None:
    facts = CallFacts("read", ("shop/cart.py", "shop/pricing.py"))
    first, second = locations(ROOT, facts, {"file_path": "shop/cart.py", "start_line": 12})
    assert first.path == "/work/project/shop/cart.py" and first.line == 12
    assert second.path == "/work/project/shop/pricing.py" and second.line is None
    assert locations(ROOT, CallFacts("search", ()), {"pattern": "TODO"}) == []


def describe(call: ToolCall) -> CallFacts:
    """What the core says of the calls in these histories (``Workspace.describe_call``)."""
    return CallFacts("edit", (str(call.parameters["path"]),))


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            ConfirmChange.of(ConfirmRequest(kind="edit", title="Edit a.py", description="")),
            [("apply", "allow_once"), ("always", "allow_always"), ("reject", "reject_once")],
        ),
        (
            ConfirmChange.of(
                ConfirmRequest(kind="edit", title="Apply the plan", description="", per_file=True)
            ),
            [("apply", "allow_once"), ("reject", "reject_once")],  # a plan's change: no always
        ),
        (
            ConfirmChange.of(
                ConfirmRequest(kind="command", title="Run", description="", command="x")
            ),
            [
                ("apply", "allow_once"),
                ("always", "allow_always"),
                ("reject", "reject_once"),
                ("abort", "reject_always"),
            ],
        ),
        (
            RecoverError.of(AgentError("llm", "boom"), ("retry", "skip", "abort")),
            [("retry", "allow_once"), ("skip", "reject_once"), ("abort", "reject_always")],
        ),
        (
            ResolveConflict.of("a.py", "changed", ("skip", "regenerate")),
            [("skip", "reject_once"), ("regenerate", "reject_always")],
        ),
        (LoopDetected.of("get_lines", 3), [("continue", "allow_once"), ("stop", "reject_once")]),
        (
            LargeProject.of("p", 20_000, 10_000),
            [("continue", "allow_once"), ("cancel", "reject_once")],
        ),
        (OverwriteChanges.of("undo", "newer"), [("force", "allow_once"), ("keep", "reject_once")]),
    ],
)
def test_every_question_becomes_permission_options_named_by_their_answer(
    question: Any, expected: list[tuple[str, str]]
) -> None:
    options = permission_options(question)
    assert [(o.option_id, o.kind) for o in options] == expected
    assert all(o.name for o in options)


def test_prompt_text_keeps_text_links_and_attached_files() -> None:
    text = prompt_text(
        [
            TextContentBlock(type="text", text="explain"),
            ResourceContentBlock(type="resource_link", name="cart", uri="file:///p/shop/cart.py"),
            EmbeddedResourceContentBlock(
                type="resource",
                resource=TextResourceContents(uri="file:///p/a.py", text="x = 1"),
            ),
        ]
    )
    assert text == "explain\n\n@/p/shop/cart.py\n\n/p/a.py:\n```\nx = 1\n```"
    with pytest.raises(RequestError) as refused:
        prompt_text([ImageContentBlock(type="image", data="AAAA", mime_type="image/png")])
    assert refused.value.code == -32602 and "image" in str(refused.value)


def test_a_stored_history_replays_as_the_updates_seen_live() -> None:
    call = ToolCall(id="c1", name="replace", parameters={"path": "a.py", "old": "1", "new": "2"})
    history = [
        ChatMessage(role="user", content="change it", timestamp=1),
        ChatMessage(role="assistant", content="On it.", timestamp=2, tool_calls=[call]),
        ChatMessage(
            role="tool",
            content="refused",
            timestamp=3,
            tool_results=[ToolResult(call_id="c1", success=False, error="the user rejected")],
        ),
        ChatMessage(role="system", content="summary of before", timestamp=4, kind="summary"),
        ChatMessage(role="user", content="bad call format", timestamp=5, kind="error"),
        ChatMessage(role="assistant", content="Left it.", timestamp=6),
    ]
    updates = list(replay(history, ROOT, {"replace"}, describe))
    kinds = [type(u) for u in updates]
    assert kinds == [
        UserMessageChunk,
        AgentMessageChunk,
        ToolCallStart,
        ToolCallProgress,
        AgentThoughtChunk,
        AgentMessageChunk,
    ]
    start, end = updates[2], updates[3]
    assert isinstance(start, ToolCallStart) and isinstance(end, ToolCallProgress)
    assert (
        start.kind == "edit" and start.locations and start.locations[0].path == "/work/project/a.py"
    )
    assert end.status == "failed" and end.tool_call_id == start.tool_call_id


def test_a_finished_edit_shows_its_diff_and_changed_files() -> None:
    result = ToolResult(
        call_id="c", success=True, diff="--- a.py\n+++ a.py\n", changed_paths=["a.py"]
    )
    update = tool_ended("7:c", result, ROOT)
    assert update.status == "completed"
    assert update.locations and update.locations[0].path == "/work/project/a.py"
    assert update.content and "```diff" in update.content[0].content.text  # type: ignore[union-attr]
    output = tool_ended("8:c", ToolResult(call_id="c", success=True, data="x" * 10_000), ROOT)
    text = output.content[0].content.text  # type: ignore[index,union-attr]
    assert len(text) < 4200 and "more characters" in text


class CollectingWriter:
    """The write half of a pipe, kept in memory (the transport only writes and drains)."""

    def __init__(self) -> None:
        self.data = bytearray()

    def write(self, data: bytes) -> None:
        self.data.extend(data)

    async def drain(self) -> None:
        return None

    def is_closing(self) -> bool:
        return False

    def close(self) -> None:
        return None


@pytest.mark.parametrize(
    ("line", "code"),
    [
        (b"not json", -32700),
        (b"{", -32700),
        (b"\xff\xfe garbage", -32700),
        (b"[1, 2]", -32600),
        (b'"a string"', -32600),
        (b"42", -32600),
        (b"null", -32600),
    ],
)
async def test_a_bad_line_gets_an_error_and_the_next_message_still_arrives(
    line: bytes, code: int
) -> None:
    reader = asyncio.StreamReader()
    writer = CollectingWriter()
    transport = LineTransport(reader, writer)
    good = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
    reader.feed_data(line + b"\n\n" + json.dumps(good).encode() + b"\n")
    reader.feed_eof()
    assert await transport.receive() == good
    [error] = [json.loads(x) for x in writer.data.decode().splitlines()]
    assert error["id"] is None and error["error"]["code"] == code
    await transport.send({"jsonrpc": "2.0", "id": 1, "result": {}})
    assert await asyncio.wait_for(transport.receive(), 1) is None


async def test_at_end_of_input_open_requests_are_answered_before_the_end() -> None:
    reader = asyncio.StreamReader()
    transport = LineTransport(reader, CollectingWriter())
    told: list[str] = []
    transport.on_eof = lambda: told.append("eof")
    reader.feed_data(b'{"jsonrpc": "2.0", "id": "p", "method": "session/prompt"}\n')
    reader.feed_eof()
    assert (await transport.receive())["id"] == "p"
    end = asyncio.ensure_future(transport.receive())
    await asyncio.sleep(0.05)
    assert told == ["eof"] and not end.done()  # the prompt is still being answered
    await transport.send({"jsonrpc": "2.0", "id": "p", "result": {"stopReason": "cancelled"}})
    assert await asyncio.wait_for(end, 1) is None


def test_a_finished_edit_shows_the_after_edit_check_under_its_diff() -> None:
    from ipuaro.domain.checks import EditCheckReport, SyntaxFinding

    line = "new syntax error at a.py:2:5: syntax error: return (x"
    check = EditCheckReport(
        syntax=[SyntaxFinding(path="a.py", line=2, column=5, kind="error", excerpt="return (x")],
        lines=[line],
    )
    result = ToolResult(
        call_id="c", success=True, diff="--- a.py\n+++ a.py\n", changed_paths=["a.py"], check=check
    )
    update = tool_ended("9:c", result, ROOT)
    assert update.content is not None and len(update.content) == 2
    assert "```diff" in update.content[0].content.text  # type: ignore[union-attr]
    assert f"- {line}" in update.content[1].content.text  # type: ignore[union-attr]
