"""Language-server answers in the SQLite store: a cache, never the truth.

``server_answers`` holds one answer per key (the question: method, file, position and the
file's content hash; see :mod:`ipuaro.index.lsp.cache`), with the identifier asked about;
``server_answer_paths`` lists the files each answer involves, so a changed file drops the
answers that mention it. Both tables are created by the first answer cached, so a store
written before they existed opens as it is, and one that never caches keeps its layout (no
schema version change: an older ipuaro ignores them).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Collection
from contextlib import AbstractContextManager

ANSWER_TABLES = (
    "CREATE TABLE IF NOT EXISTS server_answers (key TEXT PRIMARY KEY, name TEXT NOT NULL,"
    " json TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS server_answers_name ON server_answers (name)",
    "CREATE TABLE IF NOT EXISTS server_answer_paths (key TEXT NOT NULL, path TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS server_answer_paths_path ON server_answer_paths (path)",
    "CREATE INDEX IF NOT EXISTS server_answer_paths_key ON server_answer_paths (key)",
)


class SqliteServerAnswers:
    """Mixed into :class:`~ipuaro.store.sqlite.SqliteStore` (which sets these)."""

    _read: Callable[[str], AbstractContextManager[sqlite3.Connection]]
    _write: Callable[[str], AbstractContextManager[sqlite3.Connection]]

    _answer_tables: bool | None = None
    """Known to exist (True), or not yet looked at (None)."""

    def _answers_exist(self, conn: sqlite3.Connection) -> bool:
        if not self._answer_tables:
            found = conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'server_answers'"
            ).fetchone()
            self._answer_tables = found is not None or None
        return bool(self._answer_tables)

    def get_server_answer(self, key: str) -> str | None:
        with self._read("reading a language-server answer") as conn:
            if not self._answers_exist(conn):
                return None
            row = conn.execute("SELECT json FROM server_answers WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def put_server_answer(self, key: str, name: str, paths: Collection[str], answer: str) -> None:
        with self._write("caching a language-server answer") as conn:
            if not self._answers_exist(conn):
                for statement in ANSWER_TABLES:
                    conn.execute(statement)
                self._answer_tables = True
            conn.execute("DELETE FROM server_answer_paths WHERE key = ?", (key,))
            conn.execute(
                "INSERT OR REPLACE INTO server_answers (key, name, json) VALUES (?, ?, ?)",
                (key, name, answer),
            )
            conn.executemany(
                "INSERT INTO server_answer_paths (key, path) VALUES (?, ?)",
                [(key, path) for path in sorted(set(paths))],
            )

    def drop_server_answers(self, paths: Collection[str] = (), names: Collection[str] = ()) -> int:
        with self._write("dropping language-server answers") as conn:
            if not self._answers_exist(conn):
                return 0
            keys = _keys_for(conn, "server_answer_paths", "path", paths)
            keys |= _keys_for(conn, "server_answers", "name", names)
            for key in keys:
                conn.execute("DELETE FROM server_answers WHERE key = ?", (key,))
                conn.execute("DELETE FROM server_answer_paths WHERE key = ?", (key,))
        return len(keys)

    def _clear_server_answers(self, conn: sqlite3.Connection) -> None:
        if not self._answers_exist(conn):
            return
        conn.execute("DELETE FROM server_answers")
        conn.execute("DELETE FROM server_answer_paths")


def _keys_for(
    conn: sqlite3.Connection, table: str, column: str, values: Collection[str]
) -> set[str]:
    found: set[str] = set()
    listed = sorted(set(values))
    for start in range(0, len(listed), 500):  # SQLite's bound-parameter limit
        chunk = listed[start : start + 500]
        marks = ",".join("?" * len(chunk))
        found.update(
            row[0]
            for row in conn.execute(f"SELECT key FROM {table} WHERE {column} IN ({marks})", chunk)
        )
    return found
