"""The index's life in a workspace: the first index (with the large-project question), runs
on demand, background refreshes, the file watcher. Progress and results go out as events;
work runs in a thread, events are delivered on the workspace's event loop."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from ipuaro.core.decisions import LargeProject
from ipuaro.core.errors import IndexFailed
from ipuaro.core.events import Event, IndexFinished, IndexProgress, WatcherFailed
from ipuaro.core.reports import IndexReport

if TYPE_CHECKING:
    from ipuaro.core.workspace import Workspace
    from ipuaro.index.indexer import IndexSummary

PROGRESS_EVERY_S = 0.1
"""The indexer reports every file; the first index's progress goes out at most this often."""
BACKGROUND_EVERY_S = 0.5


def report_of(summary: IndexSummary) -> IndexReport:
    return IndexReport(
        files=summary.files,
        parsed=summary.parsed,
        unchanged=summary.unchanged,
        deleted=summary.deleted,
        parse_errors=summary.parse_errors,
        parse_error_files=tuple(summary.parse_error_files),
        skipped_non_utf8=summary.skipped_non_utf8,
        removed_temp_files=len(summary.removed_temp_files),
    )


def throttled(report: Callable[[int, int], None], every: float) -> Callable[[int, int], None]:
    last = 0.0

    def progress(done: int, total: int) -> None:
        nonlocal last
        now = time.monotonic()
        if done >= total or now - last >= every:
            last = now
            report(done, total)

    return progress


class IndexKeeper:
    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self.running = False
        """An index run is in its thread (it still writes through the store)."""
        self._watch_stop: asyncio.Event | None = None
        self._watch_task: asyncio.Task[None] | None = None
        self._refresh_task: asyncio.Task[IndexReport | None] | None = None
        """Kept so the running refresh is not garbage-collected."""
        self.watch_ready = threading.Event()
        """Set while the file watch is in place (a change made after this is seen)."""

    def _emitter(self) -> Callable[[Event], None]:
        """Emit from any thread: delivered on the loop that is running now."""
        loop = asyncio.get_running_loop()
        emit = self.workspace._emit

        def send(event: Event) -> None:
            # The loop may have closed while the thread was finishing: nobody is listening.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(emit, event)

        return send

    async def first(self) -> IndexReport | None:
        workspace = self.workspace
        ctx = workspace.ctx
        count = await asyncio.to_thread(ctx.indexer.count_files)
        limit = workspace.config.limits.max_files_warning
        if count > limit:
            folders = ctx.indexer.folder_counts()
            question = LargeProject.of(workspace.project_name, count, limit, folders)
            choice = (await workspace._asking.ask(question)).choice
            folder = question.folder(choice)
            if folder is not None:
                ctx.indexer.limit_to(folder)
                count = dict(folders)[folder]
            elif choice != "continue":
                return None
        workspace._emit(IndexProgress(0, count, background=False))
        return await self.run(background=False, every=PROGRESS_EVERY_S)

    async def run(self, *, background: bool, every: float = PROGRESS_EVERY_S) -> IndexReport:
        ctx = self.workspace.ctx
        send = self._emitter()

        def report(done: int, total: int) -> None:
            send(IndexProgress(done, total, background=background))

        def work() -> IndexSummary:
            try:
                return ctx.indexer.index(progress=throttled(report, every))
            finally:
                self.running = False

        self.running = True
        try:
            summary = await asyncio.to_thread(work)
        except Exception as error:
            raise IndexFailed(str(error)) from error
        return report_of(summary)

    def refresh(self) -> asyncio.Task[IndexReport | None]:
        async def refresh() -> IndexReport | None:
            emit = self.workspace._emit
            try:
                report = await self.run(background=True, every=BACKGROUND_EVERY_S)
            except IndexFailed as error:
                emit(IndexFinished(None, False, background=True, error=str(error)))
                return None
            emit(IndexFinished(report.line(), report.changed, background=True))
            return report

        self._refresh_task = asyncio.create_task(refresh())
        return self._refresh_task

    @property
    def watching(self) -> bool:
        return self._watch_task is not None and not self._watch_task.done()

    def start_watching(self) -> None:
        workspace = self.workspace
        if not workspace.config.watchdog.enabled or self.watching:
            return
        self._watch_stop = asyncio.Event()
        self._watch_task = asyncio.ensure_future(self._watch(self._watch_stop))

    async def _watch(self, stop: asyncio.Event) -> None:
        from ipuaro.index.watcher import IndexWatcher

        send = self._emitter()

        def failed(error: Exception) -> None:  # called from the indexing thread
            send(WatcherFailed(f"index update failed: {error}", fatal=False))

        servers = self.workspace.ctx.tool_ctx.language_servers
        watcher = IndexWatcher(
            self.workspace.ctx.indexer,
            on_error=failed,
            ready=self.watch_ready,
            on_changed=servers.files_changed if servers is not None else None,
        )
        try:
            await watcher.run(stop)
        except Exception as error:  # e.g. the inotify limit: the session goes on unwatched
            self.workspace._emit(WatcherFailed(f"file watcher stopped: {error}", fatal=True))
        finally:
            self.watch_ready.clear()

    async def stop_watching(self) -> None:
        if self._watch_stop is not None:
            self._watch_stop.set()
            self._watch_stop = None
        task, self._watch_task = self._watch_task, None
        if task is not None and not task.done():
            try:
                await asyncio.wait_for(task, 5.0)
            except (TimeoutError, asyncio.CancelledError):
                task.cancel()
