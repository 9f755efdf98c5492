"""Building a workspace's wiring: opening it, attaching it, closing it, switching its model.

The :class:`~ipuaro.core.workspace.Workspace` methods ``open``, ``aclose``, ``list_models`` and
``switch_model`` delegate here, so the workspace module stays a list of operations.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from ipuaro.core.errors import OpenError, WorkspaceError
from ipuaro.core.events import ExtensionWarning, ModelChanged
from ipuaro.core.extending import ExtensionHost
from ipuaro.core.reports import ModelSwitch

if TYPE_CHECKING:
    from ipuaro.config.schema import Config
    from ipuaro.core.wiring import AppContext
    from ipuaro.core.workspace import Workspace, WorkspaceOptions


async def start(workspace: Workspace) -> None:
    """Open the extensions, the wiring, finish an interrupted apply, start the extensions."""
    host = await ExtensionHost.open(workspace.root, workspace.config, workspace._asking.ask)
    workspace._extensions = host
    attach(workspace, await build(workspace, workspace.config, workspace.options))
    workspace.ctx.warnings.extend(workspace.config.notices)  # keys a project may not set
    from ipuaro.core.plan_apply import finish_interrupted

    workspace.ctx.warnings.extend(await asyncio.to_thread(finish_interrupted, workspace))
    await host.start(workspace, workspace.ctx.warnings, workspace._emit)


async def build(
    workspace: Workspace,
    config: Config,
    options: WorkspaceOptions,
    *,
    session_id: str | None = None,
    auto_apply: bool | None = None,
) -> AppContext:
    """The wiring for ``config``; :class:`OpenError` names what failed."""
    from ipuaro.agent.sessions.keeper import SessionNotFound
    from ipuaro.core.wiring import build_app
    from ipuaro.llm.errors import ModelError
    from ipuaro.store.protocol import StoreError

    extensions = workspace._extensions
    try:
        return await build_app(
            workspace.root,
            config,
            handlers=workspace._asking,
            confirm=None if options.unattended else workspace._asking.confirm,
            auto_apply=options.auto_apply if auto_apply is None else auto_apply,
            session_id=session_id or options.session_id,
            new_session=options.new_session and session_id is None,
            allow_commands=options.allow_commands,
            client=options.client if session_id is None else None,
            environ=options.environ,
            prompt=options.prompt if session_id is None else None,
            extra_tools=extensions.tools if extensions else (),
            tool_hooks=extensions.runner if extensions else None,
            # MCP servers a project declares start once it is trusted: the same answer
            # as its script tools and hooks (the trust question asked on opening).
            project_trusted=options.project_trusted
            or (extensions is not None and extensions.trusted),
        )
    except SessionNotFound as error:
        raise OpenError("session", str(error)) from None
    except StoreError as error:
        raise OpenError("store", str(error)) from None
    except ModelError as error:
        raise OpenError("model", error.message, error.suggestion) from None


def attach(workspace: Workspace, ctx: AppContext) -> None:
    """Make ``ctx`` the workspace's wiring: its events, ``remember`` and MCP notices reach
    the workspace; plan mode carries over."""
    if workspace._unsubscribe_agent is not None:
        workspace._unsubscribe_agent()
    workspace._ctx = ctx
    workspace._unsubscribe_agent = ctx.agent.subscribe(workspace._emit)
    ctx.provide(remember=workspace.propose_memory_patch)  # `remember` asks through it
    if ctx.mcp is not None:
        ctx.mcp.notify = lambda message: workspace._emit(ExtensionWarning(message, "mcp"))
    if workspace._plan_mode:
        ctx.agent.set_plan_mode(True)


async def close(workspace: Workspace) -> None:
    """Stop the watcher, close the model client and the store (the store stays open while
    a background index thread still writes through it: the process is ending)."""
    ctx, workspace._ctx = workspace._ctx, None
    await workspace._index.stop_watching()
    if ctx is None:
        return
    if workspace._unsubscribe_agent is not None:
        workspace._unsubscribe_agent()
        workspace._unsubscribe_agent = None
    await ctx.close_shell()
    if workspace._index.running:
        await ctx.client.aclose()
    else:
        await ctx.aclose()


async def list_models(workspace: Workspace) -> list[str]:
    """The model server's models (``WorkspaceError`` when it cannot say)."""
    from ipuaro.llm.errors import ModelError

    try:
        return sorted(await workspace.ctx.client.list_models())
    except ModelError as error:
        raise WorkspaceError(f"cannot list the server's models: {error.message}") from None


async def switch_model(workspace: Workspace, name: str) -> ModelSwitch:
    """Bind model ``name`` alone: the project services (store, running index, tools, the
    persistent shell, MCP servers) and the session stay as they are. A model the server does
    not have is refused; a failing switch keeps the old model and says why."""
    from ipuaro.core.wiring import bind_model
    from ipuaro.llm.errors import ModelError

    try:
        available = await workspace.list_models()
    except WorkspaceError as listing:
        return ModelSwitch(False, workspace.model, error=str(listing))
    if name not in available and f"{name}:latest" not in available:
        shown = ", ".join(available[:10]) or "none"
        return ModelSwitch(
            False, workspace.model, error=f"the server has no model {name!r}; it has: {shown}"
        )
    workspace._idle("/model")
    ctx = workspace.ctx
    llm = workspace.config.llm.model_copy(update={"model": name})
    config = workspace.config.model_copy(update={"llm": llm})
    try:
        binding = await bind_model(config, ctx.session)
    except ModelError as error:
        return ModelSwitch(
            False, workspace.model, error=f"cannot switch to {name}: {error.message}"
        )
    if workspace.busy:  # a request started while the server answered: it keeps its model
        await binding.client.aclose()
        workspace._idle("/model")
    old = ctx.rebind(binding, config)
    workspace.config = config
    ctx.warnings.extend(binding.warnings)
    await old.aclose()
    window = workspace.window
    workspace._emit(ModelChanged(workspace.model, window.tokens, window.source))
    return ModelSwitch(True, workspace.model, window)
