"""``ipuaro run`` (a real subprocess, a real MCP server over stdio): a call refused because
nobody can be asked names the flag that allows it."""

from __future__ import annotations

import json
from pathlib import Path

from tests.agent.conftest import ScriptedModel, call
from tests.agent.test_agent_headless import run, run_env
from tests.extensions.mcp.conftest import demo_stdio
from tests.stubs.model_server import ModelStubServer, ScriptedReply


def test_a_refused_mcp_call_names_allow_commands(
    project: Path, server: ModelStubServer, tmp_path: Path
) -> None:
    server.responder = ScriptedModel(
        [call("mcp__demo__shout", text="hi"), ScriptedReply(text="could not shout")]
    )
    env = run_env(tmp_path, server)
    config_dir = Path(env["IPUARO_CONFIG_DIR"])
    config_dir.mkdir(parents=True)
    (config_dir / "config.json").write_text(
        json.dumps({"mcp": {"servers": {"demo": demo_stdio()}}})
    )

    done = run(project, env, "-p", "shout hi", "--output", "json")

    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert len(result["refusals"]) == 1
    assert result["refusals"][0].startswith("mcp__demo__shout: ")
    assert "--allow-commands" in result["refusals"][0]
    server.responder = ScriptedModel(
        [call("mcp__demo__shout", text="hi"), ScriptedReply(text="could not shout")]
    )
    text = run(project, env, "-p", "shout hi")
    refused = [line for line in text.stderr.splitlines() if line.startswith("  ✗")]
    assert len(refused) == 1 and "--allow-commands" in refused[0]
