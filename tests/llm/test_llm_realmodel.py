"""Opt-in lane: the OpenAI-compatible client against a real llama.cpp server and a real model.

Off by default; run with ``pytest -m realmodel tests/llm`` after ``scripts/realmodel-setup.sh``
(builds llama-cpp-python[server], extracts SmolLM2-135M-Instruct Q4_1 into
~/.cache/ipuaro-models/). The server is started here on a free loopback port and stopped after.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from ipuaro.llm.openai import OpenAICompatibleClient
from ipuaro.llm.protocol import StreamDone, TextDelta, UsageReport
from tests.llm.helpers import closed_port, collect, done, failed, user

pytestmark = pytest.mark.realmodel

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
START_TIMEOUT_S = 120.0


def gguf_path() -> Path:
    explicit = os.environ.get("IPUARO_REALMODEL_GGUF")
    if explicit:
        return Path(explicit)
    folder = os.environ.get("IPUARO_MODEL_DIR") or str(Path.home() / ".cache" / "ipuaro-models")
    return Path(folder) / GGUF_NAME


@contextlib.contextmanager
def start_llama(
    folder: Path, *, n_ctx: int = 4096, chat_format: str | None = None
) -> Iterator[str]:
    """llama_cpp.server on a free loopback port serving the GGUF; yields its /v1 URL."""
    model = gguf_path()
    if importlib.util.find_spec("llama_cpp") is None or not model.is_file():
        pytest.fail(
            f"the realmodel lane needs llama-cpp-python[server] and {model}: "
            "run scripts/realmodel-setup.sh first"
        )
    port = closed_port()
    log_path = folder / "server.log"
    command = [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(model), "--host", "127.0.0.1", "--port", str(port),
        "--n_ctx", str(n_ctx),
    ]  # fmt: skip
    if chat_format is not None:
        command += ["--chat_format", chat_format]
    with log_path.open("w") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if process.poll() is not None:
                pytest.fail(f"llama_cpp.server exited: {log_path.read_text()[-2000:]}")
            try:
                if httpx.get(f"{base_url}/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"llama_cpp.server did not start: {log_path.read_text()[-2000:]}")
            time.sleep(0.5)
        yield base_url
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The model's own chat template (from the GGUF), 4K window."""
    with start_llama(tmp_path_factory.mktemp("llama")) as url:
        yield url


async def make_client(base_url: str, *, max_tokens: int | None) -> OpenAICompatibleClient:
    probe = OpenAICompatibleClient(model="probe", base_url=base_url)
    models = await probe.list_models()
    await probe.aclose()
    assert models, "the server lists no model"
    return OpenAICompatibleClient(
        model=models[0], base_url=base_url, max_tokens=max_tokens, timeout=120
    )


async def test_streams_a_reply_with_usage(llama_server: str) -> None:
    client = await make_client(llama_server, max_tokens=48)
    assert await client.is_available()
    events = await collect(
        client.stream_chat(
            [user("Say hello to the user in one short sentence.")],
            system="You are a helpful assistant.",
            tools=None,
        )
    )
    await client.aclose()
    reply = done(events).message
    texts = [e.text for e in events if isinstance(e, TextDelta)]
    assert len(texts) >= 2, "a real server streams token by token"
    assert reply.text == "".join(texts) and reply.text.strip()
    assert reply.finish_reason in {"stop", "length"}
    assert reply.timings.first_token_s is not None and reply.timings.first_token_s > 0
    assert reply.usage.prompt_tokens > 0 and reply.usage.completion_tokens > 0
    # Usage is the server's when it sent any, a local estimate otherwise — never both.
    reported = [e for e in events if isinstance(e, UsageReport)]
    assert reply.usage.estimated == (not reported)
    if reported:
        assert reply.usage.completion_tokens <= 48


async def test_cancel_stops_a_real_generation_quickly(llama_server: str) -> None:
    client = await make_client(llama_server, max_tokens=512)
    cancel = asyncio.Event()
    cancelled_at = 0.0
    events = []
    stream = client.stream_chat(
        [user("Write a long story about a lighthouse keeper.")],
        system=None,
        tools=None,
        cancel=cancel,
    )
    async for event in stream:
        events.append(event)
        if isinstance(event, TextDelta) and len(events) == 3:
            cancel.set()
            cancelled_at = time.monotonic()
    latency = time.monotonic() - cancelled_at
    await client.aclose()
    assert not isinstance(events[-1], StreamDone)
    assert failed(events).error.kind == "cancelled"
    assert latency < 0.2, f"cancel took {latency * 1000:.0f} ms"
    # The server is still healthy for the next request.
    again = await make_client(llama_server, max_tokens=8)
    done(await collect(again.stream_chat([user("Hi")], system=None, tools=None)))
    await again.aclose()


def test_headless_run_against_the_real_server(llama_server: str, tmp_path: Path) -> None:
    """`ipuaro run` end to end on a server nobody here wrote: index, prompt, stream, usage.
    The 135M model cannot do the job; the run must still finish cleanly with real usage.
    No context setting anywhere: the window is the server's (`--n_ctx 4096`), learnt from it;
    a second run starts its own session."""
    project = tmp_path / "tiny"
    project.mkdir()
    (project / "hello.py").write_text('def greet(name):\n    return f"hi {name}"\n')
    models = httpx.get(f"{llama_server}/models", timeout=10).json()["data"]
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("IPUARO_")},
        "IPUARO_DATA_DIR": str(tmp_path / "data"),
        "IPUARO_CONFIG_DIR": str(tmp_path / "config"),
        "IPUARO_LLM__PROVIDER": "openai",
        "IPUARO_LLM__BASE_URL": llama_server,
        "IPUARO_LLM__MODEL": models[0]["id"],
    }
    results = []
    for prompt in ("Say hi.", "Say bye."):
        done_run = subprocess.run(
            [sys.executable, "-m", "ipuaro", "run", "-p", prompt, "--project", str(project),
             "--output", "json", "--max-turns", "1"],
            env=env, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        assert done_run.returncode == 0, done_run.stderr
        result = json.loads(done_run.stdout)
        assert result["reason"] == "done"
        assert result["contextWindow"] == 4096
        assert result["stats"]["tokensIn"] > 0 and result["stats"]["tokensOut"] > 0
        results.append(result)
    assert results[0]["sessionId"] != results[1]["sessionId"]
