"""The session's MCP servers: started lazily, their tools offered within a budget, and a server
that fails withdrawn — reported once, never a stop for the agent.

The manager is a tool source of the registry (``ipuaro.tools.registry.ToolSource``): before each
model turn the agent calls :meth:`McpManager.prepare`, which starts the servers the first time;
:meth:`McpManager.tools` is what is offered now, and ``revision`` changes when that changes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ipuaro.config.schema import McpConfig, McpServerConfig, SandboxConfig
from ipuaro.extensions.mcp.connection import (
    ServerConnection,
    ServerLost,
    ServerRefused,
    ServerTool,
)
from ipuaro.extensions.mcp.policy import CallPolicy, tool_name
from ipuaro.extensions.mcp.results import cap, content_text, resource_text
from ipuaro.tools.base import Tool, ToolContext, ToolOutcome

log = logging.getLogger(__name__)

ServerState = Literal["waiting", "running", "failed", "lost", "disabled", "untrusted"]


@dataclass
class ServerEntry:
    name: str
    config: McpServerConfig
    state: ServerState = "waiting"
    detail: str = ""
    """Why it is not running (failed, lost, untrusted, disabled)."""
    tools: tuple[ServerTool, ...] = ()
    has_resources: bool = False
    connection: ServerConnection | None = None


@dataclass(frozen=True)
class ServerStatus:
    """One row of ``/mcp``."""

    name: str
    transport: str
    state: ServerState
    detail: str
    tools: tuple[str, ...]
    """Names as the model sees them (``mcp__git__git_status``), or ``mcp_call git.x`` when
    the tool is past the budget."""


@dataclass
class McpManager:
    config: McpConfig
    root: Path
    environ: Mapping[str, str]
    project_trusted: bool = False
    sandbox: SandboxConfig | None = None
    """The sandbox settings stdio servers run under when they are confined."""
    notify: Callable[[str], None] | None = None
    """Called once per problem (a server that could not start, crashed, hung, or was held
    back): the workspace turns it into an event every front end shows."""
    notices: list[str] = field(default_factory=list)
    """Every problem reported, in order (also for ``/mcp`` and tests)."""
    revision: int = 0
    policy: CallPolicy = field(init=False)
    _servers: dict[str, ServerEntry] = field(init=False, default_factory=dict)
    _started: bool = field(init=False, default=False)
    _lock: asyncio.Lock = field(init=False, default_factory=asyncio.Lock)
    _closing: list[asyncio.Task[None]] = field(init=False, default_factory=list)
    _tools: list[Tool] = field(init=False, default_factory=list)
    _tools_revision: int = field(init=False, default=-1)

    def __post_init__(self) -> None:
        self.policy = CallPolicy.from_config(self.config)
        for name, server in self.config.servers.items():
            entry = ServerEntry(name, server)
            if not server.enabled:
                entry.state, entry.detail = "disabled", "enabled is false"
            elif server.declared_in == "project" and not self.project_trusted:
                entry.state = "untrusted"
                entry.detail = "declared in .ipuaro.json of a project you have not trusted"
            self._servers[name] = entry

    # --- the tool source --------------------------------------------------------------------

    async def prepare(self) -> None:
        """Start every server that may start, once, side by side (each within its
        ``startupTimeout``). Problems are reported, never raised."""
        if self._started:
            return
        async with self._lock:
            if self._started:
                return
            self._started = True
            for entry in self._servers.values():
                if entry.state == "untrusted":
                    self._report(
                        f"MCP server {entry.name!r} not started: it is {entry.detail} "
                        "(trust the project to start it)"
                    )
            waiting = [e for e in self._servers.values() if e.state == "waiting"]
            await asyncio.gather(*(self._start(entry) for entry in waiting))
            self.revision += 1

    async def _start(self, entry: ServerEntry) -> None:
        connection = ServerConnection(
            entry.name, entry.config, self.root, self.environ, self.sandbox
        )
        try:
            listing = await connection.start()
        except ServerLost as error:
            entry.state, entry.detail = "failed", str(error)
            self._report(f"MCP server {entry.name!r} could not start: {error}")
            return
        except Exception as error:  # a bug in a transport must not stop the request
            log.exception("MCP server %s failed to start", entry.name)
            await connection.close()
            entry.state, entry.detail = "failed", f"{type(error).__name__}: {error}"
            self._report(f"MCP server {entry.name!r} could not start: {entry.detail}")
            return
        entry.connection = connection
        entry.tools = listing.tools
        entry.has_resources = listing.has_resources
        entry.state, entry.detail = "running", ""

    def tools(self) -> list[Tool]:
        """The budget: the first ``maxTools`` allowed tools one by one, the rest through
        ``mcp_call``; ``mcp_read_resource`` while a running server has resources."""
        if self._tools_revision == self.revision:
            return self._tools
        from ipuaro.extensions.mcp.tools import McpCall, McpReadResource, McpTool

        offered: list[Tool] = []
        hidden: list[tuple[str, ServerTool]] = []
        for entry in self._running():
            for tool in entry.tools:
                if self.policy.verdict(entry.name, tool.name) == "deny":
                    continue
                name = tool_name(entry.name, tool.name)
                taken = {t.name for t in offered}
                if len(offered) < self.config.max_tools and name is not None and name not in taken:
                    offered.append(McpTool(self, entry.name, tool, name))
                else:
                    hidden.append((entry.name, tool))
        if hidden:
            offered.append(McpCall(self, tuple(hidden)))
        if any(entry.has_resources for entry in self._running()):
            offered.append(McpReadResource(self))
        self._tools, self._tools_revision = offered, self.revision
        return offered

    # --- calls ------------------------------------------------------------------------------

    def find(self, server: str, tool: str) -> ServerTool | None:
        entry = self._servers.get(server)
        if entry is None or entry.state != "running":
            return None
        return next((t for t in entry.tools if t.name == tool), None)

    def server_tools(self, server: str) -> tuple[ServerTool, ...]:
        entry = self._servers.get(server)
        return entry.tools if entry is not None and entry.state == "running" else ()

    def unavailable(self, server: str) -> str:
        """Why ``server`` cannot be called, for the model."""
        entry = self._servers.get(server)
        running = ", ".join(e.name for e in self._running()) or "none"
        if entry is None:
            return f"there is no MCP server {server!r}; running servers: {running}"
        return f"MCP server {server!r} is {entry.state}: {entry.detail}; running servers: {running}"

    async def call(
        self, ctx: ToolContext, server: str, tool: str, arguments: dict[str, Any]
    ) -> ToolOutcome:
        entry = self._servers.get(server)
        if entry is None or entry.connection is None or entry.state != "running":
            return ToolOutcome.fail(self.unavailable(server))
        await self.policy.check(ctx, server, tool, arguments)
        try:
            result = await _cancellable(entry.connection.call_tool(tool, arguments), ctx)
        except ServerLost as error:
            return ToolOutcome.fail(self._withdraw(entry, str(error)))
        except ServerRefused as error:
            return ToolOutcome.fail(f"MCP server {server!r} refused the call: {error}")
        if result is None:
            return ToolOutcome.fail("cancelled: the user interrupted the MCP call", refused=True)
        text = cap(content_text(result.content, result.structured_content), self._limit(ctx))
        if result.is_error:
            listed = self.find(server, tool)
            schema = f" Expected arguments: {listed.input_schema}" if listed else ""
            return ToolOutcome.fail(f"{text or 'the tool failed'}{schema}")
        return ToolOutcome.ok(text or "(the tool returned nothing)", data=result.structured_content)

    async def read_resource(self, ctx: ToolContext, server: str, uri: str | None) -> ToolOutcome:
        entry = self._servers.get(server)
        if entry is None or entry.connection is None or entry.state != "running":
            return ToolOutcome.fail(self.unavailable(server))
        try:
            if uri is None:
                resources = await _cancellable(entry.connection.list_resources(), ctx)
                if resources is None:
                    return ToolOutcome.fail("cancelled", refused=True)
                rows = [f"{r.uri}  {r.name}  {r.description or ''}".rstrip() for r in resources]
                text = "\n".join(rows) or f"MCP server {server!r} lists no resources"
                return ToolOutcome.ok(cap(text, self._limit(ctx)))
            result = await _cancellable(entry.connection.read_resource(uri), ctx)
        except ServerLost as error:
            return ToolOutcome.fail(self._withdraw(entry, str(error)))
        except ServerRefused as error:
            return ToolOutcome.fail(f"MCP server {server!r} cannot read {uri!r}: {error}")
        if result is None:
            return ToolOutcome.fail("cancelled", refused=True)
        text = "\n".join(resource_text(c) for c in result.contents)
        return ToolOutcome.ok(cap(text or f"{uri} is empty", self._limit(ctx)))

    def _limit(self, ctx: ToolContext) -> int:
        return ctx.config.commands.output_limit_bytes

    def _withdraw(self, entry: ServerEntry, reason: str) -> str:
        """The server crashed or hung: its tools go, the user hears of it once, the process is
        stopped in the background. Returns the message for the model."""
        if entry.state == "running":
            entry.state, entry.detail = "lost", reason
            self.revision += 1
            self._report(
                f"MCP server {entry.name!r} stopped working ({reason}); its tools are withdrawn"
            )
            if entry.connection is not None:
                self._closing.append(asyncio.create_task(entry.connection.close()))
        return (
            f"MCP server {entry.name!r} stopped working: {reason}. Its tools are no longer "
            "available in this session; carry on without them."
        )

    def _report(self, message: str) -> None:
        self.notices.append(message)
        log.warning("%s", message)
        if self.notify is not None:
            self.notify(message)

    def _running(self) -> list[ServerEntry]:
        return [e for e in self._servers.values() if e.state == "running"]

    # --- /mcp and closing ------------------------------------------------------------------

    def status(self) -> list[ServerStatus]:
        offered = {t.name for t in self.tools()}
        rows = []
        for entry in self._servers.values():
            names = []
            for tool in entry.tools if entry.state == "running" else ():
                name = tool_name(entry.name, tool.name)
                if self.policy.verdict(entry.name, tool.name) == "deny":
                    names.append(f"{tool.name} (denied)")
                elif name in offered:
                    names.append(str(name))
                else:
                    names.append(f"mcp_call {entry.name}.{tool.name}")
            config = entry.config
            transport = f"http {config.url}" if config.url else f"stdio {config.command}"
            row = ServerStatus(entry.name, transport, entry.state, entry.detail, tuple(names))
            rows.append(row)
        return rows

    @property
    def started(self) -> bool:
        return self._started

    async def aclose(self) -> None:
        connections = [e.connection for e in self._servers.values() if e.connection is not None]
        for entry in self._servers.values():
            entry.connection = None
        await asyncio.gather(*(c.close() for c in connections), *self._closing)
        self._closing.clear()


async def _cancellable(request: Any, ctx: ToolContext) -> Any:
    """Await ``request``; None when the user interrupts first (the request is cancelled)."""
    task = asyncio.ensure_future(request)
    if ctx.cancel is None:
        return await task
    stop = asyncio.ensure_future(ctx.cancel.wait())
    try:
        done, _ = await asyncio.wait({task, stop}, return_when=asyncio.FIRST_COMPLETED)
    except BaseException:
        task.cancel()
        raise
    finally:
        stop.cancel()
    if task in done:
        return task.result()
    task.cancel()
    return None
