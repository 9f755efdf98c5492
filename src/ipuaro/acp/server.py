"""``ipuaro acp``: ipuaro as an agent for editors speaking the Agent Client Protocol.

Each ACP session is one ipuaro session on the client's working directory (the project). The
server maps requests to the core and the core's events and questions to protocol messages; it
decides nothing itself. Bad input — an unknown method, malformed params, a prompt for a session
that was never opened — is answered with a JSON-RPC error that says what to do.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO, cast

from acp import PROTOCOL_VERSION, RequestError, run_agent, update_agent_message_text
from acp.interfaces import Agent, Client
from acp.schema import (
    AgentCapabilities,
    AudioContentBlock,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    Implementation,
    InitializeResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)

from ipuaro import __version__
from ipuaro.acp.channel import open_transport
from ipuaro.acp.mapping import STOP_REASONS, replay
from ipuaro.acp.project import ProjectError, index_project, open_project
from ipuaro.acp.session import AcpDecisions, AcpSession

log = logging.getLogger(__name__)

INVALID_PARAMS = -32602
INVALID_REQUEST = -32600
SERVER_ERROR = -32603
PROGRESS_EVERY_S = 0.5
"""Indexing progress goes to the client at most this often."""

PromptBlock = (
    TextContentBlock
    | ImageContentBlock
    | AudioContentBlock
    | ResourceContentBlock
    | EmbeddedResourceContentBlock
)


def prompt_text(blocks: Sequence[PromptBlock]) -> str:
    """The user's message: its text, files the client attached (embedded context) as fenced
    blocks, links as ``@path`` mentions. Images and audio are refused (not advertised)."""
    parts: list[str] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            parts.append(block.text)
        elif isinstance(block, ResourceContentBlock):
            parts.append(f"@{block.uri.removeprefix('file://')}")
        elif isinstance(block, EmbeddedResourceContentBlock):
            resource = block.resource
            if isinstance(resource, TextResourceContents):
                name = resource.uri.removeprefix("file://")
                parts.append(f"{name}:\n```\n{resource.text}\n```")
        else:
            raise RequestError(
                INVALID_PARAMS,
                f"session/prompt: {block.type} content is not supported; send text",
            )
    return "\n\n".join(part for part in parts if part)


class IpuaroAcpAgent:
    """The ACP ``Agent`` side: sessions by id, each a view over one opened project."""

    def __init__(
        self, overrides: Mapping[str, Any] | None = None, config_file: Path | None = None
    ) -> None:
        self.overrides = dict(overrides or {})
        self.config_file = config_file
        self.sessions: dict[str, AcpSession] = {}
        self._conn: Client | None = None

    def on_connect(self, conn: Client) -> None:
        self._conn = conn

    # --- requests -------------------------------------------------------------------------

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: Any = None,
        client_info: Any = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(embedded_context=True),
            ),
            agent_info=Implementation(name="ipuaro", title="ipuaro", version=__version__),
            auth_methods=[],
        )

    async def new_session(
        self, cwd: str, mcp_servers: Any = None, **kwargs: Any
    ) -> NewSessionResponse:
        session = await self._open("session/new", cwd, None)
        return NewSessionResponse(session_id=session.id)

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: Any = None, **kwargs: Any
    ) -> LoadSessionResponse:
        if session_id in self.sessions:
            await self._close(session_id, "session/load")
        session = await self._open("session/load", cwd, session_id)
        for update in replay(session.app.session.history, session.root):
            session.outbox.put(update)
        await session.outbox.flush()
        return LoadSessionResponse()

    async def prompt(
        self, session_id: str, prompt: list[PromptBlock], **kwargs: Any
    ) -> PromptResponse:
        session = self._session("session/prompt", session_id)
        if session.app.agent.busy:
            raise RequestError(
                INVALID_REQUEST,
                f"session/prompt: session {session_id} is still answering the last prompt; "
                "wait for it or send session/cancel",
            )
        text = prompt_text(prompt)
        if not text.strip():
            raise RequestError(INVALID_PARAMS, "session/prompt: the prompt has no text")
        end = await session.prompt(text)
        return PromptResponse(stop_reason=STOP_REASONS[end.reason])

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self.sessions.get(session_id)
        if session is None:
            log.warning("session/cancel for unknown session %s", session_id)
            return
        session.cancel()

    # --- sessions -------------------------------------------------------------------------

    async def _open(self, method: str, cwd: str, session_id: str | None) -> AcpSession:
        assert self._conn is not None, "on_connect runs before any request"
        root = Path(cwd)
        if not root.is_absolute() or not root.is_dir():
            raise RequestError(
                INVALID_PARAMS,
                f"{method}: cwd must be the absolute path of an existing folder, got {cwd!r}",
            )
        decisions = AcpDecisions()
        try:
            app = await open_project(
                root.resolve(),
                handlers=decisions,
                confirm=decisions.confirm,
                session_id=session_id,
                overrides=self.overrides,
                config_file=self.config_file,
            )
        except ProjectError as error:
            code = (
                INVALID_PARAMS
                if session_id is not None and "not found" in str(error)
                else SERVER_ERROR
            )
            raise RequestError(code, f"{method}: {error}") from None
        session = AcpSession(app, self._conn, decisions)
        self.sessions[session.id] = session
        try:
            await self._index(session)
        except ProjectError as error:
            await self._close(session.id, method)
            raise RequestError(SERVER_ERROR, f"{method}: {error}") from None
        return session

    async def _index(self, session: AcpSession) -> None:
        """Index the project, telling the client how far it got (as agent message chunks)."""
        loop = asyncio.get_running_loop()
        name = session.root.name
        last = 0.0

        def progress(done: int, total: int) -> None:
            nonlocal last
            now = time.monotonic()
            if done < total and now - last < PROGRESS_EVERY_S:
                return
            last = now
            line = f"Indexing {name}: {done:,}/{total:,} files\n"
            loop.call_soon_threadsafe(session.outbox.put, update_agent_message_text(line))

        summary = await index_project(session.app, progress)
        session.outbox.put(update_agent_message_text(summary + "\n"))
        await session.outbox.flush()

    def _session(self, method: str, session_id: str) -> AcpSession:
        session = self.sessions.get(session_id)
        if session is None:
            raise RequestError(
                INVALID_PARAMS,
                f"{method}: no open session {session_id!r}; open one with session/new "
                "(or session/load for a stored one) first",
            )
        return session

    async def _close(self, session_id: str, method: str) -> None:
        session = self.sessions.pop(session_id)
        if session.app.agent.busy:
            self.sessions[session_id] = session
            raise RequestError(
                INVALID_REQUEST, f"{method}: session {session_id} is answering a prompt"
            )
        await session.close()

    async def aclose(self) -> None:
        for session_id in list(self.sessions):
            session = self.sessions.pop(session_id)
            session.cancel()
            await session.close()


async def serve(
    out: BinaryIO, overrides: Mapping[str, Any] | None = None, config_file: Path | None = None
) -> None:
    """Answer ACP on stdin / ``out`` until the client closes stdin."""
    transport = await open_transport(out)
    agent = IpuaroAcpAgent(overrides, config_file)
    try:
        # The SDK routes each method by attribute: the ones ipuaro does not offer (modes,
        # authentication, forks) answer "method not found", so a partial Agent is what it wants.
        await run_agent(cast(Agent, agent), transport)
    finally:
        await agent.aclose()
