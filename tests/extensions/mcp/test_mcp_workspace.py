"""The MCP client in the application core: the scripted model (the real stub model server over
HTTP) sees a server's tools like built-in ones, calls one, the user is asked (yes and no), a
server killed mid-session becomes one warning event and its tools leave the next request,
``/mcp`` answers in every front end's form, and an untrusted project's server never starts."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sys
from pathlib import Path
from typing import Any

from ipuaro.core.commands import parse_command, run_operation
from ipuaro.core.decisions import Answer, ConfirmChange
from ipuaro.core.events import ExtensionWarning, ToolCallEnd
from ipuaro.core.workspace import WorkspaceOptions
from tests.agent.conftest import call
from tests.core.conftest import RecordingDecider, open_workspace
from tests.extensions.mcp.conftest import DEMO, demo_stdio, pid_alive
from tests.stubs.model_server import ModelStubServer, ScriptedReply


def offered(body: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in body.get("tools", [])]


def results(events: list[Any]) -> list[Any]:
    return [e.result for e in events if isinstance(e, ToolCallEnd)]


async def test_the_model_calls_an_mcp_tool_after_the_user_agrees(
    project: Path, server: ModelStubServer
) -> None:
    steps = [
        call("mcp__demo__add", a=19, b=23),
        call("mcp__demo__add", a=1, b=1),
        ScriptedReply(text="19 + 23 is 42."),
    ]
    answers = iter(["apply", "reject"])

    class Decider(RecordingDecider):
        async def decide(self, question: Any) -> Any:
            self.asked.append(question)
            return Answer(next(answers)) if isinstance(question, ConfirmChange) else question.safe

    decider = Decider()
    servers = {"demo": demo_stdio()}
    async with open_workspace(
        project, server, steps, decider=decider, index=False, **{"mcp.servers": servers}
    ) as opened:
        end = await opened.workspace.send("add 19 and 23")
        first = opened.model.agent_bodies[0]
        reply = await run_operation(opened.workspace, parse_command("/mcp"))
    assert end.reason == "done" and end.answer == "19 + 23 is 42."
    names = offered(first)
    assert "mcp__demo__add" in names and "get_lines" in names, "offered like built-in tools"
    add = next(t for t in first["tools"] if t["function"]["name"] == "mcp__demo__add")
    assert add["function"]["parameters"]["required"] == ["a", "b"]
    asked = decider.of(ConfirmChange)
    assert [q.request.command for q in asked] == [
        'mcp__demo__add {"a": 19, "b": 23}',
        'mcp__demo__add {"a": 1, "b": 1}',
    ]
    granted, denied = results(opened.events)
    assert granted.success and granted.data == "42"
    assert denied.refused and "declined" in (denied.error or "")
    tool_messages = [m for m in opened.model.agent_bodies[1]["messages"] if m["role"] == "tool"]
    assert tool_messages[-1]["content"].strip().endswith("42"), "the result reached the model"
    assert reply.text == "1 of 1 MCP servers running" and reply.kind == "info"
    assert reply.tables[0].rows[0][:2] == ("demo", "running")
    assert ("mcp__demo__add",) in reply.tables[1].rows


async def test_a_server_killed_mid_session_is_one_warning_and_leaves_the_tool_list(
    project: Path, server: ModelStubServer
) -> None:
    pids: list[int] = []

    def kill_then_call(body: dict[str, Any]) -> ScriptedReply:
        tool = next(m for m in reversed(body["messages"]) if m["role"] == "tool")
        pids.append(int(re.search(r"pid=(\d+)", tool["content"]).group(1)))  # type: ignore[union-attr]
        os.kill(pids[0], signal.SIGKILL)
        return call("mcp__demo__add", a=1, b=2)

    steps = [
        call("mcp__demo__whoami"),
        kill_then_call,
        ScriptedReply(text="the server is gone; carrying on"),
        ScriptedReply(text="second request answered"),
    ]
    overrides = {"mcp.servers": {"demo": demo_stdio()}, "mcp.allow": ["mcp__demo__*"]}
    async with open_workspace(project, server, steps, index=False, **overrides) as opened:
        end = await opened.workspace.send("who runs the demo server?")
        second = await opened.workspace.send("and now?")
        reply = await run_operation(opened.workspace, parse_command("/mcp"))
    assert end.reason == "done" and second.reason == "done"
    warnings = [e for e in opened.events if isinstance(e, ExtensionWarning)]
    assert len(warnings) == 1 and warnings[0].source == "mcp"
    assert "'demo' stopped working" in warnings[0].message
    _, lost = results(opened.events)
    assert not lost.success and "carry on without them" in (lost.error or "")
    bodies = opened.model.agent_bodies
    assert "mcp__demo__add" in offered(bodies[1])
    assert not [n for n in offered(bodies[2]) if n.startswith("mcp")], "withdrawn next turn"
    assert not [n for n in offered(bodies[3]) if n.startswith("mcp")]
    assert reply.kind == "warning" and reply.tables[0].rows[0][1] == "lost"
    assert not pid_alive(pids[0])


async def test_an_untrusted_projects_server_is_not_started_but_the_users_is(
    project: Path, server: ModelStubServer, tmp_path: Path
) -> None:
    marker = tmp_path / "project-server-ran"
    (project / ".ipuaro.json").write_text(
        json.dumps({"mcp": {"servers": {"theirs": {"command": "touch", "args": [str(marker)]}}}})
    )
    steps = [ScriptedReply(text="hello")]
    overrides = {"mcp.servers": {"mine": demo_stdio()}}
    async with open_workspace(project, server, steps, index=False, **overrides) as opened:
        await opened.workspace.send("hi")
        servers = {s.name: s for s in await opened.workspace.mcp_servers()}
    assert not marker.exists()
    assert servers["theirs"].state == "untrusted" and servers["mine"].state == "running"
    names = offered(opened.model.agent_bodies[0])
    assert "mcp__mine__add" in names and not [n for n in names if "theirs" in n]
    (warning,) = [e for e in opened.events if isinstance(e, ExtensionWarning)]
    assert "'theirs' not started" in warning.message


async def test_a_trusted_projects_server_starts(project: Path, server: ModelStubServer) -> None:
    # A project's server runs in the sandbox, so it lives in the project (a checkout under /tmp,
    # as CI's is, is not readable from inside the sandbox).
    shutil.copy(DEMO, project / "demo_server.py")
    theirs = {"command": sys.executable, "args": ["demo_server.py"]}
    (project / ".ipuaro.json").write_text(json.dumps({"mcp": {"servers": {"theirs": theirs}}}))
    steps = [ScriptedReply(text="hello")]
    options = WorkspaceOptions(new_session=True, project_trusted=True)
    async with open_workspace(project, server, steps, index=False, options=options) as opened:
        await opened.workspace.send("hi")
    assert "mcp__theirs__add" in offered(opened.model.agent_bodies[0])
