"""Writing the row indexes (``symbols``, ``refs``, ``calls``) of the SQLite store, fast.

A first index of a large project writes about a million reference rows in one transaction.
Two things keep that to seconds: tuples are assembled by C iterators (zip/map/attrgetter, no
Python bytecode per row), and when a batch churns more rows than the table keeps, the table's
indexes are dropped and rebuilt after the writes (one sort instead of a million random B-tree
updates, about twice as fast). Small batches (the watcher's one file) use the indexes as is.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from itertools import chain, repeat
from operator import attrgetter
from typing import Any

from ipuaro.domain import FileIndexes
from ipuaro.store.sqlite_schema import ROW_INDEXES

BULK_ROWS = 20_000
"""Below this many rows added plus removed, a table's indexes are always kept."""

_ref_name = attrgetter("name")
_ref_line = attrgetter("line")
_ref_column = attrgetter("column")

_GONE_PATHS = "path IN (SELECT path FROM temp.gone_paths)"
_GONE_IDS = "file_id IN (SELECT id FROM temp.gone_ids)"


def replace_contributions(
    conn: sqlite3.Connection, removed: Iterable[str], added: dict[str, FileIndexes]
) -> None:
    """Every path in ``removed`` or ``added`` loses its rows; ``added`` then writes its own.

    Rows carry the owning path (the batch key), not an entry's own path field: the key is
    what a later replace or delete of that file removes. Runs inside the caller's transaction.
    """
    paths = list(dict.fromkeys(chain(removed, added)))
    if not paths:
        return
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS gone_paths (path TEXT PRIMARY KEY)")
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS gone_ids (id INTEGER PRIMARY KEY)")
    conn.execute("DELETE FROM temp.gone_paths")
    conn.execute("DELETE FROM temp.gone_ids")
    conn.executemany("INSERT OR IGNORE INTO temp.gone_paths VALUES (?)", ((p,) for p in paths))
    conn.execute(f"INSERT INTO temp.gone_ids SELECT id FROM indexed WHERE {_GONE_PATHS}")
    conn.execute("DELETE FROM indexed WHERE id IN (SELECT id FROM temp.gone_ids)")
    file_ids = {
        path: conn.execute("INSERT INTO indexed (path) VALUES (?)", (path,)).lastrowid
        for path in added
    }
    items = added.items()
    _replace_rows(
        conn,
        "symbols",
        _GONE_PATHS,
        sum(len(fi.symbols) for fi in added.values()),
        "INSERT INTO symbols (name, path, line, kind, line_end, container) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (
            (s.name, path, s.line, s.kind, s.line_end, s.container)
            for path, fi in items
            for s in fi.symbols
        ),
    )
    _replace_rows(
        conn,
        "calls",
        _GONE_PATHS,
        sum(len(fi.calls) for fi in added.values()),
        "INSERT INTO calls (path, caller, callee, line, resolved) VALUES (?, ?, ?, ?, ?)",
        ((path, c.caller, c.callee, c.line, c.resolved) for path, fi in items for c in fi.calls),
    )
    _replace_rows(
        conn,
        "refs",
        _GONE_IDS,
        sum(len(fi.references) for fi in added.values()),
        "INSERT INTO refs (name, file_id, line, col) VALUES (?, ?, ?, ?)",
        chain.from_iterable(
            zip(
                map(_ref_name, fi.references),
                repeat(file_ids[path]),
                map(_ref_line, fi.references),
                map(_ref_column, fi.references),
            )
            for path, fi in items
        ),
    )


def _replace_rows(
    conn: sqlite3.Connection,
    table: str,
    gone: str,
    adding: int,
    insert: str,
    rows: Iterable[Any],
) -> None:
    removing = int(conn.execute(f"SELECT count(*) FROM {table} WHERE {gone}").fetchone()[0])
    churn = adding + removing
    bulk = False
    if churn >= BULK_ROWS:  # only then is counting the whole table worth it
        kept = int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]) - removing
        bulk = churn > kept
    if bulk:
        for statement in ROW_INDEXES[table]:
            conn.execute("DROP INDEX " + statement.split()[2])
    if removing:
        conn.execute(f"DELETE FROM {table} WHERE {gone}")
    if adding:
        conn.executemany(insert, rows)
    if bulk:
        for statement in ROW_INDEXES[table]:
            conn.execute(statement)
