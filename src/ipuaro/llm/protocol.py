"""What the agent needs from a model server, in one screen.

``ModelClient.stream_chat`` yields a typed event stream that always ends with exactly one
``StreamDone`` (the whole reply) or one ``StreamError`` (with whatever had streamed so far).
It never raises for model or network failures: those arrive as ``StreamError``.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from ipuaro.domain.session import ChatMessage, ToolCall
from ipuaro.llm.errors import ModelError

NO_CAP = 0
"""``stream_chat(max_tokens=NO_CAP)``: send no reply cap (the server stops at its window)."""

MIN_COMFORTABLE_CONTEXT = 16_384
"""Below this many tokens the agent's own prompt (structure + AST summary) leaves little room."""


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    parameters: dict[str, Any]
    """JSON schema of the arguments object."""


@dataclass(frozen=True)
class ToolCallParseError:
    """A reply that meant to call a tool but could not be read; the agent re-prompts with it."""

    message: str
    tool: str | None = None
    raw: str = ""
    """The offending text (cut to a few hundred characters)."""


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated: bool = False
    """True when the server reported nothing and the numbers are local estimates."""

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True)
class Timings:
    first_token_s: float | None
    """Seconds from sending the request to the first text or tool call (None: nothing came)."""
    total_s: float
    tokens_per_s: float | None = None


@dataclass(frozen=True)
class AssistantReply:
    text: str
    """Everything the model wrote, raw (tool calls written in text are still in it)."""
    tool_calls: list[ToolCall]
    """Native tool calls only; see ``toolcalls.parse_reply`` for calls written in text."""
    usage: Usage
    timings: Timings
    finish_reason: str
    """``stop``, ``length``, ``tool_calls``, or what the server said."""
    parse_errors: list[ToolCallParseError] = field(default_factory=list)
    """Native tool calls whose arguments were not valid JSON."""
    cut: str | None = None
    """Why the reply ended before the model finished it, for the user: the token cap
    (``finish_reason`` ``length``) or a runaway repetition (``runaway``); None: it finished."""


# --- events -------------------------------------------------------------------------------


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class ToolCallReady:
    call: ToolCall


@dataclass(frozen=True)
class ToolCallInvalid:
    """A native tool call arrived but its arguments could not be read."""

    error: ToolCallParseError


@dataclass(frozen=True)
class UsageReport:
    prompt_tokens: int
    completion_tokens: int


@dataclass(frozen=True)
class Retrying:
    """``llm.autoRetry`` is on and a retryable error happened before anything streamed."""

    error: ModelError
    attempt: int
    delay_s: float


@dataclass(frozen=True)
class CapabilityFallback:
    """The server refused a feature; the client switched to a fallback for this session."""

    capability: Literal["response_format", "tools", "stream_options", "stream"]
    detail: str


@dataclass(frozen=True)
class StreamDone:
    message: AssistantReply


@dataclass(frozen=True)
class StreamError:
    error: ModelError
    partial: AssistantReply | None = None
    """What had streamed before the failure (text, calls), for the transcript."""


ModelEvent = (
    TextDelta
    | ToolCallReady
    | ToolCallInvalid
    | UsageReport
    | Retrying
    | CapabilityFallback
    | StreamDone
    | StreamError
)


# --- model metadata -----------------------------------------------------------------------


@dataclass(frozen=True)
class ModelInfo:
    name: str
    context_length: int | None
    capabilities: frozenset[str]
    """``tools``, ``completion``, ``vision``, ``insert``, ``thinking`` … as the server says."""
    parameter_size: str | None = None
    family: str | None = None
    quantization: str | None = None
    notes: tuple[str, ...] = ()
    """What the user should know about the model on this server, said at session start
    (e.g. tools the server drops: they are described in the prompt instead)."""


@dataclass(frozen=True)
class ContextWindow:
    """The context size in effect for the session, and where it came from (shown to the user)."""

    tokens: int
    source: Literal["pinned", "server", "config", "model", "memory", "default"]
    model_max: int | None = None
    warning: str | None = None


@dataclass(frozen=True)
class PullProgress:
    status: str
    digest: str | None = None
    total: int | None = None
    completed: int | None = None

    @property
    def fraction(self) -> float | None:
        if not self.total or self.completed is None:
            return None
        return min(1.0, self.completed / self.total)


class ModelClient(Protocol):
    model: str

    def stream_chat(
        self,
        messages: list[ChatMessage],
        *,
        system: str | None,
        tools: list[ToolSpec] | None,
        response_format: dict[str, Any] | None = None,
        cancel: asyncio.Event | None = None,
        max_tokens: int | None = None,
    ) -> AsyncIterator[ModelEvent]:
        """``max_tokens``: most tokens of the reply (never more than the window has left);
        None: the client's own cap (``llm.maxReplyTokens``); :data:`NO_CAP`: none."""
        ...

    async def model_info(self) -> ModelInfo: ...

    async def context_window(self) -> ContextWindow: ...

    async def list_models(self) -> list[str]: ...

    async def is_available(self) -> bool: ...

    async def pull(self, progress: Callable[[PullProgress], None]) -> None: ...

    async def aclose(self) -> None: ...


def new_call_id() -> str:
    return f"call_{secrets.token_hex(6)}"
