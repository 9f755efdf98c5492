"""The default store: one SQLite database per project, in WAL mode (tables: sqlite_schema).

Concurrency: one connection per ``SqliteStore``, opened with ``check_same_thread=False`` and
guarded by a re-entrant lock, so the agent's worker threads may share the store object; every
call holds the lock for its whole duration. Across processes (an indexer and a running session
on the same project) SQLite's own locking applies: writes take ``BEGIN IMMEDIATE`` and wait up
to ``sqlite_schema.BUSY_TIMEOUT_S`` for each other, readers never block thanks to WAL.

Layout: ``files``/``asts``/``metas`` hold one JSON document per path (the domain models'
camelCase JSON); the project-wide indexes are plain rows (``symbols``, ``ref_groups``, ``calls``) so
look-ups by name or path use SQL indexes. Sessions, undo/redo and input history (what the user
made, never rebuilt) live in ``sqlite_sessions``; damage in ``sqlite_repair``/``sqlite_damage``.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from ipuaro.domain import (
    CallEdge,
    FileAST,
    FileData,
    FileIndexes,
    FileMeta,
    Reference,
    SymbolDef,
)
from ipuaro.store.protocol import (
    ConfigKey,
    CorruptRecord,
    IndexBatch,
    StoreError,
)
from ipuaro.store.shared import (
    encode_json,
    files_containing,
    first_line,
    folder_of,
    path_range,
)
from ipuaro.store.sqlite_answers import SqliteServerAnswers
from ipuaro.store.sqlite_damage import damaged_sessions_in
from ipuaro.store.sqlite_repair import (
    REPAIR_HINT,
    Integrity,
    SalvageReport,
    check_integrity,
    is_damage,
    move_aside_damaged,
    salvage,
)
from ipuaro.store.sqlite_rows import replace_contributions, unpack_positions
from ipuaro.store.sqlite_schema import (
    create_row_indexes,
    drop_row_indexes,
    locked,
    move_aside,
    open_database,
)
from ipuaro.store.sqlite_sessions import SqliteSessions

_PATH_TABLES = ("files", "asts", "metas", "symbols", "calls")
"""Tables keyed by path text (``ref_groups`` is keyed by ``indexed.id``)."""

M = TypeVar("M", bound=BaseModel)


def _position(reference: Reference) -> tuple[int, int]:
    return reference.line, reference.column


class SqliteStore(SqliteSessions, SqliteServerAnswers):
    """The :class:`~ipuaro.store.protocol.Store` protocol on one SQLite file."""

    def __init__(self, path: Path, project_name: str) -> None:
        self.path = Path(path)
        self.project_name = project_name
        self.notices: list[str] = []
        """What the user should be told once (a store taken over from its old name, a damaged
        file repaired by ``rebuild``)."""
        self._lock = threading.RLock()
        self._conn = open_database(self.path, project_name)
        self.salvage: SalvageReport | None = None

    @classmethod
    def rebuild(cls, path: Path, project_name: str) -> SqliteStore:
        """Start the project's index afresh (``ipuaro index --rebuild``).

        A sound database keeps its sessions, undo stacks and input history (as the Redis
        store does) and loses only the index. A damaged one (SQLite's quick check fails, or
        clearing the index meets a malformed page) is moved aside to ``{path}.corrupt-{time}``
        and what is not derived is salvaged into a fresh file (see ``sqlite_repair``); the
        report is in ``notices``. One that is not an ipuaro store of this schema is moved to
        ``{path}.bak``."""
        path = Path(path)
        integrity = check_integrity(path) if path.is_file() else Integrity()
        if integrity.damaged:
            return cls._recover(path, project_name, integrity.problems[0])
        # Sound pages can still hold a session that does not decode (one flipped byte in its
        # text): salvage the others into a fresh file rather than keep the bad row.
        bad = damaged_sessions_in(path) if path.is_file() else []
        if bad:
            return cls._recover(
                path, project_name, f"session {bad[0].session_id}: {bad[0].problem}"
            )
        try:
            store = cls(path, project_name)
        except StoreError as err:
            if isinstance(err.__cause__, sqlite3.Error) and is_damage(err.__cause__):
                return cls._recover(path, project_name, str(err.__cause__))
            move_aside(path)
            return cls(path, project_name)
        try:
            store.clear_project()
        except StoreError as err:
            store.close()
            if isinstance(err.__cause__, sqlite3.Error) and is_damage(err.__cause__):
                return cls._recover(path, project_name, str(err.__cause__))
            raise
        except BaseException:
            store.close()
            raise
        return store

    @classmethod
    def _recover(cls, path: Path, project_name: str, problem: str) -> SqliteStore:
        aside = move_aside_damaged(path)
        store = cls(path, project_name)
        try:
            with store._lock:
                tables = salvage(aside, store._conn)
        except BaseException:
            store.close()
            raise
        store.salvage = SalvageReport(path, aside, problem, tables)
        store.notices.append(store.salvage.describe())
        return store

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    # --- plumbing -------------------------------------------------------------------------
    def _failure(self, err: sqlite3.Error, action: str) -> StoreError:
        if isinstance(err, sqlite3.OperationalError) and "locked" in str(err):
            return locked(self.path, action)
        if "Could not decode to UTF-8" in str(err):
            return CorruptRecord(
                f"SQLite store {self.path} failed while {action}: a stored text is not UTF-8 "
                f"({first_line(err)}); {REPAIR_HINT}"
            )
        if is_damage(err):
            return StoreError(
                f"SQLite store {self.path} failed while {action}: {err}; {REPAIR_HINT}"
            )
        return StoreError(f"SQLite store {self.path} failed while {action}: {err}")

    @contextmanager
    def _write(self, action: str) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                self._conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as err:
                raise self._failure(err, action) from err
            try:
                yield self._conn
                self._conn.execute("COMMIT")
            except sqlite3.Error as err:
                self._rollback()
                raise self._failure(err, action) from err
            except BaseException:
                self._rollback()
                raise

    def _rollback(self) -> None:
        if self._conn.in_transaction:
            self._conn.execute("ROLLBACK")

    @contextmanager
    def _read(self, action: str) -> Iterator[sqlite3.Connection]:
        """A read snapshot: several SELECTs see one consistent state."""
        with self._lock:
            try:
                self._conn.execute("BEGIN")
                try:
                    yield self._conn
                finally:
                    self._rollback()
            except sqlite3.Error as err:
                raise self._failure(err, action) from err

    def _get_one(self, model: type[M], table: str, path: str) -> M | None:
        with self._read(f"reading {table}") as conn:
            row = conn.execute(f"SELECT json FROM {table} WHERE path = ?", (path,)).fetchone()
        return None if row is None else self._decode(model, row[0], table, path)

    def _get_many(self, model: type[M], table: str, paths: Iterable[str] | None) -> dict[str, M]:
        with self._read(f"reading {table}") as conn:
            if paths is None:
                rows = conn.execute(f"SELECT path, json FROM {table} ORDER BY path").fetchall()
            else:
                wanted = list(dict.fromkeys(paths))
                rows = []
                for start in range(0, len(wanted), 500):  # stay under SQLite's variable limit
                    chunk = wanted[start : start + 500]
                    marks = ",".join("?" * len(chunk))
                    rows += conn.execute(
                        f"SELECT path, json FROM {table} WHERE path IN ({marks})", chunk
                    ).fetchall()
        return {path: self._decode(model, text, table, path) for path, text in rows}

    # --- files, ASTs, metas ---------------------------------------------------------------
    def get_file(self, path: str) -> FileData | None:
        return self._get_one(FileData, "files", path)

    def get_files(self, paths: Iterable[str]) -> dict[str, FileData]:
        return self._get_many(FileData, "files", paths)

    def files_containing(
        self, paths: Sequence[str], text: str, *, case_sensitive: bool
    ) -> list[str]:
        return files_containing(paths, text, case_sensitive, self._raw_files)

    def _raw_files(self, paths: list[str]) -> list[tuple[str, str | None]]:
        # Every record in one pass: SQL's instr/LIKE fold ASCII only, and a clause per Unicode
        # case-fold costs a scan each; the test in Python is faster and exact.
        with self._read("searching file contents") as conn:
            return conn.execute("SELECT path, json FROM files").fetchall()

    def file_hashes(self) -> dict[str, str]:
        with self._read("reading file hashes") as conn:
            return dict(conn.execute("SELECT path, hash FROM files").fetchall())

    def get_ast(self, path: str) -> FileAST | None:
        return self._get_one(FileAST, "asts", path)

    def get_asts(self, paths: Iterable[str] | None = None) -> dict[str, FileAST]:
        return self._get_many(FileAST, "asts", paths)

    def get_meta(self, path: str) -> FileMeta | None:
        return self._get_one(FileMeta, "metas", path)

    def get_metas(self, paths: Iterable[str] | None = None) -> dict[str, FileMeta]:
        return self._get_many(FileMeta, "metas", paths)

    def apply_batch(self, batch: IndexBatch) -> None:
        if batch.is_empty():
            return
        # Serialise before taking the write lock: other processes wait only for SQLite work.
        files = [(path, data.hash, data.to_json()) for path, data in batch.files.items()]
        documents = {
            "asts": [(path, ast.to_json()) for path, ast in batch.asts.items()],
            "metas": [(path, meta.to_json()) for path, meta in batch.metas.items()],
            "project_indexes": [
                (name, encode_json(value, f"project index {name!r}"))
                for name, value in batch.project_indexes.items()
            ],
        }
        gone = [(path,) for path in batch.deletes]
        with self._write("applying an index batch") as conn:
            for table in ("files", "asts", "metas"):
                conn.executemany(f"DELETE FROM {table} WHERE path = ?", gone)
            replace_contributions(conn, batch.deletes, batch.file_indexes)
            conn.executemany(
                "INSERT OR REPLACE INTO files (path, hash, json) VALUES (?, ?, ?)", files
            )
            conn.executemany(
                "INSERT OR REPLACE INTO asts (path, json) VALUES (?, ?)", documents["asts"]
            )
            conn.executemany(
                "INSERT OR REPLACE INTO metas (path, json) VALUES (?, ?)", documents["metas"]
            )
            conn.executemany(
                "INSERT OR REPLACE INTO project_indexes (name, json) VALUES (?, ?)",
                documents["project_indexes"],
            )
            if "deps_graph" in batch.project_indexes:
                # The last batch of an index run (an interrupted run's "incomplete" mark
                # writes only stats): row indexes a full index went without (see
                # clear_project) are built now, once each, by sorting.
                create_row_indexes(conn)

    def clear_project(self) -> None:
        """Empty the index. A full index follows: the row tables lose their indexes until a
        batch writes ``deps_graph`` (the last batch of a run), so the rows on their way in are
        not sorted into B-trees one at a time. Look-ups meanwhile scan, and stay correct."""
        with self._write("clearing the project index") as conn:
            for table in (*_PATH_TABLES, "ref_groups", "indexed", "project_indexes"):
                conn.execute(f"DELETE FROM {table}")
            self._clear_server_answers(conn)
            drop_row_indexes(conn)

    # --- project-wide indexes -------------------------------------------------------------
    def _symbols(self, rows: Iterable[tuple[Any, ...]]) -> list[SymbolDef]:
        try:
            return [
                SymbolDef(name=n, path=p, line=ln, kind=k, line_end=le, container=c)
                for n, p, ln, k, le, c in rows
            ]
        except ValueError as err:
            raise CorruptRecord(self._corrupt_message("symbols", "?", err)) from err

    def _references(self, rows: Iterable[tuple[Any, ...]]) -> list[Reference]:
        """Rows of ``(name, path, packed positions)`` -> one Reference per position."""
        try:
            result: list[Reference] = []
            for name, path, blob in rows:
                positions = unpack_positions(blob)
                result += [
                    Reference(name=name, path=path, line=line, column=column)
                    for line, column in zip(positions[::2], positions[1::2], strict=True)
                ]
            return result
        except (ValueError, TypeError) as err:
            raise CorruptRecord(self._corrupt_message("ref_groups", "?", err)) from err

    def _calls(self, rows: Iterable[tuple[Any, ...]]) -> list[CallEdge]:
        try:
            return [
                CallEdge(path=p, caller=cr, callee=ce, line=ln, resolved=rs)
                for p, cr, ce, ln, rs in rows
            ]
        except ValueError as err:
            raise CorruptRecord(self._corrupt_message("calls", "?", err)) from err

    def find_definitions(self, name: str) -> list[SymbolDef]:
        with self._read("finding definitions") as conn:
            rows = conn.execute(
                "SELECT name, path, line, kind, line_end, container FROM symbols "
                "WHERE name = ? ORDER BY path, line",
                (name,),
            ).fetchall()
        return self._symbols(rows)

    def find_references(self, name: str, path: str | None = None) -> list[Reference]:
        sql = (
            "SELECT r.name, i.path, r.positions FROM ref_groups r"
            " JOIN indexed i ON i.id = r.file_id WHERE r.name = ?"
        )
        args: tuple[str, ...] = (name,)
        folder = folder_of(path)
        if folder is not None:
            sql += " AND (i.path = ? OR (i.path >= ? AND i.path < ?))"
            args += path_range(folder)
        with self._read("finding references") as conn:
            rows = conn.execute(sql + " ORDER BY i.path, r.rowid", args).fetchall()
        return self._references(rows)

    def get_file_indexes(self, path: str) -> FileIndexes | None:
        with self._read("reading file indexes") as conn:
            row = conn.execute("SELECT id FROM indexed WHERE path = ?", (path,)).fetchone()
            if row is None:
                return None
            symbols = conn.execute(
                "SELECT name, path, line, kind, line_end, container FROM symbols "
                "WHERE path = ? ORDER BY rowid",
                (path,),
            ).fetchall()
            refs = conn.execute(
                "SELECT name, ?, positions FROM ref_groups WHERE file_id = ? ORDER BY rowid",
                (path, row[0]),
            ).fetchall()
            calls = conn.execute(
                "SELECT path, caller, callee, line, resolved FROM calls "
                "WHERE path = ? ORDER BY rowid",
                (path,),
            ).fetchall()
        return FileIndexes(
            symbols=self._symbols(symbols),
            references=sorted(self._references(refs), key=_position),
            calls=self._calls(calls),
        )

    def find_calls(self, callee: str | None = None, caller: str | None = None) -> list[CallEdge]:
        clauses, args = [], []
        if callee is not None:
            clauses.append("callee = ?")
            args.append(callee)
        if caller is not None:
            clauses.append("caller = ?")
            args.append(caller)
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        with self._read("finding calls") as conn:
            rows = conn.execute(
                "SELECT path, caller, callee, line, resolved FROM calls"
                + where
                + " ORDER BY path, line, caller, callee, rowid",
                args,
            ).fetchall()
        return self._calls(rows)

    def symbol_names(self) -> list[str]:
        with self._read("listing symbol names") as conn:
            return [
                row[0] for row in conn.execute("SELECT DISTINCT name FROM symbols ORDER BY name")
            ]

    def get_project_index(self, name: str) -> Any | None:
        with self._read("reading a project index") as conn:
            row = conn.execute(
                "SELECT json FROM project_indexes WHERE name = ?", (name,)
            ).fetchone()
        return None if row is None else self._json_value(row[0], "project_indexes", name)

    # --- project config -------------------------------------------------------------------
    def get_config(self, key: ConfigKey) -> Any | None:
        with self._read("reading project config") as conn:
            row = conn.execute("SELECT json FROM config WHERE key = ?", (key,)).fetchone()
        return None if row is None else self._json_value(row[0], "config", key)

    def set_config(self, key: ConfigKey, value: Any) -> None:
        text = encode_json(value, f"config key {key!r}")
        with self._write("writing project config") as conn:
            conn.execute("INSERT OR REPLACE INTO config (key, json) VALUES (?, ?)", (key, text))
