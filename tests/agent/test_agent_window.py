"""A server's context-length refusal names its window; the session adopts it and goes on."""

from __future__ import annotations

from pathlib import Path

from tests.agent.conftest import ScriptedModel, open_harness
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


async def test_a_session_made_at_8k_resumed_on_a_4k_server_uses_4k_and_says_so(
    project: Path, model_server: ModelStubServer
) -> None:
    """llama-cpp-python says its window only by refusing: the session learns 8K, then the
    server is restarted with 4K; the resumed session must not send 8K prompts."""
    model_server.served = ("llama-cpp-python", 8192)
    model = ScriptedModel([ScriptedReply(text="first answer")])
    async with open_harness(project, model_server, "openai", model, window=None) as h:
        await h.app.agent.send("hello")
        session_id = h.app.session.id
        assert h.app.window.tokens == 8192
    model_server.served = ("llama-cpp-python", 4096)
    model = ScriptedModel([ScriptedReply(text="second answer")])
    async with open_harness(
        project, model_server, "openai", model, window=None, session_id=session_id
    ) as h:
        assert (h.app.window.tokens, h.app.window.source) == (4096, "server")
        assert h.app.agent.context.budget.window == 4096
        said = [w for w in h.app.warnings if "this session was made with" in w]
        assert said == [said[0]] and "of 8,192 tokens; the server now serves 4,096" in said[0]
        end = await h.app.agent.send("again")
        assert end.reason == "done"
        assert h.app.session.context.tokens_limit == 4096
