"""One bash process that runs a session's commands one after another, so the working directory
and exported variables carry over from one ``run_command`` call to the next.

The shell is ``bash --noprofile --norc -s`` started in a session of its own (inside the
project's sandbox when one is given) with job control on (``set -m``): every pipeline it runs
gets a process group of its own, so a timeout or an interrupt kills the running command's
groups and leaves the shell, with its state, alive. Only when the shell itself is what runs (a
builtin loop, ``exec sleep``) or it does not come back is it killed and started again; the
outcome then says the state was reset.

The wire protocol (a line per call, its report on a private FIFO) is in
:mod:`ipuaro.security.process.shell_framing`.

After each command the shell is checked: background processes it left are stopped (as
``run_shell`` does); if its stdin, stdout or stderr are no longer ipuaro's pipes (``exec
>file``, ``exec 1>&-``) or it exited (``exit``, ``exec prog``, ``set -e``), it is replaced by a
fresh one and the outcome says so; if its directory ended outside the project or was deleted,
the next command starts in the project root and the outcome says so.

A small reaper process (:mod:`ipuaro.security.sandboxing.shell_reaper`) kills the shell's session if
ipuaro dies without closing it. Needs Linux ``/proc`` and bash (:func:`available`).
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import secrets
import shutil
import signal
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ipuaro.security.process.runner import (
    MIN_OUTPUT_LIMIT,
    CommandOutcome,
    OutputCapture,
)
from ipuaro.security.process.shell_framing import Status, bash_quote, command_line, take_status
from ipuaro.security.process.shell_session import (
    BASH,
    fds_are_ours,
    spawn_shell,
    start_reaper,
    stop_session_members,
)

if TYPE_CHECKING:
    from ipuaro.security.sandboxing.sandbox import SandboxProfile

__all__ = ["PersistentShell", "ShellOutcome", "available", "bash_quote"]

_READ_CHUNK = 65_536
_SETTLE_S = 1.0
"""How long the shell may take to report after its running command was killed."""
_FDS_SETTLE_S = 0.2
"""How long the shell may take to put its own input and output back after a call."""
_STOPPED_NOTE = "[ipuaro: stopped background processes the command left running]"


def available() -> bool:
    """True where a persistent shell can run: bash and Linux ``/proc``."""
    return Path(BASH).exists() and Path("/proc/self/stat").exists()


@dataclass
class ShellOutcome(CommandOutcome):
    """A :class:`CommandOutcome` plus where the shell is now and what happened to its state."""

    cwd: Path | None = None
    """The directory the next command starts in."""
    reset: str | None = None
    """Why the shell's state (directory, variables) was lost during this call, if it was."""
    notes: list[str] = field(default_factory=list)
    """Other things the model should know (the directory was moved back to the root)."""


class PersistentShell:
    """A bash process for one session. Build it, :meth:`run` commands, :meth:`close` it."""

    def __init__(
        self,
        root: Path,
        env: dict[str, str],
        sandbox: SandboxProfile | None = None,
        *,
        kill_grace: float = 0.5,
    ) -> None:
        self.root = Path(root).resolve()
        self.env = env
        self.sandbox = sandbox
        self.kill_grace = kill_grace
        self.starts = 0
        """How many shells were started (the first, then one per reset)."""
        self._process: asyncio.subprocess.Process | None = None
        self._reaper: asyncio.subprocess.Process | None = None
        self._stdin: int | None = None
        self._stdout: int | None = None
        self._pipes: tuple[int, int] = (0, 0)  # inodes of our stdin and stdout pipes
        self._fifo_fd: int | None = None
        self._fifo: Path | None = None
        self._folder: Path | None = None
        self._status = bytearray()
        self._waiter: tuple[bytes, asyncio.Future[Status]] | None = None
        self._capture: OutputCapture | None = None
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._on_output: Callable[[str], None] | None = None
        self._lock = asyncio.Lock()
        self._cwds: list[Path] = [self.root]
        self._go_home = False
        self._lost: str | None = None
        """Why the shell was lost after an interrupted call (told with the next one)."""
        self._closed = False

    # --- facts ----------------------------------------------------------------------------

    @property
    def pid(self) -> int | None:
        """The shell's process id (also its session and process group), when it runs."""
        process = self._process
        return process.pid if process is not None and process.returncode is None else None

    @property
    def cwds(self) -> list[Path]:
        """Where the next command starts: the shell's logical directory (``$PWD``, what ``cd
        ..`` follows) and its physical one (what the kernel resolves ``../x`` from)."""
        return [self.root] if self._go_home else list(self._cwds)

    # --- running --------------------------------------------------------------------------

    async def run(
        self,
        command: str,
        timeout: float | None,
        *,
        output_limit: int = 8192,
        cancel: asyncio.Event | None = None,
        on_output: Callable[[str], None] | None = None,
    ) -> ShellOutcome:
        """Run ``command`` in the shell; ``on_output`` sees its output as it arrives."""
        if not isinstance(command, str) or not command.strip():
            raise ValueError("the persistent shell needs a non-empty command string")
        if "\x00" in command:
            raise ValueError("a command cannot contain a NUL byte")
        if timeout is not None and timeout <= 0:
            raise ValueError(f"timeout must be positive seconds or None, got {timeout}")
        if output_limit < MIN_OUTPUT_LIMIT:
            raise ValueError(f"output_limit must be at least {MIN_OUTPUT_LIMIT} bytes")
        async with self._lock:
            if self._closed:
                raise RuntimeError("the persistent shell is closed")
            return await self._run(command, timeout, output_limit, cancel, on_output)

    async def _run(
        self,
        command: str,
        timeout: float | None,
        output_limit: int,
        cancel: asyncio.Event | None,
        on_output: Callable[[str], None] | None,
    ) -> ShellOutcome:
        reset, self._lost = self._lost, None
        notes: list[str] = []
        if self._process is not None and self._process.returncode is not None:
            reset = f"the shell had exited (code {self._process.returncode})"
            await self._discard()
        if self._process is None:
            await self._start()
        started = time.monotonic()
        self._read_output()  # bytes left by processes of an earlier call are not this one's
        self._capture = OutputCapture(output_limit)
        self._decoder.reset()
        self._on_output = on_output
        token = secrets.token_hex(16)
        loop = asyncio.get_running_loop()
        status: asyncio.Future[Status] = loop.create_future()
        self._waiter = (token.encode() + b":", status)
        self._parse_status()
        line = self._line(command, token)
        try:
            self._send(line)
        except OSError:  # the shell died before it read anything: a new one, once
            await self._discard()
            reset = reset or "the shell had exited"
            await self._start()
            self._send(line)
        try:
            outcome = await self._wait(status, timeout, cancel, started)
        except asyncio.CancelledError:
            await self._after_cancel(status)  # our caller gave up: leave nothing running
            raise
        except BaseException:
            await self._discard()
            self._lost = "the call that ran in it failed"
            raise
        finally:
            self._waiter = None
            self._on_output = None
        outcome.reset = outcome.reset or reset
        outcome.notes = notes + outcome.notes
        outcome.cwd = self.cwds[0]
        return outcome

    async def _wait(
        self,
        status: asyncio.Future[Status],
        timeout: float | None,
        cancel: asyncio.Event | None,
        started: float,
    ) -> ShellOutcome:
        process = self._process
        assert process is not None
        exited = asyncio.ensure_future(process.wait())
        watched: set[asyncio.Future[object]] = {status, exited}  # type: ignore[arg-type]
        cancelled_task = asyncio.ensure_future(cancel.wait()) if cancel is not None else None
        if cancelled_task is not None:
            watched.add(cancelled_task)  # type: ignore[arg-type]
        timed_out = cancelled = False
        reset: str | None = None
        try:
            done, _ = await asyncio.wait(watched, timeout=timeout, return_when="FIRST_COMPLETED")
            if status not in done and exited not in done:
                cancelled = cancelled_task is not None and cancelled_task in done
                timed_out = not cancelled
                reset = await self._stop_running(status, exited)
        finally:
            if cancelled_task is not None:
                cancelled_task.cancel()
        stopped = False
        exit_code: int | None = None
        if status.done() and not status.cancelled():
            result = status.result()
            exit_code = result.exit_code
            stopped = await self._stop_children()
            reset = reset or await self._check_fds()
            if reset is None and process.returncode is not None:
                reset = f"the shell exited with code {process.returncode} after the command"
        else:
            if process.returncode is not None and reset is None:
                exit_code = process.returncode
                reset = (
                    f"the shell exited with code {process.returncode} (`exit`, `exec` or a "
                    "failure under `set -e` ends it)"
                )
            await self._stop_children()
        self._read_output()
        notes: list[str] = []
        if stopped:
            notes.append(_STOPPED_NOTE)
        if reset is not None:
            await self._discard()
            self._cwds = [self.root]
            self._go_home = False
        elif status.done() and not status.cancelled():
            notes += self._follow(status.result())
        capture = self._capture
        assert capture is not None
        output, truncated = capture.render()
        return ShellOutcome(
            exit_code=None if (timed_out or cancelled) else exit_code,
            output=output,
            truncated=truncated,
            timed_out=timed_out,
            duration_s=time.monotonic() - started,
            cancelled=cancelled,
            output_bytes=capture.total,
            stopped_background=stopped,
            reset=reset,
            notes=notes,
        )

    async def _stop_running(
        self, status: asyncio.Future[Status], exited: asyncio.Future[int]
    ) -> str | None:
        """Kill what the shell runs; None if the shell then reports back, else why not."""
        process = self._process
        if process is not None:
            with contextlib.suppress(OSError):
                os.kill(process.pid, signal.SIGUSR1)  # before the kill: see ABORT_TRAP
        if not await self._stop_children():
            return "the shell itself was busy (a loop of builtins or `exec`), so it was killed"
        either: set[asyncio.Future[object]] = {status, exited}  # type: ignore[arg-type]
        await asyncio.wait(either, timeout=_SETTLE_S, return_when="FIRST_COMPLETED")
        if status.done():
            return None
        if exited.done():
            return "the shell exited when its command was stopped"
        return "the shell did not come back after its command was stopped, so it was killed"

    async def _after_cancel(self, status: asyncio.Future[Status]) -> None:
        """The caller was cancelled (the user's Ctrl+C) mid-command: stop the command and
        keep the shell if it comes back, as after a timeout; otherwise lose it and say so on
        the next call."""
        process = self._process
        if process is None:
            return
        try:
            reset = None
            if not status.done():
                reset = await self._stop_running(status, asyncio.ensure_future(process.wait()))
            if reset is None and status.done() and not status.cancelled():
                await self._stop_children()
                self._read_output()
                self._follow(status.result())
                return
        except BaseException:
            reset = "the call was interrupted"
        await self._discard()
        self._cwds = [self.root]
        self._lost = f"{reset}, after an interrupt"

    def _follow(self, status: Status) -> list[str]:
        """Take the shell's new directory; send it home when it left the project."""
        logical = Path(status.logical) if status.logical.startswith("/") else None
        physical = Path(status.physical) if status.physical.startswith("/") else None
        if logical is None or physical is None:
            self._go_home = True
            return [
                "[ipuaro: the shell's working directory no longer exists; the next command "
                "starts in the project root]"
            ]
        for where in (logical, physical):
            if not _inside(where, self.root):
                self._go_home = True
                return [
                    f"[ipuaro: the command left the shell in {where}, outside the project; the "
                    "next command starts in the project root]"
                ]
        self._cwds = [logical] if logical == physical else [logical, physical]
        self._go_home = False
        return []

    def _line(self, command: str, token: str) -> str:
        home = self.root if self._go_home else None
        self._go_home = False
        return command_line(command, token, self._fifo, home)

    def _send(self, line: str) -> None:
        fd = self._stdin
        if fd is None:
            raise BrokenPipeError("the shell has no input")
        data = line.encode("utf-8", "surrogateescape")
        while data:
            written = os.write(fd, data)
            data = data[written:]

    # --- output and status ----------------------------------------------------------------

    def _read_output(self) -> None:
        """Read whatever the output pipe holds (never blocks)."""
        fd = self._stdout
        while fd is not None:
            try:
                chunk = os.read(fd, _READ_CHUNK)
            except BlockingIOError:
                return
            except OSError:
                return
            if not chunk:
                return
            self._feed(chunk)

    def _feed(self, chunk: bytes) -> None:
        if self._capture is not None:
            self._capture.feed(chunk)
        if self._on_output is not None:
            text = self._decoder.decode(chunk)
            if text:
                self._on_output(text)

    def _read_status(self) -> None:
        fd = self._fifo_fd
        while fd is not None:
            try:
                chunk = os.read(fd, 4096)
            except (BlockingIOError, OSError):
                break
            if not chunk:
                break
            self._status += chunk
        self._parse_status()

    def _parse_status(self) -> None:
        if self._waiter is None:
            if len(self._status) > 65_536:  # nobody waits: nothing in it can matter
                self._status.clear()
            return
        tag, future = self._waiter
        status = take_status(self._status, tag)
        if status is not None and not future.done():
            future.set_result(status)

    # --- processes ------------------------------------------------------------------------

    async def _start(self) -> None:
        loop = asyncio.get_running_loop()
        if self._folder is None:
            base = self.sandbox.private_temp() if self.sandbox is not None else None
            self._folder = Path(tempfile.mkdtemp(prefix="ipuaro-shell-", dir=base))
        self._fifo = self._folder / f"status-{secrets.token_hex(8)}"
        os.mkfifo(self._fifo, 0o600)
        # O_RDWR: the FIFO always has a writer (us), so it never reads as ended.
        self._fifo_fd = os.open(self._fifo, os.O_RDWR | os.O_NONBLOCK)
        loop.add_reader(self._fifo_fd, self._read_status)
        self._process, in_write, out_read = await spawn_shell(self.root, self.env, self.sandbox)
        self._stdin, self._stdout = in_write, out_read
        self._pipes = (os.fstat(in_write).st_ino, os.fstat(out_read).st_ino)
        os.set_blocking(out_read, False)
        loop.add_reader(out_read, self._read_output)
        self._reaper = await start_reaper(self._process.pid)
        self._send("set -m\n")
        self._cwds = [self.root]
        self._go_home = False
        self.starts += 1

    async def _stop_children(self, shell: int | None = None) -> bool:
        """TERM, then KILL, every process of the shell's session but the shell: by process
        group (a job and all it forked), one by one in the shell's own group. True if any."""
        if shell is None:
            if self._process is None:
                return False
            shell = self._process.pid
        return await stop_session_members(shell, self.kill_grace)

    async def _check_fds(self) -> str | None:
        """Why the shell cannot go on: its stdin/stdout/stderr are not ours any more. (They
        are someone else's for a moment after every call, while the report goes out.)"""
        deadline = time.monotonic() + _FDS_SETTLE_S
        while True:
            process = self._process
            if process is None or process.returncode is not None:
                return None
            if fds_are_ours(process.pid, self._pipes):
                return None
            if time.monotonic() >= deadline:
                return (
                    "the command closed or redirected the shell's own input or output "
                    "(`exec >file`, `exec 1>&-`), so it was replaced"
                )
            await asyncio.sleep(0.002)

    async def _discard(self) -> None:
        """Kill the shell and everything in its session; forget its pipes."""
        loop = asyncio.get_running_loop()
        process, self._process = self._process, None
        if process is not None:
            with contextlib.suppress(OSError):
                os.killpg(process.pid, signal.SIGKILL)
            await self._stop_children(process.pid)
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
        for fd in (self._stdout, self._fifo_fd):
            if fd is not None:
                loop.remove_reader(fd)
        if self._stdout is not None:
            self._read_output()
        for fd in (self._stdin, self._stdout, self._fifo_fd):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._stdin = self._stdout = self._fifo_fd = None
        if self._fifo is not None:
            with contextlib.suppress(OSError):
                self._fifo.unlink()
            self._fifo = None
        self._status.clear()
        reaper, self._reaper = self._reaper, None
        if reaper is not None and reaper.stdin is not None:
            with contextlib.suppress(OSError, RuntimeError):
                reaper.stdin.write(b"done")
                reaper.stdin.close()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(reaper.wait(), 2.0)

    async def close(self) -> None:
        """End the shell and all it runs. Safe to call twice."""
        async with self._lock:
            self._closed = True
            await self._discard()
            if self._folder is not None:
                shutil.rmtree(self._folder, ignore_errors=True)
                self._folder = None


def _inside(path: Path, root: Path) -> bool:
    try:
        real = path.resolve()
    except (OSError, RuntimeError):
        return False
    return real == root or real.is_relative_to(root)
