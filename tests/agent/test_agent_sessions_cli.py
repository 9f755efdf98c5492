"""``ipuaro sessions list|show|delete|export|import`` through the real CLI (click runner) on a
real SQLite store holding a session made by the real agent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ipuaro.cli.main import build_cli
from tests.agent.conftest import ScriptedModel, call, open_harness
from tests.stubs.model_server import ModelStubServer, ScriptedReply


@pytest.fixture
async def session_id(project: Path, model_server: ModelStubServer) -> str:
    model = ScriptedModel(
        [
            call(
                "replace",
                path="shop/pricing.py",
                old="rate_percent: int = 20",
                new="rate_percent: int = 21",
            ),
            ScriptedReply(text="Raised the tax to 21 %."),
        ]
    )
    async with open_harness(project, model_server, "ollama", model, auto_apply=True) as h:
        await h.app.agent.send("raise the tax rate to 21 percent")
        return h.app.session.id


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(build_cli(), ["sessions", *args], catch_exceptions=False)
    return result.exit_code, result.output


async def test_list_and_show(project: Path, session_id: str) -> None:
    code, out = invoke("list", "--project", str(project))
    assert code == 0
    assert session_id in out and "raise the tax rate to 21 percent" in out
    code, out = invoke("list", "--project", str(project), "--json")
    rows = json.loads(out)
    assert rows[0]["id"] == session_id and rows[0]["messages"] == 4
    code, out = invoke("show", session_id, "--project", str(project))
    assert code == 0
    assert "user: raise the tax rate to 21 percent" in out
    assert "→ replace" in out and "assistant: Raised the tax to 21 %." in out


async def test_export_import_round_trip_with_undo(
    project: Path, session_id: str, tmp_path: Path
) -> None:
    target = tmp_path / "s.jsonl"
    code, out = invoke("export", session_id, "--jsonl", str(target), "--project", str(project))
    assert code == 0, out
    lines = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    assert lines[0]["type"] == "header" and lines[0]["id"] == session_id
    assert lines[0]["cwd"] == str(project.resolve())
    assert any(line["type"] == "undo" for line in lines)  # the applied edit can be undone later
    code, out = invoke("import", str(target), "--project", str(project))
    assert code == 1 and "already exists" in out
    code, out = invoke("import", str(target), "--project", str(project), "--new-id")
    assert code == 0 and "imported session" in out
    code, out = invoke("list", "--project", str(project), "--json")
    assert len(json.loads(out)) == 2


async def test_delete_and_unknown_ids(project: Path, session_id: str) -> None:
    code, out = invoke("delete", session_id, "--project", str(project))
    assert code == 0 and "deleted" in out
    code, out = invoke("show", session_id, "--project", str(project))
    assert code == 1 and "no session" in out and "ipuaro sessions list" in out


async def test_import_names_the_bad_line(project: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "header", "version": 7, "id": "x"}\n', encoding="utf-8")
    code, out = invoke("import", str(bad), "--project", str(project))
    assert code == 1 and "line 1" in out and "version 7" in out


async def test_export_needs_no_flag(project: Path, session_id: str, tmp_path: Path) -> None:
    target = tmp_path / "positional.jsonl"
    code, out = invoke("export", session_id, str(target), "--project", str(project))
    assert code == 0, out
    assert json.loads(target.read_text(encoding="utf-8").splitlines()[0])["id"] == session_id
    code, out = invoke("export", session_id, "--project", str(project))  # no file: stdout
    assert code == 0, out
    header = json.loads(out.splitlines()[0])
    assert header["type"] == "header" and header["id"] == session_id
    assert out == target.read_text(encoding="utf-8")


async def test_export_refuses_two_different_files(
    project: Path, session_id: str, tmp_path: Path
) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    code, out = invoke("export", session_id, str(a), "--jsonl", str(b), "--project", str(project))
    assert code == 2 and "give one" in out
    assert not a.exists() and not b.exists()
