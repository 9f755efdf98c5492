"""Fuzzed ACP lines (hypothesis) through the real transport, the real SDK connection and the real
ipuaro agent, in process: every line is answered or refused with JSON-RPC, nothing raises or
logs a traceback, every request with a usable id gets exactly one answer, the server still
answers a valid request afterwards, and memory stays bounded.

Methods that open a project (``session/new``, ``session/load``, ``session/list``) are left out
of the generated lines: a fuzzed ``cwd`` of ``/`` would index the machine. Their bad input is
covered through a real process in ``test_acp_bad_input.py`` and ``test_acp_faults.py``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import os
import tracemalloc
from typing import Any, cast

from acp import run_agent
from acp.interfaces import Agent
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ipuaro.acp.channel import LineTransport
from ipuaro.acp.server import IpuaroAcpAgent

EXAMPLES = int(os.environ.get("IPUARO_FUZZ_EXAMPLES", "150"))
HANG_GUARD_S = 30.0
"""Only a hang trips this: a fuzzed batch is answered in milliseconds."""
MEMORY_BOUND = 64 * 1024 * 1024

METHODS = [
    "initialize",
    "session/prompt",
    "session/cancel",
    "session/set_mode",
    "authenticate",
    "session/frobnicate",
    "",
]


class Collector:
    """The writer side of the transport: every line the server sends."""

    def __init__(self) -> None:
        self.lines: list[bytes] = []
        self.changed = asyncio.Event()

    def write(self, data: bytes) -> None:
        self.lines.append(data)
        self.changed.set()

    async def drain(self) -> None:
        return None

    def is_closing(self) -> bool:
        return False

    def close(self) -> None:
        return None


class Tracebacks(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info or record.levelno >= logging.ERROR:
            self.records.append(record)


texts = st.text(
    alphabet=st.characters(codec=None, exclude_categories=("Cn",)), max_size=30
) | st.sampled_from(["\ud800", "a\udfffb", "x" * 5, "/", "0" * 5000])
ids = st.one_of(
    st.integers(-(2**70), 2**70),
    texts,
    st.none(),
    st.booleans(),
    st.floats(allow_nan=False),
    st.lists(st.integers(), max_size=2),
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | texts,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=20,
)
blocks = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "image", "resource", "resource_link", "audio", "zzz"])},
    optional={"text": texts, "uri": texts, "resource": json_values},
)
params = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {},
        optional={
            "protocolVersion": st.integers(-5, 2**40) | texts,
            "sessionId": texts,
            "prompt": st.lists(blocks, max_size=3) | json_values,
            "modeId": st.sampled_from(["code", "plan", "\ud800"]) | texts,
            "_meta": json_values,
        },
    ),
)
messages = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.sampled_from(["2.0", "1.0"]),
        "id": ids,
        "method": st.sampled_from(METHODS) | texts,
        "params": params,
        "result": json_values,
        "error": json_values,
    },
)


def encoded(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode()  # ensure_ascii: surrogates travel as escapes


raw_lines = st.one_of(
    messages.map(encoded),
    st.binary(max_size=60),
    st.integers(1, 120_000).map(lambda n: b"[" * n),
    st.integers(1, 3_000).map(lambda n: b'{"a":' * n),
    st.just(b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1e999}}'),
    st.just(b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":NaN}'),
)


def _refuse(text: str) -> Any:
    raise ValueError(text)


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value


def usable_request_id(line: bytes) -> tuple[bool, Any]:
    """Whether the server owes this line an answer with its id (a request it could read)."""
    try:
        # A line JSON allows but JSON-RPC cannot carry (NaN, 1e999) is a parse error: no id.
        message = json.loads(line, parse_constant=_refuse, parse_float=_finite)
    except (ValueError, RecursionError):
        return False, None
    if not isinstance(message, dict) or "method" not in message or "id" not in message:
        return False, None
    request_id = message["id"]
    usable = isinstance(request_id, str | int) and not isinstance(request_id, bool)
    if isinstance(request_id, str):
        try:
            request_id.encode()
        except UnicodeEncodeError:
            usable = False
    return usable, request_id


async def serve_lines(lines: list[bytes]) -> list[dict[str, Any]]:
    reader = asyncio.StreamReader(limit=50 * 1024 * 1024)
    writer = Collector()
    transport = LineTransport(reader, writer)
    agent = IpuaroAcpAgent()
    server = asyncio.ensure_future(run_agent(cast(Agent, agent), transport))
    for line in lines:
        reader.feed_data(line.replace(b"\n", b" ") + b"\n")
    final = (
        b'{"jsonrpc":"2.0","id":"final-check","method":"initialize","params":{"protocolVersion":1}}'
    )
    reader.feed_data(final + b"\n")

    def answers() -> list[dict[str, Any]]:
        return [json.loads(raw) for raw in writer.lines]

    async def until_final() -> None:
        while not any(a.get("id") == "final-check" for a in answers()):
            writer.changed.clear()
            await writer.changed.wait()

    await asyncio.wait_for(until_final(), HANG_GUARD_S)
    reader.feed_eof()
    await asyncio.wait_for(server, HANG_GUARD_S)
    await agent.aclose()
    return answers()


@settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None
)
@given(st.lists(raw_lines, min_size=1, max_size=6))
def test_fuzzed_lines_are_answered_and_never_crash(lines: list[bytes]) -> None:
    handler = Tracebacks()
    root = logging.getLogger()
    root.addHandler(handler)
    tracemalloc.start()
    try:
        answers = asyncio.run(serve_lines(lines))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        root.removeHandler(handler)
    assert not handler.records, [r.getMessage() for r in handler.records]
    assert peak < MEMORY_BOUND, f"peak {peak:,} bytes"
    assert all(a.get("jsonrpc") == "2.0" for a in answers)
    answered: dict[str, int] = {}
    for answer in answers:
        key = json.dumps(answer.get("id"))
        answered[key] = answered.get(key, 0) + 1
    for line in lines:
        owed, request_id = usable_request_id(line)
        if owed:
            assert answered.get(json.dumps(request_id), 0) >= 1, (line[:200], answers)
