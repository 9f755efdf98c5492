"""HTTP failures turned into ``ModelError``s that tell the user what to do.

``http_client.HttpModelClient`` calls ``error_from_exception`` for anything httpx raises and
``error_from_status`` for an HTTP error answer; a ``ServerHints`` carries the provider-specific
advice. ``parse_json_object`` reads one JSON object from a stream or a body, or says it is not one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ipuaro.llm.errors import ErrorKind, ModelError, kind_for_status
from ipuaro.llm.lean_httpx import httpx


@dataclass(frozen=True)
class ServerHints:
    provider: str
    """``Ollama`` or ``OpenAI-compatible server``: how the user knows it."""
    base_url: str
    start_hint: str
    """How to get the server running (shown when the connection is refused)."""
    missing_model_hint: str
    """How to get the model onto the server."""


def error_from_exception(exc: httpx.HTTPError, hints: ServerHints, timeout: float) -> ModelError:
    where = f"{hints.provider} at {hints.base_url}"
    if isinstance(exc, httpx.ConnectTimeout):
        return ModelError(
            "timeout", f"connecting to {where} timed out", suggestion=hints.start_hint
        )
    if isinstance(exc, httpx.TimeoutException):
        return ModelError(
            "timeout",
            f"{where} sent nothing for {timeout:g} s",
            suggestion="The model may still be loading or is too slow for this machine. "
            "Retry, or raise llm.timeout.",
        )
    if isinstance(exc, httpx.UnsupportedProtocol):
        return ModelError(
            "bad_response",
            f"cannot use the URL {hints.base_url}: {exc}",
            suggestion="llm.baseUrl must start with http:// or https://",
        )
    if isinstance(exc, httpx.ConnectError):
        return ModelError(
            "connect_refused", f"cannot connect to {where} ({exc})", suggestion=hints.start_hint
        )
    if isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError | httpx.WriteError):
        return ModelError("disconnected", f"{where} closed the connection early ({exc})")
    return ModelError("bad_response", f"talking to {where} failed: {exc!r}")


class ErrorAnswer(ModelError):
    """The server answered an HTTP error status. Carries the server's own words so a client can
    recognise a refused feature and fall back (``HttpModelClient._fallback``)."""

    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        *,
        server_message: str,
        suggestion: str | None,
        status: int,
    ) -> None:
        super().__init__(kind, message, suggestion=suggestion, status=status)
        self.server_message = server_message
        """The human part of the error body (``error_message``); may be empty."""


def error_from_status(status: int, body: bytes, hints: ServerHints, path: str) -> ErrorAnswer:
    server_message = error_message(body.decode("utf-8", errors="replace"))
    message = server_message or f"HTTP {status}"
    kind = kind_for_status(status, message)
    suggestion: str | None = None
    if kind == "model_not_found":
        suggestion = hints.missing_model_hint
    elif kind == "http_4xx" and status == 404:
        suggestion = (
            f"{hints.base_url} does not serve {path}; check llm.provider and llm.baseUrl "
            "(OpenAI-compatible URLs usually end in /v1)."
        )
    return ErrorAnswer(
        kind,
        f"{hints.provider} answered {status} to {path}: {message}",
        server_message=server_message,
        suggestion=suggestion,
        status=status,
    )


def error_message(text: str) -> str:
    """The human part of an error body: Ollama's ``{"error": "…"}``, OpenAI's
    ``{"error": {"message": "…"}}``, FastAPI's ``{"detail": …}``, or the text itself."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return text.strip()[:500]
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict):
            return str(error.get("message") or error)
        if error:
            return str(error)
        if "detail" in data:
            return str(data["detail"])[:500]
        if "message" in data:
            return str(data["message"])
    return text.strip()[:500]


def parse_json_object(text: str, what: str) -> dict[str, Any]:
    """``text`` read as one JSON object; ``what`` names it in errors (``an SSE event``)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        raise ModelError("bad_response", f"{what} is not JSON: {text[:200]!r}") from None
    return expect_object(data, what)


def expect_object(data: Any, what: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ModelError("bad_response", f"{what} is {type(data).__name__}, not a JSON object")
    return data
