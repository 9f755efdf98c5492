"""``ipuaro tools [NAME] [--json]``: the tools the model (and ``ipuaro tool``) can call.

The listing is built from the same registry and the same JSON schemas the model is given, so
what it shows is what a call is checked against.
"""

from __future__ import annotations

import difflib
import json
import re
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
def command(name: str | None, as_json: bool) -> None:
    """List the tools: name, what it does, and its arguments (the JSON schema the model sees).

    With NAME only that tool. Call one with `ipuaro tool NAME --args JSON`.
    """
    from ipuaro.tools.registry import ToolRegistry

    registry = ToolRegistry.default()
    tools = registry.tools()
    if name is not None:
        tool = registry.get(name)
        if tool is None:
            fail(unknown_tool(name, registry))
        tools = [tool]
    wanted = {tool.name for tool in tools}
    specs = [spec for spec in registry.specs() if spec["name"] in wanted]
    effects = {
        tool.name: "read-only"
        if tool.read_only
        else ("asks before acting" if tool.needs_confirmation else "acts without asking")
        for tool in tools
    }
    if as_json:
        rows = [{**spec, "effect": effects[spec["name"]]} for spec in specs]
        click.echo(json.dumps(rows, indent=2))
        return
    click.echo("\n\n".join(render_text(spec, effects[spec["name"]]) for spec in specs))
