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

if TYPE_CHECKING:
    from ipuaro.domain import Session
    from ipuaro.store.protocol import Store

EXIT_ERROR = 1


@contextmanager
def _store(project: Path | None) -> Iterator[tuple[Path, Store]]:
    from ipuaro.store.factory import open_store
    from ipuaro.store.protocol import StoreError

    root, config = load_project(project)
    try:
        store = open_store(config, root)
    except StoreError as error:
        fail(str(error), EXIT_ERROR)
    try:
        yield root, store
    finally:
        store.close()


def _load(store: Store, session_id: str) -> Session:
    session = store.load_session(session_id)
    if session is None:
        known = store.list_sessions()
        hint = f"known: {', '.join(known[-5:])}" if known else "this project has no sessions"
        fail(f"no session {session_id!r} ({hint}); see `ipuaro sessions list`", EXIT_ERROR)
    return session


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
    with _store(project) as (_, store):
        sessions = [s for s in (store.load_session(i) for i in store.list_sessions()) if s]
    sessions.sort(key=lambda s: s.last_activity_at)
    if as_json:
        rows = [
            {
                "id": s.id,
                "title": s.title,
                "messages": len(s.history),
                "model": s.model,
                "createdAt": s.created_at,
                "lastActivityAt": s.last_activity_at,
            }
            for s in sessions
        ]
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    if not sessions:
        click.echo("no sessions yet: `ipuaro` or `ipuaro run -p …` starts one")
        return
    for session in sessions:
        title = (session.title or "(empty)")[:60]
        click.echo(
            f"{session.id}  {_when(session.last_activity_at)}  {len(session.history):>4} msgs  "
            f"{title}"
        )


@command.command("show", help="Print a session's conversation.")
@project_option
@click.argument("session_id")
def show(project: Path | None, session_id: str) -> None:
    with _store(project) as (_, store):
        session = _load(store, session_id)
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
    with _store(project) as (_, store):
        _load(store, session_id)
        store.delete_session(session_id)
        store.clear_undo(session_id, "undo")
        store.clear_undo(session_id, "redo")
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
    from ipuaro.agent.jsonl import export_lines

    with _store(project) as (root, store):
        session = _load(store, session_id)
        lines = export_lines(
            session,
            str(root),
            store.list_undo(session_id, "undo"),
            store.list_undo(session_id, "redo"),
        )
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
    from ipuaro.agent.jsonl import JsonlError, import_text
    from ipuaro.agent.sessions import new_session_id

    try:
        text = source.read_text(encoding="utf-8")
    except OSError as error:
        fail(f"cannot read {source}: {error.strerror}", EXIT_ERROR)
    try:
        imported = import_text(text)
    except JsonlError as error:
        fail(f"{source}: {error}", EXIT_ERROR)
    session = imported.session
    with _store(project) as (_, store):
        if new_id:
            session.id = new_session_id()
        elif store.load_session(session.id) is not None:
            fail(
                f"session {session.id} already exists here; delete it first or import with "
                "--new-id",
                EXIT_ERROR,
            )
        session.project_name = store.project_name
        store.save_session(session)
        limit = max(1, len(imported.undo), len(imported.redo))
        for entry in imported.undo:
            store.push_undo(session.id, entry, limit, "undo")
        for entry in imported.redo:
            store.push_undo(session.id, entry, limit, "redo")
        for line in session.input_history:
            store.append_input_history(session.id, line)
    skipped = f" (skipped unknown entries: {', '.join(sorted(imported.skipped_types))})"
    click.echo(
        f"imported session {session.id} ({len(session.history)} messages)"
        + (skipped if imported.skipped_types else "")
    )
