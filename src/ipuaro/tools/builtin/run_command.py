"""run_command: one shell command in the project root, through the command policy."""

from __future__ import annotations

from pydantic import Field

from ipuaro.tools.base import ArgsModel, BaseTool, ToolContext, ToolError, ToolOutcome
from ipuaro.tools.shell import run_checked


class RunCommandArgs(ArgsModel):
    command: str = Field(description="Shell command, run in the project root")


class RunCommand(BaseTool):
    name = "run_command"
    description = (
        "Run a shell command in the project root (checked against the allow/deny lists; unknown "
        "commands ask the user). Output is capped at 8 KB, head and tail kept."
    )
    args_model = RunCommandArgs
    read_only = False
    needs_confirmation = True

    async def execute(self, args: RunCommandArgs, ctx: ToolContext) -> ToolOutcome:
        command = args.command.strip()
        if not command:
            raise ToolError("command is empty.")
        return await run_checked(ctx, command, ctx.root, "run_command")
