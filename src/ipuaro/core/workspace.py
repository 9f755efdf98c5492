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

from ipuaro.core import indexing, opening, session_ops
from ipuaro.core.asking import DecisionHandlers
from ipuaro.core.commands import CommandTable, Reply
from ipuaro.core.decisions import Decider
from ipuaro.core.errors import WorkspaceBusy
from ipuaro.core.events import (
    AgentEnd,
    EndReason,
    Event,
    HistoryCleared,
    Listener,
    ModeChanged,
)
from ipuaro.core.extending import ExtensionHost
from ipuaro.core.mentions import attach_mentions
from ipuaro.core.options import WorkspaceOptions
from ipuaro.core.plan_flow import PlanFlow, PlanOutcome, plan_request
from ipuaro.core.reports import (
    DeleteOutcome,
    Evaluation,
    ImportReport,
    IndexReport,
    ModelSwitch,
    SessionInfo,
    StatusReport,
    UndoReport,
    WindowInfo,
)
from ipuaro.core.tasks import TaskKind, TaskRunner

if TYPE_CHECKING:
    import threading

    from ipuaro.config.schema import Config
    from ipuaro.core.calls import CallFacts
    from ipuaro.core.mcp_status import McpServerInfo
    from ipuaro.core.plan_apply import ApplyReport
    from ipuaro.core.wiring import AppContext
    from ipuaro.domain import ChatMessage, ToolCall
    from ipuaro.domain.plan import PlanRecord
    from ipuaro.memory import EngineeringMemory, PatchReport


__all__ = ["Workspace", "WorkspaceOptions"]


class Workspace:
    """A project opened with a model: every operation a user can ask for."""

    def __init__(
        self, root: Path, config: Config, decider: Decider, options: WorkspaceOptions
    ) -> None:
        self.root = root.resolve()
        self.config = config
        self.options = options
        self._asking = DecisionHandlers(decider)
        self._listeners: list[Listener] = []
        self._ctx: AppContext | None = None
        self._unsubscribe_agent: Callable[[], None] | None = None
        self._plan_mode = False
        self._index = indexing.IndexKeeper(self)
        self._extensions: ExtensionHost | None = None
        self._plans = PlanFlow(self)
        self._tasks = TaskRunner(self._save_if_open)
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
        await opening.start(workspace)
        return workspace

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
        await opening.close(self)

    @property
    def closed(self) -> bool:
        return self._ctx is None

    # --- events ---------------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Every event from now on (switching the model keeps the subscription)."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _emit(self, event: Event) -> None:
        for listener in list(self._listeners):
            listener(event)

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
        """A task runs: a request, a plan request, a plan's apply (while its confirmation
        waits too) or an index run the user asked for (``core.tasks``)."""
        return self._ctx is not None and (
            self._tasks.busy or self._ctx.agent.busy or self._plans.busy
        )

    @property
    def indexing(self) -> bool:
        """A background index refresh runs (the next task waits for it before it starts)."""
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

        return StatusReport(await asyncio.to_thread(status_rows, self))

    # --- the conversation -----------------------------------------------------------------

    async def send(self, text: str) -> AgentEnd:
        """Run one request (then any queued follow-ups) to its end; events stream meanwhile.
        Raises :class:`WorkspaceBusy` while another request runs."""
        from ipuaro.agent.run.loop import AgentBusy
        from ipuaro.core.plan_apply import route_apply

        applied = await route_apply(self, text)  # "ok" applies the stored plan, in plan mode too
        if applied is not None:
            return applied
        agent = self.ctx.agent

        async def request() -> AgentEnd:
            if self._extensions is None:
                return await self._plan_or_send(text)
            return await self._extensions.send(agent, text, self._plan_or_send)

        try:
            planning = plan_request(text, self._plan_mode or agent.plan_mode) is not None
            kind: TaskKind = "plan" if planning else "request"
            return await self._tasks.run(kind, "a new request", request)
        except AgentBusy as error:
            raise WorkspaceBusy(str(error)) from None

    async def _plan_or_send(self, text: str) -> AgentEnd:
        """A plan request (plan mode — the workspace's, or a ``mode: plan`` custom command's
        — or a ``plan:`` prefix) goes to the plan flow; anything else to the agent."""
        agent = self.ctx.agent
        request = plan_request(text, self._plan_mode or agent.plan_mode)
        if request is not None:
            return (await self._plans.run(request, text.strip())).end
        if self._plans.busy:
            raise WorkspaceBusy("a plan is being made; wait for it or interrupt it")
        # Another request: the stored plan expires. A later bare "ok" answers this exchange
        # (it goes to the model) instead of applying a plan shown turns ago.
        self.ctx.session.plan = None
        attach_mentions(self.ctx, text, self.window.tokens)  # @path: the file goes with it
        return await agent.send(text)

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
        self._plans.abort()
        self.ctx.agent.abort()
        if self._tasks.running is not None:
            self.ctx.cancel_user_call()  # a ``!command`` runs on a cancel event of its own

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
            "apply", "/apply", lambda: apply_plan(self, record, note, default_commands)
        )

    # --- sessions -------------------------------------------------------------------------

    def list_sessions(self) -> list[SessionInfo]:
        """The project's sessions, oldest first; the current one is marked."""
        return session_ops.archive(self).sessions(current=self.session_id)

    def new_session(self) -> str:
        return session_ops.new_session(self)

    def load_session(self, session_id: str) -> None:
        """Make ``session_id`` current. Raises :class:`SessionMissing`."""
        session_ops.load_session(self, session_id)

    def delete_session(self, session_id: str) -> DeleteOutcome:
        """Delete another session (and its undo history); never the current one."""
        return session_ops.archive(self).delete(session_id, current=self.session_id)

    def export_session(self, session_id: str | None = None) -> list[str]:
        """A session (the current one by default) as JSONL lines."""
        if session_id is None or session_id == self.session_id:
            self.save()
        return session_ops.archive(self).export(session_id or self.session_id)

    def import_session(self, text: str, *, new_id: bool = False) -> ImportReport:
        """Store a JSONL export in this project (``SessionsUnavailable`` on a bad file)."""
        return session_ops.archive(self).import_text(text, new_id=new_id)

    # --- undo / redo ----------------------------------------------------------------------

    async def undo(self) -> UndoReport:
        return await session_ops.undo_redo(self, "undo")

    async def redo(self) -> UndoReport:
        return await session_ops.undo_redo(self, "redo")

    # --- the index ------------------------------------------------------------------------

    def needs_first_index(self) -> bool:
        """The project was never indexed (the first index is worth a progress screen)."""
        return self.ctx.store.get_config("last_indexed") is None

    async def first_index(self) -> IndexReport | None:
        """Index a never-indexed project, asking first (:class:`LargeProject`) when it has
        more files than ``limits.maxFilesWarning``; None when the user declined. Emits
        ``IndexProgress``; raises :class:`IndexFailed`."""
        return await self._index.first()

    async def reindex(self) -> IndexReport:
        """Bring the index up to date now (``IndexFailed`` on failure); a task: ``busy``
        while it runs."""
        return await self._tasks.run("index", "/reindex", lambda: self._index.run(background=False))

    def refresh_index(self) -> asyncio.Task[IndexReport | None]:
        """Re-index changed files in the background; progress and the result arrive as
        ``IndexProgress`` / ``IndexFinished`` events (a failure too: the old index answers).
        The next task waits for it before it starts (its tools read the current index)."""
        return self._tasks.track_refresh(self._index.refresh())

    def start_watching(self) -> None:
        """Follow file changes into the index (``watchdog.enabled``) until closed."""
        self._index.start_watching()

    async def stop_watching(self) -> None:
        await self._index.stop_watching()

    @property
    def watch_ready(self) -> threading.Event:
        """Set while the file watcher's watch is in place: a change made after it is seen."""
        return self._index.watch_ready

    # --- the model ------------------------------------------------------------------------

    async def list_models(self) -> list[str]:
        """The model server's models (``WorkspaceError`` when it cannot say)."""
        return await opening.list_models(self)

    async def switch_model(self, name: str) -> ModelSwitch:
        """Continue the same session with another model of the server. A model the server
        does not have is refused; a failing switch keeps the old model."""
        return await opening.switch_model(self, name)

    # --- extensions -----------------------------------------------------------------------

    async def mcp_servers(self) -> list[McpServerInfo]:
        """The MCP servers: state, why not running, tools (starts them if no request has yet:
        the user asked to see them)."""
        from ipuaro.core.mcp_status import mcp_servers

        return await mcp_servers(self)

    # --- /eval ----------------------------------------------------------------------------

    async def evaluate(self) -> Evaluation | None:
        """Check every path, line range and code name the last answer cites against the
        index; the result holds the evidence and the critique request to send (None: there
        is no answer yet)."""
        from ipuaro.core.evaluation import evaluate_last_answer

        return await evaluate_last_answer(self)

    # --- engineering memory ---------------------------------------------------------------

    def engineering_memory(self) -> EngineeringMemory:
        """The user's and the project's remembered preferences as the files say now (values
        that cannot be used are in ``.problems``, naming the file, the key and the fix)."""
        from ipuaro.memory import load_memory

        return load_memory(self.root, self.options.environ)

    async def propose_memory_patch(self, patch: object, source: str) -> PatchReport:
        """A ``memory_patch`` from the model (``remember``) or a plan: keys off the whitelist
        are dropped and wrong types refused (both reported); the changes are shown to the user
        (:class:`~ipuaro.core.decisions.ApplyMemory`) and written only when confirmed."""
        from ipuaro.core.memory import propose

        return await propose(self.root, self.options.environ, self._asking.ask, patch, source)

    async def set_memory(self, key: str, value: str) -> PatchReport:
        """The user's own ``/memory set KEY VALUE``: checked like a patch, written at once."""
        from ipuaro.core.memory import set_value

        return await set_value(self.root, self.options.environ, key, value)

    async def unset_memory(self, key: str) -> PatchReport:
        """The user's own ``/memory unset KEY``."""
        from ipuaro.core.memory import set_value

        return await set_value(self.root, self.options.environ, key, None)

    # --- helpers --------------------------------------------------------------------------

    def _idle(self, what: str) -> None:
        self._tasks.refuse_if_busy(what)
        if self.busy:
            raise WorkspaceBusy(f"{what} waits until the agent has answered (Ctrl+C interrupts it)")
