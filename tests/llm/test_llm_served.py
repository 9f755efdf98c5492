"""The window a server serves, asked before the first request; refusals name it too (issue 10).

Against the stub server answering as llama.cpp (/props), vLLM (max_model_len), LM Studio
(/api/v0/models) and llama-cpp-python (only its refusal says the window), and as Ollama with a
model whose trained window is far larger than the machine should allocate.
"""

from __future__ import annotations

import pytest

from ipuaro.llm.errors import ModelError, kind_for_status, window_from_error
from ipuaro.llm.ollama import OllamaClient
from ipuaro.llm.openai import OpenAICompatibleClient
from ipuaro.llm.window import GIB, choose_context_window, memory_cap
from tests.llm.helpers import collect, failed, user
from tests.stubs.model_server import DEFAULT_MODEL, ModelStubServer, ScriptedReply, StubModel

FLAVOURS = ["llama.cpp", "vllm", "lmstudio", "llama-cpp-python"]


@pytest.mark.parametrize("flavour", FLAVOURS)
async def test_the_served_window_wins_over_the_model_size(
    model_server: ModelStubServer, flavour: str
) -> None:
    model_server.served = (flavour, 4096)  # the model itself was trained for 32,768
    client = OpenAICompatibleClient(model=DEFAULT_MODEL, base_url=model_server.openai_url)
    window = await client.context_window()
    await client.aclose()
    assert (window.tokens, window.source, window.model_max) == (4096, "server", 4096)
    assert window.warning is not None and "start the server with a larger context" in (
        window.warning
    )


@pytest.mark.parametrize("flavour", FLAVOURS)
async def test_a_configured_window_may_ask_less_never_more(
    model_server: ModelStubServer, flavour: str
) -> None:
    model_server.served = (flavour, 20_000)
    smaller = OpenAICompatibleClient(
        model=DEFAULT_MODEL, base_url=model_server.openai_url, requested_context=16_384
    )
    larger = OpenAICompatibleClient(
        model=DEFAULT_MODEL, base_url=model_server.openai_url, requested_context=128_000
    )
    asked, capped = await smaller.context_window(), await larger.context_window()
    await smaller.aclose()
    await larger.aclose()
    assert (asked.tokens, asked.source) == (16_384, "config")
    assert (capped.tokens, capped.source) == (20_000, "server")
    assert capped.warning == (
        "llm.contextWindow 128,000 is above the 20,000 tokens the server was started with; "
        "using 20,000 (restart the server with a larger context to use more)"
    )


async def test_a_server_that_says_nothing_falls_back_to_the_model_listing(
    model_server: ModelStubServer,
) -> None:
    client = OpenAICompatibleClient(model=DEFAULT_MODEL, base_url=model_server.openai_url)
    window = await client.context_window()
    await client.aclose()
    assert (window.tokens, window.source) == (32_768, "model")  # n_ctx_train, not capped
    probed = {r.path for r in model_server.requests}
    assert {"/props", "/api/v0/models", "/extras/tokenize/count"} <= probed
    assert "/v1/completions" not in probed  # no oversized prompt to a server that is not lcp


@pytest.mark.parametrize(("pinned", "served"), [(8192, 4096), (4096, 8192)])
async def test_the_servers_window_wins_over_a_resumed_sessions_and_the_change_is_said(
    model_server: ModelStubServer, pinned: int, served: int
) -> None:
    """Made at 8K, resumed on a 4K server: 4K (an 8K prompt would be refused); made at 4K,
    resumed at 8K: 8K (else the status shows the window full while the server has room)."""
    model_server.served = ("llama-cpp-python", served)
    client = OpenAICompatibleClient(
        model=DEFAULT_MODEL, base_url=model_server.openai_url, context_window=pinned
    )
    window = await client.context_window()
    await client.aclose()
    assert (window.tokens, window.source) == (served, "server")
    assert window.warning is not None
    assert (
        f"this session was made with a context window of {pinned:,} tokens; the server now "
        f"serves {served:,}: using {served:,}"
    ) in window.warning


async def test_a_resumed_session_on_a_server_of_its_own_size_hears_nothing(
    model_server: ModelStubServer,
) -> None:
    model_server.served = ("llama.cpp", 32_768)
    client = OpenAICompatibleClient(
        model=DEFAULT_MODEL, base_url=model_server.openai_url, context_window=32_768
    )
    window = await client.context_window()
    await client.aclose()
    assert (window.tokens, window.warning) == (32_768, None)


async def test_a_pinned_ollama_window_asks_nothing(model_server: ModelStubServer) -> None:
    """Ollama allocates num_ctx per request: the session's window stands, nothing is asked."""
    client = OllamaClient(model=DEFAULT_MODEL, base_url=model_server.url, context_window=2048)
    assert (await client.context_window()).tokens == 2048
    await client.aclose()
    assert model_server.requests == []


# --- Ollama: num_ctx is allocated by the server, so memory decides -------------------------


@pytest.mark.parametrize(
    ("ram_gib", "expected"), [(4, 8192), (8, 16_384), (12, 16_384), (16, 32_768), (64, 32_768)]
)
def test_without_a_setting_ollama_windows_follow_the_ram(ram_gib: int, expected: int) -> None:
    assert memory_cap(ram_gib * GIB) == expected
    window = choose_context_window(
        pinned=None, requested=None, model_max=131_072, total_memory=ram_gib * GIB
    )
    assert (window.tokens, window.source, window.model_max) == (expected, "memory", 131_072)
    assert window.warning is not None
    if expected >= 16_384:
        assert window.warning == (
            f"context window {expected:,} tokens of the model's 131,072: a larger window "
            f"allocates more memory for the KV cache ({ram_gib} GB of RAM here); set "
            "llm.contextWindow (or --context-window) to choose"
        )


def test_the_user_chooses_above_the_memory_default() -> None:
    window = choose_context_window(
        pinned=None, requested=65_536, model_max=131_072, total_memory=8 * GIB
    )
    assert (window.tokens, window.source, window.warning) == (65_536, "config", None)


async def test_ollama_client_says_which_window_and_why(model_server: ModelStubServer) -> None:
    model_server.models = [StubModel(DEFAULT_MODEL, context_length=10_000_000)]
    client = OllamaClient(model=DEFAULT_MODEL, base_url=model_server.url)
    window = await client.context_window()
    await client.aclose()
    assert window.source == "memory" and window.tokens == memory_cap()
    assert window.warning is not None and "10,000,000" in window.warning


# --- refusals ------------------------------------------------------------------------------

REFUSALS = [
    # (server, status, body text, window)
    ("OpenAI / vLLM", 400, "This model's maximum context length is 4096 tokens. However, you "
     "requested 5000 tokens (4800 in the messages, 200 in the completion).", 4096),
    ("llama-cpp-python", 500, "Requested tokens (5000) exceed context window of 4096", 4096),
    ("llama-server", 400, '{"error":{"code":400,"message":"the request exceeds the available '
     'context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":'
     '9000,"n_ctx":8192}}', 8192),
    ("llama-server (old)", 400, "request (9000 tokens) exceeds the available context size "
     "(8192 tokens), try increasing it", 8192),
    ("LM Studio", 400, "Trying to keep the first 9000 tokens when context the overflows. "
     "However, the model is loaded with context length of only 4096 tokens, which is not "
     "enough.", 4096),
    ("generic", 400, "context length exceeded", None),
]  # fmt: skip


@pytest.mark.parametrize(("server", "status", "text", "window"), REFUSALS)
def test_context_refusals_are_recognised_with_their_window(
    server: str, status: int, text: str, window: int | None
) -> None:
    assert kind_for_status(status, text) == "context_overflow", server
    assert window_from_error(text) == window
    error = ModelError("context_overflow", text)
    assert error.window == window
    assert "larger one (llama.cpp -c, vLLM --max-model-len" in error.suggestion


def test_other_errors_carry_no_window() -> None:
    assert kind_for_status(500, "CUDA out of memory, is not enough") == "out_of_memory"
    assert ModelError("http_4xx", "maximum context length is 4096").window is None


# --- a refusal inside the stream ----------------------------------------------------------


async def test_a_prompt_above_the_window_that_kills_the_stream_is_reported_as_too_long(
    model_server: ModelStubServer,
) -> None:
    """llama-cpp-python answers 200 and drops the stream on a prompt above its window: that is
    a context-length refusal, never "the server closed the stream early. Retry."."""
    model_server.served = ("llama-cpp-python", 4096)
    client = OpenAICompatibleClient(model=DEFAULT_MODEL, base_url=model_server.openai_url)
    prompt = user("word " * 5000)
    events = await collect(client.stream_chat([prompt], system=None, tools=None))
    await client.aclose()
    error = failed(events).error
    assert error.kind == "context_overflow" and not error.retryable
    assert error.window == 4096  # the session adopts it
    assert "maximum context length is 4096 tokens" in error.message
    assert "closed the stream early" not in str(error)
    assert error.suggestion.startswith("The prompt is larger than the server's context window")


async def test_a_stream_that_breaks_for_another_reason_stays_a_disconnect(
    model_server: ModelStubServer,
) -> None:
    model_server.served = ("llama-cpp-python", 4096)
    model_server.enqueue(ScriptedReply(disconnect_after=0))
    client = OpenAICompatibleClient(model=DEFAULT_MODEL, base_url=model_server.openai_url)
    events = await collect(client.stream_chat([user("short")], system=None, tools=None))
    await client.aclose()
    assert failed(events).error.kind == "disconnected"
