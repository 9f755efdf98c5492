"""The agent's current session: what a request writes into it and when it is saved.

A request opens by closing calls a crashed run left dangling and pinning the user's message; it
closes by folding its statistics into the session. Every message is saved at once. A save that
fails mid-request asks the user (retry / skip / abort) — the same choice as a failed index read,
so both go through :func:`with_store_retry`. Saves that must not stop the request (a single tool
result, the final save) only log and report.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from ipuaro.agent.context.history import close_dangling, summary_message, tool_message, user_message
from ipuaro.agent.events import AgentError, EndReason, ErrorChoice
from ipuaro.agent.run.dispatch import CANCELLED, CallRecord
from ipuaro.agent.run.stats import RequestStats
from ipuaro.domain import ChatMessage, Session
from ipuaro.domain.edits import ReadTracker
from ipuaro.domain.errors import IpuaroError
from ipuaro.store.protocol import StoreError

if TYPE_CHECKING:
    from ipuaro.agent.context.manager import ContextManager
    from ipuaro.agent.sessions.keeper import SessionKeeper

log = logging.getLogger(__name__)

INTERRUPTED = "interrupted: the previous run ended before this call finished"

Ask = Callable[[AgentError], Awaitable[ErrorChoice]]


class Stop(IpuaroError):
    """Ends the running request with ``reason``; the loop turns it into ``AgentEnd``."""

    def __init__(self, reason: EndReason, detail: str) -> None:
        super().__init__(detail)
        self.reason: EndReason = reason
        self.detail = detail


async def with_store_retry(action: Callable[[], object], what: str, ask: Ask) -> None:
    """Run ``action``; on a store failure the user retries it, skips it or stops the request."""
    while True:
        try:
            action()
            return
        except StoreError as error:
            choice = await ask(AgentError("store", f"{what} failed: {error}"))
            if choice == "skip":
                return
            if choice == "abort":
                raise Stop("error", f"the store failed: {error}") from None


class SessionBook:
    def __init__(
        self,
        sessions: SessionKeeper,
        session: Session,
        reads: Callable[[], ReadTracker],
        context: ContextManager,
        ask: Ask,
    ) -> None:
        self.sessions = sessions
        self.session = session
        self.reads = reads
        """The current session's reads (the agent's tool context owns them)."""
        self.context = context
        self.ask = ask
        self.pinned: ChatMessage | None = None
        """The request's user message: always in the model's view, even after compaction."""
        session.context.tokens_limit = context.budget.window
        context.meter.used = session.context.tokens_used  # a resumed session's ctx %, not 0

    @property
    def history(self) -> list[ChatMessage]:
        return self.session.history

    async def save(self) -> None:
        await with_store_retry(
            lambda: self.sessions.save(self.session), "saving the session", self.ask
        )

    async def open_request(self, text: str) -> None:
        close_dangling(self.history, INTERRUPTED)
        last = self.history[-1] if self.history else None
        if (
            last is not None
            and last.role == "user"
            and last.kind == "normal"
            and last.content == text
        ):
            # Saved ahead by the front end (see SessionKeeper.hold_prompt), or sent again after
            # a run that died before any answer: one message, not two.
            self.pinned = last
            await self.save()
            return
        message = user_message(text)
        self.history.append(message)
        self.pinned = message
        await self.save()
        self.sessions.record_input(self.session, text)

    def close_request(self, stats: RequestStats, detail: str | None) -> str | None:
        """Fold the request into the session and save it; returns ``detail`` with a failed
        save appended (the request has ended: there is nobody left to ask)."""
        close_dangling(self.history, CANCELLED)
        stats.fold_into(self.session.stats)
        self.session.context.loaded_files = self.reads().paths()
        self.session.context.tokens_used = self.context.meter.used
        try:
            self.sessions.save(self.session)
        except StoreError as error:
            log.warning("session not saved: %s", error)
            detail = f"{detail + '; ' if detail else ''}session not saved: {error}"
        return detail

    def keep_result(self, record: CallRecord) -> None:
        self.history.append(tool_message(record.call, record.result, record.content))
        try:
            self.sessions.save(self.session)
        except StoreError as error:  # the save after the batch asks the user about it
            log.warning("session not saved after %s: %s", record.call.name, error)

    def clear(self) -> None:
        """Start the model's view afresh; the history stays in the session for export."""
        self.history.append(summary_message("", self.context.meter.used, 0))
        self.context.meter.used = self.session.context.tokens_used = 0
        self.sessions.save(self.session)

    def switch(self, session: Session) -> None:
        self.session = session
        self.context.forget()
        self.context.meter.used = session.context.tokens_used
        self.pinned = None
        session.context.tokens_limit = self.context.budget.window
