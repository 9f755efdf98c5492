"""Parsing one batch of files, and writing them once the project-wide facts are known.

A :class:`ParseWorker` lives either in the indexing process (small updates, the watcher) or in
a pool process (full index). It parses files, resolves their imports, and *keeps* the parsed
models; it sends back only a small :class:`FileSummary` per file. Once the indexer can resolve a
file's calls (the files its imports lead to are parsed) it tells the worker holding the file to
write it, with its call targets, straight to the store. Parsed models never cross a process
boundary: rebuilding a million pydantic references in the parent costs more than parsing.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from ipuaro.domain import FileAST, FileIndexes
from ipuaro.index.pipeline.analyzer import dependencies, resolve_imports, unresolved_specifiers
from ipuaro.index.pipeline.gcpause import pause_collector_for_good
from ipuaro.index.refs.calls import ModuleLinks, module_links, set_resolved
from ipuaro.index.resolve.resolver import ProjectLayout
from ipuaro.index.scan.reader import count_loc, text_file_data
from ipuaro.store.protocol import IndexBatch, Store

log = logging.getLogger(__name__)

WRITE_BATCH_FILES = 150
"""Files per store transaction when writing parsed files (bounds one transaction's size)."""

StoreOpener = Callable[[], Store]
"""A picklable callable that opens the project's store (called inside pool processes)."""


@dataclass(frozen=True, slots=True)
class ParseJob:
    path: str
    language: str
    text: str
    hash: str
    size: int
    mtime: float


@dataclass(frozen=True, slots=True)
class FileSummary:
    """What the indexer needs about a parsed file to build the project-wide indexes."""

    path: str
    language: str
    parse_error: bool
    nesting: int
    loc: int
    imports: int
    deps: tuple[str, ...]
    unresolved: tuple[str, ...]
    """Specifiers of internal-looking imports that matched no file."""
    links: ModuleLinks
    defines: frozenset[str]
    """Top-level names the file defines (what other files' calls can resolve to)."""
    callees: tuple[str, ...]
    """Called names the file does not define itself (resolved across files later)."""
    symbols: int
    references: int


@dataclass(slots=True)
class _Held:
    job: ParseJob
    ast: FileAST
    indexes: FileIndexes
    own_names: frozenset[str]


def _parse(path: str, text: str) -> tuple[FileAST, FileIndexes, int]:
    from ipuaro.index.parsers import language_for, parse_source

    try:
        parsed = parse_source(path, text)
    except Exception:  # a parser bug must cost one file, never the whole index
        log.exception("parser failed on %s; stored with parseError", path)
        return FileAST(language=language_for(path), parse_error=True), FileIndexes(), 0
    return parsed.ast, parsed.indexes, parsed.nesting


class ParseWorker:
    def __init__(
        self, layout: ProjectLayout, store: Store | None = None, opener: StoreOpener | None = None
    ) -> None:
        self.layout = layout
        self._store = store
        self._opener = opener
        self._held: dict[str, _Held] = {}

    @property
    def held_paths(self) -> list[str]:
        return list(self._held)

    def store(self) -> Store:
        if self._store is None:
            if self._opener is None:
                raise RuntimeError("this worker was given no store to write to")
            self._store = self._opener()
        return self._store

    def close_store(self) -> None:
        """Close a store this worker opened itself (pool processes)."""
        if self._opener is not None and self._store is not None:
            self._store.close()
            self._store = None

    def parse(self, jobs: Iterable[ParseJob]) -> list[FileSummary]:
        summaries: list[FileSummary] = []
        for job in jobs:
            ast, indexes, nesting = _parse(job.path, job.text)
            ast = ast.model_copy(update={"imports": resolve_imports(self.layout, job.path, ast)})
            own = frozenset(symbol.name for symbol in indexes.symbols)
            top = frozenset(s.name for s in indexes.symbols if s.container is None)
            callees = tuple(sorted({c.callee for c in indexes.calls} - own))
            self._held[job.path] = _Held(job, ast, indexes, own)
            summaries.append(
                FileSummary(
                    path=job.path,
                    language=job.language,
                    parse_error=ast.parse_error,
                    nesting=nesting,
                    loc=count_loc(job.text),
                    imports=len(ast.imports),
                    deps=tuple(sorted(dependencies(ast.imports, job.path))),
                    unresolved=tuple(unresolved_specifiers(ast.imports)),
                    links=module_links(ast.imports),
                    defines=top,
                    callees=callees,
                    symbols=len(indexes.symbols),
                    references=indexes.reference_count(),
                )
            )
        return summaries

    def write(
        self,
        targets: dict[str, dict[str, str]],
        paths: Iterable[str] | None = None,
        into: IndexBatch | None = None,
    ) -> list[str]:
        """Write held files (all, or ``paths``) with their call targets resolved: file, AST and
        index contributions. Transactions hold :data:`WRITE_BATCH_FILES` files; with ``into``
        everything is added to that batch instead (the caller applies it). Returns the paths."""
        chosen = sorted(self._held) if paths is None else [p for p in paths if p in self._held]
        step = (len(chosen) or 1) if into is not None else WRITE_BATCH_FILES
        for start in range(0, len(chosen), step):
            part = chosen[start : start + step]
            batch = into if into is not None else IndexBatch()
            for path in part:
                held = self._held[path]
                resolve_held_calls(held.indexes, path, held.own_names, targets.get(path, {}))
                job = held.job
                batch.files[path] = text_file_data(job.text, job.hash, job.size, job.mtime)
                batch.asts[path] = held.ast
                batch.file_indexes[path] = held.indexes
            if into is None:
                self.store().apply_batch(batch)
            for path in part:
                del self._held[path]
        return chosen


def resolve_held_calls(
    indexes: FileIndexes, path: str, own_names: frozenset[str], targets: dict[str, str]
) -> None:
    """Set ``resolved`` on every call edge in place (rule 1 here, rules 2-3 from ``targets``)."""
    for call in indexes.calls:
        callee = call.callee
        set_resolved(call, path if callee in own_names else targets.get(callee))


# --- pool process side ------------------------------------------------------------------------
_worker: ParseWorker | None = None


def exit_with_parent() -> None:
    """End this pool process as soon as the process that started it dies (a SIGKILLed
    ``ipuaro index`` must not leave its workers blocked on a pipe nobody writes).

    ``multiprocessing.parent_process()`` holds a pipe whose other end only the parent has,
    for every start method (fork, forkserver, spawn) and platform: it reads end-of-file when
    the parent is gone, however it died. ``prctl(PR_SET_PDEATHSIG)`` was the alternative, but
    it is Linux only and fires when the *thread* that started the child exits."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        parent.join()
        os._exit(1)

    threading.Thread(target=watch, name="ipuaro-parent-watchdog", daemon=True).start()


def init_process(root: str, files: list[str], opener: StoreOpener) -> None:
    global _worker
    exit_with_parent()
    pause_collector_for_good()  # the process lives for one index run (see gcpause)
    _worker = ParseWorker(ProjectLayout(Path(root), files), opener=opener)


def _process_worker() -> ParseWorker:
    if _worker is None:
        raise RuntimeError("pool process was not initialised")
    return _worker


def parse_in_process(jobs: list[ParseJob]) -> list[FileSummary]:
    return _process_worker().parse(jobs)


def write_in_process(targets: dict[str, dict[str, str]], paths: list[str] | None) -> list[str]:
    return _process_worker().write(targets, paths)


def close_in_process() -> None:
    _process_worker().close_store()
