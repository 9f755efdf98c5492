"""The index's front door: full (incremental by hash) indexing and path-level updates.

``Indexer.index()`` scans the project, hashes every file (see :mod:`ipuaro.index.scan.reader` for
the hash), skips files whose hash the store already has, and applies the rest as one
:class:`~ipuaro.index.pipeline.run.IndexRun`. ``Indexer.update_paths()`` does the same for paths a
watcher or the edit engine names. Both are serialised by a lock, so a watcher thread and an
edit may call them concurrently.
"""

from __future__ import annotations

import os
import posixpath
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ipuaro.config.schema import Config
from ipuaro.index.pipeline.run import IndexRun, OtherFile, RunOutcome
from ipuaro.index.pipeline.state import ProjectState
from ipuaro.index.pipeline.worker import ParseJob, StoreOpener
from ipuaro.index.resolve.resolver import ProjectLayout
from ipuaro.index.scan.ignore import ProjectIgnore
from ipuaro.index.scan.reader import ReadOutcome, read_entry
from ipuaro.index.scan.scanner import ScanEntry, ScanResult, remove_stale_temps, scan, stat_entry
from ipuaro.store.protocol import Store

Progress = Callable[[int, int], None]


@dataclass
class IndexSummary:
    files: int = 0
    """Files in the index after the run."""
    parsed: int = 0
    unchanged: int = 0
    parse_errors: int = 0
    parse_error_files: list[str] = field(default_factory=list)
    """The files of ``parse_errors``: stored as text, summarised with no syntax tree."""
    skipped_non_utf8: int = 0
    too_large_to_parse: list[str] = field(default_factory=list)
    """Source files above ``project.maxParseBytes``: stored as text, not parsed."""
    too_large_to_store: list[str] = field(default_factory=list)
    """Files above ``project.maxFileBytes``: kept as metadata only, like binaries."""
    binary: int = 0
    symlinks: int = 0
    deleted: int = 0
    symbols: int = 0
    references: int = 0
    seconds: float = 0.0
    unreadable: list[str] = field(default_factory=list)
    """Paths that could not be read, with the reason (kept as they were in the index)."""
    removed_temp_files: list[str] = field(default_factory=list)
    """Temp files of writes killed before their rename, deleted by this run."""

    def to_json(self) -> dict[str, Any]:
        camel = {
            "parse_errors": "parseErrors",
            "parse_error_files": "parseErrorFiles",
            "skipped_non_utf8": "skippedNonUtf8",
            "too_large_to_parse": "tooLargeToParse",
            "too_large_to_store": "tooLargeToStore",
            "removed_temp_files": "removedTempFiles",
        }
        data = asdict(self)
        data["seconds"] = round(self.seconds, 3)
        return {camel.get(key, key): value for key, value in data.items()}


@dataclass(frozen=True)
class SqliteOpener:
    """Opens the same SQLite database inside a pool process."""

    path: Path
    project_name: str

    def __call__(self) -> Store:
        from ipuaro.store.sqlite import SqliteStore

        return SqliteStore(self.path, self.project_name)


@dataclass(frozen=True)
class ConfigOpener:
    """Opens the configured store (any backend) inside a pool process."""

    config: Config
    root: Path

    def __call__(self) -> Store:
        from ipuaro.store.factory import open_store

        return open_store(self.config, self.root)


def default_opener(store: Store) -> StoreOpener | None:
    from ipuaro.store.sqlite import SqliteStore

    if isinstance(store, SqliteStore):
        return SqliteOpener(store.path, store.project_name)
    return None


def _store_files_inside(store: Store, root: Path) -> list[str]:
    """A SQLite store kept inside the project (``store.path`` set so) must not index itself:
    every write would wake the watcher, which would write again."""
    from ipuaro.store.sqlite import SqliteStore

    if not isinstance(store, SqliteStore):
        return []
    try:
        rel = store.path.resolve().relative_to(root).as_posix()
    except ValueError:
        return []
    return [rel + suffix for suffix in ("", "-wal", "-shm", "-journal", ".bak")]


def default_workers() -> int:
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, 8))


class Indexer:
    def __init__(
        self, root: Path, config: Config, store: Store, *, opener: StoreOpener | None = None
    ) -> None:
        self.root = root.resolve()
        self.config = config
        self.store = store
        self.opener = opener if opener is not None else default_opener(store)
        self._own_files = _store_files_inside(store, self.root)
        self.ignore = ProjectIgnore.from_root(self.root, config, self._own_files)
        self._scan: ScanResult | None = None
        self._lock = threading.Lock()
        self.only = ""
        """The sub-folder the index is limited to (the large-project question), "" for all."""

    # --- full index -------------------------------------------------------------------------
    def count_files(self) -> int:
        """Scan now (the result is reused by the next ``index()``) and count the files."""
        self._scan = self._full_scan()
        return len(self._scan.entries)

    def _full_scan(self) -> ScanResult:
        # Fresh ignore rules: a .gitignore may have changed since the last update_paths().
        self.ignore = ProjectIgnore.from_root(self.root, self.config, self._own_files)
        return scan(self.root, self.config, ignore=self.ignore, start=self.only)

    def folder_counts(self) -> list[tuple[str, int]]:
        """Files per top-level folder of the last scan (``count_files``), most first."""
        scanned = self._scan or self._full_scan()
        self._scan = scanned
        counts = Counter(e.path.split("/", 1)[0] for e in scanned.entries if "/" in e.path)
        return counts.most_common()

    def limit_to(self, folder: str) -> None:
        """Index only ``folder`` (project-relative) from now on: scans start there and
        changes elsewhere are not indexed."""
        self.only = folder.strip("/")
        self._scan = None

    def _inside(self, rel: str) -> bool:
        return not self.only or rel == self.only or rel.startswith(self.only + "/")

    def index(
        self,
        *,
        rebuild: bool = False,
        progress: Progress | None = None,
        workers: int | None = None,
    ) -> IndexSummary:
        started = time.perf_counter()
        with self._lock:
            scanned = self._scan or self._full_scan()
            self._scan = None
            state = ProjectState.load(self.store)
            hashes = self.store.file_hashes()
            if rebuild or not state.complete or not hashes:
                # Also for an empty store: clearing tells it a full index follows (the SQLite
                # store then defers its row indexes to the run's last batch).
                self.store.clear_project()
                state = ProjectState()
                hashes = {}
            summary = IndexSummary(
                unreadable=[*scanned.errors, *self.ignore.notices],
                removed_temp_files=remove_stale_temps(self.root, scanned.temp_files),
            )
            total = len(scanned.entries)
            report = progress or (lambda done, total: None)
            done = 0
            jobs: list[ParseJob] = []
            others: list[OtherFile] = []
            present: set[str] = set()
            for entry in scanned.entries:
                outcome = self._read(entry, summary)
                if not self._sort(outcome, hashes, summary, present, jobs, others):
                    done += 1
                    report(done, total)
            deleted = set(hashes) - present

            def on_parsed(count: int) -> None:
                nonlocal done
                done += count
                report(min(done, total - 1), total)

            applied = self._apply(state, hashes, present, jobs, others, deleted, workers, on_parsed)
            report(total, total)
            self._finish(summary, state, applied, len(present), deleted)
        summary.seconds = time.perf_counter() - started
        return summary

    def _read(self, entry: ScanEntry, summary: IndexSummary) -> ReadOutcome:
        """Read one file; one above ``project.maxFileBytes`` is not read at all (metadata only):
        held as lines it would cost several times its size in memory."""
        if entry.kind == "text" and entry.size > self.config.project.max_file_bytes:
            summary.too_large_to_store.append(entry.path)
            entry = ScanEntry(entry.path, "binary", entry.size, entry.mtime)
        return read_entry(self.root, entry)

    def _sort(
        self,
        outcome: ReadOutcome,
        hashes: dict[str, str],
        summary: IndexSummary,
        present: set[str],
        jobs: list[ParseJob],
        others: list[OtherFile],
    ) -> bool:
        """File one read result; True when it will be parsed (progress counts it then)."""
        entry = outcome.entry
        if outcome.status == "non_utf8":
            summary.skipped_non_utf8 += 1
            return False
        if outcome.status == "error":
            summary.unreadable.append(outcome.error or entry.path)
            if entry.path in hashes:
                present.add(entry.path)  # keep what the index had
            return False
        present.add(entry.path)
        if hashes.get(entry.path) == outcome.hash:
            summary.unchanged += 1
            return False
        # the parsers (every grammar's module) load only once a file has changed
        from ipuaro.index.parsers import language_for

        language = language_for(entry.path) if outcome.status == "text" else None
        if language is not None and entry.size > self.config.project.max_parse_bytes:
            summary.too_large_to_parse.append(entry.path)
            language = None  # stored and searchable as text
        if language is not None and outcome.text is not None:
            jobs.append(
                ParseJob(entry.path, language, outcome.text, outcome.hash, entry.size, entry.mtime)
            )
            return True
        others.append(OtherFile(outcome, self.root))
        return False

    def _apply(
        self,
        state: ProjectState,
        hashes: dict[str, str],
        present: set[str],
        jobs: list[ParseJob],
        others: list[OtherFile],
        deleted: set[str],
        workers: int | None,
        on_parsed: Callable[[int], None] | None,
    ) -> RunOutcome:
        if not (jobs or others or deleted):
            return RunOutcome()  # nothing changed: nothing to write
        shards = default_workers() if workers is None else max(1, workers)
        run = IndexRun(
            self.root,
            self.store,
            ProjectLayout.load(self.root, present),
            state,
            set(hashes),
            opener=self.opener,
            shards=shards,
            on_parsed=on_parsed,
        )
        return run.run(jobs, others, deleted)

    def _finish(
        self,
        summary: IndexSummary,
        state: ProjectState,
        outcome: RunOutcome,
        files: int,
        deleted: set[str],
    ) -> None:
        summary.parsed = outcome.parsed
        summary.parse_errors = outcome.parse_errors
        summary.parse_error_files = outcome.parse_error_files
        summary.deleted = len(deleted)
        summary.files = files
        summary.symbols, summary.references = state.totals()
        summary.binary, summary.symlinks = state.kinds()
        self.store.set_config("root", str(self.root))
        self.store.set_config("last_indexed", time.time())

    # --- updates by path --------------------------------------------------------------------
    def update_paths(self, changed: Iterable[str], deleted: Iterable[str] = ()) -> IndexSummary:
        """Re-read ``changed`` paths from disk (files or folders; a path that no longer exists
        counts as deleted) and drop ``deleted`` ones (folders: everything under them).
        Paths may be absolute or project-relative; paths outside the project are ignored."""
        started = time.perf_counter()
        with self._lock:
            state = ProjectState.load(self.store)
            hashes = self.store.file_hashes()
            summary = IndexSummary()
            named = {r for p in deleted if (r := self.relative(p))}
            # A path reported deleted that exists again (an editor's save by rename) changed.
            again = {r for r in named if os.path.lexists(self.root / r)}
            gone = self._expand_deleted(named - again, hashes)
            entries: dict[str, ScanEntry] = {}
            wanted = {r for p in changed if (r := self.relative(p)) and self._inside(r)} | again
            for rel in sorted(wanted):
                self._expand_changed(rel, hashes, entries, gone)
            jobs: list[ParseJob] = []
            others: list[OtherFile] = []
            present = set(hashes) - gone
            for entry in entries.values():
                outcome = self._read(entry, summary)
                if outcome.status == "non_utf8" and entry.path in hashes:
                    gone.add(entry.path)
                    present.discard(entry.path)
                self._sort(outcome, hashes, summary, present, jobs, others)
            present -= gone
            applied = self._apply(state, hashes, present, jobs, others, gone, None, None)
            self._finish(summary, state, applied, len(present), gone)
        summary.seconds = time.perf_counter() - started
        return summary

    def relative(self, path: str) -> str | None:
        """Project-relative POSIX path, or None when ``path`` is outside the project."""
        candidate = Path(path)
        if candidate.is_absolute():
            try:
                rel = candidate.relative_to(self.root)
            except ValueError:
                try:
                    rel = candidate.resolve().relative_to(self.root)
                except (ValueError, OSError):
                    return None
            text = rel.as_posix()
        else:
            text = posixpath.normpath(path.replace(os.sep, "/"))
        if text in ("", ".") or text.startswith("../") or text == "..":
            return None
        return text

    def _expand_deleted(self, deleted: set[str], hashes: dict[str, str]) -> set[str]:
        gone: set[str] = set()
        for rel in deleted:
            if rel in hashes:
                gone.add(rel)
            prefix = rel + "/"
            gone |= {p for p in hashes if p.startswith(prefix)}
        return gone

    def _expand_changed(
        self, rel: str, hashes: dict[str, str], entries: dict[str, ScanEntry], gone: set[str]
    ) -> None:
        if self.ignore.is_gitignore(rel):
            folder = posixpath.dirname(rel)
            self.ignore.invalidate(folder)
            self._rescan_folder(folder, hashes, entries, gone)
        entry = stat_entry(self.root, rel, self.config)
        if entry is None:
            gone |= self._expand_deleted({rel}, hashes)
            return
        if entry == "dir":
            self._rescan_folder(rel, hashes, entries, gone)
            return
        if self.ignore.is_ignored(rel):
            if rel in hashes:
                gone.add(rel)
            return
        entries[rel] = entry

    def _rescan_folder(
        self, folder: str, hashes: dict[str, str], entries: dict[str, ScanEntry], gone: set[str]
    ) -> None:
        """Reconcile a folder with the index (new files in, newly ignored files out)."""
        found = scan(self.root, self.config, ignore=self.ignore, start=folder).entries
        prefix = folder + "/" if folder else ""
        listed = {e.path for e in found}
        gone |= {p for p in hashes if p.startswith(prefix) and p not in listed}
        for entry in found:
            entries.setdefault(entry.path, entry)
