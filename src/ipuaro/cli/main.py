"""The ``ipuaro`` command: a click group whose subcommands are imported on first use.

``COMMANDS`` maps each name to ``"module:attribute"``; nothing is imported to print ``--help`` or
``--version``. A command whose module does not exist yet still shows in ``--help`` and, when run,
says which part of ipuaro is missing and exits with code 2 — it never pretends to work.

Anything that is not a command name opens the terminal UI on that path: ``ipuaro [PATH]``.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from ipuaro import __version__
from ipuaro.cli.common import EXIT_USAGE, GlobalOptions
from ipuaro.cli.entry import report_by_args, report_interrupt


@dataclass(frozen=True)
class CommandSpec:
    """Where a command lives and what to say about it before importing it."""

    target: str
    """``"module:attribute"`` of the click command."""
    help: str
    """One line for ``ipuaro --help``."""
    part: str
    """The part of ipuaro the command needs, named when its module is not built yet."""


COMMANDS: dict[str, CommandSpec] = {
    "index": CommandSpec(
        "ipuaro.cli.index_cmd:command", "Scan a project and build its index.", "the index"
    ),
    "inspect": CommandSpec(
        "ipuaro.cli.inspect_cmd:command", "Show what the index holds for a file.", "the index"
    ),
    "tool": CommandSpec(
        "ipuaro.cli.tool_cmd:command", "Call one tool with JSON arguments; JSON out.", "the tools"
    ),
    "tools": CommandSpec(
        "ipuaro.cli.tools_cmd:command", "List the tools and their arguments.", "the tools"
    ),
    "run": CommandSpec(
        "ipuaro.cli.run_cmd:command", "Run the agent headless on one prompt.", "the agent"
    ),
    "sessions": CommandSpec(
        "ipuaro.cli.sessions_cmd:command",
        "List, show, delete, export or import sessions.",
        "the agent",
    ),
    "diff": CommandSpec(
        "ipuaro.cli.diff_cmd:command",
        "The changes ipuaro made in a session as one diff.",
        "the agent",
    ),
    "memory": CommandSpec(
        "ipuaro.cli.memory_cmd:command",
        "Show or change what ipuaro remembers (preferences).",
        "the memory",
    ),
    "init": CommandSpec(
        "ipuaro.cli.init_cmd:command", "Write .ipuaro.json with the default settings.", "init"
    ),
    "acp": CommandSpec(
        "ipuaro.cli.acp_cmd:command",
        "Agent Client Protocol server for editors such as Zed.",
        "the ACP server",
    ),
    "doctor": CommandSpec(
        "ipuaro.cli.doctor_cmd:command",
        "Check Python, store, grammars, model server and model.",
        "doctor",
    ),
}

DEFAULT = CommandSpec(
    "ipuaro.cli.tui_cmd:command", "Open the terminal UI on PATH (the default).", "the TUI"
)
"""What ``ipuaro [PATH]`` runs. Its command takes PATH, --model, --auto-apply, --new, --session."""

# The default command is also reachable by name, so its usage line ("ipuaro tui [OPTIONS]
# [PATH]") is a command that works; a folder called "tui" is opened with `ipuaro ./tui`.
DEFAULT_NAME = "tui"
_VERBOSE = re.compile(r"-v+")
_ROUTED = "ipuaro.default_routed"
"""``ctx.meta`` key: the default command's name was inserted, not typed."""
_ARGS = "ipuaro.args"
"""``ctx.meta`` key: the command line as routed, for a Ctrl+C before the command handles it."""


def load_command(target: str) -> click.Command | None:
    """Import ``"module:attribute"``; ``None`` when exactly that module does not exist yet."""
    module_name, _, attribute = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name == module_name:
            return None
        raise  # the module exists but something it imports is missing: a real bug, show it
    command = getattr(module, attribute)
    if not isinstance(command, click.Command):
        raise TypeError(f"{target} is {type(command).__name__}, not a click command")
    return command


def not_built_command(name: str, spec: CommandSpec) -> click.Command:
    """Stands in for a command whose module does not exist: says so and exits 2."""

    def callback(args: tuple[str, ...]) -> None:
        click.echo(f"ipuaro {name}: not built yet — {spec.part}", err=True)
        sys.exit(EXIT_USAGE)

    return click.Command(
        name,
        callback=callback,
        params=[click.Argument(["args"], nargs=-1, type=click.UNPROCESSED)],
        help=f"{spec.help} (not built yet: {spec.part})",
        context_settings={"ignore_unknown_options": True},
    )


class LazyGroup(click.Group):
    """A group that imports a command only when it runs, and opens PATH when given no command."""

    def __init__(
        self,
        *args: Any,
        specs: dict[str, CommandSpec],
        default: CommandSpec,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.specs = specs
        self.default = default

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [DEFAULT_NAME, *self.specs]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name == DEFAULT_NAME:
            command = load_command(self.default.target)
            if command is None:
                return not_built_command(cmd_name, self.default)
            return command
        spec = self.specs.get(cmd_name)
        if spec is None:
            return None
        return load_command(spec.target) or not_built_command(cmd_name, spec)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        routed = self._route_default(args)
        ctx.meta[_ROUTED] = len(routed) > len(args)
        ctx.meta[_ARGS] = list(routed)
        return super().parse_args(ctx, routed)

    def _route_default(self, args: list[str]) -> list[str]:
        """Insert the default command's name where the first non-command argument starts."""
        index = 0
        while index < len(args):
            token = args[index]
            if token in ("--help", "-h", "--version", DEFAULT_NAME) or token in self.specs:
                return args
            if _VERBOSE.fullmatch(token) or token == "--verbose" or token.startswith("--config="):
                index += 1
            elif token == "--config":
                index += 2
            else:
                break
        return [*args[:index], DEFAULT_NAME, *args[index:]]

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as press:
            # Ctrl+C before the command handles it (importing it, parsing its options): the
            # same end as one during the run, never click's "Aborted!" with exit 1.
            sys.exit(report_interrupt(lambda: report_by_args(ctx.meta.get(_ARGS, [])), press))
        except click.UsageError as error:
            # `ipuaro PATH --bad` was typed without "tui": show the usage the user typed.
            if ctx.meta.get(_ROUTED) and error.ctx is not None and error.ctx.parent is ctx:
                error.ctx = ctx
            raise
        except Exception as error:
            # A ConfigError can only exist if the loader was imported; no import needed here.
            loader = sys.modules.get("ipuaro.config.loader")
            if loader is not None and isinstance(error, loader.ConfigError):
                click.echo(f"ipuaro: {error}", err=True)
                sys.exit(EXIT_USAGE)
            raise

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        formatter.write_usage(
            ctx.command_path, "[OPTIONS] [PATH] [--model M] [--auto-apply] [--new] [--session ID]"
        )
        formatter.write_usage(ctx.command_path, "[OPTIONS] COMMAND [ARGS]...", prefix="   or: ")

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # From the registry, so --help imports no command module.
        rows = [(DEFAULT_NAME, self.default.help)]
        rows += [(name, spec.help) for name, spec in self.specs.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def build_cli(
    specs: dict[str, CommandSpec] | None = None,
    default: CommandSpec = DEFAULT,
) -> LazyGroup:
    """The root command; tests build one with their own registry."""

    @click.pass_context
    def root(ctx: click.Context, config_file: Path | None, verbose: int) -> None:
        """ipuaro — a local-first AI coding agent for the terminal.

        With no command, opens PATH (default: the current directory) in the terminal UI;
        `ipuaro PATH --help` lists its options. Settings come from defaults, the user config,
        the project's .ipuaro.json, IPUARO_SECTION__KEY environment variables and flags, in
        that order (see docs/configuration.md).
        """
        ctx.obj = GlobalOptions(config_file=config_file, verbose=verbose)
        if verbose:
            import logging

            level = logging.DEBUG if verbose > 1 else logging.INFO
            logging.basicConfig(level=level, stream=sys.stderr, format="%(name)s: %(message)s")

    group = LazyGroup(
        "ipuaro",
        callback=root,
        help=root.__doc__,
        specs=COMMANDS if specs is None else specs,
        default=default,
        context_settings={"help_option_names": ["-h", "--help"]},
        params=[
            click.Option(
                ["--config", "config_file"],
                type=click.Path(dir_okay=False, path_type=Path),
                metavar="FILE",
                help="An extra config file, applied above the environment and below flags.",
            ),
            click.Option(["-v", "--verbose"], count=True, help="Log more to stderr (-vv: debug)."),
        ],
    )
    return click.version_option(
        __version__, "--version", prog_name="ipuaro", message="%(prog)s %(version)s"
    )(group)


cli = build_cli()


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point."""
    cli.main(args=list(argv) if argv is not None else None, prog_name="ipuaro")
