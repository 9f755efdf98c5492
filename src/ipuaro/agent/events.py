"""The agent's event stream and the callbacks through which the user decides.

The agent emits events; the TUI, the headless runner, the session writer and the tracer are
consumers of the same stream. Decisions (confirm an edit, pick retry/skip/abort) go the other way
through :class:`AgentHandlers`, whose methods the agent awaits.

Event order for one request::

    AgentStart
      (TurnStart  MessageDelta*  MessageEnd  (ToolCallStart ToolCallOutput* ToolCallEnd)*
       ContextUpdate)+
      [Compaction] [ErrorRaised] [QueueChanged]
    AgentEnd
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, Protocol

from ipuaro.domain import MessageStats, ToolCall, ToolResult

ErrorKind = Literal["store", "parse", "llm", "file", "command", "conflict"]
ErrorChoice = Literal["retry", "skip", "abort"]
ConflictChoice = Literal["apply", "skip", "regenerate"]
LoopChoice = Literal["continue", "stop"]
EndReason = Literal["done", "aborted", "limit", "error", "refused"]


@dataclass(frozen=True)
class AgentError:
    """The concept's ErrorResult: what failed and what the user can do about it."""

    kind: ErrorKind
    message: str
    recoverable: bool = True
    suggestion: str | None = None


@dataclass(frozen=True)
class AgentStart:
    session_id: str
    request: str
    type: Literal["agent_start"] = "agent_start"


@dataclass(frozen=True)
class TurnStart:
    turn: int
    type: Literal["turn_start"] = "turn_start"


@dataclass(frozen=True)
class MessageDelta:
    """Streamed visible text of the assistant (tool-call markup already stripped where known)."""

    text: str
    type: Literal["message_delta"] = "message_delta"


@dataclass(frozen=True)
class MessageEnd:
    """One assistant message is complete: its visible text and the calls it made."""

    text: str
    tool_calls: list[ToolCall] = field(default_factory=list)
    stats: MessageStats | None = None
    type: Literal["message_end"] = "message_end"


@dataclass(frozen=True)
class ToolCallStart:
    call: ToolCall
    summary: str
    """Compact line for the chat, e.g. ``get_function src/auth/login.ts login``."""
    type: Literal["tool_call_start"] = "tool_call_start"


@dataclass(frozen=True)
class ToolCallOutput:
    """Output of a call still running (``run_command``), for display only: the model reads
    the result in :class:`ToolCallEnd`. Only the tail of a flood arrives."""

    call: ToolCall
    text: str
    type: Literal["tool_call_output"] = "tool_call_output"


@dataclass(frozen=True)
class ToolCallEnd:
    call: ToolCall
    result: ToolResult
    duration_s: float
    type: Literal["tool_call_end"] = "tool_call_end"


@dataclass(frozen=True)
class ConfirmRequested:
    """An edit/command/secret read awaits the user's decision (emitted before the handler
    is awaited, so observers can show it; the decision comes back through the handler)."""

    kind: str
    title: str
    type: Literal["confirm_request"] = "confirm_request"


@dataclass(frozen=True)
class ErrorRaised:
    error: AgentError
    choices: tuple[str, ...]
    type: Literal["error"] = "error"


@dataclass(frozen=True)
class ContextUpdate:
    tokens_used: int
    tokens_limit: int
    type: Literal["context_update"] = "context_update"

    @property
    def fraction(self) -> float:
        return self.tokens_used / self.tokens_limit if self.tokens_limit else 0.0


@dataclass(frozen=True)
class Compaction:
    tokens_before: int
    tokens_after: int
    summarised: bool
    """False when the summary call failed and only tool results were dropped."""
    type: Literal["compaction"] = "compaction"


@dataclass(frozen=True)
class QueueChanged:
    steers: tuple[str, ...]
    follow_ups: tuple[str, ...]
    type: Literal["queue_changed"] = "queue_changed"


@dataclass(frozen=True)
class AgentEnd:
    answer: str
    reason: EndReason
    stats: MessageStats
    changes: tuple[str, ...] = ()
    """Paths changed during the request (for headless JSON output)."""
    detail: str | None = None
    """Why it stopped, when it was not ``done``."""
    type: Literal["agent_end"] = "agent_end"


AgentEvent = (
    AgentStart
    | TurnStart
    | MessageDelta
    | MessageEnd
    | ToolCallStart
    | ToolCallOutput
    | ToolCallEnd
    | ConfirmRequested
    | ErrorRaised
    | ContextUpdate
    | Compaction
    | QueueChanged
    | AgentEnd
)

EventListener = Callable[[AgentEvent], None]


class AgentHandlers(Protocol):
    """What the agent asks the user. The TUI answers with dialogs; headless answers by flags.

    Confirmation of edits, commands and secret reads is not here: it is the tools'
    ``ConfirmCallback`` (``ipuaro.domain.edits``), passed in the ``ToolContext``. Front ends
    answer both through ``ipuaro.core.decisions``.
    """

    async def on_error(self, error: AgentError, choices: tuple[ErrorChoice, ...]) -> ErrorChoice:
        """Retry / skip / abort for a failed step."""
        ...

    async def on_conflict(
        self, path: str, description: str, choices: tuple[ConflictChoice, ...]
    ) -> ConflictChoice:
        """The file changed since the model read it: apply anyway / skip / regenerate
        (``apply`` only among ``choices`` when the edit can be moved onto the new file)."""
        ...

    async def on_loop(self, tool_name: str, repeats: int) -> LoopChoice:
        """The same call was made ``repeats`` times in a row."""
        ...
