"""``ipuaro run`` as a real subprocess with MCP servers in the user's config file: an allowed
tool runs without a question, one not allowed is refused (nobody can be asked), and a server
that cannot start is one warning line on stderr — the run still ends with its answer."""

from __future__ import annotations

import json
from pathlib import Path

from tests.agent.conftest import ScriptedModel, call, tool_outputs
from tests.agent.test_agent_headless import run, run_env
from tests.extensions.mcp.conftest import demo_stdio
from tests.stubs.model_server import ModelStubServer, ScriptedReply


def test_headless_run_with_mcp_servers_from_the_user_config(
    project: Path, server: ModelStubServer, tmp_path: Path
) -> None:
    model = ScriptedModel(
        [
            call("mcp__demo__add", a=40, b=2),
            call("mcp__demo__shout", text="not allowed"),
            ScriptedReply(text="40 + 2 = 42"),
        ]
    )
    server.responder = model
    env = run_env(tmp_path, server)
    config_dir = Path(env["IPUARO_CONFIG_DIR"])
    config_dir.mkdir(parents=True)
    servers = {"demo": demo_stdio(), "ghost": {"command": "no-such-mcp-server-xyz"}}
    user = {"mcp": {"servers": servers, "allow": ["mcp__demo__add"]}}
    (config_dir / "config.json").write_text(json.dumps(user))

    done = run(project, env, "-p", "add 40 and 2")

    assert done.returncode == 0, done.stderr
    assert "40 + 2 = 42" in done.stdout
    warnings = [line for line in done.stderr.splitlines() if line.startswith("ipuaro: warning")]
    assert len(warnings) == 1 and "MCP server 'ghost' could not start" in warnings[0]
    added, refused = tool_outputs(model.agent_bodies[2])[-2:]
    assert added.strip().endswith("42")
    assert "needs the user's approval" in refused and "mcp.allow" in refused
