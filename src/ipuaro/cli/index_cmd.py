"""``ipuaro index [PATH]``: scan and index a project, with a progress bar and a summary."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ipuaro.cli.common import EXIT_USAGE, fail, global_options, load_project, say_config_notices
from ipuaro.core.errors import IndexFailed

if TYPE_CHECKING:
    from ipuaro.config.schema import Config
    from ipuaro.core.project_index import IndexRun, ProjectIndex

EXIT_STORE = 1


@click.command("index")
@click.argument("path", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("--rebuild", is_flag=True, help="Drop the stored index and index from scratch.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON object.")
@click.option("--yes", "-y", is_flag=True, help="Index even a project above the file warning.")
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help="Processes that parse files (default: one per CPU; 1 parses in this process).",
)
def command(
    path: Path | None, rebuild: bool, as_json: bool, yes: bool, workers: int | None
) -> None:
    """Scan PATH (default: the current project) and build or refresh its index.

    Unchanged files (same content hash) are skipped; --rebuild starts afresh.
    """
    root, config = load_project(path, None)
    say_config_notices(config)
    try:
        indexer = _open_indexer(root, config, rebuild)
        indexer = _confirm_size(indexer, yes)
        summary = _run(indexer, rebuild=rebuild, workers=workers, show_progress=True)
    except IndexFailed as error:
        fail(str(error), EXIT_STORE)
    if as_json:
        click.echo(json.dumps({"root": str(indexer.root), **summary.to_json()}))
    else:
        _print_summary(indexer.root, summary)


def _open_indexer(root: Path, config: Config, rebuild: bool) -> ProjectIndex:
    from ipuaro.core.project_index import ProjectIndex

    index = ProjectIndex.open(root, config, rebuild=rebuild)
    for notice in index.notices:  # Redis: AOF off loses the index on restart
        click.echo(f"ipuaro: warning: {notice}", err=True)
    return index


def _confirm_size(indexer: ProjectIndex, yes: bool) -> ProjectIndex:
    """Above ``limits.maxFilesWarning``: continue, pick a subfolder, or cancel (asked on a
    terminal; refused without one unless --yes)."""
    while True:
        count = indexer.count_files()
        limit = indexer.config.limits.max_files_warning
        if count <= limit or yes:
            return indexer
        message = (
            f"{indexer.root} has {count:,} files to index, more than "
            f"limits.maxFilesWarning ({limit:,})"
        )
        if not sys.stdin.isatty():
            fail(f"{message}; pass --yes to index it anyway, or index a subfolder", EXIT_USAGE)
        click.echo(message + ".", err=True)
        choice = click.prompt(
            "[c]ontinue, pick a [s]ubfolder, or [q]uit",
            type=click.Choice(["c", "s", "q"]),
            default="q",
            err=True,
        )
        if choice == "c":
            return indexer
        if choice == "q":
            click.echo("Cancelled.", err=True)
            sys.exit(EXIT_USAGE)
        indexer = _subfolder_indexer(indexer)


def _subfolder_indexer(indexer: ProjectIndex) -> ProjectIndex:
    from ipuaro.config.loader import load_config

    answer = click.prompt("Subfolder to index (relative to the project)", err=True)
    folder = (indexer.root / answer).resolve()
    if not folder.is_dir() or not folder.is_relative_to(indexer.root):
        click.echo(f"{answer}: not a folder inside {indexer.root}", err=True)
        return indexer
    config = load_config(folder, config_file=global_options().config_file)
    indexer.close()
    return _open_indexer(folder, config, rebuild=False)


class _Bar:
    """The concept's ``[=====>    ] 45% (120/267 files)`` on stderr, when stderr is a terminal.
    Rich refreshes only when told to: no refresh thread, so pool processes can be forked."""

    WIDTH = 30

    def __init__(self, enabled: bool) -> None:
        self._last = 0.0
        self._live = None
        # rich is imported only to draw: piped or scripted runs start without it
        if enabled and sys.stderr.isatty():
            from rich.console import Console
            from rich.live import Live

            console = Console(stderr=True)
            self._live = Live(
                self._render(0, 0), console=console, auto_refresh=False, transient=False
            )
            self._live.start(refresh=True)

    def _render(self, done: int, total: int) -> str:
        fraction = done / total if total else 0.0
        filled = int(fraction * self.WIDTH)
        head = ">" if filled < self.WIDTH else ""
        bar = ("=" * filled + head).ljust(self.WIDTH)
        return f"[{bar}] {fraction * 100:3.0f}% ({done}/{total} files)"

    def update(self, done: int, total: int) -> None:
        if self._live is None:
            return
        now = time.monotonic()
        if done < total and now - self._last < 0.05:
            return
        self._last = now
        self._live.update(self._render(done, total), refresh=True)

    def close(self) -> None:
        if self._live is not None:
            self._live.stop()


def _run(
    indexer: ProjectIndex, *, rebuild: bool, workers: int | None, show_progress: bool
) -> IndexRun:
    bar = _Bar(show_progress and indexer.config.display.progress_bar)
    try:
        return indexer.run(rebuild=rebuild, progress=bar.update, workers=workers)
    finally:
        bar.close()
        indexer.close()


def _print_summary(root: Path, summary: IndexRun) -> None:
    errors = ""
    if summary.parse_errors:
        # Named, so the user can look: a count alone says something broke, not where.
        failed = summary.parse_error_files
        shown = ", ".join(failed[:5]) + (f" and {len(failed) - 5} more" if len(failed) > 5 else "")
        errors = f" ({summary.parse_errors} with parse errors, kept without symbols: {shown})"
    lines = [
        f"Indexed {root} in {summary.seconds:.2f} s",
        f"  files {summary.files:,} · parsed {summary.parsed:,}{errors} · "
        f"unchanged {summary.unchanged:,} · deleted {summary.deleted:,}",
        f"  skipped non-UTF-8 {summary.skipped_non_utf8:,} · binary {summary.binary:,} · "
        f"symlinks {summary.symlinks:,}",
        f"  symbols {summary.symbols:,} · references {summary.references:,}",
    ]
    click.echo("\n".join(lines))
    if summary.too_large_to_parse:
        large = summary.too_large_to_parse
        shown = ", ".join(large[:5]) + (f" (and {len(large) - 5} more)" if len(large) > 5 else "")
        click.echo(f"  stored as text, not parsed (above project.maxParseBytes): {shown}", err=True)
    if summary.too_large_to_store:
        huge = summary.too_large_to_store
        shown = ", ".join(huge[:5]) + (f" (and {len(huge) - 5} more)" if len(huge) > 5 else "")
        click.echo(f"  kept as metadata only (above project.maxFileBytes): {shown}", err=True)
    if summary.removed_temp_files:
        click.echo(
            f"  removed {len(summary.removed_temp_files)} temp file(s) left by an interrupted "
            "write (the files they were meant for were never changed): "
            + ", ".join(summary.removed_temp_files[:5]),
            err=True,
        )
    if summary.unreadable:
        shown = "; ".join(summary.unreadable[:5])
        more = f" (and {len(summary.unreadable) - 5} more)" if len(summary.unreadable) > 5 else ""
        click.echo(f"  unreadable, left as they were: {shown}{more}", err=True)
