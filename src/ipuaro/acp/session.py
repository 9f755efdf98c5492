"""One ACP session: a workspace's events become session updates, its questions permission
requests.

The workspace's listener is synchronous and the protocol is not, so updates go through an
ordered outbox that one task sends; before a request answers (a prompt's stop reason, a
question) the outbox is flushed, so the client always sees a tool call before the question
about it and every chunk before the turn's end.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass, field

from acp import (
    start_tool_call,
    text_block,
    tool_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_tool_call,
)
from acp.interfaces import Client
from acp.schema import AllowedOutcome, CurrentModeUpdate, ToolCallUpdate, ToolKind

from ipuaro.acp.mapping import (
    CONFIRM_KINDS,
    ToolContent,
    Update,
    confirm_diffs,
    permission_options,
    tool_ended,
    tool_started,
)
from ipuaro.core.decisions import Answer, ConfirmChange, Question
from ipuaro.core.events import (
    AgentEnd,
    Compaction,
    Event,
    ExtensionWarning,
    IndexProgress,
    MessageDelta,
    ModeChanged,
    ToolCallEnd,
    ToolCallStart,
    WatcherFailed,
)
from ipuaro.core.workspace import Workspace

log = logging.getLogger(__name__)

PROGRESS_EVERY_S = 0.5
"""Indexing progress goes to the client at most this often."""


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
    shown: list[ToolContent] = field(default_factory=list)
    """The diffs its permission question showed (the finished call shows them again)."""


class AcpDecider:
    """The workspace's decider: every question as ``session/request_permission``. The session
    is attached once the workspace is open (no question comes before that)."""

    def __init__(self) -> None:
        self.session: AcpSession | None = None

    async def decide(self, question: Question) -> Answer | str:
        if self.session is None:  # only the large-project question could come this early
            return question.safe
        return await self.session.ask(question)


class AcpSession:
    def __init__(self, workspace: Workspace, conn: Client, decider: AcpDecider) -> None:
        self.workspace = workspace
        self.root = workspace.root
        self.id = workspace.session_id
        self.outbox = Outbox(conn, self.id)
        self.conn = conn
        self._ids: dict[str, Running] = {}
        self._running: list[Running] = []
        self._count = 0
        self._progress_at = 0.0
        self._progress_seen = (-1, -1)
        decider.session = self
        self._unsubscribe = workspace.subscribe(self.on_event)

    # --- events ---------------------------------------------------------------------------

    def on_event(self, event: Event) -> None:
        if isinstance(event, MessageDelta):
            self.outbox.put(update_agent_message_text(event.text))
        elif isinstance(event, ToolCallStart):
            facts = self.workspace.describe_call(event.call)
            running = Running(self.new_id(event.call.id), facts.kind)
            self._ids[event.call.id] = running
            self._running.append(running)
            self.outbox.put(
                tool_started(running.acp_id, event.call, facts, event.summary, self.root)
            )
        elif isinstance(event, ToolCallEnd):
            self._ended(event)
        elif isinstance(event, IndexProgress) and not event.background:
            now = time.monotonic()
            seen = (event.done, event.total) == self._progress_seen
            if seen or (event.done < event.total and now - self._progress_at < PROGRESS_EVERY_S):
                return
            self._progress_at, self._progress_seen = now, (event.done, event.total)
            name = self.root.name
            line = f"Indexing {name}: {event.done:,}/{event.total:,} files\n"
            self.outbox.put(update_agent_message_text(line))
        elif isinstance(event, Compaction):
            line = f"Context compacted: {event.tokens_before:,} → {event.tokens_after:,} tokens."
            self.outbox.put(update_agent_thought_text(line))
        elif isinstance(event, ModeChanged):
            mode = "plan" if event.plan_mode else "code"
            self.outbox.put(
                CurrentModeUpdate(session_update="current_mode_update", current_mode_id=mode)
            )
        elif isinstance(event, WatcherFailed | ExtensionWarning):
            self.outbox.put(update_agent_thought_text(event.message))
        elif isinstance(event, AgentEnd) and event.reason not in ("done", "aborted"):
            detail = event.detail or event.reason
            self.outbox.put(update_agent_message_text(f"\n\nipuaro stopped: {detail}"))

    def _ended(self, event: ToolCallEnd) -> None:
        known = self._ids.pop(event.call.id, None)
        if known is None:  # cancelled before it started: the client still hears of it
            facts = self.workspace.describe_call(event.call)
            known = Running(self.new_id(event.call.id), facts.kind)
            self.outbox.put(
                tool_started(known.acp_id, event.call, facts, event.call.name, self.root)
            )
        elif known in self._running:
            self._running.remove(known)
        self.outbox.put(tool_ended(known.acp_id, event.result, self.root, known.shown))

    def new_id(self, base: str) -> str:
        self._count += 1
        return f"{self._count}:{base}"

    def running_call(self, kind: ToolKind) -> Running | None:
        """The tool call a question is about: the latest running call of that kind."""
        return next((r for r in reversed(self._running) if r.kind == kind), None) or (
            self._running[-1] if self._running else None
        )

    # --- questions ------------------------------------------------------------------------

    async def ask(self, question: Question) -> str:
        """Put ``question`` to the client; its safe answer when the client cancels it."""
        content: list[ToolContent] = []
        kind: ToolKind = "other"
        running: Running | None = None
        if isinstance(question, ConfirmChange):
            request = question.request
            kind = CONFIRM_KINDS.get(request.kind, "other")
            running = self.running_call(kind)
            content.extend(confirm_diffs(self.root, request.files))
            if running is not None:
                running.shown = list(content)
        if not content or not isinstance(question, ConfirmChange):
            content.append(tool_content(text_block(question.message or question.title)))
        acp_id = running.acp_id if running is not None else self.new_id("question")
        if running is None:
            self.outbox.put(
                start_tool_call(
                    acp_id, question.title, kind=kind, status="pending", content=content
                )
            )
        update = ToolCallUpdate(
            tool_call_id=acp_id, title=question.title, kind=kind, status="pending", content=content
        )
        await self.outbox.flush()
        try:
            response = await self.conn.request_permission(
                self.id, update, permission_options(question)
            )
        except asyncio.CancelledError:  # the prompt was cancelled while the question was open
            if running is None:
                self.outbox.put(update_tool_call(acp_id, status="failed"))
            raise
        except Exception as error:  # the client cannot ask (an error answer, gone): say no
            log.warning("permission request failed (%s); answering %s", error, question.safe)
            response = None
        outcome = response.outcome if response is not None else None
        choice = outcome.option_id if isinstance(outcome, AllowedOutcome) else question.safe
        if running is None:
            self.outbox.put(
                update_tool_call(
                    acp_id,
                    status="completed",
                    content=[*content, tool_content(text_block(f"answer: {choice}"))],
                )
            )
        return choice

    # --- turns ----------------------------------------------------------------------------

    async def prompt(self, text: str) -> AgentEnd:
        end = await self.workspace.send(text)
        await self.outbox.flush()
        return end

    def cancel(self) -> None:
        self.workspace.abort()

    async def close(self) -> None:
        self._unsubscribe()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.outbox.flush(), timeout=1)
        await self.outbox.close()
        await self.workspace.aclose()
