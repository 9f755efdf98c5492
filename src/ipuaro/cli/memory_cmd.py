"""``ipuaro memory [show | set KEY VALUE | unset KEY]``: the engineering memory from a shell or
a script, without a model server (the same operations as ``/memory``)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import click

from ipuaro.cli.common import EXIT_USAGE, fail, load_project
from ipuaro.core.commands import Reply

EXIT_ERROR = 1

project_option = click.option(
    "--project",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Project folder (default: the current directory's project root).",
)


def _print(reply: Reply) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console(soft_wrap=True)
    for shown in reply.tables:
        table = Table(title=shown.title, show_lines=False)
        for index, column in enumerate(shown.columns or ()):
            table.add_column(column, overflow="fold", no_wrap=index == 0)
        for row in shown.rows:
            table.add_row(*(Text(cell) for cell in row))  # "[src, lib]" is not markup
        console.print(table)
    if reply.text:
        click.echo(reply.text, err=reply.kind in ("warning", "error"))


@click.group(
    "memory",
    invoke_without_command=True,
    help="Show or change what ipuaro remembers: your preferences (user.*) and the project's "
    "(project.*, in .ipuaro/project.json). See docs/memory.md.",
)
@project_option
@click.option("--json", "as_json", is_flag=True, help="show: one JSON object instead of a table.")
@click.pass_context
def command(ctx: click.Context, project: Path | None, as_json: bool) -> None:
    ctx.obj = {"project": project}
    if ctx.invoked_subcommand is None:
        _show(project, as_json)


@command.command("show", help="Every key, its value and the file it comes from.")
@project_option
@click.option("--json", "as_json", is_flag=True, help="One JSON object instead of a table.")
@click.pass_context
def show(ctx: click.Context, project: Path | None, as_json: bool) -> None:
    _show(project or ctx.obj["project"], as_json)


def _show(project: Path | None, as_json: bool) -> None:
    from ipuaro.core.memory import memory_document, show_memory

    root, _config = load_project(project)
    if as_json:
        click.echo(json.dumps(memory_document(root), ensure_ascii=False, indent=2))
        return
    _print(show_memory(root))


@command.command(
    "set",
    help='Remember KEY = VALUE, e.g. set project.default_test_command "pytest -q".',
    context_settings={"ignore_unknown_options": True},  # `set KEY pytest -q` keeps its -q
)
@click.argument("key")
@click.argument("value", nargs=-1, required=True)
@project_option
@click.pass_context
def set_(ctx: click.Context, key: str, value: tuple[str, ...], project: Path | None) -> None:
    _change(project or ctx.obj["project"], key, " ".join(value) if len(value) > 1 else value[0])


@command.command("unset", help="Forget KEY.")
@click.argument("key")
@project_option
@click.pass_context
def unset(ctx: click.Context, key: str, project: Path | None) -> None:
    _change(project or ctx.obj["project"], key, None)


def _change(project: Path | None, key: str, value: str | None) -> None:
    from ipuaro.core.memory import report_reply, set_value

    root, _config = load_project(project)
    report = asyncio.run(set_value(root, None, key, value))
    reply = report_reply(report)
    if report.error:
        fail(reply.text, EXIT_ERROR)
    if reply.kind == "error":
        fail(reply.text, EXIT_USAGE)
    _print(reply)
