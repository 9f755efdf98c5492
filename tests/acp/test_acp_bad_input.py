"""Bad input on the wire: every malformed or out-of-order message gets a JSON-RPC error, the
server keeps answering, and stdout carries nothing but JSON-RPC."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from tests.acp.conftest import ACP_COMMAND, TIMEOUT, acp_env
from tests.stubs.model_server import ModelStubServer


class RawClient:
    """Lines in, lines out: what a careless client would send, read back as JSON."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[str] = []

    @classmethod
    async def start(cls, env: dict[str, str], cwd: Path, stderr: Path) -> RawClient:
        """``ipuaro acp`` as a subprocess; its stderr goes to the file ``stderr``."""
        with stderr.open("wb") as err:  # the child keeps its own descriptor
            process = await asyncio.create_subprocess_exec(
                *ACP_COMMAND,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=err,
                env=env,
                cwd=cwd,
            )
        return cls(process)

    async def finish(self) -> int:
        """Close the server's stdin (the editor went away) and return its exit code."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        return await asyncio.wait_for(self.process.wait(), TIMEOUT)

    async def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode() + b"\n")
        await self.process.stdin.drain()

    async def reply(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = await asyncio.wait_for(self.process.stdout.readline(), TIMEOUT)
        assert line, "the server closed stdout"
        self.lines.append(line.decode())
        message: dict[str, Any] = json.loads(line)
        return message

    async def call(self, id_: int, method: str, params: Any) -> dict[str, Any]:
        await self.send(
            json.dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": params})
        )
        while True:
            message = await self.reply()
            if message.get("id") == id_:
                return message


async def test_bad_input_gets_json_rpc_errors_and_never_a_crash(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    client = await RawClient.start(
        acp_env(tmp_path, model_server), project, tmp_path / "stderr.log"
    )
    process = client.process
    try:
        # A prompt before any session/new: there is no such session.
        early = await client.call(
            1, "session/prompt", {"sessionId": "abc", "prompt": [{"type": "text", "text": "hi"}]}
        )
        assert early["error"]["code"] == -32602
        assert "session/new" in early["error"]["message"]

        ok = await client.call(2, "initialize", {"protocolVersion": 1})
        assert ok["result"]["agentCapabilities"]["loadSession"] is True

        unknown = await client.call(3, "session/frobnicate", {})
        assert unknown["error"]["code"] == -32601

        malformed = await client.call(4, "session/new", {"cwd": 42, "mcpServers": []})
        assert malformed["error"]["code"] == -32602

        relative = await client.call(5, "session/new", {"cwd": "shop", "mcpServers": []})
        assert relative["error"]["code"] == -32602
        assert "absolute path" in relative["error"]["message"]

        not_a_list = await client.call(6, "session/prompt", [1, 2])
        assert not_a_list["error"]["code"] == -32602

        missing = await client.call(
            7, "session/load", {"cwd": str(project), "sessionId": "000000000000", "mcpServers": []}
        )
        assert missing["error"]["code"] == -32602
        assert "000000000000" in missing["error"]["message"]

        await client.send("this is not json {")
        garbage = await client.reply()
        assert garbage["id"] is None and garbage["error"]["code"] == -32700

        await client.send("[1, 2, 3]")
        batch = await client.reply()
        assert batch["id"] is None and batch["error"]["code"] == -32600

        # Still answering after all of that.
        again = await client.call(8, "initialize", {"protocolVersion": 1})
        assert again["result"]["protocolVersion"] == 1
    finally:
        code = await client.finish()
    assert code == 0, (tmp_path / "stderr.log").read_text()
    assert process.stdout is not None
    rest = (await process.stdout.read()).decode().splitlines()
    for line in [*client.lines, *rest]:
        assert json.loads(line)["jsonrpc"] == "2.0"  # stdout holds the protocol and nothing else
    log = (tmp_path / "stderr.log").read_text()
    assert "Traceback" not in log, log


async def test_a_stray_print_goes_to_stderr_not_the_protocol(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    """What the server's own code (or a library, or a child process) writes to stdout must
    never reach the client: descriptor 1 is stderr once ``ipuaro acp`` runs."""
    code = (
        "import sys, subprocess, asyncio\n"
        "from ipuaro.acp.channel import claim_stdout\n"
        "out = claim_stdout()\n"
        "print('stray print')\n"
        "subprocess.run(['echo', 'child process'])\n"
        'out.write(b\'{"jsonrpc":"2.0"}\\n\')\n'
    )
    process = await asyncio.create_subprocess_exec(
        ACP_COMMAND[0],
        "-c",
        code,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=acp_env(tmp_path, model_server),
    )
    out, err = await asyncio.wait_for(process.communicate(), TIMEOUT)
    assert out == b'{"jsonrpc":"2.0"}\n'
    assert b"stray print" in err and b"child process" in err


async def test_requests_from_a_file_are_all_answered_even_with_no_model_server(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    """stdin and stdout redirected to files (a script, not an editor): every request is
    answered before the server stops at end of input, and a model server that is not running
    is a clear JSON-RPC error naming it and how to start one."""
    requests = tmp_path / "requests.jsonl"
    requests.write_text(
        json.dumps(
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
        )
        + "\n"
        + json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "session/new",
                "params": {"cwd": str(project), "mcpServers": []},
            }
        )
        + "\n"
    )
    env = acp_env(tmp_path, model_server)  # the flag below overrides its working server
    answers = tmp_path / "answers.jsonl"
    with requests.open("rb") as stdin, answers.open("wb") as stdout:
        process = await asyncio.create_subprocess_exec(
            *ACP_COMMAND,
            "--base-url",
            "http://127.0.0.1:9",  # the discard port: nothing listens
            stdin=stdin,
            stdout=stdout,
            stderr=asyncio.subprocess.PIPE,
            env=env,
            cwd=project,
        )
        _, err = await asyncio.wait_for(process.communicate(), TIMEOUT)
    assert process.returncode == 0, err.decode()
    first, second = (json.loads(line) for line in answers.read_text().splitlines())
    assert first["id"] == 1 and first["result"]["agentCapabilities"]["loadSession"]
    assert second["id"] == 2 and second["error"]["code"] == -32603
    assert "http://127.0.0.1:9" in second["error"]["message"]
    assert "ollama serve" in second["error"]["message"]
