"""Slash commands: the table every front end offers, and parsing what the user typed.

Parsing is pure and strict: a known command with arguments it does not take is a
:class:`CommandError` whose message says the right usage; an unknown command's message lists
every command.

Each built-in maps to a :class:`~ipuaro.core.workspace.Workspace` method through a front end's
own table (the TUI draws each its way: ``ipuaro.tui.command_runner``). A command added later
(plan/apply, memory, extensions) is ONE row: :func:`register` a :class:`CommandSpec` with an
``operation`` — a coroutine over the workspace that returns a :class:`Reply` — and every front
end offers it, lists it in /help and draws its reply, without a change of its own.

Those rows are code, the same in every project. A project's own custom commands are data of
that project: they live in its workspace's :class:`CommandTable` (``Workspace.commands``), never
in the process-wide rows, so one ACP process serving two projects lists each its own.
"""

from __future__ import annotations

import shlex
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ipuaro.core.replies import Reply, ReplyKind, ReplyTable
from ipuaro.domain.errors import IpuaroError

if TYPE_CHECKING:
    from ipuaro.core.ports import CommandHost

__all__ = ["Reply", "ReplyKind", "ReplyTable"]

Operation = Callable[["CommandHost", tuple[str, ...]], Awaitable[Reply]]


@dataclass(frozen=True)
class CommandSpec:
    name: str
    usage: str
    help: str
    min_args: int = 0
    max_args: int = 0
    choices: tuple[str, ...] = ()
    """Allowed values of the first argument, when it is a keyword."""
    operation: Operation | None = None
    """How to run it when no front end has its own row for it (added commands)."""
    while_busy: bool = False
    """May run while the agent answers."""
    free_text: bool = False
    """The arguments are free text (a custom command's): quotes group words where they pair
    up, and an unpaired quote (``don't``) is just a character."""


async def _mcp(workspace: CommandHost, args: tuple[str, ...]) -> Reply:
    from ipuaro.core.mcp_status import mcp_command

    return await mcp_command(workspace, args)


COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("help", "/help", "show the commands and keys"),
    CommandSpec("clear", "/clear", "clear the conversation (the session and undo stay)"),
    CommandSpec("undo", "/undo", "undo the last applied change (also Ctrl+Z)"),
    CommandSpec("redo", "/redo", "redo the last undone change"),
    CommandSpec(
        "sessions",
        "/sessions [list | load ID | delete ID | new]",
        "list, load, delete or start sessions",
        max_args=2,
        choices=("list", "load", "delete", "new"),
    ),
    CommandSpec("status", "/status", "store, model, context window, tokens, index, session"),
    CommandSpec("reindex", "/reindex", "re-index the project now"),
    CommandSpec("eval", "/eval", "check the last answer's paths, symbols and lines, then critique"),
    CommandSpec(
        "auto-apply",
        "/auto-apply [on|off]",
        "apply edits without asking (undo still works)",
        max_args=1,
        choices=("on", "off"),
    ),
    CommandSpec("plan", "/plan [on|off]", "plan mode: no edits or commands", 0, 1, ("on", "off")),
    CommandSpec("model", "/model [NAME]", "show the model, or switch to NAME", max_args=1),
)

BY_NAME = {spec.name: spec for spec in COMMANDS}


def register(spec: CommandSpec) -> None:
    """Offer one more command everywhere (it needs an ``operation``; names are unique)."""
    if spec.operation is None:
        raise ValueError(f"/{spec.name}: a registered command needs an operation")
    if spec.name in BY_NAME:
        raise ValueError(f"/{spec.name} exists already")
    BY_NAME[spec.name] = spec


async def _apply(workspace: CommandHost, args: tuple[str, ...]) -> Reply:
    return await workspace.apply_command(args)


register(
    CommandSpec(
        "apply",
        "/apply [NOTE]",
        "apply the stored plan: one diff, one confirmation, one undo step",
        max_args=64,
        operation=_apply,
    )
)


register(CommandSpec("mcp", "/mcp", "MCP servers: state and tools", operation=_mcp))


def unregister(name: str) -> None:
    """Withdraw a registered command (built-ins stay)."""
    if name in BY_NAME and BY_NAME[name].operation is not None:
        del BY_NAME[name]


def all_commands(table: CommandTable | None = None) -> list[CommandSpec]:
    """Built-ins first, then registered commands, in the order they came (then ``table``'s
    own custom commands)."""
    return table.all() if table is not None else list(BY_NAME.values())


async def run_operation(workspace: CommandHost, command: SlashCommand) -> Reply:
    """Run a registered command's operation (front ends call this for names they lack)."""
    operation = command.spec.operation
    if operation is None:
        return Reply(f"/{command.name} is not available here", "error")
    return await operation(workspace, command.args)


KEYS: tuple[tuple[str, str], ...] = (
    ("Enter", "send (while the agent works: steer it)"),
    ("Ctrl+F", "while the agent works: queue a follow-up"),
    ("Ctrl+J", "new line"),
    ("↑ / ↓", "input history"),
    ("Tab", "complete a path from the index"),
    ("Esc", "go to the change that waits for Y / N / E"),
    ("Y / N / E", "apply / reject / edit the proposed change"),
    ("Ctrl+C", "interrupt; twice within 2 s when idle: quit"),
    ("Ctrl+D", "save the session and quit"),
    ("Ctrl+Z", "undo the last change"),
)


class CommandError(IpuaroError, ValueError):
    """What the user typed is not a command we can run; the message says what to type."""


@dataclass(frozen=True)
class SlashCommand:
    name: str
    args: tuple[str, ...] = ()
    found: CommandSpec | None = field(default=None, compare=False)
    """The row it was parsed against (a workspace's custom command is in no global row)."""

    @property
    def spec(self) -> CommandSpec:
        return self.found if self.found is not None else BY_NAME[self.name]


class CommandTable:
    """One workspace's commands: the built-in and registered rows, then the project's own
    custom commands (which cannot shadow a row)."""

    def __init__(self) -> None:
        self._own: dict[str, CommandSpec] = {}

    def add(self, spec: CommandSpec) -> bool:
        """Offer ``spec`` in this workspace only; False when its name is taken."""
        if spec.name in BY_NAME or spec.name in self._own:
            return False
        self._own[spec.name] = spec
        return True

    def get(self, name: str) -> CommandSpec | None:
        return BY_NAME.get(name) or self._own.get(name)

    def all(self) -> list[CommandSpec]:
        return [*BY_NAME.values(), *self._own.values()]


def _lookup(name: str, table: CommandTable | None) -> CommandSpec | None:
    return table.get(name) if table is not None else BY_NAME.get(name)


def is_command(text: str) -> bool:
    """``/help`` is a command, and so is ``!git status`` (``/shell``); ``//etc`` and a path
    like ``/usr/bin`` typed alone are not."""
    stripped = text.strip()
    if stripped.startswith("!"):
        return True
    if not stripped.startswith("/") or stripped.startswith("//"):
        return False
    word = stripped[1:].split(maxsplit=1)[0] if len(stripped) > 1 else ""
    return "/" not in word


def command_list(table: CommandTable | None = None) -> str:
    return ", ".join(f"/{spec.name}" for spec in all_commands(table))


def parse_command(text: str, table: CommandTable | None = None) -> SlashCommand:
    """``/sessions load abc`` → ``SlashCommand("sessions", ("load", "abc"))`` (``table``: a
    workspace's commands, its custom ones included; by default the built-in rows)."""
    stripped = text.strip()
    raw = _raw_shell(stripped)
    if raw is not None:
        if not raw:
            raise CommandError("type a command after '!' (or /shell), e.g. !git status")
        return SlashCommand("shell", (raw,), BY_NAME["shell"])
    try:
        words = shlex.split(stripped[1:])
    except ValueError as error:
        words = stripped[1:].split()
        spec = _lookup(words[0].lower(), table) if words else None
        if spec is None or not spec.free_text:
            raise CommandError(f"cannot read {stripped!r}: {error}") from None
    if not words:
        raise CommandError(f"type a command after '/': {command_list(table)}")
    name, args = words[0].lower(), tuple(words[1:])
    spec = _lookup(name, table)
    if spec is None:
        raise CommandError(f"unknown command /{name}; the commands are: {command_list(table)}")
    if not spec.min_args <= len(args) <= spec.max_args:
        raise CommandError(f"usage: {spec.usage}")
    if spec.choices and args and args[0].lower() not in spec.choices:
        raise CommandError(f"usage: {spec.usage}")
    if spec.choices and args:
        args = (args[0].lower(), *args[1:])
    if name == "sessions" and args and args[0] in ("load", "delete") and len(args) != 2:
        raise CommandError(f"usage: /sessions {args[0]} ID")
    if name == "sessions" and args and args[0] in ("list", "new") and len(args) != 1:
        raise CommandError(f"usage: /sessions {args[0]}")
    return SlashCommand(name, args, spec)


def _raw_shell(stripped: str) -> str | None:
    """The shell command of ``!CMD`` or ``/shell CMD`` exactly as typed (quotes are the
    shell's), or None when ``stripped`` is neither."""
    if stripped.startswith("!"):
        return stripped[1:].strip()
    head, _, rest = stripped.partition(" ")
    return rest.strip() if head.lower() == "/shell" else None


async def _shell(workspace: CommandHost, args: tuple[str, ...]) -> Reply:
    from ipuaro.core.conveniences import run_user_command

    return await run_user_command(workspace, " ".join(args))


async def _compact(workspace: CommandHost, args: tuple[str, ...]) -> Reply:
    from ipuaro.core.conveniences import compact_now

    return await compact_now(workspace, " ".join(args) or None)


register(
    CommandSpec(
        "shell",
        "!COMMAND (or /shell COMMAND)",
        "run a shell command under the command policy; the model sees its output",
        min_args=1,
        max_args=1,
        operation=_shell,
    )
)

register(
    CommandSpec(
        "compact",
        "/compact [FOCUS]",
        "summarise the conversation now (the summary keeps FOCUS above all)",
        max_args=64,
        operation=_compact,
    )
)


async def _rewind(workspace: CommandHost, args: tuple[str, ...]) -> Reply:
    from ipuaro.core.rewind import rewind_command

    return await rewind_command(workspace, args)


register(
    CommandSpec(
        "rewind",
        "/rewind [N]",
        "list your requests; go back to before request N (its file changes too, if you say so)",
        max_args=1,
        operation=_rewind,
    )
)


async def _memory(workspace: CommandHost, args: tuple[str, ...]) -> Reply:
    from ipuaro.core.memory import memory_command

    return await memory_command(workspace, args)


register(
    CommandSpec(
        "memory",
        "/memory [show | set KEY VALUE | unset KEY]",
        "what ipuaro remembers between sessions; change it",
        max_args=64,
        choices=("show", "set", "unset"),
        operation=_memory,
        while_busy=True,
    )
)


async def _verify(workspace: CommandHost, args: tuple[str, ...]) -> Reply:
    from ipuaro.core.verifying import verify_command

    return await verify_command(workspace, args)


async def _diff(workspace: CommandHost, args: tuple[str, ...]) -> Reply:
    from ipuaro.core.verifying import diff_command

    return await diff_command(workspace, args)


register(
    CommandSpec(
        "verify",
        "/verify [lint | test | both]",
        "run the remembered lint and test commands now",
        max_args=1,
        choices=("lint", "test", "both"),
        operation=_verify,
    )
)
register(
    CommandSpec(
        "diff",
        "/diff [N]",
        "the changes ipuaro made this session (or in its last N undo steps) as one diff",
        max_args=1,
        operation=_diff,
        while_busy=True,
    )
)


def help_rows(
    table: CommandTable | None = None,
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(commands, keys) for ``/help``: usage and what it does."""
    return [(spec.usage, spec.help) for spec in all_commands(table)], list(KEYS)
