"""``ipuaro [PATH]`` while the terminal UI is not built: check the model server, then say so.

It takes the same options the TUI command will take, so flags are validated today, and it runs
the one onboarding check that needs no TUI: is a model server there, and how to start one if not.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ipuaro.cli.common import EXIT_USAGE, load_project


@click.command("tui")
@click.argument(
    "path", required=False, type=click.Path(exists=True, file_okay=False, path_type=Path)
)
@click.option("--model", metavar="M", help="Model name (overrides llm.model).")
@click.option("--auto-apply", is_flag=True, help="Apply edits without asking.")
@click.option("--new", "new_session", is_flag=True, help="Start a new session.")
@click.option("--session", "session_id", metavar="ID", help="Resume this session.")
def command(
    path: Path | None,
    model: str | None,
    auto_apply: bool,
    new_session: bool,
    session_id: str | None,
) -> None:
    """Open the terminal UI on PATH (default: the current directory)."""
    from ipuaro.cli.checks import check_model_server

    if new_session and session_id:
        raise click.UsageError("--new and --session exclude each other")
    overrides = {"llm.model": model, "edit.autoApply": True if auto_apply else None}
    root, config = load_project(path, overrides)
    server, model_check = check_model_server(config)
    for result in (server, model_check) if server.ok else (server,):
        click.echo(result.line(), err=True)
    click.echo(f"ipuaro tui: not built yet — the TUI (project {root})", err=True)
    sys.exit(EXIT_USAGE)
