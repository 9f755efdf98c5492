"""Starting an extension's program: an argv (never a shell string), input on stdin, a timeout
that kills the whole process group, both output streams capped, and the sandbox around it.
The program runs under :mod:`ipuaro.security.sandboxing.supervisor`, so what it forks — even into a
session of its own — ends with it, at its time-out, or when ipuaro dies.

Script tools and hooks both run through :func:`run_program`. The program gets ipuaro's
environment minus credentials (like ``run_command``), plus the variables the caller adds.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ipuaro.security.process.runner import (
    OutputCapture,
    environment_without,
    kill_group,
    secret_environment_names,
)
from ipuaro.security.sandboxing.supervisor import supervised_argv

if TYPE_CHECKING:
    from ipuaro.security.sandboxing.sandbox import SandboxProfile

__all__ = ["ProgramResult", "missing_program", "run_program"]

_KILL_GRACE_S = 0.3
_DRAIN_GRACE_S = 0.2


@dataclass(frozen=True)
class ProgramResult:
    exit_code: int | None
    """None when the program was killed (timeout or cancel)."""
    stdout: str
    stderr: str
    timed_out: bool
    duration_s: float
    truncated: bool
    """Some output was cut (head and tail kept)."""
    cancelled: bool = False
    start_error: str | None = None
    """Why the program could not start at all (not found, not executable)."""

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


async def run_program(
    argv: Sequence[str],
    *,
    cwd: Path,
    stdin: bytes,
    timeout: float,
    output_limit: int,
    extra_env: Mapping[str, str] | None = None,
    hidden_env: Sequence[str] = (),
    sandbox: SandboxProfile | None = None,
    cancel: asyncio.Event | None = None,
) -> ProgramResult:
    """Run ``argv`` in ``cwd`` with ``stdin`` as its input; never raises for the program's own
    failures (a missing program is ``start_error``)."""
    environment = environment_without(secret_environment_names(hidden_env))
    environment.update(extra_env or {})
    missing = missing_program(argv[0], cwd, environment.get("PATH"))
    if missing is not None:
        return ProgramResult(None, "", "", False, 0.0, False, start_error=missing)
    command = list(argv)
    if sandbox is not None and sandbox.active:
        command = sandbox.wrap(command)
        environment = sandbox.environment(environment)
    started = time.monotonic()
    try:
        process = await asyncio.create_subprocess_exec(
            *supervised_argv(command),  # what it leaves behind, even setsid, is stopped
            cwd=str(cwd),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
            env=environment,
        )
    except (OSError, ValueError) as error:  # ValueError: a NUL byte in an argument
        reason = (error.strerror if isinstance(error, OSError) else None) or str(error)
        return ProgramResult(None, "", "", False, 0.0, False, start_error=f"{argv[0]}: {reason}")
    out, err = OutputCapture(output_limit), OutputCapture(output_limit)
    assert process.stdout is not None and process.stderr is not None
    readers: asyncio.Future[Any] = asyncio.gather(
        out.pump(process.stdout), err.pump(process.stderr)
    )
    feeder = asyncio.ensure_future(_feed(process, stdin))
    finished: asyncio.Future[Any] = asyncio.ensure_future(_finish(process, readers))
    watched: set[asyncio.Future[Any]] = {finished}
    stopper: asyncio.Future[Any] | None = (
        asyncio.ensure_future(cancel.wait()) if cancel is not None else None
    )
    if stopper is not None:
        watched.add(stopper)
    timed_out = cancelled = False
    try:
        done, _ = await asyncio.wait(watched, timeout=timeout, return_when="FIRST_COMPLETED")
        if finished not in done:
            cancelled = stopper is not None and stopper in done
            timed_out = not cancelled
            await _kill_group(process)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(finished, 2.0)
    except BaseException:
        await _kill_group(process)
        raise
    finally:
        for task in (feeder, stopper):
            if task is not None:
                task.cancel()
        if not readers.done():
            readers.cancel()
    stdout, cut_out = out.render()
    stderr, cut_err = err.render()
    return ProgramResult(
        exit_code=None if (timed_out or cancelled) else process.returncode,
        stdout=stdout,
        stderr=stderr,
        timed_out=timed_out,
        duration_s=time.monotonic() - started,
        truncated=cut_out or cut_err,
        cancelled=cancelled,
    )


def missing_program(program: str, cwd: Path, path: str | None) -> str | None:
    """Why ``program`` cannot be started, checked before the sandbox launcher (which would
    only say "exit code 127"); None when it can."""
    if "/" in program:
        found = Path(program) if Path(program).is_absolute() else cwd / program
        if not found.is_file():
            return f"{program}: no such file"
        if not os.access(found, os.X_OK):
            return f"{program}: not executable (chmod +x it, or name its interpreter first)"
        return None
    if shutil.which(program, path=path) is None:
        return f"{program}: not found on PATH"
    return None


async def _feed(process: asyncio.subprocess.Process, data: bytes) -> None:
    assert process.stdin is not None
    # A program that never reads its input (or exits first) must not fail the call.
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        process.stdin.write(data)
        await process.stdin.drain()
    with contextlib.suppress(OSError):
        process.stdin.close()


async def _finish(process: asyncio.subprocess.Process, readers: asyncio.Future[Any]) -> None:
    # Not ``process.wait()``: on Python 3.11 it also waits for the pipes to close, which a
    # background child holding them never lets happen; ``returncode`` is set at exit.
    while process.returncode is None:
        await asyncio.sleep(0.01)
    try:
        await asyncio.wait_for(asyncio.shield(readers), _DRAIN_GRACE_S)
    except TimeoutError:
        # The program is done but left a child holding its output open: nothing may outlive
        # the call, so the rest of its process group goes too.
        await _kill_group(process)
        await readers


async def _kill_group(process: asyncio.subprocess.Process) -> None:
    """SIGTERM the program's process group, then SIGKILL what is left after a short grace."""
    await kill_group(process.pid, _KILL_GRACE_S)
