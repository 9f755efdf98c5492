"""``ipuaro run -p "!COMMAND"``: the command runs under the policy and prints its output; the
model is not asked."""

from __future__ import annotations

from pathlib import Path

from tests.agent.conftest import (  # noqa: F401  (the real project fixture)
    model_server,
    project,
)
from tests.agent.test_agent_headless import run_env, run_here
from tests.stubs.model_server import ModelStubServer, ScriptedReply


def test_bang_prompt_prints_the_output_without_asking_the_model(
    project: Path,  # noqa: F811  (the fixtures imported above)
    model_server: ModelStubServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    (project / "marker_file.txt").write_text("x\n", encoding="utf-8")
    env = run_env(tmp_path, model_server)
    listed = run_here(project, env, "-p", "!ls")
    assert listed.returncode == 0, listed.stderr + listed.stdout
    assert "marker_file.txt" in listed.stdout
    assert model_server.chat_requests() == []


def test_a_denied_bang_prompt_fails_naming_the_rule(
    project: Path,  # noqa: F811
    model_server: ModelStubServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    refused = run_here(project, run_env(tmp_path, model_server), "-p", "!sudo ls")
    assert refused.returncode != 0
    assert "refused by policy" in refused.stdout + refused.stderr
    assert model_server.chat_requests() == []


def test_an_at_mention_attaches_the_file_once_before_the_request(
    project: Path,  # noqa: F811
    model_server: ModelStubServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    (project / "notes.md").write_text("The launch code word is PELICAN.\n", encoding="utf-8")
    model_server.enqueue(ScriptedReply(text="It names a code word."))
    done = run_here(project, run_env(tmp_path, model_server), "-p", "what is in @notes.md?")
    assert done.returncode == 0, done.stderr + done.stdout
    [body] = model_server.chat_requests()
    users = [str(m["content"]) for m in body["messages"] if m["role"] == "user"]
    assert users[-1] == "what is in @notes.md?"
    assert users.count("what is in @notes.md?") == 1
    assert "@notes.md:" in users[-2] and "PELICAN" in users[-2]
