"""``/verify`` (the remembered lint and test commands, on demand) and ``/diff`` (the changes
ipuaro made this session as one diff) — registered commands, so the TUI, ACP and headless
front ends offer them without a row of their own."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ipuaro.core.replies import Reply

if TYPE_CHECKING:
    from ipuaro.core.ports import CommandHost
    from ipuaro.core.sessions import SessionArchive
    from ipuaro.domain import UndoEntry

DIFF_USAGE = "usage: /diff [N] — the changes of this session, or of its last N undo steps"


async def verify_command(workspace: CommandHost, args: tuple[str, ...]) -> Reply:
    from ipuaro.agent.run.verify import KEYS, CheckKind, kinds_for, missing_commands, run_checks

    which = args[0] if args else "both"
    kinds: tuple[CheckKind, ...] = kinds_for(which)
    tool_ctx = workspace.ctx.tool_ctx
    missing = missing_commands(tool_ctx, kinds)
    if len(missing) == len(kinds):
        keys = " and ".join(KEYS[k] for k in kinds)
        return Reply(
            f"nothing to run: no {keys} is remembered. Set one with "
            f"/memory set {KEYS[kinds[-1]]} 'COMMAND'.",
            "warning",
        )
    runs = await run_checks(tool_ctx, kinds)
    lines = [f"{run.kind}: {'passed' if run.ok else 'FAILED'}\n{run.report}" for run in runs]
    lines += [f"(no {key} is remembered; skipped)" for key in missing]
    ok = all(run.ok for run in runs)
    return Reply("\n\n".join(lines), "success" if ok else "error")


def diff_text(entries: list[UndoEntry], args: tuple[str, ...]) -> Reply:
    """The reply of ``/diff`` over a session's undo entries (also ``ipuaro diff``)."""
    from ipuaro.edits.session_diff import session_diff

    since: int | None = None
    if args:
        if not args[0].isdigit() or int(args[0]) < 1:
            return Reply(f"{args[0]!r} is not a number of undo steps; {DIFF_USAGE}", "error")
        since = int(args[0])
    diff, steps = session_diff(entries, since)
    if not diff:
        return Reply("ipuaro changed nothing in this session (nothing to undo).", "info")
    head = f"the changes of the last {steps} undo step(s) of this session (/undo reverts them)"
    return Reply(f"{head}\n\n{diff}", "info")


async def diff_command(workspace: CommandHost, args: tuple[str, ...]) -> Reply:
    entries = workspace.ctx.store.list_undo(workspace.session_id, "undo")
    return diff_text(entries, args)


def stored_session_diff(
    archive: SessionArchive, session_id: str | None, args: tuple[str, ...]
) -> tuple[str, Reply]:
    """(the session's id, the ``/diff`` reply) for ``ipuaro diff``: ``session_id`` or the most
    recently active session. Raises :class:`SessionMissing` for an unknown id or none at all."""
    from ipuaro.core.errors import SessionMissing

    if session_id is None:
        sessions = sorted(archive.sessions(), key=lambda s: s.last_activity_at)
        if not sessions:
            raise SessionMissing("this project has no session yet; nothing was changed")
        session_id = sessions[-1].id
    else:
        archive.load(session_id)  # raises SessionMissing, naming the sessions there are
    return session_id, diff_text(archive.store.list_undo(session_id, "undo"), args)
