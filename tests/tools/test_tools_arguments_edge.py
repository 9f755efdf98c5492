"""Arguments no well-behaved model sends but a small one may: infinite numbers (Python's json
reads ``1e999`` and ``Infinity``), and argument models that fail in unexpected ways. Whatever
the arguments, the registry answers with a failed result quoting the schema; it never raises."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from pydantic import Field, model_validator

from ipuaro.tools.arguments import normalise_arguments
from ipuaro.tools.base import ArgsModel, BaseTool, ToolContext, ToolOutcome
from ipuaro.tools.builtin.get_lines import GetLinesArgs
from ipuaro.tools.registry import ToolRegistry

from .conftest import Project


@pytest.mark.parametrize(
    "raw",
    [
        '{"path": "a.ts", "offset": 1e999, "limit": 5}',
        '{"path": "a.ts", "offset": Infinity, "limit": 5}',
        '{"path": "a.ts", "offset": -Infinity, "limit": 5}',
        '{"path": "a.ts", "offset": 3, "limit": 1e999}',
        '{"path": "a.ts", "offset": NaN, "limit": 5}',
    ],
)
def test_offset_and_limit_that_are_not_finite_do_not_raise(raw: str) -> None:
    arguments = json.loads(raw)
    out = normalise_arguments(arguments, GetLinesArgs, ("path",))
    assert out["path"] == "a.ts" and "offset" not in out and "limit" not in out
    # Left as sent, for pydantic to name; never computed into a wrong line number.
    assert not isinstance(out["start"], int) or not isinstance(out["end"], int)


def test_finite_offset_and_limit_still_become_a_line_range() -> None:
    out = normalise_arguments({"path": "a", "offset": 10, "limit": 5}, GetLinesArgs, ("path",))
    assert out == {"path": "a", "start": 10, "end": 14}


@pytest.mark.parametrize(
    "raw", ['{"offset": 1e999, "limit": 5}', '{"offset": 1, "limit": Infinity}']
)
async def test_infinite_arguments_are_a_failed_result_quoting_the_schema(
    project: Project, raw: str
) -> None:
    arguments = {"path": "src/app.ts", **json.loads(raw)}
    result = await project.registry.call("get_lines", arguments, project.ctx, "c1")
    assert not result.success
    error = result.error or ""
    assert error.startswith("Invalid arguments for get_lines"), error
    assert "finite" in error, error
    assert '"properties"' in error  # the schema, quoted, so the model can repair the call


async def test_a_float_start_that_is_infinite_is_named(project: Project) -> None:
    result = await project.registry.call(
        "get_lines", {"path": "src/app.ts", "start": math.inf}, project.ctx, "c1"
    )
    assert not result.success and "start" in (result.error or "")


class _OddArgs(ArgsModel):
    value: int = Field(description="any number")

    @model_validator(mode="before")
    @classmethod
    def _reject(cls, data: Any) -> Any:
        # Not a ValueError, so pydantic lets it through instead of wrapping it.
        if isinstance(data, dict) and data.get("value") == 13:
            raise LookupError("unlucky value")
        return data


class _Odd(BaseTool):
    name = "odd"
    description = "A tool whose argument model raises something pydantic does not wrap."
    args_model = _OddArgs

    async def execute(self, args: Any, ctx: ToolContext) -> ToolOutcome:
        return ToolOutcome.ok(f"value {args.value}")


async def test_any_exception_from_the_arguments_becomes_a_failed_result(
    project: Project,
) -> None:
    registry = ToolRegistry([_Odd()])
    ok = await registry.call("odd", {"value": 7}, project.ctx, "c")
    assert ok.success, ok.error
    result = await registry.call("odd", {"value": 13}, project.ctx, "c")
    assert not result.success
    error = result.error or ""
    assert "Invalid arguments for odd: LookupError: unlucky value" in error, error
    assert "Expected: odd(value: integer)" in error
    outcome = await registry.call_outcome("odd", {"value": 13}, project.ctx)
    assert not outcome.success and "LookupError" in (outcome.error or "")
