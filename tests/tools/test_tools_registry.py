"""The registry: specs, aliases, argument repair, structured errors, plan mode."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from ipuaro.tools.base import ArgsModel, BaseTool, ToolContext, ToolOutcome
from ipuaro.tools.registry import ToolRegistry

from .conftest import Project

EXPECTED = {
    "get_lines",
    "get_function",
    "get_class",
    "get_structure",
    "find_references",
    "find_definition",
    "grep_search",
    "find_files",
    "get_dependencies",
    "get_dependents",
    "get_complexity",
    "get_todos",
    "git_status",
    "git_diff",
    "git_commit",
    "run_command",
    "run_tests",
    "edit_lines",
    "edit_symbol",
    "replace",
    "edit_file",
    "create_file",
    "delete_file",
    "remember",
}


def test_every_tool_is_listed_with_a_schema() -> None:
    registry = ToolRegistry.default()
    specs = {spec["name"]: spec for spec in registry.specs()}
    assert set(specs) == EXPECTED
    for spec in specs.values():
        assert spec["parameters"]["type"] == "object"
        assert "title" not in spec["parameters"]
        assert len(spec["description"]) > 30
    start = specs["get_lines"]["parameters"]["properties"]["start"]
    assert start["type"] == "integer"  # optional fields read as their plain type
    assert "default" not in start  # "default": null says nothing "required" does not
    assert specs["get_structure"]["parameters"]["properties"]["depth"]["default"] == 3


def test_plan_mode_lists_only_read_only_tools() -> None:
    registry = ToolRegistry.default()
    names = {spec["name"] for spec in registry.specs(plan_mode=True)}
    assert names == {t.name for t in registry.read_only()}
    assert not names & {"edit_lines", "replace", "create_file", "run_command", "git_commit"}
    assert "get_lines" in names and "git_status" in names


def test_aliases_resolve() -> None:
    registry = ToolRegistry.default()
    table = {
        "read_file": "get_lines",
        "read": "get_lines",
        "cat": "get_lines",
        "write_file": "create_file",
        "write": "create_file",
        "bash": "run_command",
        "shell": "run_command",
        "execute": "run_command",
        "ls": "get_structure",
        "list_dir": "get_structure",
        "grep": "grep_search",
        "search": "grep_search",
        "find": "find_files",
        "edit": "replace",
        "str_replace": "replace",
        "Get-Lines": "get_lines",
    }
    for alias, target in table.items():
        assert registry.resolve_name(alias) == target, alias
    assert registry.resolve_name("teleport") is None
    assert {"cat", "bash", "get_lines"} <= registry.accepted_names()


async def test_alias_with_foreign_argument_names(project: Project) -> None:
    read = await project.registry.call(
        "read_file",
        {
            "target_file": "src/utils/math.ts",
            "start_line": "2",
            "end_line": 3,
            "explanation": "looking",
        },
        project.ctx,
        "c1",
    )
    assert read.success, read.error
    assert "lines 2-3" in read.data
    claude = await project.registry.call(
        "read", {"file_path": "src/utils/math.ts", "offset": 5, "limit": 2}, project.ctx, "c2"
    )
    assert "lines 5-6" in claude.data
    listing = await project.registry.call(
        "list_dir", {"relative_workspace_path": "src"}, project.ctx, "c3"
    )
    assert listing.success and "utils/" in listing.data
    grep = await project.registry.call("grep", {"pattern": "formatDate"}, project.ctx, "c4")
    assert grep.success and "src/utils/date.ts" in grep.data
    edit = await project.registry.call(
        "str_replace",
        {"path": "README.md", "old_str": "A fixture project", "new_str": "The fixture project"},
        project.ctx,
        "c5",
    )
    assert edit.success, edit.error


async def test_bad_arguments_quote_the_schema(project: Project) -> None:
    cases: list[tuple[str, Any, str]] = [
        ("get_lines", {}, "missing required argument 'path'"),
        ("get_lines", {"path": "a", "start": "abc"}, "start: Input should be a valid integer"),
        ("get_lines", {"path": "a", "colour": "red"}, "unknown argument 'colour'"),
        ("get_lines", ["a"], "must be a JSON object"),
    ]
    for name, arguments, expected in cases:
        result = await project.registry.call(name, arguments, project.ctx, "c")
        assert not result.success
        assert expected in (result.error or ""), result.error
        assert '"properties"' in (result.error or "")  # the schema, quoted
    unknown = await project.registry.call("get_line", {}, project.ctx, "c")
    assert not unknown.success and "Did you mean: get_lines" in (unknown.error or "")


async def test_plan_mode_refuses_write_tools(project: Project) -> None:
    result = await project.registry.call(
        "create_file", {"path": "x.txt", "content": "x"}, project.ctx, "c", plan_mode=True
    )
    assert not result.success and "plan mode" in (result.error or "")
    assert not (project.root / "x.txt").exists()


class _Exploding(BaseTool):
    name = "explode"
    description = "A tool whose body fails, to show the registry turns it into a result."

    class Args(ArgsModel):
        value: int = Field(description="any number")

    args_model = Args

    async def execute(self, args: Any, ctx: ToolContext) -> ToolOutcome:
        raise RuntimeError(f"boom {args.value}")


async def test_an_exception_inside_a_tool_becomes_an_error_result(project: Project) -> None:
    registry = ToolRegistry([_Exploding()])
    result = await registry.call("explode", {"value": "7"}, project.ctx, "c")
    assert not result.success and "RuntimeError: boom 7" in (result.error or "")
