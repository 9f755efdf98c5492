"""One plan cycle: request (+ auto-context) → model → plan, with context rounds and one repair.

    model ─► reply ─► extract + validate ─┬─ invalid, first time ─► repair message ─► model
              (+ apply's checks when final)│
                                          ├─ invalid again ─────► PlanFailed (raw reply kept)
                                          ├─ context_requests, rounds left ─► fulfil + diet ─► model
                                          └─ otherwise ─────────► the plan

The model is called without tools and, with ``plan.strictJson``, with the schema as
``response_format`` (the clients fall back by themselves when a server refuses it), and with the
reply cap ``plan.maxReplyTokens``. Named log events (``LLM_REQUEST_SENT`` …) go to ``on_log`` for
the trace and the log; ``on_round`` tells the user what each context round fetched and cut;
``on_progress`` how full the context is while the reply streams (a plan is one JSON object:
nothing of it is shown before it is whole, so the front ends show the context meter moving).

A reply cut short (at the cap, or for looping) is the cause of an invalid plan: the repair says
so to the model and the failure to the user, and the repair turn carries the reply cut to
:data:`REPAIR_ECHO_CHARS` (re-sending a runaway reply whole would not fit the window).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from ipuaro.agent.run.observer import ModelRequestInfo, ModelResponseInfo, TurnObserver
from ipuaro.domain import ChatMessage
from ipuaro.domain.errors import IpuaroError
from ipuaro.domain.plan import ContextRequest
from ipuaro.llm.protocol import (
    NO_CAP,
    AssistantReply,
    CapabilityFallback,
    ModelClient,
    StreamDone,
    StreamError,
    TextDelta,
)
from ipuaro.planning.autocontext import AutoContext
from ipuaro.planning.context import ContextSource
from ipuaro.planning.diet import DietLimits, DietResult, apply_diet, truncate_middle
from ipuaro.planning.parse import MAX_ERRORS_QUOTED, PlanReplyError, ReadPlan, read_plan
from ipuaro.planning.prompt import fulfilled_message, repair_message, request_message
from ipuaro.planning.schema import response_format

log = logging.getLogger("ipuaro.plan")

LogListener = Callable[[str, dict[str, Any]], None]

REPAIR_ECHO_CHARS = 4000
"""Most characters of an invalid reply sent back in the repair turn (head and tail kept)."""
PROGRESS_EVERY_CHARS = 200


@dataclass(frozen=True)
class CycleSettings:
    limits: DietLimits = field(default_factory=DietLimits)
    max_rounds: int = 2
    strict_json: bool = True
    max_reply_tokens: int | None = 3072
    """``plan.maxReplyTokens``; None: no cap."""


@dataclass(frozen=True)
class ContextRound:
    """One round of context requests, fulfilled (for the user's view)."""

    number: int
    requests: tuple[ContextRequest, ...]
    blocks: tuple[str, ...]
    """Titles of the blocks sent."""
    cuts: tuple[str, ...]


class PlanFailed(IpuaroError):
    """No valid plan: ``message`` says why; ``raw`` is the model's last reply."""

    def __init__(self, message: str, raw: str = "", *, cancelled: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.raw = raw
        self.cancelled = cancelled


@dataclass
class CycleStats:
    calls: int = 0
    repairs: int = 0
    rounds: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    files: int = 0
    dropped: int = 0
    truncated: int = 0
    total_chars: int = 0
    cuts: list[str] = field(default_factory=list)

    def add_diet(self, diet: DietResult) -> None:
        self.files += diet.files
        self.dropped += diet.dropped
        self.truncated += diet.truncated
        self.total_chars += diet.total_chars
        self.cuts.extend(diet.cuts)

    def context_stats(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "dropped": self.dropped,
            "truncated": self.truncated,
            "totalChars": self.total_chars,
        }


@dataclass
class CycleResult:
    read: ReadPlan
    raw: str
    stats: CycleStats
    rounds: list[ContextRound]


class PlanCycle:
    def __init__(
        self,
        client: ModelClient,
        source: ContextSource,
        settings: CycleSettings,
        *,
        on_log: LogListener | None = None,
        on_round: Callable[[ContextRound], None] | None = None,
        on_call: Callable[[int], None] | None = None,
        observer: TurnObserver | None = None,
        on_progress: Callable[[int], None] | None = None,
    ) -> None:
        """``on_progress``: the tokens the request fills while its reply streams (the prompt and
        the reply so far, estimated at four characters a token), now and then."""
        self.client = client
        self.source = source
        self.settings = settings
        self.stats = CycleStats()
        self._on_log = on_log
        self._on_round = on_round
        self._on_call = on_call
        self._observer = observer
        self._on_progress = on_progress
        self._rounds: list[ContextRound] = []

    def log_event(self, name: str, **data: Any) -> None:
        log.info("%s %s", name, " ".join(f"{k}={v}" for k, v in data.items()))
        if self._on_log is not None:
            self._on_log(name, data)

    async def run(
        self,
        system: str,
        request: str,
        auto: AutoContext,
        cancel: asyncio.Event,
        previous: dict[str, Any] | None = None,
    ) -> CycleResult:
        """``previous``: the session's last plan (the request may refine it)."""
        first = apply_diet(auto.blocks, self.settings.limits)
        self.stats.add_diet(first)
        if first.cuts:
            self._diet_applied(0, first)
        if auto.blocks and self._on_round is not None:
            titles = tuple(b.title for b in first.blocks)
            self._on_round(ContextRound(0, (), titles, tuple(first.cuts)))
        shown_before = None
        if previous is not None:
            text = json.dumps(previous, ensure_ascii=False)
            shown_before, _cut = truncate_middle(text, self.settings.limits.max_file_chars)
        opening = request_message(request, first.blocks, first.cuts, shown_before)
        messages = [_message("user", opening)]
        repaired = False
        while True:
            reply = await self._call(system, messages, cancel)
            text = reply.text
            try:
                read = read_plan(text)
                if not read.plan.context_requests or self.stats.rounds >= self.settings.max_rounds:
                    read = self._precheck(read, text)
            except PlanReplyError as error:
                # A reply cut short is why it does not parse: that is the cause to name.
                cause = f"{reply.cut} — {error.message}" if reply.cut else error.message
                self.log_event(
                    "VALIDATION_FAILED", stage=error.stage, error=cause, repair=not repaired
                )
                if repaired:
                    raise PlanFailed(
                        f"the model's plan is still not valid after one repair: {cause}", text
                    ) from None
                repaired = True
                self.stats.repairs += 1
                echo, _cut = truncate_middle(text, REPAIR_ECHO_CHARS)
                messages.append(_message("assistant", echo))
                messages.append(_message("user", repair_message(_for_model(reply, cause))))
                continue
            repaired = False
            if read.extraction != "json":
                reason = f"the JSON was {read.extraction} in prose"
                self.log_event("LLM_RESPONSE_FORMAT_FALLBACK", reason=reason)
            self.log_event(
                "LLM_RESPONSE_OK",
                mode=read.plan.mode,
                actions=len(read.plan.proposed_changes.actions),
                contextRequests=len(read.plan.context_requests),
                legacyShape=read.legacy,
            )
            requests = read.plan.context_requests
            if not requests or self.stats.rounds >= self.settings.max_rounds:
                return CycleResult(read, text, self.stats, self._rounds)
            messages += [_message("assistant", text), _message("user", self._fulfil(requests))]

    def _precheck(self, read: ReadPlan, text: str) -> ReadPlan:
        """Apply's checks now, so a plan that cannot apply goes to the repair turn with its
        ``ERR_…`` codes instead of being shown as "say ok to apply"; fragments are merged."""
        from ipuaro.planning.actions import PlanInvalid
        from ipuaro.planning.precheck import precheck

        source = self.source
        try:
            checked = precheck(read, source.paths, source.read_files, source.file_text)
        except PlanInvalid as invalid:
            shown = invalid.errors[:MAX_ERRORS_QUOTED]
            lines = [f"- {error.message}" for error in shown]
            if len(invalid.errors) > len(shown):
                lines.append(f"- … and {len(invalid.errors) - len(shown)} more")
            message = "the plan cannot be applied:\n" + "\n".join(lines)
            raise PlanReplyError(message, text, "check") from None
        notes = (*checked.read.notes, *checked.notes)
        for note in notes:
            self.log_event("PLAN_NOTE", note=note)
        return dataclasses.replace(checked.read, notes=notes)

    def _fulfil(self, requests: tuple[ContextRequest, ...]) -> str:
        self.stats.rounds += 1
        number = self.stats.rounds
        blocks = []
        cache = self.source.cache
        for request in requests:
            misses = sum(cache.misses.values())
            blocks.append(self.source.fulfil(request))
            hit = sum(cache.misses.values()) == misses
            name = "CONTEXT_CACHE_HIT" if hit else "CONTEXT_CACHE_MISS"
            self.log_event(name, kind=request.kind, target=request.path or request.query or "")
        diet = apply_diet(blocks, self.settings.limits)
        self.stats.add_diet(diet)
        if diet.cuts:
            self._diet_applied(number, diet)
        context_round = ContextRound(
            number, requests, tuple(b.title for b in diet.blocks), tuple(diet.cuts)
        )
        self._rounds.append(context_round)
        if self._on_round is not None:
            self._on_round(context_round)
        return fulfilled_message(number, diet, self.settings.max_rounds - number)

    def _diet_applied(self, number: int, diet: DietResult) -> None:
        self.log_event(
            "CONTEXT_DIET_APPLIED",
            round=number,
            files=diet.files,
            dropped=diet.dropped,
            truncated=diet.truncated,
            totalChars=diet.total_chars,
        )

    async def _call(
        self, system: str, messages: list[ChatMessage], cancel: asyncio.Event
    ) -> AssistantReply:
        if cancel.is_set():
            raise PlanFailed("interrupted by the user", cancelled=True)
        self.stats.calls += 1
        number = self.stats.calls
        if self._on_call is not None:
            self._on_call(number)
        chars = sum(len(m.content) for m in messages)
        fmt = response_format() if self.settings.strict_json else None
        self.log_event(
            "LLM_REQUEST_SENT",
            call=number,
            inputChars=len(system) + chars,
            responseFormat="json_schema" if fmt else "none",
        )
        if self._observer is not None:
            self._observer.on_model_request(
                ModelRequestInfo(
                    turn=number,
                    model=self.client.model,
                    tool_format="none",
                    system_chars=len(system),
                    messages=len(messages),
                    message_chars=chars,
                    estimated_tokens=(len(system) + chars) // 4,
                    tools=[],
                    purpose="plan",
                )
            )
        started = time.perf_counter()
        reply, error = await self._stream(system, messages, fmt, cancel)
        if self._observer is not None:
            self._observer.on_model_response(
                ModelResponseInfo(
                    turn=number,
                    duration_s=time.perf_counter() - started,
                    text=reply.text if reply else "",
                    prompt_tokens=reply.usage.prompt_tokens if reply else 0,
                    completion_tokens=reply.usage.completion_tokens if reply else 0,
                    finish_reason=reply.finish_reason if reply else "",
                    error=error,
                    purpose="plan",
                )
            )
        if reply is None:
            raise PlanFailed(error or "the model call ended without an answer")
        self.stats.tokens_in += reply.usage.prompt_tokens
        self.stats.tokens_out += reply.usage.completion_tokens
        return reply

    async def _stream(
        self,
        system: str,
        messages: list[ChatMessage],
        fmt: dict[str, Any] | None,
        cancel: asyncio.Event,
    ) -> tuple[AssistantReply | None, str | None]:
        cap = self.settings.max_reply_tokens
        stream = self.client.stream_chat(
            messages,
            system=system,
            tools=None,
            response_format=fmt,
            cancel=cancel,
            max_tokens=NO_CAP if cap is None else cap,
        )
        prompt_chars = len(system) + sum(len(m.content) for m in messages)
        streamed = reported = 0
        async for event in stream:
            if isinstance(event, TextDelta) and self._on_progress is not None:
                streamed += len(event.text)
                if streamed - reported >= PROGRESS_EVERY_CHARS:
                    reported = streamed
                    self._on_progress((prompt_chars + streamed) // 4)
            if isinstance(event, StreamDone):
                return event.message, None
            if isinstance(event, StreamError):
                if event.error.kind == "cancelled" or cancel.is_set():
                    raise PlanFailed("interrupted by the user", cancelled=True)
                detail = f"model error: {event.error.message}"
                if event.error.suggestion:
                    detail += f" — {event.error.suggestion}"
                return None, detail
            if isinstance(event, CapabilityFallback) and event.capability == "response_format":
                self.log_event("LLM_RESPONSE_FORMAT_FALLBACK", reason=event.detail)
        return None, "the model stream ended without a reply"


def _message(role: Literal["user", "assistant"], content: str) -> ChatMessage:
    return ChatMessage(role=role, content=content, timestamp=time.time())


def _for_model(reply: AssistantReply, cause: str) -> str:
    """What the repair turn tells the model about its reply: for one cut short, to be brief
    (or to stop repeating itself)."""
    if reply.finish_reason == "runaway":
        return f"{cause}\nYou repeated yourself; write each part once."
    if reply.cut:
        return f"{cause}\nBe brief: the whole answer must fit the token cap."
    return cause
