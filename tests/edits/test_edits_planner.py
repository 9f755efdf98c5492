"""The edit-file sub-agent's answer parsing, and LlmEditPlanner over a real HTTP model stub."""

from __future__ import annotations

import json

import pytest

from ipuaro.edits.planner import LlmEditPlanner, PlanError, parse_plan
from ipuaro.llm.openai import OpenAICompatibleClient
from ipuaro.tools.base import LineEdit
from tests.stubs.model_server import ModelStubServer, ScriptedReply, model_server

__all__ = ["model_server"]

EDITS = [{"start_line": 2, "end_line": 2, "replacement": "  return a - b;"}]


@pytest.mark.parametrize(
    "text",
    [
        json.dumps(EDITS),
        json.dumps({"edits": EDITS}),
        "Here is the plan:\n```json\n" + json.dumps(EDITS) + "\n```\nDone.",
        json.dumps(EDITS[0]),
    ],
)
def test_parse_plan_accepts_the_shapes_models_write(text: str) -> None:
    assert parse_plan(text) == [LineEdit(2, 2, "  return a - b;")]


@pytest.mark.parametrize(
    "text",
    ["no json here", '[{"start_line": "x"}]', '{"edits": 3}', "[1, 2"],
)
def test_parse_plan_refuses_anything_else(text: str) -> None:
    with pytest.raises(PlanError, match="not a list of line edits"):
        parse_plan(text)


async def test_llm_planner_asks_the_model_and_reads_its_plan(
    model_server: ModelStubServer,
) -> None:
    model_server.enqueue(ScriptedReply(text=json.dumps({"edits": EDITS}), chunks=4))
    client = OpenAICompatibleClient(
        model="qwen2.5-coder:7b-instruct", base_url=model_server.openai_url
    )
    try:
        plan = await LlmEditPlanner(client).plan(
            "function f(a, b) {\n  return a + b;\n}\n", "subtract instead", "return a - b;"
        )
    finally:
        await client.aclose()
    assert plan == [LineEdit(2, 2, "  return a - b;")]
    request = model_server.chat_requests()[-1]
    prompt = json.dumps(request)
    assert "2|   return a + b;" in prompt and "subtract instead" in prompt
    assert request["response_format"]["type"] == "json_schema"


async def test_llm_planner_reports_a_failed_model_call(model_server: ModelStubServer) -> None:
    model_server.enqueue(ScriptedReply(status=500, error_message="boom"))
    client = OpenAICompatibleClient(
        model="qwen2.5-coder:7b-instruct", base_url=model_server.openai_url
    )
    try:
        with pytest.raises(PlanError, match="model call failed"):
            await LlmEditPlanner(client).plan("x\n", "y", "z")
    finally:
        await client.aclose()
