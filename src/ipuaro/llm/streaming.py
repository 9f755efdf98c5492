"""The part of streaming both clients share: events, cancellation, retries, the final reply.

The caller (``http_client.HttpModelClient``, for both clients) supplies one *attempt*: send the
request and feed what arrives into a ``ReplyBuilder``, raising ``ModelError`` on failure.
``drive`` runs the attempt as a task and races it against the cancel event, so a cancel stops the
HTTP read at once (the task is cancelled, which closes the response and its connection) instead of
waiting for the next chunk. Retries happen only with ``llm.autoRetry``, only for retryable errors,
and only if nothing was streamed yet — text already shown cannot be taken back.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

from ipuaro.domain.errors import IpuaroError
from ipuaro.domain.session import ToolCall
from ipuaro.llm.errors import ModelError
from ipuaro.llm.jsonrepair import JsonRepairError, loads_lenient
from ipuaro.llm.protocol import (
    AssistantReply,
    CapabilityFallback,
    ModelEvent,
    Retrying,
    StreamDone,
    StreamError,
    TextDelta,
    Timings,
    ToolCallInvalid,
    ToolCallParseError,
    ToolCallReady,
    Usage,
    UsageReport,
    new_call_id,
)
from ipuaro.llm.runaway import Runaway, RunawayDetector
from ipuaro.llm.tokens import estimate_tokens


class RunawayCut(IpuaroError):
    """Raised from ``ReplyBuilder.text`` to stop reading a reply that repeats itself; the
    client catches it, ends the stream (the server stops generating) and keeps the reply."""

    def __init__(self, found: Runaway) -> None:
        super().__init__(found.describe())
        self.found = found


DEFAULT_RETRY_DELAYS = (1.0, 2.0, 4.0)


@dataclass(frozen=True)
class RetrySettings:
    auto_retry: bool = False
    delays: tuple[float, ...] = DEFAULT_RETRY_DELAYS
    """Seconds to wait before retry 1, 2, …; their count is the most retries made."""


class ReplyBuilder:
    """Collects one reply while it streams and emits the matching events."""

    def __init__(self, emit: Callable[[ModelEvent], None], prompt_estimate: int) -> None:
        self._emit = emit
        self._prompt_estimate = prompt_estimate
        self._started = time.monotonic()
        self._first_token: float | None = None
        self._text: list[str] = []
        self._calls: list[ToolCall] = []
        self._errors: list[ToolCallParseError] = []
        self._usage: Usage | None = None
        self._finish_reason = "stop"
        self._cut: str | None = None
        self._runaway = RunawayDetector()
        self.tokens_per_s: float | None = None
        self.reply_cap: int | None = None
        """The cap sent with the request, to name it when the server stops at it."""
        self.cap_reason = ""
        """Why the cap is that size, e.g. "what the context window had left"."""

    def restart_clock(self) -> None:
        """Time from here: preparation (e.g. asking the model's size) is not the model's."""
        self._started = time.monotonic()

    @property
    def streamed(self) -> bool:
        return bool(self._text or self._calls or self._errors)

    def text(self, delta: str) -> None:
        """Raises :class:`RunawayCut` when the reply has become a loop."""
        if delta:
            self._mark_first()
            self._text.append(delta)
            self._emit(TextDelta(delta))
            found = self._runaway.feed(delta)
            if found is not None:
                raise RunawayCut(found)

    def cut_runaway(self, found: Runaway) -> None:
        """Keep the reply up to the first copy of the repeated piece and say why it ended."""
        text = "".join(self._text)[: found.keep]
        self._text = [text]
        self._finish_reason = "runaway"
        self._cut = found.describe()

    def tool_call(self, call: ToolCall) -> None:
        self._mark_first()
        self._calls.append(call)
        self._emit(ToolCallReady(call))

    def wire_call(self, name: str, arguments: object, call_id: object = None) -> None:
        """A native call as the server sent it: arguments as an object or as JSON text (read
        leniently). Arguments that cannot be read become ``ToolCallInvalid``."""
        raw = arguments.strip() if isinstance(arguments, str) else str(arguments)
        if isinstance(arguments, str):
            try:
                arguments = loads_lenient(raw) if raw else {}
            except JsonRepairError as exc:
                self.invalid_call(
                    ToolCallParseError(f"arguments of {name}: {exc}", name, raw[:300])
                )
                return
        if not isinstance(arguments, dict):
            message = f"arguments of {name} must be a JSON object"
            self.invalid_call(ToolCallParseError(message, name, raw[:300]))
            return
        call = ToolCall(
            id=str(call_id) if call_id else new_call_id(), name=name, parameters=arguments
        )
        self.tool_call(call)

    def invalid_call(self, error: ToolCallParseError) -> None:
        self._mark_first()
        self._errors.append(error)
        self._emit(ToolCallInvalid(error))

    def usage(self, prompt_tokens: int, completion_tokens: int) -> None:
        self._usage = Usage(prompt_tokens, completion_tokens)
        self._emit(UsageReport(prompt_tokens, completion_tokens))

    def notice(self, event: CapabilityFallback) -> None:
        self._emit(event)

    def finish(self, reason: str) -> None:
        self._finish_reason = reason

    def build(self) -> AssistantReply:
        text = "".join(self._text)
        usage = self._usage or Usage(self._prompt_estimate, estimate_tokens(text), estimated=True)
        finish = self._finish_reason
        if self._calls and finish == "stop":
            finish = "tool_calls"
        cut = self._cut
        if cut is None and finish == "length":
            if self.reply_cap:
                why = f": {self.cap_reason}" if self.cap_reason else ""
                cut = f"the reply was cut off at the token cap ({self.reply_cap:,} tokens{why})"
            else:
                cut = "the reply was cut off where the server stopped it (its context window)"
        timings = Timings(
            first_token_s=None if self._first_token is None else self._first_token - self._started,
            total_s=time.monotonic() - self._started,
            tokens_per_s=self.tokens_per_s,
        )
        return AssistantReply(
            text, list(self._calls), usage, timings, finish, list(self._errors), cut
        )

    def _mark_first(self) -> None:
        if self._first_token is None:
            self._first_token = time.monotonic()


Attempt = Callable[[ReplyBuilder], Awaitable[None]]


@dataclass
class _Finished:
    error: BaseException | None


async def drive(
    attempt: Attempt,
    *,
    cancel: asyncio.Event | None,
    retry: RetrySettings,
    prompt_estimate: int,
) -> AsyncIterator[ModelEvent]:
    """Run ``attempt`` (again, if the retry policy says so) and yield its events."""
    cancel_event = cancel if cancel is not None else asyncio.Event()
    cancelled = asyncio.ensure_future(cancel_event.wait())
    try:
        attempt_no = 0
        while True:
            attempt_no += 1
            queue: asyncio.Queue[ModelEvent | _Finished] = asyncio.Queue()
            builder = ReplyBuilder(queue.put_nowait, prompt_estimate)
            task = asyncio.create_task(_run(attempt, builder, queue))
            try:
                finished: _Finished | None = None
                while finished is None:
                    getter = asyncio.ensure_future(queue.get())
                    await asyncio.wait({getter, cancelled}, return_when=asyncio.FIRST_COMPLETED)
                    if not getter.done():
                        getter.cancel()
                        await _stop(task)
                        error = ModelError("cancelled", "the model call was cancelled")
                        yield StreamError(error, builder.build() if builder.streamed else None)
                        return
                    item = getter.result()
                    if isinstance(item, _Finished):
                        finished = item
                    else:
                        yield item
            finally:
                await _stop(task)
            if finished.error is None:
                yield StreamDone(builder.build())
                return
            if not isinstance(finished.error, ModelError):
                raise finished.error
            error = finished.error
            if (
                retry.auto_retry
                and error.retryable
                and not builder.streamed
                and attempt_no <= len(retry.delays)
            ):
                delay = retry.delays[attempt_no - 1]
                yield Retrying(error, attempt_no, delay)
                done, _ = await asyncio.wait({cancelled}, timeout=delay)
                if done:
                    yield StreamError(ModelError("cancelled", "the model call was cancelled"))
                    return
                continue
            yield StreamError(error, builder.build() if builder.streamed else None)
            return
    finally:
        cancelled.cancel()


async def _run(
    attempt: Attempt, builder: ReplyBuilder, queue: asyncio.Queue[ModelEvent | _Finished]
) -> None:
    try:
        await attempt(builder)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # handed to the consumer, which re-raises non-model errors
        queue.put_nowait(_Finished(exc))
    else:
        queue.put_nowait(_Finished(None))


async def _stop(task: asyncio.Task[None]) -> None:
    if not task.done():
        task.cancel()
    await asyncio.wait({task})
    if not task.cancelled():
        task.exception()  # mark retrieved; the queue already carried it
