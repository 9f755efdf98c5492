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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ipuaro.core import indexing
from ipuaro.core.asking import DecisionHandlers
from ipuaro.core.decisions import Decider, OverwriteChanges
from ipuaro.core.errors import OpenError, SessionMissing, WorkspaceBusy
from ipuaro.core.events import (
    AgentEnd,
    EndReason,
    Event,
    ExtensionWarning,
    HistoryCleared,
    Listener,
    ModeChanged,
    ModelChanged,
    SessionSwitched,
)
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
from ipuaro.core.sessions import SessionArchive

if TYPE_CHECKING:
    from ipuaro.config.schema import Config
    from ipuaro.core.calls import CallFacts
    from ipuaro.core.mcp_status import McpServerInfo
    from ipuaro.core.wiring import AppContext
    from ipuaro.domain import ChatMessage, ToolCall
    from ipuaro.llm.protocol import ModelClient


@dataclass(frozen=True)
class WorkspaceOptions:
    """How to open: the command line's choices for this run."""

    auto_apply: bool = False
    allow_commands: bool = False
    """Headless: run commands the policy would ask about without asking."""
    session_id: str | None = None
    """Resume this session (``OpenError("session")`` when unknown)."""
    new_session: bool = False
    """Start a new session instead of resuming the last one."""
    unattended: bool = False
    """Nobody is there to confirm (headless): edits need ``auto_apply``, commands the policy
    would ask about need ``allow_commands``; anything else is refused with a message saying
    so, and ``ConfirmChange`` is never asked. Other questions still go to the decider."""
    prompt: str | None = None
    """Headless: the request this run will send, saved into the session before the first model
    call (a run killed in its first second keeps it)."""
    environ: Mapping[str, str] | None = None
    client: ModelClient | None = None
    """A ready model client (tests, benchmarks); by default one is made from the config."""
    project_trusted: bool = False
    """The user trusts this project: extensions it declares (MCP servers in ``.ipuaro.json``)
    may run. The user's own always may."""


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
        workspace._attach(await workspace._build(config, workspace.options))
        return workspace

    async def _build(
        self,
        config: Config,
        options: WorkspaceOptions,
        *,
        session_id: str | None = None,
        auto_apply: bool | None = None,
    ) -> AppContext:
        from ipuaro.agent.sessions.keeper import SessionNotFound
        from ipuaro.core.wiring import build_app
        from ipuaro.llm.errors import ModelError
        from ipuaro.store.protocol import StoreError

        try:
            return await build_app(
                self.root,
                config,
                handlers=self._asking,
                confirm=None if options.unattended else self._asking.confirm,
                auto_apply=options.auto_apply if auto_apply is None else auto_apply,
                session_id=session_id or options.session_id,
                new_session=options.new_session and session_id is None,
                allow_commands=options.allow_commands,
                client=options.client if session_id is None else None,
                environ=options.environ,
                prompt=options.prompt if session_id is None else None,
                project_trusted=options.project_trusted,
            )
        except SessionNotFound as error:
            raise OpenError("session", str(error)) from None
        except StoreError as error:
            raise OpenError("store", str(error)) from None
        except ModelError as error:
            raise OpenError("model", error.message, error.suggestion) from None

    def _attach(self, ctx: AppContext) -> None:
        if self._unsubscribe_agent is not None:
            self._unsubscribe_agent()
        self._ctx = ctx
        self._unsubscribe_agent = ctx.agent.subscribe(self._emit)
        if ctx.mcp is not None:
            ctx.mcp.notify = lambda message: self._emit(ExtensionWarning("mcp", message))
        if self._plan_mode:
            ctx.agent.set_plan_mode(True)

    @property
    def ctx(self) -> AppContext:
        """The wiring (for the core's own modules and tests; front ends never use it)."""
        if self._ctx is None:
            raise RuntimeError("the workspace is closed")
        return self._ctx

    def save(self) -> None:
        """Write the current session now (quitting)."""
        self.ctx.sessions.save(self.ctx.session)

    async def aclose(self) -> None:
        """Stop the watcher, close the model client and the store (the store stays open while
        a background index thread still writes through it: the process is ending)."""
        ctx, self._ctx = self._ctx, None
        await self._index.stop_watching()
        if ctx is None:
            return
        if self._unsubscribe_agent is not None:
            self._unsubscribe_agent()
            self._unsubscribe_agent = None
        if self._index.running:
            await ctx.client.aclose()
        else:
            await ctx.aclose()

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
    def busy(self) -> bool:
        return self._ctx is not None and self._ctx.agent.busy

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

        try:
            return await self.ctx.agent.send(text)
        except AgentBusy as error:
            raise WorkspaceBusy(str(error)) from None

    def steer(self, text: str) -> None:
        """Say ``text`` to the running request before its next model call."""
        self.remember_input(text)
        self.ctx.agent.steer(text)

    def follow_up(self, text: str) -> None:
        """Send ``text`` as a new request once the running one has answered."""
        self.ctx.agent.follow_up(text)

    def abort(self) -> None:
        """Interrupt the running request (it ends with ``aborted``)."""
        self.ctx.agent.abort()

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
        return self.ctx.tool_ctx.auto_apply

    def set_auto_apply(self, on: bool) -> None:
        """Edits applied without asking (undo still works)."""
        self.ctx.tool_ctx.auto_apply = on
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

    # --- sessions -------------------------------------------------------------------------

    def _archive(self) -> SessionArchive:
        return SessionArchive(self.ctx.store, self.root)

    def list_sessions(self) -> list[SessionInfo]:
        """The project's sessions, oldest first; the current one is marked."""
        return self._archive().sessions(current=self.session_id)

    def new_session(self) -> str:
        self._idle("/sessions new")
        session = self.ctx.agent.new_session()
        self._emit(SessionSwitched(session.id, "new"))
        return session.id

    def load_session(self, session_id: str) -> None:
        """Make ``session_id`` current. Raises :class:`SessionMissing`."""
        from ipuaro.agent.sessions.keeper import SessionNotFound

        self._idle("/sessions load")
        try:
            self.ctx.agent.load_session(session_id)
        except SessionNotFound as error:
            raise SessionMissing(str(error)) from None
        self._emit(SessionSwitched(session_id, "loaded"))

    def delete_session(self, session_id: str) -> DeleteOutcome:
        """Delete another session (and its undo history); never the current one."""
        return self._archive().delete(session_id, current=self.session_id)

    def export_session(self, session_id: str | None = None) -> list[str]:
        """A session (the current one by default) as JSONL lines."""
        if session_id is None or session_id == self.session_id:
            self.save()
        return self._archive().export(session_id or self.session_id)

    def import_session(self, text: str, *, new_id: bool = False) -> ImportReport:
        """Store a JSONL export in this project (``SessionsUnavailable`` on a bad file)."""
        return self._archive().import_text(text, new_id=new_id)

    # --- undo / redo ----------------------------------------------------------------------

    async def undo(self) -> UndoReport:
        return await self._undo_redo("undo")

    async def redo(self) -> UndoReport:
        return await self._undo_redo("redo")

    async def _undo_redo(self, direction: Literal["undo", "redo"]) -> UndoReport:
        """When files changed since the edit, the user is asked before they are overwritten."""
        manager = self.ctx.undo_manager()
        move = manager.undo if direction == "undo" else manager.redo
        outcome = await asyncio.to_thread(move)
        if not outcome.done and outcome.changed_since:
            answer = await self._asking.ask(OverwriteChanges.of(direction, outcome.message))
            if answer.choice == "force":
                outcome = await asyncio.to_thread(lambda: move(True))
        return UndoReport(direction, outcome.done, outcome.message)

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
        """Bring the index up to date now (``IndexFailed`` on failure)."""
        return await self._index.run(background=False)

    def refresh_index(self) -> asyncio.Task[IndexReport | None]:
        """Re-index changed files in the background; progress and the result arrive as
        ``IndexProgress`` / ``IndexFinished`` events (a failure too: the old index answers)."""
        return self._index.refresh()

    def start_watching(self) -> None:
        """Follow file changes into the index (``watchdog.enabled``) until closed."""
        self._index.start_watching()

    async def stop_watching(self) -> None:
        await self._index.stop_watching()

    # --- the model ------------------------------------------------------------------------

    async def list_models(self) -> list[str]:
        """The model server's models (``WorkspaceError`` when it cannot say)."""
        from ipuaro.core.errors import WorkspaceError
        from ipuaro.llm.errors import ModelError

        try:
            return sorted(await self.ctx.client.list_models())
        except ModelError as error:
            raise WorkspaceError(f"cannot list the server's models: {error.message}") from None

    async def switch_model(self, name: str) -> ModelSwitch:
        """Continue the same session with another model of the server. A model the server
        does not have is refused; a failing switch keeps the old model."""
        from ipuaro.core.errors import WorkspaceError

        try:
            available = await self.list_models()
        except WorkspaceError as listing:
            return ModelSwitch(False, self.model, error=str(listing))
        if name not in available and f"{name}:latest" not in available:
            shown = ", ".join(available[:10]) or "none"
            return ModelSwitch(
                False, self.model, error=f"the server has no model {name!r}; it has: {shown}"
            )
        self._idle("/model")
        old = self.ctx
        watching = self._index.watching
        await self._index.stop_watching()
        llm = self.config.llm.model_copy(update={"model": name})
        config = self.config.model_copy(update={"llm": llm})
        auto_apply, session_id = old.tool_ctx.auto_apply, old.session.id
        await old.aclose()
        self._ctx = None
        problem: str | None = None
        try:
            ctx = await self._build(
                config, self.options, session_id=session_id, auto_apply=auto_apply
            )
        except OpenError as failure:
            problem = f"cannot switch to {name}: {failure.message}"
            ctx = await self._build(
                self.config, self.options, session_id=session_id, auto_apply=auto_apply
            )
        else:
            self.config = config
        self._attach(ctx)
        if watching:
            self.start_watching()
        window = self.window
        self._emit(ModelChanged(self.model, window.tokens, window.source))
        return ModelSwitch(problem is None, self.model, window, problem)

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

    # --- helpers --------------------------------------------------------------------------

    def _idle(self, what: str) -> None:
        if self.busy:
            raise WorkspaceBusy(f"{what} waits until the agent has answered (Ctrl+C interrupts it)")
