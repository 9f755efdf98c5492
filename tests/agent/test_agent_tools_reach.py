"""Tools reach the model on the servers people run: the agent's native call goes through a
server that needs ``tool_choice`` (llama-cpp-python), and a server that drops tools gets text
tool calls with a notice at start — both protocols' checks say the same thing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ipuaro.agent.events import AgentEnd
from tests.agent.conftest import ScriptedModel, call, open_harness, tool_outputs
from tests.stubs.model_server import ModelStubServer, ScriptedReply, StubModel


def answer_with_last_output(body: dict[str, Any]) -> ScriptedReply:
    outputs = tool_outputs(body)
    return ScriptedReply(text=f"Seen: {outputs[-1] if outputs else '(no output)'}")


async def test_a_native_call_runs_on_a_server_that_needs_tool_choice_and_its_result_returns(
    project: Path, model_server: ModelStubServer
) -> None:
    model_server.tool_rendering = "with_choice"
    model_server.streams_tool_calls = False  # "Automatic streaming tool choice is not supported"
    model = ScriptedModel([call("get_structure"), answer_with_last_output])
    async with open_harness(project, model_server, "openai", model) as h:
        end = await h.app.agent.send("what is in this project?")
        warnings = list(h.app.warnings)
    assert isinstance(end, AgentEnd) and end.reason == "done", end.detail
    assert [e.call.name for e in h.of_type("tool_call_end")] == ["get_structure"]
    first, second = model.agent_bodies
    assert first["tool_choice"] == "auto" and first["tools"]
    assert second["stream"] is False  # after a tool call the server could not stream
    [result] = [m for m in second["messages"] if m.get("role") == "tool"]
    assert "cart.py" in result["content"]  # the tool's output reached the next request
    assert "cart.py" in end.answer
    assert not [w for w in warnings if "tool" in w]


async def test_a_server_that_drops_tools_gets_text_calls_and_says_so_at_start(
    project: Path, model_server: ModelStubServer
) -> None:
    model_server.tool_rendering = "never"
    text_call = ScriptedReply(text='<tool_call>\n{"name": "get_structure", "arguments": {}}\n'
                              "</tool_call>")  # fmt: skip
    model = ScriptedModel([text_call, answer_with_last_output])
    async with open_harness(project, model_server, "openai", model) as h:
        warnings = list(h.app.warnings)
        end = await h.app.agent.send("what is in this project?")
    assert any("does not show them to the model" in w for w in warnings), warnings
    assert isinstance(end, AgentEnd) and end.reason == "done", end.detail
    assert [e.call.name for e in h.of_type("tool_call_end")] == ["get_structure"]
    first, second = model.agent_bodies
    assert "tools" not in first and "tool_choice" not in first
    assert "get_structure" in json.dumps(first["messages"][0])  # described in the prompt
    assert "cart.py" in tool_outputs(second)[-1]


async def test_ollama_without_the_tools_capability_says_so_at_start_too(
    project: Path, model_server: ModelStubServer
) -> None:
    model_server.models = [StubModel("qwen2.5-coder:7b-instruct", capabilities=("completion",))]
    model = ScriptedModel([ScriptedReply(text="plain answer")])
    async with open_harness(project, model_server, "ollama", model) as h:
        warnings = list(h.app.warnings)
        end = await h.app.agent.send("hello")
    assert any("has no tools capability" in w for w in warnings), warnings
    assert isinstance(end, AgentEnd) and end.reason == "done"
    assert "tools" not in model.agent_bodies[0]
