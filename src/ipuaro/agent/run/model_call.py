"""One model call of a turn: what is offered, what is sent, what comes back.

The offer is the tool specs the model is given (native format) and the names accepted when it
writes a call in its text; it follows the tool set, the tool format, plan mode and the window.
A call assembles the context (compacting first when it is past the threshold), streams the
reply, and handles what the server says went wrong: a smaller window than assumed is adopted
and the call retried; any other error is put to the user (retry / skip / abort). The loop
(``loop``) decides what a reply means; this module only gets it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from ipuaro.agent.context.history import finite_call, keep_partial
from ipuaro.agent.events import AgentError, ErrorChoice, ErrorRaised, EventListener
from ipuaro.agent.run.bookkeeping import SessionBook, Stop
from ipuaro.agent.run.dispatch import ToolSet
from ipuaro.agent.run.reporting import TurnReporter
from ipuaro.agent.run.stats import RequestStats
from ipuaro.agent.run.streamfilter import MarkupFilter
from ipuaro.agent.run.turn import TurnResult, stream_turn
from ipuaro.domain import ToolCall
from ipuaro.llm.formats import ToolFormat
from ipuaro.llm.protocol import ModelClient, ToolSpec
from ipuaro.llm.runaway import cut_advice

if TYPE_CHECKING:
    from ipuaro.agent.context.manager import Assembled, ContextManager
    from ipuaro.agent.run.compaction import Compactor


class ModelCall:
    """The model side of the loop: the client, the tool offer, and one call per turn.

    ``client``, ``tools``, ``tool_format`` and ``plan_mode`` are the agent's (it reads and
    sets them through properties); after changing one, ``offer()`` makes the offer anew.
    """

    def __init__(
        self,
        *,
        client: ModelClient,
        tools: ToolSet,
        tool_format: ToolFormat,
        plan_mode: bool,
        context: ContextManager,
        compactor: Compactor,
        book: SessionBook,
        report: TurnReporter,
        emit: EventListener,
        ask: Callable[[AgentError], Awaitable[ErrorChoice]],
    ) -> None:
        self.client = client
        self.tools = tools
        self.tool_format: ToolFormat = tool_format
        self.plan_mode = plan_mode
        self.specs: list[ToolSpec] = []
        self.accepted: set[str] = set()
        self._context = context
        self._compactor = compactor
        self._book = book
        self._report = report
        self._emit = emit
        self._ask = ask
        self._tools_revision = 0
        self.offer()

    # --- the offer --------------------------------------------------------------------------

    def offer(self) -> None:
        """Make the specs and accepted names anew and give them to the fixed prompt part."""
        self._tools_revision = self.tools.revision
        window = self._context.budget.window
        self.specs = [
            ToolSpec(s["name"], s["description"], s["parameters"])
            for s in self.tools.specs(self.plan_mode, window=window)
        ]
        self.accepted = self.tools.accepted_names()
        self._context.set_tools(
            self.specs,
            self.tool_format,
            native=self.tool_format == "native",
            plan_mode=self.plan_mode,
        )

    async def refresh(self) -> None:
        """Tools that start lazily (MCP servers) start before the turn that offers them; one
        that was withdrawn since the last turn is no longer offered."""
        await self.tools.prepare()
        if self.tools.revision != self._tools_revision:
            self.offer()

    def normalise(self, call: ToolCall) -> ToolCall:
        call = finite_call(call)
        resolved = self.tools.resolve_name(call.name)
        if resolved is None or resolved == call.name:
            return call
        return ToolCall(id=call.id, name=resolved, parameters=call.parameters)

    def read_only(self, call: ToolCall) -> bool:
        tool = self.tools.get(call.name)
        return tool is None or tool.read_only  # an unknown name only fails, changing nothing

    def schemas(self, names: set[str | None]) -> list[str]:
        """The offered schemas of ``names`` (written back when a call could not be read)."""
        wanted = {self.tools.resolve_name(name or "") for name in names}
        offered = [spec for spec in self.specs if spec.name in wanted]
        return [f"{spec.name}: {json.dumps(spec.parameters)}" for spec in offered]

    # --- the call ---------------------------------------------------------------------------

    async def assemble(self, turn: int, cancel: asyncio.Event) -> Assembled:
        history = self._book.session.history
        context = self._context
        assembled = context.assemble(history, self._book.pinned)
        if context.meter.corrected(assembled.tokens) > context.budget.compact_threshold:
            outcome = await self._compactor.compact(history, self._book.pinned, cancel, turn)
            if outcome is not None:
                self._emit(outcome.event)
                await self._book.save()
                assembled = context.assemble(history, self._book.pinned)
        context.meter.update(assembled.tokens)
        self._report.context(turn, assembled, context)
        return assembled

    async def call(
        self, turn: int, assembled: Assembled, cancel: asyncio.Event, stats: RequestStats
    ) -> TurnResult:
        """Stream one reply; raises ``Stop`` on an abort or an error the user did not retry."""
        while True:
            tools = self.specs if self.tool_format == "native" else None
            self._report.request(turn, self.client.model, self.tool_format, assembled, tools)
            result = await stream_turn(
                self.client,
                assembled.system,
                assembled.messages,
                tools,
                cancel,
                self._emit,
                MarkupFilter(frozenset(self.accepted)),
            )
            if result.reply is None:
                self._report.response(turn, result, None)
            if result.tools_fallback:
                self.tool_format = "json"
                self.offer()
            if result.cancelled:
                # The server never sent its count: the prompt it was given and what streamed
                # before the abort, estimated, so an interrupted answer does not say "0 tokens".
                stats.add_usage(
                    self._context.meter.corrected(assembled.tokens),
                    self._context.estimate(result.text) if result.text else 0,
                    estimated=True,
                )
                keep_partial(self._book.session.history, result.text)
                raise Stop("aborted", "interrupted by the user")
            if result.error is None:
                if result.reply is not None and result.reply.cut:
                    advice = cut_advice(result.reply.finish_reason, "llm.maxReplyTokens")
                    notice = AgentError("llm", result.reply.cut, True, advice)
                    self._emit(ErrorRaised(notice, ()))  # said, not asked: the turn goes on
                return result
            error = result.error
            if error.kind == "context_overflow" and self._context.adopt_window(error.window):
                # The server named a smaller window than the session assumed: use it and retry.
                note = f"{error.message}; this session now uses {self._context.budget.window:,}"
                self.offer()  # a small window gets the small tool set
                self._emit(ErrorRaised(AgentError("llm", note, True, error.suggestion), ()))
                assembled = await self.assemble(turn, cancel)
                continue
            choice = await self._ask(
                AgentError("llm", error.message, error.retryable, error.suggestion)
            )
            if choice == "retry":
                continue
            keep_partial(self._book.session.history, result.text)
            raise Stop("error", f"model error: {error.message} — {error.suggestion}")
