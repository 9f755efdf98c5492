"""The TUI's start-up sequence and the index's life in the session.

1. onboarding checks (store, model server, model) — a failure shows the onboarding screen;
2. ``build_app`` — store, session (resumed unless ``--new``), model client, agent;
3. the index — first run: a progress screen; later runs start at once and re-index changed
   files in the background; the watcher then runs for the whole session;
4. the session's history and the context window in effect are drawn.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from ipuaro.tui.formatting import plural
from ipuaro.tui.screens.dialogs import Choice, ChoiceDialog

if TYPE_CHECKING:
    from ipuaro.app import AppContext
    from ipuaro.index.indexer import IndexSummary
    from ipuaro.tui.app import IpuaroApp

PROGRESS_EVERY_S = 0.1
"""The indexer reports every file; the screen is updated at most this often."""


def throttled(report: Callable[[int, int], None], every: float) -> Callable[[int, int], None]:
    last = 0.0

    def progress(done: int, total: int) -> None:
        nonlocal last
        now = time.monotonic()
        if done >= total or now - last >= every:
            last = now
            report(done, total)

    return progress


class SessionStarter:
    def __init__(self, app: IpuaroApp) -> None:
        self.app = app
        self._watch_stop: asyncio.Event | None = None
        self.indexing = False
        """A background re-index is running in a thread (it still uses the store)."""

    async def _retry_or_quit(self, title: str, message: str) -> bool:
        dialog = ChoiceDialog(
            title,
            message,
            [Choice("r", "Retry", "retry"), Choice("q", "Quit", "quit")],
            escape_value="quit",
            kind="error",
        )
        if await self.app.ask(dialog) == "retry":
            return True
        self.app.exit(return_code=1, message=f"ipuaro: {message}")
        return False

    async def run(self) -> AppContext | None:
        """Checks, then the app context, then the first index; None when the user quit."""
        if not await self._onboard():
            return None
        ctx = await self._build()
        if ctx is None:
            return None
        if ctx.store.get_config("last_indexed") is None and not await self._first_index(ctx):
            await ctx.aclose()
            return None
        return ctx

    async def _onboard(self) -> bool:
        from ipuaro.tui.screens.onboarding import OnboardingScreen
        from ipuaro.tui.startup import run_checks

        app = self.app
        while True:
            onboarding = await asyncio.to_thread(run_checks, app.root, app.config)
            if onboarding.ok:
                return True
            if await app.ask(OnboardingScreen(onboarding, app.config)) != "retry":
                problems = "; ".join(r.line() for r in onboarding.results if not r.ok)
                app.exit(return_code=1, message=f"ipuaro: {problems}")
                return False

    async def _build(self) -> AppContext | None:
        from ipuaro.agent.sessions import SessionNotFound
        from ipuaro.app import build_app
        from ipuaro.llm.errors import ModelError
        from ipuaro.store.protocol import StoreError

        app = self.app
        options = app.options
        while True:
            try:
                return await build_app(
                    app.root,
                    app.config,
                    handlers=app.bridge,
                    confirm=app.bridge.confirm,
                    auto_apply=options.auto_apply,
                    session_id=options.session_id,
                    new_session=options.new_session,
                    environ=app.environ,
                )
            except SessionNotFound as error:
                app.exit(return_code=2, message=f"ipuaro: {error}")
                return None
            except StoreError as error:
                if not await self._retry_or_quit("The store cannot be opened", str(error)):
                    return None
            except ModelError as error:
                message = error.message
                if error.suggestion:
                    message += f" — {error.suggestion}"
                if not await self._retry_or_quit("The model server failed", message):
                    return None

    async def _first_index(self, ctx: AppContext) -> bool:
        from ipuaro.tui.screens.indexing import IndexingScreen

        app = self.app
        count = await asyncio.to_thread(ctx.indexer.count_files)
        limit = app.config.limits.max_files_warning
        if count > limit:
            dialog = ChoiceDialog(
                "Large project",
                f"{app.project} has {count:,} files (more than limits.maxFilesWarning = "
                f"{limit:,}). Indexing may take a while; to index less, open a subfolder "
                "or add ignore patterns (project.ignorePatterns).",
                [Choice("c", "Continue", "continue"), Choice("q", "Cancel", "cancel")],
                escape_value="cancel",
                kind="warning",
            )
            if await app.ask(dialog) != "continue":
                app.exit(return_code=1, message="ipuaro: indexing cancelled")
                return False
        screen = IndexingScreen(app.project)
        await app.push_screen(screen)
        screen.advance(0, count)

        def report(done: int, total: int) -> None:
            app.call_from_thread(screen.advance, done, total)

        progress = throttled(report, PROGRESS_EVERY_S)
        try:
            summary = await asyncio.to_thread(lambda: ctx.indexer.index(progress=progress))
        except Exception as error:
            app.pop_screen()
            return await self._retry_or_quit("Indexing failed", str(error)) and (
                await self._first_index(ctx)
            )
        app.pop_screen()
        await app.chat.notice(index_summary_line(summary), "success")
        return True

    # --- session life -----------------------------------------------------------------

    async def show_session(self, *, intro: bool) -> None:
        """The context window in effect, warnings, and the session's history."""
        from ipuaro.tui.transcript import render_history

        app = self.app
        ctx = app.ctx
        assert ctx is not None
        if intro:
            window = ctx.window
            line = (
                f"model {ctx.client.model} · context window {window.tokens:,} tokens "
                f"({window.source})"
            )
            await app.chat.notice(line, "info")
            for warning in ctx.warnings:
                await app.chat.notice(f"⚠ {warning}", "warning")
        history = ctx.session.history
        if history:
            title = f" “{ctx.session.title}”" if ctx.session.title else ""
            await app.chat.notice(
                f"resumed session{title} ({plural(len(history), 'message')}); "
                "`ipuaro --new` or /clear starts a fresh one",
                "info",
            )
            await render_history(
                app.chat,
                history,
                ctx.registry.accepted_names(),
                show_tool_calls=app.config.display.show_tool_calls,
                show_stats=app.config.display.show_stats,
            )

    def index_in_background(self) -> None:
        """Re-index files changed since the last run without holding up the prompt."""
        self.app.run_worker(self._refresh(), group="index", exclusive=True)

    async def _refresh(self) -> None:
        app = self.app
        ctx = app.ctx
        if ctx is None:
            return
        app.status.change(indexing="indexing…")

        def report(done: int, total: int) -> None:
            if app.is_running and not app.closing:
                percent = 100 * done // max(total, 1)
                app.call_from_thread(app.status.change, indexing=f"indexing {percent}%")

        def work() -> IndexSummary:
            try:
                return ctx.indexer.index(progress=throttled(report, 0.5))
            finally:
                self.indexing = False

        self.indexing = True
        try:
            summary = await asyncio.to_thread(work)
        except Exception as error:  # the old index still answers; say so and go on
            app.status.change(indexing=None)
            await app.chat.notice(f"✗ background re-index failed: {error}", "error")
            return
        app.status.change(indexing=None)
        if summary.parsed or summary.deleted:
            await app.chat.notice(index_summary_line(summary), "info")

    def start_watcher(self) -> None:
        app = self.app
        if app.ctx is None or not app.config.watchdog.enabled:
            return
        self._watch_stop = asyncio.Event()
        app.run_worker(self._watch(self._watch_stop), group="watcher", exclusive=True)

    async def _watch(self, stop: asyncio.Event) -> None:
        from ipuaro.index.watcher import IndexWatcher

        ctx = self.app.ctx
        if ctx is None:
            return

        def failed(error: Exception) -> None:
            # Called from the indexing thread.
            self.app.call_from_thread(
                self.app.notify, f"index update failed: {error}", severity="error"
            )

        watcher = IndexWatcher(ctx.indexer, on_error=failed)
        try:
            await watcher.run(stop)
        except Exception as error:  # e.g. the inotify limit: the session goes on unwatched
            self.app.notify(f"file watcher stopped: {error}", severity="warning")

    def stop_watcher(self) -> None:
        if self._watch_stop is not None:
            self._watch_stop.set()
            self._watch_stop = None


def index_summary_line(summary: IndexSummary) -> str:
    parts = [
        f"indexed {plural(summary.files, 'file')}",
        f"{summary.parsed:,} parsed",
        f"{summary.unchanged:,} unchanged",
    ]
    if summary.deleted:
        parts.append(f"{summary.deleted:,} removed")
    if summary.parse_errors:
        parts.append(plural(summary.parse_errors, "parse error"))
    if summary.skipped_non_utf8:
        parts.append(f"{summary.skipped_non_utf8:,} non-UTF-8 skipped")
    return " · ".join(parts)
