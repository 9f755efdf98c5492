"""``ipuaro tools [NAME] [--json]``: the tools the model (and ``ipuaro tool``) can call.

The listing is built from the same registry and the same JSON schemas the model is given, so
what it shows is what a call is checked against.
"""

from __future__ import annotations

import json
from typing import Any

import click

from ipuaro.cli.common import fail


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
            fail(f"unknown tool {name!r}; tools: {', '.join(t.name for t in tools)}")
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
