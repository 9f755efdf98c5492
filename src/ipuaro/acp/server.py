"""``ipuaro acp``: ipuaro as an agent for editors speaking the Agent Client Protocol.

Each ACP session is one ipuaro session on the client's working directory (the project). The
server maps requests to the core and the core's events and questions to protocol messages; it
decides nothing itself. Bad input — an unknown method, malformed params, a prompt for a session
that was never opened — is answered with a JSON-RPC error that says what to do.
"""

from __future__ import annotations

import logging
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
from ipuaro.acp.session import AcpDecider, AcpSession
from ipuaro.config.loader import ConfigError, load_config
from ipuaro.core.errors import IndexFailed, OpenError
from ipuaro.core.workspace import Workspace, WorkspaceOptions

log = logging.getLogger(__name__)

INVALID_PARAMS = -32602
INVALID_REQUEST = -32600
SERVER_ERROR = -32603

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
        workspace = session.workspace
        for update in replay(workspace.history(), session.root, workspace.tool_names()):
            session.outbox.put(update)
        await session.outbox.flush()
        return LoadSessionResponse()

    async def prompt(
        self, session_id: str, prompt: list[PromptBlock], **kwargs: Any
    ) -> PromptResponse:
        session = self._session("session/prompt", session_id)
        if session.workspace.busy:
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
        """Open ``cwd`` as a project on a new (or the stored) session, then index it."""
        assert self._conn is not None, "on_connect runs before any request"
        root = Path(cwd)
        if not root.is_absolute() or not root.is_dir():
            raise RequestError(
                INVALID_PARAMS,
                f"{method}: cwd must be the absolute path of an existing folder, got {cwd!r}",
            )
        decider = AcpDecider()
        try:
            config = load_config(root, self.overrides, config_file=self.config_file)
            workspace = await Workspace.open(
                root,
                config,
                decider,
                WorkspaceOptions(session_id=session_id, new_session=session_id is None),
            )
        except ConfigError as error:
            raise RequestError(SERVER_ERROR, f"{method}: {error}") from None
        except OpenError as error:
            code = INVALID_PARAMS if error.kind == "session" else SERVER_ERROR
            raise RequestError(code, f"{method}: {error}") from None
        session = AcpSession(workspace, self._conn, decider)
        self.sessions[session.id] = session
        try:
            report = (
                await workspace.first_index()
                if workspace.needs_first_index()
                else await workspace.reindex()
            )
        except IndexFailed as error:
            await self._close(session.id, method)
            raise RequestError(SERVER_ERROR, f"{method}: indexing failed: {error}") from None
        if report is None:
            await self._close(session.id, method)
            raise RequestError(SERVER_ERROR, f"{method}: indexing was declined; nothing opened")
        session.outbox.put(update_agent_message_text(report.line().capitalize() + ".\n"))
        await session.outbox.flush()
        workspace.start_watching()
        return session

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
        if session.workspace.busy:
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
