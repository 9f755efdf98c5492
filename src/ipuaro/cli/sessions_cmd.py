"""``ipuaro sessions list|show ID|delete ID|export ID [FILE]|import FILE``."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ipuaro.cli.common import fail, load_project
from ipuaro.core.errors import SessionMissing, SessionsUnavailable

if TYPE_CHECKING:
    from ipuaro.core.sessions import SessionArchive
    from ipuaro.domain import Session

EXIT_ERROR = 1
MAX_IMPORT_BYTES = 256 * 1024 * 1024
"""A session export larger than this is refused before it is read (memory stays bounded)."""


@contextmanager
def _archive(project: Path | None) -> Iterator[SessionArchive]:
    from ipuaro.core.sessions import SessionArchive

    root, config = load_project(project)
    try:
        with SessionArchive.opened(root, config) as archive:
            yield archive
            for notice in archive.notices():
                click.echo(f"ipuaro: warning: {notice}", err=True)
    except SessionsUnavailable as error:  # the store, or a session, is damaged or unreachable
        fail(str(error), EXIT_ERROR)


def _load(archive: SessionArchive, session_id: str) -> Session:
    try:
        return archive.load(session_id)
    except (SessionMissing, SessionsUnavailable) as error:
        fail(str(error), EXIT_ERROR)


def _when(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts))


project_option = click.option(
    "--project",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Project folder (default: the current directory's project root).",
)


@click.group("sessions", help="List, show, delete, export or import the project's sessions.")
def command() -> None:
    pass


@command.command("list", help="Sessions of the project, most recent last.")
@project_option
@click.option("--json", "as_json", is_flag=True, help="One JSON array instead of a table.")
def list_sessions(project: Path | None, as_json: bool) -> None:
    with _archive(project) as archive:
        sessions = archive.sessions(include_damaged=True)
    sessions.sort(key=lambda s: s.last_activity_at)
    if as_json:
        rows: list[dict[str, object]] = [
            {
                "id": s.id,
                "title": s.title,
                "messages": s.messages,
                "model": s.model,
                "createdAt": s.created_at,
                "lastActivityAt": s.last_activity_at,
            }
            if s.damaged is None
            else {"id": s.id, "damaged": s.damaged}
            for s in sessions
        ]
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    if not sessions:
        click.echo("no sessions yet: `ipuaro` or `ipuaro run -p …` starts one")
        return
    for session in sessions:
        if session.damaged is not None:
            click.echo(f"{session.id}  DAMAGED: {session.damaged}")
            continue
        title = (session.title or "(empty)")[:60]
        click.echo(
            f"{session.id}  {_when(session.last_activity_at)}  {session.messages:>4} msgs  {title}"
        )


@command.command("show", help="Print a session's conversation.")
@project_option
@click.argument("session_id")
def show(project: Path | None, session_id: str) -> None:
    with _archive(project) as archive:
        session = _load(archive, session_id)
    click.echo(f"session {session.id} — {session.project_name} — model {session.model or '?'}")
    click.echo(
        f"created {_when(session.created_at)}, last active {_when(session.last_activity_at)}; "
        f"{session.stats.total_tokens:,} tokens, {session.stats.tool_calls} tool calls, "
        f"{session.stats.edits_applied} edits applied"
    )
    for message in session.history:
        if message.kind == "summary":
            click.echo(f"\n[compaction]\n{message.content or '(history cleared)'}")
            continue
        if message.role == "tool":
            first = message.content.strip().splitlines()[0] if message.content.strip() else ""
            click.echo(f"  ← {message.tool_name or 'tool'}: {first[:120]}")
            continue
        label = {"steer": "user (steer)", "error": "ipuaro"}.get(message.kind, message.role)
        if message.content.strip():
            click.echo(f"\n{label}: {message.content.strip()}")
        for call in message.tool_calls or []:
            click.echo(f"  → {call.name} {json.dumps(call.parameters, ensure_ascii=False)[:120]}")


@command.command("delete", help="Delete a session (its undo history too).")
@project_option
@click.argument("session_id")
def delete(project: Path | None, session_id: str) -> None:
    with _archive(project) as archive:
        # Not loaded first: a damaged session must be deletable too.
        if archive.delete(session_id) == "missing":
            _load(archive, session_id)  # says which sessions there are
    click.echo(f"deleted session {session_id}")


@command.command(
    "export",
    help="Write a session as JSONL (header line, then typed entries) to FILE, or to standard "
    'output without FILE or with "-".',
)
@project_option
@click.argument("session_id")
@click.argument("file", required=False, type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--jsonl",
    "jsonl_file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Same as FILE (JSONL is the only format; kept for scripts that pass it).",
)
def export(
    project: Path | None, session_id: str, file: Path | None, jsonl_file: Path | None
) -> None:
    if file is not None and jsonl_file is not None and file != jsonl_file:
        fail(f"two output files given ({file} and --jsonl {jsonl_file}): give one")
    target = file or jsonl_file or Path("-")
    with _archive(project) as archive:
        _load(archive, session_id)
        lines = archive.export(session_id)
    text = "\n".join(lines) + "\n"
    if str(target) == "-":
        click.echo(text, nl=False)
        return
    try:
        target.write_text(text, encoding="utf-8")
    except OSError as error:
        fail(f"cannot write {target}: {error.strerror}", EXIT_ERROR)
    click.echo(f"exported session {session_id} ({len(lines)} lines) to {target}")


@command.command("import", help="Read a JSONL export into this project's sessions.")
@project_option
@click.argument("source", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--new-id", is_flag=True, help="Give the session a fresh id (keeps both copies).")
def import_(project: Path | None, source: Path, new_id: bool) -> None:
    try:
        if not source.is_file():  # a FIFO or a device would block or never end
            fail(f"{source} is not a regular file; give a JSONL export", EXIT_ERROR)
        size = source.stat().st_size
        if size > MAX_IMPORT_BYTES:
            fail(
                f"{source} is {size:,} bytes; a session export is at most "
                f"{MAX_IMPORT_BYTES:,} bytes (nothing was imported)",
                EXIT_ERROR,
            )
        text = source.read_text(encoding="utf-8")
    except OSError as error:
        fail(f"cannot read {source}: {error.strerror}", EXIT_ERROR)
    except UnicodeDecodeError as error:
        line = source.read_bytes()[: error.start].count(b"\n") + 1
        fail(
            f"{source} is not UTF-8 text (line {line}, byte {error.start}): a session export "
            "is UTF-8 JSONL; nothing was imported",
            EXIT_ERROR,
        )
    with _archive(project) as archive:
        try:
            report = archive.import_text(text, new_id=new_id, source=str(source))
        except SessionsUnavailable as error:
            fail(str(error), EXIT_ERROR)
    skipped = f" (skipped unknown entries: {', '.join(report.skipped_types)})"
    click.echo(
        f"imported session {report.session_id} ({report.messages} messages)"
        + (skipped if report.skipped_types else "")
    )
