"""Headless ``ipuaro run`` and ``ipuaro acp`` (the official ACP Python SDK as the client) on
real projects: the first index of the published code, then a prompt where the stub model calls
a tool on a real symbol and the tool's result reaches the model's next request."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from acp import text_block

from tests.acp.conftest import TIMEOUT, RecordingClient, acp_agent
from tests.agent.conftest import ScriptedModel, call, tool_outputs
from tests.realprojects.conftest import RealProject, lane_env
from tests.stubs.model_server import ModelStubServer, ScriptedReply

pytestmark = pytest.mark.realprojects

# project → (file, function, text of its body the tool result must carry)
LOOKUPS = {
    "rxjs": ("src/internal/util/isFunction.ts", "isFunction", "typeof value === 'function'"),
    "requests": (
        "src/requests/utils.py",
        "get_encoding_from_headers",
        'content_type = headers.get("content-type")',
    ),
}


def lookup_then_answer(name: str, seen: list[str]) -> ScriptedModel:
    path, function, _ = LOOKUPS[name]

    def answer(body: dict[str, Any]) -> ScriptedReply:
        seen.extend(tool_outputs(body))
        return ScriptedReply(text=f"{function} is defined in {path}.")

    return ScriptedModel([call("get_function", path=path, name=function), answer])


RUN = (sys.executable, "-m", "ipuaro", "run")


@pytest.fixture
def model_server() -> Any:
    with ModelStubServer() as server:
        yield server


@pytest.mark.parametrize("name", sorted(LOOKUPS))
def test_headless_run_on_a_real_project(
    name: str, real_project: RealProject, model_server: ModelStubServer, tmp_path: Path
) -> None:
    project = real_project(name)
    seen: list[str] = []
    model_server.responder = lookup_then_answer(name, seen)
    done = subprocess.run(
        [*RUN, "--project", str(project), "-p", "where is it defined?", "--output", "json"],
        env=lane_env(tmp_path, model_server.url),
        capture_output=True,
        text=True,
        timeout=300,
        cwd=project,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    path, function, body = LOOKUPS[name]
    assert result["reason"] == "done" and result["stats"]["toolCalls"] == 1
    assert result["answer"] == f"{function} is defined in {path}."
    assert len(seen) == 1 and body in seen[0], seen


@pytest.mark.parametrize("name", sorted(LOOKUPS))
async def test_acp_prompt_on_a_real_project(
    name: str, real_project: RealProject, model_server: ModelStubServer, tmp_path: Path
) -> None:
    project = real_project(name)
    seen: list[str] = []
    model_server.responder = lookup_then_answer(name, seen)
    client = RecordingClient(answer="apply")
    async with acp_agent(client, lane_env(tmp_path, model_server.url), project) as conn:
        session = await asyncio.wait_for(conn.new_session(cwd=str(project)), 300)
        assert "Indexed " in client.text()
        client.clear()
        response = await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=[text_block("where?")]), TIMEOUT
        )
    assert response.stop_reason == "end_turn"
    path, function, body = LOOKUPS[name]
    assert client.text().endswith(f"{function} is defined in {path}.")
    assert [(s.kind, s.status) for s in client.tool_starts()] == [("read", "in_progress")]
    assert len(seen) == 1 and body in seen[0], seen
