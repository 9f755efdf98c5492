"""SIGKILL at the worst moments of applying a plan through the edit engine (the one write path),
in a real process: after the first file
was renamed into place and before the last (the change is torn on disk), and before any
rename. Opening the project again leaves every file of the change all new or all old, and one
undo still restores every file byte for byte."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from ipuaro.config.schema import Config
from ipuaro.edits.undo import UndoManager
from ipuaro.index.pipeline.indexer import Indexer
from ipuaro.store.sqlite import SqliteStore

PROJECT = "tests-apply-kill"
REPEATS = int(os.environ.get("IPUARO_FAULT_REPEATS", "1"))
BIG = 4 * 1024 * 1024
"""Bytes of the big file: writing and fsyncing it keeps the window between renames open."""

APPLY_SCRIPT = """
import asyncio, json, sys
from pathlib import Path
from ipuaro.config.schema import Config
from ipuaro.domain.plan import Action, Plan, PlanRecord, ProposedChanges
from ipuaro.index.pipeline.indexer import Indexer
from ipuaro.planning import actions as checks
from ipuaro.planning.actions import file_sha256
from ipuaro.edits.engine import EditEngine
from ipuaro.planning.apply import prepare
from ipuaro.tools.context import build_context
# The one big file keeps the window between renames open; the 1 MB per-file limit of a plan is
# not what this test is about.
checks.MAX_FILE_CONTENT_BYTES = 8 * 1024 * 1024
from ipuaro.security.policy.paths import PathPolicy
from ipuaro.store.sqlite import SqliteStore

db, root, order = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3].split(",")
store = SqliteStore(db, "tests-apply-kill")
indexer = Indexer(root, Config(), store)
new = {
    "small.txt": "small, new\\n",
    "big.txt": "".join(f"line {i} of the new big file\\n" for i in range(150_000)),
    "other.txt": "other, new\\n",
}
actions = [Action("UPDATE_FILE", name, new[name]) for name in order]
actions.append(Action("CREATE_FILE", "made/by/plan.txt", "created\\n"))
read = {name: file_sha256((root / name).read_text()) for name in order}
changes = ProposedChanges(tuple(actions))
plan = Plan(mode="fix-plan", summary="three files", proposed_changes=changes)
record = PlanRecord(plan, "r", "s1", read)
prepared = prepare(record, PathPolicy(root, []), store)
print("ready", flush=True)
ctx = build_context(root, Config(), store, indexer.update_paths, session_id="s1", auto_apply=True)
done = asyncio.run(EditEngine(ctx).commit(prepared.changeset("plan: three files")))
print("finished", done.applied, flush=True)
"""

OLD = {"small.txt": b"small, old\n", "big.txt": b"big, old\n", "other.txt": b"other, old\n"}


def run_and_kill(db: Path, root: Path, order: list[str], moment: Callable[[], bool]) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", APPLY_SCRIPT, str(db), str(root), ",".join(order)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "ready"
        deadline = time.monotonic() + 60
        while not moment() and time.monotonic() < deadline and child.poll() is None:
            time.sleep(0.0002)
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait()
        if child.stdout is not None:
            child.stdout.close()


def state(root: Path) -> dict[str, bytes | None]:
    files = [*OLD, "made/by/plan.txt"]
    return {n: (root / n).read_bytes() if (root / n).exists() else None for n in files}


def new_state(root: Path) -> bool:
    found = state(root)
    return (
        found["small.txt"] == b"small, new\n"
        and found["other.txt"] == b"other, new\n"
        and (found["big.txt"] or b"").startswith(b"line 0 of the new big file")
        and found["made/by/plan.txt"] == b"created\n"
    )


def old_state(root: Path) -> bool:
    return state(root) == {**OLD, "made/by/plan.txt": None} and not (root / "made").exists()


def setup(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "project"
    root.mkdir()
    for name, data in OLD.items():
        (root / name).write_bytes(data)
    db = tmp_path / "store.db"
    store = SqliteStore(db, PROJECT)
    Indexer(root, Config(), store).index()
    store.close()
    return root, db


def recover(db: Path, root: Path) -> tuple[list[str], UndoManager, SqliteStore]:
    """What opening the workspace does (``core.plan_apply.finish_interrupted``)."""
    store = SqliteStore(db, PROJECT)
    marker = store.get_config("applying")  # left by the killed writer: where to look
    assert marker is not None and marker["session"] == "s1"
    indexer = Indexer(root, Config(), store)
    manager = UndoManager(store, marker["session"], root, indexer.update_paths, limit=10)
    return manager.settle(), manager, store


@pytest.mark.parametrize("attempt", range(REPEATS))
def test_kill_between_renames_leaves_all_new_after_opening(tmp_path: Path, attempt: int) -> None:
    root, db = setup(tmp_path)

    def torn() -> bool:  # the first file is in place, the big one is still being written
        return (root / "small.txt").read_bytes() == b"small, new\n"

    run_and_kill(db, root, ["small.txt", "big.txt", "other.txt"], torn)
    at_kill = state(root)
    assert at_kill["small.txt"] == b"small, new\n"
    assert at_kill["other.txt"] == b"other, old\n", "the kill came after the last rename"

    notices, manager, store = recover(db, root)
    try:
        assert len(notices) == 1 and notices[0].startswith(
            "completed the change 'plan: three files' that was interrupted"
        )
        assert new_state(root)
        assert store.get_file("other.txt") is not None
        assert store.get_file("other.txt").lines == ["other, new"]  # type: ignore[union-attr]
        outcome = manager.undo()
        assert outcome.done, outcome.message
        assert old_state(root)
    finally:
        store.close()


@pytest.mark.parametrize("attempt", range(REPEATS))
def test_kill_before_any_rename_leaves_all_old(tmp_path: Path, attempt: int) -> None:
    root, db = setup(tmp_path)

    def writing_first() -> bool:  # the big file's temp file exists: nothing renamed yet
        return any(root.glob(".big.txt.ipuaro-*.tmp"))

    run_and_kill(db, root, ["big.txt", "small.txt", "other.txt"], writing_first)
    assert (root / "small.txt").read_bytes() == OLD["small.txt"], "killed too late"

    notices, manager, store = recover(db, root)
    try:
        assert len(notices) == 1 and notices[0].startswith("dropped the undo entry")
        assert old_state(root)  # the folders it had made are gone too
        assert manager.history() == []  # no phantom undo entry
        Indexer(root, Config(), store).index()  # the temp file goes with the next index
        assert not list(root.glob(".*.tmp"))
    finally:
        store.close()
