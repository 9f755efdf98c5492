""" "Always" through the editor: an edit or a command answered with the ``allow_always``
option is not asked about again in that ACP session, and is asked again in a new session."""

from __future__ import annotations

import asyncio
from pathlib import Path

from acp import text_block

from tests.acp.conftest import TIMEOUT, RecordingClient, acp_agent, acp_env
from tests.stubs.model_server import ModelStubServer, ScriptedReply, StubToolCall

ROUND_DOWN = "    return amount * rate_percent // 100"
ROUND_HALF_UP = "    return (amount * rate_percent + 50) // 100"
NEGATIVE = '        raise ValueError("a discount cannot be negative")'
NEGATIVE_NEW = '        raise ValueError(f"negative discount: {percent}")'


def edit(server: ModelStubServer, old: str, new: str) -> None:
    call = StubToolCall(
        name="replace", arguments={"path": "shop/pricing.py", "old": old, "new": new}
    )
    server.enqueue(ScriptedReply(tool_calls=[call]), ScriptedReply(text="Done."))


def command(server: ModelStubServer, text: str) -> None:
    call = StubToolCall(name="run_command", arguments={"command": text})
    server.enqueue(ScriptedReply(tool_calls=[call]), ScriptedReply(text="Ran it."))


async def test_always_on_an_edit_holds_for_the_acp_session_only(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    pricing = project / "shop" / "pricing.py"
    client = RecordingClient(answer="always")
    async with acp_agent(client, acp_env(tmp_path, model_server), project) as conn:
        first = await asyncio.wait_for(conn.new_session(cwd=str(project)), TIMEOUT)

        async def prompt(session_id: str, text: str) -> None:
            client.clear()
            response = await asyncio.wait_for(
                conn.prompt(session_id=session_id, prompt=[text_block(text)]), TIMEOUT
            )
            assert response.stop_reason == "end_turn"

        edit(model_server, ROUND_DOWN, ROUND_HALF_UP)
        await prompt(first.session_id, "round half up")
        [asked] = client.permissions
        always = [o for o in asked.options if o.option_id == "always"]
        assert [o.kind for o in always] == ["allow_always"], asked.options
        assert ROUND_HALF_UP in pricing.read_text()

        edit(model_server, NEGATIVE, NEGATIVE_NEW)
        await prompt(first.session_id, "reword the error")
        assert client.permissions == [], "the session's later edits apply unasked"
        assert NEGATIVE_NEW in pricing.read_text()

        second = await asyncio.wait_for(conn.new_session(cwd=str(project)), TIMEOUT)
        client.answer = "reject"
        edit(model_server, NEGATIVE_NEW, NEGATIVE)
        await prompt(second.session_id, "put the error back")
        assert len(client.permissions) == 1, "a new session starts without the grant"
        assert NEGATIVE_NEW in pricing.read_text()


async def test_always_on_a_command_holds_for_the_acp_session_only(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    client = RecordingClient(answer="always")
    async with acp_agent(client, acp_env(tmp_path, model_server), project) as conn:
        first = await asyncio.wait_for(conn.new_session(cwd=str(project)), TIMEOUT)

        async def prompt(session_id: str, text: str) -> None:
            client.clear()
            command(model_server, text)
            response = await asyncio.wait_for(
                conn.prompt(session_id=session_id, prompt=[text_block("copy it")]), TIMEOUT
            )
            assert response.stop_reason == "end_turn"

        await prompt(first.session_id, "cp shop/pricing.py one.py")  # `cp`: on no list
        assert len(client.permissions) == 1
        await prompt(first.session_id, "cp shop/pricing.py two.py")
        assert client.permissions == [], "`cp` was granted for the session"
        assert (project / "one.py").exists() and (project / "two.py").exists()

        second = await asyncio.wait_for(conn.new_session(cwd=str(project)), TIMEOUT)
        client.answer = "reject"
        await prompt(second.session_id, "cp shop/pricing.py three.py")
        assert len(client.permissions) == 1, "a new session starts without the grant"
        assert not (project / "three.py").exists()
