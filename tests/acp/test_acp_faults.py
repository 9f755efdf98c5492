"""Faults on the wire that used to kill or poison ``ipuaro acp`` (a real subprocess): a line of
100,000 ``[``, a prompt holding a lone surrogate, a method name holding one, nesting too deep
to act on, ids of the wrong type — each gets a JSON-RPC error, the server keeps answering and the
session stays usable. And a model-written regex that backtracks exponentially: cancel still
reaches the turn and the server answers other requests meanwhile."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from acp import text_block
from acp.schema import ToolCallStart

from tests.acp.conftest import TIMEOUT, RecordingClient, acp_agent, acp_env
from tests.acp.test_acp_bad_input import RawClient
from tests.stubs.model_server import ModelStubServer, ScriptedReply, StubToolCall


def line(message: dict[str, Any]) -> str:
    return json.dumps(message)  # ensure_ascii: a lone surrogate goes out as the escape \\ud800


async def test_bad_lines_are_answered_and_the_session_stays_usable(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    client = await RawClient.start(
        acp_env(tmp_path, model_server), project, tmp_path / "stderr.log"
    )
    try:
        await client.call(1, "initialize", {"protocolVersion": 1})
        opened = await client.call(2, "session/new", {"cwd": str(project), "mcpServers": []})
        session = opened["result"]["sessionId"]

        await client.send("[" * 100_000)
        deep = await client.reply()
        assert deep["id"] is None and deep["error"]["code"] == -32700
        assert "too deeply" in deep["error"]["message"]

        nested: Any = "x"
        for _ in range(200):  # parses, but deeper than any ACP message
            nested = [nested]
        too_deep = await client.call(3, "session/new", {"cwd": str(project), "meta": nested})
        assert too_deep["error"]["code"] == -32602 and "deeper than" in too_deep["error"]["message"]

        poisoned = {"sessionId": session, "prompt": [{"type": "text", "text": "fix \ud800 it"}]}
        refused = await client.call(4, "session/prompt", poisoned)
        assert refused["error"]["code"] == -32602
        assert "params.prompt[0].text" in refused["error"]["message"]
        assert "surrogate" in refused["error"]["message"]

        await client.send(line({"jsonrpc": "2.0", "id": 5, "method": "session/\ud800"}))
        method = await client.reply()
        assert method["id"] == 5 and method["error"]["code"] == -32600
        assert "method name" in method["error"]["message"]

        await client.send(line({"jsonrpc": "2.0", "id": [1], "method": "initialize"}))
        bad_id = await client.reply()
        assert bad_id["id"] is None and bad_id["error"]["code"] == -32600

        await client.send(line({"jsonrpc": "2.0", "id": {"a": 1}, "result": {}}))
        bad_response = await client.reply()
        assert bad_response["id"] is None and bad_response["error"]["code"] == -32600

        await client.send('{"jsonrpc": "2.0", "id": 6, "method": "initialize", "params": NaN}')
        nan = await client.reply()
        assert nan["error"]["code"] == -32700

        # The session was never poisoned: the next prompt is answered normally.
        model_server.enqueue(ScriptedReply(text="All good."))
        answered = await client.call(
            7, "session/prompt", {"sessionId": session, "prompt": [{"type": "text", "text": "hi"}]}
        )
        assert answered["result"]["stopReason"] == "end_turn", answered
        again = await client.call(8, "initialize", {"protocolVersion": 1})
        assert again["result"]["protocolVersion"] == 1
    finally:
        code = await client.finish()
    log = (tmp_path / "stderr.log").read_text()
    assert code == 0, log
    assert "Traceback" not in log, log


async def test_cancel_reaches_a_turn_stuck_in_a_runaway_regex(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    (project / "as.txt").write_text("a" * 60 + "b\n")
    client = RecordingClient()
    async with acp_agent(client, acp_env(tmp_path, model_server), project) as conn:
        session = await asyncio.wait_for(conn.new_session(cwd=str(project)), TIMEOUT)
        grep = StubToolCall(
            name="grep_search", arguments={"query": "(a|aa)+$", "regex": True, "path": "as.txt"}
        )
        model_server.enqueue(ScriptedReply(tool_calls=[grep]), ScriptedReply(text="Still here."))
        searching = asyncio.Event()
        client.on_update = lambda update: (
            searching.set() if isinstance(update, ToolCallStart) else None
        )
        turn = asyncio.ensure_future(
            conn.prompt(session_id=session.session_id, prompt=[text_block("find the a's")])
        )
        await asyncio.wait_for(searching.wait(), TIMEOUT)
        # The server still answers while the search runs (it used to stop answering at all).
        listed = await asyncio.wait_for(conn.list_sessions(cwd=str(project)), TIMEOUT)
        assert listed.sessions
        await conn.cancel(session_id=session.session_id)
        response = await asyncio.wait_for(turn, TIMEOUT)
        assert response.stop_reason == "cancelled"

        # The session goes on.
        response = await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=[text_block("short, please")]),
            TIMEOUT,
        )
        assert response.stop_reason == "end_turn"
        assert client.text().endswith("Still here.")
