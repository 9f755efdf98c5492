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
from tests.stubs.model_server import DEFAULT_MODEL, ModelStubServer, StubModel

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


async def test_a_pinned_window_asks_nothing(model_server: ModelStubServer) -> None:
    model_server.served = ("llama.cpp", 4096)
    client = OpenAICompatibleClient(
        model=DEFAULT_MODEL, base_url=model_server.openai_url, context_window=2048
    )
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
