"""The protocol channel: stdin and the real stdout, and nothing else on stdout.

An ACP client reads every line of our stdout as JSON-RPC; one stray ``print`` (ours, a
library's, a child process's) breaks the connection. So before anything else runs, the real
stdout is duplicated to a private descriptor for the protocol and descriptor 1 is pointed at
stderr: whatever else writes to "stdout" lands in the client's log instead.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import BinaryIO

STDIN_LIMIT = 50 * 1024 * 1024
"""One JSON-RPC line may carry a whole file (embedded context); the default 64 KiB is too small."""


def claim_stdout() -> BinaryIO:
    """Take the real stdout for the protocol; from now on descriptor 1 is stderr."""
    sys.stdout.flush()
    protocol = os.dup(1)
    os.dup2(2, 1)
    return os.fdopen(protocol, "wb", buffering=0)


async def open_streams(out: BinaryIO) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """asyncio streams over stdin and ``out`` (the claimed stdout)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=STDIN_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, out)
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    return reader, writer
