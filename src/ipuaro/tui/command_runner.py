"""Running slash commands against the app context. Each command is a method; output goes to
the chat as a notice. Commands run in a worker, so they may ask the user (a dialog) and wait.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from rich.table import Table

from ipuaro.core.commands import CommandError, SlashCommand, help_rows, parse_command
from ipuaro.tui.formatting import percent, plural
from ipuaro.tui.screens.dialogs import Choice, ChoiceDialog
from ipuaro.tui.widgets.chat import notice_table

if TYPE_CHECKING:
    from ipuaro.core.wiring import AppContext
    from ipuaro.tui.app import IpuaroApp

WHILE_BUSY = frozenset({"help", "status", "auto-apply"})
"""Commands that may run while the agent answers; the rest wait for it (or Ctrl+C)."""


class CommandRunner:
    def __init__(self, app: IpuaroApp, ctx: AppContext) -> None:
        self.app = app
        self.ctx = ctx

    async def run(self, text: str) -> None:
        chat = self.app.chat
        try:
            command = parse_command(text)
        except CommandError as error:
            await chat.notice(str(error), "error")
            return
        if self.app.agent_busy and command.name not in WHILE_BUSY:
            await chat.notice(
                f"/{command.name} waits until the agent has answered (Ctrl+C interrupts it)",
                "warning",
            )
            return
        handler = getattr(self, "cmd_" + command.name.replace("-", "_"))
        await handler(command)

    # --- commands ---------------------------------------------------------------------

    async def cmd_help(self, command: SlashCommand) -> None:
        commands, keys = help_rows()
        await self.app.chat.table_notice(
            [notice_table("Commands", commands), notice_table("Keys", keys)],
            "Anything else is a message to the agent.",
        )

    async def cmd_clear(self, command: SlashCommand) -> None:
        self.ctx.agent.clear_history()
        await self.app.chat.clear_log()
        self._update_context()
        await self.app.chat.notice(
            "conversation cleared — the session, its undo stack and input history are kept",
            "success",
        )

    async def cmd_undo(self, command: SlashCommand) -> None:
        await self._undo_redo("undo")

    async def cmd_redo(self, command: SlashCommand) -> None:
        await self._undo_redo("redo")

    async def _undo_redo(self, direction: str) -> None:
        manager = self.ctx.undo_manager()
        move = manager.undo if direction == "undo" else manager.redo
        outcome = await asyncio.to_thread(move)
        if not outcome.done and outcome.changed_since:
            dialog = ChoiceDialog(
                f"{direction.capitalize()} would overwrite changes",
                outcome.message,
                [Choice("y", "Overwrite", "force"), Choice("n", "Keep", "keep")],
                escape_value="keep",
                kind="warning",
            )
            if await self.app.ask(dialog) == "force":
                outcome = await asyncio.to_thread(lambda: move(True))
        kind = "success" if outcome.done else "warning"
        await self.app.chat.notice(("↶ " if direction == "undo" else "↷ ") + outcome.message, kind)

    async def cmd_sessions(self, command: SlashCommand) -> None:
        action = command.args[0] if command.args else "list"
        agent = self.ctx.agent
        chat = self.app.chat
        if action == "list":
            await chat.table_notice(*self._sessions_table())
            return
        if action == "new":
            agent.new_session()
            await self._switched("started a new session")
            return
        target = command.args[1]
        if action == "delete":
            if target == agent.session.id:
                await chat.notice(
                    "this is the current session; load or start another one first", "error"
                )
            elif self.ctx.store.delete_session(target):
                await chat.notice(f"deleted session {target}", "success")
            else:
                await chat.notice(f"no session {target} (see /sessions list)", "error")
            return
        from ipuaro.agent.sessions import SessionNotFound

        try:
            agent.load_session(target)
        except SessionNotFound as error:
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
        store = self.ctx.store
        current = self.ctx.session.id
        rows: list[tuple[str, ...]] = []
        for session_id in reversed(store.list_sessions()):
            session = store.load_session(session_id)
            if session is None:
                continue
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(session.last_activity_at))
            mark = " ◀ current" if session_id == current else ""
            rows.append((session_id + mark, session.title or "", str(len(session.history)), when))
        if not rows:
            return [], "No sessions yet."
        table = notice_table(
            "Sessions (newest first)", rows, ("id", "title", "messages", "last active")
        )
        return [table], "/sessions load ID · /sessions delete ID · /sessions new"

    async def cmd_status(self, command: SlashCommand) -> None:
        rows = await asyncio.to_thread(self._status_rows)
        await self.app.chat.table_notice([notice_table("Status", rows)])

    def _status_rows(self) -> list[tuple[str, ...]]:
        from ipuaro.store.factory import describe_store

        ctx = self.ctx
        config = self.app.config
        window = ctx.window
        used, limit = ctx.agent.context_usage
        session = ctx.session
        stats = session.stats
        last = ctx.store.get_config("last_indexed")
        indexed = (
            time.strftime("%Y-%m-%d %H:%M", time.localtime(float(last)))
            if isinstance(last, int | float)
            else "never"
        )
        from ipuaro.core.checks import base_url

        rows = [
            ("store", describe_store(config, ctx.root)),
            ("model", f"{ctx.client.model} ({config.llm.provider} at {base_url(config)})"),
            ("tool format", ctx.agent.tool_format),
            ("context window", f"{window.tokens:,} tokens ({window.source})"),
            ("context in use", f"{used:,} tokens ({percent(used, limit)}%)"),
            (
                "index",
                f"{plural(len(ctx.store.file_hashes()), 'file')} · "
                f"{plural(len(ctx.store.symbol_names()), 'symbol')} · last indexed {indexed}",
            ),
            (
                "session",
                f"{session.id} · {plural(len(session.history), 'message')} · "
                f"{plural(stats.total_tokens, 'token')} · {plural(stats.tool_calls, 'tool call')}"
                f" · {stats.edits_applied} edits applied, {stats.edits_rejected} rejected",
            ),
            ("auto-apply", "on" if ctx.tool_ctx.auto_apply else "off"),
            ("plan mode", "on" if self.app.status.fields.plan else "off"),
        ]
        return list(rows)

    async def cmd_reindex(self, command: SlashCommand) -> None:
        from ipuaro.tui.session_start import index_summary_line

        app = self.app
        app.status.change(indexing="indexing…")
        try:
            summary = await asyncio.to_thread(self.ctx.indexer.index)
        except Exception as error:
            await app.chat.notice(f"✗ re-index failed: {error}", "error")
            return
        finally:
            app.status.change(indexing=None)
        await app.chat.notice(index_summary_line(summary), "success")

    async def cmd_eval(self, command: SlashCommand) -> None:
        from ipuaro.core.evaluation import critique_prompt, gather_evidence
        from ipuaro.core.transcript import visible_text

        accepted = self.ctx.registry.accepted_names()
        answer = next(
            (
                text
                for message in reversed(self.ctx.session.history)
                if message.role == "assistant" and (text := visible_text(message, accepted)).strip()
            ),
            None,
        )
        if answer is None:
            await self.app.chat.notice("there is no answer to evaluate yet", "warning")
            return
        findings = await asyncio.to_thread(gather_evidence, self.ctx.store, answer)
        lines = [finding.line() for finding in findings] or ["(no paths or names cited)"]
        await self.app.chat.notice("evidence from the index:\n" + "\n".join(lines), "info")
        self.app.view.request_label = "/eval — check the last answer against the evidence above"
        self.app.send(critique_prompt(findings))

    async def cmd_auto_apply(self, command: SlashCommand) -> None:
        tool_ctx = self.ctx.tool_ctx
        if command.args:
            tool_ctx.auto_apply = command.args[0] == "on"
            self.app.status.change(auto_apply=tool_ctx.auto_apply)
        state = (
            "on: edits are applied without asking (/undo reverts)"
            if tool_ctx.auto_apply
            else ("off: every edit is shown as a diff for confirmation")
        )
        await self.app.chat.notice(f"auto-apply {state}", "info")

    async def cmd_plan(self, command: SlashCommand) -> None:
        on = not self.app.status.fields.plan if not command.args else command.args[0] == "on"
        self.ctx.agent.set_plan_mode(on)
        self.app.status.change(plan=on)
        state = "on: the agent plans without editing or running commands" if on else "off"
        await self.app.chat.notice(f"plan mode {state}", "info")

    async def cmd_model(self, command: SlashCommand) -> None:
        chat = self.app.chat
        if not command.args:
            window = self.ctx.window
            await chat.notice(
                f"model {self.ctx.client.model} · context window {window.tokens:,} tokens "
                f"({window.source}) — /model NAME switches",
                "info",
            )
            return
        name = command.args[0]
        from ipuaro.llm.errors import ModelError

        try:
            available = await self.ctx.client.list_models()
        except ModelError as error:
            await chat.notice(f"cannot list the server's models: {error.message}", "error")
            return
        if name not in available and f"{name}:latest" not in available:
            shown = ", ".join(sorted(available)[:10]) or "none"
            await chat.notice(f"the server has no model {name!r}; it has: {shown}", "error")
            return
        await self.app.switch_model(name)

    # --- helpers ----------------------------------------------------------------------

    def _update_context(self) -> None:
        used, limit = self.ctx.agent.context_usage
        self.app.status.change(ctx_used=used, ctx_limit=limit)
