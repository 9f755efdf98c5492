"""One model call: stream it, forward the visible text, collect the reply.

The stream is consumed in a task raced against the cancel event, so an abort returns at once
even when the server is silent (the client also gets the event and closes its connection).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ipuaro.agent.events import AgentEvent, MessageDelta
from ipuaro.agent.run.streamfilter import MarkupFilter
from ipuaro.domain import ChatMessage
from ipuaro.llm.errors import ModelError
from ipuaro.llm.protocol import (
    AssistantReply,
    CapabilityFallback,
    ModelClient,
    Retrying,
    StreamDone,
    StreamError,
    TextDelta,
    ToolSpec,
)


@dataclass
class TurnResult:
    reply: AssistantReply | None = None
    error: ModelError | None = None
    text: str = ""
    """Everything streamed so far (the partial answer after an error or an abort)."""
    cancelled: bool = False
    tools_fallback: bool = False
    """The server refused native tools; the client now describes them in the prompt."""
    retries: list[str] = field(default_factory=list)
    duration_s: float = 0.0


async def stream_turn(
    client: ModelClient,
    system: str,
    messages: list[ChatMessage],
    tools: list[ToolSpec] | None,
    cancel: asyncio.Event,
    emit: Callable[[AgentEvent], None] | None,
    markup: MarkupFilter | None = None,
) -> TurnResult:
    result = TurnResult()
    started = time.perf_counter()
    pieces: list[str] = []

    async def consume() -> None:
        stream = client.stream_chat(messages, system=system, tools=tools, cancel=cancel)
        async for event in stream:
            if isinstance(event, TextDelta):
                pieces.append(event.text)
                visible = markup.feed(event.text) if markup is not None else event.text
                if visible and emit is not None:
                    emit(MessageDelta(visible))
            elif isinstance(event, StreamDone):
                result.reply = event.message
            elif isinstance(event, StreamError):
                result.error = event.error
                if event.partial is not None and not pieces:
                    pieces.append(event.partial.text)
            elif isinstance(event, CapabilityFallback) and event.capability == "tools":
                result.tools_fallback = True
            elif isinstance(event, Retrying):
                result.retries.append(f"attempt {event.attempt}: {event.error.message}")

    task = asyncio.ensure_future(consume())
    waiter = asyncio.ensure_future(cancel.wait())
    try:
        done, _ = await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
    if task not in done or cancel.is_set():
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
        result.cancelled = True
    elif task.exception() is not None:
        # Clients report failures as StreamError; an exception here is a client bug. The loop
        # must survive it: it becomes an llm error the user can retry.
        failure = task.exception()
        result.error = ModelError("bad_response", f"the model client failed: {failure!r}")
    if markup is not None and emit is not None and not result.cancelled:
        rest = markup.flush()
        if rest:
            emit(MessageDelta(rest))
    result.text = "".join(pieces)
    if result.reply is None and result.error is None and not result.cancelled:
        result.error = ModelError("bad_response", "the model stream ended without a reply")
    if result.error is not None and result.error.kind == "cancelled":
        result.cancelled = True
    result.duration_s = time.perf_counter() - started
    return result
