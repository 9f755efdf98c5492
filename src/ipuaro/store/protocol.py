"""The store: everything the agent knows, behind one small Protocol.

Exceptions::

    StoreError                  any store failure (message says what to do)
    ├── StoreUnavailable        backend cannot be reached / opened (retryable)
    ├── SchemaMismatch          stored schema differs; run ``ipuaro index --rebuild``
    └── CorruptRecord           a stored value does not decode; names the key
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from ipuaro.domain import (
    CallEdge,
    FileAST,
    FileData,
    FileIndexes,
    FileMeta,
    Reference,
    Session,
    SymbolDef,
    UndoEntry,
)
from ipuaro.domain.errors import IpuaroError

SCHEMA_VERSION = 1
"""Bumped whenever the stored shape changes; no migrations, the user re-indexes."""

ProjectIndexName = Literal["deps_graph", "call_graph", "stats"]
"""Small project-wide blobs; symbols/references/calls are queried through dedicated methods."""

ConfigKey = Literal["settings", "whitelist", "last_indexed", "root", "applying"]
"""``applying``: the session and group of a plan's change being written (``planning.apply``),
so the next opening knows where to look for one a kill cut short."""

UndoStackName = Literal["undo", "redo"]


class StoreError(IpuaroError):
    """A store operation failed. The message names what failed and what to do."""


class StoreUnavailable(StoreError):
    """The backend cannot be reached or opened."""


class SchemaMismatch(StoreError):
    """The stored data was written by another schema version."""


class CorruptRecord(StoreError):
    """A stored value could not be decoded."""


@dataclass
class IndexBatch:
    """Writes applied all-or-nothing: deletes first (a deleted path leaves every table),
    then upserts. ``file_indexes`` replaces the path's previous contribution entirely."""

    files: dict[str, FileData] = field(default_factory=dict)
    asts: dict[str, FileAST] = field(default_factory=dict)
    metas: dict[str, FileMeta] = field(default_factory=dict)
    file_indexes: dict[str, FileIndexes] = field(default_factory=dict)
    project_indexes: dict[str, Any] = field(default_factory=dict)
    deletes: set[str] = field(default_factory=set)

    def is_empty(self) -> bool:
        return not (
            self.files
            or self.asts
            or self.metas
            or self.file_indexes
            or self.project_indexes
            or self.deletes
        )


@runtime_checkable
class Store(Protocol):
    """One project's persistent state. Paths are project-relative POSIX strings."""

    project_name: str

    def close(self) -> None: ...

    # --- files, ASTs, metas -------------------------------------------------------------
    def get_file(self, path: str) -> FileData | None: ...
    def get_files(self, paths: Iterable[str]) -> dict[str, FileData]: ...
    def file_hashes(self) -> dict[str, str]:
        """Every stored path with its content hash (what incremental re-index compares)."""
        ...

    def files_containing(
        self, paths: Sequence[str], text: str, *, case_sensitive: bool
    ) -> list[str]:
        """The paths among ``paths`` (in their order) whose stored content *may* hold ``text``
        (matched as ``re.escape(text)`` with ``re.IGNORECASE`` unless ``case_sensitive``): a
        superset the caller still checks, found without decoding every record."""
        ...

    def get_ast(self, path: str) -> FileAST | None: ...
    def get_asts(self, paths: Iterable[str] | None = None) -> dict[str, FileAST]:
        """The given paths' ASTs, or every AST when ``paths`` is None."""
        ...

    def get_meta(self, path: str) -> FileMeta | None: ...
    def get_metas(self, paths: Iterable[str] | None = None) -> dict[str, FileMeta]: ...

    def apply_batch(self, batch: IndexBatch) -> None:
        """Apply every write in ``batch`` in one transaction (SQLite) / MULTI pipeline (Redis)."""
        ...

    def clear_project(self) -> None:
        """Drop every file, AST, meta and index of the project (sessions are kept)."""
        ...

    # --- project-wide indexes (results sorted by path, then line) ------------------------
    def find_definitions(self, name: str) -> list[SymbolDef]: ...
    def find_references(self, name: str, path: str | None = None) -> list[Reference]:
        """Occurrences of ``name``; ``path`` limits to that file or folder prefix."""
        ...

    def get_file_indexes(self, path: str) -> FileIndexes | None: ...
    def find_calls(
        self, callee: str | None = None, caller: str | None = None
    ) -> list[CallEdge]: ...
    def symbol_names(self) -> list[str]: ...
    def get_project_index(self, name: str) -> Any | None: ...

    # --- language-server answers (a cache: ipuaro.index.lsp) ------------------------------
    def get_server_answer(self, key: str) -> str | None:
        """The answer cached under ``key`` (JSON text), or None."""
        ...

    def put_server_answer(self, key: str, name: str, paths: Collection[str], answer: str) -> None:
        """Cache ``answer`` under ``key``: a question about identifier ``name`` whose answer
        involves ``paths`` (the file asked about and every file in the answer)."""
        ...

    def drop_server_answers(self, paths: Collection[str] = (), names: Collection[str] = ()) -> int:
        """Drop the answers involving any of ``paths`` or asked about any of ``names``
        (``clear_project`` drops them all); returns how many went."""
        ...

    # --- project config -----------------------------------------------------------------
    def get_config(self, key: ConfigKey) -> Any | None: ...
    def set_config(self, key: ConfigKey, value: Any) -> None: ...

    # --- sessions -----------------------------------------------------------------------
    def save_session(self, session: Session) -> None:
        """Insert or replace; the id is added to the session list (most recent last)."""
        ...

    def load_session(self, session_id: str) -> Session | None: ...
    def list_sessions(self) -> list[str]:
        """Session ids of this project in last-saved order: the most recently saved is last."""
        ...

    def delete_session(self, session_id: str) -> bool: ...

    def push_undo(
        self, session_id: str, entry: UndoEntry, limit: int, stack: UndoStackName = "undo"
    ) -> None:
        """Push onto the stack, dropping the oldest entries beyond ``limit``."""
        ...

    def pop_undo(self, session_id: str, stack: UndoStackName = "undo") -> UndoEntry | None: ...
    def list_undo(self, session_id: str, stack: UndoStackName = "undo") -> list[UndoEntry]:
        """Oldest first; the last item is what ``pop_undo`` returns."""
        ...

    def clear_undo(self, session_id: str, stack: UndoStackName = "undo") -> None: ...

    def settle_undo(
        self, session_id: str, confirmed: Collection[str], dropped: Collection[str] = ()
    ) -> None:
        """On the undo stack: entries whose id is in ``confirmed`` lose their ``pending``
        mark, entries whose id is in ``dropped`` leave the stack; in one transaction."""
        ...

    def append_input_history(self, session_id: str, text: str, limit: int = 1000) -> None: ...
    def get_input_history(self, session_id: str) -> list[str]: ...


def batch_from_mapping(files: Mapping[str, FileData]) -> IndexBatch:
    """Convenience for tests and tools: a batch that only writes files."""
    return IndexBatch(files=dict(files))
