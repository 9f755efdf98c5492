"""A server's context-length refusal names its window; the session adopts it and goes on."""

from __future__ import annotations

from pathlib import Path

from tests.agent.test_agent_headless import run, run_env
from tests.stubs.model_server import ModelStubServer, ScriptedReply

REFUSAL = (
    "This model's maximum context length is 4096 tokens. However, you requested 40000 tokens "
    "(39000 in the messages, 1000 in the completion)."
)


def openai_env(tmp_path: Path, server: ModelStubServer) -> dict[str, str]:
    env = run_env(tmp_path, server)
    env.update({"IPUARO_LLM__PROVIDER": "openai", "IPUARO_LLM__BASE_URL": server.openai_url})
    return env


def test_a_refusal_shrinks_the_session_window_and_the_run_finishes(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    model_server.enqueue(
        ScriptedReply(status=400, error_message=REFUSAL), ScriptedReply(text="hello")
    )
    done = run(project, openai_env(tmp_path, model_server), "-p", "hi")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "hello\n"
    assert "maximum context length is 4096 tokens" in done.stderr
    assert "this session now uses 4,096" in done.stderr
    assert len(model_server.chat_requests()) == 2


def test_a_refusal_naming_no_smaller_window_is_reported_with_the_fix(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    too_big = REFUSAL.replace("4096", "65536")  # above the session's 32,768: nothing to adopt
    model_server.enqueue(ScriptedReply(status=400, error_message=too_big))
    done = run(project, openai_env(tmp_path, model_server), "-p", "hi")
    assert done.returncode == 1
    assert "maximum context length is 65536" in done.stdout + done.stderr
    assert "start the server with a larger one" in done.stdout + done.stderr
    assert len(model_server.chat_requests()) == 1
