"""``ipuaro [PATH]``: open the terminal UI on a project.

The app itself runs the onboarding checks (and shows how to start a model server when none
answers), so this command only validates the flags, loads the configuration and starts it.
"""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

import click

from ipuaro.cli.common import load_project
from ipuaro.cli.llm_flags import llm_options, llm_overrides


@click.command("tui")
@click.argument("path", required=False, type=click.Path(path_type=Path))
@click.option("--model", metavar="M", help="Model name (overrides llm.model).")
@llm_options
@click.option("--auto-apply", is_flag=True, help="Apply edits without asking (/undo reverts).")
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
    if path is not None:
        check_folder(path)
    if new_session and session_id:
        raise click.UsageError("--new and --session exclude each other; give one")
    # Config first: a broken .ipuaro.json is reported the same way with or without a terminal.
    overrides = {
        "llm.model": model,
        "edit.autoApply": True if auto_apply else None,
        **llm_overrides(),
    }
    root, config = load_project(path, overrides)
    if not sys.stdin.isatty() or not sys.stdout.isatty():
        raise click.UsageError(
            'the terminal UI needs an interactive terminal; for scripts use `ipuaro run -p "..."`'
        )

    from ipuaro.tui.app import IpuaroApp
    from ipuaro.tui.startup import LaunchOptions

    options = LaunchOptions(auto_apply=auto_apply, new_session=new_session, session_id=session_id)
    app = IpuaroApp(root, config, options)
    app.run()
    code = app.return_code or 0
    if code:
        sys.exit(code)


def check_folder(path: Path) -> None:
    """PATH must be a folder. ``ipuaro WORD`` reaches here for any word that is not a command,
    so a missing folder may be a mistyped command: the error names both."""
    if path.is_dir():
        return
    if path.exists():
        raise click.UsageError(f"'{path}' is a file; open its project with `ipuaro {path.parent}`")
    message = f"'{path}' is neither a folder nor an ipuaro command."
    ctx = click.get_current_context(silent=True)
    group = ctx.parent if ctx is not None else None
    if ctx is not None and group is not None and isinstance(group.command, click.Group):
        names = [n for n in group.command.list_commands(group) if n != ctx.info_name]
        close = difflib.get_close_matches(str(path), names, n=1)
        if close:
            message += f" Did you mean `ipuaro {close[0]}`?"
        message += (
            "\nOpen a project with `ipuaro [PATH]` (default: this folder). "
            f"Commands: {', '.join(names)}."
        )
    raise click.UsageError(message)
