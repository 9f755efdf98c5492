"""``/mcp``: the MCP servers, their state and their tools, for every front end."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ipuaro.core.replies import Reply, ReplyTable

if TYPE_CHECKING:
    from ipuaro.core.workspace import Workspace


@dataclass(frozen=True)
class McpServerInfo:
    name: str
    transport: str
    """``stdio uvx`` or ``http http://127.0.0.1:8000/mcp``."""
    state: str
    """waiting, running, failed, lost, disabled or untrusted."""
    detail: str
    tools: tuple[str, ...]


async def mcp_servers(workspace: Workspace) -> list[McpServerInfo]:
    manager = workspace.ctx.mcp
    if manager is None:
        return []
    await manager.prepare()
    return [
        McpServerInfo(s.name, s.transport, s.state, s.detail, s.tools) for s in manager.status()
    ]


async def mcp_command(workspace: Workspace, args: tuple[str, ...]) -> Reply:
    """The ``/mcp`` operation."""
    servers = await workspace.mcp_servers()
    if not servers:
        return Reply(
            "no MCP servers are configured; declare them in mcp.servers of your config "
            "(see docs/mcp.md)"
        )
    rows = tuple(
        (s.name, s.state, s.transport, s.detail or f"{len(s.tools)} tools") for s in servers
    )
    tables = [ReplyTable("MCP servers", rows, ("server", "state", "transport", "detail"))]
    for server in servers:
        if server.tools:
            tools = tuple((name,) for name in server.tools)
            tables.append(ReplyTable(f"{server.name} tools", tools, ("tool",)))
    running = sum(s.state == "running" for s in servers)
    text = f"{running} of {len(servers)} MCP servers running"
    return Reply(text, "info" if running == len(servers) else "warning", tuple(tables))
