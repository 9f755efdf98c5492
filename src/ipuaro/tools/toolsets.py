"""Tool sets that fit the window.

All tool schemas together are ~3.2K tokens: 40 % of an 8K window and most of a 4K one before the
user has said anything. Below :data:`SMALL_WINDOW` the model is offered a core set (read, find,
search, one edit tool, run a command) in a compact form (the first sentence of each description,
no examples, no per-argument prose beyond a few words) and a ``more_tools`` entry that names the
rest; calling it adds the tools it names (or all) to the following requests. A tool left out is
still callable by name: only its schema is not sent.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from ipuaro.tools.arguments import model_schema
from ipuaro.tools.base import ArgsModel, BaseTool, ToolContext, ToolOutcome

SMALL_WINDOW = 16_384
"""Windows below this get the core set and compact schemas."""

CORE_TOOLS = (
    "get_lines",
    "get_function",
    "get_structure",
    "find_definition",
    "find_references",
    "grep_search",
    "replace",
    "run_command",
)
"""What a small window offers up front: read, find, search, one edit tool, run a command."""

MORE_TOOLS = "more_tools"

FIELD_WORDS = 6
"""An argument's description keeps at most this many words in the compact form."""

_SENTENCE_END = re.compile(r"(?<!e\.g)(?<!i\.e)(?<=[a-z0-9)\]`])[.;:](\s|$)")


def first_sentence(text: str) -> str:
    """The description's first sentence, without a trailing example."""
    text = " ".join(text.split())
    text = text.split(" Example:", 1)[0]
    match = _SENTENCE_END.search(text)
    return text[: match.start()] if match else text.rstrip(".")


_CLAUSE_END = re.compile(r"[,;(]| e\.g\.| - |\.(\s|$)")


def _short_field(text: str) -> str:
    """An argument's first clause; empty when even that is long (the name then says it)."""
    clause = _CLAUSE_END.split(" ".join(text.split()), maxsplit=1)[0].strip()
    return clause if len(clause.split()) <= FIELD_WORDS else ""


def compact_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The same arguments without what adds least for the model: ``additionalProperties``,
    ``default: false``, bounds the tool checks anyway, and the description of an optional
    argument (its name and type say it; a required one keeps its first clause)."""
    required = set(schema.get("required", []) or [])
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "additionalProperties":
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {
                name: _compact_field(field, name in required) for name, field in value.items()
            }
        else:
            out[key] = value
    return out


def _compact_field(field: Any, required: bool) -> Any:
    if not isinstance(field, dict):
        return field
    out: dict[str, Any] = {}
    for key, value in field.items():
        if key in ("minimum", "maximum") or (key == "default" and value in (False, "", [], 0)):
            continue
        if key == "description" and isinstance(value, str):
            short = _short_field(value) if required else ""
            if short:
                out[key] = short
            continue
        out[key] = value
    return out


def compact_spec(spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": spec["name"],
        "description": first_sentence(spec["description"]).split(" (", 1)[0],
        "parameters": compact_schema(spec["parameters"]),
    }


class MoreToolsArgs(ArgsModel):
    names: list[str] = Field(
        default_factory=list, description="Tools to add; leave out for all of them"
    )


class MoreTools(BaseTool):
    """The ``more_tools`` entry of a small window's tool set."""

    name: ClassVar[str] = MORE_TOOLS
    description: ClassVar[str] = "Add tools to your tool list"
    args_model: ClassVar[type[BaseModel]] = MoreToolsArgs

    def __init__(self, unlock: Callable[[list[str]], str]) -> None:
        self._unlock = unlock

    async def execute(self, args: MoreToolsArgs, ctx: ToolContext) -> ToolOutcome:
        return ToolOutcome.ok(self._unlock(args.names))


def more_tools_spec(rest: list[str]) -> dict[str, Any]:
    """The entry's spec: its description names what it can add."""
    schema = compact_schema(model_schema(MoreToolsArgs))
    return {
        "name": MORE_TOOLS,
        "description": "Add tools to your list (all of them without names): " + ", ".join(rest),
        "parameters": schema,
    }
