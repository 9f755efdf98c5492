"""The configured MCP servers outside a session, for ``ipuaro doctor`` and ``ipuaro tools``:
start each one as a session would (the same trust rule for servers a project declares), list
its state and the tools the model would be offered, then stop them all."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ipuaro.config.schema import Config
from ipuaro.core.checks import CheckResult
from ipuaro.core.reports import McpServerInfo

_FIXES = {
    "failed": "check the server's command or url in mcp.servers (docs/mcp.md), then run it by "
    "hand to see its error",
    "untrusted": "open the project once in ipuaro (or `ipuaro run --trust-project`) and trust it",
    "lost": "the server stopped answering; run it by hand to see why",
}


@dataclass(frozen=True)
class McpProbe:
    servers: list[McpServerInfo] = field(default_factory=list)
    tools: list[dict[str, Any]] = field(default_factory=list)
    """The MCP tools as the model is offered them: name, description, JSON schema."""


async def probe_mcp(root: Path, config: Config) -> McpProbe:
    if not config.mcp.servers:
        return McpProbe()
    from ipuaro.extensions.mcp import McpManager
    from ipuaro.extensions.trust import project_trusted
    from ipuaro.tools.registry import tool_schema

    manager = McpManager(
        config.mcp,
        root,
        os.environ,
        project_trusted=project_trusted(root),
        sandbox=config.sandbox,
    )
    try:
        await manager.prepare()
        servers = [
            McpServerInfo(s.name, s.transport, s.state, s.detail, s.tools) for s in manager.status()
        ]
        tools = [
            {"name": t.name, "description": t.description, "parameters": tool_schema(t)}
            for t in manager.tools()
        ]
    finally:
        await manager.aclose()
    return McpProbe(servers, tools)


def mcp_checks(probe: McpProbe) -> list[CheckResult]:
    """One doctor line per server: running with its tools, disabled, or why not and the fix."""
    results = []
    for server in probe.servers:
        name = f"mcp {server.name}"
        if server.state == "running":
            count = len(server.tools)
            detail = f"running ({server.transport}), {count} tool{'s' if count != 1 else ''}"
            results.append(CheckResult(name, True, detail))
        elif server.state == "disabled":
            results.append(CheckResult(name, True, f"disabled ({server.detail})"))
        else:
            detail = f"{server.state}: {server.detail}" if server.detail else server.state
            results.append(CheckResult(name, False, detail, _FIXES.get(server.state)))
    return results
