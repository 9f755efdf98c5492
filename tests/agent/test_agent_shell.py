"""The persistent shell seen from the agent: live output events, state across turns, and no bash
left behind when ipuaro quits or is killed (real ``ipuaro run`` processes)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from ipuaro.security.process.persistent_shell import available
from tests.agent.conftest import ScriptedModel, call, open_harness, tool_outputs
from tests.agent.test_agent_headless import ipuaro, run, run_env
from tests.stubs.model_server import ModelStubServer, ScriptedReply

pytestmark = pytest.mark.skipif(not available(), reason="needs bash and Linux /proc")


def processes_in(root: Path) -> dict[int, str]:
    """Live processes (pid → name) whose working directory is in ``root``."""
    found: dict[int, str] = {}
    root = root.resolve()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cwd = Path(os.readlink(entry / "cwd"))
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        name = stat[stat.find("(") + 1 : stat.rfind(")")]
        if stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X") and (
            cwd == root or root in cwd.parents
        ):
            found[int(entry.name)] = name
    return found


def wait_until(predicate: object, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return True
        time.sleep(0.05)
    return False


async def test_output_streams_as_events_before_the_call_ends(
    project: Path, model_server: ModelStubServer
) -> None:
    model = ScriptedModel(
        [
            call("run_command", command="echo one; sleep 0.5; echo two"),
            lambda body: ScriptedReply(text=tool_outputs(body)[-1]),
        ]
    )
    async with open_harness(project, model_server, "ollama", model) as h:
        await h.app.agent.send("run it")
        kinds = [e.type for e in h.events]
        live = h.of_type("tool_call_output")
        shell = h.app.tool_ctx.shell
        assert shell is not None and shell.pid is not None
        pid = shell.pid
    assert live and live[0].text.startswith("one")
    assert kinds.index("tool_call_output") < kinds.index("tool_call_end")
    assert "one\ntwo" in h.app.session.history[-1].content
    assert pid not in processes_in(project)  # closing the app ended the shell


def test_headless_run_keeps_cd_and_exports_across_calls_and_leaves_no_shell(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    model_server.responder = ScriptedModel(
        [
            call("run_command", command="cd shop && export ANSWER=41"),
            call("run_command", command="pwd; echo $ANSWER"),
            lambda body: ScriptedReply(text=tool_outputs(body)[-1]),
        ]
    )
    done = run(project, run_env(tmp_path, model_server), "-p", "where?", "--output", "json")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)["answer"]
    assert f"{project.resolve() / 'shop'}\n41" in answer
    assert processes_in(project) == {}


def test_killing_ipuaro_mid_command_leaves_no_shell_behind(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    model_server.responder = ScriptedModel([call("run_command", command="cd shop && sleep 300")])
    env = {**run_env(tmp_path, model_server), "IPUARO_COMMANDS__TIMEOUT": "600"}
    process = subprocess.Popen(
        ipuaro(project, env, "-p", "wait"),
        env=env,
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert wait_until(lambda: "sleep" in processes_in(project).values(), 60)
        assert "bash" in processes_in(project).values()
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(10)
    assert wait_until(lambda: processes_in(project) == {}, 10), processes_in(project)
