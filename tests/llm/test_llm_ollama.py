"""OllamaClient against the stub server speaking /api/* over real HTTP."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from ipuaro.llm.errors import ModelError
from ipuaro.llm.ollama import OllamaClient
from ipuaro.llm.protocol import (
    CapabilityFallback,
    PullProgress,
    Retrying,
    TextDelta,
    ToolCallReady,
    UsageReport,
)
from ipuaro.llm.streaming import RetrySettings
from tests.llm.helpers import (
    GET_LINES,
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


@pytest.fixture
async def client(model_server: ModelStubServer) -> AsyncIterator[OllamaClient]:
    ollama = OllamaClient(model=MODEL, base_url=model_server.url, requested_context=128_000)
    yield ollama
    await ollama.aclose()


async def test_streams_text_in_chunks_with_usage_and_timings(
    client: OllamaClient, model_server: ModelStubServer
) -> None:
    model_server.enqueue(ScriptedReply(text="Hello from the stub!", chunks=4))
    events = await collect(client.stream_chat([user("hi")], system="be brief", tools=None))
    assert deltas(events) == ["Hello", " from", " the ", "stub!"]
    assert UsageReport(12, 7) in events
    reply = done(events).message
    assert reply.text == "Hello from the stub!"
    assert reply.tool_calls == []
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (12, 7)
    assert not reply.usage.estimated
    assert reply.finish_reason == "stop"
    assert reply.timings.first_token_s is not None
    assert 0 <= reply.timings.first_token_s <= reply.timings.total_s
    assert reply.timings.tokens_per_s == pytest.approx(14.0)  # eval_count 7 in 0.5 s


async def test_request_body_carries_num_ctx_keep_alive_temperature_and_system(
    client: OllamaClient, model_server: ModelStubServer
) -> None:
    model_server.enqueue(ScriptedReply(text="a"), ScriptedReply(text="b"))
    await collect(client.stream_chat([user("one")], system="SYS", tools=None))
    await collect(client.stream_chat([user("two")], system="SYS", tools=None))
    first, second = model_server.chat_requests()
    # 128K configured, the model says 32K: capped, and the same value on every request.
    assert first["options"] == {"num_ctx": 32768, "temperature": 0.1}
    assert second["options"]["num_ctx"] == 32768
    assert first["keep_alive"] == second["keep_alive"] == "30m"
    assert first["stream"] is True
    assert first["messages"][0] == {"role": "system", "content": "SYS"}
    assert "tools" not in first
    assert "tool_choice" not in first  # Ollama ignores it; never sent
    shows = [r for r in model_server.requests if r.path == "/api/show"]
    assert len(shows) == 1, "the model's size is asked once per session"


async def test_pinned_context_window_is_sent_as_is_without_asking_the_server(
    model_server: ModelStubServer,
) -> None:
    ollama = OllamaClient(model=MODEL, base_url=model_server.url, context_window=12_000)
    model_server.enqueue(ScriptedReply(text="x"))
    await collect(ollama.stream_chat([user("q")], system=None, tools=None))
    await ollama.aclose()
    assert model_server.chat_requests()[0]["options"]["num_ctx"] == 12_000
    assert not [r for r in model_server.requests if r.path == "/api/show"]
    window = await ollama.context_window()
    assert (window.tokens, window.source) == (12_000, "pinned")
    assert window.warning is not None and "12,000" in window.warning


async def test_context_window_from_the_model_when_config_says_null(
    model_server: ModelStubServer,
) -> None:
    model_server.models = [StubModel(MODEL, context_length=8192)]
    ollama = OllamaClient(model=MODEL, base_url=model_server.url, requested_context=None)
    window = await ollama.context_window()
    await ollama.aclose()
    assert (window.tokens, window.source, window.model_max) == (8192, "model", 8192)
    assert window.warning is not None and "16,384" in window.warning


async def test_native_tools_sent_and_tool_calls_read(
    client: OllamaClient, model_server: ModelStubServer
) -> None:
    model_server.enqueue(
        ScriptedReply(
            tool_calls=[
                StubToolCall("get_lines", {"path": "src/a.ts", "start": 1}),
                StubToolCall("git_status", {}),
            ]
        )
    )
    events = await collect(client.stream_chat([user("read")], system=None, tools=TOOLS))
    ready = [e.call for e in events if isinstance(e, ToolCallReady)]
    assert [(c.name, c.parameters) for c in ready] == [
        ("get_lines", {"path": "src/a.ts", "start": 1}),
        ("git_status", {}),
    ]
    reply = done(events).message
    assert reply.tool_calls == ready
    assert reply.finish_reason == "tool_calls"
    sent_tools = model_server.chat_requests()[0]["tools"]
    assert sent_tools[0] == {
        "type": "function",
        "function": {
            "name": "get_lines",
            "description": GET_LINES.description,
            "parameters": GET_LINES.parameters,
        },
    }


async def test_tool_results_go_back_with_tool_name(
    client: OllamaClient, model_server: ModelStubServer
) -> None:
    model_server.enqueue(ScriptedReply(text="It exports a."))
    await collect(client.stream_chat(conversation_with_tool_result(), system=None, tools=TOOLS))
    messages = model_server.chat_requests()[0]["messages"]
    assert messages[1] == {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"function": {"name": "get_lines", "arguments": {"path": "src/a.ts"}}}],
    }
    assert messages[2] == {
        "role": "tool",
        "content": "1: export const a = 1;",
        "tool_name": "get_lines",
    }


async def test_without_native_tools_results_are_sent_as_text(
    client: OllamaClient, model_server: ModelStubServer
) -> None:
    model_server.enqueue(ScriptedReply(text="ok"))
    await collect(client.stream_chat(conversation_with_tool_result(), system=None, tools=None))
    messages = model_server.chat_requests()[0]["messages"]
    assert messages[1]["role"] == "assistant" and "tool_calls" not in messages[1]
    assert '"name": "get_lines"' in messages[1]["content"]  # the model still sees its call
    assert messages[2] == {
        "role": "user",
        "content": "Observation (get_lines):\n1: export const a = 1;",
    }


async def test_model_without_tools_falls_back_to_text_tools_for_the_session(
    client: OllamaClient, model_server: ModelStubServer
) -> None:
    model_server.reject_tools = True
    model_server.enqueue(ScriptedReply(text='{"name": "git_status", "arguments": {}}'))
    model_server.enqueue(ScriptedReply(text="second"))
    events = await collect(client.stream_chat([user("status?")], system="SYS", tools=TOOLS))
    fallback = [e for e in events if isinstance(e, CapabilityFallback)]
    assert fallback and fallback[0].capability == "tools"
    assert done(events).message.text == '{"name": "git_status", "arguments": {}}'
    await collect(client.stream_chat([user("again")], system="SYS", tools=TOOLS))
    bodies = [r.body for r in model_server.requests if r.path == "/api/chat"]
    assert "tools" in bodies[0]  # refused with 400
    assert "tools" not in bodies[1] and "tools" not in bodies[2]  # remembered
    assert "<tool_call>" in bodies[1]["messages"][0]["content"]  # instructions in the prompt


async def test_response_format_becomes_ollama_format_schema(
    client: OllamaClient, model_server: ModelStubServer
) -> None:
    schema = {"type": "object", "properties": {"mode": {"type": "string"}}}
    model_server.enqueue(ScriptedReply(text='{"mode": "plan"}'))
    response_format = {"type": "json_schema", "json_schema": {"name": "plan", "schema": schema}}
    await collect(
        client.stream_chat([user("plan")], system=None, tools=None, response_format=response_format)
    )
    assert model_server.chat_requests()[0]["format"] == schema


async def test_model_info_reads_show(client: OllamaClient) -> None:
    info = await client.model_info()
    assert info.name == MODEL
    assert info.context_length == 32768
    assert info.capabilities == {"completion", "tools"}
    assert (info.parameter_size, info.family, info.quantization) == ("7.6B", "qwen2", "Q4_K_M")


async def test_model_info_on_old_ollama_reads_tools_from_the_template(
    client: OllamaClient, model_server: ModelStubServer
) -> None:
    model_server.models = [StubModel(MODEL, reports_capabilities=False)]
    assert "tools" in (await client.model_info()).capabilities
    model_server.models = [
        StubModel(MODEL, capabilities=("completion",), reports_capabilities=False)
    ]
    assert (await client.model_info()).capabilities == {"completion"}


async def test_missing_model_says_how_to_pull_it(model_server: ModelStubServer) -> None:
    ollama = OllamaClient(model="llama3:8b", base_url=model_server.url)
    with pytest.raises(ModelError) as info:
        await ollama.model_info()
    assert info.value.kind == "model_not_found"
    assert "ollama pull llama3:8b" in info.value.suggestion
    events = await collect(ollama.stream_chat([user("x")], system=None, tools=None))
    await ollama.aclose()
    error = failed(events).error
    assert error.kind == "model_not_found" and not error.retryable


async def test_list_models_and_availability(
    client: OllamaClient, model_server: ModelStubServer
) -> None:
    model_server.models.append(StubModel("llama3:8b"))
    assert await client.list_models() == [MODEL, "llama3:8b"]
    assert await client.is_available()
    nothing = OllamaClient(model=MODEL, base_url=f"http://127.0.0.1:{closed_port()}")
    assert not await nothing.is_available()
    await nothing.aclose()


async def test_connection_refused_says_how_to_start_ollama() -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    ollama = OllamaClient(model=MODEL, base_url=url)
    events = await collect(ollama.stream_chat([user("x")], system=None, tools=None))
    await ollama.aclose()
    error = failed(events).error
    assert error.kind == "connect_refused" and error.retryable
    assert url in error.message
    assert "ollama serve" in error.suggestion
    assert "ollama pull qwen2.5-coder:7b-instruct" in error.suggestion


async def test_pull_reports_progress_and_adds_the_model(model_server: ModelStubServer) -> None:
    model_server.pullable["llama3:8b"] = StubModel("llama3:8b")
    ollama = OllamaClient(model="llama3:8b", base_url=model_server.url)
    seen: list[PullProgress] = []
    await ollama.pull(seen.append)
    assert "llama3:8b" in await ollama.list_models()
    await ollama.aclose()
    assert seen[0].status == "pulling manifest"
    fractions = [p.fraction for p in seen if p.fraction is not None]
    assert fractions == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert seen[-1].status == "success"
    assert model_server.requests[0].body == {"model": "llama3:8b", "stream": True}


async def test_pull_of_an_unknown_model_fails_clearly(model_server: ModelStubServer) -> None:
    ollama = OllamaClient(model="no-such-model", base_url=model_server.url)
    with pytest.raises(ModelError) as info:
        await ollama.pull(lambda _: None)
    await ollama.aclose()
    assert info.value.kind == "model_not_found"
    assert "file does not exist" in info.value.message


async def test_error_in_the_middle_of_the_stream(
    client: OllamaClient, model_server: ModelStubServer
) -> None:
    model_server.enqueue(ScriptedReply(text="abcdef", chunks=3, error_after=2))
    events = await collect(client.stream_chat([user("x")], system=None, tools=None))
    assert deltas(events) == ["ab", "cd"]
    end = failed(events)
    assert end.error.kind == "http_5xx"
    assert "the model runner crashed" in end.error.message
    assert end.partial is not None and end.partial.text == "abcd"


async def test_abrupt_disconnect_is_reported_with_what_arrived(
    client: OllamaClient, model_server: ModelStubServer
) -> None:
    model_server.enqueue(ScriptedReply(text="abcdef", chunks=3, disconnect_after=1))
    events = await collect(client.stream_chat([user("x")], system=None, tools=None))
    end = failed(events)
    assert end.error.kind == "disconnected" and end.error.retryable
    assert end.partial is not None and end.partial.text == "ab"


async def test_http_error_status_is_classified(
    client: OllamaClient, model_server: ModelStubServer
) -> None:
    model_server.enqueue(
        ScriptedReply(status=500, error_message="model requires more system memory (9 GiB)")
    )
    error = failed(await collect(client.stream_chat([user("x")], system=None, tools=None))).error
    assert error.kind == "out_of_memory" and not error.retryable
    assert "contextWindow" in error.suggestion


async def test_slow_first_token_times_out(model_server: ModelStubServer) -> None:
    ollama = OllamaClient(model=MODEL, base_url=model_server.url, timeout=0.3)
    await ollama.context_window()  # resolved before the slow reply is played
    model_server.enqueue(ScriptedReply(text="late", first_token_delay=1.5))
    events = await collect(ollama.stream_chat([user("x")], system=None, tools=None))
    await ollama.aclose()
    error = failed(events).error
    # A timeout, not the late text: the client gave up before the token came.
    assert error.kind == "timeout" and error.retryable
    assert "0.3 s" in error.message


async def test_slow_first_token_within_the_timeout_is_fine(
    client: OllamaClient, model_server: ModelStubServer
) -> None:
    model_server.enqueue(ScriptedReply(text="late but fine", first_token_delay=0.3))
    reply = done(await collect(client.stream_chat([user("x")], system=None, tools=None))).message
    assert reply.text == "late but fine"
    assert reply.timings.first_token_s is not None and reply.timings.first_token_s >= 0.25


async def test_cancel_aborts_the_http_stream(
    client: OllamaClient, model_server: ModelStubServer
) -> None:
    model_server.enqueue(ScriptedReply(text="x" * 200, chunks=200, chunk_delay=0.05))
    cancel = asyncio.Event()
    events = []
    async for event in client.stream_chat([user("x")], system=None, tools=None, cancel=cancel):
        events.append(event)
        if isinstance(event, TextDelta) and len(events) == 3:
            cancel.set()
    end = failed(events)
    assert end.error.kind == "cancelled" and not end.error.retryable
    # The stream would run 10 s more: the client hung up instead of reading it to the end
    # (how fast is measured in bench/cancel_bench.py, not asserted on a loaded machine).
    assert end.partial is not None and end.partial.text == "xxx"
    # The server saw the connection go: the HTTP stream really was aborted.
    assert await wait_for(model_server.disconnected.is_set, 2.0)


async def test_auto_retry_reconnects_after_a_failed_connection(
    model_server: ModelStubServer,
) -> None:
    retry = RetrySettings(auto_retry=True, delays=(0.05, 0.05))
    ollama = OllamaClient(model=MODEL, base_url=model_server.url, retry=retry)
    model_server.enqueue(
        ScriptedReply(status=503, error_message="server busy"), ScriptedReply(text="recovered")
    )
    events = await collect(ollama.stream_chat([user("x")], system=None, tools=None))
    await ollama.aclose()
    assert done(events).message.text == "recovered"
    retrying = events[0]
    assert isinstance(retrying, Retrying)
    assert (retrying.attempt, retrying.delay_s, retrying.error.kind) == (1, 0.05, "http_5xx")
    assert len(model_server.chat_requests()) == 2
