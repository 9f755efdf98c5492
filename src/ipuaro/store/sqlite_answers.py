"""Language-server answers in the SQLite store: a cache, never the truth.

``server_answers`` holds one answer per key (the question: method, file, position and the
file's content hash; see :mod:`ipuaro.index.lsp.cache`), with the identifier asked about;
``server_answer_paths`` lists the files each answer involves, so a changed file drops the
answers that mention it. Both tables are created when missing, so a store written before
they existed opens as it is (no schema version change: an older ipuaro ignores them).
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

    def get_server_answer(self, key: str) -> str | None:
        with self._read("reading a language-server answer") as conn:
            row = conn.execute("SELECT json FROM server_answers WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def put_server_answer(self, key: str, name: str, paths: Collection[str], answer: str) -> None:
        with self._write("caching a language-server answer") as conn:
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
            keys = _keys_for(conn, "server_answer_paths", "path", paths)
            keys |= _keys_for(conn, "server_answers", "name", names)
            for key in keys:
                conn.execute("DELETE FROM server_answers WHERE key = ?", (key,))
                conn.execute("DELETE FROM server_answer_paths WHERE key = ?", (key,))
        return len(keys)

    def _clear_server_answers(self, conn: sqlite3.Connection) -> None:
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
