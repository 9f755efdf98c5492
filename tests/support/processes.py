"""Free ports and the stub model server run as its own process (for front ends started as
real processes: the TUI in tmux, ``ipuaro run``, ``ipuaro acp``)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
STUB = (sys.executable, "-m", "tests.stubs.model_server")

StartStub = Callable[[dict[str, Any]], str]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture
def start_stub(tmp_path: Path) -> Iterator[StartStub]:
    """``start_stub(script)``: the stub model server as its own process, playing ``script``;
    its URL once it listens. Every one started is stopped after the test."""
    processes: list[subprocess.Popen[str]] = []

    def start(script: dict[str, Any]) -> str:
        path = tmp_path / f"script-{len(processes)}.json"
        path.write_text(json.dumps(script), encoding="utf-8")
        port = free_port()
        process = subprocess.Popen(
            [*STUB, "--port", str(port), "--script", str(path)],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        processes.append(process)
        assert process.stdout is not None
        line = process.stdout.readline()
        assert "listening" in line, line
        return f"http://127.0.0.1:{port}"

    try:
        yield start
    finally:
        for process in processes:
            process.terminate()
            process.wait(timeout=10)
            if process.stdout is not None:
                process.stdout.close()
