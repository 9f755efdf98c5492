"""How a headless run ends when it cannot go on: the advice names the user's server, an
interrupted run still prints its one result object."""

from __future__ import annotations

import asyncio
import io
import json
import socket
from pathlib import Path
from typing import Any

from ipuaro.config.loader import load_config
from ipuaro.config.schema import Config, LlmConfig
from ipuaro.headless import HeadlessOptions, run_headless
from tests.agent.conftest import ScriptedModel, call
from tests.stubs.model_server import ModelStubServer, ScriptedReply


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_cannot_reach_advice_names_the_users_port(tmp_path: Path) -> None:
    port = free_port()
    llm = LlmConfig(provider="openai", base_url=f"http://127.0.0.1:{port}/v1", timeout=5)
    out, err = io.StringIO(), io.StringIO()
    options = HeadlessOptions(prompt="hi", output="json")
    code = asyncio.run(run_headless(tmp_path, Config(llm=llm), options, out, err))
    assert code == 1
    detail = json.loads(out.getvalue())["detail"]
    assert f"http://127.0.0.1:{port}/v1" in detail
    assert f"--port {port}" in detail
    assert "8080" not in detail and "8080" not in err.getvalue()


def _config(project: Path, server: ModelStubServer, **extra: Any) -> Config:
    overrides = {"llm.baseUrl": server.url, "llm.contextWindow": 32768, **extra}
    return load_config(project, overrides)


def _run(project: Path, config: Config, prompt: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = asyncio.run(run_headless(project, config, HeadlessOptions(prompt=prompt), out, err))
    return code, out.getvalue(), err.getvalue()


def test_the_loop_guard_says_stopped_once(project: Path, model_server: ModelStubServer) -> None:
    model_server.responder = ScriptedModel(
        [call("get_lines", path="shop/cart.py", start=1, end=5)], repeat_last=True
    )
    code, _, err = _run(project, _config(project, model_server), "show the cart")
    assert code == 4
    line = next(line for line in err.splitlines() if line.startswith("ipuaro: stopped"))
    assert line.startswith("ipuaro: stopped (limit): get_lines was called 3 times in a row")
    assert line.count("stopped") == 1


def test_max_turns_says_stopped_once(project: Path, model_server: ModelStubServer) -> None:
    model_server.responder = ScriptedModel([call("get_structure")], repeat_last=True)
    config = _config(project, model_server, **{"llm.maxTurns": 1})
    code, _, err = _run(project, config, "look around")
    assert code == 4
    line = next(line for line in err.splitlines() if line.startswith("ipuaro: stopped"))
    assert line.count("stopped") == 1 and "llm.maxTurns" in line


def test_token_counts_without_server_usage_are_marked_estimates(
    project: Path, model_server: ModelStubServer
) -> None:
    """A server that refuses ``stream_options`` sends no usage: the counts are ipuaro's own."""
    model_server.reject_stream_options = True
    model_server.responder = ScriptedModel([ScriptedReply(text="Hello.")])
    overrides = {"llm.provider": "openai", "llm.baseUrl": model_server.openai_url}
    config = load_config(project, {"llm.contextWindow": 32768, **overrides})
    out, err = io.StringIO(), io.StringIO()
    options = HeadlessOptions(prompt="hi", output="json")
    assert asyncio.run(run_headless(project, config, options, out, err)) == 0, err.getvalue()
    stats = json.loads(out.getvalue())["stats"]
    assert stats["tokensEstimated"] is True and stats["tokensIn"] > 0
    model_server.responder = ScriptedModel([ScriptedReply(text="Hello.")])
    err = io.StringIO()
    text = HeadlessOptions(prompt="hi")
    assert asyncio.run(run_headless(project, config, text, io.StringIO(), err)) == 0
    line = next(line for line in err.getvalue().splitlines() if line.startswith("⏱"))
    assert " in / ~" in line and "(estimated: the server sent no token counts)" in line


def test_token_counts_from_the_server_are_not_marked(
    project: Path, model_server: ModelStubServer
) -> None:
    model_server.responder = ScriptedModel([ScriptedReply(text="Hello.")])
    overrides = {"llm.provider": "openai", "llm.baseUrl": model_server.openai_url}
    config = load_config(project, {"llm.contextWindow": 32768, **overrides})
    out = io.StringIO()
    options = HeadlessOptions(prompt="hi", output="json")
    assert asyncio.run(run_headless(project, config, options, out, io.StringIO())) == 0
    assert json.loads(out.getvalue())["stats"]["tokensEstimated"] is False
