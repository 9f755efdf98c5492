"""Sessions, messages, tool calls and undo entries (concept types)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from ipuaro.domain.base import DomainModel
from ipuaro.domain.checks import EditCheckReport

Role = Literal["system", "user", "assistant", "tool"]


class ToolCall(DomainModel):
    id: str
    name: str
    parameters: dict[str, Any] = Field(default_factory=dict)


class ToolResult(DomainModel):
    call_id: str
    success: bool
    data: Any = None
    error: str | None = None
    refused: bool = False
    """The user or the policy said no (``error`` says why); not a mistake to retry."""
    diff: str | None = None
    """The unified diff of the change this call made, or proposed and was refused."""
    changed_paths: list[str] = Field(default_factory=list)
    """Project paths this call wrote (an applied edit)."""
    truncated: bool = False
    """What the model read of the result was cut to the tool-result budget."""
    check: EditCheckReport | None = None
    """What the applied edit broke (syntax, callers, imports); None when clean or no edit."""
    details: dict[str, Any] | None = None
    """Extra structured output for programs (``ipuaro tool`` JSON: data, a tree, a conflict);
    never sent to the model, never read for the fields above."""

    @property
    def refusal(self) -> str | None:
        """Why the call was refused, or None when it was not."""
        return (self.error or "refused") if self.refused else None


class MessageStats(DomainModel):
    tokens: int = 0
    time_ms: int = 0
    tool_calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    estimated: bool | None = None
    """True when some counts are ipuaro's estimate: the server sent no usage. None (left out
    of the JSON) when the server counted them all."""


class ChatMessage(DomainModel):
    role: Role
    content: str
    timestamp: float
    tool_calls: list[ToolCall] | None = None
    tool_results: list[ToolResult] | None = None
    stats: MessageStats | None = None
    tool_name: str | None = None
    """For ``role: tool`` messages: which tool produced it (Ollama wants it)."""
    kind: Literal["normal", "summary", "steer", "error"] = "normal"


class ContextState(DomainModel):
    loaded_files: list[str] = Field(default_factory=list)
    tokens_used: int = 0
    tokens_limit: int = 128_000


class SessionStats(DomainModel):
    total_tokens: int = 0
    total_time: float = 0.0
    tool_calls: int = 0
    edits_applied: int = 0
    edits_rejected: int = 0


class UndoEntry(DomainModel):
    """One applied change. ``previous_content`` is None when the change created the file;
    ``new_content`` is None when it deleted it. ``group`` ties the entries of one transaction."""

    id: str
    timestamp: float
    file_path: str
    previous_content: list[str] | None
    new_content: list[str] | None
    description: str
    group: str | None = None
    previous_hash: str | None = None
    new_hash: str | None = None
    group_size: int | None = None
    """How many entries (files) ``group`` has: the store trims its stacks entry by entry, so
    undo checks that the whole group is still there before reverting any of it."""
    pending: int | None = None
    """While the change is being written: the writing process's id. The entry is pushed
    before the first byte is written and confirmed (set to None) after the last rename, so a
    kill in between leaves a pending entry whose writer is gone; undo then keeps it if the
    change (or part of it) reached the disk and drops it if not (see ``edits.undo``)."""
    is_dir: bool = False
    """A folder, not a file: ``previous_content`` / ``new_content`` are None where the folder
    is absent and ``[]`` where it exists (a plan's CREATE_DIR / DELETE_DIR)."""
    all_or_nothing: bool = False
    """A change a kill cut short is completed when found (every new content is in its
    entries), so its files are all old or all new; edits without it keep what reached the
    disk for undo to put back."""


class Session(DomainModel):
    id: str
    project_name: str
    created_at: float
    last_activity_at: float
    history: list[ChatMessage] = Field(default_factory=list)
    context: ContextState = Field(default_factory=ContextState)
    undo_stack: list[UndoEntry] = Field(default_factory=list)
    stats: SessionStats = Field(default_factory=SessionStats)
    input_history: list[str] = Field(default_factory=list)
    model: str | None = None
    title: str | None = None
    plan: dict[str, Any] | None = None
    """The last validated plan of plan mode (``planning.record``: a ``PlanRecord`` as JSON),
    kept so that ``ok`` or a later ``ipuaro run --apply`` applies it."""
