"""Opening a workspace's services, connecting them to its event bus, closing them, and
swapping the model binding (``Workspace`` delegates here).

Every function receives what it uses — the project root, the configuration, the options, the
decision handlers, the event bus's ``emit``, the task runner — never the workspace itself.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ipuaro.core.errors import OpenError, WorkspaceError
from ipuaro.core.events import ExtensionWarning, ModelChanged
from ipuaro.core.extending import ExtensionHost
from ipuaro.core.reports import ModelSwitch, WindowInfo

if TYPE_CHECKING:
    from ipuaro.config.schema import Config
    from ipuaro.core.asking import DecisionHandlers
    from ipuaro.core.options import WorkspaceOptions
    from ipuaro.core.ports import Emit
    from ipuaro.core.tasks import TaskRunner
    from ipuaro.core.wiring import AppContext
    from ipuaro.memory import PatchReport


async def build(
    root: Path,
    config: Config,
    options: WorkspaceOptions,
    asking: DecisionHandlers,
    extensions: ExtensionHost | None,
) -> AppContext:
    """The services and the model binding for ``config``; :class:`OpenError` names what
    failed."""
    from ipuaro.agent.sessions.keeper import SessionNotFound
    from ipuaro.core.wiring import build_app
    from ipuaro.llm.errors import ModelError
    from ipuaro.store.protocol import StoreError

    try:
        return await build_app(
            root,
            config,
            handlers=asking,
            confirm=None if options.unattended else asking.confirm,
            auto_apply=options.auto_apply,
            session_id=options.session_id,
            new_session=options.new_session,
            allow_commands=options.allow_commands,
            client=options.client,
            environ=options.environ,
            prompt=options.prompt,
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


def connect(
    ctx: AppContext,
    emit: Emit,
    remember: Callable[[object, str], Awaitable[PatchReport]],
    tasks: TaskRunner,
) -> Callable[[], None]:
    """Route the services' events, ``remember`` and MCP notices to the workspace (``emit``,
    ``remember``), compactions to its task runner; returns how to disconnect the agent's
    events."""
    from ipuaro.core.compacting import TaskCompactor

    if isinstance(ctx.agent.compactor, TaskCompactor):
        ctx.agent.compactor.tasks = tasks
    ctx.provide(remember=remember)  # `remember` asks through it
    if ctx.mcp is not None:
        ctx.mcp.notify = lambda message: emit(ExtensionWarning(message, "mcp"))
    return ctx.agent.subscribe(emit)


async def close(ctx: AppContext, index_running: bool) -> None:
    """End the persistent shell, stop the language servers, close the model client and the
    store (the store stays open while a background index thread still writes through it: the
    process is ending)."""
    await ctx.close_shell()
    if index_running:
        if ctx.tool_ctx.language_servers is not None:  # no server outlives the session
            await asyncio.to_thread(ctx.tool_ctx.language_servers.close)
        await ctx.client.aclose()
    else:
        await ctx.aclose()


async def list_models(ctx: AppContext) -> list[str]:
    """The model server's models (``WorkspaceError`` when it cannot say)."""
    from ipuaro.llm.errors import ModelError

    try:
        return sorted(await ctx.client.list_models())
    except ModelError as error:
        raise WorkspaceError(f"cannot list the server's models: {error.message}") from None


async def switch_model(
    ctx: AppContext, config: Config, name: str, tasks: TaskRunner, emit: Emit
) -> tuple[ModelSwitch, Config]:
    """Bind model ``name`` alone: the project services (store, running index, tools, the
    persistent shell, MCP servers) and the session stay as they are. A model the server does
    not have is refused; a failing switch keeps the old model and says why. While a task
    runs, the switch waits for it to end (the running request keeps its model) and swaps the
    binding at a moment none runs. Returns the outcome and the configuration now in force."""
    from ipuaro.core.wiring import bind_model
    from ipuaro.llm.errors import ModelError

    try:
        available = await list_models(ctx)
    except WorkspaceError as listing:
        return ModelSwitch(False, ctx.client.model, error=str(listing)), config
    if name not in available and f"{name}:latest" not in available:
        shown = ", ".join(available[:10]) or "none"
        error = f"the server has no model {name!r}; it has: {shown}"
        return ModelSwitch(False, ctx.client.model, error=error), config
    waited = await tasks.until_idle()  # a running request keeps its model
    llm = config.llm.model_copy(update={"model": name})
    new_config = config.model_copy(update={"llm": llm})
    try:
        binding = await bind_model(new_config, ctx.session)
    except ModelError as error:
        failed = f"cannot switch to {name}: {error.message}"
        return ModelSwitch(False, ctx.client.model, error=failed), config
    waited = await tasks.until_idle() or waited  # one may have started while the server spoke
    old = ctx.rebind(binding, new_config)  # no await since the runner was idle
    ctx.warnings.extend(binding.warnings)
    await old.aclose()
    window = WindowInfo(ctx.window.tokens, ctx.window.source)
    emit(ModelChanged(ctx.client.model, window.tokens, window.source))
    doing = waited.doing if waited is not None else None
    return ModelSwitch(True, ctx.client.model, window, waited_for=doing), new_config
