"""Plan mode in the core: ``/plan``, a ``plan:`` prefix, ``ipuaro run --plan``.

A plan request is not an agent run: the model gets the project summary, the request and the
auto-context, answers the one-JSON plan contract (``ipuaro.planning``), may ask for context at
most ``plan.maxContextRounds`` times, and the validated plan is stored with the session as a
:class:`~ipuaro.domain.plan.PlanRecord` (for ``ok`` now or ``ipuaro run --apply`` later).

Front ends see the usual request events (``AgentStart``, ``TurnStart`` per model call, the plan
as the answer's text, ``AgentEnd``) plus ``PlanContextRound`` per context round and
``PlanUpdated`` with the plan itself. The plan's ``memory_patch`` is handed on in
``PlanUpdated.memory_patch`` and :attr:`PlanOutcome.memory_patch` — the one place whoever keeps
engineering memory takes it from.

The flow receives what it uses (:class:`PlanPorts`: the services, the event emitter, the task
runner, the memory-patch question), never the workspace; plan apply (``core.plan_apply``)
takes the same ports.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ipuaro.core.errors import WorkspaceBusy
from ipuaro.core.events import (
    AgentEnd,
    AgentStart,
    ContextUpdate,
    EndReason,
    Event,
    MessageDelta,
    MessageEnd,
    PlanContextRound,
    PlanUpdated,
    TurnStart,
)
from ipuaro.domain import ChatMessage, MessageStats
from ipuaro.domain.plan import Plan, PlanRecord

if TYPE_CHECKING:
    from ipuaro.core.tasks import TaskRunner
    from ipuaro.core.wiring import AppContext
    from ipuaro.memory import PatchReport
    from ipuaro.planning.context import ContextSource
    from ipuaro.planning.cycle import ContextRound, CycleStats, PlanCycle

log = logging.getLogger(__name__)

PLAN_PREFIX = "plan:"


def plan_request(text: str, plan_mode: bool) -> str | None:
    """The request to plan for, or None when ``text`` is not a plan request: in plan mode
    every request is; otherwise only one written ``plan: …``."""
    stripped = text.strip()
    if stripped[: len(PLAN_PREFIX)].lower() == PLAN_PREFIX:
        rest = stripped[len(PLAN_PREFIX) :].strip()
        return rest or None
    return stripped if plan_mode and stripped else None


@dataclass(frozen=True)
class PlanPorts:
    """What plan requests and plan apply use of the workspace that runs them."""

    services: Callable[[], AppContext]
    """The open project's services (raises once the workspace is closed)."""
    emit: Callable[[Event], None]
    tasks: TaskRunner
    """Plan apply runs as one of its tasks (``busy`` while its confirmation waits)."""
    propose_memory_patch: Callable[[object, str], Awaitable[PatchReport]]


def stored_plan(ctx: AppContext) -> PlanRecord | None:
    """The session's stored plan (None: none yet, or one that no longer reads)."""
    from ipuaro.planning.record import RecordUnreadable, record_from_json

    stored = ctx.session.plan
    if stored is None:
        return None
    try:
        return record_from_json(stored)
    except RecordUnreadable as error:
        log.warning("stored plan ignored: %s", error)
        return None


def forget_plan(ctx: AppContext) -> None:
    """The stored plan was applied: ``ok`` does not apply it twice."""
    ctx.session.plan = None
    ctx.sessions.save(ctx.session)


@dataclass(frozen=True)
class PlanOutcome:
    """How a plan request ended: the plan (None when none could be made) and why not."""

    end: AgentEnd
    plan: Plan | None = None
    document: dict[str, Any] | None = None
    record: PlanRecord | None = None
    raw: str = ""
    """The model's last reply (kept when it could not be read as a plan)."""
    memory_patch: dict[str, Any] = field(default_factory=dict)


class PlanFlow:
    """One per workspace; runs one plan request at a time."""

    def __init__(self, ports: PlanPorts) -> None:
        self.ports = ports
        self._cancel: asyncio.Event | None = None

    @property
    def busy(self) -> bool:
        return self._cancel is not None

    def abort(self) -> None:
        if self._cancel is not None:
            self._cancel.set()

    def last_plan(self) -> PlanRecord | None:
        """The session's stored plan (None: none yet, or one that no longer reads)."""
        return stored_plan(self.ports.services())

    # --- the request ----------------------------------------------------------------------

    async def run(self, request: str, shown: str | None = None) -> PlanOutcome:
        """Plan for ``request`` (``shown``: the text the user typed, kept in the session)."""
        if self.busy or self.ports.services().agent.busy:
            raise WorkspaceBusy("the agent is working on a request; wait or interrupt it")
        self._cancel = asyncio.Event()
        started = time.perf_counter()
        try:
            outcome = await self._run(request, shown or request, self._cancel, started)
        finally:
            self._cancel = None
        if outcome.memory_patch:
            # What the plan asks to remember is checked, shown and written only when the user
            # confirms (headless: only with --remember), like a `remember` call.
            await self.ports.propose_memory_patch(outcome.memory_patch, "plan")
        return outcome

    async def _run(
        self, request: str, shown: str, cancel: asyncio.Event, started: float
    ) -> PlanOutcome:
        from ipuaro.planning.autocontext import gather
        from ipuaro.planning.context import ContextSource
        from ipuaro.planning.cycle import CycleSettings, PlanCycle, PlanFailed
        from ipuaro.planning.diet import DietLimits
        from ipuaro.planning.prompt import system_prompt

        ctx = self.ports.services()
        config = ctx.config.plan
        session = ctx.session
        self._emit(AgentStart(session.id, shown))
        self._keep_user_message(shown)
        settings = CycleSettings(
            DietLimits(config.max_blocks, config.max_file_chars, config.max_total_chars),
            config.max_context_rounds,
            config.strict_json,
            config.max_reply_tokens,
        )
        source = ContextSource(ctx.root, ctx.store, ctx.tool_ctx.paths)
        cycle = PlanCycle(
            ctx.client,
            source,
            settings,
            on_log=self._trace_log,
            on_round=self._round,
            on_call=lambda number: self._emit(TurnStart(number)),
            observer=ctx.tracer,
            # The front ends show the context meter filling while the plan streams.
            on_progress=lambda used: self._emit(ContextUpdate(used, ctx.window.tokens)),
        )
        try:
            await asyncio.to_thread(ctx.agent.context.prepare_request, request)
            project = ctx.agent.context.system_prompt(None).project
            auto = await asyncio.to_thread(gather, request, source, config.traceback_lines)
            system = system_prompt(project, config.max_context_rounds)
            stored = session.plan
            previous = stored.get("plan") if isinstance(stored, dict) else None
            result = await cycle.run(system, request, auto, cancel, previous)
        except PlanFailed as failure:
            reason: EndReason = "aborted" if failure.cancelled else "error"
            return self._failed(reason, failure.message, failure.raw, cycle, source, started)
        except Exception as error:  # a bug must not leave a front end waiting for the end
            log.exception("plan request failed")
            detail = f"internal error: {type(error).__name__}: {error}"
            return self._failed("error", detail, "", cycle, source, started)
        return self._planned(request, result.read.plan, result.read.document, source, cycle,
                             started, result.read.notes)  # fmt: skip

    def _planned(
        self,
        request: str,
        plan: Plan,
        document: dict[str, Any],
        source: ContextSource,
        cycle: PlanCycle,
        started: float,
        notes: tuple[str, ...] = (),
    ) -> PlanOutcome:
        """``notes``: what reading the reply decided (several plans, a fragment merged)."""
        from ipuaro.planning.record import record_to_json
        from ipuaro.planning.render import plan_markdown
        from ipuaro.planning.schema import SCHEMA_HASH, SCHEMA_VERSION

        ctx = self.ports.services()
        session = ctx.session
        record = PlanRecord(plan, request, session.id, dict(source.read_files))
        session.plan = record_to_json(record)
        text = "\n\n".join([plan_markdown(plan), *(f"Note: {note}" for note in notes)])
        stats = self._stats(cycle.stats, started)
        session.history.append(
            ChatMessage(role="assistant", content=text, timestamp=time.time(), stats=stats)
        )
        self._save()
        self._emit(MessageDelta(text))
        self._emit(MessageEnd(text, [], stats))
        self._trace_plan(cycle, source, None)
        self._emit(
            PlanUpdated(
                plan=plan,
                document=document,
                session_id=session.id,
                schema_version=SCHEMA_VERSION,
                schema_hash=SCHEMA_HASH,
                read_files=tuple(sorted(record.read_files)),
                memory_patch=dict(plan.memory_patch),
            )
        )
        end = AgentEnd(text, "done", stats)
        self._emit(end)
        return PlanOutcome(end, plan, document, record, memory_patch=dict(plan.memory_patch))

    def _failed(
        self,
        reason: EndReason,
        detail: str,
        raw: str,
        cycle: PlanCycle,
        source: ContextSource,
        started: float,
    ) -> PlanOutcome:
        message_stats = self._stats(cycle.stats, started)
        self._save()
        self._trace_plan(cycle, source, {"reason": reason, "detail": detail, "raw": raw})
        end = AgentEnd("", reason, message_stats, (), f"no plan: {detail}")
        self._emit(end)
        return PlanOutcome(end, raw=raw)

    # --- helpers --------------------------------------------------------------------------

    def _keep_user_message(self, text: str) -> None:
        ctx = self.ports.services()
        history = ctx.session.history
        last = history[-1] if history else None
        if last is None or last.role != "user" or last.content != text:
            history.append(ChatMessage(role="user", content=text, timestamp=time.time()))
            ctx.sessions.record_input(ctx.session, text)
        self._save()

    def _save(self) -> None:
        from ipuaro.store.protocol import StoreError

        ctx = self.ports.services()
        try:
            ctx.sessions.save(ctx.session)
        except StoreError as error:
            log.warning("session not saved: %s", error)

    @staticmethod
    def _stats(stats: CycleStats, started: float) -> MessageStats:
        return MessageStats(
            tokens=stats.tokens_in + stats.tokens_out,
            time_ms=int((time.perf_counter() - started) * 1000),
            tokens_in=stats.tokens_in,
            tokens_out=stats.tokens_out,
        )

    def _round(self, context_round: ContextRound) -> None:
        self._emit(
            PlanContextRound(
                context_round.number,
                context_round.requests,
                context_round.blocks,
                context_round.cuts,
            )
        )

    def _emit(self, event: Event) -> None:
        tracer = self.ports.services().tracer
        if tracer is not None and isinstance(event, AgentStart | AgentEnd):
            tracer(event)
        self.ports.emit(event)

    def _trace_log(self, name: str, data: dict[str, Any]) -> None:
        tracer = self.ports.services().tracer
        if tracer is not None:
            tracer.on_log_event(name, data)

    def _trace_plan(
        self, cycle: PlanCycle, source: ContextSource, failure: dict[str, Any] | None
    ) -> None:
        from ipuaro.planning.schema import SCHEMA_HASH, SCHEMA_VERSION

        tracer = self.ports.services().tracer
        if tracer is None:
            return
        facts: dict[str, Any] = {"schemaVersion": SCHEMA_VERSION, "schemaHash": SCHEMA_HASH}
        facts["calls"] = cycle.stats.calls
        facts["repairs"] = cycle.stats.repairs
        facts["rounds"] = cycle.stats.rounds
        facts["contextStats"] = cycle.stats.context_stats()
        facts["cacheStats"] = source.cache.stats()
        facts["cuts"] = list(cycle.stats.cuts)
        tracer.on_plan(facts, failure)
