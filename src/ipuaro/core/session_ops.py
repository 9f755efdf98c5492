"""A workspace's session switching and undo / redo (``Workspace`` delegates here).

Each function receives what it uses — the agent (whose session keeper switches the session),
the event bus's ``emit``, the services, the ``ask`` function — never the workspace; the
caller has asked the task runner first (a session change is refused while a task runs).
"""

from __future__ import annotations

import asyncio
from abc import abstractmethod
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ipuaro.core.decisions import OverwriteChanges
from ipuaro.core.errors import SessionMissing
from ipuaro.core.events import SessionSwitched
from ipuaro.core.reports import DeleteOutcome, ImportReport, SessionInfo, UndoReport
from ipuaro.core.sessions import SessionArchive

if TYPE_CHECKING:
    from ipuaro.agent.run.loop import Agent
    from ipuaro.core.decisions import Answer, Question
    from ipuaro.core.ports import Ask, Emit
    from ipuaro.core.wiring import AppContext


def archive(ctx: AppContext, root: Path) -> SessionArchive:
    return SessionArchive(ctx.store, root)


def new_session(agent: Agent, emit: Emit) -> str:
    session = agent.new_session()
    emit(SessionSwitched(session.id, "new"))
    return session.id


def load_session(agent: Agent, emit: Emit, session_id: str) -> None:
    """Make ``session_id`` current. Raises :class:`SessionMissing`."""
    from ipuaro.agent.sessions.keeper import SessionNotFound

    try:
        agent.load_session(session_id)
    except SessionNotFound as error:
        raise SessionMissing(str(error)) from None
    emit(SessionSwitched(session_id, "loaded"))


async def undo_redo(ctx: AppContext, ask: Ask, direction: Literal["undo", "redo"]) -> UndoReport:
    """When files changed since the edit, the user is asked before they are overwritten."""
    manager = ctx.undo_manager()
    move = manager.undo if direction == "undo" else manager.redo
    outcome = await asyncio.to_thread(move)
    if not outcome.done and outcome.changed_since:
        answer = await ask(OverwriteChanges.of(direction, outcome.message))
        if answer.choice == "force":
            outcome = await asyncio.to_thread(lambda: move(True))
    return UndoReport(direction, outcome.done, outcome.message)


class SessionOperations:
    """The workspace's stored-session and undo operations (a group of ``Workspace``
    methods) over its public facts: the services, the root, the current session, ``save``
    and ``ask``."""

    root: Path

    @property
    @abstractmethod
    def ctx(self) -> AppContext:
        """Provided by the ``Workspace``."""

    @property
    @abstractmethod
    def session_id(self) -> str:
        """Provided by the ``Workspace``."""

    @abstractmethod
    def save(self) -> None:
        """Provided by the ``Workspace``."""

    @abstractmethod
    async def ask(self, question: Question) -> Answer:
        """Provided by the ``Workspace``."""

    def list_sessions(self) -> list[SessionInfo]:
        """The project's sessions, oldest first; the current one is marked."""
        return archive(self.ctx, self.root).sessions(current=self.session_id)

    def delete_session(self, session_id: str) -> DeleteOutcome:
        """Delete another session (and its undo history); never the current one."""
        return archive(self.ctx, self.root).delete(session_id, current=self.session_id)

    def export_session(self, session_id: str | None = None) -> list[str]:
        """A session (the current one by default) as JSONL lines."""
        if session_id is None or session_id == self.session_id:
            self.save()
        return archive(self.ctx, self.root).export(session_id or self.session_id)

    def import_session(self, text: str, *, new_id: bool = False) -> ImportReport:
        """Store a JSONL export in this project (``SessionsUnavailable`` on a bad file)."""
        return archive(self.ctx, self.root).import_text(text, new_id=new_id)

    async def undo(self) -> UndoReport:
        return await undo_redo(self.ctx, self.ask, "undo")

    async def redo(self) -> UndoReport:
        return await undo_redo(self.ctx, self.ask, "redo")
