"""What an editor's prompt gets beside requests: ``!command`` runs under the command policy
and its output reaches the model with the next prompt; a resource link gives the model the
file."""

from __future__ import annotations

import asyncio
from pathlib import Path

from acp import resource_link_block, text_block

from tests.acp.conftest import TIMEOUT, RecordingClient, acp_agent, acp_env
from tests.stubs.model_server import ModelStubServer, ScriptedReply


async def test_a_bang_command_answers_with_its_output_and_the_model_sees_it(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    (project / "marker_file.txt").write_text("x\n", encoding="utf-8")
    client = RecordingClient(answer="apply")
    async with acp_agent(client, acp_env(tmp_path, model_server), project) as conn:
        session = await asyncio.wait_for(conn.new_session(cwd=str(project)), TIMEOUT)

        async def say(text: str) -> str:
            client.clear()
            response = await asyncio.wait_for(
                conn.prompt(session_id=session.session_id, prompt=[text_block(text)]), TIMEOUT
            )
            assert response.stop_reason == "end_turn"
            return client.text()

        assert "marker_file.txt" in await say("!ls")
        assert model_server.chat_requests() == []
        model_server.enqueue(ScriptedReply(text="I see it."))
        await say("what is in the listing?")
    [body] = model_server.chat_requests()
    users = [str(m["content"]) for m in body["messages"] if m["role"] == "user"]
    assert any("`ls`" in text and "marker_file.txt" in text for text in users)


async def test_a_resource_link_gives_the_model_that_file(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    pricing = project / "shop" / "pricing.py"
    client = RecordingClient(answer="apply")
    model_server.enqueue(ScriptedReply(text="It rounds the tax."))
    async with acp_agent(client, acp_env(tmp_path, model_server), project) as conn:
        session = await asyncio.wait_for(conn.new_session(cwd=str(project)), TIMEOUT)
        prompt = [
            text_block("what does this do?"),
            resource_link_block("pricing.py", pricing.as_uri()),
        ]
        response = await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=prompt), TIMEOUT
        )
        assert response.stop_reason == "end_turn"
    [body] = model_server.chat_requests()
    users = [str(m["content"]) for m in body["messages"] if m["role"] == "user"]
    assert any(pricing.read_text(encoding="utf-8").strip() in text for text in users[:-1])
    assert "@shop/pricing.py:" in users[-2]
