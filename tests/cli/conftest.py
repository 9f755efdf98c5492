"""Fixtures for CLI tests: an isolated environment, a stub model server, a real redis-server."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

Routes = dict[str, tuple[int, object]]
StartServer = Callable[[Routes], str]


@pytest.fixture(autouse=True)
def isolated_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """No IPUARO_* from the caller; user config and data live in tmp_path."""
    for name in list(os.environ):
        if name.startswith("IPUARO_"):
            monkeypatch.delenv(name)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    values = {
        "IPUARO_CONFIG_DIR": str(tmp_path / "user-config"),
        "IPUARO_DATA_DIR": str(tmp_path / "data"),
    }
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    return values


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture
def closed_port_url() -> str:
    """A loopback URL where nothing listens (the port was free a moment ago)."""
    return f"http://127.0.0.1:{free_port()}"


@pytest.fixture
def model_server() -> Iterator[StartServer]:
    """Start a tiny HTTP server answering fixed JSON per path; returns its base URL."""
    servers: list[ThreadingHTTPServer] = []

    def start(routes: Routes) -> str:
        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                status, payload = routes.get(self.path, (404, {"error": "not found"}))
                body = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass  # keep test output clean

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[Callable[[bool], int]]:
    """Start a real redis-server on a free loopback port, with AOF on or off."""
    binary = shutil.which("redis-server")
    if binary is None:
        # CI installs redis-server (README): a missing binary is a broken environment.
        pytest.fail("redis-server not found; install it (apt-get install redis-server)")
    processes: list[subprocess.Popen[bytes]] = []

    def start(appendonly: bool) -> int:
        port = free_port()
        workdir = tmp_path / f"redis-{port}"
        workdir.mkdir()
        process = subprocess.Popen(
            [
                binary,
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "yes" if appendonly else "no",
                "--dir",
                str(workdir),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        processes.append(process)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(16).startswith(b"+PONG"):
                        return port
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"redis-server did not start on port {port}")

    yield start
    for process in processes:
        process.terminate()
        process.wait(timeout=10)
