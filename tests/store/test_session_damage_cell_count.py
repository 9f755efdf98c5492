"""QA (issue 22, damaged sessions, one step outside the tested flips): one flipped bit in the
*cell count* of a leaf page of the sessions table. Listing through the ``project`` index fails
as damage, the fallback rowid scan then reports no error of its own, and
``SqliteSessions.list_sessions`` builds its notice from ``errors[0]`` of an empty list:
``IndexError: list index out of range``. ``ipuaro sessions list`` and ``ipuaro run --continue``
end in that traceback (seen on a real store: 6 sessions, byte 4 of the sessions leaf ^ 0x02).

Expected: no traceback; the readable sessions list (as for the other damaged-page cases).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ipuaro.store.naming import default_database, project_id
from ipuaro.store.sqlite import SqliteStore
from ipuaro.store.sqlite_repair import REPAIR_HINT

from .test_session_damage import (  # noqa: F401  (the fixture and helpers)
    COUNT,
    project,
    session_id,
    sessions,
)


def flip_cell_count(root: Path) -> None:
    db = default_database(root)
    with sqlite3.connect(db) as conn:
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'sessions'").fetchone()
    data = bytearray(db.read_bytes())
    start = (root[0] - 1) * page_size
    if data[start] == 0x05:  # interior root: take its first leaf
        first_cell = int.from_bytes(data[start + 12 : start + 14], "big")
        leaf = int.from_bytes(data[start + first_cell : start + first_cell + 4], "big")
        start = (leaf - 1) * page_size
    assert data[start] == 0x0D, "a table leaf page"
    data[start + 4] ^= 0x02  # the low byte of the page's cell count
    db.write_bytes(bytes(data))


def test_a_flipped_cell_count_in_a_sessions_leaf_lists_without_a_traceback(
    project: Path,  # noqa: F811
) -> None:
    flip_cell_count(project)
    code, out, err = sessions(project, "list")  # asserts: no exception but SystemExit
    assert code == 0, err
    assert out.strip(), "the readable sessions are listed"


def test_the_store_lists_only_well_formed_sessions_and_names_the_damage(
    project: Path,  # noqa: F811
) -> None:
    flip_cell_count(project)
    store = SqliteStore(default_database(project), project_id(project))
    try:
        listed = store.list_sessions()
        notices = list(store.notices)
    finally:
        store.close()
    known = [session_id(number) for number in range(COUNT)]
    assert listed, "the readable sessions are listed"
    assert set(listed) <= set(known), listed  # nothing read from the damaged cells' garbage
    assert listed == sorted(listed), "in the order they were made"
    assert any("damaged pages" in notice and REPAIR_HINT in notice for notice in notices), notices
