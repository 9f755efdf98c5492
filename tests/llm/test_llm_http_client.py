"""The chat loop both clients share (``HttpModelClient`` + ``streaming.drive``), run for each
protocol against the stub server over real HTTP: retries and backoff, fatal answers, streams that
break off, cancellation, and feature fallbacks. The same script must give the same events."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable

import pytest

from ipuaro.llm.http_client import HttpModelClient
from ipuaro.llm.ollama import OllamaClient
from ipuaro.llm.openai import OpenAICompatibleClient
from ipuaro.llm.protocol import (
    CapabilityFallback,
    ModelEvent,
    Retrying,
    TextDelta,
)
from ipuaro.llm.streaming import RetrySettings
from tests.llm.helpers import TOOLS, collect, done, failed, user, wait_for
from tests.stubs.model_server import ModelStubServer, ScriptedReply

MODEL = "qwen2.5-coder:7b-instruct"
PROTOCOLS = ["ollama", "openai"]
MakeClient = Callable[..., HttpModelClient]


@pytest.fixture(params=PROTOCOLS)
async def make_client(
    request: pytest.FixtureRequest, model_server: ModelStubServer
) -> AsyncIterator[MakeClient]:
    """Builds a client of the parametrised protocol against the stub; closes them after."""
    made: list[HttpModelClient] = []

    def make(*, auto_retry: bool = False, delays: tuple[float, ...] = (0.01,)) -> HttpModelClient:
        retry = RetrySettings(auto_retry, delays)
        client: HttpModelClient
        if request.param == "ollama":
            client = OllamaClient(model=MODEL, base_url=model_server.url, retry=retry)
        else:
            client = OpenAICompatibleClient(
                model=MODEL, base_url=model_server.openai_url, retry=retry
            )
        made.append(client)
        return client

    yield make
    for client in made:
        await client.aclose()


def retries(events: list[ModelEvent]) -> list[tuple[int, float, str]]:
    return [(e.attempt, e.delay_s, e.error.kind) for e in events if isinstance(e, Retrying)]


async def run_until(
    client: HttpModelClient, stop_when: Callable[[ModelEvent], bool], cancel: asyncio.Event
) -> list[ModelEvent]:
    """Stream, set ``cancel`` at the first event ``stop_when`` accepts (how long the end takes
    after that is measured in bench/cancel_bench.py)."""
    events: list[ModelEvent] = []
    async for event in client.stream_chat([user("q")], system=None, tools=None, cancel=cancel):
        events.append(event)
        if not cancel.is_set() and stop_when(event):
            cancel.set()
    assert cancel.is_set(), f"never reached the point to cancel at: {events}"
    return events


# --- retries ------------------------------------------------------------------------------


async def test_a_retryable_answer_is_retried_after_its_delay_then_succeeds(
    make_client: MakeClient, model_server: ModelStubServer
) -> None:
    client = make_client(auto_retry=True, delays=(0.3, 0.01))
    model_server.enqueue(
        ScriptedReply(status=503, error_message="loading model"),
        ScriptedReply(status=429, error_message="slow down"),
        ScriptedReply(text="third time lucky", chunks=2),
    )
    events: list[ModelEvent] = []
    arrived: list[float] = []
    async for event in client.stream_chat([user("q")], system=None, tools=None):
        events.append(event)
        arrived.append(time.monotonic())
    assert retries(events) == [(1, 0.3, "http_5xx"), (2, 0.01, "http_429")]
    first_retry = next(i for i, e in enumerate(events) if isinstance(e, Retrying))
    waited = arrived[first_retry + 1] - arrived[first_retry]
    assert waited >= 0.3, f"the next attempt came {waited:.3f} s after Retrying, not 0.3 s"
    assert done(events).message.text == "third time lucky"
    assert len(model_server.chat_requests()) == 3


async def test_retries_stop_after_the_last_delay_with_the_last_error(
    make_client: MakeClient, model_server: ModelStubServer
) -> None:
    client = make_client(auto_retry=True, delays=(0.01,))
    model_server.enqueue(
        ScriptedReply(status=500, error_message="first"),
        ScriptedReply(status=502, error_message="second"),
        ScriptedReply(text="never asked for"),
    )
    events = await collect(client.stream_chat([user("q")], system=None, tools=None))
    end = failed(events)
    assert end.error.kind == "http_5xx" and "second" in end.error.message
    assert end.partial is None
    assert model_server.pending == 1


async def test_a_fatal_answer_is_never_retried(
    make_client: MakeClient, model_server: ModelStubServer
) -> None:
    client = make_client(auto_retry=True, delays=(0.01, 0.01))
    model_server.enqueue(
        ScriptedReply(status=401, error_message="invalid api key"), ScriptedReply(text="x")
    )
    events = await collect(client.stream_chat([user("q")], system=None, tools=None))
    error = failed(events).error
    assert (error.kind, error.status, error.retryable) == ("auth", 401, False)
    assert retries(events) == []
    assert len(model_server.chat_requests()) == 1 and model_server.pending == 1


async def test_without_auto_retry_a_retryable_error_ends_the_stream_at_once(
    make_client: MakeClient, model_server: ModelStubServer
) -> None:
    client = make_client(auto_retry=False)
    model_server.enqueue(ScriptedReply(status=503, error_message="busy"), ScriptedReply(text="x"))
    events = await collect(client.stream_chat([user("q")], system=None, tools=None))
    error = failed(events).error
    assert error.kind == "http_5xx" and error.retryable  # the user is offered the retry
    assert retries(events) == [] and model_server.pending == 1


# --- streams that end early ---------------------------------------------------------------


async def test_a_stream_cut_before_any_text_is_retried(
    make_client: MakeClient, model_server: ModelStubServer
) -> None:
    client = make_client(auto_retry=True, delays=(0.01,))
    model_server.enqueue(
        ScriptedReply(text="lost", disconnect_after=0), ScriptedReply(text="second try")
    )
    events = await collect(client.stream_chat([user("q")], system=None, tools=None))
    assert retries(events) == [(1, 0.01, "disconnected")]
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["second try"]
    assert done(events).message.text == "second try"


async def test_a_stream_cut_after_text_ends_with_the_partial_reply_and_no_retry(
    make_client: MakeClient, model_server: ModelStubServer
) -> None:
    client = make_client(auto_retry=True, delays=(0.01,))
    model_server.enqueue(
        ScriptedReply(text="abcdef", chunks=3, disconnect_after=2), ScriptedReply(text="x")
    )
    events = await collect(client.stream_chat([user("q")], system=None, tools=None))
    end = failed(events)
    assert end.error.kind == "disconnected" and end.error.retryable
    assert end.partial is not None and end.partial.text == "abcd"
    assert retries(events) == [] and model_server.pending == 1, "shown text was streamed again"


async def test_an_error_inside_the_stream_keeps_what_streamed_before_it(
    make_client: MakeClient, model_server: ModelStubServer
) -> None:
    client = make_client(auto_retry=True, delays=(0.01,))
    model_server.enqueue(
        ScriptedReply(text="abcdef", chunks=3, error_after=1, error_message="runner died")
    )
    end = failed(await collect(client.stream_chat([user("q")], system=None, tools=None)))
    assert end.error.kind == "http_5xx" and "runner died" in end.error.message
    assert end.partial is not None and end.partial.text == "ab"


# --- cancellation -------------------------------------------------------------------------


async def test_cancel_while_text_streams_ends_at_once_and_hangs_up(
    make_client: MakeClient, model_server: ModelStubServer
) -> None:
    client = make_client()
    model_server.enqueue(ScriptedReply(text="w" * 100, chunks=100, chunk_delay=0.05))
    events = await run_until(client, lambda e: isinstance(e, TextDelta), asyncio.Event())
    end = failed(events)
    assert end.error.kind == "cancelled" and not end.error.retryable
    # What had arrived when the first delta was seen: one chunk, or a few read together on a
    # loaded machine — never the 100 the server would go on to send (5 s of them).
    assert end.partial is not None and 1 <= len(end.partial.text) <= 10
    assert set(end.partial.text) == {"w"}
    assert await wait_for(model_server.disconnected.is_set, 2.0)


async def test_cancel_before_the_first_byte_ends_with_no_partial_reply(
    make_client: MakeClient, model_server: ModelStubServer
) -> None:
    client = make_client()
    model_server.enqueue(ScriptedReply(text="late", first_token_delay=5.0))
    cancel = asyncio.Event()
    stream = client.stream_chat([user("q")], system=None, tools=None, cancel=cancel)
    ended = asyncio.create_task(collect(stream))
    assert await wait_for(lambda: len(model_server.chat_requests()) == 1, 2.0)
    cancel.set()
    events = await ended
    end = failed(events)
    # Cancelled with nothing, not the text the server sends after 5 s: it was not waited for.
    assert end.error.kind == "cancelled" and end.partial is None
    assert not any(isinstance(event, TextDelta) for event in events)


async def test_cancel_during_the_backoff_ends_without_another_request(
    make_client: MakeClient, model_server: ModelStubServer
) -> None:
    client = make_client(auto_retry=True, delays=(30.0,))
    model_server.enqueue(ScriptedReply(status=503, error_message="busy"), ScriptedReply(text="x"))
    events = await run_until(client, lambda e: isinstance(e, Retrying), asyncio.Event())
    assert failed(events).error.kind == "cancelled"
    # The delay was 30 s: the one request and the one reply still queued show it was not waited
    assert len(model_server.chat_requests()) == 1 and model_server.pending == 1


# --- feature fallbacks --------------------------------------------------------------------


def tool_offers(server: ModelStubServer) -> list[object]:
    """Every chat request, streamed or the tool check's, that offered tools natively."""
    bodies = server.chat_requests() + server.probe_requests()
    return [body for body in bodies if "tools" in body]


async def test_a_refused_feature_is_dropped_and_resent_without_counting_as_a_retry(
    make_client: MakeClient, model_server: ModelStubServer
) -> None:
    client = make_client(auto_retry=False)
    model_server.reject_tools = True
    model_server.enqueue(ScriptedReply(text="answered in text"))
    events = await collect(client.stream_chat([user("q")], system=None, tools=TOOLS))
    fallbacks = [e for e in events if isinstance(e, CapabilityFallback)]
    assert [f.capability for f in fallbacks] == ["tools"]
    assert retries(events) == []
    assert done(events).message.text == "answered in text"
    # Refused once — by the OpenAI client's tool check before the first chat, or by the chat
    # itself on Ollama — and never offered natively again.
    assert len(tool_offers(model_server)) == 1
    last = model_server.chat_requests()[-1]
    assert "tools" not in last
    assert "get_lines" in str(last["messages"][0]["content"])  # described in the prompt


async def test_a_retry_after_a_fallback_keeps_the_feature_off(
    make_client: MakeClient, model_server: ModelStubServer
) -> None:
    client = make_client(auto_retry=True, delays=(0.01,))
    model_server.reject_tools = True
    model_server.enqueue(ScriptedReply(status=503, error_message="busy"), ScriptedReply(text="ok"))
    events = await collect(client.stream_chat([user("q")], system=None, tools=TOOLS))
    assert isinstance(events[0], CapabilityFallback)
    assert retries(events) == [(1, 0.01, "http_5xx")]
    assert done(events).message.text == "ok"
    assert len(tool_offers(model_server)) == 1
    assert ["tools" in body for body in model_server.chat_requests()][-2:] == [False, False]
