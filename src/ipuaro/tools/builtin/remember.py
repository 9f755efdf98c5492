"""remember: the model's way to change the engineering memory outside plan mode ("remember
that tests run with …"). The patch goes through the same whitelist and type checks as a plan's
``memory_patch`` and is written only when the user confirms (``ToolContext.remember``, the
core's ``propose_memory_patch``). A key the model puts beside ``memory_patch`` instead of
inside it counts too: small models do that.
"""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field

from ipuaro.memory.keys import KEYS
from ipuaro.tools.base import ArgsModel, BaseTool, ToolContext, ToolError, ToolOutcome


class RememberArgs(ArgsModel):
    model_config = ConfigDict(extra="allow")

    memory_patch: dict[str, Any] | None = Field(None, description='{"key": value, ...}')


def _keys_hint() -> str:
    """Every key in few tokens: user keys with their values, project keys by name."""
    user: list[str] = []
    project: list[str] = []
    for spec in KEYS:
        if spec.scope == "project":
            project.append(spec.name + ("[]" if spec.kind == "folders" else ""))
        elif spec.kind == "choice":
            user.append(f"{spec.key} {'|'.join(spec.choices)}")
        elif spec.kind == "count":
            user.append(f"{spec.key} {spec.low}-{spec.high}")
        else:
            user.append(spec.key)
    return ", ".join(user) + ", project.{" + ",".join(project) + "}"


class Remember(BaseTool):
    name = "remember"
    description = (
        "Remember a preference for later sessions when the user asks (the user confirms; null "
        "forgets). Keys: " + _keys_hint() + "."
    )
    args_model = RememberArgs
    read_only = False
    needs_confirmation = True

    async def execute(self, args: RememberArgs, ctx: ToolContext) -> ToolOutcome:
        patch: dict[str, Any] = dict(args.memory_patch or {})
        patch.update(args.model_extra or {})
        if not patch:
            raise ToolError(
                'give the keys to remember: {"memory_patch": '
                '{"project.default_test_command": "pytest -q"}}'
            )
        if ctx.remember is None:
            raise ToolError(
                "remembering needs a session where the user can confirm it; ask the user to "
                "run /memory set KEY VALUE instead"
            )
        report = await ctx.remember(patch, "remember")
        check = report.check
        if report.applied or not (
            report.declined or report.error or check.invalid or check.dropped
        ):
            return ToolOutcome.ok(report.message, data={"applied": report.applied})
        return ToolOutcome.fail(report.message, refused=report.declined)
