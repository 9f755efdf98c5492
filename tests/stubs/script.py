"""What the stub model server is told to answer: scripted replies and the models it has."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any


@dataclass
class StubToolCall:
    name: str
    arguments: dict[str, Any] | str = field(default_factory=dict)
    """An object, or raw text (possibly broken JSON) sent as the arguments string."""
    id: str | None = None


@dataclass
class ScriptedReply:
    """One answer to one chat request, in either wire protocol."""

    text: str = ""
    chunks: int = 1
    """Split ``text`` into this many streamed pieces."""
    tool_calls: list[StubToolCall] = field(default_factory=list)
    """Native tool calls."""
    tool_call_chunks: int = 1
    """OpenAI: split each call's arguments string into this many deltas."""
    prompt_tokens: int = 12
    completion_tokens: int = 7
    first_token_delay: float = 0.0
    """Seconds between the response headers and the first chunk."""
    chunk_delay: float = 0.0
    """Seconds between chunks."""
    error_after: int | None = None
    """Send an in-stream error (protocol's own shape) after this many chunks, then end."""
    error_message: str = "stub: the model runner crashed"
    disconnect_after: int | None = None
    """Close the socket abruptly (no final chunk) after this many chunks."""
    status: int = 200
    """Anything else: answer this HTTP status with ``error_message`` as the error body."""
    done_reason: str = "stop"
    send_done_marker: bool = True
    """OpenAI: end with ``data: [DONE]``."""

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ScriptedReply:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown reply keys {sorted(unknown)}; known: {sorted(known)}")
        values = dict(data)
        values["tool_calls"] = [StubToolCall(**c) for c in data.get("tool_calls", [])]
        return cls(**values)


@dataclass
class StubModel:
    name: str
    context_length: int | None = 32768
    capabilities: tuple[str, ...] = ("completion", "tools")
    parameter_size: str = "7.6B"
    family: str = "qwen2"
    quantization: str = "Q4_K_M"
    reports_capabilities: bool = True
    """False: answer /api/show like Ollama < 0.6 (no "capabilities"; the template tells)."""

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> StubModel:
        values = dict(data)
        if "capabilities" in values:
            values["capabilities"] = tuple(values["capabilities"])
        return cls(**values)


def split_text(text: str, pieces: int) -> list[str]:
    """``text`` in ``pieces`` nearly equal parts (fewer if it is shorter); never empty parts."""
    if not text:
        return []
    pieces = max(1, min(pieces, len(text)))
    size, extra = divmod(len(text), pieces)
    out: list[str] = []
    pos = 0
    for i in range(pieces):
        step = size + (1 if i < extra else 0)
        out.append(text[pos : pos + step])
        pos += step
    return out
