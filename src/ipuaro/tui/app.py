"""``ipuaro [PATH]``: the Textual app. It draws the agent's event stream and answers its
questions; everything the agent does lives in ``ipuaro.agent`` behind ``ipuaro.app.build_app``.

Start-up (a worker): onboarding checks → ``build_app`` (store, session, model client, agent) →
the index (a progress screen on the first run, a background refresh later) → the watcher →
the resumed session's history → the prompt is enabled ("ready"). Clock, environment, branch
and project name are injectable so snapshot tests draw the same screen on every run.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, TypeVar

from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Static
from textual.worker import WorkerFailed

from ipuaro.tools.base import ConfirmDecision
from ipuaro.tui.bridge import (
    AgentEventPosted,
    ConfirmAsked,
    ConflictAsked,
    ErrorAsked,
    LoopAsked,
    UiBridge,
)
from ipuaro.tui.diff_render import DARK, LIGHT
from ipuaro.tui.events_view import EventView
from ipuaro.tui.formatting import StatusFields
from ipuaro.tui.history import InputHistory
from ipuaro.tui.screens.dialogs import ChoiceDialog
from ipuaro.tui.startup import LaunchOptions, git_branch
from ipuaro.tui.widgets.chat import ChatLog
from ipuaro.tui.widgets.diffview import ConfirmPanel, DiffOptions
from ipuaro.tui.widgets.prompt import PromptInput
from ipuaro.tui.widgets.status import StatusBar

if TYPE_CHECKING:
    from ipuaro.app import AppContext
    from ipuaro.config.schema import Config
    from ipuaro.tui.command_runner import CommandRunner
    from ipuaro.tui.session_start import SessionStarter

T = TypeVar("T")
Clock = Callable[[], float]

INTERRUPT_WINDOW_S = 2.0
"""A second Ctrl+C within this many seconds (while idle) quits."""
KEY_GUARD_S = 0.4
"""A question that pops up ignores keys for this long: they were typed for the input."""
SHUTDOWN_WAIT_S = 5.0
"""How long Ctrl+D waits for an interrupted request to wind down before cancelling it."""
READY_PLACEHOLDER = "Ask anything — /help for commands"


class IpuaroApp(App[int]):
    CSS_PATH = "app.tcss"
    TITLE = "ipuaro"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+c", "interrupt", "Interrupt", priority=True, show=False),
        Binding("ctrl+d", "save_and_quit", "Save & quit", priority=True, show=False),
        Binding("ctrl+z", "undo", "Undo", priority=True, show=False),
        Binding("escape", "review_pending", "Review the waiting change", show=False),
    ]

    def __init__(
        self,
        root: Path,
        config: Config,
        options: LaunchOptions | None = None,
        *,
        clock: Clock = time.monotonic,
        environ: Mapping[str, str] | None = None,
        branch: str | Callable[[Path], str | None] | None = git_branch,
        project_name: str | None = None,
        key_guard_s: float = KEY_GUARD_S,
    ) -> None:
        super().__init__()
        from ipuaro.store.naming import project_name as name_of

        self.root = root.resolve()
        self.config = config
        self.options = options or LaunchOptions()
        self.clock = clock
        self.environ: Mapping[str, str] = os.environ if environ is None else environ
        self.project = project_name or name_of(self.root)
        self.branch = branch(self.root) if callable(branch) else branch
        self.started = clock()
        self.key_guard_s = key_guard_s
        self.ctx: AppContext | None = None
        self.bridge = UiBridge(self)
        self.ready = asyncio.Event()
        """Set when the prompt accepts input (tests and the start-up benchmark wait on it)."""
        self.input_history = InputHistory()
        self.diff_options = DiffOptions(
            show_diff=config.edit.show_diff,
            syntax=config.edit.syntax_highlight,
            wrap=config.edit.wrap_long_lines,
            show_description=config.edit.show_description,
            palette=LIGHT if config.display.theme == "light" else DARK,
        )
        self.view = EventView(self)
        self.starter: SessionStarter | None = None
        self.commands: CommandRunner | None = None
        self._last_interrupt: float | None = None
        self.closing = False
        self._request_pending = False
        """Set by Ctrl+D / the second Ctrl+C: late events are not drawn any more."""
        self._unsubscribe: Callable[[], None] | None = None
        if config.display.theme == "light":
            self.theme = "textual-light"

    # --- layout ---------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        from ipuaro.security.sandbox import status_label

        sandbox = status_label(self.config.sandbox.profile)
        fields = StatusFields(project=self.project, branch=self.branch, sandbox=sandbox)
        yield StatusBar(fields, self.clock, self.started, id="status")
        yield ChatLog(id="chat")
        yield Static("", id="queue")
        yield Static("", id="completions")
        yield PromptInput(
            self.input_history,
            self.known_paths,
            self.config.input.multiline,
            id="prompt",
            disabled=True,
        )

    @property
    def status(self) -> StatusBar:
        return self.query_one("#status", StatusBar)

    @property
    def chat(self) -> ChatLog:
        return self.query_one("#chat", ChatLog)

    @property
    def prompt(self) -> PromptInput:
        return self.query_one("#prompt", PromptInput)

    def on_mount(self) -> None:
        self.prompt.placeholder = ""
        self.start()

    # --- start-up -------------------------------------------------------------------------

    @work(exclusive=True, group="startup")
    async def start(self) -> None:
        from ipuaro.tui.session_start import SessionStarter

        self.starter = SessionStarter(self)
        ctx = await self.starter.run()
        if ctx is None:
            return
        self.attach(ctx)
        await self.starter.show_session(intro=True)
        self.starter.index_in_background()
        self.starter.start_watcher()
        self.set_ready()

    def attach(self, ctx: AppContext) -> None:
        """Use ``ctx`` from now on (start-up, and ``/model`` which rebuilds it)."""
        from ipuaro.tui.command_runner import CommandRunner

        if self._unsubscribe is not None:
            self._unsubscribe()
        self.ctx = ctx
        self._unsubscribe = ctx.agent.subscribe(self.bridge.listen)
        self.commands = CommandRunner(self, ctx)
        used, limit = ctx.agent.context_usage
        self.status.change(
            ctx_used=used, ctx_limit=limit, auto_apply=ctx.tool_ctx.auto_apply, plan=False
        )
        self.load_input_history()

    def load_input_history(self) -> None:
        entries: list[str] = []
        if self.ctx is not None and self.config.session.save_input_history:
            entries = self.ctx.store.get_input_history(self.ctx.session.id)
        self.input_history = InputHistory(entries)
        self.prompt.input_history = self.input_history

    def set_ready(self) -> None:
        prompt = self.prompt
        prompt.disabled = False
        prompt.placeholder = READY_PLACEHOLDER
        prompt.focus()
        self.ready.set()

    def known_paths(self) -> list[str]:
        return sorted(self.ctx.store.file_hashes()) if self.ctx is not None else []

    async def ask(self, screen: Screen[T]) -> T:
        """Show ``screen`` and wait for what it dismisses with."""
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()

        def done(result: T | None) -> None:
            if not future.done():
                future.set_result(result)  # type: ignore[arg-type]

        await self.push_screen(screen, callback=done)
        return await future

    # --- input ----------------------------------------------------------------------------

    @on(PromptInput.Submitted)
    async def submitted(self, message: PromptInput.Submitted) -> None:
        self.query_one("#completions", Static).update("")
        ctx = self.ctx
        if ctx is None:
            return
        text = message.text
        from ipuaro.tui.commands import is_command

        # The agent records what it is sent (requests, follow-ups when they run); commands
        # and steering messages are recorded here so ↑ finds them after a restart too.
        if is_command(text):
            self.remember_input(text)
            self.run_command(text)
        elif not self.agent_busy:
            self.send(text)
        elif message.follow_up:
            ctx.agent.follow_up(text)
        else:
            self.remember_input(text)
            ctx.agent.steer(text)

    def remember_input(self, text: str) -> None:
        ctx = self.ctx
        if ctx is not None and self.config.session.save_input_history:
            ctx.store.append_input_history(ctx.session.id, text)

    def run_command(self, text: str) -> None:
        """Commands run in a worker: they may wait on a dialog, which needs the app's queue."""
        if self.commands is not None:
            self.run_worker(self.commands.run(text), group="command")

    @property
    def agent_busy(self) -> bool:
        """A request runs, or is about to (its worker has not started the agent yet)."""
        return self._request_pending or (self.ctx is not None and self.ctx.agent.busy)

    def send(self, text: str) -> None:
        """Run one request on the agent in a worker (its events draw the answer)."""
        self._request_pending = True
        self.view.aborting = False
        self._run_request(text)

    @work(exclusive=True, group="agent")
    async def _run_request(self, text: str) -> None:
        try:
            assert self.ctx is not None
            await self.ctx.agent.send(text)
        finally:
            self._request_pending = False

    @on(PromptInput.Completed)
    def completed(self, message: PromptInput.Completed) -> None:
        completion = message.completion
        shown = "  ".join(completion.candidates) if len(completion.candidates) > 1 else ""
        if shown and completion.more:
            shown += f"  … {completion.more} more"
        self.query_one("#completions", Static).update(Text(shown))

    # --- the agent's events and questions -------------------------------------------------

    async def on_agent_event_posted(self, message: AgentEventPosted) -> None:
        if not self.closing:
            await self.view.handle(message.event)

    async def on_confirm_asked(self, message: ConfirmAsked) -> None:
        if self.closing:
            message.future.set_result(ConfirmDecision("reject"))
        else:
            await self.view.confirm(message.request, message.future)

    def on_error_asked(self, message: ErrorAsked) -> None:
        from ipuaro.tui.screens.dialogs import error_dialog

        self._ask_or_default(error_dialog(message.error, message.choices), message.future)

    def on_conflict_asked(self, message: ConflictAsked) -> None:
        from ipuaro.tui.screens.dialogs import conflict_dialog

        choices = self.view.conflict_choices
        dialog = conflict_dialog(message.path, message.description, choices)
        self._ask_or_default(dialog, message.future, allowed=choices)

    def on_loop_asked(self, message: LoopAsked) -> None:
        from ipuaro.tui.screens.dialogs import loop_dialog

        self._ask_or_default(loop_dialog(message.tool_name, message.repeats), message.future)

    def _ask_or_default(
        self,
        dialog: ChoiceDialog,
        future: asyncio.Future[str],
        allowed: tuple[str, ...] | None = None,
    ) -> None:
        """While quitting nobody is asked: the dialog's safe answer is given at once."""
        if self.closing:
            future.set_result(dialog.escape_value)
        else:
            self.view.dialog(dialog, future, allowed=allowed)

    # --- keys -----------------------------------------------------------------------------

    def action_interrupt(self) -> None:
        now = self.clock()
        busy = self.agent_busy
        if busy:
            assert self.ctx is not None
            self.view.aborting = True
            if self.ctx.agent.busy:
                self.ctx.agent.abort()
            else:  # the worker has not reached the agent yet: stop it before it does
                self.workers.cancel_group(self, "agent")
                self._request_pending = False
            self.view.answer_open_questions()
            self.notify("Interrupted. Ctrl+C again when idle quits.", timeout=2)
        elif self._last_interrupt is not None and now - self._last_interrupt <= INTERRUPT_WINDOW_S:
            self.run_worker(self.shutdown(), group="quit", exclusive=True)
            return
        else:
            self.notify("Press Ctrl+C again to quit (Ctrl+D saves and quits).", timeout=2)
        self._last_interrupt = now

    def action_save_and_quit(self) -> None:
        self.run_worker(self.shutdown(), group="quit", exclusive=True)

    def action_review_pending(self) -> None:
        """Esc in the input: go to the change that waits for Y / N / E."""
        for panel in self.query(ConfirmPanel):
            if not panel.decided:
                panel.focus()
                panel.scroll_visible()
                return

    def action_undo(self) -> None:
        if self.ready.is_set():
            self.run_command("/undo")

    @on(ConfirmPanel.EditRequested)
    def edit_requested(self, message: ConfirmPanel.EditRequested) -> None:
        self.run_worker(self.view.edit(message.panel), group="editor", exclusive=True)

    @on(ConfirmPanel.Closed)
    def confirm_closed(self, message: ConfirmPanel.Closed) -> None:
        if not self.prompt.disabled and not self.screen.is_modal:
            self.prompt.focus()

    async def switch_model(self, name: str) -> None:
        """``/model NAME``: rebuild the context on the same session with another model."""
        from ipuaro.app import build_app
        from ipuaro.llm.errors import ModelError

        old = self.ctx
        assert old is not None and self.starter is not None
        llm = self.config.llm.model_copy(update={"model": name})
        config = self.config.model_copy(update={"llm": llm})
        self.starter.stop_watcher()
        await old.aclose()
        self.ctx = None
        try:
            ctx = await build_app(
                self.root,
                config,
                handlers=self.bridge,
                confirm=self.bridge.confirm,
                auto_apply=old.tool_ctx.auto_apply,
                session_id=old.session.id,
                environ=self.environ,
            )
        except ModelError as error:
            await self.chat.notice(f"✗ cannot switch to {name}: {error.message}", "error")
            ctx = await build_app(
                self.root,
                self.config,
                handlers=self.bridge,
                confirm=self.bridge.confirm,
                auto_apply=old.tool_ctx.auto_apply,
                session_id=old.session.id,
                environ=self.environ,
            )
        else:
            self.config = config
        self.attach(ctx)
        self.starter.start_watcher()
        window = ctx.window
        await self.chat.notice(
            f"model {ctx.client.model} · context window {window.tokens:,} tokens ({window.source})",
            "success",
        )

    async def shutdown(self) -> None:
        """Stop the agent, save the session, close the store and the model client, exit."""
        self.closing = True
        ctx = self.ctx
        if ctx is not None:
            if ctx.agent.busy:
                self.view.aborting = True
                ctx.agent.abort()
                self.view.answer_open_questions()
                for worker in self.workers:
                    if worker.group == "agent":
                        try:
                            await asyncio.wait_for(worker.wait(), SHUTDOWN_WAIT_S)
                        except (TimeoutError, WorkerFailed):
                            worker.cancel()
            try:
                ctx.sessions.save(ctx.session)
            except Exception as error:  # shown, then exit anyway: the user asked to leave
                self.notify(f"session not saved: {error}", severity="error")
        await self.close_context()
        self.exit()

    async def close_context(self) -> None:
        if self.starter is not None:
            self.starter.stop_watcher()
        ctx, self.ctx = self.ctx, None
        if ctx is None:
            return
        if self.starter is not None and self.starter.indexing:
            # The re-index thread still writes through this store; closing it under the
            # thread would fail the run. The process is ending: SQLite closes with it.
            await ctx.client.aclose()
        else:
            await ctx.aclose()

    async def on_unmount(self) -> None:
        await self.close_context()
