"""No process a command starts outlives it — not ``setsid``, not a double fork, not when the
command times out while an escaped child holds its output open, not when ipuaro is killed.

Real processes throughout; each escaped process writes its pid to a file the test waits for,
and the test then checks ``/proc`` (a zombie counts as gone).
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from ipuaro.security.process.runner import run_shell
from ipuaro.security.sandboxing.sandbox import SandboxProfile
from ipuaro.security.sandboxing.supervisor import supervised_argv

HANG_GUARD_S = 120.0  # only breaks a hang; nothing here measures time

ESCAPES = (
    "setsid sh -c 'echo $$ > {d}/setsid.pid; exec sleep 300' > /dev/null 2>&1 & "
    "( ( sh -c 'echo $$ > {d}/double.pid; exec sleep 300' > /dev/null 2>&1 & ) & ) ; "
    "while [ ! -s {d}/setsid.pid ] || [ ! -s {d}/double.pid ]; do sleep 0.01; done"
)


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] not in "ZX"


def pids(folder: Path, *names: str) -> list[int]:
    return [int((folder / f"{name}.pid").read_text()) for name in names]


def wait_gone(pid_list: list[int]) -> list[int]:
    deadline = time.monotonic() + HANG_GUARD_S
    while time.monotonic() < deadline and any(alive(p) for p in pid_list):
        time.sleep(0.02)
    return [p for p in pid_list if alive(p)]


async def test_setsid_and_double_forks_end_with_the_command(tmp_path: Path) -> None:
    outcome = await asyncio.wait_for(
        run_shell(ESCAPES.format(d=tmp_path) + "; echo done", tmp_path, timeout=None),
        HANG_GUARD_S,
    )
    assert outcome.exit_code == 0 and "done" in outcome.output
    assert outcome.stopped_background
    assert [p for p in pids(tmp_path, "setsid", "double") if alive(p)] == []


async def test_timeout_holds_when_an_escaped_child_keeps_the_output_open(
    tmp_path: Path,
) -> None:
    # The escaped child writes to the command's own output pipe and never closes it.
    command = (
        f"setsid sh -c 'echo $$ > {tmp_path}/holder.pid; exec sleep 300' & "
        f"while [ ! -s {tmp_path}/holder.pid ]; do sleep 0.01; done; echo waiting; sleep 300"
    )
    outcome = await asyncio.wait_for(run_shell(command, tmp_path, timeout=1.0), HANG_GUARD_S)
    assert outcome.timed_out and outcome.exit_code is None
    assert "waiting" in outcome.output
    assert not alive(pids(tmp_path, "holder")[0])


async def test_sandboxed_command_escapes_are_stopped_too(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    profile = SandboxProfile.for_project(project)
    outcome = await asyncio.wait_for(
        run_shell(ESCAPES.format(d=project), project, timeout=None, sandbox=profile),
        HANG_GUARD_S,
    )
    assert outcome.exit_code == 0, outcome.output
    assert [p for p in pids(project, "setsid", "double") if alive(p)] == []


def test_killing_ipuaro_takes_every_escaped_process_with_it(tmp_path: Path) -> None:
    """A stand-in for ipuaro runs a command through the supervisor and is SIGKILLed while the
    command and its escaped children run: the supervisor's death signal stops them all."""
    (tmp_path / "go.sh").write_text(ESCAPES.format(d=tmp_path) + "; echo ready; sleep 300\n")
    argv = supervised_argv(["/bin/sh", str(tmp_path / "go.sh")])
    host = subprocess.Popen(
        [sys.executable, "-c", "import subprocess, sys; subprocess.run(sys.argv[1:])", *argv],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert host.stdout is not None and host.stdout.readline() == "ready\n"
        escaped = pids(tmp_path, "setsid", "double")
        assert all(alive(p) for p in escaped)
        os.kill(host.pid, signal.SIGKILL)
        host.wait()
        assert wait_gone(escaped) == []
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()


async def test_the_persistent_shell_stops_what_escaped_its_session(tmp_path: Path) -> None:
    from ipuaro.security.process.persistent_shell import PersistentShell

    project = tmp_path / "project"
    project.mkdir()
    profile = SandboxProfile.for_project(project)
    shell = PersistentShell(project, dict(os.environ), profile if profile.active else None)
    try:
        done = await shell.run(ESCAPES.format(d=project) + "; echo started", 30)
        assert done.output.strip().endswith("started"), done.output
        escaped = pids(project, "setsid", "double")
        assert [p for p in escaped if alive(p)] == []
        assert (await shell.run("echo still here", 30)).output == "still here\n"
        late = await shell.run(
            f"setsid sh -c 'echo $$ > {project}/late.pid; exec sleep 300' > /dev/null 2>&1 &"
            f" while [ ! -s {project}/late.pid ]; do sleep 0.01; done; sleep 300",
            1,
        )
        assert late.timed_out
        assert not alive(pids(project, "late")[0])
    finally:
        await shell.close()


def test_a_killed_ipuaro_leaves_no_escaped_child_of_its_persistent_shell(
    tmp_path: Path,
) -> None:
    """The shell's reaper sees ipuaro die and stops the shell's descendants, escaped too."""
    project = tmp_path / "project"
    project.mkdir()
    host_code = (
        "import asyncio, os, sys\n"
        "from pathlib import Path\n"
        "from ipuaro.security.process.persistent_shell import PersistentShell\n"
        "async def main():\n"
        "    shell = PersistentShell(Path(sys.argv[1]), dict(os.environ), None)\n"
        "    running = asyncio.create_task(shell.run(sys.argv[2] + '; sleep 300', 600))\n"
        "    files = [Path(sys.argv[1]) / f for f in ('setsid.pid', 'double.pid')]\n"
        "    while not all(f.is_file() and f.stat().st_size for f in files):\n"
        "        await asyncio.sleep(0.01)\n"
        "    print('ready', flush=True)\n"
        "    await running\n"
        "asyncio.run(main())\n"
    )
    host = subprocess.Popen(
        [sys.executable, "-c", host_code, str(project), ESCAPES.format(d=project)],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert host.stdout is not None and host.stdout.readline() == "ready\n"
        escaped = pids(project, "setsid", "double")
        assert all(alive(p) for p in escaped)
        os.kill(host.pid, signal.SIGKILL)
        host.wait()
        assert wait_gone(escaped) == []
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()


async def test_a_hook_or_script_tool_leaves_no_escaped_child(tmp_path: Path) -> None:
    from ipuaro.extensions.process import run_program

    script = (
        f"setsid sh -c 'echo $$ > {tmp_path}/hook.pid; exec sleep 300' & "
        f"while [ ! -s {tmp_path}/hook.pid ]; do sleep 0.01; done; echo hooked"
    )
    result = await asyncio.wait_for(
        run_program(
            ["/bin/sh", "-c", script], cwd=tmp_path, stdin=b"", timeout=60, output_limit=4096
        ),
        HANG_GUARD_S,
    )
    assert result.ok and result.stdout == "hooked\n"
    assert not alive(pids(tmp_path, "hook")[0])


def test_filter_driver_names_of_any_spelling_are_neutralised() -> None:
    from ipuaro.security.git.git_guard import filter_overrides, git_environment

    listing = (
        "core.bare\0filter.lfs.clean\0filter.a=b.c.smudge\0filter.x.required\0diff.y.textconv\0"
    )
    overrides = filter_overrides(listing)
    names = {key.rsplit(".", 1)[0] for key, _ in overrides}
    assert names == {"filter.lfs", "filter.a=b.c", "filter.x"}
    env = git_environment({"GIT_DIR": "/elsewhere", "GIT_CONFIG_COUNT": "9"}, overrides)
    assert "GIT_DIR" not in env
    keys = {env[f"GIT_CONFIG_KEY_{i}"] for i in range(int(env["GIT_CONFIG_COUNT"]))}
    assert {"core.hooksPath", "core.fsmonitor", "filter.a=b.c.smudge"} <= keys
