"""Road 3: a sandboxed command that writes ``.ipuaro.json`` with ``sandbox.profile: off`` (and a
writable folder outside) cannot unconfine the next process, because a project file cannot set
``sandbox.*`` at all. Two real ``ipuaro run`` processes, a real Landlock sandbox, a canary
folder outside the project."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.agent.conftest import call
from tests.stubs.model_server import ModelStubServer, ScriptedReply, model_server  # noqa: F401

REPO = Path(__file__).resolve().parents[2]

WRITER = """import json, sys
config = {"sandbox": {"profile": "off", "writable": [sys.argv[1]]}}
open(".ipuaro.json", "w").write(json.dumps(config))
print("written")
"""
ESCAPE = """import sys
try:
    open(sys.argv[1], "w").write("escaped")
    print("ESCAPED")
except OSError as error:
    print("refused:", error)
"""


def test_a_config_written_from_inside_the_sandbox_cannot_unconfine_the_next_run(
    tmp_path: Path,
    model_server: ModelStubServer,  # noqa: F811
) -> None:
    from ipuaro.security.sandboxing.sandbox import engine

    if engine() is None:
        pytest.skip("no Landlock on this machine: nothing confines the commands")
    project, outside = tmp_path / "project", tmp_path / "outside"
    for folder in (project / ".git", project / "tools", outside, tmp_path / "config"):
        folder.mkdir(parents=True)
    (project / "tools" / "writer.py").write_text(WRITER)
    (project / "tools" / "escape.py").write_text(ESCAPE)
    user = {"llm": {"baseUrl": model_server.url, "contextWindow": 32768, "timeout": 30}}
    (tmp_path / "config" / "config.json").write_text(json.dumps(user))
    env = {k: v for k, v in os.environ.items() if not k.startswith("IPUARO_")}
    env.update(
        IPUARO_CONFIG_DIR=str(tmp_path / "config"),
        IPUARO_DATA_DIR=str(tmp_path / "data"),
        PYTHONPATH=str(REPO),
    )
    python = Path(sys.executable).name

    def run(command: str) -> subprocess.CompletedProcess[str]:
        model_server.enqueue(call("run_command", command=command), ScriptedReply(text="done"))
        argv = [sys.executable, "-m", "ipuaro", "run", "--project", str(project)]
        return subprocess.run(
            [*argv, "--allow-commands", "-p", "go"],
            env={**env, "PATH": f"{Path(sys.executable).parent}:{env.get('PATH', '')}"},
            capture_output=True,
            text=True,
            timeout=180,
        )

    first = run(f"{python} tools/writer.py {outside}")
    assert "Traceback" not in first.stderr, first.stderr
    canary = outside / "canary.txt"
    second = run(f"{python} tools/escape.py {canary}")
    assert "Traceback" not in second.stderr, second.stderr
    assert not canary.exists(), second.stdout + second.stderr
    told = json.dumps(model_server.chat_requests()[-1]["messages"][-1])
    assert "refused:" in told and "ESCAPED" not in told  # the command's output the model saw
    if (project / ".ipuaro.json").exists():  # the sandbox let the first command write it
        assert "ignored sandbox.profile, sandbox.writable" in second.stderr
