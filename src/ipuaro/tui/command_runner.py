"""Slash commands in the TUI: each command is a row of :data:`CommandRunner.table`, which maps
it to the workspace's method and draws the result in the chat as a notice. Commands run in a
worker, so a question the workspace asks (an undo over newer changes) can wait on a dialog.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from rich.table import Table

from ipuaro.core.commands import (
    CommandError,
    Reply,
    SlashCommand,
    help_rows,
    parse_command,
    run_operation,
)
from ipuaro.core.errors import SessionMissing, WorkspaceError
from ipuaro.tui.widgets.chat import notice_table

if TYPE_CHECKING:
    from ipuaro.core.workspace import Workspace
    from ipuaro.tui.app import IpuaroApp

WHILE_BUSY = frozenset({"help", "status", "auto-apply"})
"""Commands that may run while the agent answers; the rest wait for it (or Ctrl+C)."""

Handler = Callable[[SlashCommand], Awaitable[None]]


class CommandRunner:
    def __init__(self, app: IpuaroApp, workspace: Workspace) -> None:
        self.app = app
        self.workspace = workspace
        self.table: dict[str, Handler] = {
            "help": self.help,
            "clear": self.clear,
            "undo": self.undo,
            "redo": self.redo,
            "sessions": self.sessions,
            "status": self.status,
            "reindex": self.reindex,
            "eval": self.evaluate,
            "auto-apply": self.auto_apply,
            "plan": self.plan,
            "model": self.model,
        }
        """Command name → what runs it (every built-in of ``ipuaro.core.commands``); a command
        registered later runs its own operation and its reply is drawn by :meth:`reply`."""

    async def run(self, text: str) -> None:
        chat = self.app.chat
        try:
            command = parse_command(text, self.workspace.commands)
        except CommandError as error:
            await chat.notice(str(error), "error")
            return
        busy_ok = command.name in WHILE_BUSY or command.spec.while_busy
        busy_ok = busy_ok or (command.name == "model" and bool(command.args))  # it waits
        if self.app.agent_busy and not busy_ok:
            await chat.notice(
                f"/{command.name} waits until the agent has answered (Ctrl+C interrupts it)",
                "warning",
            )
            return
        handler = self.table.get(command.name)
        try:
            if handler is not None:
                await handler(command)
            else:
                await self.reply(await run_operation(self.workspace, command), text.strip())
        except WorkspaceError as error:
            await chat.notice(str(error), "error")

    async def reply(self, reply: Reply, typed: str = "") -> None:
        """Draw what a registered command said: its tables, then its text; then send its
        prompt (a custom command), shown in the chat as what the user typed."""
        chat = self.app.chat
        if reply.redraw:  # the conversation changed under the transcript (/rewind)
            await self._switched(reply.text)
            return
        if reply.tables:
            tables = [notice_table(t.title, list(t.rows), t.columns) for t in reply.tables]
            await chat.table_notice(tables, reply.text or None)
        elif reply.text:
            await chat.notice(reply.text, reply.kind)
        if reply.prompt:
            self.app.view.request_label = typed or None
            self.app.send(reply.prompt)

    # --- commands ---------------------------------------------------------------------

    async def help(self, command: SlashCommand) -> None:
        commands, keys = help_rows(self.workspace.commands)
        await self.app.chat.table_notice(
            [notice_table("Commands", commands), notice_table("Keys", keys)],
            "Anything else is a message to the agent.",
        )

    async def clear(self, command: SlashCommand) -> None:
        self.workspace.clear_history()
        await self.app.chat.clear_log()
        self._update_context()
        await self.app.chat.notice(
            "conversation cleared — the session, its undo stack and input history are kept",
            "success",
        )

    async def undo(self, command: SlashCommand) -> None:
        report = await self.workspace.undo()
        await self.app.chat.notice("↶ " + report.message, "success" if report.done else "warning")

    async def redo(self, command: SlashCommand) -> None:
        report = await self.workspace.redo()
        await self.app.chat.notice("↷ " + report.message, "success" if report.done else "warning")

    async def sessions(self, command: SlashCommand) -> None:
        action = command.args[0] if command.args else "list"
        workspace = self.workspace
        chat = self.app.chat
        if action == "list":
            await chat.table_notice(*self._sessions_table())
            return
        if action == "new":
            workspace.new_session()
            await self._switched("started a new session")
            return
        target = command.args[1]
        if action == "delete":
            outcome = workspace.delete_session(target)
            if outcome == "current":
                await chat.notice(
                    "this is the current session; load or start another one first", "error"
                )
            elif outcome == "deleted":
                await chat.notice(f"deleted session {target}", "success")
            else:
                await chat.notice(f"no session {target} (see /sessions list)", "error")
            return
        try:
            workspace.load_session(target)
        except SessionMissing as error:
            await chat.notice(str(error), "error")
            return
        await self._switched(f"loaded session {target}")

    async def _switched(self, note: str) -> None:
        assert self.app.starter is not None
        await self.app.chat.clear_log()
        await self.app.chat.notice(note, "success")
        await self.app.starter.show_session(intro=False)
        self.app.load_input_history()
        self._update_context()

    def _sessions_table(self) -> tuple[list[Table], str | None]:
        rows: list[tuple[str, ...]] = []
        for info in reversed(self.workspace.list_sessions()):
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.last_activity_at))
            mark = " ◀ current" if info.current else ""
            rows.append((info.id + mark, info.title or "", str(info.messages), when))
        if not rows:
            return [], "No sessions yet."
        table = notice_table(
            "Sessions (newest first)", rows, ("id", "title", "messages", "last active")
        )
        return [table], "/sessions load ID · /sessions delete ID · /sessions new"

    async def status(self, command: SlashCommand) -> None:
        report = await self.workspace.status()
        await self.app.chat.table_notice([notice_table("Status", list(report.rows))])

    async def reindex(self, command: SlashCommand) -> None:
        from ipuaro.core.errors import IndexFailed

        app = self.app
        app.status.change(indexing="indexing…")
        try:
            report = await self.workspace.reindex()
        except IndexFailed as error:
            await app.chat.notice(f"✗ re-index failed: {error}", "error")
            return
        finally:
            app.status.change(indexing=None)
        await app.chat.notice(report.line(), "success")

    async def evaluate(self, command: SlashCommand) -> None:
        evaluation = await self.workspace.evaluate()
        if evaluation is None:
            await self.app.chat.notice("there is no answer to evaluate yet", "warning")
            return
        await self.app.chat.notice(evaluation.evidence(), "info")
        self.app.view.request_label = "/eval — check the last answer against the evidence above"
        self.app.send(evaluation.prompt)

    async def auto_apply(self, command: SlashCommand) -> None:
        if command.args:
            self.workspace.set_auto_apply(command.args[0] == "on")
        state = (
            "on: edits are applied without asking (/undo reverts)"
            if self.workspace.auto_apply
            else ("off: every edit is shown as a diff for confirmation")
        )
        await self.app.chat.notice(f"auto-apply {state}", "info")

    async def plan(self, command: SlashCommand) -> None:
        workspace = self.workspace
        on = not workspace.plan_mode if not command.args else command.args[0] == "on"
        workspace.set_plan_mode(on)
        self.app.status.change(plan=on)
        state = "on: the agent plans without editing or running commands" if on else "off"
        await self.app.chat.notice(f"plan mode {state}", "info")

    async def model(self, command: SlashCommand) -> None:
        chat = self.app.chat
        workspace = self.workspace
        if not command.args:
            window = workspace.window
            await chat.notice(
                f"model {workspace.model} · context window {window.tokens:,} tokens "
                f"({window.source}) — /model NAME switches",
                "info",
            )
            return
        if self.app.agent_busy:
            await chat.notice(
                f"/model {command.args[0]}: switching once the agent has answered "
                "(the running request keeps its model)",
                "info",
            )
        switch = await workspace.switch_model(command.args[0])
        if switch.window is None:  # refused before anything changed
            await chat.notice(switch.error or "cannot switch", "error")
            return
        if switch.error is not None:
            await chat.notice(f"✗ {switch.error}", "error")
        self.app.attach(workspace)
        await chat.notice(
            f"model {switch.model} · context window {switch.window.tokens:,} tokens "
            f"({switch.window.source})",
            "success",
        )

    # --- helpers ----------------------------------------------------------------------

    def _update_context(self) -> None:
        used, limit = self.workspace.context_usage
        self.app.status.change(ctx_used=used, ctx_limit=limit)
