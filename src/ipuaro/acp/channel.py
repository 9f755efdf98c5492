"""The protocol channel: stdin and the real stdout, and nothing else on stdout.

An ACP client reads every line of our stdout as JSON-RPC; one stray ``print`` (ours, a
library's, a child process's) breaks the connection. So before anything else runs, the real
stdout is duplicated to a private descriptor for the protocol and descriptor 1 is pointed at
stderr: whatever else writes to "stdout" lands in the client's log instead.

Messages are newline-delimited JSON. A line that is not JSON, or not a JSON object, gets the
JSON-RPC error it deserves (parse error, invalid request) instead of being dropped in silence.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from typing import Any, BinaryIO

LINE_LIMIT = 50 * 1024 * 1024
"""One JSON-RPC line may carry a whole file (embedded context); the default 64 KiB is too small."""
PARSE_ERROR = -32700
INVALID_REQUEST = -32600

log = logging.getLogger(__name__)


def claim_stdout() -> BinaryIO:
    """Take the real stdout for the protocol; from now on descriptor 1 is stderr."""
    sys.stdout.flush()
    protocol = os.dup(1)
    os.dup2(2, 1)
    return os.fdopen(protocol, "wb", buffering=0)


class LineTransport:
    """JSON-RPC messages as lines on a pair of asyncio streams (the SDK's ``Transport``)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self._lock = asyncio.Lock()

    async def send(self, message: dict[str, Any]) -> None:
        data = json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n"
        async with self._lock:
            self.writer.write(data.encode("utf-8"))
            await self.writer.drain()

    async def receive(self) -> dict[str, Any] | None:
        while True:
            try:
                line = await self.reader.readline()
            except ValueError:  # longer than LINE_LIMIT; the reader has dropped it
                await self._error(PARSE_ERROR, f"a message is longer than {LINE_LIMIT} bytes")
                continue
            if not line:
                return None
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError as error:
                await self._error(PARSE_ERROR, f"the line is not JSON: {error}")
                continue
            if not isinstance(message, dict):
                await self._error(
                    INVALID_REQUEST, "a message must be one JSON object (batches are not used)"
                )
                continue
            return message

    async def close(self) -> None:
        if not self.writer.is_closing():
            self.writer.close()

    async def _error(self, code: int, message: str) -> None:
        log.warning("bad input: %s", message)
        error = {"code": code, "message": message}
        await self.send({"jsonrpc": "2.0", "id": None, "error": error})


async def open_transport(out: BinaryIO) -> LineTransport:
    """The transport over stdin and ``out`` (the claimed stdout)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, out)
    return LineTransport(reader, asyncio.StreamWriter(transport, protocol, None, loop))
