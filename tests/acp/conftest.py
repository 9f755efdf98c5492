"""``ipuaro acp`` as a real subprocess, driven by the ACP SDK's own client side.

The project is the agent_app fixture copied to tmp_path (a git repository); the model is the
stub HTTP server (a thread in this process) answering from a script; the data dir is tmp_path's.
The client records every session update and answers permission requests as the test says.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from acp import PROTOCOL_VERSION, spawn_agent_process
from acp.client.connection import ClientSideConnection
from acp.schema import (
    AgentMessageChunk,
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    Implementation,
    PermissionOption,
    RequestPermissionResponse,
    TextContentBlock,
    ToolCallProgress,
    ToolCallStart,
    ToolCallUpdate,
)

from tests.agent.conftest import GIT_ENV, copy_fixture
from tests.stubs.model_server import ModelStubServer

REPO = Path(__file__).resolve().parents[2]
TIMEOUT = 60.0


@dataclass
class PermissionAsked:
    session_id: str
    tool_call: ToolCallUpdate
    options: list[PermissionOption]
    at: float


@dataclass
class RecordingClient:
    """The editor's side: keeps every update, answers permission questions with ``answer``
    (an option id, or None to cancel the question)."""

    answer: str | None = "apply"
    hold: asyncio.Event | None = None
    """When set, a permission question waits for this event (the user has not decided yet)."""
    updates: list[tuple[str, Any, float]] = field(default_factory=list)
    permissions: list[PermissionAsked] = field(default_factory=list)
    on_update: Callable[[Any], None] | None = None

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append((session_id, update, time.monotonic()))
        if self.on_update is not None:
            self.on_update(update)

    async def request_permission(
        self,
        session_id: str,
        tool_call: ToolCallUpdate,
        options: list[PermissionOption],
        **kwargs: Any,
    ) -> RequestPermissionResponse:
        self.permissions.append(PermissionAsked(session_id, tool_call, options, time.monotonic()))
        if self.hold is not None:
            await self.hold.wait()
        if self.answer is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=self.answer)
        )

    def on_connect(self, conn: Any) -> None:
        pass

    # --- reading what came ----------------------------------------------------------------

    def of(self, kind: type) -> list[Any]:
        return [u for _, u, _ in self.updates if isinstance(u, kind)]

    def text(self) -> str:
        return "".join(
            u.content.text
            for u in self.of(AgentMessageChunk)
            if isinstance(u.content, TextContentBlock)
        )

    def of_type_chunks(self) -> list[AgentMessageChunk]:
        return self.of(AgentMessageChunk)

    def tool_starts(self) -> list[ToolCallStart]:
        return self.of(ToolCallStart)

    def tool_updates(self) -> list[ToolCallProgress]:
        return self.of(ToolCallProgress)

    def clear(self) -> None:
        self.updates.clear()
        self.permissions.clear()


def acp_env(tmp_path: Path, server: ModelStubServer) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("IPUARO_")}
    env.update(GIT_ENV)
    env.update(
        {
            "IPUARO_DATA_DIR": str(tmp_path / "data"),
            "IPUARO_CONFIG_DIR": str(tmp_path / "config"),
            "IPUARO_LLM__BASE_URL": server.url,
            "IPUARO_LLM__CONTEXT_WINDOW": "32768",
            "IPUARO_LLM__TIMEOUT": "30",
            "PYTHONPATH": str(REPO),
        }
    )
    return env


ACP_COMMAND = (sys.executable, "-m", "ipuaro", "acp")


@asynccontextmanager
async def acp_agent(
    client: RecordingClient, env: dict[str, str], cwd: Path
) -> AsyncIterator[ClientSideConnection]:
    """``ipuaro acp`` spawned and initialized; stderr is kept in a file for failures."""
    stderr_path = cwd.parent / f"acp-stderr-{time.monotonic_ns()}.log"
    with stderr_path.open("wb") as stderr:
        async with spawn_agent_process(
            client,
            *ACP_COMMAND,
            env=env,
            cwd=cwd,
            transport_kwargs={"stderr": stderr.fileno()},
        ) as (conn, process):
            response = await asyncio.wait_for(
                conn.initialize(
                    protocol_version=PROTOCOL_VERSION,
                    client_capabilities=ClientCapabilities(),
                    client_info=Implementation(name="pytest", version="1"),
                ),
                TIMEOUT,
            )
            assert response.agent_capabilities is not None
            assert response.agent_capabilities.load_session
            yield conn
        assert process.returncode is not None


@pytest.fixture
def model_server() -> Any:
    with ModelStubServer() as server:
        yield server


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    return copy_fixture(tmp_path)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``acpnode`` tests run only when asked for with ``-m acpnode`` (they need node and npm,
    and install Zed's TypeScript SDK on first run)."""
    if "acpnode" in (config.getoption("markexpr", "") or ""):
        return
    skip = pytest.mark.skip(reason="Zed TypeScript client lane: run with -m acpnode")
    for item in items:
        if "acpnode" in item.keywords:
            item.add_marker(skip)
