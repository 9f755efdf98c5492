"""Tools reach the model: ``tool_choice`` goes with ``tools``, and a server that drops them is
found before the first turn (the stub plays llama-cpp-python's two behaviours)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from ipuaro.llm.openai import OpenAICompatibleClient
from ipuaro.llm.protocol import CapabilityFallback, ToolCallReady
from ipuaro.llm.toolprobe import MIN_TOOL_TOKENS
from tests.llm.helpers import TOOLS, collect, done, user
from tests.stubs.model_server import ModelStubServer, ScriptedReply, StubToolCall

MODEL = "qwen2.5-coder:7b-instruct"


@pytest.fixture
async def client(model_server: ModelStubServer) -> AsyncIterator[OpenAICompatibleClient]:
    openai = OpenAICompatibleClient(model=MODEL, base_url=model_server.openai_url)
    yield openai
    await openai.aclose()


async def test_tools_reach_a_server_that_drops_them_without_a_tool_choice(
    client: OpenAICompatibleClient, model_server: ModelStubServer
) -> None:
    """llama-cpp-python (chatml-function-calling) renders tools only with a tool_choice."""
    model_server.tool_rendering = "with_choice"
    model_server.enqueue(ScriptedReply(tool_calls=[StubToolCall("git_status", {})]))
    events = await collect(client.stream_chat([user("status?")], system="SYS", tools=TOOLS))
    calls = [e.call.name for e in events if isinstance(e, ToolCallReady)]
    assert calls == ["git_status"]
    assert not [e for e in events if isinstance(e, CapabilityFallback)]
    [sent] = model_server.chat_requests()
    assert sent["tool_choice"] == "auto" and len(sent["tools"]) == len(TOOLS)
    assert "tools" in (await client.model_info()).capabilities


async def test_a_server_that_never_shows_the_tools_gets_text_calls_and_a_notice(
    client: OpenAICompatibleClient, model_server: ModelStubServer
) -> None:
    """A chat template without tools: the server takes them and the model never sees them."""
    model_server.tool_rendering = "never"
    info = await client.model_info()
    assert "tools" not in info.capabilities
    [note] = info.notes
    assert "does not show them to the model" in note and "described in the prompt" in note
    model_server.enqueue(ScriptedReply(text='{"name": "git_status", "arguments": {}}'))
    events = await collect(client.stream_chat([user("status?")], system="SYS", tools=TOOLS))
    [fallback] = [e for e in events if isinstance(e, CapabilityFallback)]
    assert fallback.capability == "tools" and "text tool calls" in fallback.detail
    assert done(events).message.text.startswith('{"name": "git_status"')
    [sent] = model_server.chat_requests()
    assert "tools" not in sent and "tool_choice" not in sent
    assert "git_status" in sent["messages"][0]["content"]  # the tools, described in the prompt


async def test_the_check_compares_two_requests_that_differ_only_in_one_tool(
    client: OpenAICompatibleClient, model_server: ModelStubServer
) -> None:
    support = await client.check_tools()
    assert support.honoured is True
    plain, tooled = model_server.probe_requests()
    assert "tools" not in plain and tooled["tool_choice"] == "auto"
    assert {k: v for k, v in tooled.items() if k not in ("tools", "tool_choice")} == plain
    assert plain["max_tokens"] == 1 and plain["stream"] is False
    added = int(support.detail.split()[3])  # "a tool adds N prompt tokens"
    assert added >= MIN_TOOL_TOKENS


async def test_the_answer_is_kept_per_server_and_model(model_server: ModelStubServer) -> None:
    model_server.tool_rendering = "never"
    first = OpenAICompatibleClient(model=MODEL, base_url=model_server.openai_url)
    second = OpenAICompatibleClient(model=MODEL, base_url=model_server.openai_url)
    try:
        assert "tools" not in (await first.model_info()).capabilities
        assert "tools" not in (await second.model_info()).capabilities
        assert len(model_server.probe_requests()) == 2  # one check, not one per client
        model_server.models.append(type(model_server.models[0])("other-model"))
        third = OpenAICompatibleClient(model="other-model", base_url=model_server.openai_url)
        await third.model_info()
        await third.aclose()
        assert len(model_server.probe_requests()) == 4  # another model: asked again
    finally:
        await first.aclose()
        await second.aclose()


async def test_a_check_that_cannot_tell_keeps_native_tools(
    client: OpenAICompatibleClient, model_server: ModelStubServer
) -> None:
    """A server that counts no prompt tokens: nothing proves the tools are dropped."""
    model_server.api_key = "secret"  # the unauthenticated check is refused: unknown, not "no"
    support = await client.check_tools()
    assert support.honoured is None
    assert client.native_tools


async def test_a_tool_call_the_server_cannot_stream_comes_whole_and_so_do_later_ones(
    client: OpenAICompatibleClient, model_server: ModelStubServer
) -> None:
    """llama-cpp-python's chatml-function-calling drops a streamed reply that calls a tool
    ("Automatic streaming tool choice is not supported"); the same request unstreamed works."""
    model_server.tool_rendering = "with_choice"
    model_server.streams_tool_calls = False
    model_server.enqueue(ScriptedReply(tool_calls=[StubToolCall("git_status", {})]))
    events = await collect(client.stream_chat([user("status?")], system="SYS", tools=TOOLS))
    assert [e.call.name for e in events if isinstance(e, ToolCallReady)] == ["git_status"]
    [notice] = [e for e in events if isinstance(e, CapabilityFallback)]
    assert notice.capability == "stream" and "without streaming" in notice.detail
    assert done(events).message.finish_reason == "tool_calls"
    streamed, whole = model_server.chat_requests()
    assert streamed["stream"] is True and whole["stream"] is False
    assert whole["tools"] == streamed["tools"] and whole["tool_choice"] == "auto"
    model_server.enqueue(ScriptedReply(tool_calls=[StubToolCall("get_lines", {"path": "a"})]))
    again = await collect(client.stream_chat([user("read a")], system="SYS", tools=TOOLS))
    assert [e.call.name for e in again if isinstance(e, ToolCallReady)] == ["get_lines"]
    assert not [e for e in again if isinstance(e, CapabilityFallback)]
    assert [b["stream"] for b in model_server.chat_requests()] == [True, False, False]
    model_server.enqueue(ScriptedReply(text="plain", chunks=2))
    plain = await collect(client.stream_chat([user("hi")], system="SYS", tools=None))
    assert done(plain).message.text == "plain"
    assert model_server.chat_requests()[-1]["stream"] is True  # no tools: streamed as ever


async def test_the_check_sees_tools_a_template_renders_only_beside_a_system_message(
    client: OpenAICompatibleClient, model_server: ModelStubServer
) -> None:
    """chatml-function-calling renders the tools inside the system message: a check without
    one would find them "dropped" on the very server the agent can use them on."""
    model_server.tool_rendering = "with_choice"
    support = await client.check_tools()
    assert support.honoured is True, support.detail
    assert all(b["messages"][0]["role"] == "system" for b in model_server.probe_requests())
