"""ipuaro's events, questions and stored history as ACP session updates.

Pure functions: an event in, protocol objects out. Nothing here decides anything; the core did.
Tool kinds come from the tool's name (the ACP client picks an icon by kind); locations are the
files a call names, made absolute because the protocol wants absolute paths.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from acp import (
    plan_entry,
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_plan,
    update_tool_call,
    update_user_message_text,
)
from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AgentThoughtChunk,
    AvailableCommandsUpdate,
    ContentToolCallContent,
    CurrentModeUpdate,
    FileEditToolCallContent,
    PermissionOption,
    PermissionOptionKind,
    StopReason,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
    ToolCallStatus,
    ToolKind,
    UserMessageChunk,
)

from ipuaro.core.calls import CallFacts
from ipuaro.core.decisions import FileChange, Question
from ipuaro.core.events import EndReason
from ipuaro.core.transcript import visible_text
from ipuaro.domain import ChatMessage, ToolCall, ToolResult
from ipuaro.domain.plan import Plan

Update = (
    AgentPlanUpdate
    | AgentMessageChunk
    | AgentThoughtChunk
    | UserMessageChunk
    | ToolCallStart
    | ToolCallProgress
    | CurrentModeUpdate
    | AvailableCommandsUpdate
)
ToolContent = ContentToolCallContent | FileEditToolCallContent

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
OPTION_KINDS: dict[str, PermissionOptionKind] = {
    "apply": "allow_once",
    "retry": "allow_once",
    "continue": "allow_once",
    "force": "allow_once",
    "always": "allow_always",
    "reject": "reject_once",
    "skip": "reject_once",
    "stop": "reject_once",
    "cancel": "reject_once",
    "keep": "reject_once",
    "abort": "reject_always",
    "regenerate": "reject_always",
}
"""How the client should draw an answer (a hint only: the answer itself is the option id)."""
OUTPUT_LIMIT = 4000
"""Characters of a tool's output shown in the client (the model may have read more)."""
LINE_KEYS = ("start_line", "line", "startLine")

Describe = Callable[[ToolCall], CallFacts]
"""The core's ``Workspace.describe_call``: a call's kind and the project paths it names."""


def absolute(root: Path, path: str) -> Path:
    candidate = Path(path)
    return candidate if candidate.is_absolute() else root / candidate


def locations(
    root: Path, facts: CallFacts, parameters: Mapping[str, Any]
) -> list[ToolCallLocation]:
    """The files a call names, absolute; the first with the line the call starts at."""
    line = next((v for k in LINE_KEYS if isinstance(v := parameters.get(k), int) and v >= 0), None)
    return [
        ToolCallLocation(path=str(absolute(root, path)), line=line if index == 0 else None)
        for index, path in enumerate(facts.paths)
    ]


def tool_started(
    acp_id: str, call: ToolCall, facts: CallFacts, title: str, root: Path
) -> ToolCallStart:
    return start_tool_call(
        acp_id,
        title,
        kind=facts.kind,
        status="in_progress",
        locations=locations(root, facts, call.parameters),
        raw_input=call.parameters,
    )


def tool_ended(
    acp_id: str, result: ToolResult, root: Path, shown: Sequence[ToolContent] = ()
) -> ToolCallProgress:
    """How a call ended: its diffs (the ones its question showed, else the unified diff), its
    output (capped), or its error."""
    status: ToolCallStatus = "completed" if result.success else "failed"
    content: list[ToolContent] = []
    if result.success and shown:
        content.extend(shown)
    elif result.success and result.diff:
        content.append(tool_content(text_block(f"```diff\n{result.diff}\n```")))
    elif result.success and isinstance(result.data, str) and result.data.strip():
        content.append(tool_content(text_block(fenced(result.data))))
    elif not result.success:
        content.append(tool_content(text_block(result.error or "failed")))
    if result.check is not None and result.check.lines:  # the after-edit check, under the diff
        warning = "\n".join(f"- {line}" for line in result.check.lines)
        content.append(tool_content(text_block(f"**check after the edit:**\n{warning}")))
    found = [ToolCallLocation(path=str(absolute(root, p))) for p in result.changed_paths]
    return update_tool_call(acp_id, status=status, content=content or None, locations=found or None)


def fenced(text: str) -> str:
    """Tool output for the client, cut at ``OUTPUT_LIMIT`` characters."""
    if len(text) > OUTPUT_LIMIT:
        text = text[:OUTPUT_LIMIT] + f"\n… ({len(text) - OUTPUT_LIMIT:,} more characters)"
    return f"```\n{text}\n```"


def confirm_diffs(root: Path, files: Sequence[FileChange]) -> list[ToolContent]:
    """A proposed change as ACP diffs; a deletion shows as the file becoming empty (ACP has
    no "deleted" diff)."""
    return [
        tool_diff_content(str(absolute(root, f.path)), f.new_text or "", f.old_text) for f in files
    ]


def permission_options(question: Question) -> list[PermissionOption]:
    """A question's options as ACP permission options, the option id being the answer."""
    return [
        PermissionOption(
            option_id=option.value,
            name=option.label,
            kind=OPTION_KINDS.get(
                option.value, "reject_once" if option.value == question.safe else "allow_once"
            ),
        )
        for option in question.options
    ]


def replay(
    history: Sequence[ChatMessage], root: Path, tool_names: set[str], describe: Describe
) -> Iterator[Update]:
    """A stored session as the updates a client would have seen live: the user's messages,
    the answers (without tool-call markup), and every tool call with how it ended."""
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
            text = visible_text(message, tool_names)
            if text.strip():
                yield update_agent_message_text(text)
            for call in message.tool_calls or []:
                calls += 1
                acp_id = f"h{calls}:{call.id}"
                yield tool_started(acp_id, call, describe(call), call.name, root)
                outcome = results.get(call.id)
                if outcome is not None:
                    yield tool_ended(acp_id, outcome, root)


def plan_update(plan: Plan) -> AgentPlanUpdate:
    """A plan-mode plan as an ACP plan: its steps (all pending: nothing is applied yet), or,
    when the model gave no steps, one entry per proposed action."""
    entries = [
        plan_entry(f"{step.step} — {step.details}" if step.details else step.step)
        for step in plan.plan
    ]
    if not entries:
        entries = [
            plan_entry(f"{action.kind} {action.path}", priority="high")
            for action in plan.proposed_changes.actions
        ]
    return update_plan(entries)


def context_round_text(number: int, blocks: Sequence[str], cuts: Sequence[str]) -> str:
    """What the app fetched for the plan (round 0: auto-context from the request)."""
    what = "Auto-context" if number == 0 else f"Context round {number}"
    text = f"{what}: {', '.join(blocks) or 'nothing'}"
    return text + "".join(f"\n- cut: {cut}" for cut in cuts) + "\n"
