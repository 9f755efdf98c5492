"""``ipuaro tools [NAME] [--json]``: the tools the model (and ``ipuaro tool``) can call.

The listing is built from the same registry and the same JSON schemas the model is given, so
what it shows is what a call is checked against.
"""

from __future__ import annotations

import asyncio
import difflib
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ipuaro.cli.common import fail

if TYPE_CHECKING:
    from ipuaro.tools.registry import ToolRegistry


def unknown_tool(name: str, registry: ToolRegistry) -> str:
    """``unknown tool 'createFile'; did you mean create_file?`` — camelCase and dashes are
    matched as the snake_case names they stand for, aliases (``write_file``) count too."""
    shown = name.encode("utf-8", "backslashreplace").decode("utf-8")  # bytes from argv
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", shown).lower().replace("-", "_")
    if registry.resolve_name(snake) is not None:
        close = [snake]  # createFile is create_file: no need to guess further
    else:
        close = difflib.get_close_matches(snake, sorted(registry.accepted_names()), n=3)
    unique = list(dict.fromkeys(registry.resolve_name(n) or n for n in close))
    hint = f" (did you mean {' or '.join(unique)}?)" if unique else ""
    names = ", ".join(t.name for t in registry.tools())
    return f"unknown tool {shown!r}{hint}; tools: {names} (`ipuaro tools` shows their arguments)"


def describe_argument(name: str, schema: dict[str, Any], required: bool) -> str:
    """``path (string, required) — File path, e.g. src/app.ts``; bounds and defaults shown."""
    kind = schema.get("type", "any")
    if kind == "array":
        kind = f"array of {schema.get('items', {}).get('type', 'any')}"
    facts = [str(kind), "required" if required else "optional"]
    if "minimum" in schema and "maximum" in schema:
        facts.append(f"{schema['minimum']}..{schema['maximum']}")
    elif "minimum" in schema:
        facts.append(f">= {schema['minimum']}")
    if "enum" in schema:
        facts.append("one of " + ", ".join(json.dumps(v) for v in schema["enum"]))
    if "default" in schema:
        facts.append(f"default {json.dumps(schema['default'])}")
    description = schema.get("description", "")
    return f"{name} ({', '.join(facts)})" + (f" — {description}" if description else "")


def render_text(spec: dict[str, Any], effect: str) -> str:
    lines = [f"{spec['name']}  [{effect}]", f"  {spec['description']}"]
    parameters = spec["parameters"]
    required = set(parameters.get("required", []))
    properties: dict[str, Any] = parameters.get("properties", {})
    if not properties:
        lines.append("  arguments: none")
    for name, schema in properties.items():
        lines.append("  - " + describe_argument(name, schema, name in required))
    return "\n".join(lines)


@click.command("tools")
@click.argument("name", required=False)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print name, description, effect and the JSON schema of the arguments as JSON.",
)
@click.option(
    "--project",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Project whose configured MCP servers to include (default: the current directory's).",
)
def command(name: str | None, as_json: bool, project: Path | None) -> None:
    """List the tools: name, what it does, and its arguments (the JSON schema the model sees).

    The tools of the MCP servers in the configuration (mcp.servers) are listed too: each server
    is started as a session would start it, asked for its tools, and stopped. With NAME only
    that tool. Call a built-in one with `ipuaro tool NAME --args JSON`.
    """
    from ipuaro.tools.registry import ToolRegistry

    registry = ToolRegistry.default()
    tools = registry.tools()
    specs = registry.specs()
    effects = {tool.name: _effect(tool.read_only, tool.needs_confirmation) for tool in tools}
    for spec in _mcp_specs(project):
        specs.append(spec)
        effects[spec["name"]] = _effect(False, True)
    if name is not None:
        tool = registry.get(name)
        wanted = tool.name if tool is not None else name
        specs = [spec for spec in specs if spec["name"] == wanted]
        if not specs:
            fail(unknown_tool(name, registry))
    if as_json:
        rows = [{**spec, "effect": effects[spec["name"]]} for spec in specs]
        click.echo(json.dumps(rows, indent=2))
        return
    click.echo("\n\n".join(render_text(spec, effects[spec["name"]]) for spec in specs))


def _effect(read_only: bool, needs_confirmation: bool) -> str:
    if read_only:
        return "read-only"
    return "asks before acting" if needs_confirmation else "acts without asking"


def _mcp_specs(project: Path | None) -> list[dict[str, Any]]:
    """The configured MCP servers' tools; a server that does not start is one line on stderr
    (the built-in tools are listed all the same)."""
    from ipuaro.cli.common import load_project
    from ipuaro.core.mcp_probe import probe_mcp

    root, config = load_project(project)
    if not config.mcp.servers:
        return []
    probe = asyncio.run(probe_mcp(root, config))
    for server in probe.servers:
        if server.state not in ("running", "disabled"):
            why = f": {server.detail}" if server.detail else ""
            click.echo(f"ipuaro: MCP server {server.name!r} {server.state}{why}", err=True)
    return probe.tools
