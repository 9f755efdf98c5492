"""Writing the row indexes (``symbols``, ``ref_groups``, ``calls``) of the SQLite store, fast.

A first index of a large project writes about a million references. They are stored one row
per (file, name), positions packed into a blob (~150K rows on Django instead of ~800K), and
during a full index the row tables have no indexes at all: ``SqliteStore.clear_project`` drops
them and the run's last batch builds each once, by sorting. Otherwise, when a batch churns more
rows than a table keeps, that table's indexes are dropped and rebuilt after the writes (one
sort instead of many random B-tree updates). Small batches (the watcher's one file) use the
indexes as they are.
"""

from __future__ import annotations

import sqlite3
import sys
from array import array
from collections.abc import Iterable
from itertools import chain
from typing import Any

from ipuaro.domain import FileIndexes
from ipuaro.store.sqlite_schema import index_name, row_indexes_present

BULK_ROWS = 20_000
"""Below this many rows added plus removed, a table's indexes are always kept."""

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
    # Rows exist only for paths with an ``indexed`` row: when none of these paths has one (a
    # full index writing new files), there is nothing to delete and no table needs scanning.
    had_rows = conn.execute(
        f"INSERT INTO temp.gone_ids SELECT id FROM indexed WHERE {_GONE_PATHS}"
    ).rowcount
    conn.execute("DELETE FROM indexed WHERE id IN (SELECT id FROM temp.gone_ids)")
    # Ids numbered here in one statement (this transaction holds the write lock) instead of
    # one INSERT per file for its lastrowid.
    first = int(conn.execute("SELECT coalesce(max(id), 0) + 1 FROM indexed").fetchone()[0])
    file_ids = {path: first + offset for offset, path in enumerate(added)}
    conn.executemany(
        "INSERT INTO indexed (id, path) VALUES (?, ?)", ((i, p) for p, i in file_ids.items())
    )
    items = added.items()
    _replace_rows(
        conn,
        "symbols",
        _GONE_PATHS if had_rows else None,
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
        _GONE_PATHS if had_rows else None,
        sum(len(fi.calls) for fi in added.values()),
        "INSERT INTO calls (path, caller, callee, line, resolved) VALUES (?, ?, ?, ?, ?)",
        ((path, c.caller, c.callee, c.line, c.resolved) for path, fi in items for c in fi.calls),
    )
    _replace_rows(
        conn,
        "ref_groups",
        _GONE_IDS if had_rows else None,
        sum(len(fi.reference_table) + len(fi.references) for fi in added.values()),
        "INSERT INTO ref_groups (name, file_id, positions) VALUES (?, ?, ?)",
        (
            (name, file_ids[path], pack_positions(positions))
            for path, fi in items
            for name, positions in fi.reference_groups()
        ),
    )


def pack_positions(positions: list[int]) -> bytes:
    """``[line, column, ...]`` as little-endian unsigned 32-bit integers."""
    packed = array("I", positions)
    if _BIG_ENDIAN:
        packed.byteswap()
    return packed.tobytes()


def unpack_positions(blob: bytes) -> list[int]:
    packed = array("I")
    packed.frombytes(blob)
    if _BIG_ENDIAN:
        packed.byteswap()
    return packed.tolist()


_BIG_ENDIAN = sys.byteorder == "big"


def _replace_rows(
    conn: sqlite3.Connection,
    table: str,
    gone: str | None,
    adding: int,
    insert: str,
    rows: Iterable[Any],
) -> None:
    """Delete the rows matching ``gone`` (None: none can match), insert ``rows``.

    Only indexes that exist are dropped and recreated: during a full index they are all
    absent (``SqliteStore.clear_project`` drops them, the batch completing the index creates
    them once)."""
    removing = 0
    if gone is not None:
        removing = int(conn.execute(f"SELECT count(*) FROM {table} WHERE {gone}").fetchone()[0])
    churn = adding + removing
    bulk: list[str] = []
    if churn >= BULK_ROWS:  # only then is counting the whole table worth it
        kept = int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]) - removing
        if churn > kept:
            bulk = row_indexes_present(conn, table)
    for statement in bulk:
        conn.execute("DROP INDEX " + index_name(statement))
    if removing:
        conn.execute(f"DELETE FROM {table} WHERE {gone}")
    if adding:
        conn.executemany(insert, rows)
    for statement in bulk:
        conn.execute(statement)
