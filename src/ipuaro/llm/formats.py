"""The system-prompt text that teaches a model one tool-call format.

Each mode gets the exact shape, the rules a 7B model most often breaks, one worked example built
from the first offered tool, and the tool list. ``native`` gets one sentence: the tools and their
schemas travel beside the prompt and the server's chat template already renders them, so a list
here would say everything twice (~1.3K tokens of a small window).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from ipuaro.domain.session import ToolCall
from ipuaro.llm.protocol import ToolSpec

ToolFormat = Literal["native", "xml", "react", "json"]


def tool_instructions(mode: ToolFormat, tools: list[ToolSpec]) -> str:
    if not tools:
        return "No tools are available in this mode; answer in plain text."
    if mode == "native":
        return (
            "# Tools\nCall the tools through the tool-calling interface, one call per action; "
            "never describe a call in prose instead of making it."
        )
    listing = "\n".join(_describe(tool) for tool in tools)
    example_tool = tools[0]
    example_args = example_arguments(example_tool)
    if mode == "xml":
        return _XML.format(listing=listing, example=_xml_example(example_tool.name, example_args))
    if mode == "react":
        return _REACT.format(listing=listing, name=example_tool.name, args=json.dumps(example_args))
    if mode == "json":
        call = json.dumps({"name": example_tool.name, "arguments": example_args})
        return _JSON.format(listing=listing, call=call)
    raise ValueError(f"unknown tool format {mode!r}: use native, xml, react or json")


def tool_result_text(name: str, content: str) -> str:
    """A tool result sent as ordinary text, for servers that were offered no native tools."""
    return f"Observation ({name}):\n{content}"


def render_calls_as_text(content: str, calls: list[ToolCall]) -> str:
    """An assistant turn's calls written back into its text, for a server that was offered no
    native tools, so the model still sees what it did. Calls already in the text are kept as
    the model wrote them."""
    blocks = [
        "<tool_call>\n" + json.dumps({"name": c.name, "arguments": c.parameters}) + "\n</tool_call>"
        for c in calls
        if c.name not in content
    ]
    return "\n\n".join([content, *blocks]).strip() if blocks else content


def _describe(tool: ToolSpec) -> str:
    props: dict[str, Any] = tool.parameters.get("properties", {}) or {}
    required = set(tool.parameters.get("required", []) or [])
    params = ", ".join(
        f"{name}{'' if name in required else '?'}: {_type_name(schema)}"
        for name, schema in props.items()
    )
    summary = tool.description.strip().splitlines()[0] if tool.description.strip() else ""
    return f"- {tool.name}({params}){' — ' + summary if summary else ''}"


def _type_name(schema: Any) -> str:
    if not isinstance(schema, dict):
        return "any"
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(str(k) for k in kind)
    if kind == "array":
        return f"array of {_type_name(schema.get('items', {}))}"
    if "enum" in schema:
        return " | ".join(json.dumps(v) for v in schema["enum"])
    if kind is None and "anyOf" in schema:
        return " | ".join(_type_name(s) for s in schema["anyOf"])
    return str(kind or "any")


def example_arguments(tool: ToolSpec) -> dict[str, Any]:
    """Plausible values for the required arguments (all of them if none is required)."""
    props: dict[str, Any] = tool.parameters.get("properties", {}) or {}
    required = [n for n in tool.parameters.get("required", []) or [] if n in props] or list(props)
    return {name: _example_value(name, props[name]) for name in required}


def _example_value(name: str, schema: Any) -> Any:
    kind = schema.get("type") if isinstance(schema, dict) else None
    if isinstance(schema, dict) and schema.get("enum"):
        return schema["enum"][0]
    if kind == "integer":
        return 10 if "end" in name else 1
    if kind == "number":
        return 1.0
    if kind == "boolean":
        return True
    if kind == "array":
        return []
    if kind == "object":
        return {}
    if "path" in name or "file" in name:
        return "src/index.ts"
    if "pattern" in name or "query" in name:
        return "TODO"
    return "..."


def _xml_example(name: str, args: dict[str, Any]) -> str:
    lines = [f'<tool_call name="{name}">']
    for key, value in args.items():
        text = value if isinstance(value, str) else json.dumps(value)
        lines.append(f"  <{key}>{text}</{key}>")
    lines.append("</tool_call>")
    return "\n".join(lines)


_XML = """\
To use a tool, write a tool call in exactly this XML form, one element per argument:

<tool_call name="TOOL_NAME">
  <argument_name>value</argument_name>
</tool_call>

Rules:
- Put multi-line values (file content, code) inside CDATA so nothing is escaped or trimmed:
  <content><![CDATA[
first line
second line
]]></content>
- Numbers and booleans are written as plain text (<start>10</start>); lists as JSON (["a", "b"]).
- You may make several calls in one reply; write each in its own <tool_call> block.
- After your calls, stop and wait: the results come back in the next message. Never write a
  result yourself.

Example:
{example}

Tools:
{listing}"""

_REACT = """\
Work in steps. To use a tool, write exactly these lines and then stop:

Thought: why this tool helps
Action: TOOL_NAME
Action Input: {{"argument": "value"}}

Rules:
- Action Input is one JSON object with double-quoted keys and strings ("\\n" for new lines).
- Do not write "Observation:" — the result comes back to you as the next message.
- When you can answer without a tool, write:
Final Answer: your answer

Example:
Thought: I need to see the code first.
Action: {name}
Action Input: {args}

Tools:
{listing}"""

_JSON = """\
To use a tool, write one JSON object with "name" and "arguments", wrapped in tags:

<tool_call>
{{"name": "TOOL_NAME", "arguments": {{"argument": "value"}}}}
</tool_call>

Rules:
- Strict JSON: double quotes, no trailing commas, "\\n" for new lines inside strings.
- One <tool_call> block per call; several blocks in one reply are fine.
- After your calls, stop and wait for the results. Never write a result yourself.

Example:
<tool_call>
{call}
</tool_call>

Tools:
{listing}"""
