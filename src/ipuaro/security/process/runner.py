"""Runs one shell command for the agent: in the project root, in its own process group, stdin
closed, stderr merged into stdout, output capped, and the whole group killed on timeout or cancel.

The command runs under ``/bin/bash -c`` (``/bin/sh`` where bash is missing) in a new session, so
every process it starts shares one process group: a timeout or a cancel sends ``SIGTERM`` to the
group, then ``SIGKILL`` after a short grace. When the command itself ends, anything it left
running in the background is stopped the same way (so nothing outlives the tool call or keeps the
output pipe open). Output keeps its head and tail within ``output_limit`` bytes, with a line that
says how much was cut. Checking whether the command may run at all is
:mod:`ipuaro.security.policy.commands`' job, not this module's.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ipuaro.security.sandboxing.supervisor import supervised_argv

if TYPE_CHECKING:
    from ipuaro.config.schema import CommandsConfig
    from ipuaro.security.sandboxing.sandbox import SandboxProfile

__all__ = [
    "ALWAYS_HIDDEN_ENV",
    "NON_INTERACTIVE_ENV",
    "SECRET_ENV_SUFFIXES",
    "CommandOutcome",
    "OutputCapture",
    "cap_output",
    "command_timeout",
    "environment_without",
    "run_shell",
    "secret_environment_names",
]

MIN_OUTPUT_LIMIT = 128
_READ_CHUNK = 65_536
_DRAIN_GRACE_S = 0.2  # how long background children may keep the pipe after the shell exits
_PIPE_GRACE_S = 5.0  # the most the output pipe may stay open once everything was stopped
_NON_INTERACTIVE = {"PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"}
"""Set for every command: nothing may wait for a terminal that is not there."""
NON_INTERACTIVE_ENV = _NON_INTERACTIVE
_STOPPED_NOTE = "\n[ipuaro: stopped background processes the command left running]\n"


@dataclass
class CommandOutcome:
    """What happened. ``exit_code`` is None when the command was killed (timeout or cancel);
    a negative code means a signal ended it. ``output`` is stdout and stderr interleaved."""

    exit_code: int | None
    output: str
    truncated: bool
    timed_out: bool
    duration_s: float
    cancelled: bool
    output_bytes: int = 0  # produced in all, before capping
    stopped_background: bool = False


def command_timeout(
    config: CommandsConfig, requested: float | None = None, *, tests: bool = False
) -> float:
    """Seconds a call may run: the request, else ``commands.timeout`` (``commands.testTimeout``
    for a test runner), never above ``commands.maxTimeout`` (so "no limit" still ends)."""
    default = config.test_timeout if tests else config.timeout
    wanted = requested if requested is not None else default
    if wanted is None:
        return config.max_timeout
    if wanted <= 0:
        raise ValueError(f"a command timeout must be positive, got {wanted}")
    return min(wanted, config.max_timeout)


def environment_without(
    names: Iterable[str], base: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment for commands minus ``names`` (say, ``llm.apiKeyEnv``), so a command the
    model runs cannot print the model's own API key."""
    hidden = set(names)
    return {k: v for k, v in (os.environ if base is None else base).items() if k not in hidden}


SECRET_ENV_SUFFIXES = ("_API_KEY", "_TOKEN", "_SECRET")
"""Environment variables whose names end so are credentials: commands the model runs never
see them (with ``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY`` and the configured ``llm.apiKeyEnv``)."""
ALWAYS_HIDDEN_ENV = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")


def secret_environment_names(
    extra: Iterable[str] = (), base: Mapping[str, str] | None = None
) -> list[str]:
    """Names to drop from a model-run command's environment: ``extra`` (``llm.apiKeyEnv``),
    :data:`ALWAYS_HIDDEN_ENV`, and every variable whose upper-cased name ends with one of
    :data:`SECRET_ENV_SUFFIXES`. A tool that needs such a token (``NPM_TOKEN`` for a private
    registry) must be run by the user, outside the agent."""
    names = {name for name in (*extra, *ALWAYS_HIDDEN_ENV) if name}
    for name in os.environ if base is None else base:
        if name.upper().endswith(SECRET_ENV_SUFFIXES):
            names.add(name)
    return sorted(names)


async def run_shell(
    command: str,
    cwd: Path,
    timeout: float | None,
    output_limit: int = 8192,
    env: dict[str, str] | None = None,
    cancel: asyncio.Event | None = None,
    *,
    kill_grace: float = 0.5,
    sandbox: SandboxProfile | None = None,
) -> CommandOutcome:
    """Run ``command`` and return its outcome; ``env`` replaces the environment when given.

    With ``sandbox`` the command runs confined by that profile
    (:func:`~ipuaro.security.sandboxing.sandbox.sandboxed_argv`), with ``TMPDIR`` in its private
    folder.
    """
    if not isinstance(command, str) or not command.strip():
        raise ValueError("run_shell needs a non-empty command string")
    if not Path(cwd).is_dir():
        raise ValueError(f"working directory {str(cwd)!r} does not exist or is not a directory")
    if timeout is not None and timeout <= 0:
        raise ValueError(f"timeout must be positive seconds or None, got {timeout}")
    if output_limit < MIN_OUTPUT_LIMIT:
        raise ValueError(f"output_limit must be at least {MIN_OUTPUT_LIMIT} bytes")
    shell = "/bin/bash" if Path("/bin/bash").exists() else "/bin/sh"
    environment = {**(os.environ if env is None else env), **_NON_INTERACTIVE}
    argv = [shell, "-c", command]
    if sandbox is not None:
        argv = sandbox.wrap(argv)
        environment = sandbox.environment(environment)
    started = time.monotonic()
    status_read, status_write = os.pipe()
    try:
        process = await asyncio.create_subprocess_exec(
            *supervised_argv(argv, status_write),
            cwd=str(cwd),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
            env=environment,
            pass_fds=(status_write,),
        )
    except BaseException:
        os.close(status_read)
        raise
    finally:
        os.close(status_write)
    # A new session: the supervisor (:mod:`ipuaro.security.sandboxing.supervisor`) leads the group
    # and stops, at the end, whatever the command left, even what escaped the group (setsid).
    group = process.pid
    capture = _Capture(output_limit)
    assert process.stdout is not None
    reader = asyncio.create_task(capture.pump(process.stdout))
    waiter = asyncio.create_task(_exit_code(process))
    watched: set[asyncio.Task[object]] = {waiter}
    cancel_task = asyncio.create_task(cancel.wait()) if cancel is not None else None
    if cancel_task is not None:
        watched.add(cancel_task)
    timed_out = cancelled = stopped = False
    try:
        done, _ = await asyncio.wait(watched, timeout=timeout, return_when="FIRST_COMPLETED")
        if waiter not in done:
            cancelled = cancel_task is not None and cancel_task in done
            timed_out = not cancelled
            await _kill_group(group, kill_grace)
            await waiter
        # The supervisor is gone and took the command's leftovers with it; should anything
        # still hold the pipe open (the supervisor itself was killed), the time-out holds.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(reader), _DRAIN_GRACE_S)
        stopped = _said_stopped(status_read)
        if _group_alive(group):
            stopped = True
            await _kill_group(group, kill_grace)
        try:
            await asyncio.wait_for(reader, _PIPE_GRACE_S)
        except TimeoutError:
            stopped = True  # the reader was cancelled; the output so far is kept
    except BaseException:
        await _kill_group(group, 0.0)  # our caller was cancelled: leave nothing behind
        reader.cancel()
        waiter.cancel()
        raise
    finally:
        os.close(status_read)
        if cancel_task is not None:
            cancel_task.cancel()
    output, truncated = capture.render()
    if stopped:
        output += _STOPPED_NOTE
    return CommandOutcome(
        exit_code=None if (timed_out or cancelled) else process.returncode,
        output=output,
        truncated=truncated,
        timed_out=timed_out,
        duration_s=time.monotonic() - started,
        cancelled=cancelled,
        output_bytes=capture.total,
        stopped_background=stopped,
    )


# --- process groups ---------------------------------------------------------------------


def _said_stopped(status_read: int) -> bool:
    """Whether the supervisor reported stopping processes the command left running."""
    os.set_blocking(status_read, False)
    try:
        return os.read(status_read, 64).startswith(b"stopped")
    except OSError:
        return False


async def _exit_code(process: asyncio.subprocess.Process) -> int:
    """The shell's exit code as soon as it exits.

    ``Process.wait()`` (Python 3.11) also waits for the output pipe to close, which never
    happens while a background child holds it; ``returncode`` is set at exit.
    """
    while process.returncode is None:
        await asyncio.sleep(0.01)
    return process.returncode


def _group_alive(group: int) -> bool:
    """True if a live (non-zombie) process is in ``group``.

    ``killpg(group, 0)`` also counts zombies, which stay forever where PID 1 does not reap
    them (some containers), so on Linux ``/proc`` is read instead.
    """
    proc = Path("/proc")
    if not (proc / "self" / "stat").exists():
        try:
            os.killpg(group, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return True
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 2 and fields[2] == str(group) and fields[0] not in ("Z", "X"):
            return True
    return False


async def _kill_group(group: int, grace: float) -> None:
    """SIGTERM the group, wait up to ``grace`` seconds, then SIGKILL what is left."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 1.0)):
        try:
            os.killpg(group, sig)
        except (ProcessLookupError, PermissionError):
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if not _group_alive(group):
                return
            await asyncio.sleep(0.01)


# --- output capping ---------------------------------------------------------------------


class _Capture:
    """Keeps the first and last ``limit`` bytes of a stream of any length."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    async def pump(self, stream: asyncio.StreamReader) -> None:
        while chunk := await stream.read(_READ_CHUNK):
            self.feed(chunk)

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.limit - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            if len(self.tail) > self.limit:
                del self.tail[: len(self.tail) - self.limit]

    def render(self) -> tuple[str, bool]:
        if self.total <= self.limit:
            return bytes(self.head).decode("utf-8", "replace"), False
        return _compose(bytes(self.head), bytes(self.head + self.tail), self.total, self.limit)


OutputCapture = _Capture
"""Head-and-tail capture of a stream, shared with the persistent shell and extensions."""
kill_group = _kill_group
"""SIGTERM a process group, then SIGKILL what is left (shared with extensions' programs)."""


def cap_output(text: str, limit: int) -> tuple[str, bool]:
    """``text`` within ``limit`` UTF-8 bytes, keeping head and tail and saying what was cut."""
    if limit < MIN_OUTPUT_LIMIT:
        raise ValueError(f"limit must be at least {MIN_OUTPUT_LIMIT} bytes")
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text, False
    return _compose(data[:limit], data[-limit:], len(data), limit)


def _compose(head_src: bytes, tail_src: bytes, total: int, limit: int) -> tuple[str, bool]:
    """Head and tail (cut at line ends where one is near) around a line naming the cut."""
    budget = limit - len(_marker(total, total).encode())
    head_size, tail_size = budget // 2, budget - budget // 2
    head = head_src[:head_size]
    newline = head.rfind(b"\n")
    if newline >= head_size // 2:
        head = head[: newline + 1]
    tail = tail_src[-tail_size:] if tail_size else b""
    newline = tail.find(b"\n")
    if 0 <= newline <= tail_size // 2:
        tail = tail[newline + 1 :]
    head, tail = _trim_end(head), _trim_start(tail)
    marker = _marker(total - len(head) - len(tail), total)
    text = head.decode("utf-8", "replace") + marker + tail.decode("utf-8", "replace")
    return text, True


def _marker(cut: int, total: int) -> str:
    return f"\n[... {cut} bytes cut from the middle of {total} bytes of output ...]\n"


def _trim_end(data: bytes) -> bytes:
    """Drop a UTF-8 sequence left incomplete by the cut at the end."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte & 0xC0 == 0x80:
            continue
        if byte >= 0xC0:
            length = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            if back < length:
                return data[:-back]
        return data
    return data


def _trim_start(data: bytes) -> bytes:
    """Drop continuation bytes left without their lead byte by the cut at the start."""
    skip = 0
    while skip < min(3, len(data)) and data[skip] & 0xC0 == 0x80:
        skip += 1
    return data[skip:]
