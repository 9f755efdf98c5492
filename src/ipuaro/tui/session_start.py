"""The TUI's start-up sequence and the index's life in the session.

1. onboarding checks (store, model server, model) — a failure shows the onboarding screen;
2. ``Workspace.open`` — store, session (resumed unless ``--new``), model client, agent;
3. the index — first run: a progress screen; later runs start at once and re-index changed
   files in the background; the workspace's watcher then runs for the whole session;
4. the session's history and the context window in effect are drawn.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from ipuaro.core.events import Event, IndexProgress
from ipuaro.tui.formatting import plural
from ipuaro.tui.screens.dialogs import Choice, ChoiceDialog

if TYPE_CHECKING:
    from ipuaro.core.workspace import Workspace
    from ipuaro.tui.app import IpuaroApp
    from ipuaro.tui.screens.indexing import IndexingScreen


class SessionStarter:
    def __init__(self, app: IpuaroApp) -> None:
        self.app = app

    async def _retry_or_quit(self, title: str, message: str) -> bool:
        dialog = ChoiceDialog(
            title,
            message,
            [Choice("r", "Retry", "retry"), Choice("q", "Quit", "quit")],
            escape_value="quit",
            kind="error",
            typed_for_input=self.app.type_ahead,
        )
        if await self.app.ask(dialog) == "retry":
            return True
        self.app.exit(return_code=1, message=f"ipuaro: {message}")
        return False

    async def run(self) -> Workspace | None:
        """Checks, then the workspace, then the first index; None when the user quit."""
        if not await self._onboard():
            return None
        workspace = await self._open()
        if workspace is None:
            return None
        if workspace.needs_first_index() and not await self._first_index(workspace):
            await workspace.aclose()
            return None
        return workspace

    async def _onboard(self) -> bool:
        from ipuaro.tui.screens.onboarding import OnboardingScreen
        from ipuaro.tui.startup import run_checks

        app = self.app
        while True:
            onboarding = await asyncio.to_thread(run_checks, app.root, app.config)
            if onboarding.ok:
                return True
            screen = OnboardingScreen(onboarding, app.config, app.type_ahead)
            if await app.ask(screen) != "retry":
                problems = "; ".join(r.line() for r in onboarding.results if not r.ok)
                app.exit(return_code=1, message=f"ipuaro: {problems}")
                return False

    async def _open(self) -> Workspace | None:
        from ipuaro.core.errors import OpenError
        from ipuaro.core.workspace import Workspace, WorkspaceOptions

        app = self.app
        options = app.options
        while True:
            try:
                return await Workspace.open(
                    app.root,
                    app.config,
                    app.bridge,
                    WorkspaceOptions(
                        auto_apply=options.auto_apply,
                        session_id=options.session_id,
                        new_session=options.new_session,
                        environ=app.environ,
                    ),
                )
            except OpenError as error:
                if error.kind == "session":
                    app.exit(return_code=2, message=f"ipuaro: {error}")
                    return None
                title = (
                    "The store cannot be opened"
                    if error.kind == "store"
                    else "The model server failed"
                )
                if not await self._retry_or_quit(title, str(error)):
                    return None

    async def _first_index(self, workspace: Workspace) -> bool:
        """The first index behind a progress screen (the workspace asks first, through the
        app's dialogs, when the project is very large)."""
        from ipuaro.core.errors import IndexFailed
        from ipuaro.tui.screens.indexing import IndexingScreen

        app = self.app
        screen: IndexingScreen | None = None

        def progress(event: Event) -> None:
            nonlocal screen
            if not isinstance(event, IndexProgress) or event.background:
                return
            if screen is None:
                screen = IndexingScreen(app.project, app.type_ahead)
                app.push_screen(screen)
            screen.advance(event.done, event.total)

        unsubscribe = workspace.subscribe(progress)
        try:
            report = await workspace.first_index()
        except IndexFailed as error:
            if screen is not None:
                app.pop_screen()
            unsubscribe()
            return await self._retry_or_quit("Indexing failed", str(error)) and (
                await self._first_index(workspace)
            )
        unsubscribe()
        if screen is not None:
            app.pop_screen()
        if report is None:
            app.exit(return_code=1, message="ipuaro: indexing cancelled")
            return False
        await app.chat.notice(report.line(), "success")
        return True

    # --- session life -----------------------------------------------------------------

    async def show_session(self, *, intro: bool) -> None:
        """The context window in effect, warnings, and the session's history."""
        from ipuaro.tui.transcript import render_history

        app = self.app
        workspace = app.workspace
        assert workspace is not None
        if intro:
            window = workspace.window
            line = (
                f"model {workspace.model} · context window {window.tokens:,} tokens "
                f"({window.source})"
            )
            await app.chat.notice(line, "info")
            for warning in workspace.warnings:
                await app.chat.notice(f"⚠ {warning}", "warning")
        history = workspace.history()
        if history:
            title = f" “{workspace.session_title}”" if workspace.session_title else ""
            await app.chat.notice(
                f"resumed session{title} ({plural(len(history), 'message')}); "
                "`ipuaro --new` or /clear starts a fresh one",
                "info",
            )
            await render_history(
                app.chat,
                history,
                workspace.tool_names(),
                show_tool_calls=app.config.display.show_tool_calls,
                show_stats=app.config.display.show_stats,
            )

    def index_in_background(self) -> None:
        """Re-index files changed since the last run without holding up the prompt (progress
        and the result come back as events)."""
        workspace = self.app.workspace
        if workspace is None:
            return
        self.app.status.change(indexing="indexing…")
        workspace.refresh_index()
