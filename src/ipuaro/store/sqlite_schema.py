"""The SQLite store's tables, and opening a file safely: WAL, busy timeout, schema check.

Every way a file can be unusable ends in a ``StoreError`` that names the file and the fix:
locked too long / unwritable (``StoreUnavailable``), another schema version
(``SchemaMismatch``: rebuild), not a database or not ours (``StoreError``: point
``store.path`` elsewhere, or rebuild, which keeps the old file as ``.bak``).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ipuaro.store.protocol import SCHEMA_VERSION, SchemaMismatch, StoreError, StoreUnavailable
from ipuaro.store.shared import REBUILD_HINT

BUSY_TIMEOUT_S = 120.0
"""How long a writer waits for another process's transaction (a full index of a large
project holds the write lock for seconds)."""

ROW_INDEXES = {
    "symbols": (
        "CREATE INDEX symbols_name ON symbols (name)",
        "CREATE INDEX symbols_path ON symbols (path)",
    ),
    "ref_groups": (
        "CREATE INDEX ref_groups_name ON ref_groups (name, file_id)",
        "CREATE INDEX ref_groups_file ON ref_groups (file_id)",
    ),
    "calls": (
        "CREATE INDEX calls_callee ON calls (callee)",
        "CREATE INDEX calls_path ON calls (path)",
    ),
}
"""Row-table indexes. ``find_calls(caller=...)`` has none: no tool asks it, a scan of Django's
173K call rows takes ~11 ms, and the index cost ~0.11 s of every full index."""
_DROPPED_INDEXES = ("calls_caller",)
"""Indexes of the row tables, kept apart so a bulk insert can drop and recreate them."""


def row_indexes_present(conn: sqlite3.Connection, table: str) -> list[str]:
    """The ``ROW_INDEXES`` statements of ``table`` whose index exists now."""
    names = {
        row[0]
        for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?", (table,)
        )
    }
    return [statement for statement in ROW_INDEXES[table] if index_name(statement) in names]


def index_name(statement: str) -> str:
    return statement.split()[2]


def drop_row_indexes(conn: sqlite3.Connection) -> None:
    for statements in ROW_INDEXES.values():
        for statement in statements:
            conn.execute("DROP INDEX IF EXISTS " + index_name(statement))


def create_row_indexes(conn: sqlite3.Connection) -> None:
    for statements in ROW_INDEXES.values():
        for statement in statements:
            conn.execute(statement.replace("CREATE INDEX", "CREATE INDEX IF NOT EXISTS", 1))


# One row per (file, identifier): ``positions`` packs its [line, column, ...] (see
# sqlite_rows.pack_positions). A large project has ~1M references but ~150K such pairs.
_REF_GROUPS_TABLE = (
    "CREATE TABLE ref_groups (name TEXT NOT NULL, file_id INTEGER NOT NULL,"
    " positions BLOB NOT NULL)"
)

TABLES = (
    "CREATE TABLE schema_version (version INTEGER NOT NULL, project TEXT NOT NULL)",
    "CREATE TABLE files (path TEXT PRIMARY KEY, hash TEXT NOT NULL, json TEXT NOT NULL)",
    "CREATE TABLE asts (path TEXT PRIMARY KEY, json TEXT NOT NULL)",
    "CREATE TABLE metas (path TEXT PRIMARY KEY, json TEXT NOT NULL)",
    # One row per path that contributed FileIndexes (so an empty contribution reads back as
    # empty, not missing); its id keeps the references table and its indexes small.
    "CREATE TABLE indexed (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE)",
    "CREATE TABLE symbols (name TEXT NOT NULL, path TEXT NOT NULL, line INTEGER NOT NULL,"
    " kind TEXT NOT NULL, line_end INTEGER, container TEXT)",
    *ROW_INDEXES["symbols"],
    _REF_GROUPS_TABLE,
    *ROW_INDEXES["ref_groups"],
    "CREATE TABLE calls (path TEXT NOT NULL, caller TEXT NOT NULL, callee TEXT NOT NULL,"
    " line INTEGER NOT NULL, resolved TEXT)",
    *ROW_INDEXES["calls"],
    "CREATE TABLE project_indexes (name TEXT PRIMARY KEY, json TEXT NOT NULL)",
    "CREATE TABLE config (key TEXT PRIMARY KEY, json TEXT NOT NULL)",
    "CREATE TABLE sessions (id TEXT PRIMARY KEY, project TEXT NOT NULL, created REAL NOT NULL,"
    " updated REAL NOT NULL, seq INTEGER NOT NULL, json TEXT NOT NULL)",
    "CREATE INDEX sessions_project ON sessions (project, seq)",
    "CREATE TABLE undo (session_id TEXT NOT NULL, stack TEXT NOT NULL, seq INTEGER NOT NULL,"
    " json TEXT NOT NULL, PRIMARY KEY (session_id, stack, seq)) WITHOUT ROWID",
    "CREATE TABLE input_history (session_id TEXT NOT NULL, seq INTEGER NOT NULL,"
    " text TEXT NOT NULL, PRIMARY KEY (session_id, seq)) WITHOUT ROWID",
)


def locked(path: Path, action: str) -> StoreUnavailable:
    return StoreUnavailable(
        f"{path} stayed locked by another process for {BUSY_TIMEOUT_S:.0f} s while {action}; "
        "close other ipuaro instances on this project and retry"
    )


def open_database(path: Path, project_name: str) -> sqlite3.Connection:
    """A connection to ``path`` with the current schema, created when the file is new."""
    if path.is_dir():
        raise StoreError(
            f"store path {path} is a directory; set store.path to a file name "
            "(e.g. ipuaro.db) or remove it to use the default location"
        )
    unusable = f"check that {path} and its folder are readable and writable, or set store.path"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(
            str(path),
            timeout=BUSY_TIMEOUT_S,
            isolation_level=None,  # the store issues BEGIN/COMMIT itself
            check_same_thread=False,  # shared by worker threads under the store's lock
        )
    except (OSError, sqlite3.Error) as err:
        raise StoreUnavailable(f"cannot open the SQLite store {path}: {err}; {unusable}") from err
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise StoreError(
                f"{path}: SQLite refused WAL mode (got {mode!r}); put the database on a local "
                "file system (set store.path)"
            )
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA cache_size = -65536")  # 64 MiB: bulk index inserts
        conn.execute("PRAGMA temp_store = MEMORY")
        _ensure_schema(conn, path, project_name)
    except sqlite3.OperationalError as err:
        conn.close()
        if "locked" in str(err) or "busy" in str(err):
            raise locked(path, "opening it") from err
        raise StoreUnavailable(f"cannot use the SQLite store {path}: {err}; {unusable}") from err
    except sqlite3.DatabaseError as err:  # "file is not a database", "malformed"
        conn.close()
        raise StoreError(
            f"{path} is not a usable ipuaro SQLite database ({err}). If the file is yours, "
            f"point store.path elsewhere; otherwise {REBUILD_HINT}: a damaged file is moved "
            "aside as .corrupt-<time> with its sessions saved, another kind as .bak"
        ) from err
    except BaseException:
        conn.close()
        raise
    return conn


def _ensure_schema(conn: sqlite3.Connection, path: Path, project_name: str) -> None:
    # IMMEDIATE: two processes opening a fresh file must not both create the tables.
    conn.execute("BEGIN IMMEDIATE")
    try:
        tables = {
            row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
        }
        if not tables:
            for statement in TABLES:
                conn.execute(statement)
            conn.execute(
                "INSERT INTO schema_version (version, project) VALUES (?, ?)",
                (SCHEMA_VERSION, project_name),
            )
            tables.add("schema_version")
        elif "refs" in tables:
            _migrate_references(conn)
        for name in _DROPPED_INDEXES:  # a store from an earlier version may have them
            conn.execute(f"DROP INDEX IF EXISTS {name}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    if "schema_version" not in tables:
        raise StoreError(
            f"{path} is an SQLite database but not an ipuaro store (no schema_version table). "
            f"If the file is yours, point store.path elsewhere; otherwise {REBUILD_HINT} "
            "(the old file is kept as .bak)"
        )
    row = conn.execute("SELECT version, project FROM schema_version").fetchone()
    if row is None or row[0] != SCHEMA_VERSION:
        found = "no version" if row is None else f"version {row[0]}"
        raise SchemaMismatch(
            f"{path} holds store schema {found}, this ipuaro uses version {SCHEMA_VERSION}; "
            f"{REBUILD_HINT}"
        )
    if row[1] != project_name:
        raise StoreError(
            f"{path} belongs to project {row[1]!r}, not {project_name!r}; give each project its "
            f"own store.path, or {REBUILD_HINT}"
        )


INDEX_TABLES = ("files", "asts", "metas", "symbols", "calls", "ref_groups", "indexed")
"""Tables a full index fills (with ``project_indexes``)."""


def _migrate_references(conn: sqlite3.Connection) -> None:
    """A store written before references were grouped per file and name (one row each): the
    old rows are dropped with the rest of the index, so the next ``index()`` is a full one.
    Sessions, undo stacks, history and config are kept."""
    conn.execute("DROP TABLE refs")
    conn.execute(_REF_GROUPS_TABLE)
    for statement in ROW_INDEXES["ref_groups"]:
        conn.execute(statement)
    for table in (*INDEX_TABLES, "project_indexes"):
        conn.execute(f"DELETE FROM {table}")


def move_aside(path: Path) -> None:
    """Rename the database to ``{path}.bak`` (replacing an older backup), WAL folded in."""
    if path.is_file():
        try:
            conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_S)
            try:
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                conn.close()
        except sqlite3.DatabaseError:
            pass  # not a database at all: there is no WAL to fold
        path.replace(path.with_name(path.name + ".bak"))
    for suffix in ("-wal", "-shm", "-journal"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)
