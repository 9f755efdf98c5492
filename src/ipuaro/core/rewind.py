"""``/rewind``: go back to before one of the user's earlier requests.

``/rewind`` lists the requests of the session (numbered, oldest first); ``/rewind N`` drops
request N and everything after it from the conversation, so the user can ask again from there.
When ipuaro changed files since that request, the user is asked whether to undo those changes
too; "yes" takes them back from the undo stack, newest first, byte for byte — and stops at the
first change whose files were edited since (the reply says which), as ``/undo`` would.
The session keeps no trace of the dropped messages (it is saved after the rewind).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ipuaro.core.conveniences import NOTE_PREFIX
from ipuaro.core.decisions import Option, Question
from ipuaro.core.mentions import ATTACHED_HEADING
from ipuaro.core.replies import Reply, ReplyTable

if TYPE_CHECKING:
    from ipuaro.core.ports import CommandHost
    from ipuaro.domain import ChatMessage
    from ipuaro.edits.undo import UndoManager

SHOWN_CHARS = 70


@dataclass(frozen=True)
class RewindFiles(Question):
    changes: int = 0

    @classmethod
    def of(cls, request: str, changes: int, files: list[str]) -> RewindFiles:
        listed = ", ".join(files[:8]) + (f" and {len(files) - 8} more" if len(files) > 8 else "")
        return cls(
            "Rewind: undo the file changes too?",
            f"Since {request!r} ipuaro made {changes} change(s) to {listed}. Undo them as "
            "well (byte for byte, from the undo stack), or keep the files as they are?",
            (Option("undo", "Undo the files", "y"), Option("keep", "Keep the files", "n")),
            "keep",
            changes,
        )


def requests(history: list[ChatMessage]) -> list[int]:
    """Indexes in ``history`` of the user's own requests (not attachments, ``!`` notes,
    steers or summaries)."""
    return [
        i
        for i, m in enumerate(history)
        if m.role == "user"
        and m.kind == "normal"
        and not m.content.startswith((ATTACHED_HEADING, NOTE_PREFIX))
    ]


def _shown(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= SHOWN_CHARS else line[: SHOWN_CHARS - 1] + "…"


async def rewind_command(workspace: CommandHost, args: tuple[str, ...]) -> Reply:
    history = workspace.ctx.agent.session.history
    found = requests(history)
    if not found:
        return Reply("nothing to rewind: this session has no requests yet")
    if not args:
        rows = tuple((str(n), _shown(history[i].content)) for n, i in enumerate(found, 1))
        table = ReplyTable("Your requests (oldest first)", rows, ("#", "request"))
        return Reply("/rewind N goes back to before request N", tables=(table,))
    try:
        number = int(args[0])
    except ValueError:
        number = 0
    if not 1 <= number <= len(found):
        return Reply(
            f"usage: /rewind N, with N from 1 to {len(found)} (/rewind lists them)", "error"
        )
    return await workspace.tasks.run(
        "rewind", "/rewind", lambda: _rewind(workspace, found[number - 1])
    )


async def _rewind(workspace: CommandHost, cut: int) -> Reply:
    ctx = workspace.ctx
    history = ctx.agent.session.history
    request = history[cut]
    manager = ctx.undo_manager()
    since = [e for e in manager.history("undo") if e.timestamp >= request.timestamp]
    undone = ""
    if since:
        files = sorted({e.file_path for e in since})
        groups = len({e.group or e.id for e in since})
        answer = await workspace.ask(RewindFiles.of(_shown(request.content), groups, files))
        if answer.choice == "undo":
            undone = await asyncio.to_thread(_undo_since, manager, request.timestamp)
        else:
            undone = f"; the files keep their {groups} change(s) (/undo takes them back)"
    dropped = len(history) - cut
    del history[cut:]
    workspace.save()
    return Reply(
        f"rewound to before {_shown(request.content)!r}: {dropped} messages dropped{undone}",
        "success",
        redraw=True,
    )


def _undo_since(manager: UndoManager, since: float) -> str:
    undone = 0
    while True:
        entries = manager.history("undo")
        if not entries or entries[-1].timestamp < since:
            return f"; {undone} change(s) undone"
        outcome = manager.undo()
        if not outcome.done:
            return f"; {undone} change(s) undone, then stopped: {outcome.message}"
        undone += 1
