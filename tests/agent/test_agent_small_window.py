"""A 4K window: the first request fits, more_tools widens the set, ctx shows the fixed share."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ipuaro.llm.tokens import estimate_tokens
from tests.agent.conftest import ScriptedModel, call, open_harness
from tests.stubs.model_server import ModelStubServer, ScriptedReply


def tool_names(body: dict[str, Any]) -> list[str]:
    tools = body.get("tools") or []
    return [t["function"]["name"] if "function" in t else t["name"] for t in tools]


def request_tokens(body: dict[str, Any]) -> int:
    """The estimator the bench uses, over everything sent: messages and tool schemas."""
    return estimate_tokens(json.dumps(body.get("messages", []))) + estimate_tokens(
        json.dumps(body.get("tools") or [])
    )


async def test_the_first_request_of_a_4k_window_fits_and_more_tools_widens_the_set(
    project: Path, model_server: ModelStubServer, provider: str
) -> None:
    model = ScriptedModel(
        [
            call("more_tools", names=["edit_symbol"]),
            call("edit_symbol", symbol="tax", action="replace_body", content="return 0"),
            ScriptedReply(text="done"),
        ]
    )
    async with open_harness(project, model_server, provider, model, window=4096) as h:
        end = await h.app.agent.send("hello")
    assert end.reason == "done", end.detail
    first, second = model.agent_bodies[0], model.agent_bodies[1]
    assert request_tokens(first) <= 0.40 * 4096, request_tokens(first)
    assert "edit_symbol" not in tool_names(first) and "more_tools" in tool_names(first)
    assert "edit_symbol" in tool_names(second)  # offered natively from the next request on
    assert [e.call.name for e in h.of_type("tool_call_end")] == ["more_tools", "edit_symbol"]


async def test_ctx_shows_the_fixed_share_before_the_first_request(
    project: Path, model_server: ModelStubServer
) -> None:
    model = ScriptedModel([ScriptedReply(text="hi")])
    async with open_harness(project, model_server, "ollama", model, window=4096) as h:
        used, window = h.app.agent.context_usage
        assert window == 4096
        assert h.app.agent.context.fixed_tokens < used < window  # rules, tools and summary
        await h.app.agent.send("hello")
    assert request_tokens(model.agent_bodies[0]) * 0.8 < used  # the estimate of what went
