from __future__ import annotations

import time
from pathlib import Path

import pytest

from ipuaro.agent.context.history import summary_message, user_message
from ipuaro.agent.sessions.keeper import SessionKeeper, SessionNotFound
from ipuaro.config.schema import SessionConfig
from ipuaro.store.sqlite import SqliteStore


@pytest.fixture
def store(tmp_path: Path):  # type: ignore[no-untyped-def]
    opened = SqliteStore(tmp_path / "s.db", "tmp-proj")
    yield opened
    opened.close()


def test_create_save_load_and_resume_last(store: SqliteStore) -> None:
    keeper = SessionKeeper(store, SessionConfig())
    first = keeper.create("m")
    time.sleep(0.01)
    second = keeper.create("m")
    second.history.append(user_message("hello there\nsecond line"))
    keeper.save(second)
    loaded = keeper.load(second.id)
    assert loaded.title == "hello there"
    assert loaded.history[0].content.startswith("hello")
    assert keeper.resume_or_create("m").id == second.id
    assert keeper.resume_or_create("m", new=True).id not in (first.id, second.id)


def test_unknown_session_names_the_command_to_list_them(store: SqliteStore) -> None:
    keeper = SessionKeeper(store, SessionConfig())
    keeper.create()
    with pytest.raises(SessionNotFound, match="ipuaro sessions list"):
        keeper.load("nope")


def test_trim_only_drops_messages_the_model_no_longer_sees(store: SqliteStore) -> None:
    keeper = SessionKeeper(store, SessionConfig(max_history_messages=4))
    session = keeper.create()
    session.history = [user_message(f"m{i}") for i in range(6)]
    assert keeper.trim(session) == 0  # no compaction yet: everything is in the model's view
    session.history.insert(5, summary_message("s", 1, 1))
    assert keeper.trim(session) == 3
    assert [m.content for m in session.history] == ["m3", "m4", "s", "m5"]


def test_input_history_goes_to_the_store(store: SqliteStore) -> None:
    keeper = SessionKeeper(store, SessionConfig())
    session = keeper.create()
    keeper.record_input(session, "first")
    assert store.get_input_history(session.id) == ["first"]
    off = SessionKeeper(store, SessionConfig(save_input_history=False))
    off.record_input(session, "second")
    assert store.get_input_history(session.id) == ["first"]
