"""One ACP session: ipuaro's events become session updates, its questions permission requests.

The agent's listener is synchronous and the protocol is not, so updates go through an ordered
outbox that one task sends; before a request answers (a prompt's stop reason, a permission
question) the outbox is flushed, so the client always sees a tool call before the question
about it and every chunk before the turn's end.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass

from acp import (
    start_tool_call,
    text_block,
    tool_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_tool_call,
)
from acp.interfaces import Client
from acp.schema import AllowedOutcome, PermissionOption, ToolCallUpdate, ToolKind

from ipuaro.acp.mapping import (
    CONFIRM_KINDS,
    Update,
    diffs,
    options,
    tool_ended,
    tool_kind,
    tool_started,
)
from ipuaro.agent.events import (
    AgentEnd,
    AgentError,
    AgentEvent,
    Compaction,
    ConflictChoice,
    ErrorChoice,
    ErrorRaised,
    LoopChoice,
    MessageDelta,
    ToolCallEnd,
    ToolCallStart,
)
from ipuaro.app import AppContext
from ipuaro.tools.base import ConfirmChoice, ConfirmRequest

log = logging.getLogger(__name__)

CONFIRM_OPTIONS = options(
    ("apply", "Apply", "allow_once"),
    ("always", "Always apply in this session", "allow_always"),
    ("reject", "Reject", "reject_once"),
)
ERROR_OPTIONS = {
    "retry": ("retry", "Retry", "allow_once"),
    "skip": ("skip", "Skip", "reject_once"),
    "abort": ("abort", "Abort", "reject_always"),
}
CONFLICT_OPTIONS = {
    "apply": ("apply", "Apply to the changed file", "allow_once"),
    "skip": ("skip", "Skip this edit", "reject_once"),
    "regenerate": ("regenerate", "Let the model redo it", "reject_always"),
}
LOOP_OPTIONS = options(
    ("continue", "Let it continue", "allow_once"),
    ("stop", "Stop the request", "reject_once"),
)


class Outbox:
    """Session updates in order, sent by one task."""

    def __init__(self, conn: Client, session_id: str) -> None:
        self.conn = conn
        self.session_id = session_id
        self._queue: asyncio.Queue[Update] = asyncio.Queue()
        self._task = asyncio.ensure_future(self._pump())

    def put(self, update: Update) -> None:
        self._queue.put_nowait(update)

    async def flush(self) -> None:
        await self._queue.join()

    async def close(self) -> None:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task

    async def _pump(self) -> None:
        while True:
            update = await self._queue.get()
            try:
                await self.conn.session_update(self.session_id, update)
            except Exception:  # the client went away; the turn still ends cleanly
                log.warning("session update not delivered", exc_info=True)
            finally:
                self._queue.task_done()


@dataclass
class Running:
    acp_id: str
    kind: ToolKind


class AcpDecisions:
    """ipuaro's questions (confirm an edit or command, retry / skip / abort, a conflict, the
    loop guard) asked as ``session/request_permission``. A cancelled question is a no."""

    def __init__(self) -> None:
        self.session: AcpSession | None = None

    def _view(self) -> AcpSession:
        assert self.session is not None, "the session is attached before the agent runs"
        return self.session

    async def confirm(self, request: ConfirmRequest) -> ConfirmChoice:
        view = self._view()
        kind = CONFIRM_KINDS.get(request.kind, "other")
        running = view.running_call(kind)
        changes = [
            {"path": f.path, "oldText": f.old_text, "newText": f.new_text} for f in request.files
        ]
        content = [
            *diffs(view.root, changes),
            tool_content(text_block(request.command or request.description)),
        ]
        update = ToolCallUpdate(
            tool_call_id=running.acp_id if running else view.new_id("confirm"),
            title=request.title,
            kind=kind,
            status="pending",
            content=content,
        )
        choice = await view.ask(update, CONFIRM_OPTIONS, announce=running is None)
        return choice if choice in ("apply", "always") else "reject"  # type: ignore[return-value]

    async def on_error(self, error: AgentError, choices: tuple[ErrorChoice, ...]) -> ErrorChoice:
        offered = options(*(ERROR_OPTIONS[c] for c in choices))
        title = f"{error.kind} error: {error.message}"
        choice = await self._view().question(title, offered)
        return choice if choice in choices else "abort"

    async def on_conflict(self, path: str, description: str) -> ConflictChoice:
        view = self._view()
        offered = options(*(CONFLICT_OPTIONS[c] for c in view.conflict_choices))
        title = f"{path} changed since the model read it. {description}".strip()
        choice = await view.question(title, offered)
        return choice if choice in view.conflict_choices else "skip"  # type: ignore[return-value]

    async def on_loop(self, tool_name: str, repeats: int) -> LoopChoice:
        title = f"{tool_name} was called {repeats} times in a row with the same arguments"
        choice = await self._view().question(title, LOOP_OPTIONS)
        return "continue" if choice == "continue" else "stop"


class AcpSession:
    def __init__(self, app: AppContext, conn: Client, decisions: AcpDecisions) -> None:
        self.app = app
        self.root = app.root
        self.id = app.session.id
        self.conn = conn
        self.outbox = Outbox(conn, self.id)
        self.conflict_choices: tuple[str, ...] = ("skip", "regenerate")
        self._ids: dict[str, Running] = {}
        self._running: list[Running] = []
        self._count = 0
        decisions.session = self
        app.agent.subscribe(self.on_event)

    # --- events -------------------------------------------------------------------------

    def on_event(self, event: AgentEvent) -> None:
        if isinstance(event, MessageDelta):
            self.outbox.put(update_agent_message_text(event.text))
        elif isinstance(event, ToolCallStart):
            running = Running(self.new_id(event.call.id), tool_kind(event.call.name))
            self._ids[event.call.id] = running
            self._running.append(running)
            self.outbox.put(tool_started(running.acp_id, event.call, event.summary, self.root))
        elif isinstance(event, ToolCallEnd):
            known = self._ids.pop(event.call.id, None)
            if known is None:  # cancelled before it started: the client still hears of it
                known = Running(self.new_id(event.call.id), tool_kind(event.call.name))
                self.outbox.put(tool_started(known.acp_id, event.call, event.call.name, self.root))
            elif known in self._running:
                self._running.remove(known)
            self.outbox.put(tool_ended(known.acp_id, event.result, self.root))
        elif isinstance(event, ErrorRaised) and event.error.kind == "conflict":
            self.conflict_choices = event.choices
        elif isinstance(event, Compaction):
            self.outbox.put(
                update_agent_thought_text(
                    f"Context compacted: {event.tokens_before:,} → {event.tokens_after:,} tokens."
                )
            )
        elif isinstance(event, AgentEnd) and event.reason not in ("done", "aborted"):
            detail = event.detail or event.reason
            self.outbox.put(update_agent_message_text(f"\n\nipuaro stopped: {detail}"))

    def new_id(self, base: str) -> str:
        self._count += 1
        return f"{self._count}:{base}"

    def running_call(self, kind: ToolKind) -> Running | None:
        """The tool call a question is about: the latest running call of that kind."""
        return next((r for r in reversed(self._running) if r.kind == kind), None) or (
            self._running[-1] if self._running else None
        )

    # --- questions ------------------------------------------------------------------------

    async def ask(
        self, update: ToolCallUpdate, offered: list[PermissionOption], *, announce: bool
    ) -> str | None:
        """The option the user picked, or None when the question was cancelled."""
        if announce:
            self.outbox.put(
                start_tool_call(
                    update.tool_call_id,
                    update.title or "question",
                    kind=update.kind,
                    status="pending",
                    content=update.content,
                )
            )
        await self.outbox.flush()
        response = await self.conn.request_permission(self.id, update, offered)
        outcome = response.outcome
        return outcome.option_id if isinstance(outcome, AllowedOutcome) else None

    async def question(self, title: str, offered: list[PermissionOption]) -> str | None:
        """A question that is not about a tool call: shown as its own pending entry."""
        acp_id = self.new_id("question")
        update = ToolCallUpdate(tool_call_id=acp_id, title=title, kind="other", status="pending")
        choice = await self.ask(update, offered, announce=True)
        self.outbox.put(_answered(acp_id, choice))
        return choice

    # --- turns ----------------------------------------------------------------------------

    async def prompt(self, text: str) -> AgentEnd:
        end = await self.app.agent.send(text)
        await self.outbox.flush()
        return end

    def cancel(self) -> None:
        self.app.agent.abort()

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.outbox.flush(), timeout=1)
        await self.outbox.close()
        await self.app.aclose()


def _answered(acp_id: str, choice: str | None) -> Update:
    return update_tool_call(
        acp_id,
        status="completed" if choice else "failed",
        content=[tool_content(text_block(f"answer: {choice or 'cancelled'}"))],
    )
