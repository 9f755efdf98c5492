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

import pytest

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


START_MOMENTS = {
    # Each marker is a line ``python -X importtime`` writes to stderr as that import ends:
    # the SIGINT follows it, so it lands at that moment of the start or a little later.
    "importing the command line (click)": "click.core",
    "importing the run command": "ipuaro.cli.llm_flags",
    "importing the configuration schema": "pydantic",
    "importing the headless runner": "ipuaro.headless",
    "loading the configuration": "ipuaro.config.loader",
}


def _start_traced(project: Path, env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    command = ipuaro(project, env, *args)
    return subprocess.Popen(
        [command[0], "-X", "importtime", *command[1:]],
        env=env,
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _interrupt_after(process: subprocess.Popen[str], module: str) -> tuple[str, str]:
    """SIGINT once ``module``'s import has ended; the rest of stdout and stderr."""
    assert process.stderr is not None
    seen: list[str] = []
    for line in process.stderr:
        seen.append(line)
        if line.rsplit("|", 1)[-1].strip() == module:
            break
    else:
        raise AssertionError(f"{module} was never imported:\n{''.join(seen)}")
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    return out, "".join(seen) + err


@pytest.mark.parametrize("module", list(START_MOMENTS.values()), ids=list(START_MOMENTS))
def test_ctrl_c_at_any_moment_of_the_start_prints_one_aborted_result(
    project: Path, model_server: ModelStubServer, tmp_path: Path, module: str
) -> None:
    model_server.responder = lambda body: ScriptedReply(text="late", first_token_delay=120)
    env = run_env(tmp_path, model_server)
    process = _start_traced(project, env, "-p", "hi", "--output", "json")
    try:
        out, err = _interrupt_after(process, module)
    finally:
        process.kill()
    assert process.returncode == 130, err
    result = json.loads(out)  # exactly one object
    assert (result["reason"], result["exitCode"]) == ("aborted", 130)
    assert "interrupted by the user" in result["detail"]
    assert "Traceback" not in err and "Aborted!" not in err


def test_ctrl_c_while_importing_in_stream_json_and_text_mode(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    env = run_env(tmp_path, model_server)
    process = _start_traced(project, env, "-p", "hi", "--output", "stream-json")
    try:
        out, err = _interrupt_after(process, "click.core")
    finally:
        process.kill()
    assert process.returncode == 130, err
    [line] = out.splitlines()
    assert json.loads(line)["type"] == "result" and json.loads(line)["reason"] == "aborted"
    process = _start_traced(project, env, "-p", "hi")
    try:
        out, err = _interrupt_after(process, "click.core")
    finally:
        process.kill()
    assert process.returncode == 130, err
    assert out == "" and "Traceback" not in err
    assert err.count("ipuaro: interrupted by the user (Ctrl+C)") == 1
