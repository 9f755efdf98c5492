"""The MCP client against real server processes: the demo server (the SDK's server side) over
stdio and streamable HTTP, a crash, a hung server, the tool budget, the permission policy and
the environment a server gets — through the registry, as the agent calls tools."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from ipuaro.config.schema import Config
from ipuaro.domain import ToolResult
from ipuaro.extensions.mcp import McpManager
from ipuaro.store.sqlite import SqliteStore
from ipuaro.tools.base import ConfirmDecision, ConfirmRequest, ToolContext
from ipuaro.tools.context import build_context
from ipuaro.tools.registry import ToolRegistry
from tests.extensions.mcp.conftest import DEMO, demo_stdio, free_port, pid_alive


class Asked:
    """A confirm callback answering ``answer`` and keeping every request."""

    def __init__(self, answer: str = "apply") -> None:
        self.answer = answer
        self.requests: list[ConfirmRequest] = []

    async def __call__(self, request: ConfirmRequest) -> ConfirmDecision:
        self.requests.append(request)
        return ConfirmDecision(self.answer)  # type: ignore[arg-type]


class Harness:
    def __init__(self, manager: McpManager, registry: ToolRegistry, ctx: ToolContext) -> None:
        self.manager = manager
        self.registry = registry
        self.ctx = ctx

    async def call(self, tool: str, /, **arguments: Any) -> ToolResult:
        await self.registry.prepare()
        return await self.registry.call(tool, arguments, self.ctx, call_id="c1")

    def names(self) -> list[str]:
        return [spec["name"] for spec in self.registry.specs()]

    def mcp_names(self) -> list[str]:
        return [n for n in self.names() if n.startswith("mcp")]


@asynccontextmanager
async def harness(
    tmp_path: Path,
    servers: dict[str, Any],
    *,
    confirm: Asked | None = None,
    trusted: bool = False,
    environ: dict[str, str] | None = None,
    **mcp: Any,
) -> AsyncIterator[Harness]:
    config = Config.model_validate({"mcp": {"servers": servers, **mcp}})
    root = tmp_path / "project"
    root.mkdir(exist_ok=True)
    store = SqliteStore(tmp_path / "store.db", "project")
    ctx = build_context(root, config, store, lambda c, d: None, confirm=confirm or Asked())
    manager = McpManager(
        config.mcp, root, os.environ if environ is None else environ, project_trusted=trusted
    )
    registry = ToolRegistry.default()
    registry.add_source(manager)
    try:
        yield Harness(manager, registry, ctx)
    finally:
        await manager.aclose()
        store.close()


def server_pid(result: ToolResult) -> int:
    match = re.search(r"pid=(\d+)", str(result.data))
    assert match, result
    return int(match.group(1))


async def test_stdio_server_tools_are_offered_called_asked_about_and_read(
    tmp_path: Path,
) -> None:
    confirm = Asked("apply")
    async with harness(tmp_path, {"demo": demo_stdio()}, confirm=confirm) as h:
        assert h.mcp_names() == [], "nothing starts before the first request"
        await h.registry.prepare()
        spec = next(s for s in h.registry.specs() if s["name"] == "mcp__demo__add")
        assert spec["parameters"]["required"] == ["a", "b"]
        assert spec["parameters"]["properties"]["a"]["type"] == "integer"
        assert spec["description"].startswith("[MCP server demo] Add two integers")
        assert "mcp_read_resource" in h.names(), "the demo server has resources"
        result = await h.call("mcp__demo__add", a=2, b=40)
        assert result.success and result.data == "42"
        (request,) = confirm.requests
        assert request.kind == "command" and request.command is not None
        assert request.command.startswith("mcp__demo__add ") and '"a": 2' in request.command
        readme = await h.call("mcp_read_resource", server="demo", uri="notes://readme")
        assert readme.success and "resources are readable" in str(readme.data)
        listing = await h.call("mcp_read_resource", server="demo")
        assert "notes://readme" in str(listing.data)
        assert len(confirm.requests) == 1, "reading a resource is not asked about"

        confirm.answer = "reject"
        refused = await h.call("mcp__demo__shout", text="hi")
        assert refused.refused and "declined" in (refused.error or "")
        confirm.answer = "always"
        assert (await h.call("mcp__demo__shout", text="hi")).data == "HI\n"
        assert (await h.call("mcp__demo__shout", text="again")).success
        assert len(confirm.requests) == 3, "after 'always' the tool is not asked about again"
        assert h.ctx.grants.allows_mcp_tool("mcp__demo__shout")
        h.ctx = h.ctx.for_session("another")  # what a session change does to the context
        confirm.answer = "reject"
        assert (await h.call("mcp__demo__shout", text="new session")).refused
        assert len(confirm.requests) == 4, "a new session asks again"


async def test_allow_deny_and_headless_runs(tmp_path: Path) -> None:
    confirm = Asked("reject")
    async with harness(
        tmp_path,
        {"demo": demo_stdio()},
        confirm=confirm,
        allow=["mcp__demo__a*", "mcp__demo__read_*"],
        deny=["mcp__demo__crash", "mcp__demo__add"],
        maxTools=1,
    ) as h:
        await h.registry.prepare()
        assert "mcp__demo__crash" not in h.names(), "a denied tool is not offered"
        assert h.mcp_names()[0] == "mcp__demo__whoami", "a denied tool takes no budget"
        denied = await h.call("mcp_call", server="demo", tool="add", arguments={"a": 1, "b": 2})
        assert denied.refused and "mcp.deny" in (denied.error or ""), "deny beats allow"
        allowed = await h.call("mcp_call", server="demo", tool="read_env", arguments={"name": "X"})
        assert allowed.success and not confirm.requests, "allowed: not asked"
        whoami = await h.call("mcp__demo__whoami")
        assert whoami.refused, "neither: asked, and the answer was no"
        assert [r.command for r in confirm.requests] == ["mcp__demo__whoami {}"]

        h.ctx = h.ctx.replace(confirm=None)  # headless: nobody to ask
        refused = await h.call("mcp__demo__whoami")
        assert refused.refused and "mcp.allow" in (refused.error or "")
        h.ctx = h.ctx.replace(headless_allow_commands=True)
        assert (await h.call("mcp__demo__whoami")).success


async def test_the_tool_budget_and_the_output_cap(tmp_path: Path) -> None:
    async with harness(tmp_path, {"demo": demo_stdio("--tools", "30")}, maxTools=3) as h:
        h.ctx = h.ctx.replace(headless_allow_commands=True, confirm=None)
        await h.registry.prepare()
        offered = h.mcp_names()
        assert offered[:3] == ["mcp__demo__add", "mcp__demo__whoami", "mcp__demo__read_env"]
        assert "mcp_call" in offered and len([n for n in offered if "__" in n]) == 3
        spec = next(s for s in h.registry.specs() if s["name"] == "mcp_call")
        assert "demo extra_29: Extra tool number 29." in spec["description"]
        hidden = await h.call("mcp_call", server="demo", tool="extra_29")
        assert hidden.success and hidden.data == "extra 29"
        wrong = await h.call("mcp_call", server="demo", tool="extra_99")
        assert not wrong.success and "extra_29" in (wrong.error or "")
        bad = await h.call("mcp_call", server="demo", tool="add", arguments={"a": "x"})
        assert not bad.success and "'required': ['a', 'b']" in (bad.error or ""), (
            "a call the server rejects is answered with the tool's schema"
        )
        nobody = await h.call("mcp_call", server="nope", tool="add")
        assert not nobody.success and "no MCP server 'nope'" in (nobody.error or "")

        h.ctx.config.commands.output_limit_bytes = 1000
        result = await h.call(
            "mcp_call", server="demo", tool="shout", arguments={"text": "x" * 99, "times": 200}
        )
        text = str(result.data)
        assert result.success and len(text) < 1200 and "characters cut" in text
        assert text.startswith("XXX") and text.rstrip().endswith("XXX")


async def test_a_server_killed_mid_session_is_reported_once_and_withdrawn(
    tmp_path: Path,
) -> None:
    async with harness(
        tmp_path, {"demo": demo_stdio(), "other": demo_stdio()}, allow=["mcp__*"]
    ) as h:
        pid = server_pid(await h.call("mcp__demo__whoami"))
        revision = h.registry.revision
        os.kill(pid, signal.SIGKILL)
        lost = await h.call("mcp__demo__add", a=1, b=2)
        assert not lost.success and "stopped working" in (lost.error or "")
        assert h.registry.revision != revision
        assert not [n for n in h.mcp_names() if n.startswith("mcp__demo__")]
        again = await h.call("mcp__demo__add", a=1, b=2)
        assert not again.success and "Unknown tool" in (again.error or "")
        assert len(h.manager.notices) == 1 and "'demo'" in h.manager.notices[0]
        (status,) = [s for s in h.manager.status() if s.name == "demo"]
        assert status.state == "lost" and status.tools == ()
        assert (await h.call("mcp__other__add", a=1, b=2)).data == "3", "the others go on"

        crashed = await h.call("mcp__other__crash")  # exits while answering
        assert not crashed.success
        assert len(h.manager.notices) == 2
        assert "demo: crashing on request" in h.manager.notices[1], "its last words are kept"
        assert h.mcp_names() == []


async def test_a_call_that_never_answers_times_out_and_the_server_is_stopped(
    tmp_path: Path,
) -> None:
    async with harness(tmp_path, {"demo": demo_stdio(timeout=1)}, allow=["mcp__*"]) as h:
        pid = server_pid(await h.call("mcp__demo__whoami"))
        hung = await h.call("mcp__demo__stall")
        assert not hung.success and "did not answer within 1 s" in (hung.error or "")
        assert h.manager.notices and "withdrawn" in h.manager.notices[0]
        await h.manager.aclose()
        assert not pid_alive(pid), "the hung server's process is stopped"


async def test_servers_that_never_answer_or_do_not_exist_are_left_out(tmp_path: Path) -> None:
    servers = {
        "mute": demo_stdio("--mute", startupTimeout=1),
        "ghost": {"command": "no-such-mcp-server-xyz"},
        "lost": {"command": "true", "cwd": "no/such/dir"},
    }
    async with harness(tmp_path, servers) as h:
        await h.registry.prepare()
        assert h.mcp_names() == []
        notices = sorted(h.manager.notices)
        assert "'ghost' could not start" in notices[0] and "no such program" in notices[0]
        assert "'lost' could not start" in notices[1] and "no/such/dir does not" in notices[1]
        assert "'mute' could not start" in notices[2] and "within 1 s" in notices[2]
        await h.registry.prepare()
        assert len(h.manager.notices) == 3, "reported once, not at every turn"


async def test_an_untrusted_projects_server_is_not_started(tmp_path: Path) -> None:
    marker = tmp_path / "started"
    command = {"command": "sh", "args": ["-c", f"touch {marker}"], "declaredIn": "project"}
    async with harness(tmp_path, {"theirs": command}, trusted=False) as h:
        await h.registry.prepare()
        assert h.mcp_names() == [] and not marker.exists()
        (status,) = h.manager.status()
        assert status.state == "untrusted"
        assert "not trusted" in h.manager.notices[0]


async def test_a_server_gets_a_minimal_environment_and_what_it_declares(tmp_path: Path) -> None:
    environ = {
        # The interpreter's folder on PATH: the sandbox of the project's server may run it.
        "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
        "HOME": os.environ["HOME"],
        "OPENAI_API_KEY": "sk-secret",
        "GITHUB_TOKEN": "ghp-secret",
        "PLAIN": "plain-value",
    }
    (tmp_path / "project").mkdir()
    shutil.copy(DEMO, tmp_path / "project" / "demo_server.py")  # readable in its sandbox
    servers = {
        "mine": demo_stdio(env={"TOKEN_FOR_SERVER": "${GITHUB_TOKEN}", "GREETING": "hi"}),
        "theirs": {
            "command": sys.executable,
            "args": ["demo_server.py"],
            "env": {"STOLEN": "${GITHUB_TOKEN}", "NAMED": "${PLAIN}", "SET": "plain"},
            "declaredIn": "project",  # trusted below: it starts
        },
    }
    async with harness(tmp_path, servers, environ=environ, trusted=True, allow=["mcp__*"]) as h:

        async def env(server: str, name: str) -> str:
            return str((await h.call(f"mcp__{server}__read_env", name=name)).data)

        assert await env("mine", "OPENAI_API_KEY") == "<unset>"
        assert await env("mine", "GITHUB_TOKEN") == "<unset>"
        assert await env("mine", "TOKEN_FOR_SERVER") == "ghp-secret", "the user's own choice"
        assert await env("mine", "GREETING") == "hi"
        assert await env("theirs", "STOLEN") == "(the tool returned nothing)", "no secret"
        assert await env("theirs", "NAMED") == "(the tool returned nothing)", "the user did not"
        assert await env("theirs", "SET") == "plain"
        whoami = await h.call("mcp__mine__whoami")
        assert f"cwd={tmp_path / 'project'}" in str(whoami.data), "started in the project root"


async def test_streamable_http_server_called_then_gone(tmp_path: Path) -> None:
    port = free_port()
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(DEMO),
        "--http",
        str(port),
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        for _ in range(400):
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.close()
                break
            except OSError:
                await asyncio.sleep(0.05)
        url = f"http://127.0.0.1:{port}/mcp"
        servers = {"web": {"url": url, "timeout": 3, "headers": {"X-Trace": "${PLAIN}"}}}
        async with harness(tmp_path, servers, environ={"PLAIN": "v"}, allow=["mcp__web__*"]) as h:
            assert (await h.call("mcp__web__add", a=20, b=22)).data == "42"
            readme = await h.call("mcp_read_resource", server="web", uri="notes://readme")
            assert readme.success
            process.kill()
            await process.wait()
            lost = await h.call("mcp__web__add", a=1, b=1)
            assert not lost.success and "stopped working" in (lost.error or "")
            assert h.mcp_names() == []
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def test_third_party_server_from_pypi_mcp_server_time(tmp_path: Path) -> None:
    """``mcp-server-time`` (PyPI, in the test extras) runs offline: tzdata ships the zones."""
    servers = {"time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]}}
    async with harness(tmp_path, servers, allow=["mcp__time__*"]) as h:
        await h.registry.prepare()
        assert {"mcp__time__get_current_time", "mcp__time__convert_time"} <= set(h.names())
        result = await h.call("mcp__time__get_current_time", timezone="Asia/Tokyo")
        assert result.success, result.error
        assert '"timezone": "Asia/Tokyo"' in str(result.data)


async def test_a_project_server_runs_in_the_sandbox_and_the_users_does_not(
    tmp_path: Path,
) -> None:
    from ipuaro.security.sandboxing.sandbox import engine

    if engine() is None:
        pytest.skip("no Landlock on this machine: nothing confines the server")
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(DEMO, project / "demo_server.py")  # a project server lives in the project
    outside = tmp_path / "outside"
    outside.mkdir()
    theirs = {
        "command": sys.executable,
        "args": ["demo_server.py"],
        "declaredIn": "project",
    }
    servers = {"theirs": theirs, "mine": demo_stdio()}
    async with harness(tmp_path, servers, trusted=True, allow=["mcp__*"]) as h:

        async def touch(server: str, path: Path) -> str:
            return str((await h.call(f"mcp__{server}__touch", path=str(path))).data)

        assert await touch("theirs", project / "inside.txt") == "ok"
        assert (await touch("theirs", outside / "escape.txt")).startswith("error:")
        assert not (outside / "escape.txt").exists()
        assert await touch("mine", outside / "mine.txt") == "ok", "the user's own: not confined"
