"""The workspace's one task runner: what runs on the conversation, one at a time.

Every piece of work that reads or changes the session — an agent request, a plan request, a
plan's apply (which waits for its confirmation), an index run the user asked for — is a task.
This is the one place that knows whether one runs (``busy``), refuses a second one with
:class:`~ipuaro.core.errors.WorkspaceBusy`, and saves the session after each. Operations that
swap what a task uses (``/model``, a session change, plan mode, ``/clear``) ask ``busy`` first
and are refused while a task runs, so nothing is closed or replaced under it.

Background index refreshes (the start-up re-index) are tracked beside the tasks: they do not
make the workspace ``busy`` (a front end treats ``busy`` as "Enter steers the running request"),
but a task waits for the running refresh before it starts, so its tools read the current index.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from ipuaro.core.errors import WorkspaceBusy

log = logging.getLogger(__name__)

TaskKind = Literal["request", "plan", "apply", "index", "command", "compact", "rewind"]
T = TypeVar("T")

_DOING: dict[TaskKind, str] = {
    "request": "the agent is answering a request",
    "plan": "a plan is being made",
    "apply": "a plan's change is being applied (it may wait for your confirmation)",
    "index": "the project is being indexed",
    "command": "a command you typed after '!' is running",
    "compact": "the conversation is being compacted",
    "rewind": "the conversation is being rewound (it may wait for your answer)",
}


@dataclass(frozen=True)
class RunningTask:
    kind: TaskKind
    what: str
    """What the user asked for, for the busy message (``a request``, ``/apply``)."""


class TaskRunner:
    """One conversation task at a time; background index refreshes tracked beside them."""

    def __init__(self, save: Callable[[], None]) -> None:
        self._save = save
        self._running: RunningTask | None = None
        self._refresh: asyncio.Task[Any] | None = None

    # --- facts ----------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self._running is not None

    @property
    def running(self) -> RunningTask | None:
        return self._running

    @property
    def indexing(self) -> bool:
        """A background index refresh runs."""
        return self._refresh is not None and not self._refresh.done()

    def refuse_if_busy(self, what: str) -> None:
        """:class:`WorkspaceBusy` naming what runs and what to do, when a task runs."""
        if self._running is not None:
            raise WorkspaceBusy(
                f"{what} waits until the agent has answered: {_DOING[self._running.kind]} "
                "(Ctrl+C interrupts it)"
            )

    # --- running --------------------------------------------------------------------------

    async def run(self, kind: TaskKind, what: str, work: Callable[[], Awaitable[T]]) -> T:
        """Run ``work`` as the one task (after a background index refresh that runs now has
        finished); the session is saved after it, however it ends."""
        self.refuse_if_busy(what)
        self._running = RunningTask(kind, what)
        try:
            await self.index_settled()
            return await work()
        finally:
            self._running = None
            self._save_quietly()

    def track_refresh(self, refresh: asyncio.Task[T]) -> asyncio.Task[T]:
        """Remember a background index refresh (tasks wait for it before they start)."""
        self._refresh = refresh
        return refresh

    async def index_settled(self) -> None:
        """Return once no background index refresh runs (its failure is its own event)."""
        refresh = self._refresh
        if refresh is not None and not refresh.done():
            await asyncio.wait([refresh])

    def _save_quietly(self) -> None:
        from ipuaro.store.protocol import StoreError

        try:
            self._save()
        except StoreError as error:  # the work stands; the session is saved again on exit
            log.warning("session not saved after the task: %s", error)
        except RuntimeError:  # the workspace was closed meanwhile (the process is ending)
            pass
