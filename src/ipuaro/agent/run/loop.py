"""The agent loop: one user request → model turns and tool calls until an answer.

Per turn: inject steering messages → assemble the context (compacting first when it is past the
threshold) → stream the model → read its calls (native and written in the text, offered names
only) → guard against loops → run the calls → append the results → again. The loop ends when an
answer has no call and no steering message waits, or at a limit, an abort or an error the user
did not want retried. Every step is an event (``events``); every message is saved at once —
when and how is ``bookkeeping``'s (the session a request writes into). The model side of a turn
(the tool offer, assembling, streaming, a server's error) is ``model_call``'s; the loop guard
is ``guard``'s.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from ipuaro.agent.context.history import (
    assistant_message,
    last_answer,
    user_message,
)
from ipuaro.agent.events import (
    AgentEnd,
    AgentError,
    AgentEvent,
    AgentHandlers,
    AgentStart,
    ConfirmRequested,
    ContextUpdate,
    EndReason,
    ErrorChoice,
    ErrorRaised,
    EventListener,
    MessageEnd,
    TurnStart,
)
from ipuaro.agent.run.bookkeeping import SessionBook, Stop, with_store_retry
from ipuaro.agent.run.dispatch import Dispatcher, ToolHooks, ToolSet
from ipuaro.agent.run.feedback import Feedback
from ipuaro.agent.run.guard import LoopGuard
from ipuaro.agent.run.intent import shown_to_user, sort_calls
from ipuaro.agent.run.model_call import ModelCall
from ipuaro.agent.run.observer import TurnObserver
from ipuaro.agent.run.queues import InputQueues
from ipuaro.agent.run.reporting import TurnReporter
from ipuaro.agent.run.stats import RequestStats, turn_stats
from ipuaro.agent.run.verify import AfterEditChecks
from ipuaro.domain import Session, ToolCall
from ipuaro.domain.edits import ConfirmCallback, ConfirmChoice, ConfirmDecision, ConfirmRequest
from ipuaro.domain.errors import IpuaroError
from ipuaro.llm.formats import ToolFormat
from ipuaro.llm.protocol import ModelClient
from ipuaro.llm.toolcalls import ParsedReply, parse_reply
from ipuaro.tools.base import ToolContext

if TYPE_CHECKING:
    from ipuaro.agent.context.manager import ContextManager
    from ipuaro.agent.run.compaction import CompactionOutcome, Compactor
    from ipuaro.agent.sessions.keeper import SessionKeeper

log = logging.getLogger(__name__)

ERROR_CHOICES: tuple[ErrorChoice, ...] = ("retry", "skip", "abort")
KEEP_ON_DEMAND = 2
"""``/compact`` keeps this many recent messages verbatim (the last exchange)."""


class AgentBusy(IpuaroError, RuntimeError):
    """``send`` while a request runs: use ``steer`` or ``follow_up`` instead."""


class Agent:
    def __init__(
        self,
        *,
        client: ModelClient,
        tools: ToolSet,
        tool_ctx: ToolContext,
        context: ContextManager,
        compactor: Compactor,
        sessions: SessionKeeper,
        session: Session,
        handlers: AgentHandlers,
        tool_format: ToolFormat,
        max_turns: int,
        plan_mode: bool = False,
        observer: TurnObserver | None = None,
    ) -> None:
        self.tool_ctx: ToolContext = tool_ctx.replace(session_id=session.id)
        """The tools' context of the current session; a session change or ``/model``
        replaces it whole, and dispatch makes a copy per call (``for_call``)."""
        self.context = context
        self.compactor = compactor
        self.sessions = sessions
        self.handlers = handlers
        self.max_turns = max_turns
        self.tool_hooks: ToolHooks | None = None
        """Run around every tool call (hooks from the configuration; set by the wiring)."""
        self._report = TurnReporter(observer)
        self._listeners: list[EventListener] = []
        self._queues = InputQueues(self._emit)
        self._guard = LoopGuard()
        self._busy = False
        self._cancel: asyncio.Event | None = None
        self._stop_request: tuple[EndReason, str] | None = None
        if tool_ctx.confirm is not None:
            self.tool_ctx = self.tool_ctx.replace(confirm=self._announcing(tool_ctx.confirm))
        self._book = SessionBook(sessions, session, lambda: self.tool_ctx.reads, context, self._ask)
        self._model = ModelCall(
            client=client,
            tools=tools,
            tool_format=tool_format,
            plan_mode=plan_mode,
            context=context,
            compactor=compactor,
            book=self._book,
            report=self._report,
            emit=self._emit,
            ask=self._ask,
        )
        self._feedback = Feedback(lambda: self.session.history, self._book.save, self._ask)
        self._after_edits = AfterEditChecks("off", 0)

    # --- public API ------------------------------------------------------------------------

    def subscribe(self, listener: EventListener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    @property
    def client(self) -> ModelClient:
        return self._model.client

    @client.setter
    def client(self, client: ModelClient) -> None:
        """``/model``: the next call goes to ``client`` (the wiring swaps the binding)."""
        self._model.client = client

    @property
    def tools(self) -> ToolSet:
        return self._model.tools

    @property
    def tool_format(self) -> ToolFormat:
        return self._model.tool_format

    @tool_format.setter
    def tool_format(self, tool_format: ToolFormat) -> None:
        """Takes effect with the next offer (``use_tools``), as the wiring does on ``/model``."""
        self._model.tool_format = tool_format

    @property
    def session(self) -> Session:
        return self._book.session

    @property
    def busy(self) -> bool:
        return self._busy

    @property
    def context_usage(self) -> tuple[int, int]:
        """(tokens in use, window) — ``ctx %`` for the status bar; before the server counted
        a prompt, the estimate of the next one (never ``0 %`` while the fixed part is sent)."""
        used = self.context.meter.used
        if used == 0:
            used = self.context.idle_tokens(self.session.history)
        return used, self.context.budget.window

    @property
    def queued(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        return self._queues.snapshot()

    async def send(self, text: str) -> AgentEnd:
        """Run one request to its end, then any queued follow-ups (each its own request with
        its own ``AgentStart``/``AgentEnd``); returns the last ``AgentEnd``."""
        if self._busy:
            raise AgentBusy("the agent is working on a request; use steer() or follow_up()")
        if not text.strip():
            raise ValueError("the message is empty")
        self._busy = True
        try:
            end = await self._run_request(text)
            while end.reason == "done" and (follow := self._queues.next_follow_up()) is not None:
                end = await self._run_request(follow)
            return end
        finally:
            self._busy = False
            self._cancel = None

    def steer(self, text: str) -> None:
        """Inject ``text`` before the next model call of the running request."""
        self._queues.steer(text)

    def follow_up(self, text: str) -> None:
        """Send ``text`` as a new request once the running one has answered."""
        self._queues.follow_up(text)

    def abort(self) -> None:
        """Stop the stream and any running command; the request ends with ``aborted``."""
        if self._cancel is not None:
            self._cancel.set()
        self._queues.drop_steers()

    def request_stop(self, reason: EndReason, detail: str) -> None:
        """End the request before the next model call (headless: a refusal by policy)."""
        if self._stop_request is None:
            self._stop_request = (reason, detail)

    def new_session(self) -> Session:
        self._ensure_idle()
        self._switch(self.sessions.create(self.client.model))
        return self.session

    def load_session(self, session_id: str) -> Session:
        self._ensure_idle()
        self._switch(self.sessions.load(session_id))
        return self.session

    def clear_history(self) -> None:
        """Start the model's view afresh; the history stays in the session for export."""
        self._ensure_idle()
        self._book.clear()

    async def compact(self, focus: str | None = None) -> CompactionOutcome | None:
        """``/compact``: compact the conversation now, keeping the last exchange verbatim."""
        self._ensure_idle()
        history = self.session.history
        outcome = await self.compactor.compact(
            history, None, asyncio.Event(), focus=focus, keep=KEEP_ON_DEMAND
        )
        if outcome is not None:
            self._emit(outcome.event)
            self._context_update(self.context.assemble(history, None).tokens)
            await self._book.save()
        return outcome

    @property
    def plan_mode(self) -> bool:
        return self._model.plan_mode

    def use_tools(self, tools: ToolSet) -> None:
        """Offer ``tools`` from the next request on (a custom command's ``allowed-tools``)."""
        self._model.tools = tools
        self._model.offer()

    def set_plan_mode(self, on: bool) -> None:
        self._ensure_idle()
        self._model.plan_mode = on
        self._model.offer()

    # --- request --------------------------------------------------------------------------

    async def _run_request(self, text: str) -> AgentEnd:
        cancel = asyncio.Event()
        self._cancel = cancel
        self._stop_request = None
        self._guard.reset()
        stats = RequestStats()
        self._emit(AgentStart(self.session.id, text))
        answer = ""
        reason: EndReason = "done"
        detail: str | None = None
        try:
            await self._book.open_request(text)
            await self._prepare(text, stats)
            verify = self.tool_ctx.config.verify
            self._after_edits = AfterEditChecks(verify.after_edits, verify.max_fix_rounds)
            answer = await self._turns(stats, cancel)
            detail = self._after_edits.gave_up()
        except Stop as stop:
            reason, detail = stop.reason, stop.detail
            answer = last_answer(self.session.history)
        except asyncio.CancelledError:
            self._finish(stats, "aborted", "the task was cancelled", "")
            raise
        except Exception as error:  # a bug must not leave the UI waiting for agent_end
            log.exception("agent request failed")
            reason, detail = "error", f"internal error: {type(error).__name__}: {error}"
        return self._finish(stats, reason, detail, answer)

    def _finish(
        self, stats: RequestStats, reason: EndReason, detail: str | None, answer: str
    ) -> AgentEnd:
        detail = self._book.close_request(stats, detail)
        end = AgentEnd(answer, reason, stats.message_stats(), tuple(stats.changes), detail)
        self._emit(end)
        return end

    async def _prepare(self, text: str, stats: RequestStats) -> None:
        recent = [*self.session.context.loaded_files, *stats.changes]
        await with_store_retry(
            lambda: self.context.prepare_request(text, recent), "reading the index", self._ask
        )

    async def _turns(self, stats: RequestStats, cancel: asyncio.Event) -> str:
        format_errors = 0
        held_turns = 0
        turn = 0
        while True:
            if cancel.is_set():
                raise Stop("aborted", "interrupted by the user")
            if self._stop_request is not None:
                raise Stop(*self._stop_request)
            turn += 1
            if turn > self.max_turns:
                # Front ends say "stopped" with the reason: the detail says only why.
                raise Stop(
                    "limit",
                    f"no final answer after {self.max_turns} model turns "
                    "(llm.maxTurns; raise it or narrow the request)",
                )
            await self._inject_steers()
            self._emit(TurnStart(turn))
            await self._model.refresh()
            assembled = await self._model.assemble(turn, cancel)
            result = await self._model.call(turn, assembled, cancel, stats)
            assert result.reply is not None
            reply = result.reply
            usage = reply.usage
            stats.add_usage(usage.prompt_tokens, usage.completion_tokens, usage.estimated)
            if not usage.estimated:
                self.context.meter.report(
                    assembled.tokens, usage.prompt_tokens, usage.completion_tokens
                )
            parsed = parse_reply(reply, self._model.accepted)
            self._report.response(turn, result, parsed)
            calls_read = [self._model.normalise(c) for c in parsed.calls]
            intent = sort_calls(calls_read, parsed, self._model.read_only)
            calls = intent.run
            message_stats = turn_stats(
                result.duration_s,
                usage.prompt_tokens,
                usage.completion_tokens,
                len(calls),
                usage.estimated,
            )
            unreadable = not calls and not intent.held and (parsed.errors or not parsed.text)
            if unreadable:
                format_errors += 1
                self._emit(MessageEnd(parsed.text, [], message_stats))
                if await self._reprompt(reply.text, parsed, format_errors):
                    continue
                return parsed.text  # the user chose to take the reply as the answer
            format_errors = 0
            # A held call stays in the history as written: the note that follows refers to it.
            native = self.tool_format == "native" and not intent.held
            content = parsed.text if native else reply.text
            self.session.history.append(assistant_message(content, calls))
            self.session.history[-1].stats = message_stats
            await self._book.save()
            answer = shown_to_user(parsed.text, intent) if not calls else parsed.text
            self._emit(MessageEnd(answer, calls, message_stats))
            if calls:
                await self._guard.check(calls, self.handlers.on_loop, self.session.history)
                await self._dispatch(calls, stats, cancel)
            held_turns = held_turns + 1 if intent.held else 0
            if (intent.held or (calls and intent.notes)) and not await self._tell(
                intent.held, intent.notes, held_turns
            ):
                return answer  # the user took the reply as the answer
            if not calls and not intent.held:
                if intent.notes:
                    await self._tell([], intent.notes, 0)
                self._context_update()
                if self._queues.has_steers:
                    continue
                if await self._checks_failed(stats):
                    continue  # the failing lint/test output went back to the model
                return answer
            self._context_update(
                self.context.assemble(self.session.history, self._book.pinned).tokens
            )

    async def _checks_failed(self, stats: RequestStats) -> bool:
        """``verify.afterEdits``: run the remembered checks after the turn's last edit; True
        when they failed and the failure was put in the history for another round."""
        message = await self._after_edits.feedback(self.tool_ctx, stats.edits_applied)
        if message is None:
            return False
        self.session.history.append(user_message(message, "error"))
        await self._book.save()
        return True

    async def _reprompt(self, raw: str, parsed: ParsedReply, count: int) -> bool:
        schemas = self._model.schemas({e.tool for e in parsed.errors})
        return await self._feedback.reprompt(raw, parsed, count, schemas, self.tool_format)

    async def _tell(self, held: list[ToolCall], notes: list[str], held_turns: int) -> bool:
        native = self.tool_format == "native"
        return await self._feedback.tell(held, notes, held_turns, native)

    async def _dispatch(
        self, calls: list[ToolCall], stats: RequestStats, cancel: asyncio.Event
    ) -> None:
        dispatcher = Dispatcher(
            self.tools,
            self.tool_ctx,
            self.handlers,
            self._emit,
            self.context.cap_result,
            plan_mode=self._model.plan_mode,
            on_record=self._book.keep_result,
            hooks=self.tool_hooks,
        )
        outcome = await dispatcher.run(calls, cancel)
        for record in outcome.records:
            stats.tool_calls += 1
            if record.edit and record.result.success:
                stats.edits_applied += 1
            if record.edit and record.refused:
                stats.edits_rejected += 1
            if record.refused:
                stats.refusals.append(record.result.error or record.call.name)
            for path in record.changed:
                stats.add_change(path)
        await self._book.save()
        if outcome.aborted:
            raise Stop("aborted" if cancel.is_set() else "error", outcome.aborted)

    def _context_update(self, estimate: int | None = None) -> None:
        """End of a turn: ``ctx %`` from the server's count, or the calibrated estimate once
        tool results were added after it."""
        if estimate is not None:
            self.context.meter.update(estimate)
        self._emit(ContextUpdate(self.context.meter.used, self.context.budget.window))

    # --- helpers --------------------------------------------------------------------------

    async def _inject_steers(self) -> None:
        steers = self._queues.take_steers()
        for text in steers:
            self.session.history.append(user_message(text, kind="steer"))
        if steers:
            await self._book.save()

    async def _ask(self, error: AgentError) -> ErrorChoice:
        self._emit(ErrorRaised(error, ERROR_CHOICES))
        return await self.handlers.on_error(error, ERROR_CHOICES)

    def _announcing(self, confirm: ConfirmCallback) -> ConfirmCallback:
        async def announce(request: ConfirmRequest) -> ConfirmDecision | ConfirmChoice:
            self._emit(ConfirmRequested(request.kind, request.title))
            return await confirm(request)

        return announce

    def _switch(self, session: Session) -> None:
        self.tool_ctx = self.tool_ctx.for_session(session.id)  # no grants, no reads carried
        self._book.switch(session)
        self._guard.reset()

    def _ensure_idle(self) -> None:
        if self._busy:
            raise AgentBusy("the agent is working on a request; abort it first")

    def _emit(self, event: AgentEvent) -> None:
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:  # a broken listener must not break the loop
                log.exception("event listener failed on %s", event.type)
