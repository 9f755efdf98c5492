"""``ipuaro [PATH]``: the Textual app, a view over a :class:`~ipuaro.core.workspace.Workspace`.
It draws the workspace's event stream and answers its questions; every operation is the
workspace's (this package imports ``ipuaro.core`` and nothing below it).

Start-up (a worker): onboarding checks → ``Workspace.open`` (store, session, model client) →
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
from textual import events, on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Static
from textual.worker import WorkerFailed

from ipuaro.core.decisions import Answer, ConfirmChange
from ipuaro.domain.edits import ConfirmDecision
from ipuaro.tui.bridge import AgentEventPosted, QuestionAsked, UiBridge
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
    from ipuaro.config.schema import Config
    from ipuaro.core.workspace import Workspace
    from ipuaro.tui.command_runner import CommandRunner
    from ipuaro.tui.session_start import SessionStarter

T = TypeVar("T")
Clock = Callable[[], float]

INTERRUPT_WINDOW_S = 2.0
"""A second Ctrl+C within this many seconds (while idle) quits."""
SHUTDOWN_WAIT_S = 5.0
"""How long Ctrl+D waits for an interrupted request to wind down before cancelling it."""
READY_PLACEHOLDER = "Ask anything — /help for commands"
STARTING_PLACEHOLDER = "Starting… type ahead: Enter sends once ready"


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
    ) -> None:
        super().__init__()
        from ipuaro.config.paths import project_name as name_of

        self.root = root.resolve()
        self.config = config
        self.options = options or LaunchOptions()
        self.clock = clock
        self.environ: Mapping[str, str] = os.environ if environ is None else environ
        self.project = project_name or name_of(self.root)
        self.branch = branch(self.root) if callable(branch) else branch
        self.started = clock()
        self.workspace: Workspace | None = None
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
        self._typed_ahead: list[str] = []
        """Sent with Enter before the workspace was ready: sent, in order, once it is."""
        self._unsubscribe: Callable[[], None] | None = None
        if config.display.theme == "light":
            self.theme = "textual-light"

    # --- layout ---------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        from ipuaro.core.checks import sandbox_label

        sandbox = sandbox_label(self.config)
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
        # The input takes keys from the first moment, while the checks and the first index
        # run: focused at once (``focus()`` would wait behind keys already queued).
        prompt = self.prompt
        prompt.placeholder = STARTING_PLACEHOLDER
        prompt.line_feed_sends = True
        self.screen.set_focus(prompt)
        self.start()

    # --- start-up -------------------------------------------------------------------------

    @work(exclusive=True, group="startup")
    async def start(self) -> None:
        from ipuaro.tui.session_start import SessionStarter

        self.starter = SessionStarter(self)
        workspace = await self.starter.run()
        if workspace is None:
            return
        self.attach(workspace)
        await self.starter.show_session(intro=True)
        self.starter.index_in_background()
        workspace.start_watching()
        self.set_ready()

    def attach(self, workspace: Workspace) -> None:
        """Draw ``workspace`` from now on."""
        from ipuaro.tui.command_runner import CommandRunner

        if self._unsubscribe is not None:
            self._unsubscribe()
        self.workspace = workspace
        self._unsubscribe = workspace.subscribe(self.bridge.listen)
        self.commands = CommandRunner(self, workspace)
        used, limit = workspace.context_usage
        self.status.change(
            ctx_used=used,
            ctx_limit=limit,
            auto_apply=workspace.auto_apply,
            plan=workspace.plan_mode,
        )
        self.load_input_history()

    def load_input_history(self) -> None:
        entries = self.workspace.input_history() if self.workspace is not None else []
        self.input_history = InputHistory(entries)
        self.prompt.input_history = self.input_history

    def set_ready(self) -> None:
        prompt = self.prompt
        prompt.placeholder = READY_PLACEHOLDER
        prompt.line_feed_sends = False
        prompt.focus()
        self.ready.set()
        typed, self._typed_ahead = self._typed_ahead, []
        self._show_typed_ahead()
        for text in typed:
            self.take_input(text, follow_up=True)

    async def type_ahead(self, event: events.Key) -> None:
        """A key typed for the input that reached a start-up screen or a question shown
        after it was pressed (see ``ipuaro.tui.keys``): the input gets it."""
        await self.prompt.type_key(event.key, event.character)

    def _show_typed_ahead(self) -> None:
        queue = self.query_one("#queue", Static)
        queue.update(Text("\n".join(f"⏳ sent when ready: {t}" for t in self._typed_ahead)))
        queue.set_class(bool(self._typed_ahead), "-shown")

    def known_paths(self) -> list[str]:
        return self.workspace.known_paths() if self.workspace is not None else []

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
        if not self.ready.is_set():
            self._typed_ahead.append(message.text)
            self._show_typed_ahead()
            return
        self.take_input(message.text, follow_up=message.follow_up)

    def take_input(self, text: str, *, follow_up: bool) -> None:
        """What the user sent: a command, a request, or (while the agent works) a steer or a
        follow-up."""
        workspace = self.workspace
        if workspace is None:
            return
        from ipuaro.core.commands import is_command

        # The workspace keeps the input history: requests and follow-ups as they run, steers
        # as they are sent, commands here, so ↑ finds them after a restart too.
        if is_command(text):
            workspace.remember_input(text)
            self.run_command(text)
        elif not self.agent_busy:
            self.send(text)
        elif follow_up:
            workspace.follow_up(text)
        else:
            workspace.steer(text)

    def run_command(self, text: str) -> None:
        """Commands run in a worker: they may wait on a dialog, which needs the app's queue."""
        if self.commands is not None:
            self.run_worker(self.commands.run(text), group="command")

    @property
    def agent_busy(self) -> bool:
        """A request runs, or is about to (its worker has not started the agent yet)."""
        return self._request_pending or (self.workspace is not None and self.workspace.busy)

    def send(self, text: str) -> None:
        """Run one request on the agent in a worker (its events draw the answer)."""
        self._request_pending = True
        self.view.aborting = False
        self._run_request(text)

    @work(exclusive=True, group="agent")
    async def _run_request(self, text: str) -> None:
        try:
            assert self.workspace is not None
            await self.workspace.send(text)
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

    async def on_question_asked(self, message: QuestionAsked) -> None:
        from ipuaro.tui.screens.dialogs import question_dialog

        question, future = message.question, message.future
        if isinstance(question, ConfirmChange) and question.request.kind in ("edit", "delete"):
            if self.closing:
                future.set_result(Answer("reject"))
            else:
                await self.view.confirm(question.request, _relay(future))
            return
        self._ask_or_default(question_dialog(question), future, allowed=question.values())

    def _ask_or_default(
        self,
        dialog: ChoiceDialog,
        future: asyncio.Future[Answer | str],
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
            assert self.workspace is not None
            self.view.aborting = True
            if self.workspace.busy:
                self.workspace.abort()
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

    async def shutdown(self) -> None:
        """Stop the agent, save the session, close the workspace, exit."""
        self.closing = True
        workspace = self.workspace
        if workspace is not None:
            if workspace.busy:
                self.view.aborting = True
                workspace.abort()
                self.view.answer_open_questions()
                for worker in self.workers:
                    if worker.group == "agent":
                        try:
                            await asyncio.wait_for(worker.wait(), SHUTDOWN_WAIT_S)
                        except (TimeoutError, WorkerFailed):
                            worker.cancel()
            try:
                workspace.save()
            except Exception as error:  # shown, then exit anyway: the user asked to leave
                self.notify(f"session not saved: {error}", severity="error")
        await self.close_workspace()
        self.exit()

    async def close_workspace(self) -> None:
        workspace, self.workspace = self.workspace, None
        if workspace is not None:
            await workspace.aclose()

    async def on_unmount(self) -> None:
        await self.close_workspace()


def _relay(answer: asyncio.Future[Answer | str]) -> asyncio.Future[ConfirmDecision]:
    """A future for the diff panel's decision that resolves ``answer`` (and is cancelled
    with it when the request is interrupted)."""
    decision: asyncio.Future[ConfirmDecision] = asyncio.get_running_loop().create_future()

    def done(settled: asyncio.Future[ConfirmDecision]) -> None:
        if answer.done():
            return
        if settled.cancelled():
            answer.cancel()
        else:
            result = settled.result()
            answer.set_result(Answer(result.choice, result.edited, result.rejected))

    decision.add_done_callback(done)
    answer.add_done_callback(lambda _: decision.cancel() if not decision.done() else None)
    return decision
