"""run_command through the session's persistent shell: the real policy, sandbox and bash."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from ipuaro.security.process.persistent_shell import available
from ipuaro.tools.shell_host import FIRST_NOTE, ShellHost

from .conftest import Project

pytestmark = pytest.mark.skipif(not available(), reason="needs bash and Linux /proc")


@pytest.fixture
async def shelled(project: Project) -> AsyncIterator[Project]:
    project.ctx = project.ctx.replace(shell=ShellHost())
    project.ctx = project.ctx.replace(headless_allow_commands=True)
    try:
        yield project
    finally:
        await project.ctx.shell.aclose()


async def test_cd_and_export_in_one_call_are_there_in_the_next(shelled: Project) -> None:
    first = await shelled.ok("run_command", command="cd src && export X=1")
    assert FIRST_NOTE in first.data
    second = await shelled.ok("run_command", command="pwd; echo $X")
    assert f"{shelled.root / 'src'}\n1" in second.data
    assert "in src/]" in second.data.splitlines()[1]  # the header says where it ran
    assert shelled.data(second)["cwd"] == "src/" and shelled.data(second)["shell"] == "persistent"


async def test_cd_out_of_the_project_is_refused_and_the_shell_stays(shelled: Project) -> None:
    await shelled.ok("run_command", command="cd src")
    for command in ("cd /", "cd ../..", "cd ~", "cd -", "pushd /tmp"):
        refused = await shelled.call("run_command", command=command)
        assert not refused.success and refused.details and refused.details["refused"], command
        assert "inside the project" in (refused.error or "")
    still = await shelled.ok("run_command", command="pwd")
    assert still.data.endswith(f"\n{shelled.root / 'src'}")


async def test_a_timeout_stops_the_command_and_the_next_command_works(shelled: Project) -> None:
    shelled.ctx.config.commands.timeout = 1
    await shelled.ok("run_command", command="cd src && export KEPT=yes")
    slow = await shelled.call("run_command", command="sleep 100")
    assert not slow.success and "timeout" in (slow.error or "")
    after = await shelled.ok("run_command", command="pwd; echo $KEPT")
    assert f"{shelled.root / 'src'}\nyes" in after.data


async def test_a_reset_is_told_to_the_model(shelled: Project) -> None:
    await shelled.ok("run_command", command="cd src && export GONE=1")
    ended = await shelled.call("run_command", command="exit 4")
    assert "exit code 4" in (ended.error or "")
    assert "the shell was restarted" in (ended.error or "")
    assert "back at the project root" in (ended.error or "")
    fresh = await shelled.ok("run_command", command='pwd; echo "[$GONE]"')
    assert f"{shelled.root}\n[]" in fresh.data and FIRST_NOTE not in fresh.data


async def test_output_reaches_the_progress_sink_while_running(shelled: Project) -> None:
    # The command waits for a file written only once "one" has reached the sink: it can end
    # only if its output streamed while it ran.
    seen: list[str] = []

    def progress(text: str) -> None:
        seen.append(text)
        (shelled.root / "go").touch()

    shelled.ctx = shelled.ctx.replace(progress=progress)
    command = "echo one; while [ ! -e go ]; do sleep 0.02; done; echo two"
    done = await shelled.ok("run_command", command=command)
    assert "one\ntwo" in done.data
    assert seen and seen[0].startswith("one")
    assert "two" in "".join(seen)


async def test_a_new_session_gets_a_new_shell(shelled: Project) -> None:
    await shelled.ok("run_command", command="cd src")
    shelled.ctx = shelled.ctx.replace(session_id="another")
    fresh = await shelled.ok("run_command", command="pwd")
    assert f"\n{shelled.root}\n" in fresh.data and FIRST_NOTE in fresh.data


async def test_the_setting_turns_it_off(shelled: Project) -> None:
    shelled.ctx.config.commands.persistent_shell = False
    await shelled.ok("run_command", command="cd src && export X=1")
    again = await shelled.ok("run_command", command='pwd; echo "[$X]"')
    assert f"{shelled.root}\n[]" in again.data
    assert shelled.ctx.shell is not None and shelled.ctx.shell.pid is None  # never started
