"""Sessions in the store: create, resume the last one, save after every message, trim.

A session is saved whole after every message (user, assistant, each tool result), so a crash
mid-answer loses at most the partial answer being streamed, never an earlier turn. The undo and
redo stacks and the input history live in the store's own per-session lists (written by the edit
engine and the input box); the exported JSONL gathers them.
"""

from __future__ import annotations

import time
import uuid

from ipuaro.agent.context.history import last_summary_index
from ipuaro.config.schema import SessionConfig
from ipuaro.domain import ChatMessage, Session
from ipuaro.domain.errors import IpuaroError
from ipuaro.store.protocol import Store, StoreError

RECENT_SCAN = 20


class SessionNotFound(IpuaroError, LookupError):
    """No session with this id in the project's store."""

    def __init__(self, session_id: str, known: list[str]) -> None:
        hint = (
            f"known sessions: {', '.join(known[-5:])}" if known else "this project has no sessions"
        )
        super().__init__(
            f"session {session_id!r} not found ({hint}); list them with `ipuaro sessions list`"
        )
        self.session_id = session_id


def _last_request_index(history: list[ChatMessage]) -> int:
    """Index of the last normal user message (the pinned request), or ``len(history)``."""
    for index in range(len(history) - 1, -1, -1):
        message = history[index]
        if message.role == "user" and message.kind == "normal":
            return index
    return len(history)


def new_session_id() -> str:
    return uuid.uuid4().hex[:12]


class SessionKeeper:
    """Owns the reads and writes of sessions for one project."""

    def __init__(self, store: Store, config: SessionConfig) -> None:
        self.store = store
        self.config = config
        self.notices: list[str] = []
        """What the user should be told once (a damaged session skipped on resume)."""

    def create(self, model: str | None = None) -> Session:
        now = time.time()
        session = Session(
            id=new_session_id(),
            project_name=self.store.project_name,
            created_at=now,
            last_activity_at=now,
            model=model,
        )
        self.store.save_session(session)
        return session

    def load(self, session_id: str) -> Session:
        session = self.store.load_session(session_id)
        if session is None:
            raise SessionNotFound(session_id, self.store.list_sessions())
        return session

    def last(self) -> Session | None:
        """The most recently active readable session of this project, if any. A damaged one
        is skipped (and said in ``notices``): one bad record never locks the user out."""
        best: Session | None = None
        # The list is ordered by save; looking at the newest few is enough and keeps start fast.
        for session_id in reversed(self.store.list_sessions()[-RECENT_SCAN:]):
            try:
                session = self.store.load_session(session_id)
            except StoreError as error:
                self.notices.append(
                    f"skipped damaged session {session_id} when resuming ({error}); "
                    "`ipuaro sessions list` shows it"
                )
                continue
            if session is not None and (
                best is None or session.last_activity_at > best.last_activity_at
            ):
                best = session
        return best

    def resume_or_create(self, model: str | None, new: bool = False) -> Session:
        if not new:
            last = self.last()
            if last is not None:
                return last
        return self.create(model)

    def save(self, session: Session) -> None:
        session.last_activity_at = time.time()
        if session.title is None:
            first = next((m for m in session.history if m.role == "user"), None)
            if first is not None and first.content.strip():
                session.title = first.content.strip().splitlines()[0][:80]
        self.trim(session)
        self.store.save_session(session)

    def trim(self, session: Session) -> int:
        """Drop the oldest messages beyond ``max_history_messages`` — only ones the model no
        longer sees (before the last compaction), so the context never changes by trimming.

        The current request (the last normal user message) is pinned into the model's view
        even when the compaction cut falls after it, so nothing from it onwards is dropped;
        the project instructions live in the system prompt, never in the history."""
        excess = len(session.history) - self.config.max_history_messages
        cut = last_summary_index(session.history)
        removable = min(excess, cut, _last_request_index(session.history))
        if removable <= 0:
            return 0
        del session.history[:removable]
        return removable

    def hold_prompt(self, session: Session, text: str) -> None:
        """Save the user's prompt into the session now, before indexing and the first model
        request: a run killed in its first seconds keeps what the user asked. The agent takes
        this message as the request's own when it starts (no second copy)."""
        from ipuaro.agent.context.history import user_message

        last = session.history[-1] if session.history else None
        if (
            last is not None
            and last.role == "user"
            and last.kind == "normal"
            and last.content == text
        ):
            return  # the same request again after a run that died before any answer
        session.history.append(user_message(text))
        self.save(session)
        self.record_input(session, text)

    def record_input(self, session: Session, text: str) -> None:
        if not self.config.save_input_history:
            return
        session.input_history.append(text)
        self.store.append_input_history(session.id, text)
