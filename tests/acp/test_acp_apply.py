"""Plan then apply from an editor over ACP: a ``plan:`` request stores the plan, ``ok`` asks
permission once with the whole change and applies it, ``/undo`` takes all of it back; ``/apply``
with nothing stored says so."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from acp import text_block

from tests.acp.conftest import TIMEOUT, RecordingClient, acp_agent, acp_env
from tests.stubs.model_server import ModelStubServer, ScriptedReply

PLAN = {
    "mode": "fix-plan",
    "summary": "Add a changelog",
    "questions": [],
    "context_requests": [],
    "plan": [{"step": "Write CHANGELOG.md", "details": ""}],
    "proposed_changes": {
        "actions": [
            {"kind": "CREATE_DIR", "path": "notes"},
            {"kind": "CREATE_FILE", "path": "notes/CHANGELOG.md", "content": "# Changes\n"},
        ],
        "commands_to_run": [],
    },
    "risks": [],
    "memory_patch": {},
}


async def test_plan_ok_undo_and_apply_without_a_plan(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    client = RecordingClient(answer="apply")
    async with acp_agent(client, acp_env(tmp_path, model_server), project) as conn:
        session = await asyncio.wait_for(conn.new_session(cwd=str(project)), TIMEOUT)

        async def say(text: str) -> str:
            client.clear()
            response = await asyncio.wait_for(
                conn.prompt(session_id=session.session_id, prompt=[text_block(text)]), TIMEOUT
            )
            assert response.stop_reason in ("end_turn", "refusal"), response
            return client.text()

        assert (await say("/apply")).startswith("ERR_NO_PLAN")
        model_server.enqueue(ScriptedReply(text=json.dumps(PLAN)))
        await say("plan: add a changelog")
        assert not (project / "notes").exists()
        said = await say("ok")
        assert "Applied the plan as one change" in said
        # one question for the whole change, then one per remembered command (the fixture's
        # .ipuaro/project.json names a test and a lint command; the plan names none)
        asked, *commands = client.permissions
        assert asked.tool_call.title == "Apply the plan: 1 file, 1 folder(s)"
        assert len(commands) == 2
        assert (project / "notes/CHANGELOG.md").read_text() == "# Changes\n"
        assert "undone" in (await say("/undo")).lower()
        assert not (project / "notes").exists()
