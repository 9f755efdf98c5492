"""A SIGKILL aimed at the moment the temp file of an atomic write appears: the partial temp file
is never indexed and is removed by the next index, and the undo entry of the edit that never
happened is dropped instead of blocking undo of the earlier, real edits."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ipuaro.config.schema import Config
from ipuaro.domain import UndoEntry
from ipuaro.edits.engine import EditEngine
from ipuaro.edits.undo import UndoManager
from ipuaro.index.pipeline.indexer import Indexer
from ipuaro.store.sqlite import SqliteStore
from ipuaro.tools.base import FileChange
from ipuaro.tools.context import build_context
from ipuaro.tools.registry import ToolRegistry

PROJECT = "tests-kill"
REPEATS = int(os.environ.get("IPUARO_FAULT_REPEATS", "1"))
"""Kills per test (the report's figures: IPUARO_FAULT_REPEATS=10)."""

EDIT_SCRIPT = """
import asyncio, sys
from pathlib import Path
from ipuaro.config.schema import Config
from ipuaro.edits.engine import EditEngine
from ipuaro.index.pipeline.indexer import Indexer
from ipuaro.store.sqlite import SqliteStore
from ipuaro.tools.base import FileChange
from ipuaro.tools.context import build_context

db, root = Path(sys.argv[1]), Path(sys.argv[2])
store = SqliteStore(db, "tests-kill")
indexer = Indexer(root, Config(), store)
ctx = build_context(root, Config(), store, indexer.update_paths, session_id="s1", auto_apply=True)
old = (root / "big.txt").read_text()
new = "".join(f"line {i} of the new big file, long enough\\n" for i in range(120_000))
print("ready", flush=True)
result = asyncio.run(EditEngine(ctx).apply([FileChange("big.txt", old, new)], "grow big.txt"))
print("finished", result.applied, flush=True)
"""


def temp_files(root: Path) -> list[Path]:
    return sorted(root.glob(".big.txt.ipuaro-*.tmp"))


def kill_at_temp_write(db: Path, root: Path) -> Path:
    """Start the edit in a real process and SIGKILL it as soon as its temp file exists."""
    child = subprocess.Popen(
        [sys.executable, "-c", EDIT_SCRIPT, str(db), str(root)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "ready"
        deadline = time.monotonic() + 60
        while not temp_files(root) and time.monotonic() < deadline:
            if child.poll() is not None:
                break
            time.sleep(0.0005)
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait()
        if child.stdout is not None:
            child.stdout.close()
    found = temp_files(root)
    assert found, "the write finished before the kill (no temp file left to test with)"
    return found[0]


@pytest.mark.parametrize("attempt", range(REPEATS))
def test_kill_during_temp_write(tmp_path: Path, attempt: int) -> None:
    root = tmp_path / "project"
    root.mkdir()
    original = {"big.txt": b"small\n", "notes.txt": b"first\nsecond\n"}
    for name, data in original.items():
        (root / name).write_bytes(data)
    db = tmp_path / "data" / "store.db"
    store = SqliteStore(db, PROJECT)
    indexer = Indexer(root, Config(), store)
    indexer.index()
    ctx = build_context(root, Config(), store, indexer.update_paths, session_id="s1")
    ctx.grants.set_auto_apply(True)
    for step in range(2):  # real edits the kill must not make un-undoable
        text = (root / "notes.txt").read_text()
        change = FileChange("notes.txt", text, text + f"added {step}\n")
        assert asyncio.run(EditEngine(ctx).apply([change], f"note {step}")).applied
    store.close()

    temp = kill_at_temp_write(db, root)

    assert (root / "big.txt").read_bytes() == original["big.txt"]  # the rename never happened
    store = SqliteStore(db, PROJECT)
    try:
        indexer = Indexer(root, Config(), store)
        summary = indexer.index()
        rel = temp.name
        assert summary.removed_temp_files == [rel]
        assert not temp.exists()
        assert rel not in store.file_hashes()
        ctx = build_context(root, Config(), store, indexer.update_paths, session_id="s1")
        found = asyncio.run(
            ToolRegistry.default().call("find_files", {"pattern": "*"}, ctx, call_id="t")
        )
        assert found.success and rel not in (found.data or "")

        manager = UndoManager(store, "s1", root, indexer.update_paths, limit=10)
        notices = manager.settle()
        assert len(notices) == 1 and "grow big.txt" in notices[0]
        assert [e.description for e in manager.history()] == ["note 0", "note 1"]
        for _ in range(2):
            outcome = manager.undo()
            assert outcome.done, outcome.message
        assert {name: (root / name).read_bytes() for name in original} == original
    finally:
        store.close()


def test_temp_file_of_a_live_writer_is_neither_indexed_nor_removed(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "a.txt").write_text("a\n")
    live = root / f".a.txt.ipuaro-{os.getpid()}-0123456789ab.tmp"
    live.write_text("half")
    dead_pid = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    dead = root / f".a.txt.ipuaro-{dead_pid}-0123456789ab.tmp"
    dead.write_text("half")
    store = SqliteStore(tmp_path / "s.db", PROJECT)
    try:
        summary = Indexer(root, Config(), store).index()
        assert summary.removed_temp_files == [dead.name]
        assert live.exists() and not dead.exists()
        assert sorted(store.file_hashes()) == ["a.txt"]
    finally:
        store.close()


def _dead_pid() -> int:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stdout)


def _pending(
    path: str, old: str, new: str, pid: int, group: str | None, size: int | None
) -> UndoEntry:
    return UndoEntry(
        id=f"id-{path}",
        timestamp=time.time(),
        file_path=path,
        previous_content=[old],
        new_content=[new],
        description="two files",
        group=group,
        group_size=size,
        pending=pid,
    )


def test_a_change_torn_by_a_kill_is_kept_and_undone_whole(tmp_path: Path) -> None:
    """Two files, killed after the first rename: the entries stay (the change is on disk, in
    part) and undo restores the written file, leaving the untouched one as it is."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "a.txt").write_text("a new\n")  # written before the kill
    (root / "b.txt").write_text("b old\n")  # never reached
    store = SqliteStore(tmp_path / "s.db", PROJECT)
    try:
        pid = _dead_pid()
        for name in ("a", "b"):
            entry = _pending(f"{name}.txt", f"{name} old\n", f"{name} new\n", pid, "g1", 2)
            store.push_undo("s1", entry, 10)
        manager = UndoManager(store, "s1", root, lambda changed, deleted: None, limit=10)
        assert manager.settle() == []
        assert [e.pending for e in store.list_undo("s1")] == [None, None]
        outcome = manager.undo()
        assert outcome.done, outcome.message
        assert (root / "a.txt").read_text() == "a old\n"
        assert (root / "b.txt").read_text() == "b old\n"
    finally:
        store.close()


def test_an_entry_being_written_by_a_live_process_is_left_pending(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "a.txt").write_text("a old\n")
    store = SqliteStore(tmp_path / "s.db", PROJECT)
    try:
        store.push_undo("s1", _pending("a.txt", "a old\n", "a new\n", os.getpid(), None, None), 10)
        manager = UndoManager(store, "s1", root, lambda changed, deleted: None, limit=10)
        assert manager.settle() == []
        outcome = manager.undo()
        assert not outcome.done and "being written" in outcome.message
        assert [e.pending for e in store.list_undo("s1")] == [os.getpid()]
    finally:
        store.close()
