"""A real store database with 8 KB of garbage written at random offsets: doctor's check finds
the damage every time, ``rebuild`` always gives a working store (moving the damaged file aside)
and saves every session, undo entry and input line whose pages the garbage missed."""

from __future__ import annotations

import random
import shutil
import sqlite3
from pathlib import Path

import pytest

from ipuaro.config.schema import Config
from ipuaro.core.checks import check_sqlite
from ipuaro.domain import ChatMessage, Session, UndoEntry
from ipuaro.index.pipeline.indexer import Indexer
from ipuaro.store.protocol import StoreError
from ipuaro.store.sqlite import SqliteStore

PROJECT = "tests-repair"
SEEDS = 24
GARBAGE = 8192
SESSION_TABLES = ("sessions", "undo", "input_history", "sqlite_schema", "sqlite_master")


def _session(number: int) -> Session:
    history = [
        ChatMessage(role="user", content=f"prompt {number}: " + "word " * 200, timestamp=1.0),
        ChatMessage(role="assistant", content=f"answer {number}", timestamp=2.0),
    ]
    return Session(
        id=f"s{number}",
        project_name=PROJECT,
        created_at=1.0,
        last_activity_at=2.0,
        history=history,
    )


def _undo(number: int, step: int) -> UndoEntry:
    return UndoEntry(
        id=f"u{number}-{step}",
        timestamp=1.0,
        file_path=f"src/m{step}.ts",
        previous_content=[f"old {step}\n"] * 30,
        new_content=[f"new {step}\n"] * 30,
        description=f"edit {step}",
    )


def _write_project(root: Path) -> None:
    (root / "src").mkdir(parents=True)
    for i in range(120):
        body = "".join(
            f"export function f{i}_{j}(a: number) {{ return a * {j}; }}\n" for j in range(25)
        )
        (root / "src" / f"m{i}.ts").write_text(
            f"import {{ f{(i + 1) % 120}_1 }} from './m{(i + 1) % 120}';\n{body}"
        )


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, set[int]]]:
    """A project, its indexed store with 6 sessions, and the pages each table occupies."""
    base = tmp_path_factory.mktemp("repair")
    root = base / "project"
    _write_project(root)
    db = base / "store.db"
    store = SqliteStore(db, PROJECT)
    Indexer(root, Config(), store).index()
    for number in range(6):
        store.save_session(_session(number))
        for step in range(4):
            store.push_undo(f"s{number}", _undo(number, step), 10)
        for line in range(5):
            store.append_input_history(f"s{number}", f"input {number}.{line}")
    store.set_config("whitelist", ["npm test"])
    store.close()
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    pages: dict[str, set[int]] = {}
    for name, page in conn.execute("SELECT name, pageno FROM dbstat"):
        pages.setdefault(name, set()).add(page)
    conn.close()
    return root, db, pages


def _corrupt(db: Path, seed: int) -> set[int]:
    """Write GARBAGE random bytes at a random offset; returns the 1-based pages touched."""
    rng = random.Random(seed)
    size = db.stat().st_size
    offset = rng.randrange(0, size - GARBAGE)
    with open(db, "r+b") as handle:
        handle.seek(offset)
        handle.write(rng.randbytes(GARBAGE))
    return set(range(offset // 4096 + 1, (offset + GARBAGE - 1) // 4096 + 2))


@pytest.mark.parametrize("seed", range(SEEDS))
def test_garbage_in_the_pages_is_found_and_repaired(
    tmp_path: Path, pristine: tuple[Path, Path, dict[str, set[int]]], seed: int
) -> None:
    root, source, pages = pristine
    db = tmp_path / "store.db"
    shutil.copyfile(source, db)
    touched = _corrupt(db, seed)
    session_pages = set().union(*(pages.get(t, set()) for t in SESSION_TABLES))

    check = check_sqlite(db)
    assert not check.ok, f"doctor missed garbage in pages {sorted(touched)}"
    assert "ipuaro index --rebuild" in (check.fix or "")

    store = SqliteStore.rebuild(db, PROJECT)
    try:
        assert store.salvage is not None and store.notices
        assert list(tmp_path.glob("store.db.corrupt-*")), "the damaged file is kept aside"
        summary = Indexer(root, Config(), store).index(rebuild=True)
        assert summary.files == 120 and sorted(store.file_hashes())[0] == "src/m0.ts"
        if not touched & session_pages:
            assert store.list_sessions() == [f"s{n}" for n in range(6)]
            for number in range(6):
                assert store.load_session(f"s{number}") == _session(number)
                assert store.list_undo(f"s{number}") == [_undo(number, s) for s in range(4)]
                assert store.get_input_history(f"s{number}") == [
                    f"input {number}.{i}" for i in range(5)
                ]
            assert store.get_config("whitelist") == ["npm test"]
            assert "Nothing of the sessions was lost" in store.notices[0]
    finally:
        store.close()
    assert check_sqlite(db).ok


def test_damage_in_session_pages_saves_the_rest(
    tmp_path: Path, pristine: tuple[Path, Path, dict[str, set[int]]]
) -> None:
    """Garbage aimed at one page of the undo table: the other rows are saved, the report says
    rows were lost."""
    _, source, pages = pristine
    db = tmp_path / "store.db"
    shutil.copyfile(source, db)
    page = max(pages["undo"])
    with open(db, "r+b") as handle:
        handle.seek((page - 1) * 4096)
        handle.write(random.Random(7).randbytes(4096))
    store = SqliteStore.rebuild(db, PROJECT)
    try:
        assert store.list_sessions() == [f"s{n}" for n in range(6)]
        saved = sum(len(store.list_undo(f"s{n}")) for n in range(6))
        assert 0 < saved < 24
        assert "Lost: undo/redo entries" in store.notices[0]
    finally:
        store.close()


def test_a_malformed_read_names_the_repair(
    tmp_path: Path, pristine: tuple[Path, Path, dict[str, set[int]]]
) -> None:
    _, source, pages = pristine
    db = tmp_path / "store.db"
    shutil.copyfile(source, db)
    page = sorted(pages["files"])[len(pages["files"]) // 2]
    with open(db, "r+b") as handle:
        handle.seek((page - 1) * 4096)
        handle.write(b"\xff" * 4096)
    store = SqliteStore(db, PROJECT)
    try:
        with pytest.raises(StoreError, match="ipuaro index --rebuild"):
            store.get_files([f"src/m{i}.ts" for i in range(120)])
            store.clear_project()
    finally:
        store.close()


def test_the_integrity_check_is_bounded(pristine: tuple[Path, Path, dict[str, set[int]]]) -> None:
    from ipuaro.store.sqlite_repair import check_integrity

    _, source, _ = pristine
    result = check_integrity(source, seconds=0.0)
    # Stopped at its first progress check, unfinished, not called damaged (how long that takes
    # is measured in bench/hot_paths_bench.py).
    assert not result.finished and not result.damaged
    assert check_integrity(source).finished


def test_seeds_hit_both_kinds_of_pages(pristine: tuple[Path, Path, dict[str, set[int]]]) -> None:
    """The seeds are worth something: some hit session pages, most hit only the index."""
    _, source, pages = pristine
    size = source.stat().st_size
    session_pages = set().union(*(pages.get(t, set()) for t in SESSION_TABLES))
    hits = 0
    for seed in range(SEEDS):
        rng = random.Random(seed)
        offset = rng.randrange(0, size - GARBAGE)
        touched = set(range(offset // 4096 + 1, (offset + GARBAGE - 1) // 4096 + 2))
        hits += bool(touched & session_pages)
    print(f"{hits} of {SEEDS} seeds touch session pages; file {size // 4096} pages")
    assert 0 < hits < SEEDS
