"""``ipuaro run --plan`` then ``ipuaro run --apply`` as real processes against the stub model
server: two context rounds, the plan stored with the session, a later process applies it (only
with --auto-apply; else it prints the diff and exits 3), and with no stored plan says so
(exit 1)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.agent.conftest import (  # noqa: F401  (the real project fixture)
    ScriptedModel,
    model_server,
    project,
)
from tests.agent.test_agent_headless import run, run_env
from tests.stubs.model_server import ModelStubServer, ScriptedReply

PLAN = {
    "mode": "fix-plan",
    "summary": "Add a changelog and a docs folder",
    "questions": [],
    "context_requests": [],
    "plan": [{"step": "Write CHANGELOG.md", "details": "one heading"}],
    "proposed_changes": {
        "actions": [
            {"kind": "CREATE_DIR", "path": "docs"},
            {"kind": "CREATE_FILE", "path": "CHANGELOG.md", "content": "# Changes\n"},
        ],
        "commands_to_run": [],
    },
    "risks": [],
    "memory_patch": {},
}


def test_plan_then_apply_in_later_processes(
    project: Path,  # noqa: F811  (the fixtures imported above)
    model_server: ModelStubServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    env = run_env(tmp_path, model_server)
    rounds = [
        {"mode": "fix-plan", "summary": "look", "context_requests": [{"type": "env"}]},
        {
            "mode": "fix-plan",
            "summary": "look more",
            "context_requests": [{"type": "read_file", "path": "README.md"}],
        },
    ]
    replies = [ScriptedReply(text=json.dumps(d)) for d in [*rounds, PLAN]]
    model_server.responder = ScriptedModel(replies)
    planned = run(project, env, "--plan", "-p", "add a changelog", "--output", "json")
    assert planned.returncode == 0, planned.stderr + planned.stdout
    session = json.loads(planned.stdout)["sessionId"]
    assert len(model_server.chat_requests()) == 3  # two context rounds, then the plan

    preview = run(project, env, "--apply")
    assert preview.returncode == 3, preview.stderr
    assert "needs the user's confirmation" in preview.stdout and "--auto-apply" in preview.stdout
    assert "+++ b/CHANGELOG.md" in preview.stdout and "+# Changes" in preview.stdout
    assert not (project / "CHANGELOG.md").exists()

    applied = run(project, env, "--apply", "--auto-apply", "--output", "json", "-p", "release")
    assert applied.returncode == 0, applied.stderr
    result = json.loads(applied.stdout)
    assert result["sessionId"] == session and result["exitCode"] == 0
    assert result["apply"]["status"] == "applied"
    assert result["apply"]["files"] == ["CHANGELOG.md"]
    assert result["apply"]["folders"] == ["docs"] and result["apply"]["note"] == "release"
    assert result["changes"] == ["CHANGELOG.md"]
    assert (project / "CHANGELOG.md").read_text() == "# Changes\n"
    assert (project / "docs").is_dir()

    again = run(project, env, "--apply", "--auto-apply", "--output", "json")
    assert again.returncode == 1
    result = json.loads(again.stdout)
    assert result["apply"]["codes"] == ["ERR_NO_PLAN"]
    assert result["answer"].startswith("ERR_NO_PLAN: there is no stored plan to apply")


def test_apply_flags_that_do_not_go_together(
    project: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    env = run_env(tmp_path, None, port=9)
    done = run(project, env, "--apply", "--plan", "-p", "x")
    assert done.returncode == 2
    assert "--apply applies a stored plan" in done.stderr
