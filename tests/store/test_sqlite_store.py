"""SQLite-only behaviour: real processes writing at once, a writer killed mid-batch, bad files."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from ipuaro.store.protocol import (
    SCHEMA_VERSION,
    CorruptRecord,
    IndexBatch,
    SchemaMismatch,
    StoreError,
)
from ipuaro.store.sqlite import SqliteStore

from .conftest import PROJECT
from .samples import file_indexes, full_session, text_file, undo_entry

WRITER = """
import sys, time
from pathlib import Path
from ipuaro.domain import FileData, FileIndexes, Reference, SymbolDef, Session
from ipuaro.store.protocol import IndexBatch
from ipuaro.store.sqlite import SqliteStore

db, tag, batches, go = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
while not go.exists():
    time.sleep(0.005)
store = SqliteStore(db, "tests-proj")
for b in range(batches):
    batch = IndexBatch()
    for f in range(40):
        path = f"{tag}/b{b}/f{f}.py"
        batch.files[path] = FileData(lines=["x"] * 50, hash=path, size=100, last_modified=1.0)
        batch.file_indexes[path] = FileIndexes(
            symbols=[SymbolDef(name=f"{tag}_{b}_{f}", path=path, line=1, kind="function")],
            references=[Reference(name="common", path=path, line=i, column=1) for i in range(50)],
        )
    store.apply_batch(batch)
    store.save_session(Session(id=f"{tag}-{b}", project_name="tests-proj", created_at=1.0,
                               last_activity_at=1.0))
    store.find_references("common", tag)
store.close()
print("done")
"""


def test_two_processes_writing_at_once_both_succeed_and_keep_everything(tmp_path: Path) -> None:
    db, go = tmp_path / "shared.db", tmp_path / "go"
    SqliteStore(db, PROJECT).close()  # schema exists before the race on the data starts
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    batches = 15
    writers = [
        subprocess.Popen(
            [sys.executable, str(script), str(db), tag, str(batches), str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for tag in ("one", "two")
    ]
    go.touch()
    results = [writer.communicate(timeout=300) for writer in writers]

    for writer, (out, err) in zip(writers, results, strict=True):
        assert writer.returncode == 0, err
        assert out.strip() == "done" and "locked" not in err
    store = SqliteStore(db, PROJECT)
    assert len(store.file_hashes()) == 2 * batches * 40
    assert len(store.find_references("common")) == 2 * batches * 40 * 50
    assert len(store.find_references("common", "two")) == batches * 40 * 50
    assert len(store.symbol_names()) == 2 * batches * 40
    assert sorted(store.list_sessions()) == sorted(
        f"{tag}-{b}" for tag in ("one", "two") for b in range(batches)
    )
    store.close()


def test_a_writer_waits_for_another_connections_transaction(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "p.db", PROJECT)
    blocker = sqlite3.connect(tmp_path / "p.db", isolation_level=None, check_same_thread=False)
    blocker.execute("BEGIN IMMEDIATE")
    blocker.execute("INSERT INTO config (key, json) VALUES ('root', '\"/elsewhere\"')")
    committing = threading.Event()

    def commit() -> None:
        committing.set()  # set just before the lock goes: a write that did not wait sees it unset
        blocker.execute("COMMIT")

    release = threading.Timer(1.0, commit)
    release.start()

    store.set_config("settings", {"waited": True})

    assert committing.is_set(), "the write went through while another connection held the lock"
    release.join()
    blocker.close()
    assert store.get_config("settings") == {"waited": True}
    assert store.get_config("root") == "/elsewhere"
    store.close()


KILLED = """
import sys
from pathlib import Path
from ipuaro.domain import FileData, FileIndexes, Reference
from ipuaro.store.protocol import IndexBatch
from ipuaro.store.sqlite import SqliteStore

store = SqliteStore(Path(sys.argv[1]), "tests-proj")
store.apply_batch(IndexBatch(files={"before.py": FileData(lines=["a"], hash="h", size=1,
                                                          last_modified=1.0)}))
# A tiny page cache makes the transaction spill to the WAL while it runs, so the kill lands
# in the middle of writing rather than before the first byte.
store._conn.execute("PRAGMA cache_size = 50")
batch = IndexBatch()
for f in range(2000):
    path = f"big/f{f}.py"
    batch.files[path] = FileData(lines=["line"] * 100, hash=path, size=500, last_modified=1.0)
    batch.file_indexes[path] = FileIndexes(
        references=[Reference(name=f"n{i % 300}", path=path, line=i, column=1) for i in range(150)]
    )
print("start", flush=True)
store.apply_batch(batch)
print("done", flush=True)
"""


def test_a_writer_killed_mid_batch_leaves_all_or_nothing(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    wal = tmp_path / "p.db-wal"
    script = tmp_path / "killed.py"
    script.write_text(KILLED)
    child = subprocess.Popen(
        [sys.executable, str(script), str(db)], stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "start"
    baseline = wal.stat().st_size
    deadline = time.monotonic() + 120
    while wal.stat().st_size < baseline + 2_000_000 and child.poll() is None:
        if time.monotonic() > deadline:
            pytest.fail("the batch never started writing")
        time.sleep(0.001)
    os.kill(child.pid, signal.SIGKILL)
    rest = child.stdout.read()
    child.wait()
    child.stdout.close()
    assert child.returncode == -signal.SIGKILL
    assert "done" not in rest, "the batch finished before the kill: nothing was tested"

    store = SqliteStore(db, PROJECT)  # opens without error: the WAL tail is discarded
    assert store.file_hashes() == {"before.py": "h"}
    assert store.find_references("n1") == []
    assert store.get_file_indexes("big/f0.py") is None
    store.close()
    with sqlite3.connect(db) as check:
        assert check.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    check.close()


def test_another_schema_version_asks_for_a_rebuild(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    store = SqliteStore(db, PROJECT)
    store.save_session(full_session("s1", PROJECT))
    store.close()
    with sqlite3.connect(db) as raw:
        raw.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 1,))
    raw.close()

    with pytest.raises(SchemaMismatch, match=r"ipuaro index --rebuild") as caught:
        SqliteStore(db, PROJECT)
    assert str(db) in str(caught.value) and f"version {SCHEMA_VERSION + 1}" in str(caught.value)

    rebuilt = SqliteStore.rebuild(db, PROJECT)
    assert rebuilt.file_hashes() == {} and rebuilt.list_sessions() == []
    rebuilt.close()
    with sqlite3.connect(tmp_path / "p.db.bak") as backup:
        assert backup.execute("SELECT count(*) FROM sessions").fetchone() == (1,)
    backup.close()


def test_rebuilding_a_healthy_database_keeps_sessions_and_undo(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    store = SqliteStore(db, PROJECT)
    store.apply_batch(IndexBatch(files={"src/a.py": text_file("src/a.py")}))
    store.save_session(full_session("s1", PROJECT))
    store.push_undo("s1", undo_entry(1), limit=5)
    store.close()

    rebuilt = SqliteStore.rebuild(db, PROJECT)  # `ipuaro index --rebuild`: the index only
    assert rebuilt.file_hashes() == {} and rebuilt.get_file("src/a.py") is None
    assert rebuilt.list_sessions() == ["s1"]
    assert rebuilt.load_session("s1") == full_session("s1", PROJECT)
    assert rebuilt.pop_undo("s1") == undo_entry(1)
    rebuilt.close()
    assert not (tmp_path / "p.db.bak").exists()


def test_a_garbage_file_is_named_with_what_to_do(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    db.write_bytes(os.urandom(8192))

    with pytest.raises(StoreError, match=r"not a usable ipuaro SQLite database") as caught:
        SqliteStore(db, PROJECT)
    assert not isinstance(caught.value, SchemaMismatch)
    assert str(db) in str(caught.value) and "ipuaro index --rebuild" in str(caught.value)

    store = SqliteStore.rebuild(db, PROJECT)
    store.apply_batch(IndexBatch(files={"a.py": text_file("a.py")}))
    assert store.get_file("a.py") == text_file("a.py")
    store.close()


def test_someone_elses_sqlite_database_is_not_taken_over(tmp_path: Path) -> None:
    db = tmp_path / "app.db"
    with sqlite3.connect(db) as raw:
        raw.execute("CREATE TABLE customers (id INTEGER)")
    raw.close()

    with pytest.raises(StoreError, match=r"not an ipuaro store.*point store.path elsewhere"):
        SqliteStore(db, PROJECT)
    with sqlite3.connect(db) as raw:
        assert raw.execute("SELECT count(*) FROM customers").fetchone() == (0,)
    raw.close()


def test_a_database_of_another_project_is_refused(tmp_path: Path) -> None:
    SqliteStore(tmp_path / "p.db", "projects-one").close()
    with pytest.raises(StoreError, match=r"belongs to project 'projects-one'"):
        SqliteStore(tmp_path / "p.db", "projects-two")


def test_a_directory_as_store_path_is_refused(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match=r"is a directory; set store.path"):
        SqliteStore(tmp_path, PROJECT)


def test_a_row_that_does_not_decode_names_table_key_and_fix(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    store = SqliteStore(db, PROJECT)
    store.apply_batch(IndexBatch(files={"src/a.py": text_file("src/a.py")}))
    store.save_session(full_session("s1", PROJECT))
    store.push_undo("s1", undo_entry(1), limit=5)
    store.set_config("settings", {"a": 1})
    with sqlite3.connect(db) as raw:
        raw.execute("UPDATE files SET json = '{\"lines\": 5'")
        raw.execute("UPDATE sessions SET json = '{}'")
        raw.execute("UPDATE config SET json = 'not json'")
    raw.close()

    with pytest.raises(CorruptRecord, match=r"files\['src/a.py'\].*ipuaro index --rebuild"):
        store.get_file("src/a.py")
    with pytest.raises(CorruptRecord, match=r"files\['src/a.py'\]"):
        store.get_files(["src/a.py"])
    with pytest.raises(CorruptRecord, match=r"sessions\['s1'\].*ipuaro sessions delete s1"):
        store.load_session("s1")
    with pytest.raises(CorruptRecord, match=r"config\['settings'\]"):
        store.get_config("settings")
    assert store.pop_undo("s1") == undo_entry(1)  # other rows stay readable
    store.close()


def test_the_file_is_in_wal_mode_with_a_schema_version(tmp_path: Path) -> None:
    SqliteStore(tmp_path / "deep" / "er" / "p.db", PROJECT).close()
    with sqlite3.connect(tmp_path / "deep" / "er" / "p.db") as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert raw.execute("SELECT version, project FROM schema_version").fetchall() == [
            (SCHEMA_VERSION, PROJECT)
        ]
    raw.close()


def test_a_large_batch_into_a_filled_table_keeps_every_lookup_indexed(tmp_path: Path) -> None:
    """The bulk path drops and recreates the row indexes; afterwards they must exist again."""
    store = SqliteStore(tmp_path / "p.db", PROJECT)
    many = {  # 24,000 (file, name) groups: above BULK_ROWS
        f"m{i}.py": file_indexes(f"m{i}.py", [f"n{(i + k) % 50}" for k in range(20)])
        for i in range(1200)
    }
    store.apply_batch(IndexBatch(file_indexes=many))
    store.apply_batch(IndexBatch(file_indexes={"m0.py": file_indexes("m0.py", ["n0"])}))
    store.close()
    with sqlite3.connect(tmp_path / "p.db") as raw:
        indexes = {
            row[0] for row in raw.execute("SELECT name FROM sqlite_master WHERE type='index'")
        }
        plan = " ".join(
            str(row[3])
            for row in raw.execute("EXPLAIN QUERY PLAN SELECT * FROM ref_groups WHERE name = 'n1'")
        )
    raw.close()
    assert {"ref_groups_name", "ref_groups_file", "symbols_name", "calls_callee"} <= indexes
    assert "ref_groups_name" in plan


def _index_names(path: Path) -> set[str]:
    with sqlite3.connect(path) as raw:
        names = {row[0] for row in raw.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    raw.close()
    return names


def test_a_full_index_defers_row_indexes_to_its_last_batch(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "p.db", PROJECT)
    store.apply_batch(IndexBatch(file_indexes={"old.py": file_indexes("old.py", ["gone"])}))
    store.clear_project()
    assert not {"ref_groups_name", "symbols_name", "calls_callee"} & _index_names(tmp_path / "p.db")

    # Without indexes, look-ups scan and stay exact; a stats-only batch (the "incomplete" mark)
    # does not build them.
    store.apply_batch(IndexBatch(project_indexes={"stats": {"complete": False}}))
    store.apply_batch(IndexBatch(file_indexes={"a.py": file_indexes("a.py", ["alpha", "beta"])}))
    assert [r.line for r in store.find_references("beta")] == [12, 13]
    assert "ref_groups_name" not in _index_names(tmp_path / "p.db")

    store.apply_batch(IndexBatch(project_indexes={"deps_graph": {}}))
    store.close()
    assert {
        "ref_groups_name",
        "ref_groups_file",
        "symbols_name",
        "symbols_path",
        "calls_callee",
        "calls_path",
    } <= _index_names(tmp_path / "p.db")


def test_an_index_an_earlier_version_made_is_dropped_on_open(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "p.db", PROJECT)
    store.apply_batch(IndexBatch(file_indexes={"a.py": file_indexes("a.py", ["alpha", "beta"])}))
    store.close()
    with sqlite3.connect(tmp_path / "p.db") as raw:
        raw.execute("CREATE INDEX calls_caller ON calls (caller)")
    raw.close()

    store = SqliteStore(tmp_path / "p.db", PROJECT)
    assert "calls_caller" not in _index_names(tmp_path / "p.db")
    callers = {c.caller for c in store.find_calls()}
    assert callers
    for caller in callers:  # answered by a scan, as exactly as before
        assert {c.caller for c in store.find_calls(caller=caller)} == {caller}
    store.close()


def test_a_store_with_ungrouped_reference_rows_is_emptied_for_a_full_index(
    tmp_path: Path,
) -> None:
    """Stores written before references were grouped per (file, name) hold a ``refs`` table:
    opening one drops the index (sessions stay) so the next index() is a full one."""
    path = tmp_path / "p.db"
    store = SqliteStore(path, PROJECT)
    store.apply_batch(
        IndexBatch(
            files={"a.py": text_file("a.py")},
            file_indexes={"a.py": file_indexes("a.py", ["alpha"])},
            project_indexes={"stats": {"complete": True}},
        )
    )
    store.save_session(full_session("s1", PROJECT))
    store.close()
    with sqlite3.connect(path) as raw:
        raw.execute("DROP TABLE ref_groups")
        raw.execute(
            "CREATE TABLE refs (name TEXT NOT NULL, file_id INTEGER NOT NULL,"
            " line INTEGER NOT NULL, col INTEGER NOT NULL)"
        )
    raw.close()

    reopened = SqliteStore(path, PROJECT)
    assert reopened.file_hashes() == {}
    assert reopened.get_project_index("stats") is None
    assert reopened.find_definitions("alpha") == []
    assert reopened.list_sessions() == ["s1"]
    reopened.apply_batch(IndexBatch(file_indexes={"a.py": file_indexes("a.py", ["alpha"])}))
    assert len(reopened.find_references("alpha")) == 2
    reopened.close()
    with sqlite3.connect(path) as raw:
        tables = {row[0] for row in raw.execute("SELECT name FROM sqlite_master")}
    raw.close()
    assert "refs" not in tables and {"ref_groups", "ref_groups_name"} <= tables


def test_a_write_after_close_is_not_called_damage(tmp_path: Path) -> None:
    """Quitting closes the store while a session may still be saved: the error must say so,
    not send the user to `ipuaro index --rebuild` for a file that is fine."""
    store = SqliteStore(tmp_path / "db.sqlite", PROJECT)
    store.close()
    with pytest.raises(StoreError) as caught:
        store.save_session(full_session("s1", PROJECT))
    assert "damaged" not in str(caught.value) and "--rebuild" not in str(caught.value)
    reopened = SqliteStore(tmp_path / "db.sqlite", PROJECT)
    reopened.save_session(full_session("s1", PROJECT))  # the file itself is sound
    reopened.close()
