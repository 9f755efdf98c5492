"""One project opened for a user: the application core every front end views.

A :class:`Workspace` owns the project's wiring (store, index, model client, tools, agent,
sessions; see ``wiring``) and offers every user-level operation as a typed method. What it does
reaches front ends as typed events (``subscribe``; ``ipuaro.core.events``); what it must ask goes
through the front end's decider (``ipuaro.core.decisions``). The TUI, the headless runner and
the ACP server import this package and nothing below it.

    workspace = await Workspace.open(root, config, decider, WorkspaceOptions(new_session=True))
    unsubscribe = workspace.subscribe(draw)
    await workspace.first_index()          # None when the user declined a very large project
    end = await workspace.send("explain the login flow")
    await workspace.aclose()
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ipuaro.core import opening, session_ops
from ipuaro.core.asking import DecisionHandlers
from ipuaro.core.bus import EventBus
from ipuaro.core.commands import CommandTable, Reply
from ipuaro.core.decisions import Answer, Decider, Question
from ipuaro.core.errors import WorkspaceBusy
from ipuaro.core.events import AgentEnd, EndReason, HistoryCleared, Listener, ModeChanged
from ipuaro.core.extending import ExtensionHost
from ipuaro.core.indexing import IndexKeeper, IndexOperations
from ipuaro.core.memory_ops import MemoryOperations
from ipuaro.core.options import WorkspaceOptions
from ipuaro.core.plan_flow import PlanFlow, PlanOutcome, PlanPorts
from ipuaro.core.reports import (
    Evaluation,
    ModelSwitch,
    StatusReport,
    WindowInfo,
)
from ipuaro.core.requests import Requests
from ipuaro.core.session_ops import SessionOperations
from ipuaro.core.tasks import TaskRunner

if TYPE_CHECKING:
    from ipuaro.config.schema import Config
    from ipuaro.core.calls import CallFacts
    from ipuaro.core.plan_apply import ApplyReport
    from ipuaro.core.reports import McpServerInfo
    from ipuaro.core.wiring import AppContext
    from ipuaro.domain import ChatMessage, ToolCall
    from ipuaro.domain.plan import PlanRecord


__all__ = ["Workspace", "WorkspaceOptions"]


class Workspace(IndexOperations, MemoryOperations, SessionOperations):
    """A project opened with a model: every operation a user can ask for."""

    def __init__(
        self, root: Path, config: Config, decider: Decider, options: WorkspaceOptions
    ) -> None:
        self.root = root.resolve()
        self.config = config
        self.options = options
        self._asking = DecisionHandlers(decider)
        self._bus = EventBus()
        self._emit = self._bus.emit  # what helpers get (the plan modules still call it here)
        self._ctx: AppContext | None = None
        self._unsubscribe_agent: Callable[[], None] | None = None
        self._plan_mode = False
        self._index = IndexKeeper(
            lambda: self.ctx, lambda: self.config, self._emit, self.ask, self.project_name
        )
        self._extensions: ExtensionHost | None = None
        self._tasks = TaskRunner(self._save_if_open, self._emit)
        self.plan_ports = PlanPorts(
            lambda: self.ctx, self._emit, self._tasks, self.propose_memory_patch
        )
        """What plan requests and plan apply use (``core.plan_flow``, ``core.plan_apply``)."""
        self._plans = PlanFlow(self.plan_ports)
        self._requests = Requests(
            lambda: self.ctx, self._tasks, self._plans, lambda: self._extensions, self._planning
        )
        self.commands = CommandTable()
        """This workspace's slash commands: the built-ins and the project's own."""

    # --- opening and closing --------------------------------------------------------------

    @classmethod
    async def open(
        cls,
        root: Path,
        config: Config,
        decider: Decider,
        options: WorkspaceOptions | None = None,
    ) -> Workspace:
        """Open the store, the session, the model client and the agent. Raises
        :class:`OpenError` naming what failed (the store, the session, the model server)."""
        workspace = cls(root, config, decider, options or WorkspaceOptions())
        await workspace._start()
        return workspace

    async def _start(self) -> None:
        """The extensions, the services, an interrupted apply finished, the extensions
        started (commands into this workspace's table, ``session_start`` hooks)."""
        from ipuaro.core.plan_apply import finish_interrupted

        extensions = await ExtensionHost.open(self.root, self.config, self.ask)
        self._extensions = extensions
        ctx = await opening.build(self.root, self.config, self.options, self._asking, extensions)
        self._ctx = ctx
        self._unsubscribe_agent = opening.connect(
            ctx, self._emit, self.propose_memory_patch, self._tasks
        )
        ctx.warnings.extend(self.config.notices)  # keys a project may not set
        ctx.warnings.extend(await asyncio.to_thread(finish_interrupted, self))
        await extensions.start(
            self.commands, lambda: self.session_id, self.model, ctx.warnings, self._emit
        )

    @property
    def ctx(self) -> AppContext:
        """The wiring (for the core's own modules and tests; front ends never use it)."""
        if self._ctx is None:
            raise RuntimeError("the workspace is closed")
        return self._ctx

    def save(self) -> None:
        """Write the current session now (quitting)."""
        self.ctx.sessions.save(self.ctx.session)

    def _save_if_open(self) -> None:
        if self._ctx is not None:
            self.save()

    async def aclose(self) -> None:
        """Stop the watcher, close the model client and the store (the store stays open while
        a background index thread still writes through it: the process is ending)."""
        ctx, self._ctx = self._ctx, None
        await self._index.stop_watching()
        await self._tasks.cancel_background()
        if ctx is None:
            return
        if self._unsubscribe_agent is not None:
            self._unsubscribe_agent()
            self._unsubscribe_agent = None
        await opening.close(ctx, self._index.running)

    @property
    def closed(self) -> bool:
        return self._ctx is None

    # --- events ---------------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Every event from now on (switching the model keeps the subscription)."""
        return self._bus.subscribe(listener)

    async def ask(self, question: Question) -> Answer:
        """Ask the user through the front end's decider (for the core's helpers)."""
        return await self._asking.ask(question)

    # --- facts ----------------------------------------------------------------------------

    @property
    def project_name(self) -> str:
        from ipuaro.store.naming import project_name

        return project_name(self.root)

    @property
    def session_id(self) -> str:
        return self.ctx.session.id

    @property
    def session_title(self) -> str | None:
        return self.ctx.session.title

    def history(self) -> list[ChatMessage]:
        """The current session's messages (to draw a resumed conversation)."""
        return list(self.ctx.session.history)

    def describe_call(self, call: ToolCall) -> CallFacts:
        """A call's kind (read, search, edit, delete, execute) and the project paths it names."""
        from ipuaro.core.calls import describe_call

        return describe_call(self.ctx.registry, call)

    def tool_names(self) -> set[str]:
        """Every name the model may call a tool by (to tell tool markup from prose)."""
        return self.ctx.registry.accepted_names()

    @property
    def model(self) -> str:
        return self.ctx.client.model

    @property
    def window(self) -> WindowInfo:
        return WindowInfo(self.ctx.window.tokens, self.ctx.window.source)

    @property
    def warnings(self) -> list[str]:
        """Said once at start: Redis without AOF, a guessed window, unreadable instructions."""
        return list(self.ctx.warnings)

    @property
    def tool_format(self) -> str:
        return self.ctx.agent.tool_format

    @property
    def tasks(self) -> TaskRunner:
        """The one task runner (what ``busy`` means; ``core.conveniences`` runs on it)."""
        return self._tasks

    @property
    def busy(self) -> bool:
        """A conversation task runs: a request, a plan request, a plan's apply (while its
        confirmation waits too), ``/reindex``, ``/compact``… (``core.tasks``)."""
        return self._ctx is not None and (
            self._tasks.busy or self._ctx.agent.busy or self._plans.busy
        )

    @property
    def indexing(self) -> bool:
        """A background index refresh runs (the next task waits for it before it starts;
        it does not make the workspace ``busy``: see ``core.tasks``)."""
        return self._tasks.indexing

    @property
    def context_usage(self) -> tuple[int, int]:
        """(tokens in use, window)."""
        return self.ctx.agent.context_usage

    @property
    def queued(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(steers, follow-ups) waiting."""
        return self.ctx.agent.queued

    def known_paths(self) -> list[str]:
        """Indexed project paths (for completion)."""
        return sorted(self.ctx.store.file_hashes()) if self._ctx is not None else []

    async def status(self) -> StatusReport:
        from ipuaro.core.status import status_rows

        rows = await asyncio.to_thread(
            status_rows, self.ctx, self.config, self._tasks, self._plan_mode
        )
        return StatusReport(rows)

    # --- the conversation -----------------------------------------------------------------

    async def send(self, text: str) -> AgentEnd:
        """Run one request (then any queued follow-ups) to its end; events stream meanwhile.
        Raises :class:`WorkspaceBusy` while another request runs."""
        from ipuaro.core.plan_apply import route_apply

        applied = await route_apply(self.plan_ports, text)  # "ok" applies the stored plan
        if applied is not None:
            return applied
        return await self._requests.send(text)

    def custom_command(self, name: str, args: tuple[str, ...]) -> Reply:
        """``/name args`` of a custom command: its prompt (a :class:`Reply` with ``prompt``
        to send), or why it cannot run."""
        if self._extensions is None:
            return Reply(f"/{name} is not available", "error")
        return self._extensions.run_command(name, args, self.ctx.registry)

    def steer(self, text: str) -> None:
        """Say ``text`` to the running request before its next model call."""
        self.remember_input(text)
        self.ctx.agent.steer(text)

    def follow_up(self, text: str) -> None:
        """Send ``text`` as a new request once the running one has answered."""
        self.ctx.agent.follow_up(text)

    def abort(self) -> None:
        """Interrupt the running request (it ends with ``aborted``) or ``!command``."""
        self._requests.abort()

    def request_stop(self, reason: EndReason, detail: str) -> None:
        """End the running request before its next model call with ``reason``."""
        self.ctx.agent.request_stop(reason, detail)

    def clear_history(self) -> None:
        """The model's view starts afresh; the session, its undo stack and history stay."""
        self._idle("/clear")
        self.ctx.agent.clear_history()
        self._emit(HistoryCleared(self.session_id))

    # --- input history (the one writer) ---------------------------------------------------

    def input_history(self) -> list[str]:
        """What the user typed in this session, oldest first (empty when not kept)."""
        if self._ctx is None or not self.config.session.save_input_history:
            return []
        return self.ctx.store.get_input_history(self.session_id)

    def remember_input(self, text: str) -> None:
        """Keep ``text`` in the input history (requests are kept by the agent as it runs them;
        commands and steers through here)."""
        self.ctx.sessions.record_input(self.ctx.session, text)

    # --- modes ----------------------------------------------------------------------------

    @property
    def auto_apply(self) -> bool:
        return self.ctx.grants.auto_apply

    def set_auto_apply(self, on: bool) -> None:
        """Edits applied without asking (undo still works); kept for later sessions, and
        off also drops an edit answered "always" (``security.grants``)."""
        self.ctx.grants.set_auto_apply(on)
        self._emit(ModeChanged(on, self._plan_mode))

    @property
    def plan_mode(self) -> bool:
        return self._plan_mode

    def _planning(self) -> bool:
        return self._plan_mode

    def set_plan_mode(self, on: bool) -> None:
        """Plan mode: the agent may read but not edit or run commands."""
        self._idle("/plan")
        self.ctx.agent.set_plan_mode(on)
        self._plan_mode = on
        self._emit(ModeChanged(self.auto_apply, on))

    # --- plan mode ------------------------------------------------------------------------

    async def plan(self, request: str) -> PlanOutcome:
        """Plan for ``request`` whatever the mode (``send`` does this in plan mode and for a
        ``plan:`` prefix): the one-JSON plan, stored with the session. Raises
        :class:`WorkspaceBusy` while another request runs."""
        return await self._tasks.run("plan", "a plan request", lambda: self._plans.run(request))

    def last_plan(self) -> PlanRecord | None:
        """The session's stored plan (what ``ok`` or ``ipuaro run --apply`` applies)."""
        return self._plans.last_plan()

    # --- plan → apply ---------------------------------------------------------------------

    def stored_plan(self) -> PlanRecord | None:
        """The plan ``ok`` / ``/apply`` / ``ipuaro run --apply`` applies (None: there is none):
        the session's stored plan."""
        return self.last_plan()

    def store_plan(self, record: PlanRecord | None) -> None:
        """Keep ``record`` with the session as the plan to apply (None forgets it)."""
        from ipuaro.planning.record import record_to_json

        session = self.ctx.session
        session.plan = None if record is None else record_to_json(record)
        self.ctx.sessions.save(session)

    def forget_plan(self) -> None:
        """The stored plan was applied: ``ok`` does not apply it twice."""
        self.store_plan(None)

    async def apply_plan(
        self,
        record: PlanRecord | None = None,
        note: str = "",
        default_commands: tuple[str, ...] = (),
    ) -> ApplyReport:
        """Check the plan (the stored one by default), show its change as ONE diff confirmed
        once, write it as one transaction with one undo step, refresh the index, then offer
        its ``commands_to_run`` (``default_commands`` when it names none). Never raises for a
        bad plan: the report's status and codes say what happened (``core.plan_apply``)."""
        from ipuaro.core.plan_apply import apply_plan

        return await self._tasks.run(
            "apply", "/apply", lambda: apply_plan(self.plan_ports, record, note, default_commands)
        )

    async def apply_command(self, args: tuple[str, ...]) -> Reply:
        """``/apply``'s operation (``core.plan_apply``)."""
        from ipuaro.core.plan_apply import apply_command

        return await apply_command(self, args)

    # --- sessions -------------------------------------------------------------------------

    def new_session(self) -> str:
        """A new session is current (refused while a task runs: ``core.tasks``)."""
        self._idle("/sessions new")
        return session_ops.new_session(self.ctx.agent, self._emit)

    def load_session(self, session_id: str) -> None:
        """Make ``session_id`` current. Raises :class:`SessionMissing`."""
        self._idle("/sessions load")
        session_ops.load_session(self.ctx.agent, self._emit, session_id)

    # --- the model ------------------------------------------------------------------------

    async def list_models(self) -> list[str]:
        """The model server's models (``WorkspaceError`` when it cannot say)."""
        return await opening.list_models(self.ctx)

    async def switch_model(self, name: str) -> ModelSwitch:
        """Continue the same session with another model of the server (the model binding
        alone changes). A model the server does not have is refused; a failing switch keeps
        the old model. While a task runs, the switch waits for it to end."""
        switch, self.config = await opening.switch_model(
            self.ctx, self.config, name, self._tasks, self._emit
        )
        return switch

    # --- extensions -----------------------------------------------------------------------

    async def mcp_servers(self) -> list[McpServerInfo]:
        """The MCP servers: state, why not running, tools (starts them if no request has yet:
        the user asked to see them)."""
        from ipuaro.core.mcp_status import mcp_servers

        return await mcp_servers(self.ctx.mcp)

    # --- /eval ----------------------------------------------------------------------------

    async def evaluate(self) -> Evaluation | None:
        """Check every path, line range and code name the last answer cites against the
        index; the result holds the evidence and the critique request to send (None: there
        is no answer yet)."""
        from ipuaro.core.evaluation import evaluate_last_answer

        return await evaluate_last_answer(self)

    # --- helpers --------------------------------------------------------------------------

    def _idle(self, what: str) -> None:
        self._tasks.refuse_if_busy(what)
        if self.busy:
            raise WorkspaceBusy(f"{what} waits until the agent has answered (Ctrl+C interrupts it)")
