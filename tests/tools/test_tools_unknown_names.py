"""A model that writes tool names in camelCase (``createFile``, as other agents name them) is
understood, and a misspelt name gets a "did you mean" with real tool names."""

from __future__ import annotations

from tests.tools.conftest import Project


async def test_a_camel_case_tool_name_runs_that_tool(project: Project) -> None:
    result = await project.call("createFile", path="notes/todo.md", content="- ship it\n")
    assert result.success, result.error
    assert (project.root / "notes" / "todo.md").read_text(encoding="utf-8") == "- ship it\n"


async def test_a_misspelt_camel_case_name_gets_did_you_mean(project: Project) -> None:
    result = await project.call("writFile", path="x.md", content="x")
    error = result.error or ""
    assert not result.success
    # Closest is the alias write_file: the suggestion is the tool it stands for.
    assert error.startswith("Unknown tool 'writFile'. Did you mean: create_file")
    assert "write_file" not in error.split("Available tools")[0]
