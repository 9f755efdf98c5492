"""Compaction policy: what to summarise, what to keep, what to drop when the window fills.

At ``context.autoCompressAt`` of the window, before the next model call:

1. the last ``KEEP_VERBATIM`` messages stay as they are (the cut never separates a tool result
   from the assistant message that asked for it);
2. everything older since the previous cut (including the previous summary) is summarised by
   the model — task state, decisions, files touched, open problems — and replaced in the model's
   view by that summary (the history keeps it all, see ``history``);
3. code read from files not mentioned in the last ``CODE_MENTION_WINDOW`` messages is dropped
   from kept tool results (the model can read it again);
4. the user's request and the project instructions are never dropped: the request is pinned,
   the instructions live in the system prompt.

If the summary call fails, old tool results are dropped without a summary and the compaction
record says so (``summarised=False``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from ipuaro.agent.context.history import calls_by_id, last_summary_index, result_call_id
from ipuaro.domain import ChatMessage, ToolCall

KEEP_VERBATIM = 8
CODE_MENTION_WINDOW = 5
CODE_TOOLS = frozenset({"get_lines", "get_function", "get_class"})
"""Tools whose result is a file's code; dropped when the file is no longer being discussed."""

TRANSCRIPT_RESULT_CHARS = 600
"""How much of each old tool result the summariser sees."""

DROPPED_RESULT = "[tool result dropped to save context; call the tool again if you need it]"

SUMMARY_SYSTEM = (
    "You compress the history of a coding session so the work can continue in a fresh, "
    "shorter context. Write plain text, no tool calls, in English."
)
SUMMARY_INSTRUCTION = (
    "Summarise the conversation above for the assistant that will continue it. Use exactly "
    "these headings:\n"
    "Task state: what the user asked and how far the work is.\n"
    "Decisions: choices made and why.\n"
    "Files touched: paths read or changed, with what changed.\n"
    "Open problems: errors, failing tests, unanswered questions.\n"
    "Be concise (at most {words} words). Keep exact paths, names and line numbers."
)


@dataclass(frozen=True)
class CompactionSplit:
    start: int
    """First history index of the current view (after the previous summary)."""
    boundary: int
    """First index kept verbatim; ``start:boundary`` is summarised."""
    previous_summary: str | None


def split(history: Sequence[ChatMessage], keep: int = KEEP_VERBATIM) -> CompactionSplit | None:
    """Where to cut, or None when there is nothing old enough to compact."""
    cut = last_summary_index(history)
    start = cut + 1
    boundary = max(start, len(history) - keep)
    while boundary > start and history[boundary].role == "tool":
        boundary -= 1
    if boundary <= start:
        return None
    return CompactionSplit(start, boundary, history[cut].content if cut >= 0 else None)


def _mentions(messages: Sequence[ChatMessage]) -> str:
    parts: list[str] = []
    for message in messages:
        if message.role != "tool":
            parts.append(message.content)
        for call in message.tool_calls or ():
            parts.append(json.dumps(call.parameters))
    return "\n".join(parts)


def _call_path(call: ToolCall) -> str | None:
    for key in ("path", "file", "file_path", "filePath"):
        value = call.parameters.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def drop_stale_code(view: Sequence[ChatMessage], window: int = CODE_MENTION_WINDOW) -> int:
    """Blank code results of files not mentioned in the last ``window`` messages; in place."""
    if len(view) <= window:
        return 0
    recent = _mentions(view[-window:])
    calls = calls_by_id(view)
    dropped = 0
    for message in view[:-window]:
        call_id = result_call_id(message)
        call = calls.get(call_id) if call_id else None
        if call is None or call.name not in CODE_TOOLS or message.content == DROPPED_RESULT:
            continue
        path = _call_path(call)
        if path is None or path in recent:
            continue
        message.content = f"[code of {path} dropped to save context; read it again if needed]"
        dropped += 1
    return dropped


def drop_tool_results(messages: Sequence[ChatMessage]) -> int:
    """The fallback when no summary could be made: blank old tool results; in place."""
    dropped = 0
    for message in messages:
        if message.role == "tool" and message.content != DROPPED_RESULT:
            message.content = DROPPED_RESULT
            dropped += 1
    return dropped


def render_transcript(
    messages: Sequence[ChatMessage], previous_summary: str | None, max_chars: int
) -> str:
    """The old part of the conversation as plain text for the summariser, newest kept whole."""
    lines: list[str] = []
    if previous_summary:
        lines.append(f"[Earlier summary]\n{previous_summary}")
    for message in messages:
        if message.kind == "summary":
            continue
        if message.role == "tool":
            text = message.content
            if len(text) > TRANSCRIPT_RESULT_CHARS:
                text = text[:TRANSCRIPT_RESULT_CHARS] + " …"
            lines.append(f"[tool result {message.tool_name or ''}]\n{text}")
            continue
        lines.append(f"[{message.role}]\n{message.content}")
        for call in message.tool_calls or ():
            lines.append(f"→ {call.name} {json.dumps(call.parameters)[:300]}")
    text = "\n\n".join(lines)
    if len(text) > max_chars:
        # Keep the beginning (the task) and the end (the latest state).
        head = max_chars // 3
        text = (
            text[:head]
            + "\n\n[… middle of the conversation omitted …]\n\n"
            + text[-(max_chars - head) :]
        )
    return text


def summary_prompt(transcript: str, words: int) -> str:
    return transcript + "\n\n---\n" + SUMMARY_INSTRUCTION.format(words=words)


def mechanical_summary(messages: Sequence[ChatMessage]) -> str:
    """What can be said without the model: requests, files touched. Used when the summary call
    failed and dropping tool results alone did not free enough room."""
    requests = [
        m.content.strip().splitlines()[0][:200]
        for m in messages
        if m.role == "user" and m.kind in ("normal", "steer") and m.content.strip()
    ]
    files: list[str] = []
    for call in calls_by_id(messages).values():
        path = _call_path(call)
        if path and path not in files:
            files.append(path)
    lines = ["(No model summary: the summary call failed; earlier turns were dropped.)"]
    if requests:
        lines.append("Requests: " + " | ".join(requests[-5:]))
    if files:
        lines.append("Files touched: " + ", ".join(files[-20:]))
    return "\n".join(lines)
