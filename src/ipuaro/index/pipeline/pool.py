"""Parse in several processes while each file's models stay in the process that parsed them.

One single-process ``ProcessPoolExecutor`` per shard: parse chunks go to whichever shard has
room (at most :data:`IN_FLIGHT` each, so a slow shard does not starve the other), and write
requests go to the shard that holds the files (see :mod:`ipuaro.index.pipeline.worker`). A plain
multi-process executor cannot address "the process that parsed file X", hence the shards.
Tasks of one shard run in submission order, so a write queued between two parse chunks runs
between them: writing overlaps with the other shard's parsing.

A shard whose process dies loses what it held; those files are handed back to the caller,
which parses and writes them in its own process: a crash costs time, never files.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import forkserver, resource_tracker
from multiprocessing.context import BaseContext
from pathlib import Path
from typing import IO, Any

from ipuaro.index.pipeline.worker import (
    WRITE_BATCH_FILES,
    FileSummary,
    ParseJob,
    StoreOpener,
    close_in_process,
    init_process,
    parse_in_process,
    write_in_process,
)

log = logging.getLogger(__name__)

IN_FLIGHT = 2
Targets = dict[str, dict[str, str]]


def process_context() -> BaseContext:
    """``fork`` is fastest (workers inherit loaded modules) but unsafe once other threads run
    (a lock held by another thread at fork time stays locked in the child): then forkserver."""
    method = "fork" if threading.active_count() == 1 else "forkserver"
    if method not in multiprocessing.get_all_start_methods():
        method = "spawn"
    return multiprocessing.get_context(method)


_helpers_lock = threading.Lock()


def _has_fd(stream: IO[str] | None) -> bool:
    try:
        return stream is not None and stream.fileno() >= 0
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is an OSError
        return False


@contextlib.contextmanager
def _stderr_with_fd() -> Iterator[None]:
    """``sys.stderr`` is a stream with a real file descriptor while the block runs.

    multiprocessing starts its resource tracker with ``sys.stderr.fileno()`` among the fds the
    child keeps; inside Textual ``sys.stderr`` is a capture whose ``fileno()`` is -1, and the
    start fails with "bad value(s) in fds_to_keep". The stand-in is the process's own stderr
    (fd 2, which every child inherits anyway), or /dev/null when there is none."""
    if _has_fd(sys.stderr):
        yield
        return
    saved = sys.stderr
    opened: IO[str] | None = None
    if _has_fd(sys.__stderr__):
        sys.stderr = sys.__stderr__
    else:
        opened = sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - closed below
    try:
        yield
    finally:
        sys.stderr = saved
        if opened is not None:
            opened.close()


def start_helpers(context: BaseContext) -> None:
    """Start (or restart, if one died) the helper processes a non-``fork`` pool relies on —
    multiprocessing's resource tracker, and the forkserver — with a stderr that has a file
    descriptor. Once they run, the pool's own start-up finds them alive and does not look at
    ``sys.stderr`` again, so a pool started from a TUI thread works."""
    method = context.get_start_method()
    if method == "fork":
        return  # no helper process: the children are forked from this one
    with _helpers_lock, _stderr_with_fd():
        resource_tracker.ensure_running()
        if method == "forkserver":
            forkserver.ensure_running()


class ShardedPool:
    def __init__(self, shards: int, root: Path, files: list[str], opener: StoreOpener) -> None:
        context = process_context()
        start_helpers(context)
        self._executors = [
            ProcessPoolExecutor(
                max_workers=1,
                mp_context=context,
                initializer=init_process,
                initargs=(str(root), files, opener),
            )
            for _ in range(shards)
        ]
        self._held: list[dict[str, ParseJob]] = [{} for _ in range(shards)]
        """Parsed, not yet confirmed written, per shard."""
        self._shard_of: dict[str, int] = {}
        self._tasks: dict[Future[Any], tuple[str, int, list[ParseJob]]] = {}
        self._load = [0] * shards
        self._dead: set[int] = set()
        self._lost: list[ParseJob] = []
        self._queued: list[dict[str, None]] = [{} for _ in range(shards)]
        """Parsed files whose targets are known, waiting for their shard's turn to write."""
        self._targets: Targets = {}
        self._writing: set[str] = set()
        """Paths in a submitted, not yet confirmed write."""
        self._finishing = False

    def __enter__(self) -> ShardedPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        for executor in self._executors:
            executor.shutdown(wait=True, cancel_futures=True)

    def shard_pid(self, shard: int) -> int:
        """The process id behind a shard (diagnostics, and tests that kill one)."""
        return self._executors[shard].submit(os.getpid).result()

    def shard_paths(self) -> list[list[str]]:
        """Paths each shard holds (parsed, not yet written)."""
        return [sorted(held) for held in self._held]

    # --- parsing ----------------------------------------------------------------------------
    def parse(
        self, chunks: Iterator[list[ParseJob]], on_parsed: Callable[[list[FileSummary]], None]
    ) -> None:
        """Parse every chunk. ``on_parsed`` may call :meth:`write` for files it can finish."""
        exhausted = False
        while True:
            for shard in range(len(self._executors)):
                while not exhausted and shard not in self._dead and self._load[shard] < IN_FLIGHT:
                    chunk = next(chunks, None)
                    if chunk is None:
                        exhausted = True
                        break
                    self._submit(shard, "parse", chunk, parse_in_process, chunk)
            if not any(kind == "parse" for kind, _, _ in self._tasks.values()):
                break
            self._settle(on_parsed)
            if len(self._dead) == len(self._executors):
                break
        self._lost.extend(job for chunk in chunks for job in chunk)

    def take_lost(self) -> list[ParseJob]:
        """Jobs lost so far (their shard died); the caller parses them itself."""
        lost, self._lost = self._lost, []
        return lost

    def write(self, paths: list[str], targets: Targets) -> None:
        """Queue ``paths`` (with their call targets) to be written by the shards holding them.

        One write runs at a time, by the shard with the most queued files: SQLite takes one
        writer anyway, and a shard waiting for the lock could not parse meanwhile."""
        for path in paths:
            shard = self._shard_of.get(path)
            if shard is None or shard in self._dead or path in self._writing:
                continue
            if path in self._held[shard]:
                self._queued[shard][path] = None
                self._targets[path] = targets.get(path, {})
        self._pump()

    def finish(self, targets: Targets) -> list[ParseJob]:
        """Write everything still held, wait for every task; returns the jobs that were lost
        (their shard died) for the caller to parse and write itself."""
        self._finishing = True
        for shard, held in enumerate(self._held):
            if shard not in self._dead:
                self.write(list(held), targets)
        while self._tasks or any(self._queued[s] for s in self._live()):
            self._pump()
            if self._tasks:
                self._settle(lambda summaries: None)
        for shard in self._live():
            # A death now loses nothing: everything it held was confirmed written.
            with contextlib.suppress(BrokenProcessPool):
                self._executors[shard].submit(close_in_process).result()
        lost, self._lost = self._lost, []
        return lost

    def _live(self) -> list[int]:
        return [s for s in range(len(self._executors)) if s not in self._dead]

    def _pump(self) -> None:
        if any(kind == "write" for kind, _, _ in self._tasks.values()):
            return
        live = self._live()
        if not live:
            return
        shard = max(live, key=lambda s: len(self._queued[s]))
        queued = list(self._queued[shard])
        if not queued or (len(queued) < WRITE_BATCH_FILES and not self._finishing):
            return
        self._queued[shard] = {}
        if not self._finishing:
            log.debug("shard %d writes %d files while parsing goes on", shard, len(queued))
        jobs = [self._held[shard][p] for p in queued]
        wanted = {p: self._targets.pop(p, {}) for p in queued}
        self._writing.update(queued)
        self._submit(shard, "write", jobs, write_in_process, wanted, queued)

    # --- plumbing ---------------------------------------------------------------------------
    def _submit(
        self, shard: int, kind: str, jobs: list[ParseJob], fn: Callable[..., Any], *args: Any
    ) -> None:
        try:
            future = self._executors[shard].submit(fn, *args)
        except BrokenProcessPool:
            if kind == "parse":
                self._lost.extend(jobs)
            self._lose(shard)
            return
        self._tasks[future] = (kind, shard, jobs)
        if kind == "parse":
            self._load[shard] += 1

    def _settle(self, on_parsed: Callable[[list[FileSummary]], None]) -> None:
        done, _ = wait(self._tasks, return_when=FIRST_COMPLETED)
        for future in done:
            kind, shard, jobs = self._tasks.pop(future)
            if kind == "parse":
                self._load[shard] -= 1
            try:
                result = future.result()
            except BrokenProcessPool:
                if kind == "parse":
                    self._lost.extend(jobs)
                self._lose(shard)
                continue
            except Exception:
                if kind == "parse":
                    self._lost.extend(jobs)  # the process lives on with what it held
                    continue
                raise  # a store error while writing: the run fails and says why
            if kind == "parse":
                for job in jobs:
                    self._held[shard][job.path] = job
                    self._shard_of[job.path] = shard
                on_parsed(result)
            else:
                for path in result:
                    self._held[shard].pop(path, None)
                self._writing.difference_update(job.path for job in jobs)
                self._pump()

    def _lose(self, shard: int) -> None:
        if shard not in self._dead:
            self._dead.add(shard)
            self._lost.extend(self._held[shard].values())
            self._held[shard] = {}
            self._queued[shard] = {}
