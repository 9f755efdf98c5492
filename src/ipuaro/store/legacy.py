"""Stores named before a project's identity included a hash of its path.

Until then a project was known by its last two folder names only (``same-proj``), so
``A/same/proj`` and ``B/same/proj`` shared one SQLite file and one Redis key prefix. A store
records the root it was last indexed from (config key ``root``). When that root is this
project's, the old store is adopted under the new identity: the file (or the keys) renamed and
its sessions relabelled, so nothing is lost. Otherwise it is left where it is — it belongs to
another project, or provably to none — and this project starts its own store, indexed afresh,
with a notice saying so. Each step can be repeated: a run killed half-way finishes next time.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a user on SQLite never loads redis-py
    import redis

_PROJECT_KEYS = ("files", "ast", "meta", "indexes", "config")
"""Redis ``project:{name}:*`` keys (:mod:`ipuaro.store.redis_store`); config goes last."""


def adopt_sqlite(old: Path, new: Path, root: Path, old_name: str, new_name: str) -> str | None:
    """Move the old-named database ``old`` to ``new`` when it was indexed from ``root``.

    Returns a notice for the user, or ``None`` when there was nothing to do."""
    if new.exists() or not old.is_file():
        return None
    try:
        owner = _sqlite_owner(old)
        if owner is None or not _same_root(owner, root):
            return _fresh(str(old), old_name, owner, str(new))
        _relabel_sqlite(old, old_name, new_name)
        os.replace(old, new)
    except (OSError, sqlite3.Error) as err:
        return (
            f"could not take over the old store {old} ({err}); this project gets its own "
            f"store {new} and is indexed afresh"
        )
    for leftover in (Path(f"{old}-wal"), Path(f"{old}-shm")):
        leftover.unlink(missing_ok=True)  # empty after the checkpoint; a new file is created
    return f"moved this project's store {old} to {new} (stores are now named by full path)"


def _sqlite_owner(path: Path) -> str | None:
    conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    try:
        row = conn.execute("SELECT json FROM config WHERE key = 'root'").fetchone()
    finally:
        conn.close()
    return _root_of(row[0] if row else None)


def _relabel_sqlite(path: Path, old_name: str, new_name: str) -> None:
    conn = sqlite3.connect(str(path), timeout=30.0, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("UPDATE schema_version SET project = ?", (new_name,))
        conn.execute(
            "UPDATE sessions SET project = ?, json = json_set(json, '$.projectName', ?) "
            "WHERE project = ?",
            (new_name, new_name, old_name),
        )
        conn.execute("COMMIT")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # everything into the file we move
    finally:
        conn.close()


def adopt_redis(client: redis.Redis, old_name: str, new_name: str, root: Path) -> str | None:
    """Rename ``project:{old_name}:*`` to ``project:{new_name}:*`` when indexed from ``root``.

    Sessions are relabelled first and the keys renamed in one MULTI/EXEC, config last, so a
    kill at any point leaves the old config in place and the next start completes the move."""
    from ipuaro.store.redis_sessions import text_of

    old, new = f"project:{old_name}", f"project:{new_name}"
    if client.exists(f"{new}:config") or not client.exists(f"{old}:config"):
        return None
    where = f"redis keys {old}:*"
    owner = _root_of(client.hget(f"{old}:config", "root"))
    if owner is None or not _same_root(owner, root):
        return _fresh(where, old_name, owner, f"redis keys {new}:*")
    old_label, new_label = json.dumps(old_name), json.dumps(new_name)
    for session_id in client.lrange("sessions:list", 0, -1):
        key = f"session:{text_of(session_id)}:data"
        if client.hget(key, "projectName") == old_label:
            client.hset(key, "projectName", new_label)
    present = [suffix for suffix in _PROJECT_KEYS if client.exists(f"{old}:{suffix}")]
    with client.pipeline(transaction=True) as pipe:
        for suffix in present:
            pipe.rename(f"{old}:{suffix}", f"{new}:{suffix}")
        pipe.execute()
    return f"moved this project's {where} to {new}:* (stores are now named by full path)"


def _root_of(stored: object) -> str | None:
    if not isinstance(stored, str):
        return None
    try:
        value = json.loads(stored)
    except ValueError:
        return None
    return value if isinstance(value, str) and value else None


def _same_root(owner: str, root: Path) -> bool:
    try:
        return Path(owner).resolve() == root.resolve()
    except (OSError, RuntimeError):
        return False


def _fresh(where: str, old_name: str, owner: str | None, new_where: str) -> str:
    whose = f"was last indexed from {owner}" if owner else "records no project folder"
    return (
        f"{where} was shared by every project named {old_name!r} (stores used to be named by "
        f"their last two folders) and {whose}; it is left as it is, and this project gets its "
        f"own store {new_where}, indexed afresh"
    )
