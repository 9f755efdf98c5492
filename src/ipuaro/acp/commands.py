"""Slash commands typed in the editor's prompt box (``/undo``, ``/status``…).

The core's command table says which commands exist; this module is the ACP view's explicit
table from a command's name to the workspace operation that answers it, and turns the result
into text for the agent's message. Commands about the TUI's own screen (``/sessions``: the
editor lists and loads sessions itself) are not offered; commands added later through the
core's registry run through their own operation.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from acp.schema import AvailableCommand, AvailableCommandInput, UnstructuredCommandInput

from ipuaro.core.commands import (
    CommandError,
    CommandSpec,
    Reply,
    all_commands,
    parse_command,
    run_operation,
)
from ipuaro.core.errors import WorkspaceError
from ipuaro.core.workspace import Workspace


@dataclass(frozen=True)
class Outcome:
    text: str
    """What the command says back (the agent's message)."""
    prompt: str | None = None
    """A request to send to the model next (``/eval``'s critique)."""


Handler = Callable[[Workspace, tuple[str, ...]], Awaitable[Outcome]]


async def _help(workspace: Workspace, args: tuple[str, ...]) -> Outcome:
    lines = [f"{spec.usage} — {spec.help}" for spec in offered(workspace)]
    return Outcome("\n".join(lines))


async def _undo(workspace: Workspace, args: tuple[str, ...]) -> Outcome:
    return Outcome((await workspace.undo()).message)


async def _redo(workspace: Workspace, args: tuple[str, ...]) -> Outcome:
    return Outcome((await workspace.redo()).message)


async def _status(workspace: Workspace, args: tuple[str, ...]) -> Outcome:
    rows = (await workspace.status()).rows
    return Outcome("\n".join(f"{label}: {value}" for label, value in rows))


async def _reindex(workspace: Workspace, args: tuple[str, ...]) -> Outcome:
    return Outcome((await workspace.reindex()).line())


async def _clear(workspace: Workspace, args: tuple[str, ...]) -> Outcome:
    workspace.clear_history()
    return Outcome("The conversation starts afresh (the session and its undo history stay).")


async def _eval(workspace: Workspace, args: tuple[str, ...]) -> Outcome:
    evaluation = await workspace.evaluate()
    if evaluation is None:
        return Outcome("There is no answer to check yet.")
    return Outcome(evaluation.evidence() + "\n\n", prompt=evaluation.prompt)


async def _auto_apply(workspace: Workspace, args: tuple[str, ...]) -> Outcome:
    on = not workspace.auto_apply if not args else args[0] == "on"
    workspace.set_auto_apply(on)
    return Outcome(f"auto-apply {'on: edits are applied without asking' if on else 'off'}")


async def _plan(workspace: Workspace, args: tuple[str, ...]) -> Outcome:
    on = not workspace.plan_mode if not args else args[0] == "on"
    workspace.set_plan_mode(on)
    return Outcome(f"plan mode {'on: no edits or commands' if on else 'off'}")


async def _model(workspace: Workspace, args: tuple[str, ...]) -> Outcome:
    if not args:
        window = workspace.window
        return Outcome(f"model {workspace.model} · context window {window.tokens:,} tokens")
    switch = await workspace.switch_model(args[0])
    if not switch.switched:
        return Outcome(f"still {switch.model}: {switch.error}")
    if switch.waited_for is not None:
        return Outcome(f"switched to {switch.model} (after waiting: {switch.waited_for})")
    return Outcome(f"switched to {switch.model}")


HANDLERS: dict[str, Handler] = {
    "help": _help,
    "undo": _undo,
    "redo": _redo,
    "status": _status,
    "reindex": _reindex,
    "clear": _clear,
    "eval": _eval,
    "auto-apply": _auto_apply,
    "plan": _plan,
    "model": _model,
}


def offered(workspace: Workspace) -> list[CommandSpec]:
    """The commands of ``workspace`` (its project's custom ones included) this view can run:
    its own rows, and registered operations."""
    return [
        s for s in all_commands(workspace.commands) if s.name in HANDLERS or s.operation is not None
    ]


def available_commands(workspace: Workspace) -> list[AvailableCommand]:
    """What the editor lists for a session: the commands of that session's project."""
    return [
        AvailableCommand(
            name=spec.name,
            description=spec.help,
            input=AvailableCommandInput(UnstructuredCommandInput(hint=spec.usage))
            if spec.max_args
            else None,
        )
        for spec in offered(workspace)
    ]


async def run_command(workspace: Workspace, text: str) -> Outcome:
    """Run ``text`` (a slash command); a wrong one, or one the workspace refuses, says why."""
    try:
        command = parse_command(text, workspace.commands)
    except CommandError as error:
        return Outcome(str(error))
    handler = HANDLERS.get(command.name)
    try:
        if handler is not None:
            return await handler(workspace, command.args)
        if command.spec.operation is not None:
            reply = await run_operation(workspace, command)
            return Outcome(_reply_text(reply), prompt=reply.prompt)
    except WorkspaceError as error:
        return Outcome(f"/{command.name}: {error}")
    return Outcome(f"/{command.name} is a terminal UI command; the editor has its own")


def _reply_text(reply: Reply) -> str:
    parts = [reply.text] if reply.text else []
    for table in reply.tables:
        parts.append(table.title)
        parts.extend(" · ".join(row) for row in table.rows)
    return "\n".join(parts)
