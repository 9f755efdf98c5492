"""Cancel latency: how long after the user's Ctrl+C a running command or model stream stops.

Not a test (the tests assert only bounds a loaded machine meets). Run by hand::

    .venv/bin/python bench/cancel_bench.py [--runs 10]

Two measurements, each printed with a baseline taken in the same command:

- **command**: ``run_shell("sleep 30")`` cancelled 0.3 s after it started, time from setting
  the cancel event to the outcome; baseline: ``run_shell("true")`` start to finish (spawning
  and reaping one shell, the least a command can cost).
- **model stream**: the Ollama client streaming from the stub model server (200 chunks, 50 ms
  apart) cancelled after the third chunk, time from the cancel to the end event; baseline: one
  complete one-chunk reply from the same server (a full HTTP round trip).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.stubs.model_server import ModelStubServer, ScriptedReply  # noqa: E402

from ipuaro.config.schema import LlmConfig  # noqa: E402
from ipuaro.domain import ChatMessage  # noqa: E402
from ipuaro.llm.factory import create_client  # noqa: E402
from ipuaro.llm.protocol import TextDelta  # noqa: E402
from ipuaro.security.process.runner import run_shell  # noqa: E402


async def command_cancel(folder: Path) -> float:
    cancel = asyncio.Event()
    task = asyncio.create_task(run_shell("sleep 30", folder, timeout=None, cancel=cancel))
    await asyncio.sleep(0.3)
    started = time.perf_counter()
    cancel.set()
    await task
    return time.perf_counter() - started


async def command_baseline(folder: Path) -> float:
    started = time.perf_counter()
    await run_shell("true", folder, timeout=None)
    return time.perf_counter() - started


def _message() -> list[ChatMessage]:
    return [ChatMessage(role="user", content="x", timestamp=0.0)]


async def stream_cancel(server: ModelStubServer) -> float:
    client = create_client(LlmConfig(base_url=server.url, context_window=8192))
    server.enqueue(ScriptedReply(text="x" * 200, chunks=200, chunk_delay=0.05))
    cancel = asyncio.Event()
    seen = 0
    cancelled_at = 0.0
    async for event in client.stream_chat(_message(), system=None, tools=None, cancel=cancel):
        if isinstance(event, TextDelta):
            seen += 1
            if seen == 3:
                cancel.set()
                cancelled_at = time.perf_counter()
    latency = time.perf_counter() - cancelled_at
    await client.aclose()
    return latency


async def stream_baseline(server: ModelStubServer) -> float:
    client = create_client(LlmConfig(base_url=server.url, context_window=8192))
    server.enqueue(ScriptedReply(text="done"))
    started = time.perf_counter()
    async for _ in client.stream_chat(_message(), system=None, tools=None):
        pass
    elapsed = time.perf_counter() - started
    await client.aclose()
    return elapsed


def _row(name: str, measured: list[float], baseline: list[float]) -> str:
    m, b = statistics.median(measured), statistics.median(baseline)
    worst = max(measured)
    return f"| {name} | {m * 1000:.1f} | {worst * 1000:.1f} | {b * 1000:.1f} | {m / b:.2f} |"


async def main(runs: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder)
        cancels = [await command_cancel(path) for _ in range(runs)]
        bases = [await command_baseline(path) for _ in range(runs)]
    with ModelStubServer() as server:
        streams = [await stream_cancel(server) for _ in range(runs)]
        round_trips = [await stream_baseline(server) for _ in range(runs)]
    print(f"runs: {runs}")
    print("| cancel | median ms | max ms | baseline median ms | ratio |")
    print("| --- | ---: | ---: | ---: | ---: |")
    print(_row("command (sleep 30) vs run `true`", cancels, bases))
    print(_row("model stream vs one-chunk reply", streams, round_trips))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    asyncio.run(main(parser.parse_args().runs))
