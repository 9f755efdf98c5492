"""Ctrl+C on ``ipuaro run --output json`` (SIGINT to a real process): one final object with
``reason: "aborted"`` and exit code 130, whether the request was running or not yet sent."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import threading
from pathlib import Path
from typing import Any

from tests.agent.test_agent_headless import ipuaro, run_env
from tests.stubs.model_server import ModelStubServer, ScriptedReply


def _start(project: Path, env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        ipuaro(project, env, *args),
        env=env,
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_ctrl_c_during_a_request_prints_one_aborted_result(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    arrived = threading.Event()

    def stall(body: dict[str, Any]) -> ScriptedReply:
        arrived.set()
        return ScriptedReply(text="too late", first_token_delay=120)  # until interrupted

    model_server.responder = stall
    process = _start(project, run_env(tmp_path, model_server), "-p", "hi", "--output", "json")
    try:
        assert arrived.wait(120), "the request never reached the model server"
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=120)
    finally:
        process.kill()
    assert process.returncode == 130, err
    result = json.loads(out)  # exactly one object
    assert (result["reason"], result["exitCode"]) == ("aborted", 130)
    assert result["sessionId"] and "Traceback" not in err


def test_ctrl_c_in_text_mode_says_interrupted_without_a_traceback(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    arrived = threading.Event()

    def stall(body: dict[str, Any]) -> ScriptedReply:
        arrived.set()
        return ScriptedReply(text="too late", first_token_delay=120)

    model_server.responder = stall
    process = _start(project, run_env(tmp_path, model_server), "-p", "hi")
    try:
        assert arrived.wait(120), "the request never reached the model server"
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=120)
    finally:
        process.kill()
    assert process.returncode == 130, err
    assert "ipuaro: stopped (aborted)" in err and "Traceback" not in err


def test_ctrl_c_before_the_request_still_prints_one_aborted_result(
    project: Path, tmp_path: Path
) -> None:
    """The model server accepts the connection and never answers: the run is still checking
    it (no workspace yet) when Ctrl+C comes."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = int(listener.getsockname()[1])
        connections: list[socket.socket] = []
        waiting = threading.Thread(
            target=lambda: connections.append(listener.accept()[0]), daemon=True
        )
        waiting.start()
        env = run_env(tmp_path, None, port)
        process = _start(project, env, "-p", "hi", "--output", "json")
        try:
            waiting.join(120)
            assert connections, "ipuaro never asked the model server"
            process.send_signal(signal.SIGINT)
            out, err = process.communicate(timeout=120)
        finally:
            process.kill()
            for connection in connections:
                connection.close()
    assert process.returncode == 130, err
    result = json.loads(out)
    assert (result["reason"], result["exitCode"]) == ("aborted", 130)
    assert "interrupted by the user" in result["detail"] and "Traceback" not in err
