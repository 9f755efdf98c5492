"""``run_command`` in the session's persistent shell (``commands.persistentShell``, on by default).

:class:`ShellHost` keeps one :class:`~ipuaro.security.process.persistent_shell.PersistentShell` for
the current session, started on the first command inside the project's sandbox, replaced when the
session or the sandbox settings change, closed with the workspace. :func:`run_in_shell` is the
tool's path through it: the policy judges the command from the shell's current directory and
refuses a ``cd`` out of the project, the user settles any question, the command runs in the
shell, its output streams to ``ctx.progress`` while it runs, and the result tells the model
where the shell is and whether its state was reset.

A command that needs the network while the sandbox keeps it off (``npm install``, allowed by the
user) runs as before, in a process of its own, in the shell's directory: the shell was started
offline and stays so.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ipuaro.tools.base import ToolContext, ToolOutcome

if TYPE_CHECKING:
    # a start builds the host; the shell's process machinery and the command checks load with
    # the first command (issue 27)
    from ipuaro.security.process.persistent_shell import PersistentShell, ShellOutcome
    from ipuaro.security.sandboxing.sandbox import SandboxProfile

__all__ = ["ShellHost", "run_in_shell"]

STREAM_INTERVAL_S = 0.1
"""Output reaches the display at most this often (a flood of output is not a flood of events)."""
STREAM_TAIL_CHARS = 8192
"""Of the output gathered between two updates, the display gets at most the last this many."""
FIRST_NOTE = (
    "[ipuaro: commands run in one shell for this session: `cd` and exported variables carry "
    "over to the next run_command; `cd` stays inside the project]"
)


class ShellHost:
    """The one persistent shell of a workspace, for its current session."""

    def __init__(self) -> None:
        self._shell: PersistentShell | None = None
        self._key: tuple[object, ...] = ()

    @staticmethod
    def usable(ctx: ToolContext) -> bool:
        """Whether ``run_command`` goes through a persistent shell here."""
        from ipuaro.security.process.persistent_shell import available

        return ctx.shell is not None and ctx.config.commands.persistent_shell and available()

    def cwds(self, ctx: ToolContext, sandbox: SandboxProfile) -> list[Path]:
        """Where the next command of ``ctx``'s session starts."""
        shell = self._shell
        if shell is None or self._key != _key(ctx, sandbox):
            return [ctx.root]
        return shell.cwds

    async def shell_for(
        self, ctx: ToolContext, sandbox: SandboxProfile, env: dict[str, str]
    ) -> PersistentShell:
        """The session's shell; a new one when the session or sandbox settings changed."""
        key = _key(ctx, sandbox)
        if self._shell is not None and self._key != key:
            await self._shell.close()
            self._shell = None
        if self._shell is None:
            from ipuaro.security.process.persistent_shell import PersistentShell

            self._shell = PersistentShell(ctx.root, env, sandbox if sandbox.active else None)
            self._key = key
        return self._shell

    @property
    def pid(self) -> int | None:
        """The running shell's process id, if one runs."""
        return self._shell.pid if self._shell is not None else None

    async def aclose(self) -> None:
        """End the shell and everything it runs."""
        shell, self._shell = self._shell, None
        if shell is not None:
            await shell.close()


def _key(ctx: ToolContext, sandbox: SandboxProfile) -> tuple[object, ...]:
    return (ctx.session_id, ctx.root, sandbox.name, sandbox.network, sandbox.active)


async def run_in_shell(ctx: ToolContext, command: str) -> ToolOutcome:
    """``run_command`` through the session's persistent shell (``ctx.shell`` must be set)."""
    from ipuaro.security.process.runner import (
        command_timeout,
        environment_without,
        run_shell,
        secret_environment_names,
    )
    from ipuaro.tools.shell import (
        check_command,
        command_report,
        network_allowed,
        sandbox_profile,
    )

    host = ctx.shell
    assert host is not None
    sandbox = sandbox_profile(ctx)
    cwds = host.cwds(ctx, sandbox)
    decision = await check_command(ctx, command, "run_command", cwds=cwds, confine_cd=True)
    online = await network_allowed(ctx, decision)
    env = environment_without(secret_environment_names([ctx.config.llm.api_key_env]))
    timeout = command_timeout(ctx.config.commands)
    limit = ctx.config.commands.output_limit_bytes
    where = _shown(cwds[0], ctx.root)
    if online and sandbox.active and not sandbox.network:
        outcome = await run_shell(
            command,
            cwds[0],
            timeout,
            output_limit=limit,
            env=env,
            cancel=ctx.cancel,
            sandbox=sandbox.with_network(True),
        )
        note = (
            "[ipuaro: this command needed the network, so it ran in a process of its own "
            "(the shell stays offline): the shell's variables were not set in it, and its "
            "`cd` and `export` do not carry over]"
        )
        return command_report(
            ctx, command, outcome, sandbox, online, where=where, notes=[note], timeout=timeout
        )
    shell = await host.shell_for(ctx, sandbox, env)
    starts = shell.starts
    stream = _Stream(ctx.progress) if ctx.progress is not None else None
    result = await shell.run(
        command,
        timeout,
        output_limit=limit,
        cancel=ctx.cancel,
        on_output=stream.feed if stream is not None else None,
    )
    if stream is not None:
        stream.close()
    notes = list(result.notes)
    if result.reset is not None:
        notes.append(
            f"[ipuaro: the shell was restarted ({result.reset}): the working directory is back "
            "at the project root and variables set by earlier commands are gone]"
        )
    elif starts == 0 and shell.starts == 1:
        notes.append(FIRST_NOTE)
    data = _facts(result, ctx.root)
    return command_report(
        ctx, command, result, sandbox, online, where=where, notes=notes, data=data, timeout=timeout
    )


def _shown(cwd: Path, root: Path) -> str | None:
    """The directory as the model should read it: None for the root, else relative."""
    if cwd == root:
        return None
    try:
        return cwd.relative_to(root).as_posix() + "/"
    except ValueError:
        return str(cwd)


def _facts(result: ShellOutcome, root: Path) -> dict[str, object]:
    after = result.cwd or root
    return {
        "shell": "persistent",
        "cwd": _shown(after, root) or ".",
        "shellReset": result.reset,
    }


class _Stream:
    """Passes output on at most every :data:`STREAM_INTERVAL_S`, only the tail of a flood."""

    def __init__(self, sink: Callable[[str], None]) -> None:
        self.sink = sink
        self.pending = ""
        self.last = 0.0
        self.timer: asyncio.TimerHandle | None = None

    def feed(self, text: str) -> None:
        self.pending = (self.pending + text)[-STREAM_TAIL_CHARS:]
        wait = self.last + STREAM_INTERVAL_S - time.monotonic()
        if wait <= 0:
            self.flush()
        elif self.timer is None:
            self.timer = asyncio.get_running_loop().call_later(wait, self.flush)

    def flush(self) -> None:
        self.timer = None
        if self.pending:
            text, self.pending = self.pending, ""
            self.last = time.monotonic()
            self.sink(text)

    def close(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
        self.flush()
