"""Opt-in lane: an agent run at ``n_ctx 4096`` against a real llama.cpp server.

Issue 26: the first request must fit a small window, and a run with two tool calls must finish
without compaction and without the server refusing a request. Every request the agent makes
goes to the real server (its tokenizer counts the prompt; a prompt past 4096 is refused there).
SmolLM2-135M does not make tool calls reliably, so for the first two requests the reply the
agent receives is a scripted call (with the prompt size the real server reported); the last
answer is the real model's text. Run with ``pytest -m realmodel tests/llm`` after
``scripts/realmodel-setup.sh``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from ipuaro.agent.events import AgentEvent
from ipuaro.config.loader import load_config
from ipuaro.core.wiring import build_app
from tests.agent.conftest import GIT_ENV, Confirmer, RecordingHandlers, copy_fixture
from tests.llm.test_llm_realmodel import llama_server
from tests.stubs.model_server import ModelStubServer, ScriptedReply, StubToolCall

pytestmark = pytest.mark.realmodel

__all__ = ["llama_server"]

N_CTX = 4096


class RealServerRelay:
    """The stub's responder: sends the agent's request, as it is, to the real server."""

    def __init__(self, base_url: str, calls: list[StubToolCall]) -> None:
        self.base_url = base_url
        self.calls = list(calls)
        self.prompt_tokens: list[int] = []
        self.refusals: list[str] = []

    def __call__(self, body: dict[str, Any]) -> ScriptedReply:
        forwarded = {**body, "stream": False, "max_tokens": 24}
        forwarded.pop("stream_options", None)
        answer = httpx.post(f"{self.base_url}/chat/completions", json=forwarded, timeout=300)
        if answer.status_code != 200:
            self.refusals.append(answer.text)
            return ScriptedReply(status=answer.status_code, error_message=answer.text)
        data = answer.json()
        prompt = int(data["usage"]["prompt_tokens"])
        self.prompt_tokens.append(prompt)
        if self.calls:
            return ScriptedReply(tool_calls=[self.calls.pop(0)], prompt_tokens=prompt)
        text = str(data["choices"][0]["message"].get("content") or "").strip() or "(empty)"
        return ScriptedReply(text=text, prompt_tokens=prompt)


async def test_a_two_call_run_at_n_ctx_4096_needs_no_compaction_and_no_refusal(
    llama_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("IPUARO_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("IPUARO_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv("IPUARO_TRACE", raising=False)
    root = copy_fixture(tmp_path)
    relay = RealServerRelay(
        llama_server,
        [
            StubToolCall(name="get_function", arguments={"path": "shop/cart.py", "name": "total"}),
            StubToolCall(name="grep_search", arguments={"query": "apply_discount"}),
        ],
    )
    events: list[AgentEvent] = []
    with ModelStubServer() as stub:
        stub.responder = relay
        config = load_config(
            root,
            {
                "llm.provider": "openai",
                "llm.baseUrl": stub.openai_url,
                "llm.contextWindow": N_CTX,
                "llm.timeout": 300,
            },
        )
        app = await build_app(root, config, handlers=RecordingHandlers(), confirm=Confirmer())
        try:
            app.indexer.index(workers=1)
            app.agent.subscribe(events.append)
            end = await app.agent.send("how is the cart total computed?")
        finally:
            await app.aclose()
    assert relay.refusals == [], relay.refusals[0][:3000]
    assert end.reason == "done", end.detail
    assert [e.call.name for e in events if e.type == "tool_call_end"] == [
        "get_function",
        "grep_search",
    ]
    assert not [e for e in events if e.type == "compaction"]
    assert len(relay.prompt_tokens) == 3
    print(f"prompt tokens counted by llama.cpp at n_ctx {N_CTX}: {relay.prompt_tokens}")
    # The real tokenizer's count: the first request within 40 % of the window.
    assert relay.prompt_tokens[0] <= 0.40 * N_CTX, relay.prompt_tokens
    assert max(relay.prompt_tokens) < N_CTX
