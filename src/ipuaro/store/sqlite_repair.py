"""A damaged SQLite store: finding the damage (bounded time) and saving what is not derived.

The index is derived from the code and is rebuilt; sessions, undo/redo stacks, input history
and the user's settings are not. :func:`salvage` reads those tables of a damaged file row by
row in key order, forwards until a read fails and then backwards from the far end, so every
row outside the damaged pages is saved; rows that do not decode are skipped. Nothing here
writes to the damaged file: it is moved aside (``{name}.corrupt-{time}``, its WAL with it) and
kept for the user.
"""

from __future__ import annotations

import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ipuaro.domain import Session, UndoEntry
from ipuaro.store.sqlite_damage import read_only, repaired_copy, schema_readable

CHECK_SECONDS = 5.0
"""How long ``quick_check`` may run before the check stops and says it was cut short."""
CHECK_PROBLEMS = 10
"""Problems ``quick_check`` lists at most (the first already says the file is damaged)."""

REPAIR_HINT = (
    "the database file is damaged: run `ipuaro index --rebuild`, which moves it aside (kept as "
    "<name>.corrupt-<time>), saves the sessions, undo history and input history it can still "
    "read, and re-indexes"
)

SAVED_CONFIG_KEYS = ("settings", "whitelist", "root")
"""Config rows the user made; ``last_indexed`` is the index's and goes with it."""


@dataclass
class Integrity:
    problems: list[str] = field(default_factory=list)
    """Empty when the file is sound (as far as the check got)."""
    finished: bool = True
    """False when the time limit stopped the check early."""

    @property
    def damaged(self) -> bool:
        return bool(self.problems)


def check_integrity(path: Path, seconds: float = CHECK_SECONDS) -> Integrity:
    """SQLite's ``quick_check`` of ``path`` (every page and record format; not the cross-check
    of indexes against tables, which costs a full sort), stopped after ``seconds``."""
    try:
        conn = read_only(path)
    except sqlite3.Error as err:
        return Integrity([str(err)])
    deadline = time.monotonic() + seconds
    timed_out = False

    def over_time() -> int:
        nonlocal timed_out
        timed_out = time.monotonic() > deadline
        return 1 if timed_out else 0

    conn.set_progress_handler(over_time, 20_000)
    try:
        rows = conn.execute(f"PRAGMA quick_check({CHECK_PROBLEMS})").fetchall()
    except sqlite3.OperationalError as err:
        if timed_out:
            return Integrity(finished=False)
        if "locked" in str(err) or "busy" in str(err):
            return Integrity()  # in use by another process: the check cannot tell
        return Integrity([str(err)])
    except sqlite3.DatabaseError as err:  # not a database, malformed schema
        return Integrity([str(err)])
    finally:
        conn.close()
    problems = [str(row[0]) for row in rows]
    return Integrity([] if problems == ["ok"] else problems)


def is_damage(err: sqlite3.Error) -> bool:
    """Whether an error means the file is damaged (as opposed to locked, full, unwritable, or
    a connection already closed — ipuaro quitting while a session is still being saved)."""
    not_damage = (sqlite3.OperationalError, sqlite3.ProgrammingError, sqlite3.InterfaceError)
    return isinstance(err, sqlite3.DatabaseError) and not isinstance(err, not_damage)


def move_aside_damaged(path: Path) -> Path:
    """Rename the damaged file (and its WAL, which may hold the last commits) to
    ``{name}.corrupt-{UTC time}``; returns the new path."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    aside = path.with_name(f"{path.name}.corrupt-{stamp}")
    counter = 1
    while aside.exists():
        counter += 1
        aside = path.with_name(f"{path.name}.corrupt-{stamp}-{counter}")
    path.replace(aside)
    wal = path.with_name(path.name + "-wal")
    if wal.exists():
        wal.replace(aside.with_name(aside.name + "-wal"))
    for suffix in ("-shm", "-journal"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)
    return aside


@dataclass
class TableSalvage:
    saved: int = 0
    undecodable: int = 0
    errors: list[str] = field(default_factory=list)
    """Read failures met (damaged pages): rows there are lost."""


@dataclass
class SalvageReport:
    damaged: Path
    moved_to: Path
    problem: str
    tables: dict[str, TableSalvage] = field(default_factory=dict)

    def lost_anything(self) -> bool:
        return any(t.errors or t.undecodable for t in self.tables.values())

    def describe(self) -> str:
        saved = ", ".join(f"{t.saved} {_LABELS[name]}" for name, t in self.tables.items())
        lost = [
            f"{_LABELS[name]}: "
            + ("rows in damaged pages" if t.errors else "")
            + (" and " if t.errors and t.undecodable else "")
            + (f"{t.undecodable} undecodable row(s)" if t.undecodable else "")
            for name, t in self.tables.items()
            if t.errors or t.undecodable
        ]
        text = (
            f"the store {self.damaged} was damaged ({self.problem}); it was moved to "
            f"{self.moved_to} and a fresh one made. Saved: {saved}."
        )
        if lost:
            text += " Lost: " + "; ".join(lost) + "."
        else:
            text += " Nothing of the sessions was lost; the index is rebuilt."
        return text


_TABLES: dict[str, tuple[str, str, str]] = {
    # table: (columns copied as they are, key order of the table's own B-tree, which rows)
    "sessions": ("id, project, created, updated, seq, json", "rowid", ""),
    "undo": ("session_id, stack, seq, json", "session_id, stack, seq", ""),
    "input_history": ("session_id, seq, text", "session_id, seq", ""),
    "config": ("key, json", "rowid", f" WHERE key IN {SAVED_CONFIG_KEYS!r}"),
}
_LABELS = {
    "sessions": "session(s)",
    "undo": "undo/redo entries",
    "input_history": "input history line(s)",
    "config": "setting(s)",
}


def _encodable(value: object) -> bool:
    """Text read with ``surrogateescape`` holds surrogates where the stored bytes were not
    UTF-8: such a value is damaged, and could not be written to the fresh store anyway."""
    if not isinstance(value, str):
        return True
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _valid_row(table: str, row: tuple[object, ...]) -> bool:
    if not all(_encodable(value) for value in row):
        return False
    try:
        if table == "sessions":
            Session.model_validate_json(str(row[5]))
        elif table == "undo":
            UndoEntry.model_validate_json(str(row[3]))
        elif table == "input_history":
            return isinstance(row[2], str)
        elif table == "config":
            return row[0] in SAVED_CONFIG_KEYS and isinstance(row[1], str)
    except ValueError:
        return False
    return True


def _scan(conn: sqlite3.Connection, sql: str, errors: list[str]) -> Iterator[tuple[object, ...]]:
    """Rows of ``sql`` one at a time, until the first read that fails (recorded)."""
    try:
        cursor = conn.execute(sql)
        while (row := cursor.fetchone()) is not None:
            yield tuple(row)
    except sqlite3.DatabaseError as err:
        errors.append(str(err))


def _salvage_table(
    source: sqlite3.Connection, table: str, insert: Callable[[tuple[object, ...]], None]
) -> TableSalvage:
    columns, key, where = _TABLES[table]
    result = TableSalvage()
    descending = ", ".join(f"{part.strip()} DESC" for part in key.split(","))
    seen: set[tuple[object, ...]] = set()
    for order in (key, descending):
        # The key columns lead the selection, so a row is recognised when the backward scan
        # reaches what the forward scan already read.
        sql = f"SELECT {key}, {columns} FROM {table}{where} ORDER BY {order}"
        width = len(key.split(","))
        failures_before = len(result.errors)
        for row in _scan(source, sql, result.errors):
            ident, values = row[:width], row[width:]
            if ident in seen:
                break
            seen.add(ident)
            if _valid_row(table, values):
                insert(values)
                result.saved += 1
            else:
                result.undecodable += 1
        if len(result.errors) == failures_before:
            break  # the forward scan read the whole table: nothing is left to find backwards
    return result


def salvage(damaged: Path, target: sqlite3.Connection) -> dict[str, TableSalvage]:
    """Copy the readable, decodable rows of the non-derived tables of ``damaged`` into
    ``target`` (a fresh store of the current schema), in one transaction."""
    with tempfile.TemporaryDirectory(prefix="ipuaro-salvage-") as workdir:
        source_path = damaged
        if not schema_readable(damaged):  # the header, most likely: read a repaired copy
            source_path = repaired_copy(damaged, Path(workdir)) or damaged
        return _salvage_from(source_path, target)


def _salvage_from(damaged: Path, target: sqlite3.Connection) -> dict[str, TableSalvage]:
    results: dict[str, TableSalvage] = {}
    try:
        source = read_only(damaged)
    except sqlite3.Error as err:
        return {table: TableSalvage(errors=[str(err)]) for table in _TABLES}
    # A byte that is not UTF-8 fails the whole fetch under the default text factory; read it
    # as a surrogate instead, so the row is counted undecodable and the scan goes on.
    source.text_factory = lambda raw: raw.decode("utf-8", "surrogateescape")
    try:
        target.execute("BEGIN IMMEDIATE")
        for table, (columns, _, _) in _TABLES.items():
            marks = ", ".join("?" * len(columns.split(",")))
            statement = f"INSERT OR REPLACE INTO {table} ({columns}) VALUES ({marks})"

            def insert(values: tuple[object, ...], statement: str = statement) -> None:
                target.execute(statement, values)

            try:
                results[table] = _salvage_table(source, table, insert)
            except sqlite3.DatabaseError as err:  # the schema itself cannot be read
                results[table] = TableSalvage(errors=[str(err)])
        target.execute("COMMIT")
    except BaseException:
        if target.in_transaction:
            target.execute("ROLLBACK")
        raise
    finally:
        source.close()
    return results
