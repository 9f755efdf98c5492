"""The watcher on a real folder: edits, creations, deletions and renames reach the store."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ipuaro.config.schema import Config
from ipuaro.index.pipeline.indexer import Indexer, IndexSummary
from ipuaro.index.watcher import IndexWatcher
from ipuaro.store.sqlite import SqliteStore

from .conftest import make_indexer, write

TIMEOUT_S = 15.0  # generous: CI machines are slow and shared


def wait_for(condition: Callable[[], bool], timeout: float = TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError("the store was not updated in time")


@pytest.fixture
def watched(ts_project: Path, store: SqliteStore) -> Iterator[tuple[Indexer, IndexWatcher]]:
    indexer = make_indexer(ts_project, store)
    indexer.index(workers=1)
    watcher = IndexWatcher(indexer, debounce_ms=100)
    watcher.start()
    assert watcher.ready.wait(TIMEOUT_S)
    yield indexer, watcher
    watcher.stop()


UTIL = "packages/app/src/util.ts"
MAIN = "packages/app/src/main.ts"


def test_edit_create_delete_rename(
    watched: tuple[Indexer, IndexWatcher], store: SqliteStore
) -> None:
    indexer, _ = watched
    root = indexer.root

    # Edit: lines, AST and the file's meta follow.
    write(
        root,
        UTIL,
        "export function helper(v: string): string {\n  return v;\n}\n"
        "export function shout(v: string): string {\n  return v + '!';\n}\n",
    )
    wait_for(lambda: [d.path for d in store.find_definitions("shout")] == [UTIL])
    ast = store.get_ast(UTIL)
    assert ast is not None and len(ast.functions) == 2
    assert store.get_file(UTIL).lines[3].startswith("export function shout")  # type: ignore[union-attr]

    # Create: a new importer shows up in util.ts's dependents.
    write(root, "packages/app/src/extra.ts", "import { shout } from './util';\nshout('x');\n")
    wait_for(lambda: "packages/app/src/extra.ts" in (store.get_meta(UTIL).dependents))  # type: ignore[union-attr]

    # Rename: the old path leaves every index, the new one arrives.
    os.rename(root / "packages/app/src/extra.ts", root / "packages/app/src/renamed.ts")
    wait_for(lambda: store.get_file("packages/app/src/renamed.ts") is not None)
    wait_for(lambda: store.get_file("packages/app/src/extra.ts") is None)
    meta = store.get_meta(UTIL)
    assert meta is not None and "packages/app/src/extra.ts" not in meta.dependents
    assert "packages/app/src/renamed.ts" in meta.dependents

    # Delete: gone from files, ASTs, metas and references; importers re-resolved.
    os.remove(root / UTIL)
    wait_for(lambda: store.get_file(UTIL) is None)
    assert store.find_references("helper", path=UTIL) == []
    main = store.get_ast(MAIN)
    assert main is not None
    assert next(i for i in main.imports if i.from_ == "./util.js").unresolved


def test_ignored_paths_never_reach_the_index(
    watched: tuple[Indexer, IndexWatcher], store: SqliteStore
) -> None:
    indexer, _ = watched
    root = indexer.root
    write(root, "node_modules/dep/index.js", "module.exports = 1;\n")
    write(root, "debug.log", "noise\n")
    write(root, "packages/app/src/marker.ts", "export const marker = 1;\n")
    # The marker is written last: once it is indexed, the earlier writes were seen too.
    wait_for(lambda: store.get_file("packages/app/src/marker.ts") is not None)
    paths = store.file_hashes()
    assert "debug.log" not in paths
    assert not any(p.startswith("node_modules/") for p in paths)


def test_new_gitignore_rule_applies_to_later_changes(
    watched: tuple[Indexer, IndexWatcher], store: SqliteStore
) -> None:
    indexer, _ = watched
    root = indexer.root
    with open(root / ".gitignore", "a", encoding="utf-8") as handle:
        handle.write("generated/\n")
    wait_for(lambda: "generated/" in "\n".join(store.get_file(".gitignore").lines))  # type: ignore[union-attr]
    write(root, "generated/out.ts", "export const g = 1;\n")
    write(root, "packages/app/src/after.ts", "export const a = 1;\n")
    wait_for(lambda: store.get_file("packages/app/src/after.ts") is not None)
    assert store.get_file("generated/out.ts") is None


async def test_async_run_reports_updates(ts_project: Path, store: SqliteStore) -> None:
    indexer = make_indexer(ts_project, store)
    indexer.index(workers=1)
    watcher = IndexWatcher(indexer, debounce_ms=50)
    stop = asyncio.Event()
    updates: list[IndexSummary] = []
    task = asyncio.create_task(watcher.run(stop, updates.append))
    try:
        assert await asyncio.to_thread(watcher.ready.wait, TIMEOUT_S)
        write(ts_project, "lib/new.ts", "export function fresh(): void {}\n")
        deadline = time.monotonic() + TIMEOUT_S
        while not any(u.parsed for u in updates) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert any(u.parsed == 1 for u in updates)
        assert [d.path for d in store.find_definitions("fresh")] == ["lib/new.ts"]
    finally:
        stop.set()
        await asyncio.wait_for(task, TIMEOUT_S)


def test_grouping_follows_a_settle_time_and_a_maximum(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A save (several events within milliseconds) is one group applied after a short pause;
    a stream that never pauses is still applied once the group is debounce_ms old."""
    from watchfiles import Change

    from ipuaro.index import watcher as watcher_module
    from ipuaro.index.watcher import SETTLE_MS, IndexWatcher, _Pending

    clock = [100.0]
    monkeypatch.setattr(watcher_module.time, "monotonic", lambda: clock[0])
    store = SqliteStore(tmp_path / "w.db", "w")
    watcher = IndexWatcher(Indexer(tmp_path, Config(), store), debounce_ms=500)
    pending = _Pending()
    change = {(Change.modified, str(tmp_path / "a.py"))}

    assert not watcher._due(pending, change)
    clock[0] += 1 / 128  # binary fractions keep the fake clock exact
    assert not watcher._due(pending, {(Change.added, str(tmp_path / "a.py~"))})
    clock[0] += SETTLE_MS / 1000 + 1 / 64
    assert watcher._due(pending, set())
    assert len(pending.take()) == 2

    # Changes every 62.5 ms never leave a quiet gap; the group is applied once 500 ms old.
    steps = 0
    while not watcher._due(pending, change):
        clock[0] += 1 / 16
        steps += 1
    assert steps == 8
    store.close()


def test_a_failed_batch_is_said_and_goes_again_with_the_next(
    ts_project: Path, store: SqliteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch that fails is not dropped (the index would stay behind the disk, silently):
    the error says how many files are missing, and the next batch carries them."""
    from watchfiles import Change

    from ipuaro.index.watcher import UpdateFailed

    indexer = make_indexer(ts_project, store)
    indexer.index(workers=1)
    errors: list[Exception] = []
    watcher = IndexWatcher(indexer, on_error=errors.append)
    update_paths = indexer.update_paths

    def locked(changed: list[str], deleted: list[str]) -> IndexSummary:
        raise OSError("database is locked")

    write(ts_project, "lib/first.ts", "export function first(): void {}\n")
    monkeypatch.setattr(indexer, "update_paths", locked)
    assert watcher.apply({(Change.added, str(ts_project / "lib/first.ts"))}) is None
    assert watcher.missing == 1
    [error] = errors
    assert isinstance(error, UpdateFailed) and "database is locked" in str(error)
    assert "1 changed file(s) are not in the index yet" in str(error)

    monkeypatch.setattr(indexer, "update_paths", update_paths)
    write(ts_project, "lib/second.ts", "export function second(): void {}\n")
    summary = watcher.apply({(Change.added, str(ts_project / "lib/second.ts"))})
    assert summary is not None and summary.parsed == 2 and watcher.missing == 0
    assert [d.path for d in store.find_definitions("first")] == ["lib/first.ts"]
    assert [d.path for d in store.find_definitions("second")] == ["lib/second.ts"]


def test_the_ready_event_given_is_the_one_set(ts_project: Path, store: SqliteStore) -> None:
    import threading

    ready = threading.Event()
    watcher = IndexWatcher(make_indexer(ts_project, store), debounce_ms=50, ready=ready)
    watcher.start()
    try:
        assert ready.wait(TIMEOUT_S)
    finally:
        watcher.stop()
