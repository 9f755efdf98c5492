"""MCP tools as the model sees them: one per server tool within the budget
(``mcp__SERVER__TOOL``, the server's own schema), ``mcp_call`` for the rest, and
``mcp_read_resource``. Each call goes through :class:`~ipuaro.extensions.mcp.policy.CallPolicy`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from ipuaro.tools.base import ArgsModel, ToolContext, ToolOutcome

if TYPE_CHECKING:
    from ipuaro.extensions.mcp.connection import ServerTool
    from ipuaro.extensions.mcp.manager import McpManager

MAX_DESCRIPTION = 1024
"""A server's tool description is cut here (some ship whole manuals)."""
HIDDEN_LISTED = 60
"""Most tools ``mcp_call``'s description names."""


class _ServerArguments(BaseModel):
    """Whatever the server's schema says; the server checks them."""

    model_config = ConfigDict(extra="allow")


class McpTool:
    """One server tool, offered under its own name with the server's schema."""

    read_only: ClassVar[bool] = False
    needs_confirmation: ClassVar[bool] = True
    edits_files: ClassVar[bool] = False
    args_model: ClassVar[type[BaseModel]] = _ServerArguments

    def __init__(self, manager: McpManager, server: str, tool: ServerTool, name: str) -> None:
        self.manager = manager
        self.server = server
        self.tool = tool
        self.name = name
        text = tool.description.strip() or f"the {tool.name} tool"
        self.description = f"[MCP server {server}] {text[:MAX_DESCRIPTION]}"
        self.input_schema = _object_schema(tool.input_schema)

    async def execute(self, args: Any, ctx: ToolContext) -> ToolOutcome:
        return await self.manager.call(ctx, self.server, self.tool.name, dict(args))


class McpCallArgs(ArgsModel):
    server: str = Field(description="the MCP server's name")
    tool: str = Field(description="the tool's name as the server lists it")
    arguments: dict[str, Any] = Field(default_factory=dict, description="the tool's arguments")


class McpCall:
    """The tools past ``mcp.maxTools``, reachable by server and tool name."""

    name: ClassVar[str] = "mcp_call"
    read_only: ClassVar[bool] = False
    needs_confirmation: ClassVar[bool] = True
    edits_files: ClassVar[bool] = False
    args_model: ClassVar[type[BaseModel]] = McpCallArgs

    def __init__(self, manager: McpManager, hidden: tuple[tuple[str, ServerTool], ...]) -> None:
        self.manager = manager
        listed = [
            f"- {server} {tool.name}: {_first_line(tool.description)}"
            for server, tool in hidden[:HIDDEN_LISTED]
        ]
        more = len(hidden) - HIDDEN_LISTED
        if more > 0:
            listed.append(f"- … and {more} more")
        self.description = (
            "Call a tool of an MCP server that is not offered by name. Example: "
            '{"server": "git", "tool": "git_log", "arguments": {"max_count": 5}}. '
            "A wrong tool name or argument is answered with the tool's schema. Tools:\n"
            + "\n".join(listed)
        )

    async def execute(self, args: McpCallArgs, ctx: ToolContext) -> ToolOutcome:
        tool = self.manager.find(args.server, args.tool)
        if tool is None:
            return ToolOutcome.fail(self._unknown(args.server, args.tool))
        return await self.manager.call(ctx, args.server, args.tool, args.arguments)

    def _unknown(self, server: str, tool: str) -> str:
        status = {s.name: s for s in self.manager.status()}
        if server not in status or status[server].state != "running":
            return self.manager.unavailable(server)
        names = ", ".join(t.name for t in self.manager.server_tools(server))
        return f"MCP server {server!r} has no tool {tool!r}; its tools: {names}"


class McpReadResourceArgs(ArgsModel):
    server: str = Field(description="the MCP server's name")
    uri: str | None = Field(None, description="the resource's URI; leave it out to list them")


class McpReadResource:
    """Read a resource an MCP server offers (or list them)."""

    name: ClassVar[str] = "mcp_read_resource"
    read_only: ClassVar[bool] = True
    needs_confirmation: ClassVar[bool] = False
    edits_files: ClassVar[bool] = False
    args_model: ClassVar[type[BaseModel]] = McpReadResourceArgs
    description: ClassVar[str] = (
        "Read a resource (a document, a record) an MCP server offers; without uri, list the "
        'server\'s resources. Example: {"server": "docs", "uri": "docs://readme"}'
    )

    def __init__(self, manager: McpManager) -> None:
        self.manager = manager

    async def execute(self, args: McpReadResourceArgs, ctx: ToolContext) -> ToolOutcome:
        return await self.manager.read_resource(ctx, args.server, args.uri)


def _object_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Model APIs want an object schema at the top; a server that sends none gets one."""
    if schema.get("type") == "object":
        return schema
    return {"type": "object", "properties": {}, **{k: v for k, v in schema.items() if k != "type"}}


def _first_line(text: str) -> str:
    line = text.strip().split("\n", 1)[0]
    return line[:120] if line else "(no description)"
