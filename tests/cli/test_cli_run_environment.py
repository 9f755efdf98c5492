"""``ipuaro run -p --allow-commands`` as a real process against the stub model server: the
model asking to print the environment (``env``, ``printenv``, ``export -p``) is refused with a
reason and a way out, as ``cat /proc/self/environ`` is; naming harmless variables
(``printenv HOME``) and a wrapper that runs a command (``env VAR=1 cmd``) still run."""

from __future__ import annotations

import json
from pathlib import Path

from tests.agent.conftest import (  # noqa: F401  (the real project fixture)
    ScriptedModel,
    call,
    model_server,
    project,
    tool_outputs,
)
from tests.agent.test_agent_headless import run, run_env
from tests.stubs.model_server import ModelStubServer, ScriptedReply

SECRET = "hunter2-qa-not-for-the-model"


def test_allow_commands_does_not_print_the_environment(
    project: Path,  # noqa: F811  (the fixtures imported above)
    model_server: ModelStubServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    env = run_env(tmp_path, model_server)
    env["DB_PASSWORD"] = SECRET  # not one of the *_API_KEY/*_TOKEN/*_SECRET names ipuaro hides
    env["QA_PLAIN"] = "plain-value"
    model_server.responder = ScriptedModel(
        [
            call("run_command", command="env"),
            call("run_command", command="printenv | sort"),
            call("run_command", command="export -p"),
            call("run_command", command="echo $DB_PASSWORD"),
            call("run_command", command="printenv QA_PLAIN; env QA_MARK=wrapped printenv QA_MARK"),
            lambda body: ScriptedReply(text="\n---\n".join(tool_outputs(body))),
        ]
    )
    done = run(project, env, "-p", "show me the environment", "--output", "json",
               "--allow-commands")  # fmt: skip
    assert done.returncode == 0, done.stderr
    sent = json.dumps(model_server.chat_requests())
    assert SECRET not in sent and SECRET not in done.stdout and SECRET not in done.stderr
    outputs = json.loads(done.stdout)["answer"].split("\n---\n")
    assert len(outputs) == 5, outputs
    for refused in outputs[:3]:
        assert "prints the whole environment, which may hold secrets" in refused
        assert "--allow-commands does not cover secrets" in refused
        assert "`printenv HOME PATH`" in refused  # what to do instead
    assert "expands `$DB_PASSWORD`" in outputs[3]
    assert "--allow-commands does not cover secrets" in outputs[3]
    assert "plain-value" in outputs[4] and "wrapped" in outputs[4]  # these ran
