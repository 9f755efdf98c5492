"""Bounded replies in agent mode: every request carries the cap (llm.maxReplyTokens), and a
reply cut at the cap or for looping is said to the user while the turn goes on."""

from __future__ import annotations

from pathlib import Path

from ipuaro.agent.events import AgentEnd
from tests.agent.conftest import ScriptedModel, open_harness
from tests.stubs.model_server import ModelStubServer, ScriptedReply


def cap_of(body: dict[str, object]) -> object:
    options = body.get("options")
    return options.get("num_predict") if isinstance(options, dict) else body.get("max_tokens")


async def test_every_request_carries_the_configured_cap(
    project: Path, model_server: ModelStubServer, provider: str
) -> None:
    model = ScriptedModel([ScriptedReply(text="short answer")])
    overrides = {"llm.maxReplyTokens": 1500}
    async with open_harness(project, model_server, provider, model, overrides=overrides) as h:
        end = await h.app.agent.send("hello")
    assert isinstance(end, AgentEnd) and end.reason == "done"
    assert [cap_of(b) for b in model.agent_bodies] == [1500]
    assert not h.of_type("error")


async def test_a_looping_reply_is_cut_and_the_user_is_told(
    project: Path, model_server: ModelStubServer, provider: str
) -> None:
    loop = "The answer is in the file. " * 300
    model = ScriptedModel([ScriptedReply(text="Let me see. " + loop, chunks=300)])
    async with open_harness(project, model_server, provider, model) as h:
        end = await h.app.agent.send("where is the answer?")
    assert isinstance(end, AgentEnd) and end.reason == "done"
    [said] = h.of_type("error")
    assert said.choices == ()
    assert said.error.message.startswith("the reply was cut: it repeated the same 27 characters")
    assert "loop" in (said.error.suggestion or "")
    assert end.answer.startswith("Let me see. ") and len(end.answer) < 200


async def test_a_reply_stopped_at_the_cap_is_said_with_the_setting_to_raise(
    project: Path, model_server: ModelStubServer, provider: str
) -> None:
    model = ScriptedModel([ScriptedReply(text="The first half of", done_reason="length")])
    overrides = {"llm.maxReplyTokens": 700}
    async with open_harness(project, model_server, provider, model, overrides=overrides) as h:
        end = await h.app.agent.send("explain everything")
    assert isinstance(end, AgentEnd)
    [said] = h.of_type("error")
    assert said.error.message == "the reply was cut off at the token cap (700 tokens)"
    assert "llm.maxReplyTokens" in (said.error.suggestion or "")
