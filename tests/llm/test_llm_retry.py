"""The retry policy table and how clients follow it with ``llm.autoRetry`` off and on."""

from __future__ import annotations

import asyncio
from typing import get_args

import pytest

from ipuaro.config.schema import LlmConfig
from ipuaro.llm.errors import RETRY_POLICY, ErrorKind, ModelError, kind_for_status
from ipuaro.llm.factory import create_client
from ipuaro.llm.protocol import ModelClient, Retrying
from tests.llm.helpers import closed_port, collect, done, failed, user
from tests.stubs.model_server import ModelStubServer, ScriptedReply

MODEL = "qwen2.5-coder:7b-instruct"


def ollama(server_url: str, *, auto_retry: bool, delays: tuple[float, ...]) -> ModelClient:
    config = LlmConfig(base_url=server_url, auto_retry=auto_retry, context_window=8192)
    return create_client(config, retry_delays=delays)


def test_every_error_kind_has_a_rule_and_only_transient_ones_retry() -> None:
    assert set(RETRY_POLICY) == set(get_args(ErrorKind))
    retryable = {kind for kind, rule in RETRY_POLICY.items() if rule.retryable}
    assert retryable == {"connect_refused", "timeout", "disconnected", "http_5xx", "http_429"}
    assert all(rule.suggestion for rule in RETRY_POLICY.values())


@pytest.mark.parametrize(
    ("status", "body", "kind"),
    [
        (500, "internal error", "http_5xx"),
        (503, "", "http_5xx"),
        (429, "slow down", "http_429"),
        (401, "invalid api key", "auth"),
        (403, "forbidden", "auth"),
        (400, "bad field", "http_4xx"),
        (404, 'model "x" not found, try pulling it first', "model_not_found"),
        (404, "The model `gpt-x` does not exist or was not found", "model_not_found"),
        (404, "404 page not found", "http_4xx"),
        (400, "This model's maximum context length is 4096 tokens", "context_overflow"),
        (400, "the request exceeds the available context size", "context_overflow"),
        (500, "model requires more system memory (12 GiB) than is available", "out_of_memory"),
    ],
)
def test_http_answers_are_classified(status: int, body: str, kind: ErrorKind) -> None:
    assert kind_for_status(status, body) == kind


def test_model_error_takes_retryable_and_advice_from_the_table() -> None:
    error = ModelError("http_429", "rate limited")
    assert error.retryable and error.suggestion == RETRY_POLICY["http_429"].suggestion
    custom = ModelError("http_4xx", "nope", suggestion="do this", status=422)
    assert not custom.retryable and custom.suggestion == "do this" and custom.status == 422
    assert "nope" in str(custom) and "do this" in str(custom)


async def test_without_auto_retry_a_retryable_error_is_returned_once(
    model_server: ModelStubServer,
) -> None:
    client = ollama(model_server.url, auto_retry=False, delays=(0.01,))
    model_server.enqueue(ScriptedReply(status=503, error_message="busy"), ScriptedReply(text="x"))
    events = await collect(client.stream_chat([user("q")], system=None, tools=None))
    await client.aclose()
    error = failed(events).error
    assert error.kind == "http_5xx" and error.retryable  # the agent offers retry to the user
    assert not [e for e in events if isinstance(e, Retrying)]
    assert len(model_server.chat_requests()) == 1
    assert model_server.pending == 1


async def test_with_auto_retry_retryable_errors_are_retried_until_success(
    model_server: ModelStubServer,
) -> None:
    client = ollama(model_server.url, auto_retry=True, delays=(0.01, 0.02, 0.03))
    model_server.enqueue(
        ScriptedReply(status=503, error_message="busy"),
        ScriptedReply(status=429, error_message="too many"),
        ScriptedReply(text="third time"),
    )
    events = await collect(client.stream_chat([user("q")], system=None, tools=None))
    await client.aclose()
    retries = [e for e in events if isinstance(e, Retrying)]
    assert [(r.attempt, r.delay_s, r.error.kind) for r in retries] == [
        (1, 0.01, "http_5xx"),
        (2, 0.02, "http_429"),
    ]
    assert done(events).message.text == "third time"
    assert len(model_server.chat_requests()) == 3


async def test_auto_retry_gives_up_after_the_last_delay(model_server: ModelStubServer) -> None:
    client = ollama(model_server.url, auto_retry=True, delays=(0.01, 0.01))
    model_server.enqueue(*[ScriptedReply(status=500, error_message="down")] * 3)
    events = await collect(client.stream_chat([user("q")], system=None, tools=None))
    await client.aclose()
    assert failed(events).error.kind == "http_5xx"
    assert len(model_server.chat_requests()) == 3


async def test_auto_retry_never_retries_fatal_errors(model_server: ModelStubServer) -> None:
    client = ollama(model_server.url, auto_retry=True, delays=(0.01, 0.01))
    model_server.enqueue(ScriptedReply(status=400, error_message="bad request"))
    events = await collect(client.stream_chat([user("q")], system=None, tools=None))
    await client.aclose()
    assert failed(events).error.kind == "http_4xx"
    assert len(model_server.chat_requests()) == 1


async def test_auto_retry_never_repeats_a_reply_that_already_streamed(
    model_server: ModelStubServer,
) -> None:
    client = ollama(model_server.url, auto_retry=True, delays=(0.01, 0.01))
    model_server.enqueue(
        ScriptedReply(text="abcd", chunks=2, disconnect_after=1), ScriptedReply(text="again")
    )
    events = await collect(client.stream_chat([user("q")], system=None, tools=None))
    await client.aclose()
    end = failed(events)
    assert end.error.kind == "disconnected"
    assert end.partial is not None and end.partial.text == "ab"
    assert len(model_server.chat_requests()) == 1


async def test_auto_retry_on_a_refused_connection_then_reports_how_to_start(
    model_server: ModelStubServer,
) -> None:
    client = ollama(f"http://127.0.0.1:{closed_port()}", auto_retry=True, delays=(0.01, 0.01))
    events = await collect(client.stream_chat([user("q")], system=None, tools=None))
    await client.aclose()
    assert len([e for e in events if isinstance(e, Retrying)]) == 2
    error = failed(events).error
    assert error.kind == "connect_refused" and "ollama serve" in error.suggestion


async def test_cancel_while_waiting_to_retry(model_server: ModelStubServer) -> None:
    client = ollama(model_server.url, auto_retry=True, delays=(30.0,))
    model_server.enqueue(ScriptedReply(status=503, error_message="busy"))
    cancel = asyncio.Event()
    events = []
    async for event in client.stream_chat([user("q")], system=None, tools=None, cancel=cancel):
        events.append(event)
        if isinstance(event, Retrying):
            cancel.set()
    await client.aclose()
    assert failed(events).error.kind == "cancelled"
    # The retry delay is 30 s and was not waited: no second request was made.
    assert len(model_server.chat_requests()) == 1
