"""How a headless run ends when it cannot go on: the advice names the user's server, an
interrupted run still prints its one result object."""

from __future__ import annotations

import asyncio
import io
import json
import socket
from pathlib import Path

from ipuaro.config.schema import Config, LlmConfig
from ipuaro.headless import HeadlessOptions, run_headless


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
