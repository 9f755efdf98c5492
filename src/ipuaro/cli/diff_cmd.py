"""``ipuaro diff [N] [--session ID] [--json]``: the changes ipuaro made in a session (the most
recent one by default), or in its last N undo steps, as one unified diff."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ipuaro.cli.common import fail, load_project
from ipuaro.core.errors import SessionMissing, SessionsUnavailable

EXIT_ERROR = 1


@click.command("diff", help="The changes ipuaro made in a session as one diff.")
@click.argument("steps", required=False)
@click.option("--session", "session_id", default=None, help="Session ID (default: the latest).")
@click.option(
    "--project",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Project folder (default: the current directory's project root).",
)
@click.option("--json", "as_json", is_flag=True, help="One JSON object instead of the diff.")
def command(steps: str | None, session_id: str | None, project: Path | None, as_json: bool) -> None:
    from ipuaro.core.sessions import SessionArchive
    from ipuaro.core.verifying import stored_session_diff

    root, config = load_project(project)
    try:
        with SessionArchive.opened(root, config) as archive:
            found, reply = stored_session_diff(archive, session_id, (steps,) if steps else ())
    except (SessionMissing, SessionsUnavailable) as error:
        fail(str(error), EXIT_ERROR)
    if reply.kind == "error":
        fail(reply.text, EXIT_ERROR)
    if as_json:
        diff = reply.text.split("\n\n", 1)[1] if "\n\n" in reply.text else ""
        click.echo(json.dumps({"sessionId": found, "diff": diff, "message": reply.text}))
        return
    click.echo(reply.text)
