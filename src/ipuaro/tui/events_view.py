"""How each agent event changes the screen, and how its questions are put to the user.

Handled one at a time, in order, from the app's message queue (see ``bridge``). Timing of an
answer uses the app's injected clock, so the stats line is reproducible under test.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from rich.text import Text
from textual import events
from textual.widgets import Static

from ipuaro.core.decisions import Answer
from ipuaro.core.events import (
    AgentEnd,
    AgentStart,
    Compaction,
    ContextUpdate,
    ErrorRaised,
    Event,
    ExtensionWarning,
    IndexFinished,
    IndexProgress,
    MessageDelta,
    MessageEnd,
    ModeChanged,
    PlanContextRound,
    PlanUpdated,
    QueueChanged,
    SessionSwitched,
    TaskEnded,
    TaskStarted,
    ToolCallEnd,
    ToolCallOutput,
    ToolCallStart,
    WatcherFailed,
)
from ipuaro.domain.edits import ConfirmDecision, ConfirmRequest
from ipuaro.tui.formatting import stats_line
from ipuaro.tui.keys import key_clock
from ipuaro.tui.screens.dialogs import ChoiceDialog
from ipuaro.tui.widgets.diffview import ConfirmPanel
from ipuaro.tui.widgets.toolline import ToolLine, ToolState

if TYPE_CHECKING:
    from ipuaro.domain import ToolResult
    from ipuaro.tui.app import IpuaroApp

TASK_LABELS = {"compact": "compacting…"}
"""The status bar's word for a task ``TaskStarted`` announces (only compaction does today)."""

LONG_ANSWER_S = 10.0
"""Answers that took longer ring the bell (``display.bellOnComplete``)."""

END_NOTES = {
    "aborted": ("⊘ interrupted", "warning"),
    "limit": ("⊘ stopped", "warning"),
    "error": ("✗ stopped by an error", "error"),
    "refused": ("⊘ refused", "warning"),
}


def tool_state(result: ToolResult) -> ToolState:
    if result.success:
        return "ok"
    if result.refused:
        return "refused"
    return "failed"


def result_text(result: ToolResult) -> str:
    if result.success:
        data = result.data
        return data if isinstance(data, str) else "" if data is None else str(data)
    return result.error or "failed"


class EventView:
    def __init__(self, app: IpuaroApp) -> None:
        self.app = app
        self.aborting = False
        """Set by Ctrl+C: the steers the abort drops must not be drawn as sent."""
        self.started_at: float | None = None
        self._queued_steers: tuple[str, ...] = ()
        self._open_dialogs: list[tuple[ChoiceDialog, asyncio.Future[Answer | str]]] = []
        self.request_label: str | None = None
        """Shown instead of the next request's text (``/eval`` sends a long prompt)."""

    async def handle(self, event: Event) -> None:
        app = self.app
        chat = app.chat
        if isinstance(event, AgentStart):
            self.started_at = app.clock()
            await chat.end_answer(None)
            label, self.request_label = self.request_label, None
            await chat.add_user(label or event.request)
            await chat.start_answer()
            app.status.change(state="thinking")
        elif isinstance(event, MessageDelta):
            await (await chat.answer()).write(event.text)
        elif isinstance(event, MessageEnd):
            await (await chat.answer()).end_text(event.text)
        elif isinstance(event, ToolCallStart):
            if app.config.display.show_tool_calls:
                await (await chat.answer()).add(ToolLine(event.call.id, event.summary))
        elif isinstance(event, ToolCallOutput):
            block = chat.current
            line = block.tool_line(event.call.id) if block is not None else None
            if line is not None:
                line.add_output(event.text)
        elif isinstance(event, ToolCallEnd):
            block = chat.current
            line = block.tool_line(event.call.id) if block is not None else None
            if line is not None:
                line.finish(tool_state(event.result), result_text(event.result))
            if app.workspace is not None:  # an edit answered "always" turns auto-apply on
                app.status.change(auto_apply=app.workspace.auto_apply)
            check = event.result.check
            if check is not None and check.lines:  # the after-edit check, under the edit
                warning = "check after the edit:\n" + "\n".join(f"- {x}" for x in check.lines)
                await (await chat.answer()).add_note(warning, "warning")
        elif isinstance(event, ErrorRaised):
            await self._error_raised(event)
        elif isinstance(event, ContextUpdate):
            app.status.change(ctx_used=event.tokens_used, ctx_limit=event.tokens_limit)
        elif isinstance(event, Compaction):
            how = "summarised" if event.summarised else "old tool results dropped"
            note = (
                f"context compacted ({how}): {event.tokens_before:,} → "
                f"{event.tokens_after:,} tokens"
            )
            await (await chat.answer()).add_note(note, "info")
        elif isinstance(event, QueueChanged):
            await self._queue_changed(event)
        elif isinstance(event, AgentEnd):
            await self._agent_end(event)
        elif isinstance(event, PlanContextRound | PlanUpdated):
            await self._plan_event(event)
        else:
            await self._workspace_event(event)

    async def _workspace_event(self, event: Event) -> None:
        """Index refreshes, the watcher, modes (sessions and the model are drawn by the
        command that switched them)."""
        app = self.app
        if isinstance(event, IndexProgress) and event.background:
            percent = 100 * event.done // max(event.total, 1)
            app.status.change(indexing=f"indexing {percent}%")
        elif isinstance(event, IndexFinished) and event.background:
            app.status.change(indexing=None)
            if event.error is not None:
                await app.chat.notice(f"✗ background re-index failed: {event.error}", "error")
            elif event.changed and event.summary:
                await app.chat.notice(event.summary, "info")
        elif isinstance(event, WatcherFailed):
            # In the chat, not only a toast that fades: the index is behind the disk until
            # the next change or /reindex, and the user must be able to read why.
            app.notify(event.message, severity="warning" if event.fatal else "error")
            await app.chat.notice(f"✗ {event.message}", "error")
        elif isinstance(event, ExtensionWarning):
            await app.chat.notice(f"⚠ {event.message}", "warning")
        elif isinstance(event, TaskStarted):
            app.status.change(task=TASK_LABELS.get(event.kind, f"{event.kind}…"))
        elif isinstance(event, TaskEnded):
            app.status.change(task=None)
        elif isinstance(event, ModeChanged):
            app.status.change(auto_apply=event.auto_apply, plan=event.plan_mode)
        elif isinstance(event, SessionSwitched) and app.workspace is not None:
            app.status.change(auto_apply=app.workspace.auto_apply)  # grants stay behind

    async def _plan_event(self, event: PlanContextRound | PlanUpdated) -> None:
        """Plan mode: what the app fetched for the model (and cut), and the plan kept."""
        block = await self.app.chat.answer()
        if isinstance(event, PlanContextRound):
            what = "auto-context" if event.number == 0 else f"context round {event.number}"
            await block.add_note(f"→ {what}: {', '.join(event.blocks) or 'nothing'}", "info")
            for cut in event.cuts:
                await block.add_note(f"✂ {cut}", "warning")
            return
        changes = len(event.plan.proposed_changes.actions)
        shown = f"{len(event.read_files)} file(s) read"
        note = f"plan kept with the session · {changes} proposed change(s) · {shown}"
        await block.add_note(note, "info")

    async def _error_raised(self, event: ErrorRaised) -> None:
        error = event.error
        self.app.status.change(state="error")
        await (await self.app.chat.answer()).add_note(f"✗ {error.kind}: {error.message}", "error")

    async def _queue_changed(self, event: QueueChanged) -> None:
        sent = [s for s in self._queued_steers if s not in event.steers]
        self._queued_steers = event.steers
        if sent and not self.aborting:
            block = await self.app.chat.answer()
            for steer in sent:
                await block.add_user(steer, "steer")
        lines = [f"⏳ steer: {s}" for s in event.steers]
        lines += [f"⏳ follow-up: {f}" for f in event.follow_ups]
        queue = self.app.query_one("#queue", Static)
        queue.update(Text("\n".join(lines)))
        queue.set_class(bool(lines), "-shown")

    async def _agent_end(self, event: AgentEnd) -> None:
        app = self.app
        elapsed = app.clock() - self.started_at if self.started_at is not None else 0.0
        self.started_at = None
        block = await app.chat.answer()
        note = END_NOTES.get(event.reason)
        if note is not None:
            text, kind = note
            await block.add_note(f"{text}: {event.detail}" if event.detail else text, kind)
        stats = None
        if app.config.display.show_stats:
            stats = stats_line(
                elapsed,
                event.stats.tokens,
                event.stats.tool_calls,
                estimated=event.reason == "aborted" or bool(event.stats.estimated),
            )
        await app.chat.end_answer(stats)
        app.status.change(state="error" if event.reason == "error" else "ready")
        if app.workspace is not None:
            used, limit = app.workspace.context_usage
            app.status.change(ctx_used=used, ctx_limit=limit)
        if app.config.display.bell_on_complete and elapsed >= LONG_ANSWER_S:
            app.bell()

    # --- questions ------------------------------------------------------------------------

    async def confirm(
        self, request: ConfirmRequest, future: asyncio.Future[ConfirmDecision]
    ) -> None:
        panel = ConfirmPanel(request, self.app.diff_options, future, self._typed_for_input)
        future.add_done_callback(lambda done: panel.interrupted() if done.cancelled() else None)
        await (await self.app.chat.answer()).add(panel)
        if self.app.prompt.text.strip():
            # The user is typing: do not turn their next keys into a decision.
            self._point_to_waiting_change()
        else:
            panel.take_focus()
        panel.scroll_visible()

    async def _typed_for_input(self, event: events.Key) -> None:
        """A key that reached the diff panel but was pressed before it took the focus: the
        user is typing, so the input gets the key and the focus back."""
        prompt = self.app.prompt
        if not prompt.has_focus:
            prompt.screen.set_focus(prompt)
            self._point_to_waiting_change()
        await self.app.type_ahead(event)

    def _point_to_waiting_change(self) -> None:
        self.app.notify("A change waits for your decision: Esc to review it.", timeout=6)

    def answer_open_questions(self) -> None:
        """Ctrl+C / Ctrl+D while the agent waits on the user: every open dialog gets its
        safe answer (abort, skip, stop, refuse) and every waiting diff is rejected, so the
        agent can wind down instead of waiting for ever."""
        for screen, future in list(self._open_dialogs):
            if not future.done():
                future.set_result(screen.escape_value)
            if screen.is_current:
                screen.dismiss("")
        for panel in self.app.query(ConfirmPanel):
            panel.withdraw()

    async def edit(self, panel: ConfirmPanel) -> None:
        """``[E] Edit``: the proposed content in ``$EDITOR`` (or the in-app editor); what the
        user saves is applied."""
        from ipuaro.tui.editor import EditorCommand, EditorFailed, edit_texts
        from ipuaro.tui.screens.editor import EditorScreen

        app = self.app
        texts = {c.path: c.new_text for c in panel.request.files if c.new_text is not None}
        try:
            command = EditorCommand.from_env(app.environ)
            if command is not None:
                edited = await edit_texts(app, command, texts)
            else:
                edited = {}
                for path, text in texts.items():
                    result = await app.ask(EditorScreen(path, text))
                    if result is None:
                        await (await app.chat.answer()).add_note("edit cancelled", "warning")
                        panel.focus()
                        return
                    edited[path] = result
        except EditorFailed as error:
            await (await app.chat.answer()).add_note(f"✗ {error}", "error")
            panel.focus()
            return
        if not panel.decided:
            panel.decide(ConfirmDecision("apply", edited=edited))

    def dialog(
        self,
        screen: ChoiceDialog,
        future: asyncio.Future[Answer | str],
        allowed: tuple[str, ...] | None = None,
    ) -> None:
        """Show a choice dialog; its answer resolves ``future``. An interrupted request
        (the future cancelled) closes the dialog."""
        self._open_dialogs.append((screen, future))
        screen.typed_for_input = self.app.type_ahead
        screen.opened_at = key_clock()

        def answered(value: str | None) -> None:
            if future.done():
                return
            if allowed is not None and value not in allowed:
                value = "skip"
            future.set_result(value or "")
            if self.app.workspace is not None and self.app.workspace.busy:
                self.app.status.change(state="thinking")

        def closed(done: asyncio.Future[Answer | str]) -> None:
            self._open_dialogs.remove((screen, future))
            if done.cancelled() and screen.is_current:
                screen.dismiss("")

        future.add_done_callback(closed)
        self.app.push_screen(screen, callback=answered)
