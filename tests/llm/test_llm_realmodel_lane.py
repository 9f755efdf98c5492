"""Opt-in lane (``pytest -m realmodel tests/llm``): what issue 21 found on llama-cpp-python's
server, checked on the real server and model (SmolLM2-135M; scripts/realmodel-setup.sh).

- tools reach the model: with ``--chat_format chatml-function-calling`` (tools rendered only
  with a ``tool_choice``) the agent's native call is made and its result is in the next request;
  with the model's own template (no tools in it) the check finds the drop;
- a session made on an 8K server and resumed on a 4K one uses 4K and says so;
- a reply that would run past the cap is cut and reported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ipuaro.agent.events import AgentEnd, AgentEvent
from ipuaro.config.loader import load_config
from ipuaro.core.wiring import build_app
from ipuaro.llm.openai import OpenAICompatibleClient
from tests.agent.conftest import RecordingHandlers
from tests.llm.test_llm_realmodel import llama_server, start_llama  # noqa: F401

pytestmark = pytest.mark.realmodel


@pytest.fixture(scope="module")
def tools_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Renders tools only with a tool_choice, as the issue's server did."""
    folder = tmp_path_factory.mktemp("llama-tools")
    with start_llama(folder, n_ctx=8192, chat_format="chatml-function-calling") as url:
        yield url


@pytest.fixture(scope="module")
def server_8k(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with start_llama(tmp_path_factory.mktemp("llama-8k"), n_ctx=8192) as url:
        yield url


def model_id(base_url: str) -> str:
    return str(httpx.get(f"{base_url}/models", timeout=10).json()["data"][0]["id"])


class Recording(httpx.AsyncBaseTransport):
    """The real transport, keeping every request body the client sent."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.bodies: list[dict[str, Any]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/chat/completions"):
            self.bodies.append(json.loads(await request.aread()))
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


def project_with(tmp_path: Path) -> Path:
    project = tmp_path / "tiny"
    project.mkdir()
    (project / "hello.py").write_text('def greet(name):\n    return f"hi {name}"\n')
    return project


async def test_a_native_tool_call_is_made_and_its_result_reaches_the_next_request(
    tools_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("IPUARO_DATA_DIR", str(tmp_path / "data"))
    project = project_with(tmp_path)
    recording = Recording()
    client = OpenAICompatibleClient(
        model=model_id(tools_server), base_url=tools_server, transport=recording, timeout=300
    )
    overrides = {"llm.provider": "openai", "llm.baseUrl": tools_server, "llm.maxTurns": 2}
    config = load_config(project, overrides)
    app = await build_app(project, config, handlers=RecordingHandlers(), confirm=None,
                          client=client, new_session=True)  # fmt: skip
    events: list[AgentEvent] = []
    app.agent.subscribe(events.append)
    try:
        app.indexer.index(workers=1)
        assert app.agent.tool_format == "native", app.warnings
        end = await app.agent.send(
            "Call the get_structure tool now to list the files of this project."
        )
    finally:
        await app.aclose()
    assert isinstance(end, AgentEnd)
    # The agent's requests (not the tool check's one-token ones). A reply that calls a tool
    # cannot stream on this server: it comes again unstreamed, and so do later tool requests.
    chats = [b for b in recording.bodies if b.get("max_tokens") != 1]
    calls = [e.call for e in events if e.type == "tool_call_end"]
    print("\nrealmodel tool calls:", [c.name for c in calls])
    print("realmodel agent requests:", [b["stream"] for b in chats], "end:", end.reason)
    first = chats[0]
    assert first["tool_choice"] == "auto" and first["tools"]
    assert calls, f"the model made no native tool call: {end.answer[:300]!r}"
    results = [m for b in chats for m in b["messages"] if m.get("role") == "tool"]
    assert results, "no request carried a tool result"
    assert results[0]["tool_call_id"] == calls[0].id
    assert results[0]["content"].strip()


async def test_the_models_own_template_drops_tools_and_the_check_finds_it(
    llama_server: str,  # noqa: F811
) -> None:
    client = OpenAICompatibleClient(model=model_id(llama_server), base_url=llama_server)
    support = await client.check_tools()
    info = await client.model_info()
    await client.aclose()
    print("\nrealmodel tool check (model's own template):", support)
    assert support.honoured is False, support.detail
    assert "tools" not in info.capabilities and info.notes


def ipuaro_run(
    project: Path, tmp_path: Path, base_url: str, *args: str, **env_extra: str
) -> subprocess.CompletedProcess[str]:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("IPUARO_")},
        "IPUARO_DATA_DIR": str(tmp_path / "data"),
        "IPUARO_CONFIG_DIR": str(tmp_path / "config"),
        "IPUARO_LLM__PROVIDER": "openai",
        "IPUARO_LLM__BASE_URL": base_url,
        "IPUARO_LLM__MODEL": model_id(base_url),
        **env_extra,
    }
    return subprocess.run(
        [sys.executable, "-m", "ipuaro", "run", "--project", str(project), *args],
        env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip


def test_a_session_resumed_on_a_smaller_window_server_uses_the_smaller_window(
    server_8k: str,
    llama_server: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    project = project_with(tmp_path)
    first = ipuaro_run(project, tmp_path, server_8k, "-p", "Say hi.", "--output", "json",
                       "--max-turns", "1")  # fmt: skip
    assert first.returncode == 0, first.stderr
    made = json.loads(first.stdout)
    assert made["contextWindow"] == 8192
    again = ipuaro_run(project, tmp_path, llama_server, "-p", "Say bye.", "--output", "json",
                       "--max-turns", "1", "--resume", made["sessionId"])  # fmt: skip
    assert again.returncode == 0, again.stderr
    resumed = json.loads(again.stdout)
    print("\nrealmodel resumed:", resumed["contextWindow"], again.stderr.strip()[:400])
    assert resumed["sessionId"] == made["sessionId"]
    assert resumed["contextWindow"] == 4096
    assert (
        "this session was made with a context window of 8,192 tokens; the server now serves "
        "4,096: using 4,096"
    ) in again.stderr


def test_a_reply_past_the_cap_is_cut_and_reported(
    llama_server: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    project = project_with(tmp_path)
    done = ipuaro_run(
        project, tmp_path, llama_server, "-p",
        "Write a long story, at least 600 words, about a lighthouse keeper and the sea.",
        "--max-turns", "1", IPUARO_LLM__MAX_REPLY_TOKENS="64",
    )  # fmt: skip
    print("\nrealmodel capped reply:", done.returncode, done.stderr.strip()[-400:])
    assert "the reply was cut off at the token cap (64 tokens)" in done.stderr
    assert len(done.stdout.split()) < 120  # 64 tokens, not 600 words
