"""``ipuaro init [PATH]``: write ``.ipuaro.json`` with the default settings."""

from __future__ import annotations

import json
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

    Refuses to replace an existing file unless --force is given. The ``redis`` section is
    written only when the store is Redis (``store.backend``): an SQLite store never reads it.
    """
    from ipuaro.config.loader import PROJECT_FILE

    if not path.is_dir():
        fail(f"init: {path} is not a directory; create it first")
    target = path / PROJECT_FILE
    if (target.exists() or target.is_symlink()) and not force:
        fail(f"init: {target} already exists; use --force to overwrite it", EXIT_REFUSED)
    # Temp file + rename: an interrupted init never leaves half a config behind.
    temporary = target.with_name(f".{PROJECT_FILE}.{os.getpid()}.tmp")
    try:
        temporary.write_text(initial_config(path), encoding="utf-8")
        os.replace(temporary, target)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        fail(f"init: cannot write {target} ({error.strerror or error})", EXIT_REFUSED)
    click.echo(f"wrote {target}")


def initial_config(path: Path) -> str:
    """The default settings as ``.ipuaro.json`` text, without the sections the chosen store
    never reads (the user config or the environment may already choose Redis)."""
    from ipuaro.config.loader import ConfigError, default_config_json, load_config

    settings = json.loads(default_config_json())
    try:
        backend = load_config(path).store.backend
    except ConfigError:
        backend = "sqlite"  # init writes defaults; a broken layer is for `doctor` to report
    if backend != "redis":
        settings.pop("redis", None)
    return json.dumps(settings, indent=2, ensure_ascii=False) + "\n"
