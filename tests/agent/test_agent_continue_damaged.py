"""``ipuaro run --continue`` (a real subprocess, the stub model server) when the newest stored
session has one bad byte: the run resumes the newest readable session and says which one it
skipped, instead of failing with a traceback."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from ipuaro.domain import ChatMessage, Session
from ipuaro.store.naming import default_database, project_id
from ipuaro.store.sqlite import SqliteStore
from tests.agent.test_agent_headless import run, run_env
from tests.stubs.model_server import ModelStubServer, ScriptedReply


def test_continue_skips_a_damaged_newest_session_and_says_so(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    env = run_env(tmp_path, model_server)
    db = default_database(project)  # the fixture points IPUARO_DATA_DIR where run_env does
    db.parent.mkdir(parents=True, exist_ok=True)
    store = SqliteStore(db, project_id(project))
    for number in range(3):
        prompt = ChatMessage(role="user", content=f"earlier request {number}", timestamp=1.0)
        store.save_session(
            Session(
                id=f"earlier{number}",
                project_name=store.project_name,
                created_at=1000.0 + number,
                last_activity_at=1000.0 + number,
                history=[prompt],
            )
        )
    store.close()
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(db.read_bytes())
    data[data.find(b"earlier request 2")] ^= 0x80  # the newest: no longer UTF-8
    db.write_bytes(bytes(data))

    model_server.enqueue(ScriptedReply(text="Picked up where we were."))
    done = run(project, env, "-p", "go on", "--output", "json", "--continue")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["sessionId"] == "earlier1"
    assert "skipped damaged session earlier2" in done.stderr
    assert "Traceback" not in done.stderr
