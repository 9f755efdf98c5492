"""The workspace's extensions: the trust question, script tools and hooks wired into the agent,
custom commands in the slash table, and the shape a custom command gives its request.

Custom commands are rows of the workspace's own command table
(:class:`~ipuaro.core.commands.CommandTable`, never the process-wide rows: two projects in one ACP
process each list their own), so the TUI, headless runs and the ACP server offer them with no
code of their own: the row's operation expands the template and answers with a
:class:`~ipuaro.core.commands.Reply` whose ``prompt`` the front end sends. The shape
(``allowed-tools``, ``mode: plan``) waits, keyed by that prompt, for the ``Workspace.send`` that
carries it.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ipuaro.core.commands import CommandSpec, CommandTable, Reply
from ipuaro.core.decisions import Answer, Question, TrustProject
from ipuaro.core.events import AgentEnd, Event, ExtensionWarning

if TYPE_CHECKING:
    from ipuaro.agent.run.loop import Agent
    from ipuaro.config.schema import Config
    from ipuaro.core.ports import CommandHost
    from ipuaro.extensions import CustomCommand, Extensions, HookRunner
    from ipuaro.tools.base import Tool
    from ipuaro.tools.registry import ToolRegistry


@dataclass(frozen=True)
class _Shape:
    tools: ToolRegistry | None
    plan: bool


class ExtensionHost:
    """One workspace's extensions, from opening to closing."""

    def __init__(
        self, root: Path, loaded: Extensions, runner: HookRunner | None, trusted: bool = False
    ) -> None:
        self.root = root
        self.trusted = trusted
        """The project's own programs (script tools, hooks, MCP servers) may run."""
        self.loaded = loaded
        self.runner = runner
        self.warnings = list(loaded.warnings)
        self._pending: dict[str, _Shape] = {}

    @classmethod
    async def open(
        cls, root: Path, config: Config, ask: Callable[[Question], Awaitable[Answer]]
    ) -> ExtensionHost:
        """Ask about trust when the project declares programs not trusted yet, then load."""
        from ipuaro.config.paths import config_dir
        from ipuaro.extensions import load_extensions
        from ipuaro.extensions.trust import declared_code, project_trusted, remember_trust
        from ipuaro.tools.catalog import startup_tools
        from ipuaro.tools.registry import ToolRegistry

        trusted = project_trusted(root)
        unremembered: str | None = None
        if not trusted:
            answer = await ask(TrustProject.of(str(root), _declared_lines(declared_code(root))))
            if answer.choice == "trust":
                trusted = True
                try:
                    remember_trust(root)
                except OSError as error:
                    unremembered = (
                        f"trusted for this run only: cannot write the trust file ({error})"
                    )
        loaded = load_extensions(
            root,
            config,
            trusted=trusted,
            user_dir=config_dir(),
            taken_names=ToolRegistry(startup_tools()).accepted_names(),
        )
        if unremembered is not None:
            loaded.warnings.append(unremembered)
        return cls(root, loaded, loaded.runner(root, config), trusted)

    @property
    def tools(self) -> list[Tool]:
        return list(self.loaded.tools)

    # --- custom commands ------------------------------------------------------------------

    def register_commands(self, table: CommandTable) -> None:
        """The project's custom commands into its workspace's ``table``."""
        for name, command in self.loaded.commands.items():
            if not table.add(_spec(command)):
                self.warnings.append(
                    f"/{name} from {command.path} is refused: it would shadow the built-in "
                    f"/{name}; rename the file"
                )

    def run_command(self, name: str, args: tuple[str, ...], registry: ToolRegistry) -> Reply:
        """``/name args``: the expanded prompt to send, its shape kept for that send."""
        command = self.loaded.commands.get(name)
        if command is None:
            return Reply(f"/{name} is not a command of this project", "error")
        tools: ToolRegistry | None = None
        if command.allowed_tools is not None:
            from ipuaro.tools.registry import ToolRegistry

            chosen: list[Tool] = []
            for wanted in command.allowed_tools:
                tool = registry.get(wanted)
                if tool is None:
                    known = ", ".join(t.name for t in registry.tools())
                    return Reply(
                        f"{command.path}: allowed-tools names {wanted!r}, which is not a tool; "
                        f"the tools are: {known}",
                        "error",
                    )
                if tool not in chosen:
                    chosen.append(tool)
            tools = ToolRegistry(chosen)
        prompt = command.expand(args)
        self._pending[prompt] = _Shape(tools, command.plan)
        return Reply(prompt=prompt)

    # --- around a request -----------------------------------------------------------------

    async def send(
        self, agent: Agent, text: str, send: Callable[[str], Awaitable[AgentEnd]]
    ) -> AgentEnd:
        """``send(text)`` with the command's shape applied and the prompt hooks around it."""
        if agent.busy:
            return await send(text)  # refused there, as the agent is busy
        shape = self._pending.pop(text, None)
        self._pending.clear()  # a prompt never sent (an error before it) must not linger
        if self.runner is not None:
            await self.runner.fire("user_prompt", {"prompt": text})
        tools, plan = agent.tools, agent.plan_mode
        try:
            if shape is not None and shape.tools is not None:
                agent.use_tools(shape.tools)
            if shape is not None and shape.plan and not plan:
                agent.set_plan_mode(True)
            end = await send(text)
        finally:
            if agent.tools is not tools:
                agent.use_tools(tools)
            if agent.plan_mode != plan:
                agent.set_plan_mode(plan)
        if self.runner is not None:
            payload = {"reason": end.reason, "answer": end.answer, "changes": list(end.changes)}
            await self.runner.fire("agent_end", payload)
        return end

    async def start(
        self,
        table: CommandTable,
        session_id: Callable[[], str],
        model: str,
        warnings: list[str],
        emit: Callable[[Event], None],
    ) -> None:
        """Commands into the workspace's slash ``table``, then the ``session_start`` hooks
        (``session_id`` says the current session when a hook runs): failures said at start
        join ``warnings``, later ones arrive as ``ExtensionWarning`` events."""
        self.register_commands(table)
        warnings.extend(self.warnings)
        if self.runner is not None:
            self.runner.session_id = session_id
            self.runner.report = warnings.append
            await self.runner.fire("session_start", {"model": model})
            self.runner.report = lambda message: emit(ExtensionWarning(message))


def _spec(command: CustomCommand) -> CommandSpec:
    name = command.name

    async def operation(workspace: CommandHost, args: tuple[str, ...]) -> Reply:
        return workspace.custom_command(name, args)

    return CommandSpec(
        name,
        command.usage,
        command.help,
        min_args=0,
        max_args=1000,
        operation=operation,
        free_text=True,
    )


def _declared_lines(declared: dict[str, Any]) -> tuple[str, ...]:
    lines: list[str] = []
    tools = declared.get("extensions.tools")
    if isinstance(tools, dict):
        for name, spec in tools.items():
            lines.append(f"script tool {name}: {_argv(spec)}")
    hooks = declared.get("extensions.hooks")
    if isinstance(hooks, dict):
        for event, entries in hooks.items():
            for entry in entries if isinstance(entries, list) else [entries]:
                lines.append(f"hook {event}: {_argv(entry)}")
    servers = declared.get("mcp.servers")
    if isinstance(servers, dict):
        for name, spec in servers.items():
            lines.append(f"MCP server {name}: {_server(spec)}")
    return tuple(lines)


def _server(spec: Any) -> str:
    if isinstance(spec, dict) and isinstance(spec.get("url"), str):
        return str(spec["url"])
    if isinstance(spec, dict) and isinstance(spec.get("command"), str):
        args = spec.get("args")
        listed = [str(arg) for arg in args] if isinstance(args, list) else []
        return shlex.join([spec["command"], *listed])
    return json.dumps(spec, ensure_ascii=False)[:120]


def _argv(spec: Any) -> str:
    argv = spec.get("argv") if isinstance(spec, dict) else None
    if isinstance(argv, list) and all(isinstance(item, str) for item in argv):
        return shlex.join(argv)
    return json.dumps(spec, ensure_ascii=False)[:120]
