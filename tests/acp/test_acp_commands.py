"""Slash commands from the editor's prompt box: offered as ACP available commands, answered by
the workspace — /undo takes back an edit made in the same session."""

from __future__ import annotations

import asyncio
from pathlib import Path

from acp import text_block
from acp.schema import AvailableCommandsUpdate

from tests.acp.conftest import TIMEOUT, RecordingClient, acp_agent, acp_env
from tests.acp.test_acp_flow import ROUND_DOWN, ROUND_HALF_UP, edit_script
from tests.stubs.model_server import ModelStubServer, ScriptedReply


async def test_slash_commands_undo_report_and_explain_themselves(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    pricing = project / "shop" / "pricing.py"
    original = pricing.read_text()
    client = RecordingClient(answer="apply")
    async with acp_agent(client, acp_env(tmp_path, model_server), project) as conn:
        session = await asyncio.wait_for(conn.new_session(cwd=str(project)), TIMEOUT)
        [offered] = client.of(AvailableCommandsUpdate)
        names = [c.name for c in offered.available_commands]
        assert {"undo", "redo", "status", "eval", "plan"} <= set(names)
        assert "sessions" not in names  # the editor lists and loads sessions itself

        async def say(text: str) -> str:
            client.clear()
            response = await asyncio.wait_for(
                conn.prompt(session_id=session.session_id, prompt=[text_block(text)]), TIMEOUT
            )
            assert response.stop_reason == "end_turn"
            return client.text()

        edit_script(model_server, ROUND_DOWN, ROUND_HALF_UP, "Tax now rounds half up.")
        await say("round the tax")
        assert pricing.read_text() != original
        requests = len(model_server.chat_requests())

        assert "undone" in (await say("/undo")).lower()
        assert pricing.read_text() == original
        assert "model" in await say("/status")
        assert "frobnicate" in await say("/frobnicate")
        assert "terminal UI" in await say("/sessions list")
        assert len(model_server.chat_requests()) == requests  # none of these asked the model

        model_server.enqueue(ScriptedReply(text="The answer cited shop/pricing.py correctly."))
        said = await say("/eval")
        assert "evidence from the index" in said
        assert said.endswith("The answer cited shop/pricing.py correctly.")


async def test_a_custom_command_is_offered_and_sends_its_template(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    commands = project / ".ipuaro" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text("---\ndescription: Review a file\n---\nReview $1 now.")
    client = RecordingClient(answer="apply")
    async with acp_agent(client, acp_env(tmp_path, model_server), project) as conn:
        session = await asyncio.wait_for(conn.new_session(cwd=str(project)), TIMEOUT)
        [offered] = client.of(AvailableCommandsUpdate)
        review = next(c for c in offered.available_commands if c.name == "review")
        assert review.description == "Review a file [project]"
        model_server.enqueue(ScriptedReply(text="Reviewed the pricing."))
        response = await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=[text_block("/review shop/x.py")]),
            TIMEOUT,
        )
        assert response.stop_reason == "end_turn"
        assert client.text().endswith("Reviewed the pricing.")
    (body,) = model_server.chat_requests()
    assert "Review shop/x.py now." in str(body["messages"])
