"""Wiring: config → store, index, model client, tools, context, sessions, agent.

The only module that knows every concrete part; the TUI and the headless runner both start here
(``build_app``) and talk to the result through the agent's events and handlers.

What :func:`build_app` opens falls in two parts with two lifetimes:

- the **project services** — store, indexer, tool registry, shell host, MCP manager, tracer,
  sessions — opened once per workspace and closed once (:meth:`AppContext.aclose`);
- the **model binding** (:class:`ModelBinding`: client, window, model info, tool format), the
  only part ``/model`` replaces (:func:`bind_model`, then :meth:`AppContext.rebind`): the
  index keeps running, the persistent shell keeps its directory and variables.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ipuaro.agent.context.budget import ContextBudget
from ipuaro.agent.context.manager import ContextManager
from ipuaro.agent.context.prompt import resolve_tool_format
from ipuaro.agent.events import AgentHandlers
from ipuaro.agent.run.dispatch import ToolHooks
from ipuaro.agent.run.loop import Agent
from ipuaro.agent.sessions.keeper import SessionKeeper
from ipuaro.config.schema import Config
from ipuaro.core.compacting import TaskCompactor
from ipuaro.domain import Session
from ipuaro.domain.edits import ConfirmCallback
from ipuaro.llm.errors import ModelError
from ipuaro.llm.formats import ToolFormat
from ipuaro.llm.protocol import ContextWindow, ModelClient, ModelInfo
from ipuaro.security.policy.grants import Grants
from ipuaro.store.protocol import Store
from ipuaro.tools.base import SessionScope, Tool, ToolContext, ToolServices

if TYPE_CHECKING:
    from ipuaro.edits.undo import UndoManager
    from ipuaro.extensions.mcp import McpManager
    from ipuaro.index.lsp import LanguageServers
    from ipuaro.index.pipeline.indexer import Indexer
    from ipuaro.tools.registry import ToolRegistry
    from ipuaro.trace.recorder import TraceRecorder


@dataclass(frozen=True)
class ModelBinding:
    """The model a workspace talks to: what ``/model`` swaps, and nothing else."""

    client: ModelClient
    window: ContextWindow
    model_info: ModelInfo | None
    tool_format: ToolFormat
    warnings: tuple[str, ...] = ()


async def bind_model(
    config: Config,
    session: Session,
    client: ModelClient | None = None,
    *,
    pinned_window: int | Literal["session"] | None = "session",
) -> ModelBinding:
    """A client for ``config.llm`` (or ``client``), its window, capabilities and tool format.
    The window stays pinned for a session that already talked to a model. Raises
    ``ModelError`` (the server cannot tell the window, or has no such model); the client it
    made is closed then."""
    from ipuaro.llm.factory import create_client

    if client is None:
        pinned = _pinned_window(session) if pinned_window == "session" else pinned_window
        client = create_client(config.llm, context_window=pinned)
    try:
        warnings: list[str] = []
        window = await client.context_window()
        if window.warning:
            warnings.append(window.warning)
        info: ModelInfo | None
        try:
            info = await client.model_info()
        except ModelError as error:
            if error.kind == "model_not_found":
                raise  # a resumed session pins the window, so this is the first ask: stop here
            info = None
            warnings.append(f"model capabilities unknown ({error.message}); tools offered as text")
    except BaseException:
        await client.aclose()
        raise
    tool_format = resolve_tool_format(config.llm.tool_format, info)
    if info is not None and config.llm.tool_format in ("auto", "native"):
        warnings.extend(info.notes)  # e.g. a server that drops tools: text calls instead
    return ModelBinding(client, window, info, tool_format, tuple(warnings))


@dataclass
class AppContext:
    root: Path
    config: Config
    store: Store
    client: ModelClient
    registry: ToolRegistry
    indexer: Indexer
    agent: Agent
    sessions: SessionKeeper
    window: ContextWindow
    model_info: ModelInfo | None
    tracer: TraceRecorder | None = None
    warnings: list[str] = field(default_factory=list)
    mcp: McpManager | None = None
    """The MCP servers of ``mcp.servers`` (None when none is declared)."""

    _user_cancel: asyncio.Event | None = field(default=None, init=False, repr=False)

    @property
    def session(self) -> Session:
        return self.agent.session

    @property
    def tool_ctx(self) -> ToolContext:
        """The tools' context of the current session (the agent's; a per-call copy is made
        for each call: :meth:`ToolContext.for_call`)."""
        return self.agent.tool_ctx

    @property
    def grants(self) -> Grants:
        """What the user allowed for the rest of the current session."""
        return self.agent.tool_ctx.grants

    def provide(self, **services: Any) -> None:
        """Add services that exist only once the workspace does (its memory proposer): the
        agent's context is replaced, never written field by field."""
        self.agent.tool_ctx = self.agent.tool_ctx.replace(**services)

    def user_call(self, name: str) -> ToolContext:
        """The context of a call the user runs himself (``!command``), with a cancel event of
        its own that :meth:`cancel_user_call` sets."""
        self._user_cancel = asyncio.Event()
        return self.tool_ctx.for_call(f"user-{name}", cancel=self._user_cancel)

    def cancel_user_call(self) -> None:
        if self._user_cancel is not None:
            self._user_cancel.set()

    def undo_manager(self) -> UndoManager:
        """Undo/redo for the current session (sessions own their stacks)."""
        from ipuaro.edits.undo import UndoManager

        return UndoManager(
            self.store,
            self.agent.session.id,
            self.root,
            self.tool_ctx.reindex,
            self.config.undo.stack_size,
        )

    def rebind(self, binding: ModelBinding, config: Config) -> ModelClient:
        """Talk to ``binding``'s model from the next request on; every project service (store,
        index, tools, shell, MCP servers, session) stays as it is. Returns the old client for
        the caller to close. Only while no request runs (the task runner sees to it)."""
        from ipuaro.edits.planner import LlmEditPlanner

        old = self.client
        agent = self.agent
        self.config = config
        agent.tool_ctx = agent.tool_ctx.replace(
            config=config, planner=LlmEditPlanner(binding.client)
        )
        self.client, self.window, self.model_info = (
            binding.client,
            binding.window,
            binding.model_info,
        )
        agent.client = binding.client
        agent.compactor.client = binding.client
        context = agent.context
        context.budget = ContextBudget.from_config(config.context, binding.window.tokens)
        context.meter.window = binding.window.tokens
        agent.tool_format = binding.tool_format
        agent.use_tools(agent.tools)  # the fixed prompt part follows the tool format
        session = agent.session
        session.model = binding.client.model
        if self.tracer is not None:
            self.tracer.on_log_event(
                "MODEL_CHANGED",
                {"model": binding.client.model, "numCtx": binding.window.tokens},
            )
        return old

    async def aclose(self) -> None:
        await self.close_shell()
        if self.tool_ctx.language_servers is not None:
            await asyncio.to_thread(self.tool_ctx.language_servers.close)
        if self.mcp is not None:
            await self.mcp.aclose()
        await self.client.aclose()
        self.store.close()

    async def close_shell(self) -> None:
        """End the persistent shell and all it runs (the session's ``run_command`` state)."""
        if self.tool_ctx.shell is not None:
            await self.tool_ctx.shell.aclose()


def _pinned_window(session: Session) -> int | None:
    """A session that already talked to the model keeps its window (``num_ctx`` is fixed per
    session: changing it makes Ollama reload the model and invalidates the token figures)."""
    return session.context.tokens_limit if session.history else None


async def build_app(
    root: Path,
    config: Config,
    *,
    handlers: AgentHandlers,
    confirm: ConfirmCallback | None,
    auto_apply: bool = False,
    session_id: str | None = None,
    new_session: bool = False,
    allow_commands: bool = False,
    client: ModelClient | None = None,
    environ: Mapping[str, str] | None = None,
    prompt: str | None = None,
    extra_tools: Sequence[Tool] = (),
    tool_hooks: ToolHooks | None = None,
    project_trusted: bool = False,
) -> AppContext:
    """Open everything for ``root`` (``prompt``: the request a headless run will send, saved
    into the session first; ``extra_tools``: script tools offered with the built-ins;
    ``tool_hooks``: run around every tool call). Raises ``StoreError`` (store unusable),
    ``SessionNotFound`` (unknown ``session_id``) and ``ModelError`` (the model server cannot
    tell its window)."""
    from ipuaro.edits.planner import LlmEditPlanner
    from ipuaro.index.pipeline.indexer import Indexer
    from ipuaro.llm.tokens import estimate_tokens
    from ipuaro.memory import load_memory
    from ipuaro.security.policy.commands import CommandPolicy
    from ipuaro.security.policy.paths import PathPolicy
    from ipuaro.store.factory import open_store
    from ipuaro.tools.catalog import startup_tools
    from ipuaro.tools.registry import ToolRegistry
    from ipuaro.tools.shell_host import ShellHost

    env = os.environ if environ is None else environ
    root = root.resolve()
    store = open_store(config, root)
    binding: ModelBinding | None = None
    try:
        sessions = SessionKeeper(store, config.session)
        if session_id is not None:
            session = sessions.load(session_id)
        else:
            session = sessions.resume_or_create(config.llm.model, new=new_session)
        pinned = _pinned_window(session)  # the held prompt below is no talk with the model yet
        if prompt is not None:  # headless: saved before the first model request, kill or not
            sessions.hold_prompt(session, prompt)
        binding = await bind_model(config, session, client, pinned_window=pinned)
        client = binding.client
        # Redis: AOF off (a restart loses the index and sessions) is said here, once.
        warnings: list[str] = [*getattr(store, "notices", []), *sessions.notices]
        warnings.extend(binding.warnings)
        info, window, tool_format = binding.model_info, binding.window, binding.tool_format
        if session.model != client.model:
            session.model = client.model

        indexer = Indexer(root, config, store)
        servers = _language_servers(root, config, store, env)
        if servers is not None:
            warnings.extend(f"language server not used: {p}" for p in servers.problems)

        def reindex(changed: list[str], deleted: list[str]) -> None:
            indexer.update_paths(changed, deleted)
            if servers is not None:
                servers.files_changed(
                    [r for p in [*changed, *deleted] if (r := indexer.relative(p))]
                )

        paths = PathPolicy.from_config(root, config)
        registry = ToolRegistry([*startup_tools(), *extra_tools])
        mcp = _mcp_manager(root, config, env, project_trusted)
        if mcp is not None:  # servers start at the first request, not here
            registry.add_source(mcp)
        services = ToolServices(
            root=root,
            config=config,
            store=store,
            paths=paths,
            commands=CommandPolicy.from_config(root, config),
            reindex=reindex,
            planner=LlmEditPlanner(client),
            shell=ShellHost() if config.commands.persistent_shell else None,
            headless_allow_commands=allow_commands,
            language_servers=servers,
        )
        grants = Grants(auto_apply=auto_apply or config.edit.auto_apply)
        tool_ctx = ToolContext(services, SessionScope(session.id, grants), confirm=confirm)
        budget = ContextBudget.from_config(config.context, window.tokens)
        context = ContextManager(
            store, root, budget, estimate_tokens, memory=lambda: load_memory(root, env)
        )
        warnings.extend(context.instructions.warnings)
        warnings.extend(load_memory(root, env).problems)
        tracer = _tracer(root, config, client, window, budget, registry, tool_format, env)
        agent = Agent(
            client=client,
            tools=registry,
            tool_ctx=tool_ctx,
            context=context,
            compactor=TaskCompactor(
                client,
                context,
                use_model=config.context.compression_method == "llm-summary",
                observer=tracer,
            ),
            sessions=sessions,
            session=session,
            handlers=handlers,
            tool_format=tool_format,
            max_turns=config.llm.max_turns,
            observer=tracer,
        )
        agent.tool_hooks = tool_hooks
        if tracer is not None:
            agent.subscribe(tracer)
        sessions.save(session)
    except BaseException:
        store.close()
        if binding is not None:
            await binding.client.aclose()
        raise
    return AppContext(
        root=root,
        config=config,
        store=store,
        client=client,
        registry=registry,
        indexer=indexer,
        agent=agent,
        sessions=sessions,
        window=window,
        model_info=info,
        tracer=tracer,
        warnings=warnings,
        mcp=mcp,
    )


def _language_servers(
    root: Path, config: Config, store: Store, env: Mapping[str, str]
) -> LanguageServers | None:
    """``index.languageServers`` (user config only): nothing starts until a tool asks."""
    if not config.index.language_servers:
        return None
    from ipuaro.index.lsp import LanguageServers

    return LanguageServers(root, config.index.language_servers, store, environ=env)


def _mcp_manager(
    root: Path, config: Config, env: Mapping[str, str], project_trusted: bool
) -> McpManager | None:
    """The MCP client when servers are declared (``project_trusted``: servers declared in
    ``.ipuaro.json`` may start; the user's always may)."""
    if not config.mcp.servers:
        return None
    from ipuaro.extensions.mcp import McpManager

    return McpManager(
        config.mcp, root, env, project_trusted=project_trusted, sandbox=config.sandbox
    )


def _tracer(
    root: Path,
    config: Config,
    client: ModelClient,
    window: ContextWindow,
    budget: ContextBudget,
    registry: ToolRegistry,
    tool_format: str,
    env: Mapping[str, str],
) -> TraceRecorder | None:
    from ipuaro.trace.recorder import TraceRecorder, raw_enabled, trace_enabled

    if not trace_enabled(env):
        return None
    from ipuaro.store.protocol import SCHEMA_VERSION

    snapshot: dict[str, Any] = config.model_dump(mode="json", by_alias=True)
    return TraceRecorder(
        root,
        config_snapshot=snapshot,
        model=client.model,
        num_ctx=window.tokens,
        budget={
            "window": budget.window,
            "systemTokens": budget.system_tokens,
            "structureTokens": budget.structure_tokens,
            "compactAt": budget.compact_threshold,
            "maxToolResultTokens": budget.max_tool_result_tokens,
        },
        tools=registry.specs(),
        tool_format=tool_format,
        store_schema_version=SCHEMA_VERSION,
        raw=raw_enabled(env),
    )
