"""One running MCP server: started over stdio or streamable HTTP with the official SDK's
``Client``, held open by a task of its own, called from any task.

The SDK's transports are anyio task groups that must be entered and left in one task, so each
server gets a runner task that opens the client, lists the tools, reports ready and then waits
to be told to stop. Failures come in two kinds: :class:`ServerLost` (the process died, the
connection closed, or a request outlived its timeout: the server is of no more use this session)
and :class:`ServerRefused` (the server answered with an error: the call was wrong, the server
is fine).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import tempfile
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, TypeVar

import mcp_types
from mcp import Client, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from ipuaro.config.schema import McpServerConfig, SandboxConfig
from ipuaro.domain.errors import IpuaroError
from ipuaro.extensions.mcp.environment import server_environment, server_headers
from ipuaro.extensions.process import missing_program
from ipuaro.security.sandboxing.sandbox import SandboxProfile, sandboxed_argv
from ipuaro.security.sandboxing.supervisor import supervised_argv

log = logging.getLogger(__name__)
_T = TypeVar("_T")

CLOSE_TIMEOUT_S = 8.0
"""Longest wait for a server to shut down (the SDK's own escalation takes up to ~6 s)."""
_LOST_CODES = frozenset({mcp_types.CONNECTION_CLOSED, mcp_types.REQUEST_TIMEOUT})
_STDERR_TAIL = 400


class ServerLost(IpuaroError):
    """The server is gone or hung; ``str()`` says what happened, for the user and the model."""


class ServerRefused(IpuaroError):
    """The server answered with an error (unknown tool, bad arguments)."""


@dataclass(frozen=True)
class ServerTool:
    """A tool as the server lists it."""

    name: str
    description: str
    input_schema: dict[str, Any]


@dataclass(frozen=True)
class Listing:
    tools: tuple[ServerTool, ...]
    has_resources: bool


class ServerConnection:
    """Start with :meth:`start`; :meth:`call_tool` / :meth:`read_resource` from any task; end
    with :meth:`close` (idempotent)."""

    def __init__(
        self,
        name: str,
        config: McpServerConfig,
        root: Path,
        environ: Mapping[str, str],
        sandbox: SandboxConfig | None = None,
    ) -> None:
        self.name = name
        self.config = config
        self.root = root
        self.environ = environ
        self.sandbox = sandbox
        self._client: Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._stderr: IO[str] | None = None

    async def start(self) -> Listing:
        """Connect, list tools (every page) and say whether it has resources. Raises
        :class:`ServerLost` when it fails or does not answer within ``startupTimeout``."""
        if self.config.command is not None and not self._cwd().is_dir():
            raise ServerLost(
                f"its working directory {self._cwd()} does not exist (mcp.servers.{self.name}.cwd)"
            )
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[Listing] = loop.create_future()
        self._task = asyncio.create_task(self._run(ready), name=f"mcp server {self.name}")
        try:
            return await asyncio.wait_for(asyncio.shield(ready), self.config.startup_timeout)
        except TimeoutError:
            await self.close()
            raise ServerLost(
                f"did not answer within {self.config.startup_timeout:g} s of starting "
                f"(mcp.servers.{self.name}.startupTimeout)"
            ) from None
        except ServerLost:
            await self.close()
            raise

    async def _run(self, ready: asyncio.Future[Listing]) -> None:
        try:
            transport = self._transport()
            async with Client(transport, read_timeout_seconds=self.config.timeout) as client:
                listing = await self._list(client)
                self._client = client  # from now on close() winds it down politely
                if not ready.done():
                    ready.set_result(listing)
                await self._stop.wait()
        except asyncio.CancelledError:
            if not ready.done():
                ready.set_exception(ServerLost("stopped while starting"))
            raise
        except Exception as error:  # the SDK raises anything from a failed spawn to HTTP
            log.debug("MCP server %s ended", self.name, exc_info=True)
            if not ready.done():
                ready.set_exception(ServerLost(self._explain(error)))
        finally:
            self._client = None

    def _transport(self) -> Any:
        config = self.config
        if config.url is not None:
            import httpx2

            http = httpx2.AsyncClient(
                headers=server_headers(config, self.environ),
                timeout=httpx2.Timeout(config.startup_timeout, read=config.timeout),
            )
            return _owning_http(config.url, http)
        assert config.command is not None
        cwd = self._cwd()
        # Kept open for the server's life (closed in close()): its last words explain a crash.
        self._stderr = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115
        argv = [config.command, *config.args]
        env = server_environment(config, self.environ)
        if confined(config):
            profile = SandboxProfile.for_project(self.root, self.sandbox, env=self.environ)
            argv, env = sandboxed_argv(profile, argv), profile.environment(env)
        if missing_program(argv[0], cwd, env.get("PATH")) is not None:
            raise FileNotFoundError(2, "no such program", config.command)  # said before wrapping
        argv = supervised_argv(argv)  # the server's own children end with it, even setsid ones
        params = StdioServerParameters(command=argv[0], args=argv[1:], env=env, cwd=str(cwd))
        return stdio_client(params, errlog=self._stderr)

    def _cwd(self) -> Path:
        return self.root / self.config.cwd if self.config.cwd else self.root

    async def _list(self, client: Client) -> Listing:
        tools: list[ServerTool] = []
        cursor: str | None = None
        for _ in range(100):  # a server that pages forever must not hang the start
            page = await client.list_tools(cursor=cursor)
            tools.extend(
                ServerTool(t.name, t.description or t.title or "", dict(t.input_schema))
                for t in page.tools
            )
            cursor = page.next_cursor
            if cursor is None:
                break
        return Listing(tuple(tools), await self._offers_resources(client))

    async def _offers_resources(self, client: Client) -> bool:
        """Whether the server lists any resource (servers built with the SDK declare the
        capability with none to offer: ``mcp_read_resource`` would be a useless tool)."""
        if client.server_capabilities.resources is None:
            return False
        try:
            page = await client.list_resources()
        except MCPError:
            return False
        return bool(page.resources)

    # --- requests ---------------------------------------------------------------------------

    async def call_tool(self, tool: str, arguments: dict[str, Any]) -> mcp_types.CallToolResult:
        client = self._live()
        return await self._request(client.call_tool(tool, arguments))

    async def list_resources(self) -> list[mcp_types.Resource]:
        client = self._live()
        result = await self._request(client.list_resources())
        return list(result.resources)

    async def read_resource(self, uri: str) -> mcp_types.ReadResourceResult:
        client = self._live()
        return await self._request(client.read_resource(uri))

    def _live(self) -> Client:
        if self._client is None or self._task is None or self._task.done():
            raise ServerLost(self._explain(None))
        return self._client

    async def _request(self, request: Awaitable[_T]) -> _T:
        try:
            # The SDK's own read timeout answers first; this one catches a transport that hangs.
            return await asyncio.wait_for(request, self.config.timeout + 5)
        except TimeoutError:
            raise ServerLost(self._timed_out()) from None
        except MCPError as error:
            if error.code == mcp_types.REQUEST_TIMEOUT:
                raise ServerLost(self._timed_out()) from None
            if error.code in _LOST_CODES:
                raise ServerLost(self._explain(error)) from None
            raise ServerRefused(error.error.message) from None
        except (OSError, RuntimeError) as error:
            raise ServerLost(self._explain(error)) from None
        except Exception as error:  # httpx2 transport errors and the like
            if type(error).__module__.startswith(("httpx", "anyio")):
                raise ServerLost(self._explain(error)) from None
            raise

    def _timed_out(self) -> str:
        return f"did not answer within {self.config.timeout:g} s (mcp.servers.{self.name}.timeout)"

    def _explain(self, error: BaseException | None) -> str:
        """What went wrong, with the last words the server wrote to stderr."""
        if isinstance(error, FileNotFoundError):
            text = f"cannot start {self.config.command!r}: no such program (is it installed?)"
        elif isinstance(error, MCPError) and error.code == mcp_types.CONNECTION_CLOSED:
            text = "the connection closed (the server exited)"
        elif error is None:
            text = "the server is not running"
        else:
            text = _first_line(error)
        tail = self._stderr_tail()
        return f"{text}; its last output: {tail}" if tail else text

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        with contextlib.suppress(OSError, ValueError):
            self._stderr.flush()
            self._stderr.seek(0)
            text = self._stderr.read()
            lines = [line.strip() for line in text.splitlines() if line.strip()]
            return lines[-1][-_STDERR_TAIL:] if lines else ""
        return ""

    async def close(self) -> None:
        """Stop the server (stdio: close its stdin, then terminate its process group)."""
        task, self._task = self._task, None
        self._stop.set()
        if task is not None and not task.done() and self._client is None:
            task.cancel()  # stuck starting: nothing to wind down politely
        if task is not None and not task.done():
            try:
                await asyncio.wait_for(asyncio.shield(task), CLOSE_TIMEOUT_S)
            except (TimeoutError, asyncio.CancelledError):
                task.cancel()
                with contextlib.suppress(BaseException):
                    await asyncio.wait_for(task, CLOSE_TIMEOUT_S)
            except BaseException:
                log.debug("MCP server %s did not close cleanly", self.name, exc_info=True)
        if self._stderr is not None:
            with contextlib.suppress(OSError):
                self._stderr.close()
            self._stderr = None


def _first_line(error: BaseException) -> str:
    if isinstance(error, BaseExceptionGroup):
        return _first_line(error.exceptions[0])
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__


@contextlib.asynccontextmanager
async def _owning_http(url: str, http: Any) -> Any:
    async with http, streamable_http_client(url, http_client=http) as streams:
        yield streams


def confined(config: McpServerConfig) -> bool:
    """Whether a stdio server runs in the sandbox: always when the project declared or changed
    it (even a user's ``sandbox: false`` server whose args the project edited), else as the
    user's ``sandbox`` says (default off)."""
    return config.declared_in == "project" or bool(config.sandbox)
