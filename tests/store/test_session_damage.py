"""One bad byte in one stored session, as a user meets it through the real CLI on a real SQLite
file (and one bad value in one session key of a real redis-server): the other sessions still
list, show, export and resume; the damaged one is listed as damaged with what to do, can be
deleted, and ``doctor`` names it. A damaged file header (which hides every page from SQLite) no
longer loses the sessions: ``--rebuild`` reads them through a copy with a rebuilt header."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
import redis
from click.testing import CliRunner

from ipuaro.agent.sessions.keeper import SessionKeeper
from ipuaro.cli.main import cli
from ipuaro.config.schema import SessionConfig
from ipuaro.core.sessions import SessionArchive
from ipuaro.domain import ChatMessage, Session
from ipuaro.store.naming import default_database, project_id
from ipuaro.store.sqlite import SqliteStore

from .conftest import PROJECT, RedisServer
from .samples import full_session

COUNT = 17
DAMAGED = 7


def session_id(number: int) -> str:
    return f"sess{number:08d}"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("IPUARO_DATA_DIR", str(tmp_path / "data"))
    root = tmp_path / "project"
    root.mkdir()
    (root / "app.py").write_text("def main():\n    return 1\n")
    db = default_database(root)
    db.parent.mkdir(parents=True)
    store = SqliteStore(db, project_id(root))
    for number in range(COUNT):
        prompt = f"question number {number}: " + "lorem ipsum " * 40
        store.save_session(
            Session(
                id=session_id(number),
                project_name=store.project_name,
                created_at=1000.0 + number,
                last_activity_at=1000.0 + number,
                title=f"title {number}",
                history=[ChatMessage(role="user", content=prompt, timestamp=1.0)],
            )
        )
    store.close()
    with sqlite3.connect(db) as conn:  # everything into the main file, as after a clean exit
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return root


def flip(db: Path, offset: int, mask: int) -> None:
    data = bytearray(db.read_bytes())
    data[offset] ^= mask
    db.write_bytes(bytes(data))


def flip_in_session(db: Path, number: int, mask: int) -> None:
    offset = db.read_bytes().find(f"question number {number}:".encode())
    assert offset > 0
    flip(db, offset, mask)


def sessions(project: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["sessions", *args, "--project", str(project)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("mask", [0x80, 0x02], ids=["text-no-longer-utf8", "json-no-longer-valid"])
def test_one_flipped_byte_leaves_the_other_sessions_usable(project: Path, mask: int) -> None:
    db = default_database(project)
    if mask == 0x02:  # '"' → ' ': the JSON no longer parses, the bytes are still UTF-8
        text = db.read_bytes()
        start = text.find(f"question number {DAMAGED}:".encode())
        flip(db, text.rfind(b'"content"', 0, start), mask)
    else:
        flip_in_session(db, DAMAGED, mask)
    bad = session_id(DAMAGED)

    code, out, _ = sessions(project, "list")
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == COUNT
    damaged = [line for line in lines if "DAMAGED" in line]
    assert len(damaged) == 1 and damaged[0].startswith(bad)
    assert f"ipuaro sessions delete {bad}" in damaged[0]
    code, out, _ = sessions(project, "list", "--json")
    rows = json.loads(out)
    assert [row["id"] for row in rows if "damaged" in row] == [bad]
    assert len([row for row in rows if "title" in row]) == COUNT - 1

    code, out, _ = sessions(project, "show", session_id(3))
    assert code == 0 and "question number 3:" in out
    code, out, _ = sessions(project, "export", session_id(16))
    assert code == 0 and json.loads(out.splitlines()[0])["id"] == session_id(16)
    code, _, err = sessions(project, "show", bad)
    assert code == 1 and "cannot be read" in err and "Traceback" not in err

    doctor = CliRunner().invoke(cli, ["doctor", str(project)])
    store_line = next(line for line in doctor.stdout.splitlines() if "store:" in line)
    assert (
        store_line.startswith("✗") and bad in store_line and "ipuaro sessions delete" in store_line
    )

    store = SqliteStore(db, project_id(project))
    try:
        keeper = SessionKeeper(store, SessionConfig())
        last = keeper.last()
        assert last is not None and last.id == session_id(COUNT - 1)
        assert len(keeper.notices) == 1 and bad in keeper.notices[0]  # looked at, said
    finally:
        store.close()

    code, out, _ = sessions(project, "delete", bad)
    assert code == 0 and f"deleted session {bad}" in out
    code, out, _ = sessions(project, "list")
    assert "DAMAGED" not in out and len(out.splitlines()) == COUNT - 1


def test_resume_skips_a_damaged_newest_session_and_says_so(project: Path) -> None:
    db = default_database(project)
    newest = COUNT - 1
    flip_in_session(db, newest, 0x80)
    store = SqliteStore(db, project_id(project))
    try:
        keeper = SessionKeeper(store, SessionConfig())
        resumed = keeper.resume_or_create(None)
        assert resumed.id == session_id(newest - 1)
        assert len(keeper.notices) == 1 and session_id(newest) in keeper.notices[0]
        assert "skipped damaged session" in keeper.notices[0]
    finally:
        store.close()


def test_rebuild_moves_a_file_with_an_undecodable_session_aside_and_saves_the_rest(
    project: Path,
) -> None:
    db = default_database(project)
    flip_in_session(db, DAMAGED, 0x80)
    store = SqliteStore.rebuild(db, project_id(project))
    try:
        assert store.salvage is not None
        assert store.salvage.moved_to.name.startswith(db.name + ".corrupt-")
        assert store.salvage.tables["sessions"].saved == COUNT - 1
        assert store.salvage.tables["sessions"].undecodable == 1
        assert session_id(DAMAGED) not in store.list_sessions()
        assert all(store.load_session(sid) is not None for sid in store.list_sessions())
    finally:
        store.close()


@pytest.mark.parametrize("offset", [0, 16], ids=["magic", "page-size"])
def test_rebuild_salvages_every_session_from_a_file_whose_header_is_damaged(
    project: Path, offset: int
) -> None:
    db = default_database(project)
    flip(db, offset, 0x41)
    code, _, err = sessions(project, "list")
    assert code == 1 and "ipuaro index --rebuild" in err and "Traceback" not in err
    doctor = CliRunner().invoke(cli, ["doctor", str(project)])
    store_line = next(line for line in doctor.stdout.splitlines() if "store:" in line)
    assert store_line.startswith("✗") and ".corrupt-" in store_line and ".bak" not in store_line

    rebuilt = CliRunner().invoke(cli, ["index", "--rebuild", str(project)])
    assert rebuilt.exit_code == 0, rebuilt.output
    assert f"Saved: {COUNT} session(s)" in rebuilt.output
    assert list(db.parent.glob(db.name + ".corrupt-*"))
    code, out, _ = sessions(project, "list")
    assert code == 0 and len(out.splitlines()) == COUNT and "DAMAGED" not in out
    code, out, _ = sessions(project, "show", session_id(DAMAGED))
    assert code == 0 and f"question number {DAMAGED}:" in out


@pytest.mark.redis
def test_redis_one_bad_value_in_one_session_leaves_the_others_usable(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    store = redis_server.store()
    try:
        for number in range(5):
            session = full_session(session_id(number), PROJECT)
            session.last_activity_at += number
            store.save_session(session)
        raw = redis.Redis(port=redis_server.port)
        try:  # one byte of one session's history is no longer UTF-8
            history = raw.hget(f"session:{session_id(4)}:data", "history")
            assert isinstance(history, bytes)
            raw.hset(f"session:{session_id(4)}:data", "history", history.replace(b"a", b"\xe1", 1))
        finally:
            raw.close()
        archive = SessionArchive(store, tmp_path)
        infos = archive.sessions(include_damaged=True)
        assert [i.id for i in infos if i.damaged is None] == [session_id(n) for n in range(4)]
        damaged = [i for i in infos if i.damaged is not None]
        assert [i.id for i in damaged] == [session_id(4)]
        assert "ipuaro sessions delete" in str(damaged[0].damaged)
        assert archive.export(session_id(1))[0].startswith('{"type": "header"')
        keeper = SessionKeeper(store, SessionConfig())
        resumed = keeper.resume_or_create(None)
        assert resumed.id == session_id(3)  # the newest readable one
        assert session_id(4) in keeper.notices[0]
        assert archive.delete(session_id(4)) == "deleted"
        assert all(i.damaged is None for i in archive.sessions(include_damaged=True))
    finally:
        store.close()


def test_a_damaged_page_of_the_sessions_table_hides_only_the_sessions_on_it(
    project: Path,
) -> None:
    db = default_database(project)
    with sqlite3.connect(db) as conn:
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'sessions'").fetchone()
    data = bytearray(db.read_bytes())
    start = (root[0] - 1) * page_size
    assert data[start] == 0x05, "the sessions table spans several leaf pages"
    first_cell = int.from_bytes(data[start + 12 : start + 14], "big")
    leaf = int.from_bytes(data[start + first_cell : start + first_cell + 4], "big")
    data[(leaf - 1) * page_size] = 0x00  # the first leaf's page type: no longer a b-tree page
    db.write_bytes(bytes(data))

    code, out, err = sessions(project, "list")
    assert code == 0, err
    listed = [line.split()[0] for line in out.splitlines()]
    assert 0 < len(listed) < COUNT and session_id(COUNT - 1) in listed
    assert "damaged pages" in err and "ipuaro index --rebuild" in err
    code, out, _ = sessions(project, "show", listed[0])
    assert code == 0 and "question number" in out

    rebuilt = CliRunner().invoke(cli, ["index", "--rebuild", str(project)])
    assert rebuilt.exit_code == 0, rebuilt.output
    assert f"Saved: {len(listed)} session(s)" in rebuilt.output
