"""Bounded replies: a reply that loops is cut while it streams (and the server is hung up on),
and a reply stopped at the token cap says so."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ipuaro.llm.http_client import HttpModelClient
from ipuaro.llm.ollama import OllamaClient
from ipuaro.llm.openai import OpenAICompatibleClient
from ipuaro.llm.protocol import TextDelta
from ipuaro.llm.runaway import MIN_SPAN, RunawayDetector
from tests.llm.helpers import TOOLS, collect, done, user, wait_for
from tests.stubs.model_server import ModelStubServer, ScriptedReply, StubToolCall

MODEL = "qwen2.5-coder:7b-instruct"
MakeClient = Callable[..., HttpModelClient]


@pytest.fixture(params=["ollama", "openai"])
def make_client(request: pytest.FixtureRequest, model_server: ModelStubServer) -> MakeClient:
    def make(**kwargs: object) -> HttpModelClient:
        if request.param == "ollama":
            return OllamaClient(model=MODEL, base_url=model_server.url, **kwargs)  # type: ignore[arg-type]
        return OpenAICompatibleClient(model=MODEL, base_url=model_server.openai_url, **kwargs)  # type: ignore[arg-type]

    return make


def feed_all(text: str, step: int = 7) -> object:
    detector = RunawayDetector()
    for start in range(0, len(text), step):
        found = detector.feed(text[start : start + step])
        if found is not None:
            return found
    return None


def test_a_repeated_paragraph_is_found_and_one_copy_is_kept() -> None:
    intro = "Here is the plan.\n"
    piece = '{"step": "read the file and check it again"},\n'
    found = feed_all(intro + piece * 100)
    assert found is not None
    assert found.period == len(piece) and found.repeats >= 8  # type: ignore[attr-defined]
    kept = (intro + piece * 100)[: found.keep]  # type: ignore[attr-defined]
    assert kept.startswith(intro) and kept.count(piece.strip()) <= 2
    assert "repeated the same" in found.describe()  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "text",
    [
        "".join(f"    assert square({n}) == {n * n}\n" for n in range(300)),  # differs by number
        "=" * 600 + "\n" + "Some heading text that goes on. " * 9,  # a long ruler
        "| a | b |\n" * 60 + "the end of a table that is not long enough to be a loop\n",
        " ".join(f"word{n}" for n in range(2000)),
    ],
    ids=["numbered-cases", "ruler", "short-table", "prose"],
)
def test_text_that_repeats_with_differences_or_briefly_is_never_cut(text: str) -> None:
    assert len(text) > MIN_SPAN // 2
    assert feed_all(text) is None


async def test_a_looping_reply_is_cut_early_and_the_server_is_hung_up_on(
    make_client: MakeClient, model_server: ModelStubServer
) -> None:
    piece = "I will now check the file again. "
    reply = ScriptedReply(text="Let me look. " + piece * 400, chunks=400, chunk_delay=0.01)
    model_server.enqueue(reply)
    client = make_client()
    events = await collect(client.stream_chat([user("q")], system=None, tools=None))
    await client.aclose()
    message = done(events).message
    assert message.finish_reason == "runaway"
    assert message.cut is not None and "repeated the same 33 characters" in message.cut
    assert message.text.startswith("Let me look. ") and message.text.count(piece) <= 2
    streamed = [e for e in events if isinstance(e, TextDelta)]
    assert len(streamed) < 100, "cut while streaming, not at the end"
    assert await wait_for(model_server.disconnected.is_set, 5.0)


async def test_a_reply_stopped_at_the_cap_says_so(
    make_client: MakeClient, model_server: ModelStubServer
) -> None:
    model_server.enqueue(ScriptedReply(text="a long answer that", done_reason="length"))
    client = make_client(max_tokens=300)
    events = await collect(client.stream_chat([user("q")], system=None, tools=None))
    await client.aclose()
    message = done(events).message
    assert message.finish_reason == "length"
    assert message.cut == "the reply was cut off at the token cap (300 tokens)"
    [body] = model_server.chat_requests()
    assert body.get("max_tokens", body.get("options", {}).get("num_predict")) == 300


async def test_a_finished_reply_is_not_cut(
    make_client: MakeClient, model_server: ModelStubServer
) -> None:
    model_server.enqueue(ScriptedReply(text="done.", chunks=2))
    client = make_client(max_tokens=300)
    message = done(await collect(client.stream_chat([user("q")], system=None, tools=None)))
    await client.aclose()
    assert (message.message.cut, message.message.finish_reason) == (None, "stop")


async def test_a_looping_reply_that_came_whole_is_cut_too(model_server: ModelStubServer) -> None:
    """The replay without streaming (a server that cannot stream tool calls) is read by the
    same builder: a loop in it is cut, never an exception out of the client."""
    model_server.tool_rendering = "with_choice"
    model_server.streams_tool_calls = False
    loop = "again and again and again. " * 200
    model_server.enqueue(ScriptedReply(text=loop, tool_calls=[StubToolCall("git_status", {})]))
    client = OpenAICompatibleClient(model=MODEL, base_url=model_server.openai_url)
    events = await collect(client.stream_chat([user("q")], system="SYS", tools=TOOLS))
    await client.aclose()
    message = done(events).message
    assert message.finish_reason == "runaway" and len(message.text) < len(loop)
