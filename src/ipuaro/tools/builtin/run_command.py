"""run_command: one shell command through the command policy, in the session's persistent
shell (``commands.persistentShell``) or, with that off, in a new process in the project root."""

from __future__ import annotations

from pydantic import Field

from ipuaro.tools.base import ArgsModel, BaseTool, ToolContext, ToolError, ToolOutcome
from ipuaro.tools.shell import run_checked
from ipuaro.tools.shell_host import ShellHost, run_in_shell


class RunCommandArgs(ArgsModel):
    command: str = Field(description="Shell command")


class RunCommand(BaseTool):
    name = "run_command"
    description = (
        "Run a shell command; cd and export carry over to later calls (allow/deny lists "
        "checked; unknown commands ask). Output capped at 8 KB, head and tail kept."
    )
    args_model = RunCommandArgs
    read_only = False
    needs_confirmation = True

    async def execute(self, args: RunCommandArgs, ctx: ToolContext) -> ToolOutcome:
        command = args.command.strip()
        if not command:
            raise ToolError("command is empty.")
        if ShellHost.usable(ctx):
            return await run_in_shell(ctx, command)
        return await run_checked(ctx, command, ctx.root, "run_command")
