"""Helpers every ``ipuaro`` subcommand shares: global options, loading a project, failing cleanly.

Kept free of heavy imports: ``main`` imports this module on every start, ``--version`` included.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

if TYPE_CHECKING:
    from ipuaro.config.schema import Config

EXIT_USAGE = 2
"""Exit code for bad input (bad config, bad arguments) and for parts that are not built yet."""


@dataclass(frozen=True)
class GlobalOptions:
    """Options given before the command name, stored as the root context's ``obj``."""

    config_file: Path | None = None
    verbose: int = 0


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    """Print one line to stderr and exit."""
    click.echo(f"ipuaro: {message}", err=True)
    sys.exit(code)


def say_config_notices(config: Config) -> None:
    """What loading set aside (keys a project file may not set), one line each on stderr — the
    line ``run``, the TUI and ACP show when a session opens — for the commands that open
    none (``index``, ``tool``)."""
    for notice in config.notices:
        click.echo(f"ipuaro: warning: {notice}", err=True)


def global_options() -> GlobalOptions:
    """The root command's options, or the defaults when called outside the CLI."""
    ctx = click.get_current_context(silent=True)
    options = ctx.find_object(GlobalOptions) if ctx is not None else None
    return options if options is not None else GlobalOptions()


def load_project(
    path: str | Path | None,
    overrides: Mapping[str, Any] | None = None,
    *,
    raise_config_errors: bool = False,
) -> tuple[Path, Config]:
    """Find the project root at or above ``path`` (default: cwd) and load its configuration.

    ``overrides`` are the command's flags as dotted keys (``{"llm.model": "x"}``; ``None`` values
    mean "not given"). A ``--config FILE`` given to ``ipuaro`` itself is applied too. Any
    configuration problem prints one line and exits with code 2, so nothing else runs
    (``raise_config_errors``: the ``ConfigError`` is raised for the caller to report).
    """
    from ipuaro.config.cache import load_config_cached
    from ipuaro.config.loader import ConfigError, find_project_root

    start = Path(path).expanduser() if path else Path.cwd()
    if not start.exists():
        fail(f"no such file or directory: {start}")
    root = find_project_root(start)
    try:
        # the last run's validated settings when none of their sources changed (config.cache)
        config = load_config_cached(root, overrides, config_file=global_options().config_file)
    except ConfigError as error:
        if raise_config_errors:
            raise
        fail(str(error))
    return root, config
