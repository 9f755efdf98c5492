"""One indexing run: apply a set of changed and deleted files to the store.

A full index is the case where every file changed and the store is empty; the watcher's update
is the case of one file. The steps are the same:

1. before parsing: drop deleted files from the graph, record what re-parsed files defined
   before, and re-resolve imports of unchanged files that may now resolve differently
   (importers of deleted files; files with unresolved imports when files appeared; every file
   when a tsconfig / package.json / ``__init__.py`` changed);
2. parse the changed code files (a :class:`~ipuaro.index.pipeline.pool.ShardedPool`, or this process
  for
   small sets). In the pool, a file is written as soon as its call targets can be resolved
   (every file its imports lead to has been parsed), so writing overlaps with parsing;
3. update the dependency graph, resolve the remaining call targets, re-resolve calls of
   unchanged files whose imported modules changed what they define;
4. recompute metas of every file whose graph facts changed (and of files near the hub
   threshold when the top-percentile threshold moved);
5. write what is left, then one final batch: deletes, metas, everything else, project indexes.
"""

from __future__ import annotations

import logging
import posixpath
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ipuaro.domain import FileData, FileIndexes, FileMeta
from ipuaro.index.pipeline import analyzer
from ipuaro.index.pipeline.facts import Pending, ProjectFacts, language_of
from ipuaro.index.pipeline.gcpause import collector_paused
from ipuaro.index.pipeline.state import ProjectState, mark_incomplete
from ipuaro.index.pipeline.worker import FileSummary, ParseJob, ParseWorker, StoreOpener
from ipuaro.index.refs.calls import module_links, set_resolved
from ipuaro.index.resolve.resolver import ProjectLayout, is_layout_file
from ipuaro.index.scan.reader import ReadOutcome, count_loc, file_data, read_entry
from ipuaro.store.protocol import IndexBatch, Store

if TYPE_CHECKING:
    from ipuaro.index.pipeline.pool import ShardedPool

log = logging.getLogger(__name__)

POOL_MIN_FILES = 48
"""Below this many files to parse, a pool costs more to start than it saves."""
CHUNK_BYTES = 192 * 1024
CHUNK_FILES = 48
_OLD_DEFS_LIMIT = 200
"""Up to this many re-parsed files, compare old and new definitions to limit re-resolution."""


LARGE_TEXT_BYTES = 1_000_000
"""A text file without a parser above this is not held between reading and writing: it is read
again when written, in batches of :data:`LARGE_BATCH_BYTES`. Held as lines, a file costs several
times its size; ten 30 MB logs held together took 1.1 GB."""
LARGE_BATCH_BYTES = 16_000_000
OTHERS_SLICE_BYTES = 1_000_000
"""Text of files without a parser written per parsed chunk while the pool parses."""


class OtherFile:
    """A changed file without a parser: plain text, binary or symlink. Its stored record and
    line count are built on first use: a full index meets thousands of these (docs, locale
    files) and builds them while the pool parses, not before it starts. A large text file
    (``root`` given) keeps only its line count until it is written, then is read again."""

    __slots__ = ("_data", "_loc", "_root", "file_type", "outcome", "path")

    def __init__(self, outcome: ReadOutcome, root: Path | None = None) -> None:
        self.outcome = outcome
        self.path = outcome.entry.path
        self.file_type = "text" if outcome.status == "text" else outcome.status
        self._data: FileData | None = None
        self._loc: int | None = None
        self._root: Path | None = None
        if root is not None and self.large:
            self._loc = self.loc
            self.outcome.text = None
            self._root = root

    @property
    def large(self) -> bool:
        return self.file_type == "text" and self.outcome.entry.size > LARGE_TEXT_BYTES

    @property
    def data(self) -> FileData:
        if self._data is None:
            self._loc = self.loc  # counted before the text goes
            outcome = self.outcome
            if outcome.text is None and self._root is not None:
                # What is stored is what is on disk now (hash included), even if it changed.
                outcome = read_entry(self._root, outcome.entry)
            self._data = file_data(outcome)
            self.outcome.text = None  # the record holds the lines now; keep one copy
        return self._data

    def release(self) -> None:
        """Written: a large file drops its record (it can be read again)."""
        if self._root is not None:
            self._data = None

    @property
    def loc(self) -> int:
        if self._loc is None:
            text = self.outcome.text
            self._loc = count_loc(text) if text is not None else 0
        return self._loc


@dataclass
class RunOutcome:
    parsed: int = 0
    parse_errors: int = 0
    parse_error_files: list[str] = field(default_factory=list)


def chunk_jobs(jobs: list[ParseJob]) -> Iterable[list[ParseJob]]:
    chunk: list[ParseJob] = []
    size = 0
    for job in jobs:
        chunk.append(job)
        size += len(job.text)
        if size >= CHUNK_BYTES or len(chunk) >= CHUNK_FILES:
            yield chunk
            chunk, size = [], 0
    if chunk:
        yield chunk


class IndexRun:
    def __init__(
        self,
        root: Path,
        store: Store,
        layout: ProjectLayout,
        state: ProjectState,
        stored_paths: set[str],
        *,
        opener: StoreOpener | None = None,
        shards: int = 1,
        on_parsed: Callable[[int], None] | None = None,
    ) -> None:
        self.root = root
        self.store = store
        self.layout = layout
        self.state = state
        self.stored_before = stored_paths
        self.opener = opener
        self.shards = shards
        self.on_parsed = on_parsed or (lambda count: None)
        self.summaries: dict[str, FileSummary] = {}
        self.targets: dict[str, dict[str, str]] = {}
        self.batch = IndexBatch()
        self.files_after = len(layout.files)
        self._touched: set[str] = set()
        self._pending: set[str] = set()
        self._waiting: dict[str, list[str]] = {}
        self._pool: ShardedPool | None = None
        self._unwritten: list[OtherFile] = []
        """Files without a parser whose records are not written yet."""

    # --- driver -----------------------------------------------------------------------------
    def run(self, jobs: list[ParseJob], others: list[OtherFile], deleted: set[str]) -> RunOutcome:
        with collector_paused():
            return self._run(jobs, others, deleted)

    def _run(self, jobs: list[ParseJob], others: list[OtherFile], deleted: set[str]) -> RunOutcome:
        deleted = {p for p in deleted if p in self.stored_before}
        self._pending = {job.path for job in jobs}
        old_defs = self._old_definitions(deleted)  # before any write replaces them
        old_threshold = self.state.hub_threshold
        self.facts = ProjectFacts(
            self.store, self.summaries, self._pending, self.stored_before, deleted
        )
        self._prepare(others, deleted, self._pending | {o.path for o in others})
        self._write_large_others()
        local = ParseWorker(self.layout, store=self.store)
        use_pool = self.opener is not None and self.shards > 1 and len(jobs) >= POOL_MIN_FILES
        small = not use_pool and len(jobs) <= POOL_MIN_FILES
        if not small:
            mark_incomplete(self.store)  # several transactions follow
        clock = _Clock()
        try:
            if use_pool and self.opener is not None:
                from ipuaro.index.pipeline.pool import (
                    ShardedPool,  # multiprocessing only when needed
                )

                files = sorted(self.layout.files)
                self._pool = ShardedPool(self.shards, self.root, files, self.opener)
                self._pool.parse(iter(chunk_jobs(jobs)), self._parsed_in_pool)
                for chunk in chunk_jobs(self._pool.take_lost()):  # a pool process died
                    self._collect(local.parse(chunk))
            else:
                for chunk in chunk_jobs(jobs):
                    self._collect(local.parse(chunk))
            clock.lap(f"parsed {len(self.summaries)} files")
            self._pending.clear()
            metas = self._complete(others, deleted, old_defs, old_threshold)
            clock.lap("graph, calls and metas")
            if self._pool is not None:
                for chunk in chunk_jobs(self._pool.finish(self.targets)):
                    local.parse(chunk)  # a pool process died before writing: redo it here
                clock.lap("pool processes wrote their files")
            # Small runs (the watcher, an edit) are one transaction; large ones write as they go.
            local.write(self.targets, into=self.batch if small else None)
            self.batch.files.update((o.path, o.data) for o in self._unwritten)
            self.batch.metas.update(metas)
        finally:
            if self._pool is not None:
                self._pool.close()
        self.batch.project_indexes = self.state.project_indexes(self.files_after)
        self.store.apply_batch(self.batch)
        clock.lap("final batch written")
        errors = sorted(p for p, s in self.summaries.items() if s.parse_error)
        return RunOutcome(len(self.summaries), len(errors), errors)

    def _collect(self, summaries: list[FileSummary]) -> None:
        for summary in summaries:
            self.summaries[summary.path] = summary
            self._pending.discard(summary.path)
        self.on_parsed(len(summaries))

    def _parsed_in_pool(self, summaries: list[FileSummary]) -> None:
        """Collect, then write every file whose call targets are now known."""
        self._collect(summaries)
        self._write_others_early()
        queue = [s.path for s in summaries]
        for summary in summaries:
            queue.extend(self._waiting.pop(summary.path, ()))
        ready: list[str] = []
        for path in queue:
            try:
                self.targets[path] = self.facts.targets(path)
            except Pending as pending:
                self._waiting.setdefault(pending.module, []).append(path)
                continue
            ready.append(path)
        if self._pool is not None and ready:
            self._pool.write(ready, self.targets)

    def _write_others_early(self) -> None:
        """Files without a parser (thousands of docs and assets in a large project) are
        written while the pool parses, not in the final batch everyone waits for. Only when the
        run deletes nothing: a delete in the final batch could then remove what was written.

        A slice of :data:`OTHERS_SLICE_BYTES` per parsed chunk: while this process writes, it
        hands the pool no new chunks (Django's 3,834 locale files in one transaction left both
        pool processes idle for 0.2-0.4 s)."""
        if not self._unwritten or self.batch.deletes:
            return
        taken, size = 0, 0
        while taken < len(self._unwritten) and size < OTHERS_SLICE_BYTES:
            size += self._unwritten[taken].outcome.entry.size
            taken += 1
        written, self._unwritten = self._unwritten[:taken], self._unwritten[taken:]
        self.store.apply_batch(IndexBatch(files={o.path: o.data for o in written}))

    def _write_large_others(self) -> None:
        """Large text files go first, a few at a time, each batch replacing what the path held
        (its delete moves out of the final batch): then at most one batch of them is in memory."""
        large = [o for o in self._unwritten if o.large]
        if not large:
            return
        mark_incomplete(self.store)  # several transactions follow
        self._unwritten = [o for o in self._unwritten if not o.large]
        batch, held = IndexBatch(), 0
        for position, other in enumerate(large, 1):
            if other.path in self.batch.deletes:
                self.batch.deletes.discard(other.path)
                batch.deletes.add(other.path)
            batch.files[other.path] = other.data
            held += other.outcome.entry.size
            if held >= LARGE_BATCH_BYTES or position == len(large):
                self.store.apply_batch(batch)
                for written in large[position - len(batch.files) : position]:
                    written.release()
                batch, held = IndexBatch(), 0

    # --- before parsing ---------------------------------------------------------------------
    def _old_definitions(self, deleted: set[str]) -> dict[str, frozenset[str] | None]:
        """Top-level names re-parsed files defined before (None: unknown, assume changed)."""
        before = [p for p in self._pending if p in self.stored_before]
        result: dict[str, frozenset[str] | None] = dict.fromkeys(deleted)
        if len(before) > _OLD_DEFS_LIMIT:
            return result | dict.fromkeys(before)
        for path in before:
            old = self.store.get_file_indexes(path)
            result[path] = None if old is None else top_level_names(old)
        return result

    def _prepare(self, others: list[OtherFile], deleted: set[str], changed: set[str]) -> None:
        state, graph, batch = self.state, self.state.graph, self.batch
        importers_of_deleted = {src for d in deleted for src in graph.dependents_of(d)}
        for path in deleted:
            self._touched |= graph.remove(path)
            state.forget(path)
            batch.deletes.add(path)
        for other in others:
            self._touched |= graph.set_deps(other.path, set())
            if other.path in self.stored_before:
                batch.deletes.add(other.path)  # it may have had an AST before (kind changed)
            state.forget(other.path)
            if other.file_type in ("binary", "symlink"):
                state.special[other.path] = other.file_type
        self._unwritten = list(others)
        self._reresolve(importers_of_deleted, changed, deleted)

    def _reresolve(
        self, importers_of_deleted: set[str], changed: set[str], deleted: set[str]
    ) -> None:
        """Re-resolve imports of unchanged files that may now resolve differently."""
        added = changed - self.stored_before
        candidates = set(importers_of_deleted)
        layout_changed = any(is_layout_file(p) for p in changed | deleted) or any(
            p.endswith("__init__.py") for p in added | deleted
        )
        if layout_changed:
            code = analyzer.RESOLVED_LANGUAGES
            candidates |= {p for p in self.stored_before if language_of(p) in code}
        elif added:
            tokens = {_path_token(p) for p in added}
            for path, specifiers in self.state.unresolved.items():
                if any(_spec_token(s) in tokens or not _spec_token(s) for s in specifiers):
                    candidates.add(path)
        candidates -= changed | deleted
        if not candidates:
            return
        for path, ast in self.store.get_asts(sorted(candidates)).items():
            imports = analyzer.resolve_imports(self.layout, path, ast)
            if imports == ast.imports:
                continue
            self.batch.asts[path] = ast.model_copy(update={"imports": imports})
            self._touched |= self.state.graph.set_deps(path, analyzer.dependencies(imports, path))
            self._touched.add(path)
            self.state.unresolved[path] = analyzer.unresolved_specifiers(imports)
            self.facts.relinked[path] = module_links(imports)

    # --- after parsing ----------------------------------------------------------------------
    def _complete(
        self,
        others: list[OtherFile],
        deleted: set[str],
        old_defs: dict[str, frozenset[str] | None],
        old_threshold: int,
    ) -> dict[str, FileMeta]:
        state, graph = self.state, self.state.graph
        for summary in self.summaries.values():
            diff = graph.set_deps(summary.path, set(summary.deps))
            if diff:
                self._touched |= diff | {summary.path}
            state.counts[summary.path] = [summary.symbols, summary.references]
            state.special.pop(summary.path, None)
            state.unresolved[summary.path] = list(summary.unresolved)
        for path in deleted:  # nothing can import a file that is gone
            for source in graph.dependents_of(path):
                deps = graph.deps.get(source, set()) - {path}
                self._touched |= graph.set_deps(source, deps)
        for path in self.summaries:
            if path not in self.targets:
                self.targets[path] = self.facts.targets(path)
            state.call_graph[path] = sorted(set(self.targets[path].values()) - {path})
        self._recall(old_defs, deleted)
        return self._metas(others, deleted, old_threshold)

    def _recall(self, old_defs: dict[str, frozenset[str] | None], deleted: set[str]) -> None:
        """Re-resolve calls of unchanged files whose imports or imported modules changed."""
        graph = self.state.graph
        redefined = {
            path
            for path, before in old_defs.items()
            if before is None or path in deleted or before != self.summaries[path].defines
        }
        candidates = set(self.facts.relinked)
        for path in redefined:
            candidates |= set(graph.dependents_of(path))
        candidates -= set(self.summaries) | deleted
        for path in sorted(candidates):
            indexes = self.store.get_file_indexes(path)
            if indexes is None:
                continue
            own = frozenset(s.name for s in indexes.symbols)
            links = self.facts.links(path)
            changed = False
            for call in indexes.calls:
                callee = call.callee
                target = path if callee in own else self.facts.resolver.target(links, callee)
                if target != call.resolved:
                    set_resolved(call, target)
                    changed = True
            if changed:
                self.batch.file_indexes[path] = indexes
                found = {c.resolved for c in indexes.calls if c.resolved}
                self.state.call_graph[path] = sorted(found - {path})

    def _metas(
        self, others: list[OtherFile], deleted: set[str], old_threshold: int
    ) -> dict[str, FileMeta]:
        state, graph, touched = self.state, self.state.graph, self._touched
        total = len((self.stored_before - deleted) | set(self.summaries) | {o.path for o in others})
        threshold = analyzer.hub_threshold((len(v) for v in graph.dependents.values()), total)
        state.hub_threshold = threshold
        if threshold != old_threshold:
            # Only counts between the two thresholds (and not already hubs by count) can flip.
            low, high = sorted((threshold, old_threshold))
            touched |= {
                p
                for p, v in graph.dependents.items()
                if 2 <= len(v) <= analyzer.HUB_MIN_DEPENDENTS and low <= len(v) <= high
            }
        metas: dict[str, FileMeta] = {}
        for summary in self.summaries.values():
            score = analyzer.complexity(summary.loc, summary.nesting, summary.imports)
            metas[summary.path] = analyzer.build_meta(
                summary.path, summary.language, score, graph, threshold
            )
        for other in others:
            score = analyzer.complexity(other.loc, 0, 0)
            metas[other.path] = analyzer.build_meta(
                other.path, other.file_type, score, graph, threshold
            )
        rest = sorted(touched - set(metas) - deleted)
        for path, meta in self.store.get_metas(rest).items():
            fresh = analyzer.refresh_meta(path, meta, graph, threshold)
            if fresh is not None:
                metas[path] = fresh
        return metas


class _Clock:
    """Phase timings at debug level (``ipuaro -vv index``)."""

    def __init__(self) -> None:
        self._last = time.perf_counter()
        self._cpu = time.process_time()

    def lap(self, what: str) -> None:
        now, cpu = time.perf_counter(), time.process_time()
        log.debug(
            "%s in %.2f s (this process: %.2f CPU-s)", what, now - self._last, cpu - self._cpu
        )
        self._last, self._cpu = now, cpu


def top_level_names(indexes: FileIndexes) -> frozenset[str]:
    return frozenset(s.name for s in indexes.symbols if s.container is None)


def _path_token(path: str) -> str:
    name = posixpath.basename(path)
    stem = name.split(".", 1)[0]
    if stem in ("index", "__init__"):
        return posixpath.basename(posixpath.dirname(path))
    return stem


def _spec_token(specifier: str) -> str:
    """The last name in an import specifier (``./a/b.js`` → ``b``, ``pkg.mod`` → ``mod``);
    empty when the specifier names no file (``.``, ``..``): such imports are always retried."""
    if "/" in specifier:
        last = specifier.rstrip("/").rsplit("/", 1)[-1]
        return "" if last in (".", "..") else last.split(".", 1)[0]
    bare = specifier.lstrip(".")
    return bare.rsplit(".", 1)[-1] if bare else ""
