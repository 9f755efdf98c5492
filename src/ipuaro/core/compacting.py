"""Compaction as a task of the workspace's runner.

The agent compacts when the window fills up within a request, and on ``/compact``. The core
builds the agent's compactor as a :class:`TaskCompactor`: each compaction runs through the
task runner (``phase``), so ``running`` says ``compact`` while it lasts and ``TaskStarted`` /
``TaskEnded`` events mark it — a phase of the request when the window filled up, a task of
its own on ``/compact``.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from ipuaro.agent.run.compaction import CompactionOutcome, Compactor

if TYPE_CHECKING:
    from ipuaro.core.tasks import TaskRunner
    from ipuaro.domain import ChatMessage


class TaskCompactor(Compactor):
    """A compactor whose every compaction runs on ``tasks`` (once connected)."""

    tasks: TaskRunner | None = None

    async def compact(
        self,
        history: list[ChatMessage],
        pinned: ChatMessage | None,
        cancel: asyncio.Event,
        turn: int = 0,
        *,
        focus: str | None = None,
        keep: int | None = None,
    ) -> CompactionOutcome | None:
        run = super().compact
        if self.tasks is None:
            return await run(history, pinned, cancel, turn, focus=focus, keep=keep)
        what = "/compact" if keep is not None else "auto-compaction (the window filled up)"
        return await self.tasks.phase(
            "compact", what, lambda: run(history, pinned, cancel, turn, focus=focus, keep=keep)
        )
