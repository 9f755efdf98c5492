"""``ipuaro acp``: ipuaro as an agent for editors speaking the Agent Client Protocol.

Each ACP session is one ipuaro session on the client's working directory (the project). The
server maps requests to the core and the core's events and questions to protocol messages; it
decides nothing itself. Bad input — an unknown method, malformed params, a prompt for a session
that was never opened — is answered with a JSON-RPC error that says what to do.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO, cast

from acp import PROTOCOL_VERSION, RequestError, run_agent, update_agent_message_text
from acp.helpers import update_available_commands
from acp.interfaces import Agent, Client
from acp.schema import (
    AgentCapabilities,
    AudioContentBlock,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    ResourceContentBlock,
    SessionCapabilities,
    SessionListCapabilities,
    SessionMode,
    SessionModeState,
    SetSessionModeResponse,
    TextContentBlock,
    TextResourceContents,
)
from acp.schema import SessionInfo as AcpSessionInfo

from ipuaro import __version__
from ipuaro.acp.channel import open_transport
from ipuaro.acp.commands import available_commands, run_command
from ipuaro.acp.mapping import STOP_REASONS, replay
from ipuaro.acp.session import AcpDecider, AcpSession
from ipuaro.config.loader import ConfigError, load_config
from ipuaro.core.commands import is_command
from ipuaro.core.errors import IndexFailed, OpenError, SessionsUnavailable, WorkspaceBusy
from ipuaro.core.reports import SessionInfo
from ipuaro.core.sessions import SessionArchive
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

MODES = (
    SessionMode(
        id="code",
        name="Code",
        description="Reads, searches, edits and runs commands (edits and unknown commands ask)",
    ),
    SessionMode(
        id="plan",
        name="Plan",
        description="Reads and searches only: proposes a plan, edits nothing, runs nothing",
    ),
)
MODE_IDS = tuple(mode.id for mode in MODES)


def modes(plan_mode: bool) -> SessionModeState:
    return SessionModeState(
        current_mode_id="plan" if plan_mode else "code", available_modes=list(MODES)
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
                session_capabilities=SessionCapabilities(list=SessionListCapabilities()),
                prompt_capabilities=PromptCapabilities(embedded_context=True),
            ),
            agent_info=Implementation(name="ipuaro", title="ipuaro", version=__version__),
            auth_methods=[],
        )

    async def new_session(
        self, cwd: str, mcp_servers: Any = None, **kwargs: Any
    ) -> NewSessionResponse:
        session = await self._open("session/new", cwd, None)
        return NewSessionResponse(session_id=session.id, modes=modes(session.workspace.plan_mode))

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: Any = None, **kwargs: Any
    ) -> LoadSessionResponse:
        if session_id in self.sessions:
            await self._close(session_id, "session/load")
        session = await self._open("session/load", cwd, session_id)
        workspace = session.workspace
        history, names = workspace.history(), workspace.tool_names()
        for update in replay(history, session.root, names, workspace.describe_call):
            session.outbox.put(update)
        await session.outbox.flush()
        return LoadSessionResponse(modes=modes(workspace.plan_mode))

    async def set_session_mode(
        self, session_id: str, mode_id: str, **kwargs: Any
    ) -> SetSessionModeResponse:
        session = self._session("session/set_mode", session_id)
        if mode_id not in MODE_IDS:
            raise RequestError(
                INVALID_PARAMS,
                f"session/set_mode: no mode {mode_id!r}; the modes are {', '.join(MODE_IDS)}",
            )
        if session.workspace.busy:
            raise RequestError(
                INVALID_REQUEST,
                "session/set_mode: the session is answering a prompt; change the mode after it",
            )
        try:
            session.workspace.set_plan_mode(mode_id == "plan")
        except WorkspaceBusy as busy:  # a prompt started after the check above
            raise RequestError(INVALID_REQUEST, f"session/set_mode: {busy}") from None
        return SetSessionModeResponse()

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        """The stored sessions of the project at ``cwd``, newest first (ipuaro keeps sessions
        per project, so ``cwd`` is required)."""
        if cwd is None or not Path(cwd).is_absolute() or not Path(cwd).is_dir():
            raise RequestError(
                INVALID_PARAMS,
                "session/list: give cwd, the absolute path of the project folder "
                "(ipuaro keeps sessions per project)",
            )
        root = Path(cwd).resolve()

        def read() -> list[SessionInfo]:
            config = load_config(root, self.overrides, config_file=self.config_file)
            with SessionArchive.opened(root, config) as archive:
                return archive.sessions()

        try:
            stored = await asyncio.to_thread(read)
        except (ConfigError, SessionsUnavailable) as error:
            raise RequestError(SERVER_ERROR, f"session/list: {error}") from None
        return ListSessionsResponse(
            sessions=[
                AcpSessionInfo(
                    session_id=info.id,
                    cwd=str(root),
                    title=info.title,
                    updated_at=datetime.fromtimestamp(info.last_activity_at, UTC).isoformat(),
                )
                for info in sorted(stored, key=lambda i: i.last_activity_at, reverse=True)
            ]
        )

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
        if is_command(text):
            outcome = await run_command(session.workspace, text)
            if outcome.text:
                session.outbox.put(update_agent_message_text(outcome.text))
                await session.outbox.flush()
            if outcome.prompt is None:
                return PromptResponse(stop_reason="end_turn")
            text = outcome.prompt
        try:
            end = await session.prompt(text)
        except WorkspaceBusy as busy:  # two prompts raced past the check above
            raise RequestError(INVALID_REQUEST, f"session/prompt: {busy}") from None
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
            raise RequestError(
                SERVER_ERROR,
                f"{method}: the project has more files than limits.maxFilesWarning and indexing "
                "them was not allowed; open a subfolder, add project.ignorePatterns or raise "
                "limits.maxFilesWarning",
            )
        line = report.line()
        session.outbox.put(update_agent_message_text(f"{line[:1].upper()}{line[1:]}.\n"))
        for warning in workspace.warnings:  # said once, as the TUI and headless runs say them
            session.outbox.put(update_agent_message_text(f"Warning: {warning}\n"))
        session.outbox.put(update_available_commands(available_commands(workspace)))
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

    def cancel_all(self) -> None:
        """The client is gone: every running prompt ends (with stop reason cancelled)."""
        for session in self.sessions.values():
            session.cancel()

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
    transport.on_eof = agent.cancel_all
    try:
        # The SDK routes each method by attribute: the ones ipuaro does not offer
        # (authentication, forks, config options) answer "method not found".
        await run_agent(cast(Agent, agent), transport)
    finally:
        await agent.aclose()
