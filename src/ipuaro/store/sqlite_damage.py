"""Damage that SQLite's own check does not see, and damage that stops SQLite opening a file.

``quick_check`` proves the pages are well formed, not that what is in them decodes: one flipped
byte in a session's JSON (text that is no longer UTF-8, or no longer JSON) passes it.
:func:`damaged_sessions` reads every session row on its own, so ``doctor`` can name the bad
ones and ``rebuild`` can tell that the file needs salvaging.

A damaged 100-byte file header ("file is not a database") makes every page unreachable,
though the pages themselves are intact. :func:`repaired_copy` writes a copy of the file with
a fresh header (the page size read from the old one when it is plausible, else found by
trying each size SQLite allows) for the salvage to read; the damaged file is never changed.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from ipuaro.domain import Session

HEADER = 100
"""Bytes of SQLite's file header."""
PAGE_SIZES = (4096, 1024, 2048, 8192, 16384, 32768, 65536, 512)
"""Every page size SQLite allows, the default first."""


@dataclass(frozen=True)
class DamagedSession:
    session_id: str
    problem: str


def first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else text
    return line[:200]


def read_only(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{quote(str(path))}?mode=ro", uri=True, timeout=2)


def rows_by_rowid(
    conn: sqlite3.Connection, select: str, table: str
) -> tuple[list[tuple[object, ...]], list[str]]:
    """Every readable row of ``SELECT rowid, {select} FROM {table}``: forwards by rowid until a
    read fails, then backwards from the far end until a read fails or the rows meet. Returns
    the rows (rowid first, in rowid order) and the read errors met. No WHERE clause on
    purpose: the scan must walk the table's own B-tree, never an index that leads into the
    damaged page from anywhere."""
    rows: dict[object, tuple[object, ...]] = {}
    errors: list[str] = []
    for order in ("ASC", "DESC"):
        failures = len(errors)
        sql = f"SELECT rowid, {select} FROM {table} ORDER BY rowid {order}"
        for row in _scan(conn, sql, errors):
            if row[0] in rows:
                break
            rows[row[0]] = row
        if len(errors) == failures:
            break  # this pass read the whole table
    return [rows[key] for key in sorted(rows, key=lambda k: int(str(k)))], errors


def _scan(conn: sqlite3.Connection, sql: str, errors: list[str]) -> Iterator[tuple[object, ...]]:
    try:
        cursor = conn.execute(sql)
        while (row := cursor.fetchone()) is not None:
            yield tuple(row)
    except sqlite3.DatabaseError as err:
        errors.append(str(err))


def session_problem(raw: object) -> str | None:
    """Why a stored session's JSON (read as bytes) is unusable, or None."""
    if not isinstance(raw, bytes):
        return "the record is not text"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        return f"its text is not UTF-8 (byte {err.start})"
    try:
        Session.model_validate_json(text)
    except ValueError as err:
        return f"it does not decode ({first_line(str(err))})"
    return None


def damaged_sessions(conn: sqlite3.Connection) -> list[DamagedSession]:
    """The sessions of the store on ``conn`` that cannot be read; a session row in a damaged
    page is reported as ``?`` (its id cannot be read either)."""
    table = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sessions'"
    if conn.execute(table).fetchone() is None:
        return []  # not an ipuaro store (yet): nothing of ours to be damaged
    rows, errors = rows_by_rowid(conn, "id, CAST(json AS BLOB)", "sessions")
    found: list[DamagedSession] = []
    for _, session_id, raw in rows:
        problem = session_problem(raw)
        if problem is not None:
            found.append(DamagedSession(str(session_id), problem))
    found += [DamagedSession("?", f"a page of the sessions table: {error}") for error in errors]
    return found


def damaged_sessions_in(path: Path) -> list[DamagedSession]:
    """:func:`damaged_sessions` of the file at ``path`` (read-only); a file that cannot be
    read at all is ``quick_check``'s to report, so it gives an empty list here."""
    try:
        conn = read_only(path)
    except sqlite3.Error:
        return []
    try:
        return damaged_sessions(conn)
    except sqlite3.Error:
        return []
    finally:
        conn.close()


def schema_readable(path: Path) -> bool:
    """Whether SQLite can open ``path`` and read its schema (the header and page 1 are sound)."""
    try:
        conn = read_only(path)
    except sqlite3.Error:
        return False
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return True
    except sqlite3.Error:
        return False
    finally:
        conn.close()


def _stored_page_size(header: bytes) -> int | None:
    value = int.from_bytes(header[16:18], "big")
    size = 65536 if value == 1 else value
    return size if size in PAGE_SIZES else None


def _fresh_header(page_size: int, pages: int, wal: bool, workdir: Path) -> bytes:
    """The header SQLite writes for an empty database of ``page_size``, sized to ``pages``."""
    template = workdir / "template.db"
    template.unlink(missing_ok=True)
    conn = sqlite3.connect(template)
    try:
        conn.execute(f"PRAGMA page_size = {page_size}")
        conn.execute("CREATE TABLE t (x)")
        conn.commit()
    finally:
        conn.close()
    header = bytearray(template.read_bytes()[:HEADER])
    template.unlink()
    header[18:20] = b"\x02\x02" if wal else b"\x01\x01"
    header[28:32] = pages.to_bytes(4, "big")
    header[32:40] = bytes(8)  # no freelist: nothing is written to the copy
    header[92:96] = header[24:28]  # the size above is valid for this change counter
    return bytes(header)


def repaired_copy(damaged: Path, workdir: Path) -> Path | None:
    """A copy of ``damaged`` under ``workdir`` whose header is rebuilt, when the header is what
    stops SQLite reading the file; None when no page size makes the schema readable."""
    data = damaged.read_bytes()
    if len(data) < 2 * 512:
        return None
    wal = damaged.with_name(damaged.name + "-wal")
    stored = _stored_page_size(data[:HEADER])
    sizes = [stored] if stored is not None else []
    sizes += [size for size in PAGE_SIZES if size != stored]
    copy = workdir / "header-repaired.db"
    for size in sizes:
        if len(data) % size:
            continue
        copy.with_name(copy.name + "-wal").unlink(missing_ok=True)
        copy.with_name(copy.name + "-shm").unlink(missing_ok=True)
        header = _fresh_header(size, len(data) // size, wal.exists(), workdir)
        copy.write_bytes(header + data[HEADER:])
        if wal.exists():
            shutil.copyfile(wal, copy.with_name(copy.name + "-wal"))
        if schema_readable(copy):
            return copy
    return None
