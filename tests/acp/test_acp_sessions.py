"""Sessions and modes over ACP: session/list shows a project's stored sessions, and plan mode
answers with a plan (no tools offered, nothing asked, nothing written; the plan reaches the
client as an ACP plan update)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from acp import RequestError, text_block
from acp.schema import AgentPlanUpdate, CurrentModeUpdate, UserMessageChunk

from tests.acp.conftest import ACP_COMMAND, TIMEOUT, RecordingClient, acp_agent, acp_env
from tests.acp.test_acp_bad_input import RawClient
from tests.acp.test_acp_flow import ROUND_DOWN, ROUND_HALF_UP, tool
from tests.stubs.model_server import ModelStubServer, ScriptedReply


async def test_session_list_shows_the_projects_sessions_newest_first(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    client = RecordingClient()
    async with acp_agent(client, acp_env(tmp_path, model_server), project) as conn:
        first = await asyncio.wait_for(conn.new_session(cwd=str(project)), TIMEOUT)
        model_server.enqueue(ScriptedReply(text="Hello."))
        await asyncio.wait_for(
            conn.prompt(session_id=first.session_id, prompt=[text_block("say hello")]), TIMEOUT
        )
        await asyncio.sleep(0.05)  # a later activity time for the second session
        second = await asyncio.wait_for(conn.new_session(cwd=str(project)), TIMEOUT)
        listed = await asyncio.wait_for(conn.list_sessions(cwd=str(project)), TIMEOUT)
        assert [s.session_id for s in listed.sessions][:2] == [
            second.session_id,
            first.session_id,
        ]
        titled = {s.session_id: s.title for s in listed.sessions}
        assert titled[first.session_id] == "say hello"
        assert all(s.cwd == str(project) and s.updated_at for s in listed.sessions)
        with pytest.raises(RequestError) as missing:
            await conn.list_sessions()
        assert missing.value.code == -32602 and "cwd" in str(missing.value)


async def test_plan_mode_answers_a_plan_and_changes_nothing(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    pricing = project / "shop" / "pricing.py"
    original = pricing.read_text()
    client = RecordingClient(answer="apply")
    async with acp_agent(client, acp_env(tmp_path, model_server), project) as conn:
        session = await asyncio.wait_for(conn.new_session(cwd=str(project)), TIMEOUT)
        assert session.modes is not None and session.modes.current_mode_id == "code"
        assert [m.id for m in session.modes.available_modes] == ["code", "plan"]
        with pytest.raises(RequestError) as unknown:
            await conn.set_session_mode(session_id=session.session_id, mode_id="yolo")
        assert unknown.value.code == -32602 and "plan" in str(unknown.value)

        await asyncio.wait_for(
            conn.set_session_mode(session_id=session.session_id, mode_id="plan"), TIMEOUT
        )
        plan = {
            "mode": "fix-plan",
            "summary": "Round tax half up.",
            "plan": [{"step": "Change the rounding in tax()", "details": "half up"}],
            "proposed_changes": {
                # valid when read: an UPDATE_FILE of a file never read goes to the repair turn
                "actions": [{"kind": "CREATE_FILE", "path": "docs/rounding.md", "content": "x\n"}]
            },
        }
        model_server.enqueue(
            ScriptedReply(
                tool_calls=[
                    tool("replace", path="shop/pricing.py", old=ROUND_DOWN, new=ROUND_HALF_UP)
                ]
            ),
            ScriptedReply(text=json.dumps(plan)),
        )
        response = await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=[text_block("plan the rounding")]),
            TIMEOUT,
        )
        assert response.stop_reason == "end_turn"
        assert client.permissions == []  # nothing to ask: plan mode offers no tool at all
        assert pricing.read_text() == original
        assert all("tools" not in body for body in model_server.chat_requests())
        # The tool call was no plan: one repair, then the plan reached the client as a plan.
        assert "could not be used" in json.dumps(model_server.chat_requests()[-1]["messages"])
        plans = client.of(AgentPlanUpdate)
        assert [e.content for e in plans[-1].entries] == ["Change the rounding in tax() — half up"]
        assert all(e.status == "pending" for e in plans[-1].entries)
        assert [u.current_mode_id for u in client.of(CurrentModeUpdate)] == ["plan"]


async def test_a_large_project_is_indexed_only_when_the_user_allows_it(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    env = acp_env(tmp_path, model_server)
    env["IPUARO_LIMITS__MAX_FILES_WARNING"] = "3"  # agent_app has more files than that
    client = RecordingClient(answer="cancel")
    async with acp_agent(client, env, project) as conn:
        with pytest.raises(RequestError) as declined:
            await asyncio.wait_for(conn.new_session(cwd=str(project)), TIMEOUT)
        assert declined.value.code == -32603
        assert "limits.maxFilesWarning" in str(declined.value)
        [asked] = client.permissions
        ids = [o.option_id for o in asked.options]
        assert ids[0] == "continue" and ids[-1] == "cancel"
        assert ids[1:-1] and all(i.startswith("folder-") for i in ids[1:-1])  # a subfolder
        assert asked.tool_call.title == "Large project"

        client.clear()
        client.answer = "continue"
        session = await asyncio.wait_for(conn.new_session(cwd=str(project)), TIMEOUT)
        assert len(client.permissions) == 1 and session.session_id
        assert "Indexed " in client.text()


async def test_the_editor_going_away_mid_answer_loses_nothing(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    """The client's end of stdin closes while the answer streams (the editor quit): the
    server stops the turn, exits cleanly, and the session is there to load afterwards."""
    env = acp_env(tmp_path, model_server)
    process = await asyncio.create_subprocess_exec(
        *ACP_COMMAND,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
        cwd=project,
    )
    raw = RawClient(process)
    await raw.call(1, "initialize", {"protocolVersion": 1})
    opened = await raw.call(2, "session/new", {"cwd": str(project), "mcpServers": []})
    session_id = opened["result"]["sessionId"]
    model_server.enqueue(ScriptedReply(text="word " * 200, chunks=200, chunk_delay=0.05))
    prompt = {"sessionId": session_id, "prompt": [{"type": "text", "text": "explain all"}]}
    await raw.send(
        json.dumps({"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": prompt})
    )
    while (await raw.reply()).get("params", {}).get("update", {}).get("sessionUpdate") != (
        "agent_message_chunk"
    ) or not model_server.chat_requests():
        pass
    assert process.stdin is not None
    process.stdin.close()
    _, err = await asyncio.wait_for(process.communicate(), TIMEOUT)
    assert process.returncode == 0, err.decode()
    # It did not wait for the 10 s answer to end: the model server saw it hang up.
    assert await asyncio.to_thread(model_server.disconnected.wait, TIMEOUT)
    assert b"Traceback" not in err, err.decode()

    later = RecordingClient()
    async with acp_agent(later, env, project) as conn:
        await asyncio.wait_for(conn.load_session(cwd=str(project), session_id=session_id), TIMEOUT)
        [user] = later.of(UserMessageChunk)
        assert user.content.text == "explain all"
        kept = later.text().split("unchanged.\n", 1)[-1]
        assert kept.startswith("word") and kept.endswith("[interrupted]")  # what had streamed


async def test_the_start_warnings_reach_the_editor(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    """A repository's ``.ipuaro.json`` that sets a key only the user may set is ignored, and the
    editor is told so when the session opens (the TUI and headless runs say it too)."""
    (project / ".ipuaro.json").write_text(
        json.dumps({"edit": {"autoApply": True}}), encoding="utf-8"
    )
    client = RecordingClient()
    async with acp_agent(client, acp_env(tmp_path, model_server), project) as conn:
        await asyncio.wait_for(conn.new_session(cwd=str(project)), TIMEOUT)
        await asyncio.sleep(0.1)  # the updates sent before the response are delivered
    said = client.text()
    assert "Warning:" in said and "a project file may not set" in said
    assert "autoApply" in said or "auto_apply" in said
