"""``/mcp``: the MCP servers, their state and their tools, for every front end."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ipuaro.core.replies import Reply, ReplyTable
from ipuaro.core.reports import McpServerInfo

if TYPE_CHECKING:
    from ipuaro.core.ports import CommandHost
    from ipuaro.extensions.mcp import McpManager

__all__ = ["McpServerInfo", "mcp_command", "mcp_servers"]


async def mcp_servers(manager: McpManager | None) -> list[McpServerInfo]:
    """The servers' state and tools (starts them if no request has yet)."""
    if manager is None:
        return []
    await manager.prepare()
    return [
        McpServerInfo(s.name, s.transport, s.state, s.detail, s.tools) for s in manager.status()
    ]


async def mcp_command(workspace: CommandHost, args: tuple[str, ...]) -> Reply:
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
