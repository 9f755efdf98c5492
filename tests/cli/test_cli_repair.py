"""A damaged store end to end, as a user meets it: ``ipuaro index`` fails naming the repair,
``ipuaro doctor`` says ✗ with the fix, ``ipuaro index --rebuild`` repairs it and says what was
saved, and the sessions are still listed."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

from click.testing import CliRunner

from ipuaro.cli.main import cli
from ipuaro.domain import ChatMessage, Session
from ipuaro.store.naming import default_database, project_id
from ipuaro.store.sqlite import SqliteStore


def test_damaged_store_is_repaired_by_the_command_ipuaro_recommends(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    for i in range(80):
        body = "".join(f"export const v{i}_{j} = {j};\n" for j in range(40))
        (project / "src" / f"m{i}.ts").write_text(body)
    runner = CliRunner()
    first = runner.invoke(cli, ["index", str(project)], catch_exceptions=False)
    assert first.exit_code == 0, first.output
    db = default_database(project)
    store = SqliteStore(db, project_id(project))
    prompt = ChatMessage(role="user", content="keep me", timestamp=1.0)
    session = Session(
        id="kept",
        project_name=store.project_name,
        created_at=1.0,
        last_activity_at=1.0,
        history=[prompt],
    )
    store.save_session(session)
    store.close()
    conn = sqlite3.connect(db)
    pages = [page for (page,) in conn.execute("SELECT pageno FROM dbstat WHERE name = 'files'")]
    conn.close()
    with open(db, "r+b") as handle:  # 8 KB of garbage in the middle of the files table
        handle.seek((sorted(pages)[len(pages) // 2] - 1) * 4096)
        handle.write(random.Random(1).randbytes(8192))

    (project / "src" / "m0.ts").write_text("export const changed = 1;\n")
    broken = runner.invoke(cli, ["index", str(project)], catch_exceptions=False)
    assert broken.exit_code == 1
    assert "Traceback" not in broken.output and "ipuaro index --rebuild" in broken.output

    doctor = runner.invoke(cli, ["doctor", str(project)], catch_exceptions=False)
    store_line = next(line for line in doctor.output.splitlines() if line[2:].startswith("store"))
    assert store_line.startswith("✗") and "damaged" in store_line, doctor.output
    assert "ipuaro index --rebuild" in doctor.output

    repaired = runner.invoke(cli, ["index", str(project), "--rebuild"], catch_exceptions=False)
    assert repaired.exit_code == 0, repaired.output
    assert ".corrupt-" in repaired.output and "1 session(s)" in repaired.output
    assert list(db.parent.glob(db.name + ".corrupt-*"))

    listed = runner.invoke(cli, ["sessions", "list", "--project", str(project)])
    assert "kept" in listed.output, listed.output
    doctor = runner.invoke(cli, ["doctor", str(project)], catch_exceptions=False)
    assert "✓ store: SQLite" in doctor.output
