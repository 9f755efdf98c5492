"""A workspace's session switching and undo / redo (``Workspace`` delegates here)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Literal

from ipuaro.core.decisions import OverwriteChanges
from ipuaro.core.errors import SessionMissing
from ipuaro.core.events import SessionSwitched
from ipuaro.core.reports import UndoReport
from ipuaro.core.sessions import SessionArchive

if TYPE_CHECKING:
    from ipuaro.core.workspace import Workspace


def archive(workspace: Workspace) -> SessionArchive:
    return SessionArchive(workspace.ctx.store, workspace.root)


def new_session(workspace: Workspace) -> str:
    workspace._idle("/sessions new")
    session = workspace.ctx.agent.new_session()
    workspace._emit(SessionSwitched(session.id, "new"))
    return session.id


def load_session(workspace: Workspace, session_id: str) -> None:
    """Make ``session_id`` current. Raises :class:`SessionMissing`."""
    from ipuaro.agent.sessions.keeper import SessionNotFound

    workspace._idle("/sessions load")
    try:
        workspace.ctx.agent.load_session(session_id)
    except SessionNotFound as error:
        raise SessionMissing(str(error)) from None
    workspace._emit(SessionSwitched(session_id, "loaded"))


async def undo_redo(workspace: Workspace, direction: Literal["undo", "redo"]) -> UndoReport:
    """When files changed since the edit, the user is asked before they are overwritten."""
    manager = workspace.ctx.undo_manager()
    move = manager.undo if direction == "undo" else manager.redo
    outcome = await asyncio.to_thread(move)
    if not outcome.done and outcome.changed_since:
        answer = await workspace._asking.ask(OverwriteChanges.of(direction, outcome.message))
        if answer.choice == "force":
            outcome = await asyncio.to_thread(lambda: move(True))
    return UndoReport(direction, outcome.done, outcome.message)
