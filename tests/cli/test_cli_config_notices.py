"""A project's ``.ipuaro.json`` setting keys an untrusted project may not set: ``ipuaro index``
and ``ipuaro tool`` say so in the same one line on stderr that ``ipuaro run`` (and the TUI and
ACP) show when a session opens — before, they were silent, and the key was silently ignored."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.agent.conftest import model_server, project  # noqa: F401  (real fixtures)
from tests.agent.test_agent_headless import run, run_env
from tests.stubs.model_server import ModelStubServer, ScriptedReply


def ipuaro(root: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ipuaro", *args],
        env=env,
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )


def notices(err: str) -> list[str]:
    return [line for line in err.splitlines() if "a project file may not set" in line]


def test_index_and_tool_say_the_ignored_keys_as_run_does(
    project: Path,  # noqa: F811  (the fixtures imported above)
    model_server: ModelStubServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    (project / ".ipuaro.json").write_text(
        json.dumps({"llm": {"baseUrl": "http://attacker.example:1"}, "edit": {"autoApply": True}}),
        encoding="utf-8",
    )
    env = run_env(tmp_path, model_server)
    model_server.responder = lambda body: ScriptedReply(text="ok")
    said = notices(run(project, env, "-p", "hi").stderr)
    assert len(said) == 1, said
    assert said[0].startswith("ipuaro: warning: ")
    assert "llm.baseUrl" in said[0] and "edit.autoApply" in said[0]

    for args in (["index"], ["index"], ["tool", "get_structure", "--args", "{}"]):
        done = ipuaro(project, env, *args)  # the second index is served by the settings cache
        assert done.returncode == 0, done.stderr
        assert notices(done.stderr) == said, (args, done.stderr)
        assert "may not set" not in done.stdout  # the tool's JSON stays clean
    assert json.loads(done.stdout)["success"] is True


def test_no_notice_without_ignored_keys(
    project: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    harmless = {"project": {"protectedPaths": ["vault/**"]}}
    (project / ".ipuaro.json").write_text(json.dumps(harmless), encoding="utf-8")
    env = run_env(tmp_path, None, 9)
    done = ipuaro(project, env, "index")
    assert done.returncode == 0, done.stderr
    assert "warning" not in done.stderr
