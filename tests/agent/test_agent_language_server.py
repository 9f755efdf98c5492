"""``index.languageServers`` through the whole agent: the model calls ``find_references``,
the first answer (the server still starting) comes from the index, a later one from the real
basedpyright server; a server that cannot start leaves every answer to the index and the model
never reads an error about it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ipuaro.agent.events import AgentEnd
from ipuaro.index.lsp import LanguageServers
from tests.agent.conftest import ScriptedModel, call, open_harness, tool_outputs
from tests.index.lsp.conftest import basedpyright
from tests.stubs.model_server import ModelStubServer, ScriptedReply


def _servers(holder: list[LanguageServers | None]) -> LanguageServers:
    servers = holder[0]
    assert servers is not None
    return servers


async def test_the_model_reads_the_servers_answer_once_it_has_started(
    project: Path, model_server: ModelStubServer
) -> None:
    command = f"{basedpyright()} --stdio"
    holder: list[LanguageServers | None] = [None]

    def once_ready(body: dict[str, Any]) -> ScriptedReply:
        # The model's next turn comes after the server is up (a real session: a later call).
        assert _servers(holder).servers["python"].wait_ready(90)
        return call("find_references", symbol="apply_discount")

    model = ScriptedModel(
        [
            call("find_references", symbol="apply_discount"),
            once_ready,
            ScriptedReply(text="done"),
        ]
    )
    overrides = {"index.languageServers": {"python": command}}
    async with open_harness(project, model_server, "openai", model, overrides=overrides) as h:
        holder[0] = h.app.tool_ctx.language_servers
        end = await h.app.agent.send("who calls apply_discount?")
    assert isinstance(end, AgentEnd) and end.reason == "done", end.detail
    first, second = tool_outputs(model.agent_bodies[-1])[-2:]
    assert "from the language server" not in first and "shop/cart.py:37" in first
    assert "(from the language server)" in second
    assert "shop/cart.py:37:" in second and "shop/pricing.py:8:" in second
    assert not h.handlers.errors


async def test_a_server_that_cannot_start_is_invisible_to_the_model(
    project: Path, model_server: ModelStubServer
) -> None:
    def after_a_while(body: dict[str, Any]) -> ScriptedReply:
        assert not _servers(holder).servers["python"].wait_ready(10)  # it tried, and failed
        return call("find_references", symbol="apply_discount")

    holder: list[LanguageServers | None] = [None]
    model = ScriptedModel(
        [
            call("find_references", symbol="apply_discount"),
            after_a_while,
            ScriptedReply(text="done"),
        ]
    )
    overrides = {"index.languageServers": {"python": "no-such-language-server --stdio"}}
    async with open_harness(project, model_server, "openai", model, overrides=overrides) as h:
        holder[0] = h.app.tool_ctx.language_servers
        end = await h.app.agent.send("who calls apply_discount?")
        status = _servers(holder).describe()
    assert isinstance(end, AgentEnd) and end.reason == "done", end.detail
    outputs = tool_outputs(model.agent_bodies[-1])[-2:]
    for output in outputs:
        assert "shop/cart.py:37" in output
        assert "server" not in output and "no-such-language-server" not in output
    assert not h.handlers.errors
    assert "not used: cannot start 'no-such-language-server'" in status[0]
