"""The cannot-connect advice of the OpenAI-compatible client names the port the user set."""

from __future__ import annotations

from ipuaro.config.schema import LlmConfig
from ipuaro.llm.factory import create_client
from tests.llm.helpers import closed_port, collect, failed, user


async def test_refused_connection_advice_names_the_configured_port() -> None:
    port = closed_port()
    config = LlmConfig(
        provider="openai", base_url=f"http://127.0.0.1:{port}/v1", context_window=8192
    )
    client = create_client(config, retry_delays=())
    events = await collect(client.stream_chat([user("q")], system=None, tools=None))
    await client.aclose()
    error = failed(events).error
    assert error.kind == "connect_refused"
    assert f"--port {port}`" in error.suggestion and "8080" not in error.suggestion
