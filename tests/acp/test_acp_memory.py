"""Engineering memory over ACP (a real ``ipuaro acp`` process): /memory from the editor's
prompt box, and a scripted model's ``remember`` call put to the editor as a permission
question — "apply" writes, anything else leaves the file."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from acp import text_block
from acp.schema import AvailableCommandsUpdate

from tests.acp.conftest import TIMEOUT, RecordingClient, acp_agent, acp_env
from tests.stubs.model_server import ModelStubServer, ScriptedReply, StubToolCall


def remember(patch: dict[str, object]) -> ScriptedReply:
    return ScriptedReply(
        tool_calls=[StubToolCall(name="remember", arguments={"memory_patch": patch})]
    )


async def test_memory_over_acp(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    prefs = project / ".ipuaro" / "project.json"
    client = RecordingClient(answer="reject")
    async with acp_agent(client, acp_env(tmp_path, model_server), project) as conn:
        session = await asyncio.wait_for(conn.new_session(cwd=str(project)), TIMEOUT)
        [offered] = client.of(AvailableCommandsUpdate)
        assert "memory" in [c.name for c in offered.available_commands]

        async def say(text: str) -> str:
            client.clear()
            response = await asyncio.wait_for(
                conn.prompt(session_id=session.session_id, prompt=[text_block(text)]), TIMEOUT
            )
            assert response.stop_reason == "end_turn"
            return client.text()

        assert "remembered 1 value" in await say("/memory set project.ci_notes nightly tox")
        shown = await say("/memory")
        assert "project.ci_notes" in shown and "'nightly tox'" in shown

        before = prefs.read_bytes()
        model_server.enqueue(
            remember({"project.default_test_command": "python3 -m pytest -q"}),
            ScriptedReply(text="Not remembered."),
        )
        await say("remember the test command")
        [asked] = client.permissions
        assert asked.tool_call.title == "Remember this?"
        assert [o.option_id for o in asked.options] == ["apply", "reject"]
        assert prefs.read_bytes() == before

        client.answer = "apply"
        model_server.enqueue(
            remember({"project.default_test_command": "python3 -m pytest -q"}),
            ScriptedReply(text="Remembered."),
        )
        await say("remember the test command, really")
    saved = json.loads(prefs.read_text())
    assert saved["default_test_command"] == "python3 -m pytest -q"
    assert saved["ci_notes"] == "nightly tox"
