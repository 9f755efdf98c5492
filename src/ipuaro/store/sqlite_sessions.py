"""Sessions, undo/redo stacks and input history in the SQLite store, and the record decoding
the whole store shares: the half of :class:`~ipuaro.store.sqlite.SqliteStore` that holds what
the user made (the index is rebuilt from the code; this is not).

Each session is read on its own, as bytes decoded here: a stored text that is not UTF-8, or
not a session, is that session's :class:`CorruptRecord` (naming the fix), never a failure of
every read; a damaged page of the sessions table hides only the sessions on it
(:meth:`SqliteSessions.list_sessions` falls back to a scan from both ends).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Collection
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from ipuaro.domain import Session, UndoEntry
from ipuaro.store.protocol import CorruptRecord, StoreError, UndoStackName
from ipuaro.store.shared import REBUILD_HINT, first_line
from ipuaro.store.sqlite_damage import rows_by_rowid
from ipuaro.store.sqlite_repair import REPAIR_HINT, is_damage

M = TypeVar("M", bound=BaseModel)


class SqliteSessions:
    """Mixed into :class:`~ipuaro.store.sqlite.SqliteStore` (which sets these)."""

    path: Path
    project_name: str
    notices: list[str]
    _lock: threading.RLock
    _conn: sqlite3.Connection
    _read: Callable[[str], AbstractContextManager[sqlite3.Connection]]
    _write: Callable[[str], AbstractContextManager[sqlite3.Connection]]

    # --- decoding stored records -----------------------------------------------------------
    def _decode(self, model: type[M], text: Any, table: str, key: str) -> M:
        try:
            return model.model_validate_json(text)
        except ValueError as err:
            raise CorruptRecord(self._corrupt_message(table, key, err)) from err

    def _corrupt_message(self, table: str, key: str, err: Exception) -> str:
        if table in ("sessions", "undo", "input_history"):
            fix = (
                f"delete the session with `ipuaro sessions delete {key}` (the others are "
                "unaffected)"
            )
        else:
            fix = REBUILD_HINT
        return f"{self.path}: {table}[{key!r}] does not decode ({first_line(err)}); {fix}"

    def _json_value(self, text: str, table: str, key: str) -> Any:
        try:
            return json.loads(text)
        except ValueError as err:
            raise CorruptRecord(self._corrupt_message(table, key, err)) from err

    # --- sessions -------------------------------------------------------------------------
    def save_session(self, session: Session) -> None:
        text = session.to_json()
        with self._write("saving a session") as conn:
            # seq orders list_sessions: the most recently saved session comes last.
            seq = conn.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM sessions").fetchone()[0]
            conn.execute(
                "INSERT OR REPLACE INTO sessions (id, project, created, updated, seq, json) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (
                    session.id,
                    session.project_name,
                    session.created_at,
                    session.last_activity_at,
                    seq,
                    text,
                ),
            )

    def load_session(self, session_id: str) -> Session | None:
        # Bytes, decoded here: a stored text that is not UTF-8 is this session's damage, named
        # as such, not a failure of the whole read.
        with self._read("loading a session") as conn:
            row = conn.execute(
                "SELECT CAST(json AS BLOB) FROM sessions WHERE id = ?", (session_id,)
            ).fetchone()
        if row is None:
            return None
        try:
            text = bytes(row[0]).decode("utf-8")
        except UnicodeDecodeError as err:
            raise CorruptRecord(self._corrupt_message("sessions", session_id, err)) from err
        return self._decode(Session, text, "sessions", session_id)

    def list_sessions(self) -> list[str]:
        try:
            with self._read("listing sessions") as conn:
                rows = conn.execute(
                    "SELECT id FROM sessions WHERE project = ? ORDER BY seq", (self.project_name,)
                ).fetchall()
            return [row[0] for row in rows]
        except StoreError as err:
            cause = err.__cause__
            if not (isinstance(cause, sqlite3.Error) and is_damage(cause)):
                raise
            damage = first_line(cause)
        # A damaged page of the sessions table: list what can be read around it.
        with self._lock:
            # No WHERE: the scan must walk the table's own B-tree, not an index on project.
            found, errors = rows_by_rowid(self._conn, "id, seq, project", "sessions")
        # The scan may read the whole table (a damaged cell count on a leaf page can fail the
        # index read yet not the rowid walk): the index read's own error names the damage then.
        notice = (
            f"some sessions of {self.path} lie in damaged pages "
            f"({errors[0] if errors else damage}); {REPAIR_HINT}"
        )
        if notice not in self.notices:
            self.notices.append(notice)
        # Rows read from a damaged page may hold anything: only well-formed ones are listed.
        mine = [
            (row[2], str(row[1]))
            for row in found
            if row[3] == self.project_name and isinstance(row[2], int) and row[1] is not None
        ]
        return [session_id for _, session_id in sorted(mine)]

    def delete_session(self, session_id: str) -> bool:
        with self._write("deleting a session") as conn:
            deleted = conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,)).rowcount
            conn.execute("DELETE FROM undo WHERE session_id = ?", (session_id,))
            conn.execute("DELETE FROM input_history WHERE session_id = ?", (session_id,))
        return bool(deleted)

    def push_undo(
        self, session_id: str, entry: UndoEntry, limit: int, stack: UndoStackName = "undo"
    ) -> None:
        if limit < 1:
            raise ValueError(f"undo limit must be at least 1, got {limit}")
        text = entry.to_json()
        with self._write("pushing an undo entry") as conn:
            key = (session_id, stack)
            seq = conn.execute(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM undo WHERE session_id = ? AND stack = ?",
                key,
            ).fetchone()[0]
            conn.execute("INSERT INTO undo VALUES (?, ?, ?, ?)", (*key, seq, text))
            conn.execute(
                "DELETE FROM undo WHERE session_id = ? AND stack = ? AND seq <= ?",
                (*key, seq - limit),
            )

    def pop_undo(self, session_id: str, stack: UndoStackName = "undo") -> UndoEntry | None:
        with self._write("popping an undo entry") as conn:
            row = conn.execute(
                "SELECT seq, json FROM undo WHERE session_id = ? AND stack = ? "
                "ORDER BY seq DESC LIMIT 1",
                (session_id, stack),
            ).fetchone()
            if row is None:
                return None
            conn.execute(
                "DELETE FROM undo WHERE session_id = ? AND stack = ? AND seq = ?",
                (session_id, stack, row[0]),
            )
        return self._decode(UndoEntry, row[1], "undo", session_id)

    def list_undo(self, session_id: str, stack: UndoStackName = "undo") -> list[UndoEntry]:
        with self._read("listing undo entries") as conn:
            rows = conn.execute(
                "SELECT json FROM undo WHERE session_id = ? AND stack = ? ORDER BY seq",
                (session_id, stack),
            ).fetchall()
        return [self._decode(UndoEntry, row[0], "undo", session_id) for row in rows]

    def clear_undo(self, session_id: str, stack: UndoStackName = "undo") -> None:
        with self._write("clearing undo entries") as conn:
            conn.execute("DELETE FROM undo WHERE session_id = ? AND stack = ?", (session_id, stack))

    def settle_undo(
        self, session_id: str, confirmed: Collection[str], dropped: Collection[str] = ()
    ) -> None:
        if not confirmed and not dropped:
            return
        with self._write("confirming undo entries") as conn:
            rows = conn.execute(
                "SELECT seq, json_extract(json, '$.id') FROM undo "
                "WHERE session_id = ? AND stack = 'undo'",
                (session_id,),
            ).fetchall()
            for seq, entry_id in rows:
                if entry_id in dropped:
                    conn.execute(
                        "DELETE FROM undo WHERE session_id = ? AND stack = 'undo' AND seq = ?",
                        (session_id, seq),
                    )
                elif entry_id in confirmed:
                    conn.execute(
                        "UPDATE undo SET json = json_set(json, '$.pending', json('null')) "
                        "WHERE session_id = ? AND stack = 'undo' AND seq = ?",
                        (session_id, seq),
                    )

    def append_input_history(self, session_id: str, text: str, limit: int = 1000) -> None:
        if limit < 1:
            raise ValueError(f"input history limit must be at least 1, got {limit}")
        with self._write("saving input history") as conn:
            seq = conn.execute(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM input_history WHERE session_id = ?",
                (session_id,),
            ).fetchone()[0]
            conn.execute("INSERT INTO input_history VALUES (?, ?, ?)", (session_id, seq, text))
            conn.execute(
                "DELETE FROM input_history WHERE session_id = ? AND seq <= ?",
                (session_id, seq - limit),
            )

    def get_input_history(self, session_id: str) -> list[str]:
        with self._read("reading input history") as conn:
            rows = conn.execute(
                "SELECT text FROM input_history WHERE session_id = ? ORDER BY seq", (session_id,)
            ).fetchall()
        return [row[0] for row in rows]
