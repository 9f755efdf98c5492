"""create_client: provider choice, API key from the named environment variable, pinned window."""

from __future__ import annotations

from ipuaro.config.schema import LlmConfig
from ipuaro.llm.factory import create_client
from ipuaro.llm.ollama import DEFAULT_OLLAMA_URL, OllamaClient
from ipuaro.llm.openai import DEFAULT_OPENAI_URL, OpenAICompatibleClient
from ipuaro.llm.protocol import NO_CAP
from tests.llm.helpers import collect, done, user
from tests.stubs.model_server import ModelStubServer, ScriptedReply


async def test_default_config_builds_an_ollama_client_on_the_default_url() -> None:
    client = create_client(LlmConfig())
    assert isinstance(client, OllamaClient)
    assert client.base_url == DEFAULT_OLLAMA_URL
    assert client.model == "qwen2.5-coder:7b-instruct"
    await client.aclose()


async def test_openai_provider_reads_the_key_from_the_configured_variable(
    model_server: ModelStubServer,
) -> None:
    model_server.api_key = "sk-from-env"
    model_server.enqueue(ScriptedReply(text="ok"))
    config = LlmConfig(
        provider="openai", base_url=model_server.openai_url, api_key_env="MY_LLM_KEY", model="m"
    )
    client = create_client(config, environ={"MY_LLM_KEY": "sk-from-env", "OPENAI_API_KEY": "no"})
    assert isinstance(client, OpenAICompatibleClient)
    done(await collect(client.stream_chat([user("q")], system=None, tools=None)))
    await client.aclose()
    assert model_server.requests[-1].headers["Authorization"] == "Bearer sk-from-env"


async def test_openai_provider_without_a_key_sends_no_authorization(
    model_server: ModelStubServer,
) -> None:
    model_server.enqueue(ScriptedReply(text="ok"))
    config = LlmConfig(provider="openai", base_url=model_server.openai_url, model="m")
    client = create_client(config, environ={})
    done(await collect(client.stream_chat([user("q")], system=None, tools=None)))
    await client.aclose()
    assert "Authorization" not in model_server.requests[-1].headers
    default = create_client(LlmConfig(provider="openai"), environ={})
    assert isinstance(default, OpenAICompatibleClient)
    assert default.base_url == DEFAULT_OPENAI_URL
    await default.aclose()


async def test_pinned_window_and_config_values_reach_the_wire(
    model_server: ModelStubServer,
) -> None:
    config = LlmConfig(base_url=model_server.url, temperature=0.4, keep_alive="2h")
    client = create_client(config, context_window=20_000)
    model_server.enqueue(ScriptedReply(text="ok"))
    done(await collect(client.stream_chat([user("q")], system=None, tools=None)))
    await client.aclose()
    body = model_server.chat_requests()[0]
    assert body["options"] == {"num_ctx": 20_000, "temperature": 0.4, "num_predict": 4096}
    assert body["keep_alive"] == "2h"


async def test_the_reply_cap_reaches_both_protocols_and_fits_the_window(
    model_server: ModelStubServer,
) -> None:
    """llm.maxReplyTokens goes out as num_predict / max_tokens; where the window has less room
    left than the cap, the room is sent (vLLM refuses a prompt + cap above its window)."""
    for provider, base_url in (("ollama", model_server.url), ("openai", model_server.openai_url)):
        config = LlmConfig(provider=provider, base_url=base_url, max_reply_tokens=1000)
        client = create_client(config, context_window=20_000)
        await client.context_window()
        model_server.enqueue(*(ScriptedReply(text="ok") for _ in range(3)))
        done(await collect(client.stream_chat([user("q")], system=None, tools=None)))
        long_prompt = user("word " * 15_500)  # ~17.4K tokens (+10 %) of the 20K window
        done(await collect(client.stream_chat([long_prompt], system=None, tools=None)))
        done(await collect(client.stream_chat([user("q")], system=None, tools=None,
                                              max_tokens=NO_CAP)))  # fmt: skip
        await client.aclose()
    caps = [
        body["options"].get("num_predict") if "options" in body else body.get("max_tokens")
        for body in model_server.chat_requests()
    ]
    assert caps[0] == caps[3] == 1000
    assert 256 <= caps[1] < 1000 and 256 <= caps[4] < 1000
    assert caps[2] is None and caps[5] is None
