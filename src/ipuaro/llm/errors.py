"""Model errors and the retry policy, as data.

Every failure a model client can meet becomes one ``ModelError`` whose ``kind`` is a key of
``RETRY_POLICY``. The table, not scattered ``if`` statements, decides whether the error is worth
retrying and what the user is told to do about it::

    ModelError
     ├── connect_refused    retryable  the server is not running / wrong URL
     ├── timeout            retryable  no byte for ``llm.timeout`` seconds
     ├── disconnected       retryable  the stream broke before it finished
     ├── http_5xx           retryable  the server failed
     ├── http_429           retryable  rate limited
     ├── http_4xx           fatal      the request was refused
     ├── auth               fatal      missing or wrong API key
     ├── model_not_found    fatal      the model is not on the server
     ├── context_overflow   fatal      the prompt does not fit the context window
     ├── out_of_memory      fatal      the server cannot load the model at this context size
     ├── bad_response       fatal      the server answered something that is not the protocol
     ├── unsupported        fatal      the server does not offer the operation (pull on /v1)
     └── cancelled          fatal      the user aborted
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from ipuaro.domain.errors import IpuaroError

ErrorKind = Literal[
    "connect_refused",
    "timeout",
    "disconnected",
    "http_5xx",
    "http_429",
    "http_4xx",
    "auth",
    "model_not_found",
    "context_overflow",
    "out_of_memory",
    "bad_response",
    "unsupported",
    "cancelled",
]


@dataclass(frozen=True)
class RetryRule:
    retryable: bool
    suggestion: str
    """Generic advice; clients replace it with a specific one when they know more."""


RETRY_POLICY: Mapping[ErrorKind, RetryRule] = MappingProxyType(
    {
        "connect_refused": RetryRule(True, "Start the model server, then retry."),
        "timeout": RetryRule(
            True,
            "The model is slow (loading, or too big for this machine). Retry, or raise "
            "llm.timeout.",
        ),
        "disconnected": RetryRule(True, "The server closed the stream early. Retry."),
        "http_5xx": RetryRule(True, "The model server failed. Retry; check its log if it repeats."),
        "http_429": RetryRule(True, "Rate limited by the server. Wait a moment and retry."),
        "http_4xx": RetryRule(False, "The server refused the request; see the message."),
        "auth": RetryRule(
            False, "Set the API key in the environment variable named by llm.apiKeyEnv."
        ),
        "model_not_found": RetryRule(
            False, "Pull the model, or pick one the server has with --model (llm.model)."
        ),
        "context_overflow": RetryRule(
            False,
            "The prompt is larger than the server's context window: start the server with a "
            "larger one (llama.cpp -c, vLLM --max-model-len, LM Studio's context length), or "
            "compact the conversation (/compact, /clear).",
        ),
        "out_of_memory": RetryRule(
            False, "Lower llm.contextWindow or use a smaller model; the server is out of memory."
        ),
        "bad_response": RetryRule(
            False, "The server does not speak the expected protocol; check llm.provider/baseUrl."
        ),
        "unsupported": RetryRule(False, "This server does not offer that operation."),
        "cancelled": RetryRule(False, "Cancelled by the user."),
    }
)


class ModelError(IpuaroError):
    """A model call failed. ``retryable`` and the default ``suggestion`` come from the table."""

    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        *,
        suggestion: str | None = None,
        status: int | None = None,
    ) -> None:
        rule = RETRY_POLICY[kind]
        self.kind: ErrorKind = kind
        self.window = window_from_error(message) if kind == "context_overflow" else None
        """The window the server named in a context-length refusal; the session adopts it."""
        self.message = message
        self.retryable = rule.retryable
        self.suggestion = suggestion if suggestion is not None else rule.suggestion
        self.status = status
        super().__init__(f"{message} — {self.suggestion}")

    def __repr__(self) -> str:
        return f"ModelError(kind={self.kind!r}, message={self.message!r}, status={self.status!r})"


def kind_for_status(status: int, body_text: str) -> ErrorKind:
    """Classify an HTTP error answer. The body is checked first: servers use 400 and 500 for
    conditions that need different advice (context overflow, missing model, memory)."""
    text = body_text.lower()
    if _mentions_context_overflow(text):
        return "context_overflow"
    if "model" in text and ("not found" in text or "does not exist" in text):
        return "model_not_found"
    if "more system memory" in text or "out of memory" in text or "cudamalloc failed" in text:
        return "out_of_memory"
    if status in (401, 403):
        return "auth"
    if status == 429:
        return "http_429"
    if status >= 500:
        return "http_5xx"
    return "http_4xx"


def _mentions_context_overflow(text: str) -> bool:
    return any(marker in text for marker in _OVERFLOW_MARKERS)


_OVERFLOW_MARKERS = (
    "maximum context length",  # OpenAI, vLLM, llama-cpp-python (non-streaming)
    "exceeds the available context size",  # llama.cpp's llama-server
    "exceed_context_size_error",  # llama-server's error type
    "exceed context window",  # llama-cpp-python's own wording
    "exceeds the context window",
    "context length exceeded",
    "context_length_exceeded",
    "context window exceeded",
    "context the overflows",  # LM Studio ("…when context the overflows")
    "context length of only",  # LM Studio: "loaded with context length of only N tokens"
    "prompt is too long",  # Anthropic-style proxies
    "input is too long",
)

_WINDOW_PATTERNS = tuple(
    re.compile(pattern)
    for pattern in (
        r"maximum context length is (\d+)",
        r"context window of (\d+)",
        r"context length of (?:only )?(\d+)",
        r"available context size \((\d+) tokens\)",
        r"\"n_ctx\"\s*:\s*(\d+)",
        r"n_ctx\s*[=:]\s*(\d+)",
    )
)


def window_from_error(text: str) -> int | None:
    """The context size a server names when it refuses a prompt ("This model's maximum context
    length is 4096 tokens", "exceed context window of 4096", llama-server's ``n_ctx``…)."""
    lower = text.lower()
    for pattern in _WINDOW_PATTERNS:
        match = pattern.search(lower)
        if match:
            return int(match.group(1))
    return None
