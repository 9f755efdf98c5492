"""The chat request as both protocols write it; only the native tool turns differ.

Ollama's ``/api/chat`` and OpenAI's ``/v1/chat/completions`` take the same tool specs (OpenAI's
function shape) and the same conversation layout: an optional system message, then one message
per turn. A server that was offered no native tools reads the tool turns as text
(``formats.render_calls_as_text``, ``formats.tool_result_text``); with native tools each client
writes them in its own shape (``NativeToolTurns``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ipuaro.domain.session import ChatMessage
from ipuaro.llm.formats import render_calls_as_text, tool_result_text
from ipuaro.llm.protocol import ToolSpec


@dataclass(frozen=True)
class ChatRequest:
    """One ``stream_chat`` call as the agent made it; the same on every attempt and fallback."""

    messages: list[ChatMessage]
    system: str | None
    tools: list[ToolSpec] | None
    response_format: dict[str, Any] | None
    reply_cap: int | None = None
    """Most tokens of the reply, as sent (``max_tokens`` / ``num_predict``); None: no cap."""


@dataclass(frozen=True)
class NativeToolTurns:
    """How one protocol writes tool turns when the server takes native tools."""

    calls: Callable[[ChatMessage], dict[str, Any]]
    """An assistant message with ``tool_calls``."""
    result: Callable[[ChatMessage, str], dict[str, Any] | None]
    """A ``role: tool`` message and its tool's name; None: the protocol cannot tie it to its
    call, so it is sent as text."""


def wire_tools(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    """Tool specs in OpenAI's function shape; Ollama's ``/api/chat`` takes the same."""
    return [
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters,
            },
        }
        for tool in tools
    ]


def wire_messages(
    messages: list[ChatMessage], system: str | None, native: NativeToolTurns | None
) -> list[dict[str, Any]]:
    """The conversation on the wire; ``native`` None writes tool turns as text."""
    out: list[dict[str, Any]] = []
    if system:
        out.append({"role": "system", "content": system})
    names_by_id: dict[str, str] = {}
    for message in messages:
        for call in message.tool_calls or []:
            names_by_id[call.id] = call.name
        if message.role == "tool":
            name = message.tool_name or _name_from_results(message, names_by_id)
            wired = native.result(message, name) if native else None
            text = tool_result_text(name, message.content)
            out.append(wired or {"role": "user", "content": text})
        elif message.role == "assistant" and message.tool_calls:
            if native:
                out.append(native.calls(message))
            else:
                content = render_calls_as_text(message.content, message.tool_calls)
                out.append({"role": "assistant", "content": content})
        else:
            out.append({"role": message.role, "content": message.content})
    return out


def _name_from_results(message: ChatMessage, names_by_id: dict[str, str]) -> str:
    for result in message.tool_results or []:
        if result.call_id in names_by_id:
            return names_by_id[result.call_id]
    return "tool"
