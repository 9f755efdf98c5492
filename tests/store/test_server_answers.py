"""The language-server answer cache: one contract on SQLite and a real redis-server, and a
SQLite store written before the cache existed keeps opening (and keeps its layout until an
answer is cached)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ipuaro.domain import FileData
from ipuaro.store.protocol import IndexBatch
from ipuaro.store.sqlite import SqliteStore

from .conftest import PROJECT, AnyStore, OpenStore

ANSWER = '{"locations": [["a.py", 1, 5]], "hashes": {"a.py": "h1"}}'


def test_an_answer_round_trips_and_is_shared_by_handles(
    store: AnyStore, open_store: OpenStore
) -> None:
    assert store.get_server_answer("references|python|a.py|1|5|h1") is None
    store.put_server_answer("references|python|a.py|1|5|h1", "run", ["a.py", "b.py"], ANSWER)

    assert store.get_server_answer("references|python|a.py|1|5|h1") == ANSWER
    assert open_store().get_server_answer("references|python|a.py|1|5|h1") == ANSWER


def test_answers_are_dropped_by_a_file_they_involve_or_the_name_they_ask_about(
    store: AnyStore,
) -> None:
    store.put_server_answer("k1", "run", ["a.py", "b.py"], ANSWER)
    store.put_server_answer("k2", "stop", ["c.py"], ANSWER)
    store.put_server_answer("k3", "run", ["d.py"], ANSWER)

    assert store.drop_server_answers(["b.py"]) == 1
    assert store.get_server_answer("k1") is None
    assert store.get_server_answer("k2") == ANSWER

    assert store.drop_server_answers(["x.py"], ["run"]) == 1  # k3 by its name
    assert store.get_server_answer("k3") is None
    assert store.drop_server_answers() == 0
    assert store.get_server_answer("k2") == ANSWER


def test_a_new_answer_replaces_the_old_one_with_its_paths(store: AnyStore) -> None:
    store.put_server_answer("k1", "run", ["a.py"], ANSWER)
    store.put_server_answer("k1", "run", ["b.py"], "{}")

    assert store.drop_server_answers(["a.py"]) == 0
    assert store.get_server_answer("k1") == "{}"
    assert store.drop_server_answers(["b.py"]) == 1


def test_clearing_the_project_drops_every_answer(store: AnyStore) -> None:
    store.apply_batch(
        IndexBatch(files={"a.py": FileData(lines=["x = 1"], hash="h1", size=5, last_modified=0.0)})
    )
    store.put_server_answer("k1", "run", ["a.py"], ANSWER)

    store.clear_project()

    assert store.get_server_answer("k1") is None


def test_a_store_written_before_the_cache_opens_and_gains_it_at_the_first_answer(
    tmp_path: Path,
) -> None:
    db = tmp_path / "old.db"
    SqliteStore(db, PROJECT).close()
    assert _tables(db) >= {"files", "sessions"} and "server_answers" not in _tables(db)

    store = SqliteStore(db, PROJECT)
    try:
        assert store.get_server_answer("k1") is None
        assert store.drop_server_answers(["a.py"], ["run"]) == 0
        store.clear_project()
        assert "server_answers" not in _tables(db)  # nothing cached: the layout is kept
        store.put_server_answer("k1", "run", ["a.py"], ANSWER)
    finally:
        store.close()
    assert {"server_answers", "server_answer_paths"} <= _tables(db)

    reopened = SqliteStore(db, PROJECT)
    try:
        assert reopened.get_server_answer("k1") == ANSWER
    finally:
        reopened.close()


def _tables(db: Path) -> set[str]:
    conn = sqlite3.connect(db)
    try:
        return {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    finally:
        conn.close()
