"""The session history and the part of it the model sees.

``Session.history`` is the whole conversation, kept for display, export and resume. Compaction
does not delete from it; it appends a ``kind="summary"`` message at the cut. The model's view is
then: the system prompt (which carries the latest summary), the pinned user request when it lies
before the cut, and every message after the cut. Tool results are one ``role="tool"`` message per
call, whose ``tool_results[0].call_id`` pairs it with the assistant's call.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ipuaro.domain import ChatMessage, MessageStats, ToolCall, ToolResult

MESSAGE_OVERHEAD_TOKENS = 4
"""Role markers and separators a chat template adds around each message."""


@dataclass(frozen=True)
class ContextView:
    summary: str | None
    messages: list[ChatMessage]


def last_summary_index(history: Sequence[ChatMessage]) -> int:
    for index in range(len(history) - 1, -1, -1):
        if history[index].kind == "summary":
            return index
    return -1


def context_view(history: Sequence[ChatMessage], pinned: ChatMessage | None) -> ContextView:
    """What goes to the model after the system prompt (see the module docstring).

    ``pinned`` is the current request's user message, by identity: it stays in the view even
    when a compaction cut falls after it."""
    cut = last_summary_index(history)
    messages = list(history[cut + 1 :])
    if (
        pinned is not None
        and not any(m is pinned for m in messages)
        and any(m is pinned for m in history[: cut + 1])
    ):
        messages.insert(0, pinned)
    return ContextView(history[cut].content if cut >= 0 else None, messages)


def calls_by_id(messages: Iterable[ChatMessage]) -> dict[str, ToolCall]:
    found: dict[str, ToolCall] = {}
    for message in messages:
        for call in message.tool_calls or ():
            found[call.id] = call
    return found


def estimate_message(message: ChatMessage, estimate: Callable[[str], int]) -> int:
    tokens = estimate(message.content) + MESSAGE_OVERHEAD_TOKENS
    for call in message.tool_calls or ():
        tokens += estimate(call.name) + estimate(json.dumps(call.parameters)) + 4
    return tokens


def finite_call(call: ToolCall) -> ToolCall:
    """``call`` with every non-finite number (``1e999``, ``Infinity``, ``NaN``: Python's json
    reads them) spelled as text. Such a value cannot be sent back to a provider in strict JSON,
    so the history keeps the text and the tool names it as a wrong argument."""
    if not _has_non_finite(call.parameters):
        return call
    return ToolCall(id=call.id, name=call.name, parameters=_finite(call.parameters))


def _has_non_finite(value: Any) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, dict):
        return any(_has_non_finite(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_non_finite(v) for v in value)
    return False


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return json.dumps(value)  # "Infinity", "-Infinity", "NaN"
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def user_message(text: str, kind: Literal["normal", "steer", "error"] = "normal") -> ChatMessage:
    return ChatMessage(role="user", content=text, timestamp=time.time(), kind=kind)


def assistant_message(text: str, calls: list[ToolCall]) -> ChatMessage:
    return ChatMessage(
        role="assistant", content=text, timestamp=time.time(), tool_calls=calls or None
    )


def tool_message(call: ToolCall, result: ToolResult, content: str) -> ChatMessage:
    return ChatMessage(
        role="tool",
        content=content,
        timestamp=time.time(),
        tool_results=[result],
        tool_name=call.name,
    )


def summary_message(text: str, tokens_before: int, tokens_after: int) -> ChatMessage:
    """The compaction record. ``stats.tokens_in``/``tokens_out`` hold the context size before
    and after, which the JSONL export writes as ``token_before``/``token_after``."""
    return ChatMessage(
        role="system",
        content=text,
        timestamp=time.time(),
        kind="summary",
        stats=MessageStats(tokens_in=tokens_before, tokens_out=tokens_after),
    )


def result_call_id(message: ChatMessage) -> str | None:
    if message.role == "tool" and message.tool_results:
        return message.tool_results[0].call_id
    return None


def dangling_calls(history: Sequence[ChatMessage]) -> list[ToolCall]:
    """Calls of the last assistant message that have no result yet (after an abort or crash)."""
    for index in range(len(history) - 1, -1, -1):
        message = history[index]
        if message.role == "assistant":
            answered = {result_call_id(m) for m in history[index + 1 :]}
            return [c for c in message.tool_calls or () if c.id not in answered]
        if message.role == "user":
            return []
    return []


def close_dangling(history: list[ChatMessage], reason: str) -> int:
    """Answer every call left without a result (abort, crash) with a failed ``reason``."""
    calls = dangling_calls(history)
    for call in calls:
        result = ToolResult(call_id=call.id, success=False, error=reason)
        history.append(tool_message(call, result, reason))
    return len(calls)


def keep_partial(history: list[ChatMessage], text: str) -> None:
    """An answer cut short (abort, error) stays in the history, marked as such."""
    if text.strip():
        history.append(assistant_message(text + "\n[interrupted]", []))


def last_answer(history: Sequence[ChatMessage]) -> str:
    last = history[-1] if history else None
    if last is not None and last.role == "assistant" and not last.tool_calls:
        return last.content
    return ""
