"""The real terminal: ``ipuaro PATH`` in tmux against the stub model server run as its own
process. Type a question and watch the answer stream in, confirm an edit with Y and find it on
disk, quit with Ctrl+D and find the session saved in the data dir."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ipuaro.config.loader import load_config
from ipuaro.store.factory import open_store
from tests.tui.conftest import copy_project

pytestmark = pytest.mark.tmux

REPO = Path(__file__).resolve().parents[2]
OLD = "  const isValid = verifyToken(token);\n  return isValid;"
NEW = (
    "  const isValid = verifyToken(token);\n"
    '  if (!isValid) throw new AuthError("bad");\n'
    "  return isValid;"
)
SCRIPT = {
    "replies": [
        {
            "text": "Login returns a token built from the user name.",
            "chunks": 12,
            "chunk_delay": 0.15,
        },
        {
            "text": "I will add a validity check.",
            "tool_calls": [
                {
                    "name": "replace",
                    "arguments": {"path": "src/auth/login.ts", "old": OLD, "new": NEW},
                }
            ],
        },
        {"text": "The check is in place."},
    ]
}


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture
def stub_process(tmp_path: Path) -> Iterator[str]:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT), encoding="utf-8")
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.stubs.model_server",
            "--port",
            str(port),
            "--script",
            str(script),
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert "listening" in line, line
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=10)


class Tmux:
    def __init__(self, socket_name: str) -> None:
        self.socket = socket_name

    def run(self, *args: str) -> str:
        result = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=30
        )
        return result.stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", "ipuaro")

    def wait_for(self, check: Callable[[str], bool], what: str, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if check(screen):
                return screen
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what}; the screen was:\n{screen}")

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", "ipuaro", *keys)

    def type(self, text: str) -> None:
        self.run("send-keys", "-t", "ipuaro", "-l", text)


def test_real_terminal_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stub_process: str
) -> None:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    for name in list(os.environ):
        if name.startswith("IPUARO_"):
            monkeypatch.delenv(name)
    project = copy_project(tmp_path)
    env = {
        "IPUARO_DATA_DIR": str(tmp_path / "data"),
        "IPUARO_CONFIG_DIR": str(tmp_path / "config"),
        "IPUARO_LLM__BASE_URL": stub_process,
        "IPUARO_WATCHDOG__ENABLED": "false",
    }
    tmux = Tmux(f"ipuaro-test-{os.getpid()}")
    command = " ".join(
        ["env", "-u", "EDITOR", "-u", "VISUAL", "TERM=xterm-256color"]
        + [f"{key}={value}" for key, value in env.items()]
        + [sys.executable, "-m", "ipuaro", str(project), "--new"]
    )
    tmux.run("new-session", "-d", "-s", "ipuaro", "-x", "110", "-y", "36", command)
    try:
        tmux.wait_for(lambda s: "Ask anything" in s, "the prompt")
        assert "[project: projects-tui_app]" in tmux.screen()
        tmux.type("how does login work?")
        tmux.keys("Enter")
        # Streamed: the first words show while the rest is still on its way (~1.8 s).
        first = tmux.wait_for(lambda s: "Login" in s, "the answer to start")
        assert "user name." not in first
        screen = tmux.wait_for(lambda s: "tool calls" in s, "the stats line")
        assert "Login returns a token built from the user name." in screen
        assert "1 tool call" not in screen and "0 tool calls" in screen

        tmux.type("add a validity check")
        tmux.keys("Enter")
        screen = tmux.wait_for(lambda s: "[Y] Apply" in s, "the diff")
        assert "src/auth/login.ts" in screen and "AuthError" in screen
        time.sleep(0.6)  # keys typed the instant a question appears are ignored (key guard)
        tmux.keys("y")
        tmux.wait_for(lambda s: "The check is in place." in s, "the final answer")
        text = (project / "src" / "auth" / "login.ts").read_text(encoding="utf-8")
        assert 'if (!isValid) throw new AuthError("bad");' in text

        tmux.keys("C-d")
        deadline = time.monotonic() + 20
        while "ipuaro" in tmux.run("list-sessions", "-F", "#{session_name}"):
            assert time.monotonic() < deadline, tmux.screen()
            time.sleep(0.1)
    finally:
        tmux.run("kill-server")
    monkeypatch.setenv("IPUARO_DATA_DIR", env["IPUARO_DATA_DIR"])
    monkeypatch.setenv("IPUARO_CONFIG_DIR", env["IPUARO_CONFIG_DIR"])
    store = open_store(load_config(project), project)
    try:
        (session_id,) = store.list_sessions()
        session = store.load_session(session_id)
        assert session is not None
        users = [m.content for m in session.history if m.role == "user"]
        assert users == ["how does login work?", "add a validity check"]
    finally:
        store.close()
