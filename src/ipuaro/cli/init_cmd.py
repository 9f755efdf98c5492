"""``ipuaro init [PATH]``: write ``.ipuaro.json`` with the default settings."""

from __future__ import annotations

import os
from pathlib import Path

import click

from ipuaro.cli.common import fail

EXIT_REFUSED = 1


@click.command("init")
@click.argument(
    "path", required=False, default=".", type=click.Path(file_okay=False, path_type=Path)
)
@click.option("--force", is_flag=True, help="Overwrite an existing .ipuaro.json.")
def command(path: Path, force: bool) -> None:
    """Write PATH/.ipuaro.json (default: the current directory) with the default settings.

    Refuses to replace an existing file unless --force is given.
    """
    from ipuaro.config.loader import PROJECT_FILE, default_config_json

    if not path.is_dir():
        fail(f"init: {path} is not a directory; create it first")
    target = path / PROJECT_FILE
    if (target.exists() or target.is_symlink()) and not force:
        fail(f"init: {target} already exists; use --force to overwrite it", EXIT_REFUSED)
    # Temp file + rename: an interrupted init never leaves half a config behind.
    temporary = target.with_name(f".{PROJECT_FILE}.{os.getpid()}.tmp")
    try:
        temporary.write_text(default_config_json(), encoding="utf-8")
        os.replace(temporary, target)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        fail(f"init: cannot write {target} ({error.strerror or error})", EXIT_REFUSED)
    click.echo(f"wrote {target}")
