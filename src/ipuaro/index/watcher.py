"""Keep the index in sync with the disk while a session runs (``watchfiles``).

Debounce, as ``watchfiles`` defines it: changes are grouped until the project has been quiet
for ``SETTLE_MS`` (an editor's save — temp file, rename, chmod — lands within a few
milliseconds, so it is one update), and a group is never held open longer than
``watchdog.debounceMs`` (500 ms by default), so a stream of changes that never pauses is still
applied twice a second. A single save is in the store ~0.1 s plus the re-index after it happened
(a quiet period of the full 500 ms would put every save at least half a second behind). Each
batch goes to
:meth:`Indexer.update_paths`, which re-reads the files, re-parses what changed and updates the
dependents' metas. Ignored paths (the scanner's rules; a ``.gitignore`` edit applies at once)
never reach the indexer.

A batch that fails (the store is locked, the parse pool cannot start) is not dropped: its
changes stay with the watcher and go with the next batch, and the error reaches ``on_error``
saying how many changed files the index is missing until then.

Two ways to run it: ``await watcher.run(stop)`` inside an event loop (the TUI), or
``watcher.start()`` / ``watcher.stop()`` with a background thread for code without a loop.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import watchfiles
from watchfiles import Change

from ipuaro.domain.errors import IpuaroError
from ipuaro.index.pipeline.indexer import Indexer, IndexSummary

log = logging.getLogger(__name__)

UpdateCallback = Callable[[IndexSummary], None]
ErrorCallback = Callable[[Exception], None]

TICK_MS = 50
"""Granularity of the debounce clock (and how often an idle watcher wakes up)."""
SETTLE_MS = 100
"""Quiet time after the last change before a group is applied."""


class UpdateFailed(IpuaroError):
    """A batch could not be applied; its changes are kept for the next one."""

    def __init__(self, error: Exception, missing: int) -> None:
        super().__init__(
            f"{error} — {missing} changed file(s) are not in the index yet; they are retried "
            "with the next change (/reindex retries now)"
        )
        self.error = error
        self.missing = missing


@dataclass
class _Pending:
    changes: set[tuple[Change, str]] = field(default_factory=set)
    first: float = 0.0
    last: float = 0.0

    def take(self) -> set[tuple[Change, str]]:
        taken, self.changes = self.changes, set()
        return taken


class IndexWatcher:
    def __init__(
        self,
        indexer: Indexer,
        *,
        debounce_ms: int | None = None,
        on_error: ErrorCallback | None = None,
        ready: threading.Event | None = None,
        on_changed: Callable[[list[str]], None] | None = None,
    ) -> None:
        self.indexer = indexer
        self.on_changed = on_changed
        """Told the project-relative paths of each applied batch (the language servers drop
        their cached answers about them)."""
        configured = indexer.config.watchdog.debounce_ms
        self.debounce_ms = configured if debounce_ms is None else debounce_ms
        self.on_error = on_error
        self.ready = ready if ready is not None else threading.Event()
        """Set once the file system watch is in place (changes after this are seen); the
        caller may pass its own event to wait on."""
        self._failed: set[tuple[Change, str]] = set()
        """Changes of a batch that failed: applied again with the next one."""
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    # --- shared -----------------------------------------------------------------------------
    def accepts(self, change: Change, path: str) -> bool:
        """The watch filter: paths inside the project that the scanner would index."""
        rel = self.indexer.relative(path)
        if rel is None:
            return False
        is_dir = change != Change.deleted and os.path.isdir(path) and not os.path.islink(path)
        return not self.indexer.ignore.is_ignored(rel, is_dir=is_dir)

    @property
    def missing(self) -> int:
        """Changed paths of a failed batch not in the index yet (0 when all went in)."""
        return len({path for _, path in self._failed})

    def apply(self, changes: Iterable[tuple[Change, str]]) -> IndexSummary | None:
        """Send one batch (with the changes of a failed one) to the indexer; errors are
        reported, never raised: the watcher keeps running and the next change retries."""
        batch = set(changes) | self._failed
        self._failed = set()
        changed: set[str] = set()
        deleted: set[str] = set()
        for change, path in batch:
            if change == Change.deleted:
                deleted.add(path)
            else:
                changed.add(path)
        try:
            summary = self.indexer.update_paths(sorted(changed), sorted(deleted - changed))
        except Exception as error:
            self._failed = batch
            failure = UpdateFailed(error, self.missing)
            log.warning("index update failed: %s", failure)
            if self.on_error is not None:
                self.on_error(failure)
            return None
        if self.on_changed is not None:
            relative = {r for path in changed | deleted if (r := self.indexer.relative(path))}
            try:
                self.on_changed(sorted(relative))
            except Exception as error:  # a cache that cannot be dropped must not stop watching
                log.warning("after an index update: %s", error)
        return summary

    def _options(self) -> dict[str, int | bool]:
        # watchfiles reports every quiet gap of TICK_MS (and wakes up every TICK_MS when idle);
        # the grouping itself is done here, on that clock.
        return {"step": TICK_MS, "yield_on_timeout": True, "rust_timeout": TICK_MS}

    def _due(self, pending: _Pending, changes: set[tuple[Change, str]]) -> bool:
        """Add ``changes`` to ``pending``; True when the batch should be applied now."""
        now = time.monotonic()
        if changes:
            if not pending.changes:
                pending.first = now
            pending.changes |= changes
            pending.last = now
        if not pending.changes:
            return False
        settle = min(SETTLE_MS, self.debounce_ms) / 1000
        quiet = now - pending.last >= settle
        return quiet or now - pending.first >= self.debounce_ms / 1000

    # --- asyncio ----------------------------------------------------------------------------
    async def run(self, stop: asyncio.Event, on_update: UpdateCallback | None = None) -> None:
        """Watch until ``stop`` is set."""
        pending = _Pending()
        async for changes in watchfiles.awatch(
            self.indexer.root,
            watch_filter=self.accepts,
            stop_event=stop,
            **self._options(),  # type: ignore[arg-type]
        ):
            self.ready.set()
            if not self._due(pending, changes):
                continue
            summary = await asyncio.to_thread(self.apply, pending.take())
            if summary is not None and on_update is not None:
                on_update(summary)

    # --- thread -----------------------------------------------------------------------------
    def start(self, on_update: UpdateCallback | None = None) -> None:
        """Watch in a daemon thread until :meth:`stop`."""
        if self._thread is not None:
            raise RuntimeError("the watcher is already running")
        self._stop.clear()
        self._thread = threading.Thread(
            target=self._watch, args=(on_update,), name="ipuaro-watcher", daemon=True
        )
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def _watch(self, on_update: UpdateCallback | None) -> None:
        pending = _Pending()
        try:
            for changes in watchfiles.watch(
                self.indexer.root,
                watch_filter=self.accepts,
                stop_event=self._stop,
                raise_interrupt=False,
                **self._options(),  # type: ignore[arg-type]
            ):
                self.ready.set()
                if not self._due(pending, changes):
                    continue
                summary = self.apply(pending.take())
                if summary is not None and on_update is not None:
                    on_update(summary)
        except Exception as error:  # the watch itself failed (e.g. inotify limit reached)
            log.warning("file watcher stopped: %s", error)
            if self.on_error is not None:
                self.on_error(error)
