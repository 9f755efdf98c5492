"""The workspace's one task runner: what runs on the conversation, and what runs beside it.

The runner has two kinds of work and one rule for each:

- **Conversation tasks**, one at a time: an agent request, a plan request, a plan's apply
  (which waits for its confirmation), ``/reindex``, a ``!command``, ``/compact`` and
  ``/rewind``. ``busy`` means one runs (front ends read it as "Enter steers the running
  request"). A second task is refused with :class:`~ipuaro.core.errors.WorkspaceBusy` naming
  what runs; ``until_idle`` waits for the running one to end instead. The session is saved
  after each task.
  Compaction in the middle of a request (the window filled up) is a *phase* of that request:
  ``running`` says ``compact`` while it lasts, and ``TaskStarted`` / ``TaskEnded`` events
  mark it, as they mark ``/compact``.
- **Background tasks**: index refreshes (the start-up re-index). The runner owns them
  (``start_background``), ``indexing`` says one runs (``/status`` shows it), and a
  conversation task waits for them before it starts, so its tools read the current index.
  They do not make the workspace ``busy``: nothing they use is replaced by a conversation
  operation (``/model`` swaps the model binding alone; a session change or ``/clear`` does not
  touch the index), and closing the workspace leaves the store open for a refresh still in
  its thread.

What an operation that replaces something a task uses does while a conversation task runs:
``/model`` waits for it (``until_idle``) and swaps the binding at a moment no task runs: the
running request keeps its model, ``ModelSwitch.waited_for`` says what it waited for, and the
swap is no task itself, so a request typed meanwhile is not refused. A session change,
``/clear`` and ``/plan on|off`` are refused with what runs and "Ctrl+C interrupts it": they
are instant operations a user types between requests, and a session change while a plan's
change waits for its confirmation would move that change and its undo step into the other
session.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from ipuaro.core.errors import WorkspaceBusy
from ipuaro.core.events import Event, TaskEnded, TaskStarted

log = logging.getLogger(__name__)

TaskKind = Literal["request", "plan", "apply", "index", "command", "compact", "rewind", "refresh"]
T = TypeVar("T")

_DOING: dict[TaskKind, str] = {
    "request": "the agent is answering a request",
    "plan": "a plan is being made",
    "apply": "a plan's change is being applied (it may wait for your confirmation)",
    "index": "the project is being indexed",
    "command": "a command you typed after '!' is running",
    "compact": "the conversation is being compacted",
    "rewind": "the conversation is being rewound (it may wait for your answer)",
    "refresh": "the index is being refreshed in the background",
}


@dataclass(frozen=True)
class RunningTask:
    kind: TaskKind
    what: str
    """What the user asked for, for the busy message (``a request``, ``/apply``)."""
    within: RunningTask | None = None
    """The task this one is a phase of (an auto-compaction within a request)."""

    @property
    def doing(self) -> str:
        return _DOING[self.kind]


class TaskRunner:
    """One conversation task at a time; background index refreshes beside them."""

    def __init__(self, save: Callable[[], None], emit: Callable[[Event], None]) -> None:
        self._save = save
        self._emit = emit
        self._running: RunningTask | None = None
        self._idle = asyncio.Event()
        self._idle.set()
        self._background: set[asyncio.Task[Any]] = set()

    # --- facts ----------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        """A conversation task runs."""
        return self._running is not None

    @property
    def running(self) -> RunningTask | None:
        return self._running

    @property
    def indexing(self) -> bool:
        """A background index refresh runs."""
        return any(not task.done() for task in self._background)

    def describe(self) -> str:
        """One line for ``/status``: the running task and the background ones."""
        parts = [self._running.doing] if self._running is not None else []
        if self.indexing:
            parts.append(_DOING["refresh"])
        return "; ".join(parts) or "none (idle)"

    def refuse_if_busy(self, what: str) -> None:
        """:class:`WorkspaceBusy` naming what runs and what to do, when a task runs."""
        if self._running is not None:
            raise WorkspaceBusy(
                f"{what} waits until the agent has answered: {self._running.doing} "
                "(Ctrl+C interrupts it)"
            )

    # --- conversation tasks ---------------------------------------------------------------

    async def run(
        self,
        kind: TaskKind,
        what: str,
        work: Callable[[], Awaitable[T]],
        *,
        announce: bool = False,
    ) -> T:
        """Run ``work`` as the one conversation task (refused while another runs), once a
        running background refresh has finished; the session is saved after it, however it
        ends. ``announce`` sends ``TaskStarted`` / ``TaskEnded`` around it."""
        self.refuse_if_busy(what)
        task = self._running = RunningTask(kind, what)
        self._idle.clear()
        try:
            await self.index_settled()
            if not announce:
                return await work()
            return await self._announced(task, work)
        finally:
            self._running = None
            self._idle.set()
            self._save_quietly()

    async def until_idle(self) -> RunningTask | None:
        """Return once no conversation task runs (at once when none does): what ran, if one
        did. Nothing is awaited between this returning and the caller's next step."""
        waited = self._running
        while self._running is not None:
            await self._idle.wait()
        return waited.within or waited if waited is not None else None

    async def phase(self, kind: TaskKind, what: str, work: Callable[[], Awaitable[T]]) -> T:
        """Run ``work`` as a phase of the running task (an auto-compaction within a
        request): ``running`` names it meanwhile and events mark it. With no task running
        it is a task of its own; within a task of the same kind it is that task."""
        outer = self._running
        if outer is None:
            return await self.run(kind, what, work, announce=True)
        if outer.kind == kind:
            return await work()
        task = self._running = RunningTask(kind, what, within=outer)
        try:
            return await self._announced(task, work)
        finally:
            self._running = outer

    async def _announced(self, task: RunningTask, work: Callable[[], Awaitable[T]]) -> T:
        within = task.within.kind if task.within is not None else None
        self._emit(TaskStarted(task.kind, task.what, within))
        outcome: Literal["done", "failed", "cancelled"] = "failed"
        try:
            result = await work()
            outcome = "done"
            return result
        except asyncio.CancelledError:
            outcome = "cancelled"
            raise
        finally:
            self._emit(TaskEnded(task.kind, task.what, outcome, within))

    # --- background tasks -----------------------------------------------------------------

    def start_background(self, work: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        """Run an index refresh beside the conversation (tasks wait for it to start)."""
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    async def index_settled(self) -> None:
        """Return once no background index refresh runs (its failure is its own event)."""
        running = [task for task in self._background if not task.done()]
        if running:
            await asyncio.wait(running)

    async def cancel_background(self) -> None:
        """Stop waiting for the background refreshes (closing): an index run already in its
        thread finishes there, writing through the store, which stays open for it."""
        for task in list(self._background):
            task.cancel()
        self._background.clear()

    def _save_quietly(self) -> None:
        from ipuaro.store.protocol import StoreError

        try:
            self._save()
        except StoreError as error:  # the work stands; the session is saved again on exit
            log.warning("session not saved after the task: %s", error)
        except RuntimeError:  # the workspace was closed meanwhile (the process is ending)
            pass
