"""Everything a workspace tells its front ends, as typed events.

Two families share one stream (``Workspace.subscribe``):

- the agent's events (``AgentStart`` … ``AgentEnd``, see ``ipuaro.agent.events``) for a request;
- the workspace's own (:data:`WorkspaceEvent`): index progress, a session switched or cleared,
  a mode or the model changed, the file watcher failed.

Front ends import event types from here, never from the agent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from ipuaro.agent.events import (
    AgentEnd,
    AgentError,
    AgentEvent,
    AgentStart,
    Compaction,
    ConfirmRequested,
    ConflictChoice,
    ContextUpdate,
    EndReason,
    ErrorChoice,
    ErrorKind,
    ErrorRaised,
    LoopChoice,
    MessageDelta,
    MessageEnd,
    QueueChanged,
    ToolCallEnd,
    ToolCallOutput,
    ToolCallStart,
    TurnStart,
)
from ipuaro.domain.plan import ContextRequest, Plan

__all__ = [
    "AgentEnd",
    "AgentError",
    "AgentEvent",
    "AgentStart",
    "Compaction",
    "ConfirmRequested",
    "ConflictChoice",
    "ContextUpdate",
    "EndReason",
    "ErrorChoice",
    "ErrorKind",
    "ErrorRaised",
    "Event",
    "ExtensionWarning",
    "HistoryCleared",
    "IndexFinished",
    "IndexProgress",
    "Listener",
    "LoopChoice",
    "MessageDelta",
    "MessageEnd",
    "ModeChanged",
    "ModelChanged",
    "PlanContextRound",
    "PlanUpdated",
    "QueueChanged",
    "SessionSwitched",
    "TaskEnded",
    "TaskStarted",
    "ToolCallEnd",
    "ToolCallOutput",
    "ToolCallStart",
    "TurnStart",
    "WatcherFailed",
    "WorkspaceEvent",
]


@dataclass(frozen=True)
class IndexProgress:
    """``done`` of ``total`` files indexed (throttled by the workspace)."""

    done: int
    total: int
    background: bool
    """A refresh behind a ready prompt, not the first index the user waits for."""
    type: Literal["index_progress"] = "index_progress"


@dataclass(frozen=True)
class IndexFinished:
    """An index run ended: ``summary`` is its one-line report, or ``error`` why it failed (the
    previous index still answers)."""

    summary: str | None
    changed: bool
    """Files were parsed or removed (a background refresh that found nothing says nothing)."""
    background: bool
    error: str | None = None
    type: Literal["index_finished"] = "index_finished"


@dataclass(frozen=True)
class SessionSwitched:
    """Another session is current (loaded, or a new one started)."""

    session_id: str
    reason: Literal["loaded", "new"]
    type: Literal["session_switched"] = "session_switched"


@dataclass(frozen=True)
class HistoryCleared:
    """``/clear``: the model's view starts afresh (the session and its undo stack stay)."""

    session_id: str
    type: Literal["history_cleared"] = "history_cleared"


@dataclass(frozen=True)
class ModeChanged:
    auto_apply: bool
    plan_mode: bool
    type: Literal["mode_changed"] = "mode_changed"


@dataclass(frozen=True)
class ModelChanged:
    model: str
    window_tokens: int
    window_source: str
    type: Literal["model_changed"] = "model_changed"


@dataclass(frozen=True)
class WatcherFailed:
    """The file watcher stopped (``fatal``) or one update failed; the session goes on."""

    message: str
    fatal: bool
    type: Literal["watcher_failed"] = "watcher_failed"


@dataclass(frozen=True)
class ExtensionWarning:
    """An extension failed and was set aside, said once — a hook that failed or hung (it was
    stopped), an MCP server that could not start, crashed or hung (its tools are withdrawn);
    the session goes on."""

    message: str
    source: str = "extension"
    """Which kind of extension: ``hook``, ``mcp``, ``extension``."""
    type: Literal["extension_warning"] = "extension_warning"


@dataclass(frozen=True)
class PlanContextRound:
    """Plan mode: the app fetched what the model asked for (round ``number``), and cut
    ``cuts`` to fit the context limits (each cut is a sentence for the user)."""

    number: int
    requests: tuple[ContextRequest, ...]
    blocks: tuple[str, ...]
    cuts: tuple[str, ...] = ()
    type: Literal["plan_context_round"] = "plan_context_round"


@dataclass(frozen=True)
class PlanUpdated:
    """Plan mode produced a validated plan (stored with the session for ``ok`` / ``--apply``).

    ``document`` is the plan as the contract's JSON object; ``memory_patch`` is what the model
    proposes to remember, handed on as is (whoever keeps memory decides what to apply)."""

    plan: Plan
    document: dict[str, Any]
    session_id: str
    schema_version: int
    schema_hash: str
    read_files: tuple[str, ...] = ()
    memory_patch: dict[str, Any] = field(default_factory=dict)
    type: Literal["plan_updated"] = "plan_updated"


@dataclass(frozen=True)
class TaskStarted:
    """A compaction began: ``/compact`` (a task of its own) or the window filling up within
    a request (``within="request"``). Other tasks have their own start events."""

    kind: str
    what: str
    within: str | None = None
    type: Literal["task_started"] = "task_started"


@dataclass(frozen=True)
class TaskEnded:
    """The task ``TaskStarted`` announced ended: ``done``, ``failed`` or ``cancelled``."""

    kind: str
    what: str
    outcome: Literal["done", "failed", "cancelled"]
    within: str | None = None
    type: Literal["task_ended"] = "task_ended"


WorkspaceEvent = (
    IndexProgress
    | IndexFinished
    | SessionSwitched
    | HistoryCleared
    | ModeChanged
    | ModelChanged
    | WatcherFailed
    | ExtensionWarning
    | PlanContextRound
    | PlanUpdated
    | TaskStarted
    | TaskEnded
)
Event = AgentEvent | WorkspaceEvent
Listener = Callable[[Event], None]
