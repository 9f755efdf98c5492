"""OpenAICompatibleClient against the stub server speaking /v1/* (SSE) over real HTTP."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import pytest

from ipuaro.llm.errors import ModelError
from ipuaro.llm.openai import OpenAICompatibleClient
from ipuaro.llm.protocol import CapabilityFallback, TextDelta, ToolCallInvalid, ToolCallReady
from tests.llm.helpers import (
    TOOLS,
    closed_port,
    collect,
    conversation_with_tool_result,
    deltas,
    done,
    failed,
    user,
    wait_for,
)
from tests.stubs.model_server import ModelStubServer, ScriptedReply, StubModel, StubToolCall

MODEL = "qwen2.5-coder:7b-instruct"
PLAN_SCHEMA = {
    "type": "object",
    "properties": {"mode": {"type": "string"}, "summary": {"type": "string"}},
    "required": ["mode"],
}
JSON_SCHEMA_FORMAT = {
    "type": "json_schema",
    "json_schema": {"name": "plan", "schema": PLAN_SCHEMA, "strict": True},
}


@pytest.fixture
async def client(model_server: ModelStubServer) -> AsyncIterator[OpenAICompatibleClient]:
    openai = OpenAICompatibleClient(model=MODEL, base_url=model_server.openai_url)
    yield openai
    await openai.aclose()


async def test_streams_sse_text_with_usage(
    client: OpenAICompatibleClient, model_server: ModelStubServer
) -> None:
    model_server.enqueue(
        ScriptedReply(text="Answer in three", chunks=3, prompt_tokens=40, completion_tokens=3)
    )
    events = await collect(client.stream_chat([user("q")], system="SYS", tools=None))
    assert deltas(events) == ["Answe", "r in ", "three"]
    reply = done(events).message
    assert reply.text == "Answer in three"
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (40, 3)
    assert not reply.usage.estimated
    body = model_server.chat_requests()[0]
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["messages"] == [
        {"role": "system", "content": "SYS"},
        {"role": "user", "content": "q"},
    ]
    assert "num_ctx" not in json.dumps(body)  # /v1 ignores it; not sent


async def test_tool_call_arguments_split_across_chunks_are_assembled(
    client: OpenAICompatibleClient, model_server: ModelStubServer
) -> None:
    model_server.enqueue(
        ScriptedReply(
            text="Reading both.",
            tool_calls=[
                StubToolCall("get_lines", {"path": "src/a.ts", "start": 3, "end": 9}, id="c1"),
                StubToolCall("edit_lines", {"path": "b", "start": 1, "end": 1, "content": "x\n"}),
            ],
            tool_call_chunks=7,
        )
    )
    events = await collect(client.stream_chat([user("q")], system=None, tools=TOOLS))
    calls = [e.call for e in events if isinstance(e, ToolCallReady)]
    assert [(c.id, c.name, c.parameters) for c in calls] == [
        ("c1", "get_lines", {"path": "src/a.ts", "start": 3, "end": 9}),
        ("call_stub1", "edit_lines", {"path": "b", "start": 1, "end": 1, "content": "x\n"}),
    ]
    reply = done(events).message
    assert reply.finish_reason == "tool_calls" and reply.tool_calls == calls
    tools = model_server.chat_requests()[0]["tools"]
    assert [t["function"]["name"] for t in tools] == ["get_lines", "edit_lines", "git_status"]


async def test_broken_tool_call_json_becomes_an_invalid_call_not_a_crash(
    client: OpenAICompatibleClient, model_server: ModelStubServer
) -> None:
    model_server.enqueue(
        ScriptedReply(
            tool_calls=[
                StubToolCall("get_lines", '{"path": "a.ts", "start": 1,}'),  # repairable
                StubToolCall("edit_lines", '{"path": "b.ts", "content": "unterminated'),
            ],
            tool_call_chunks=3,
        )
    )
    events = await collect(client.stream_chat([user("q")], system=None, tools=TOOLS))
    ready = [e.call for e in events if isinstance(e, ToolCallReady)]
    invalid = [e.error for e in events if isinstance(e, ToolCallInvalid)]
    assert [(c.name, c.parameters) for c in ready] == [("get_lines", {"path": "a.ts", "start": 1})]
    assert len(invalid) == 1 and invalid[0].tool == "edit_lines"
    assert "not closed" in invalid[0].message
    assert done(events).message.parse_errors == invalid


async def test_tool_results_go_back_with_tool_call_id(
    client: OpenAICompatibleClient, model_server: ModelStubServer
) -> None:
    model_server.enqueue(ScriptedReply(text="done"))
    await collect(client.stream_chat(conversation_with_tool_result(), system=None, tools=TOOLS))
    messages = model_server.chat_requests()[0]["messages"]
    assert messages[1] == {
        "role": "assistant",
        "content": "",  # llama-cpp-python's server refuses null
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "get_lines", "arguments": '{"path": "src/a.ts"}'},
            }
        ],
    }
    assert messages[2] == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": "1: export const a = 1;",
    }


async def test_api_key_is_sent_as_bearer(model_server: ModelStubServer) -> None:
    model_server.api_key = "sk-test-123"
    model_server.enqueue(ScriptedReply(text="authorised"))
    keyed = OpenAICompatibleClient(
        model=MODEL, base_url=model_server.openai_url, api_key="sk-test-123"
    )
    reply = done(await collect(keyed.stream_chat([user("q")], system=None, tools=None)))
    await keyed.aclose()
    assert reply.message.text == "authorised"
    assert model_server.requests[-1].headers["Authorization"] == "Bearer sk-test-123"


async def test_missing_api_key_is_a_fatal_auth_error(
    client: OpenAICompatibleClient, model_server: ModelStubServer
) -> None:
    model_server.api_key = "sk-test-123"
    error = failed(await collect(client.stream_chat([user("q")], system=None, tools=None))).error
    assert error.kind == "auth" and not error.retryable
    assert "llm.apiKeyEnv" in error.suggestion
    assert "Authorization" not in model_server.requests[-1].headers


async def test_response_format_json_schema_is_sent_when_accepted(
    client: OpenAICompatibleClient, model_server: ModelStubServer
) -> None:
    model_server.enqueue(ScriptedReply(text='{"mode": "plan"}'))
    events = await collect(
        client.stream_chat(
            [user("plan")], system="SYS", tools=None, response_format=JSON_SCHEMA_FORMAT
        )
    )
    assert done(events).message.text == '{"mode": "plan"}'
    assert not [e for e in events if isinstance(e, CapabilityFallback)]
    assert model_server.chat_requests()[0]["response_format"] == JSON_SCHEMA_FORMAT


async def test_response_format_falls_back_to_json_object_then_to_the_prompt(
    client: OpenAICompatibleClient, model_server: ModelStubServer
) -> None:
    model_server.reject_response_formats = {"json_schema"}
    model_server.enqueue(ScriptedReply(text='{"mode": "plan"}'), ScriptedReply(text="{}"))
    events = await collect(
        client.stream_chat(
            [user("p")], system="SYS", tools=None, response_format=JSON_SCHEMA_FORMAT
        )
    )
    fallbacks = [e for e in events if isinstance(e, CapabilityFallback)]
    assert [f.capability for f in fallbacks] == ["response_format"]
    assert done(events).message.text == '{"mode": "plan"}'
    bodies = [r.body for r in model_server.requests if r.path == "/v1/chat/completions"]
    assert bodies[0]["response_format"]["type"] == "json_schema"
    # json_object still carries the schema (llama-cpp-python's server constrains to it).
    assert bodies[1]["response_format"] == {"type": "json_object", "schema": PLAN_SCHEMA}
    assert json.dumps(PLAN_SCHEMA) in bodies[1]["messages"][0]["content"]  # schema in prompt
    # Remembered: the next request goes straight to json_object.
    await collect(
        client.stream_chat(
            [user("p2")], system="SYS", tools=None, response_format=JSON_SCHEMA_FORMAT
        )
    )
    assert model_server.chat_requests()[2]["response_format"]["type"] == "json_object"

    model_server.reject_response_formats = {"json_schema", "json_object"}
    model_server.enqueue(ScriptedReply(text='{"mode": "apply"}'))
    events = await collect(
        client.stream_chat(
            [user("p3")], system="SYS", tools=None, response_format=JSON_SCHEMA_FORMAT
        )
    )
    assert done(events).message.text == '{"mode": "apply"}'
    last = model_server.chat_requests()[-1]
    assert "response_format" not in last
    assert json.dumps(PLAN_SCHEMA) in last["messages"][0]["content"]
    assert client.response_format_mode == "prompt"


async def test_a_500_that_names_response_format_is_a_refusal_not_a_failure(
    client: OpenAICompatibleClient, model_server: ModelStubServer
) -> None:
    """llama-cpp-python's server answers ``json_schema`` with a 500 naming the field."""
    refusal = (
        "1 validation error: {'type': 'literal_error', 'loc': ('body', 'response_format', "
        "'type'), 'msg': \"Input should be 'text' or 'json_object'\"}"
    )
    model_server.enqueue(
        ScriptedReply(status=500, error_message=refusal), ScriptedReply(text='{"mode": "apply"}')
    )
    events = await collect(
        client.stream_chat([user("p")], system="S", tools=None, response_format=JSON_SCHEMA_FORMAT)
    )
    assert done(events).message.text == '{"mode": "apply"}'
    assert client.response_format_mode == "json_object"
    # A 500 that does not name it stays an error.
    model_server.enqueue(ScriptedReply(status=500, error_message="out of memory"))
    events = await collect(
        client.stream_chat([user("q")], system="S", tools=None, response_format=JSON_SCHEMA_FORMAT)
    )
    assert failed(events).error.kind != "cancelled"
    assert client.response_format_mode == "json_object"


async def test_refused_tools_fall_back_to_text_instructions(
    client: OpenAICompatibleClient, model_server: ModelStubServer
) -> None:
    model_server.reject_tools = True
    model_server.enqueue(ScriptedReply(text='<tool_call>{"name": "git_status"}</tool_call>'))
    events = await collect(client.stream_chat([user("q")], system="SYS", tools=TOOLS))
    assert [e.capability for e in events if isinstance(e, CapabilityFallback)] == ["tools"]
    assert done(events).message.text.startswith("<tool_call>")
    retried = model_server.chat_requests()[1]
    assert "tools" not in retried
    assert "git_status" in retried["messages"][0]["content"]
    assert "tools" not in (await client.model_info()).capabilities


async def test_refused_stream_options_fall_back_to_estimated_usage(
    client: OpenAICompatibleClient, model_server: ModelStubServer
) -> None:
    model_server.reject_stream_options = True
    model_server.enqueue(ScriptedReply(text="no usage here"))
    events = await collect(client.stream_chat([user("count me")], system=None, tools=None))
    reply = done(events).message
    assert reply.usage.estimated
    assert reply.usage.completion_tokens > 0 and reply.usage.prompt_tokens > 0
    assert "stream_options" not in model_server.chat_requests()[1]


async def test_error_event_in_the_middle_of_the_stream(
    client: OpenAICompatibleClient, model_server: ModelStubServer
) -> None:
    model_server.enqueue(ScriptedReply(text="abcdef", chunks=3, error_after=1))
    events = await collect(client.stream_chat([user("q")], system=None, tools=None))
    end = failed(events)
    assert end.error.kind == "http_5xx"
    assert "the model runner crashed" in end.error.message
    assert end.partial is not None and end.partial.text == "ab"


async def test_disconnect_before_the_end(
    client: OpenAICompatibleClient, model_server: ModelStubServer
) -> None:
    model_server.enqueue(ScriptedReply(text="abcdef", chunks=3, disconnect_after=2))
    end = failed(await collect(client.stream_chat([user("q")], system=None, tools=None)))
    assert end.error.kind == "disconnected"
    assert end.partial is not None and end.partial.text == "abcd"


async def test_stream_without_done_marker_is_complete_after_finish_reason(
    client: OpenAICompatibleClient, model_server: ModelStubServer
) -> None:
    model_server.enqueue(ScriptedReply(text="fine", send_done_marker=False))
    assert done(await collect(client.stream_chat([user("q")], system=None, tools=None)))


async def test_context_overflow_is_recognised(
    client: OpenAICompatibleClient, model_server: ModelStubServer
) -> None:
    message = "This model's maximum context length is 8192 tokens. However, you requested 9000."
    model_server.enqueue(ScriptedReply(status=400, error_message=message))
    error = failed(await collect(client.stream_chat([user("q")], system=None, tools=None))).error
    assert error.kind == "context_overflow" and not error.retryable
    assert error.status == 400


async def test_slow_first_token_times_out(model_server: ModelStubServer) -> None:
    slow = OpenAICompatibleClient(model=MODEL, base_url=model_server.openai_url, timeout=0.3)
    model_server.enqueue(ScriptedReply(text="late", first_token_delay=1.5))
    error = failed(await collect(slow.stream_chat([user("q")], system=None, tools=None))).error
    await slow.aclose()
    # A timeout, not the late text: the client gave up before the token came.
    assert error.kind == "timeout" and error.retryable


async def test_cancel_aborts_the_sse_stream(
    client: OpenAICompatibleClient, model_server: ModelStubServer
) -> None:
    model_server.enqueue(ScriptedReply(text="y" * 200, chunks=200, chunk_delay=0.05))
    cancel = asyncio.Event()
    events = []
    async for event in client.stream_chat([user("q")], system=None, tools=None, cancel=cancel):
        events.append(event)
        if isinstance(event, TextDelta) and len(events) == 2:
            cancel.set()
    end = failed(events)
    assert end.error.kind == "cancelled"
    # The stream would run 10 s more: the client hung up instead of reading it to the end
    # (how fast is measured in bench/cancel_bench.py, not asserted on a loaded machine).
    assert await wait_for(model_server.disconnected.is_set, 2.0)


async def test_breaking_out_of_the_stream_closes_the_connection(
    client: OpenAICompatibleClient, model_server: ModelStubServer
) -> None:
    model_server.enqueue(ScriptedReply(text="z" * 100, chunks=100, chunk_delay=0.05))
    stream = client.stream_chat([user("q")], system=None, tools=None)
    async for event in stream:
        if isinstance(event, TextDelta):
            break
    await stream.aclose()  # type: ignore[attr-defined]
    assert await wait_for(model_server.disconnected.is_set, 2.0)


async def test_connection_refused_names_the_url_tried() -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    openai = OpenAICompatibleClient(model=MODEL, base_url=url)
    error = failed(await collect(openai.stream_chat([user("q")], system=None, tools=None))).error
    assert not await openai.is_available()
    await openai.aclose()
    assert error.kind == "connect_refused"
    assert url in error.message and url in error.suggestion


async def test_models_listing_and_info_from_llama_cpp_meta(
    client: OpenAICompatibleClient, model_server: ModelStubServer
) -> None:
    model_server.models.append(StubModel("other", context_length=None))
    assert await client.list_models() == [MODEL, "other"]
    assert await client.is_available()
    info = await client.model_info()
    assert info.context_length == 32768
    assert "tools" in info.capabilities
    window = await client.context_window()
    assert (window.tokens, window.source) == (32768, "model")


async def test_pull_is_unsupported_with_a_clear_message(client: OpenAICompatibleClient) -> None:
    with pytest.raises(ModelError) as info:
        await client.pull(lambda _: None)
    assert info.value.kind == "unsupported"
    assert "cannot download" in info.value.message
    assert "ollama" in info.value.suggestion
