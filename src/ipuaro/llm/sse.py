"""Server-sent events as the WHATWG spec reads them (``data:`` lines up to a blank line)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass


@dataclass(frozen=True)
class SseEvent:
    event: str
    """The ``event:`` field; ``message`` when absent."""
    data: str


async def iter_sse(lines: AsyncIterator[str]) -> AsyncIterator[SseEvent]:
    event = "message"
    data: list[str] = []
    async for raw in lines:
        line = raw.rstrip("\r")
        if not line:
            if data:
                yield SseEvent(event, "\n".join(data))
            event, data = "message", []
            continue
        if line.startswith(":"):
            continue  # comment / keep-alive
        field, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field == "data":
            data.append(value)
        elif field == "event":
            event = value
    if data:
        yield SseEvent(event, "\n".join(data))
