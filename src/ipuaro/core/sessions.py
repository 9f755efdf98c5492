"""A project's stored sessions without a model: list, show, delete, export, import.

``ipuaro sessions …`` uses it directly (no model server needed); a :class:`Workspace` offers the
same operations for its open store.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from ipuaro.core.errors import SessionMissing, SessionsUnavailable
from ipuaro.core.reports import DeleteOutcome, ImportReport, SessionInfo

if TYPE_CHECKING:
    from ipuaro.config.schema import Config
    from ipuaro.domain import Session
    from ipuaro.store.protocol import Store


class SessionArchive:
    """The sessions of one project's store."""

    def __init__(self, store: Store, root: Path) -> None:
        self.store = store
        self.root = root

    @classmethod
    @contextmanager
    def opened(cls, root: Path, config: Config) -> Iterator[SessionArchive]:
        """The project's store, opened for the block; ``SessionsUnavailable`` if it cannot be."""
        from ipuaro.store.factory import open_store
        from ipuaro.store.protocol import StoreError

        try:
            store = open_store(config, root)
        except StoreError as error:
            raise SessionsUnavailable(str(error)) from None
        try:
            yield cls(store, root)
        except StoreError as error:  # damage met inside the block: the message says the fix
            raise SessionsUnavailable(str(error)) from None
        finally:
            store.close()

    def notices(self) -> list[str]:
        """What the store has to tell (sessions in damaged pages skipped, …)."""
        return list(getattr(self.store, "notices", []))

    def ids(self) -> list[str]:
        return self.store.list_sessions()

    def sessions(
        self, current: str | None = None, *, include_damaged: bool = False
    ) -> list[SessionInfo]:
        """Every readable session, in the store's order (oldest first). Each is read on its
        own: one that cannot be read is skipped, or listed as ``damaged`` (with what to do)
        when ``include_damaged``."""
        from ipuaro.store.protocol import StoreError

        infos: list[SessionInfo] = []
        for session_id in self.store.list_sessions():
            try:
                session = self.store.load_session(session_id)
            except StoreError as error:
                if include_damaged:
                    info = SessionInfo(session_id, None, 0, None, 0.0, 0.0, damaged=str(error))
                    infos.append(info)
                continue
            if session is None:
                continue
            infos.append(
                SessionInfo(
                    id=session.id,
                    title=session.title,
                    messages=len(session.history),
                    model=session.model,
                    created_at=session.created_at,
                    last_activity_at=session.last_activity_at,
                    current=session.id == current,
                )
            )
        return infos

    def load(self, session_id: str) -> Session:
        """The stored session; ``SessionMissing`` when there is none, ``SessionsUnavailable``
        (naming it and what to do) when it is damaged."""
        from ipuaro.store.protocol import StoreError

        try:
            session = self.store.load_session(session_id)
        except StoreError as error:
            raise SessionsUnavailable(f"session {session_id} cannot be read: {error}") from None
        if session is None:
            known = self.store.list_sessions()
            hint = f"known: {', '.join(known[-5:])}" if known else "this project has no sessions"
            raise SessionMissing(f"no session {session_id!r} ({hint}); see `ipuaro sessions list`")
        return session

    def delete(self, session_id: str, current: str | None = None) -> DeleteOutcome:
        """Delete a session and its undo/redo stacks (never the ``current`` one); a damaged
        session is deleted without being read."""
        if session_id == current:
            return "current"
        if not self.store.delete_session(session_id):
            return "missing"
        self.store.clear_undo(session_id, "undo")
        self.store.clear_undo(session_id, "redo")
        return "deleted"

    def export(self, session_id: str) -> list[str]:
        """The session as JSONL lines (header, then typed entries)."""
        from ipuaro.agent.sessions.jsonl import export_lines

        session = self.load(session_id)
        return export_lines(
            session,
            str(self.root),
            self.store.list_undo(session_id, "undo"),
            self.store.list_undo(session_id, "redo"),
        )

    def import_text(self, text: str, *, new_id: bool = False, source: str = "") -> ImportReport:
        """Store a JSONL export; ``new_id`` keeps both copies when the id is taken."""
        from ipuaro.agent.sessions.jsonl import JsonlError, import_text
        from ipuaro.agent.sessions.keeper import new_session_id
        from ipuaro.store.protocol import StoreError

        try:
            imported = import_text(text)
        except JsonlError as error:
            raise SessionsUnavailable(f"{source}: {error}" if source else str(error)) from None
        session = imported.session
        store = self.store
        if new_id:
            session.id = new_session_id()
        elif store.load_session(session.id) is not None:
            raise SessionsUnavailable(
                f"session {session.id} already exists here; delete it first or import with --new-id"
            )
        session.project_name = store.project_name
        try:
            store.save_session(session)
            limit = max(1, len(imported.undo), len(imported.redo))
            for entry in imported.undo:
                store.push_undo(session.id, entry, limit, "undo")
            for entry in imported.redo:
                store.push_undo(session.id, entry, limit, "redo")
            for line in session.input_history:
                store.append_input_history(session.id, line)
        except (StoreError, ValueError) as error:
            # Nothing half-way: the session goes with its undo stacks and input history.
            with contextlib.suppress(StoreError):
                store.delete_session(session.id)
            raise SessionsUnavailable(f"{source or 'the file'}: not imported ({error})") from None
        return ImportReport(session.id, len(session.history), tuple(sorted(imported.skipped_types)))
