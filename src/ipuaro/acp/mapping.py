"""ipuaro's events, questions and stored history as ACP session updates.

Pure functions: an event in, protocol objects out. Nothing here decides anything; the core did.
Tool kinds come from the tool's name (the ACP client picks an icon by kind); locations are the
files a call names, made absolute because the protocol wants absolute paths.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from acp import (
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_tool_call,
    update_user_message_text,
)
from acp.schema import (
    AgentMessageChunk,
    AgentThoughtChunk,
    ContentToolCallContent,
    FileEditToolCallContent,
    PermissionOption,
    StopReason,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
    ToolCallStatus,
    ToolKind,
    UserMessageChunk,
)

from ipuaro.agent.events import EndReason
from ipuaro.domain import ChatMessage, ToolCall, ToolResult

Update = AgentMessageChunk | AgentThoughtChunk | UserMessageChunk | ToolCallStart | ToolCallProgress
ToolContent = ContentToolCallContent | FileEditToolCallContent

TOOL_KINDS: dict[str, ToolKind] = {
    **dict.fromkeys(
        (
            "get_lines",
            "get_function",
            "get_class",
            "get_structure",
            "get_dependencies",
            "get_dependents",
            "get_complexity",
            "get_todos",
            "git_status",
            "git_diff",
        ),
        "read",
    ),
    **dict.fromkeys(("grep_search", "find_files", "find_references", "find_definition"), "search"),
    **dict.fromkeys(("edit_lines", "replace", "edit_file", "create_file"), "edit"),
    "delete_file": "delete",
    **dict.fromkeys(("run_command", "run_tests", "git_commit"), "execute"),
}
CONFIRM_KINDS: dict[str, ToolKind] = {
    "edit": "edit",
    "delete": "delete",
    "command": "execute",
    "read_secret": "read",
}
STOP_REASONS: dict[EndReason, StopReason] = {
    "done": "end_turn",
    "aborted": "cancelled",
    "limit": "max_turn_requests",
    "refused": "refusal",
    "error": "end_turn",
}
"""An error ends the turn normally: its explanation was streamed as the last message."""
PATH_KEYS = ("path", "file_path", "filepath", "target_file", "file", "filename")
LINE_KEYS = ("start_line", "line", "startLine")


def tool_kind(name: str) -> ToolKind:
    return TOOL_KINDS.get(name, "other")


def locations(root: Path, parameters: Mapping[str, Any]) -> list[ToolCallLocation]:
    """The file a call names (under any of the names models use for it), with its line."""
    path = next((v for k in PATH_KEYS if isinstance(v := parameters.get(k), str) and v), None)
    if path is None:
        return []
    line = next((v for k in LINE_KEYS if isinstance(v := parameters.get(k), int) and v >= 0), None)
    return [ToolCallLocation(path=str(absolute(root, path)), line=line)]


def absolute(root: Path, path: str) -> Path:
    candidate = Path(path)
    return candidate if candidate.is_absolute() else root / candidate


def tool_started(acp_id: str, call: ToolCall, title: str, root: Path) -> ToolCallStart:
    return start_tool_call(
        acp_id,
        title,
        kind=tool_kind(call.name),
        status="in_progress",
        locations=locations(root, call.parameters),
        raw_input=call.parameters,
    )


def tool_ended(acp_id: str, result: ToolResult, root: Path) -> ToolCallProgress:
    status: ToolCallStatus = "completed" if result.success else "failed"
    content: list[ToolContent] = []
    changed = diffs(root, (result.details or {}).get("files"))
    if result.success:
        content.extend(changed)
    elif result.error:
        content.append(tool_content(text_block(result.error)))
    found = [ToolCallLocation(path=d.path) for d in changed]
    return update_tool_call(acp_id, status=status, content=content or None, locations=found or None)


def diffs(root: Path, files: Any) -> list[FileEditToolCallContent]:
    """``[{path, oldText, newText}]`` (an edit's files) as ACP diffs; a deletion is shown as
    the file becoming empty (ACP has no "deleted" diff)."""
    out: list[FileEditToolCallContent] = []
    for item in files if isinstance(files, list) else []:
        if not isinstance(item, dict) or not isinstance(item.get("path"), str):
            continue
        old, new = item.get("oldText"), item.get("newText")
        out.append(
            tool_diff_content(
                str(absolute(root, item["path"])),
                new if isinstance(new, str) else "",
                old if isinstance(old, str) else None,
            )
        )
    return out


def options(*choices: tuple[str, str, str]) -> list[PermissionOption]:
    """``(option id, label, ACP kind)`` triples as permission options."""
    return [
        PermissionOption(option_id=option_id, name=name, kind=kind)
        for option_id, name, kind in choices
    ]


def replay(history: Sequence[ChatMessage], root: Path) -> Iterator[Update]:
    """A stored session as the updates a client would have seen live: the user's messages,
    the answers, and every tool call with how it ended."""
    results: dict[str, ToolResult] = {}
    for message in history:
        for result in message.tool_results or []:
            results[result.call_id] = result
    calls = 0
    for message in history:
        if message.role == "user" and message.kind in ("normal", "steer"):
            yield update_user_message_text(message.content)
        elif message.kind == "summary":
            yield update_agent_thought_text(message.content)
        elif message.role == "assistant":
            if message.content.strip():
                yield update_agent_message_text(message.content)
            for call in message.tool_calls or []:
                calls += 1
                acp_id = f"h{calls}:{call.id}"
                yield tool_started(acp_id, call, call.name, root)
                outcome = results.get(call.id)
                if outcome is not None:
                    yield tool_ended(acp_id, outcome, root)
