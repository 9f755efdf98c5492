"""The editor's view: prompt → streamed chunks → a read reported → an edit asking permission
with its diff → allowed → the file changed; a rejected edit leaves the file alone; cancel ends
the turn within a second; a stored session comes back with session/load."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from acp import RequestError, text_block
from acp.schema import FileEditToolCallContent, UserMessageChunk

from tests.acp.conftest import TIMEOUT, RecordingClient, acp_agent, acp_env
from tests.stubs.model_server import ModelStubServer, ScriptedReply, StubToolCall

ROUND_DOWN = "    return amount * rate_percent // 100"
ROUND_HALF_UP = "    return (amount * rate_percent + 50) // 100"
NEGATIVE = '        raise ValueError("a discount cannot be negative")'
NEGATIVE_NEW = '        raise ValueError(f"negative discount: {percent}")'


def tool(name: str, **arguments: object) -> StubToolCall:
    return StubToolCall(name=name, arguments=dict(arguments))


def edit_script(server: ModelStubServer, old: str, new: str, answer: str) -> None:
    server.enqueue(
        ScriptedReply(
            text="Let me look at the pricing rules first.",
            chunks=5,
            tool_calls=[tool("get_lines", path="shop/pricing.py")],
        ),
        ScriptedReply(tool_calls=[tool("replace", path="shop/pricing.py", old=old, new=new)]),
        ScriptedReply(text=answer, chunks=3),
    )


async def test_prompt_streams_reads_and_asks_before_an_edit(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    pricing = project / "shop" / "pricing.py"
    original = pricing.read_text()
    client = RecordingClient(answer="apply")
    async with acp_agent(client, acp_env(tmp_path, model_server), project) as conn:
        session = await asyncio.wait_for(conn.new_session(cwd=str(project)), TIMEOUT)
        # The project was indexed first, and the client was told how far it got.
        progress = [line for line in client.text().splitlines() if line.startswith("Indexing")]
        assert progress[0].startswith("Indexing agent_app: 0/")
        assert len(progress) == len(set(progress))  # no line said twice
        assert "Indexed " in client.text()
        client.clear()

        edit_script(model_server, ROUND_DOWN, ROUND_HALF_UP, "Tax now rounds half up.")
        response = await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=[text_block("round the tax")]),
            TIMEOUT,
        )
        assert response.stop_reason == "end_turn"
        text = client.text()
        assert "Let me look at the pricing rules first." in text
        assert text.endswith("Tax now rounds half up.")
        assert len(client.of_type_chunks()) >= 5  # streamed, not one block

        starts = client.tool_starts()
        assert [(s.kind, s.status) for s in starts] == [
            ("read", "in_progress"),
            ("edit", "in_progress"),
        ]
        read, edit = starts
        assert read.locations and read.locations[0].path == str(pricing)
        ends = {u.tool_call_id: u for u in client.tool_updates() if u.status}
        assert ends[read.tool_call_id].status == "completed"
        assert ends[edit.tool_call_id].status == "completed"

        [asked] = client.permissions
        assert asked.tool_call.tool_call_id == edit.tool_call_id
        assert {o.option_id for o in asked.options} >= {"apply", "reject"}
        [diff] = [
            c for c in asked.tool_call.content or [] if isinstance(c, FileEditToolCallContent)
        ]
        assert diff.path == str(pricing)
        assert diff.old_text == original and ROUND_HALF_UP in diff.new_text
        assert pricing.read_text() == original.replace(ROUND_DOWN, ROUND_HALF_UP)

        # The second prompt's edit is rejected: the file stays as it is.
        client.clear()
        client.answer = "reject"
        before = pricing.read_text()
        edit_script(model_server, NEGATIVE, NEGATIVE_NEW, "Left it as it was.")
        response = await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=[text_block("reword the error")]),
            TIMEOUT,
        )
        assert response.stop_reason == "end_turn"
        assert len(client.permissions) == 1
        assert pricing.read_text() == before
        edit = client.tool_starts()[1]
        ends = {u.tool_call_id: u for u in client.tool_updates() if u.status}
        assert ends[edit.tool_call_id].status == "failed"


async def test_cancel_during_streaming_ends_the_turn(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    client = RecordingClient()
    async with acp_agent(client, acp_env(tmp_path, model_server), project) as conn:
        session = await asyncio.wait_for(conn.new_session(cwd=str(project)), TIMEOUT)
        client.clear()
        model_server.enqueue(
            ScriptedReply(text="word " * 200, chunks=200, chunk_delay=0.05),
            ScriptedReply(text="Still here."),
        )
        streaming = asyncio.Event()
        client.on_update = lambda update: streaming.set()
        turn = asyncio.ensure_future(
            conn.prompt(session_id=session.session_id, prompt=[text_block("explain everything")])
        )
        await asyncio.wait_for(streaming.wait(), TIMEOUT)
        # A second prompt while the first streams is refused, and the first goes on.
        with pytest.raises(RequestError) as busy:
            await conn.prompt(session_id=session.session_id, prompt=[text_block("and also")])
        assert busy.value.code == -32600 and "session/cancel" in str(busy.value)
        assert not turn.done()
        await conn.cancel(session_id=session.session_id)
        response = await asyncio.wait_for(turn, TIMEOUT)
        assert response.stop_reason == "cancelled"
        # It stopped mid-stream (the answer would stream 10 s; how fast the cancel lands is
        # measured in bench/cancel_bench.py, not asserted on a loaded machine).
        assert len(client.text()) < len("word " * 200)
        assert await asyncio.to_thread(model_server.disconnected.wait, TIMEOUT)

        # The session goes on after a cancel.
        response = await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=[text_block("short, please")]),
            TIMEOUT,
        )
        assert response.stop_reason == "end_turn"
        assert client.text().endswith("Still here.")


async def test_session_load_restores_a_stored_session(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    env = acp_env(tmp_path, model_server)
    client = RecordingClient(answer="apply")
    async with acp_agent(client, env, project) as conn:
        session = await asyncio.wait_for(conn.new_session(cwd=str(project)), TIMEOUT)
        edit_script(model_server, ROUND_DOWN, ROUND_HALF_UP, "Tax now rounds half up.")
        await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=[text_block("round the tax")]),
            TIMEOUT,
        )

    # A new process, a new client: the stored session comes back as updates.
    later = RecordingClient()
    async with acp_agent(later, env, project) as conn:
        await asyncio.wait_for(
            conn.load_session(cwd=str(project), session_id=session.session_id), TIMEOUT
        )
        [user] = later.of(UserMessageChunk)
        assert user.content.text == "round the tax"
        progress = [line for line in later.text().splitlines() if line.startswith("Indexing")]
        assert progress and len(progress) == len(set(progress))  # no progress line said twice
        assert "Tax now rounds half up." in later.text()
        assert [(s.kind, s.title) for s in later.tool_starts()] == [
            ("read", "get_lines"),
            ("edit", "replace"),
        ]
        assert {u.status for u in later.tool_updates()} == {"completed"}

        model_server.enqueue(ScriptedReply(text="It rounds half up now."))
        response = await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=[text_block("and now?")]), TIMEOUT
        )
        assert response.stop_reason == "end_turn"
        # The model saw the loaded history: the earlier request is in what it was sent.
        last = model_server.chat_requests()[-1]
        assert any("round the tax" in str(m.get("content")) for m in last["messages"])


async def test_an_unknown_command_asks_and_runs_only_when_allowed(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    command = "python3 -c \"open('made.txt', 'w').write('ran')\""
    client = RecordingClient(answer="reject")
    async with acp_agent(client, acp_env(tmp_path, model_server), project) as conn:
        session = await asyncio.wait_for(conn.new_session(cwd=str(project)), TIMEOUT)
        for answer in ("reject", "apply"):
            client.clear()
            client.answer = answer
            model_server.enqueue(
                ScriptedReply(tool_calls=[tool("run_command", command=command)]),
                ScriptedReply(text="Done."),
            )
            response = await asyncio.wait_for(
                conn.prompt(session_id=session.session_id, prompt=[text_block("make the file")]),
                TIMEOUT,
            )
            assert response.stop_reason == "end_turn"
            [asked] = client.permissions
            [start] = client.tool_starts()
            assert start.kind == "execute" and asked.tool_call.tool_call_id == start.tool_call_id
            assert asked.tool_call.kind == "execute"
            shown = [c.content.text for c in asked.tool_call.content or [] if c.type == "content"]
            assert any(command in text for text in shown), shown
            ends = {u.tool_call_id: u.status for u in client.tool_updates() if u.status}
            if answer == "reject":
                assert ends[start.tool_call_id] == "failed"
                assert not (project / "made.txt").exists()
        assert (project / "made.txt").read_text() == "ran"
        assert ends[start.tool_call_id] == "completed"


async def test_cancel_while_a_permission_question_is_open_leaves_the_file_alone(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    """The worst moment: the edit waits for the user's answer when the user cancels."""
    pricing = project / "shop" / "pricing.py"
    original = pricing.read_text()
    client = RecordingClient(answer="apply", hold=asyncio.Event())
    async with acp_agent(client, acp_env(tmp_path, model_server), project) as conn:
        session = await asyncio.wait_for(conn.new_session(cwd=str(project)), TIMEOUT)
        edit_script(model_server, ROUND_DOWN, ROUND_HALF_UP, "never said")
        turn = asyncio.ensure_future(
            conn.prompt(session_id=session.session_id, prompt=[text_block("round the tax")])
        )
        deadline = time.monotonic() + TIMEOUT
        while not client.permissions and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        assert client.permissions, "the edit never asked"
        # The question is still open (the client holds its answer): the turn ends anyway.
        await conn.cancel(session_id=session.session_id)
        response = await asyncio.wait_for(turn, TIMEOUT)
        assert response.stop_reason == "cancelled"
        assert not client.hold.is_set()
        client.hold.set()  # the user answers "apply" after all: too late, nothing is written
        await asyncio.sleep(0.2)
        assert pricing.read_text() == original
        edit = client.tool_starts()[-1]
        ends = {u.tool_call_id: u.status for u in client.tool_updates() if u.status}
        assert ends[edit.tool_call_id] == "failed"


async def test_a_refused_call_goes_back_to_the_model_and_the_turn_goes_on(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    """Issue 17, "same in ACP": a call the policy refuses (a blacklisted command, deleting a
    protected file) is reported as failed, the model reads "refused: …; choose another way or
    finish" as its result, and the turn ends with the model's answer, not an error."""
    (project / ".env").write_text("TOKEN=canary\n")
    client = RecordingClient(answer="apply")
    async with acp_agent(client, acp_env(tmp_path, model_server), project) as conn:
        session = await asyncio.wait_for(conn.new_session(cwd=str(project)), TIMEOUT)
        client.clear()
        asked_before = len(model_server.chat_requests())
        model_server.enqueue(
            ScriptedReply(tool_calls=[tool("run_command", command="rm -rf shop")]),
            ScriptedReply(tool_calls=[tool("delete_file", path=".env")]),
            ScriptedReply(text="I will not delete it; here is another way.", chunks=2),
        )
        response = await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=[text_block("clean the shop")]),
            TIMEOUT,
        )
        assert response.stop_reason == "end_turn"
        assert client.text().endswith("I will not delete it; here is another way.")
        assert (project / "shop" / "pricing.py").exists()
        assert (project / ".env").read_text() == "TOKEN=canary\n"
        starts = client.tool_starts()
        ends = {u.tool_call_id: u.status for u in client.tool_updates() if u.status}
        assert [ends[s.tool_call_id] for s in starts] == ["failed", "failed"]
        requests = model_server.chat_requests()[asked_before:]
        assert len(requests) == 3  # the turn went on after each refusal
        results = [
            str(m.get("content"))
            for m in requests[-1]["messages"]
            if "refused: " in str(m.get("content"))
        ]
        assert len(results) == 2, requests[-1]["messages"]
        assert all("choose another way or finish" in r for r in results), results
