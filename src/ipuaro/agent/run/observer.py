"""What happens inside a turn, for the tracer: context sizes, model requests and replies.

These are below the level of the UI's event stream (``events``): the TUI has no use for request
sizes or parse errors, the tracer needs them. An observer is optional and must not raise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from ipuaro.domain import ToolCall


@dataclass(frozen=True)
class ContextStats:
    turn: int
    system_tokens: int
    """Estimated tokens of the whole system prompt (rules, tools, project, summary)."""
    fixed_tokens: int
    project_tokens: int
    messages: int
    message_tokens: int
    total_tokens: int
    window: int
    files_total: int = 0
    files_full: int = 0
    files_brief: int = 0
    files_folded: int = 0
    truncated_results: int = 0


@dataclass(frozen=True)
class ModelRequestInfo:
    turn: int
    model: str
    tool_format: str
    system_chars: int
    messages: int
    message_chars: int
    estimated_tokens: int
    tools: list[str]
    purpose: str = "turn"
    """``turn`` for the agent's own calls, ``compaction`` for the summary call."""


@dataclass(frozen=True)
class ModelResponseInfo:
    turn: int
    duration_s: float
    text: str
    """Raw model text; the tracer stores it only with ``IPUARO_TRACE_RAW=1``."""
    calls: list[ToolCall] = field(default_factory=list)
    parse_errors: list[str] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    finish_reason: str = ""
    error: str | None = None
    purpose: str = "turn"


class TurnObserver(Protocol):
    def on_context(self, stats: ContextStats) -> None: ...

    def on_model_request(self, info: ModelRequestInfo) -> None: ...

    def on_model_response(self, info: ModelResponseInfo) -> None: ...

    def on_note(self, kind: str, data: dict[str, Any]) -> None:
        """Anything else worth keeping (a compaction, a retry, a refused call)."""
        ...
