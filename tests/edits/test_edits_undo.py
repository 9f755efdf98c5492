"""Undo/redo: exact bytes back, persisted across a restart (new store object, new process),
refusing when the file changed since, and whole groups at once."""

from __future__ import annotations

import json
import subprocess
import sys

from ipuaro.edits.engine import EditEngine
from ipuaro.edits.undo import UndoManager
from ipuaro.tools.base import FileChange

from .conftest import EditEnv

UNDO_SCRIPT = """
import json, sys
from pathlib import Path
from ipuaro.edits.undo import UndoManager
from ipuaro.store.sqlite import SqliteStore

db, root, action = sys.argv[1], sys.argv[2], sys.argv[3]
store = SqliteStore(Path(db), "tests-edits")
manager = UndoManager(store, "s1", Path(root), lambda changed, deleted: None, limit=10)
outcome = manager.undo() if action == "undo" else manager.redo()
store.close()
print(json.dumps({"done": outcome.done, "message": outcome.message}))
"""


def read(env: EditEnv, rel: str) -> bytes | None:
    path = env.root / rel
    return path.read_bytes() if path.exists() else None


async def edit(env: EditEnv, changes: dict[str, str | None], description: str = "edit") -> None:
    file_changes = []
    for rel, new in changes.items():
        current = read(env, rel)
        file_changes.append(FileChange(rel, None if current is None else current.decode(), new))
    result = await EditEngine(env.ctx).apply(file_changes, description)
    assert result.applied, result.message


def manager(env: EditEnv) -> UndoManager:
    return UndoManager(env.store, "s1", env.root, env.reindexed, limit=10)


def run_in_new_process(env: EditEnv, action: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", UNDO_SCRIPT, str(env.db), str(env.root), action],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


async def test_edit_undo_redo_across_restarts_restores_exact_bytes(env: EditEnv) -> None:
    original = {p: read(env, p) for p in ("crlf.txt", "nofinal.txt")}
    await edit(env, {"crlf.txt": "one\r\nTWO\r\nthree\r\n", "nofinal.txt": "first\nmiddle\nlast"})
    edited = {p: read(env, p) for p in original}
    assert edited["crlf.txt"] == b"one\r\nTWO\r\nthree\r\n"

    env.reopen()  # restart 1: a new store object on the same database
    outcome = manager(env).undo()
    assert outcome.done, outcome.message
    assert {p: read(env, p) for p in original} == original

    env.reopen()  # restart 2
    assert manager(env).redo().done
    assert {p: read(env, p) for p in original} == edited

    env.store.close()  # restart 3: another process does the undo
    assert run_in_new_process(env, "undo")["done"] is True
    assert {p: read(env, p) for p in original} == original
    assert run_in_new_process(env, "redo")["done"] is True
    assert {p: read(env, p) for p in original} == edited
    env.reopen()


async def test_undo_refuses_when_the_file_changed_since_unless_forced(env: EditEnv) -> None:
    await edit(env, {"a.txt": "edited\n"})
    (env.root / "a.txt").write_bytes(b"edited by hand\n")
    refused = manager(env).undo()
    assert not refused.done
    assert refused.changed_since == ["a.txt"] and "changed since" in refused.message
    assert read(env, "a.txt") == b"edited by hand\n"
    assert len(env.store.list_undo("s1")) == 1  # still undoable
    forced = manager(env).undo(force=True)
    assert forced.done
    assert read(env, "a.txt") == b"alpha\nbeta\n"


async def test_undo_of_a_group_restores_every_file(env: EditEnv) -> None:
    before = {p: read(env, p) for p in ("a.txt", "crlf.txt", "new.txt")}
    await edit(env, {"a.txt": "A\n", "crlf.txt": None, "new.txt": "created\n"}, "group")
    assert read(env, "crlf.txt") is None and read(env, "new.txt") == b"created\n"
    outcome = manager(env).undo()
    assert outcome.done and sorted(outcome.paths) == ["a.txt", "crlf.txt", "new.txt"]
    assert {p: read(env, p) for p in before} == before
    assert len(env.store.list_undo("s1", "redo")) == 3
    assert manager(env).redo().done
    assert read(env, "crlf.txt") is None and read(env, "a.txt") == b"A\n"


async def test_a_new_edit_clears_redo_and_the_stack_is_bounded(env: EditEnv) -> None:
    for number in range(12):
        await edit(env, {"a.txt": f"v{number}\n"})
    assert len(env.store.list_undo("s1")) == 10
    assert manager(env).undo().done
    assert len(env.store.list_undo("s1", "redo")) == 1
    await edit(env, {"a.txt": "fresh\n"})
    assert env.store.list_undo("s1", "redo") == []
    assert not manager(env).redo().done


async def test_nothing_to_undo(env: EditEnv) -> None:
    outcome = manager(env).undo()
    assert not outcome.done and outcome.message == "nothing to undo"


async def test_undo_reindexes_the_restored_paths(env: EditEnv) -> None:
    await edit(env, {"new.txt": "x\n"})
    env.reindexed.calls.clear()
    assert manager(env).undo().done
    assert env.reindexed.calls == [([], ["new.txt"])]
