"""A small window's tool set: the core tools in compact form, the rest through more_tools."""

from __future__ import annotations

import json

from ipuaro.llm.tokens import estimate_tokens
from ipuaro.tools.registry import ToolRegistry
from ipuaro.tools.toolsets import CORE_TOOLS, MORE_TOOLS, compact_schema, first_sentence

from .conftest import Project


def names(specs: list[dict[str, object]]) -> list[str]:
    return [str(spec["name"]) for spec in specs]


def test_a_small_window_is_offered_the_core_set_and_more_tools() -> None:
    registry = ToolRegistry.default()
    small = registry.specs(window=4096)
    assert sorted(names(small)) == sorted([*CORE_TOOLS, MORE_TOOLS])
    assert names(small)[-1] == MORE_TOOLS
    more = small[-1]
    assert "edit_symbol" in str(more["description"]) and "git_diff" in str(more["description"])
    # The whole set, as sent beside the prompt, is a fraction of the 3K+ of the full set.
    assert estimate_tokens(json.dumps(small)) < 900
    assert estimate_tokens(json.dumps(registry.specs())) > 3000


def test_a_large_window_keeps_every_tool_as_written() -> None:
    registry = ToolRegistry.default()
    assert registry.specs(window=32_768) == registry.specs()
    assert MORE_TOOLS not in names(registry.specs(window=32_768))


def test_compact_descriptions_keep_the_first_sentence_and_drop_the_example() -> None:
    text = 'Read lines of a file, numbered. Without start reads from the top. Example: {"a": 1}'
    assert first_sentence(text) == "Read lines of a file, numbered"
    assert first_sentence("Name to find, e.g. `Cart`. More.") == "Name to find, e.g. `Cart`"
    schema = compact_schema(
        {
            "type": "object",
            "additionalProperties": False,
            "required": ["path", "column"],
            "properties": {
                "path": {"type": "string", "description": "File path, e.g. src/app.ts"},
                "regex": {"type": "boolean", "default": False, "description": "Treat as regex"},
                "column": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "First character of each line to show (1-based), to read on",
                },
            },
        }
    )
    assert schema == {
        "type": "object",
        "required": ["path", "column"],
        "properties": {
            "path": {"type": "string", "description": "File path"},
            "regex": {"type": "boolean"},  # optional: its name and type say it
            "column": {"type": "integer"},  # a long first clause: the name says enough
        },
    }


async def test_more_tools_offers_the_named_tools_from_then_on(project: Project) -> None:
    registry = project.registry
    before = registry.revision
    result = await registry.call(
        MORE_TOOLS, {"names": ["edit-symbol", "git_diff"]}, project.ctx, "c"
    )
    assert result.success, result.error
    assert "edit_symbol" in (result.data or "") and '"symbol"' in (result.data or "")
    assert registry.revision != before  # the agent re-reads the tool set before its next turn
    offered = names(registry.specs(window=4096))
    assert "edit_symbol" in offered and "git_diff" in offered
    assert "edit_lines" not in offered and offered[-1] == MORE_TOOLS
    everything = await registry.call(MORE_TOOLS, {}, project.ctx, "c")
    assert everything.success
    assert names(registry.specs(window=4096)) == names(registry.specs())


async def test_more_tools_names_an_unknown_tool_and_what_exists(project: Project) -> None:
    result = await project.registry.call(MORE_TOOLS, {"names": ["edit_symbl"]}, project.ctx, "c")
    assert result.success  # the answer is for the model to read
    assert "Unknown tool 'edit_symbl'" in (result.data or "")
    assert "edit_symbol" in (result.data or "")
    assert "edit_symbol" not in names(project.registry.specs(window=4096))


async def test_a_tool_left_out_of_a_small_set_is_still_callable(project: Project) -> None:
    assert "get_todos" not in names(project.registry.specs(window=4096))
    result = await project.registry.call("get_todos", {}, project.ctx, "c")
    assert result.success, result.error
