"""The processes of a persistent shell's session: starting the shell and its reaper, finding
its members in Linux ``/proc``, killing them by process group, checking the shell's own input
and output are still ours."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ipuaro.security.process.runner import NON_INTERACTIVE_ENV
from ipuaro.security.sandboxing import shell_reaper
from ipuaro.security.sandboxing.supervisor import subreaper_argv

if TYPE_CHECKING:
    from ipuaro.security.sandboxing.sandbox import SandboxProfile

BASH = "/bin/bash"
REAPER = Path(shell_reaper.__file__)
"""Run by file path (``python -I -S``): located through its module, wherever it lives."""
DROPPED_ENV = ("BASH_ENV", "ENV", "CDPATH", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS")
"""Variables that would run code when the shell starts or bend ``cd``."""


async def spawn_shell(
    root: Path, env: dict[str, str], sandbox: SandboxProfile | None
) -> tuple[asyncio.subprocess.Process, int, int]:
    """``bash -s`` in ``root``, in a session of its own (inside ``sandbox`` when given), its
    stdout and stderr on one pipe: (the process, the write end of its stdin, the read end
    of its output)."""
    in_read, in_write = os.pipe()
    out_read, out_write = os.pipe()
    environment = {
        **{k: v for k, v in env.items() if k not in DROPPED_ENV},
        **NON_INTERACTIVE_ENV,
    }
    argv = [BASH, "--noprofile", "--norc", "-s"]
    if sandbox is not None and sandbox.active:
        environment = sandbox.environment(environment)
    # What escapes the session (setsid) stays the shell's child: the shell is a subreaper.
    argv = subreaper_argv(sandbox.wrap(argv) if sandbox is not None else argv)
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
            cwd=str(root),
            stdin=in_read,
            stdout=out_write,
            stderr=out_write,
            start_new_session=True,
            env=environment,
        )
    finally:
        os.close(in_read)
        os.close(out_write)
    return process, in_write, out_read


async def start_reaper(shell: int) -> asyncio.subprocess.Process:
    """The reaper (:mod:`ipuaro.security.sandboxing.shell_reaper`) of the session of ``shell``."""
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-I",
        "-S",
        str(REAPER),
        str(shell),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
        start_new_session=True,
    )


def session_members(shell: int) -> list[tuple[int, int]]:
    """(pid, process group) of every live process in the session of ``shell`` (the
    shell's pid) but the shell, and of every descendant of the shell that left the session
    (``setsid``, a double fork: the shell is their subreaper). One pass over ``/proc``."""
    rows: list[tuple[int, int, int, int]] = []  # pid, parent, group, session
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            text = (entry / "stat").read_text()
        except OSError:
            continue
        fields = text[text.rfind(")") + 2 :].split()
        if len(fields) > 3 and fields[0] not in ("Z", "X"):
            rows.append((int(entry.name), int(fields[1]), int(fields[2]), int(fields[3])))
    children: dict[int, list[int]] = {}
    for pid, parent, _, _ in rows:
        children.setdefault(parent, []).append(pid)
    below: set[int] = set()
    queue = list(children.get(shell, []))
    while queue:
        pid = queue.pop()
        if pid not in below:
            below.add(pid)
            queue.extend(children.get(pid, []))
    return [
        (pid, group)
        for pid, _, group, session in rows
        if pid != shell and (session == shell or pid in below)
    ]


async def stop_session_members(shell: int, kill_grace: float) -> bool:
    """TERM, then KILL (after ``kill_grace`` seconds), every process of the session of
    ``shell`` but the shell: by process group (a job and all it forked), one by one in the
    shell's own group. True if there were any."""
    members = session_members(shell)
    if not members:
        return False
    for sig, wait in ((signal.SIGTERM, kill_grace), (signal.SIGKILL, 1.0)):
        for pid, group in members:
            with contextlib.suppress(OSError):
                if group != shell:
                    os.killpg(group, sig)
                else:
                    os.kill(pid, sig)
                if sig == signal.SIGTERM:
                    os.kill(pid, signal.SIGCONT)  # a stopped job must wake to die
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            await asyncio.sleep(0.01)
            members = session_members(shell)
            if not members:
                return True
    return True


def fds_are_ours(pid: int, pipes: tuple[int, int]) -> bool:
    """Whether process ``pid`` still reads the pipe of inode ``pipes[0]`` and writes its
    stdout and stderr to the pipe of inode ``pipes[1]``."""
    wanted = {0: pipes[0], 1: pipes[1], 2: pipes[1]}
    for fd, inode in wanted.items():
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            return False
        if link != f"pipe:[{inode}]":
            return False
    return True
