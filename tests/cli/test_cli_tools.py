"""``ipuaro tools``: every tool with its description and arguments, from the real registry."""

from __future__ import annotations

import json

from click.testing import CliRunner

from ipuaro.cli.main import build_cli
from ipuaro.tools.registry import ToolRegistry


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(build_cli(), list(args), catch_exceptions=False)
    return result.exit_code, result.output


def test_lists_every_tool_with_its_description_and_arguments() -> None:
    code, out = invoke("tools")
    assert code == 0
    blocks = {block.split()[0]: block for block in out.strip().split("\n\n")}
    registry = ToolRegistry.default()
    assert list(blocks) == [tool.name for tool in registry.tools()]
    for spec in registry.specs():
        block = blocks[spec["name"]]
        assert spec["description"] in block
        required = set(spec["parameters"].get("required", []))
        for argument, schema in spec["parameters"].get("properties", {}).items():
            kind = "required" if argument in required else "optional"
            assert f"- {argument} ({schema['type']}" in block and kind in block
    assert "- depth (integer, optional, 1..20, default 3)" in blocks["get_structure"]
    assert "arguments: none" in blocks["git_status"]
    assert "[read-only]" in blocks["get_lines"] and "[asks before acting]" in blocks["replace"]


def test_json_is_the_schema_the_model_sees() -> None:
    code, out = invoke("tools", "--json")
    assert code == 0
    rows = json.loads(out)
    specs = ToolRegistry.default().specs()
    assert [{k: v for k, v in row.items() if k != "effect"} for row in rows] == specs
    code, out = invoke("tools", "edit_lines", "--json")
    (row,) = json.loads(out)
    assert row["name"] == "edit_lines" and row["parameters"]["required"][:2] == ["path", "start"]


def test_unknown_name_says_which_exist() -> None:
    code, out = invoke("tools", "get_everything")
    assert code == 2
    assert "unknown tool 'get_everything'" in out and "get_lines" in out


def test_tool_help_points_at_the_listing() -> None:
    code, out = invoke("tool", "--help")
    assert code == 0 and "ipuaro tools" in out
    code, out = invoke("--help")
    assert "tools" in out and "List the tools" in out
