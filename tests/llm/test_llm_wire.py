"""What both protocols write alike: the conversation and the tool specs (``llm.wire``)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from ipuaro.domain.session import ChatMessage, ToolCall, ToolResult
from ipuaro.llm.wire import NativeToolTurns, wire_messages, wire_tools
from tests.llm.helpers import TOOLS

CONTENTS = ["", "  padded text  ", "plain"]


def turns(index: int) -> list[list[ChatMessage]]:
    """Every kind of turn with every content: a user or assistant message, or an assistant
    calling a tool followed by its result (named or not, its id known or matching no call, as
    in a resumed, trimmed session)."""
    out: list[list[ChatMessage]] = []
    for content in CONTENTS:
        out.append([ChatMessage(role="user", content=content, timestamp=0.0)])
        out.append([ChatMessage(role="assistant", content=content, timestamp=0.0)])
        for tool_name, result_id in itertools.product(
            [None, "get_lines"], [f"call_{index}", "call_unknown"]
        ):
            call = ToolCall(id=f"call_{index}", name="get_lines", parameters={"path": "a.ts"})
            result = ToolResult(call_id=result_id, success=True)
            out.append(
                [
                    ChatMessage(
                        role="assistant", content=content, timestamp=0.0, tool_calls=[call]
                    ),
                    ChatMessage(
                        role="tool",
                        content=f"result {content}",
                        timestamp=0.0,
                        tool_name=tool_name,
                        tool_results=[result],
                    ),
                ]
            )
    return out


def conversations() -> list[list[ChatMessage]]:
    """All 343 conversations of up to two turns."""
    out: list[list[ChatMessage]] = [[]]
    for length in (1, 2):
        for combo in itertools.product(*(turns(i) for i in range(length))):
            out.append([message for turn in combo for message in turn])
    return out


ALL = conversations()


@pytest.mark.parametrize("system", [None, "SYS"])
def test_without_native_tools_every_turn_is_plain_text_a_model_can_read(
    system: str | None,
) -> None:
    for messages in ALL:
        assert_plain_text(messages, system)


def assert_plain_text(messages: list[ChatMessage], system: str | None) -> None:
    wired = wire_messages(messages, system, None)
    offset = 1 if system else 0
    assert len(wired) == len(messages) + offset
    if system:
        assert wired[0] == {"role": "system", "content": system}
    for message, sent in zip(messages, wired[offset:], strict=True):
        assert set(sent) == {"role", "content"}, "a tool field reached a server without tools"
        assert sent["role"] in ("user", "assistant")
        assert message.content.strip() in sent["content"]
        if message.role == "tool":
            call_names = {c.id: c.name for m in messages for c in m.tool_calls or []}
            result_id = (message.tool_results or [])[0].call_id
            name = message.tool_name or call_names.get(result_id, "tool")
            assert sent["content"].startswith(f"Observation ({name}):")


def test_native_turns_are_written_by_the_protocol_and_refused_results_fall_back_to_text() -> None:
    def calls(message: ChatMessage) -> dict[str, Any]:
        return {"role": "assistant", "calls": [c.id for c in message.tool_calls or []]}

    def result(message: ChatMessage, name: str) -> dict[str, Any] | None:
        known = (message.tool_results or [])[0].call_id != "call_unknown"
        return {"role": "tool", "name": name} if known else None

    native = NativeToolTurns(calls=calls, result=result)
    for messages in ALL:
        wired = wire_messages(messages, None, native)
        assert_native(messages, wired)


def assert_native(messages: list[ChatMessage], wired: list[dict[str, Any]]) -> None:
    for message, sent in zip(messages, wired, strict=True):
        if message.role == "tool" and (message.tool_results or [])[0].call_id == "call_unknown":
            assert sent["role"] == "user" and message.content in sent["content"]
        elif message.role == "tool":
            assert sent["role"] == "tool"
        elif message.tool_calls:
            assert sent == {"role": "assistant", "calls": [c.id for c in message.tool_calls]}
        else:
            assert sent == {"role": message.role, "content": message.content}


def test_tool_specs_are_sent_in_the_function_shape() -> None:
    first = wire_tools(TOOLS)[0]
    assert first == {
        "type": "function",
        "function": {
            "name": "get_lines",
            "description": TOOLS[0].description,
            "parameters": TOOLS[0].parameters,
        },
    }
