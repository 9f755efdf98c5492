"""The index's life in a workspace: the first index (with the large-project question), runs
on demand, background refreshes, the file watcher. Progress and results go out as events;
work runs in a thread, events are delivered on the workspace's event loop."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from abc import abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING

from ipuaro.core.decisions import LargeProject
from ipuaro.core.errors import IndexFailed
from ipuaro.core.events import Event, IndexFinished, IndexProgress, WatcherFailed
from ipuaro.core.reports import IndexReport

if TYPE_CHECKING:
    from ipuaro.config.schema import Config
    from ipuaro.core.ports import Ask, Emit
    from ipuaro.core.tasks import TaskRunner
    from ipuaro.core.wiring import AppContext
    from ipuaro.index.pipeline.indexer import IndexSummary

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
    """One workspace's index runs and file watch. It receives what it uses: the services
    (``services()``: raises once the workspace is closed), the configuration in force, the
    event bus's ``emit`` and the ``ask`` function."""

    def __init__(
        self,
        services: Callable[[], AppContext],
        config: Callable[[], Config],
        emit: Emit,
        ask: Ask,
        project_name: str,
    ) -> None:
        self._services = services
        self._config = config
        self._emit = emit
        self._ask = ask
        self._project_name = project_name
        self.running = False
        """An index run is in its thread (it still writes through the store)."""
        self._watch_stop: asyncio.Event | None = None
        self._watch_task: asyncio.Task[None] | None = None
        self.watch_ready = threading.Event()
        """Set while the file watch is in place (a change made after this is seen)."""

    def _emitter(self) -> Callable[[Event], None]:
        """Emit from any thread: delivered on the loop that is running now."""
        loop = asyncio.get_running_loop()
        emit = self._emit

        def send(event: Event) -> None:
            # The loop may have closed while the thread was finishing: nobody is listening.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(emit, event)

        return send

    async def first(self) -> IndexReport | None:
        ctx = self._services()
        count = await asyncio.to_thread(ctx.indexer.count_files)
        limit = self._config().limits.max_files_warning
        if count > limit:
            folders = ctx.indexer.folder_counts()
            question = LargeProject.of(self._project_name, count, limit, folders)
            choice = (await self._ask(question)).choice
            folder = question.folder(choice)
            if folder is not None:
                ctx.indexer.limit_to(folder)
                count = dict(folders)[folder]
            elif choice != "continue":
                return None
        self._emit(IndexProgress(0, count, background=False))
        return await self.run(background=False, every=PROGRESS_EVERY_S)

    async def run(self, *, background: bool, every: float = PROGRESS_EVERY_S) -> IndexReport:
        ctx = self._services()
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
        if (servers := ctx.tool_ctx.language_servers) is not None:
            servers.warm_in_background()  # the project's language servers start now
        return report_of(summary)

    async def refresh(self) -> IndexReport | None:
        """Re-index changed files as a background run: its result (a failure too) goes out
        as ``IndexFinished``; None when it failed (the old index answers)."""
        try:
            report = await self.run(background=True, every=BACKGROUND_EVERY_S)
        except IndexFailed as error:
            self._emit(IndexFinished(None, False, background=True, error=str(error)))
            return None
        self._emit(IndexFinished(report.line(), report.changed, background=True))
        return report

    @property
    def watching(self) -> bool:
        return self._watch_task is not None and not self._watch_task.done()

    def start_watching(self) -> None:
        if not self._config().watchdog.enabled or self.watching:
            return
        self._watch_stop = asyncio.Event()
        self._watch_task = asyncio.ensure_future(self._watch(self._watch_stop))

    async def _watch(self, stop: asyncio.Event) -> None:
        from ipuaro.index.watcher import IndexWatcher

        send = self._emitter()

        def failed(error: Exception) -> None:  # called from the indexing thread
            send(WatcherFailed(f"index update failed: {error}", fatal=False))

        services = self._services()
        servers = services.tool_ctx.language_servers
        watcher = IndexWatcher(
            services.indexer,
            on_error=failed,
            ready=self.watch_ready,
            on_changed=servers.files_changed if servers is not None else None,
        )
        try:
            await watcher.run(stop)
        except Exception as error:  # e.g. the inotify limit: the session goes on unwatched
            self._emit(WatcherFailed(f"file watcher stopped: {error}", fatal=True))
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


class IndexOperations:
    """The workspace's index operations (a group of ``Workspace`` methods) over its index
    keeper, its task runner and its services."""

    _index: IndexKeeper
    _tasks: TaskRunner

    @property
    @abstractmethod
    def ctx(self) -> AppContext:
        """Provided by the ``Workspace``."""

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
        A background task of the runner: the next conversation task waits for it."""
        return self._tasks.start_background(self._index.refresh())

    def start_watching(self) -> None:
        """Follow file changes into the index (``watchdog.enabled``) until closed."""
        self._index.start_watching()

    async def stop_watching(self) -> None:
        await self._index.stop_watching()

    @property
    def watch_ready(self) -> threading.Event:
        """Set while the file watcher's watch is in place: a change made after it is seen."""
        return self._index.watch_ready
