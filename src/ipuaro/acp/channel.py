"""The protocol channel: stdin and the real stdout, and nothing else on stdout.

An ACP client reads every line of our stdout as JSON-RPC; one stray ``print`` (ours, a
library's, a child process's) breaks the connection. So before anything else runs, the real
stdout is duplicated to a private descriptor for the protocol and descriptor 1 is pointed at
stderr: whatever else writes to "stdout" lands in the client's log instead.

Messages are newline-delimited JSON. A line that is not JSON, or not a JSON object, gets the
JSON-RPC error it deserves (parse error, invalid request) instead of being dropped in silence.
So does a message the rest of the server must never see (see :func:`message_problem`): nested
deeper than :data:`MAX_DEPTH`, holding text that is not valid Unicode (a lone UTF-16 surrogate
escape such as ``\\ud800``, which cannot be stored or sent back as UTF-8 and would poison the
session it reached), or not shaped like a JSON-RPC request, notification or response.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import os
import stat
import sys
import threading
from collections.abc import Callable
from typing import Any, BinaryIO, Protocol

from acp.schema import CancelNotification
from pydantic import BaseModel, ValidationError

from ipuaro.domain.textcheck import unicode_problem, value_problem

LINE_LIMIT = 50 * 1024 * 1024
"""One JSON-RPC line may carry a whole file (embedded context); the default 64 KiB is too small."""
EOF_GRACE_S = 10.0
"""After stdin closes, requests still running get this long to answer before the server
stops (a script piping requests in gets its answers; a client that quit is not waited for)."""
MAX_DEPTH = 64
"""Nesting of lists and objects a message may have (ACP's own messages need under ten)."""
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602

log = logging.getLogger(__name__)


def claim_stdout() -> BinaryIO:
    """Take the real stdout for the protocol; from now on descriptor 1 is stderr."""
    sys.stdout.flush()
    protocol = os.dup(1)
    os.dup2(2, 1)
    return os.fdopen(protocol, "wb", buffering=0)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e999: the SDK's int() of it raises OverflowError
        raise ValueError(f"the number {text[:40]} is out of range")
    return value


NOTIFICATIONS: dict[str, type[BaseModel]] = {"session/cancel": CancelNotification}
"""The notifications a client sends an agent, with their params. The SDK logs a traceback for
any notification it cannot handle (there is no answer to carry the error), so the others are
dropped here with a warning instead."""


def valid_id(message: dict[str, Any]) -> bool:
    request_id = message.get("id")
    return request_id is None or (
        isinstance(request_id, str | int)
        and not isinstance(request_id, bool)
        and unicode_problem(str(request_id)) is None
    )


def message_problem(message: dict[str, Any]) -> tuple[int, str] | None:
    """The JSON-RPC error code and message for a parsed message the server must not act on."""
    if not valid_id(message):
        return INVALID_REQUEST, "'id' must be a string, an integer or null"
    method = message.get("method")
    if "method" in message:
        if not isinstance(method, str):
            return INVALID_REQUEST, "'method' must be a string"
        problem = unicode_problem(method)
        if problem is not None:
            return INVALID_REQUEST, f"the method name {problem}"
        params = message.get("params")
        if params is not None and not isinstance(params, dict | list):
            return INVALID_PARAMS, f"{method}: 'params' must be an object"
        problem = value_problem(params, MAX_DEPTH, ("params",))
        if problem is not None:
            return INVALID_PARAMS, f"{method}: {problem}"
        if "id" not in message:
            return _notification_problem(method, params)
        return None
    if "id" not in message or ("result" not in message and "error" not in message):
        return INVALID_REQUEST, "a message needs a 'method' (request) or an 'id' and a result"
    error = message.get("error")
    if "error" in message and not (
        isinstance(error, dict) and isinstance(error.get("code", 0), int)
    ):
        return INVALID_REQUEST, "a response's 'error' must be an object with an integer 'code'"
    problem = value_problem(message.get("result"), MAX_DEPTH, ("result",))
    problem = problem or value_problem(error, MAX_DEPTH, ("error",))
    return None if problem is None else (INVALID_REQUEST, problem)


def _notification_problem(method: str, params: Any) -> tuple[int, str] | None:
    shape = NOTIFICATIONS.get(method)
    if shape is None:
        return INVALID_REQUEST, f"no notification {method!r} (the client sends session/cancel)"
    try:
        shape.model_validate(params)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "params"
        return INVALID_PARAMS, f"{method}: {where}: {first['msg']}"
    return None


class Writer(Protocol):
    """The part of ``asyncio.StreamWriter`` the transport uses."""

    def write(self, data: bytes) -> None: ...
    async def drain(self) -> None: ...
    def is_closing(self) -> bool: ...
    def close(self) -> None: ...


class FileWriter:
    """Stdout redirected to a regular file (asyncio pipes refuse files): plain writes."""

    def __init__(self, out: BinaryIO) -> None:
        self.out = out

    def write(self, data: bytes) -> None:
        self.out.write(data)
        self.out.flush()

    async def drain(self) -> None:
        return None

    def is_closing(self) -> bool:
        return self.out.closed

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.out.close()


class LineTransport:
    """JSON-RPC messages as lines on a reader and a writer (the SDK's ``Transport``)."""

    def __init__(self, reader: asyncio.StreamReader, writer: Writer) -> None:
        self.reader = reader
        self.writer = writer
        self.on_eof: Callable[[], None] | None = None
        """Called when stdin closes, before the requests still running are waited for."""
        self._lock = asyncio.Lock()
        self._open: set[str] = set()
        self._answered = asyncio.Event()

    async def send(self, message: dict[str, Any]) -> None:
        data = json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n"
        try:
            encoded = data.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate from somewhere: escaped, still JSON
            encoded = (json.dumps(message, separators=(",", ":")) + "\n").encode("ascii")
        async with self._lock:
            self.writer.write(encoded)
            await self.writer.drain()
        if "method" not in message and ("result" in message or "error" in message):
            self._open.discard(json.dumps(message.get("id")))
            if not self._open:
                self._answered.set()

    async def receive(self) -> dict[str, Any] | None:
        while True:
            try:
                line = await self.reader.readline()
            except ValueError:  # longer than LINE_LIMIT; the reader has dropped it
                await self._error(PARSE_ERROR, f"a message is longer than {LINE_LIMIT} bytes")
                continue
            if not line:
                await self._drain()
                return None
            if not line.strip():
                continue
            try:
                message = json.loads(line, parse_constant=_reject_constant, parse_float=_finite)
            except ValueError as error:
                await self._error(PARSE_ERROR, f"the line is not JSON: {error}")
                continue
            except RecursionError:
                await self._error(
                    PARSE_ERROR,
                    f"the line nests lists or objects too deeply to read (ACP messages need "
                    f"under {MAX_DEPTH} levels)",
                )
                continue
            if not isinstance(message, dict):
                await self._error(
                    INVALID_REQUEST, "a message must be one JSON object (batches are not used)"
                )
                continue
            refused = message_problem(message)
            if refused is not None:
                code, text = refused
                if "method" in message and "id" not in message:
                    log.warning("bad notification dropped: %s", text)  # never answered
                    continue
                answer_to = message.get("id") if valid_id(message) else None
                await self._error(code, text, answer_to if "method" in message else None)
                continue
            if "method" in message and "id" in message:
                self._open.add(json.dumps(message["id"]))
                self._answered.clear()
            return message

    async def _drain(self) -> None:
        """Stdin closed: let the running requests answer (``on_eof`` cancels prompts)."""
        if self.on_eof is not None:
            self.on_eof()
        if self._open:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._answered.wait(), EOF_GRACE_S)

    async def close(self) -> None:
        if not self.writer.is_closing():
            self.writer.close()

    async def _error(self, code: int, message: str, request_id: str | int | None = None) -> None:
        log.warning("bad input: %s", message)
        error = {"code": code, "message": message}
        await self.send({"jsonrpc": "2.0", "id": request_id, "error": error})


def _pipe_like(fd: int) -> bool:
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)


def _feed_from_thread(loop: asyncio.AbstractEventLoop, reader: asyncio.StreamReader) -> None:
    """Stdin redirected from a regular file: read it in a thread, line by line."""

    def read() -> None:
        try:
            for line in iter(sys.stdin.buffer.readline, b""):
                loop.call_soon_threadsafe(reader.feed_data, line)
        finally:
            loop.call_soon_threadsafe(reader.feed_eof)

    threading.Thread(target=read, name="acp-stdin", daemon=True).start()


async def open_transport(out: BinaryIO) -> LineTransport:
    """The transport over stdin and ``out`` (the claimed stdout): asyncio pipes for pipes,
    sockets and terminals (what an editor gives), plain reads and writes for files."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    if _pipe_like(sys.stdin.fileno()):
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    else:
        _feed_from_thread(loop, reader)
    if not _pipe_like(out.fileno()):
        return LineTransport(reader, FileWriter(out))
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, out)
    return LineTransport(reader, asyncio.StreamWriter(transport, protocol, None, loop))
