"""Loop guard: the same tool with the same arguments several times in a row.

Small models loop (read the same lines, re-run the same failing command). The guard counts
consecutive identical calls across turns, successful or not; the agent asks the user at
``limit`` (headless stops). Any different call resets the count.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable

from ipuaro.agent.context.history import tool_message
from ipuaro.agent.events import LoopChoice
from ipuaro.agent.run.bookkeeping import Stop
from ipuaro.domain import ChatMessage, ToolCall, ToolResult

DEFAULT_LIMIT = 3


def call_signature(call: ToolCall) -> str:
    return call.name + "\x00" + json.dumps(call.parameters, sort_keys=True, default=str)


class LoopGuard:
    def __init__(self, limit: int = DEFAULT_LIMIT) -> None:
        self.limit = limit
        self._last: str | None = None
        self._count = 0

    def observe(self, call: ToolCall) -> int:
        """Record one call; returns how many times in a row it has now been made."""
        signature = call_signature(call)
        if signature == self._last:
            self._count += 1
        else:
            self._last, self._count = signature, 1
        return self._count

    def tripped(self, count: int) -> bool:
        return count >= self.limit

    def reset(self) -> None:
        self._last, self._count = None, 0

    async def check(
        self,
        calls: list[ToolCall],
        ask: Callable[[str, int], Awaitable[LoopChoice]],
        history: list[ChatMessage],
    ) -> None:
        """Observe a turn's calls before they run; at the limit ask the user. "continue"
        starts the count afresh; otherwise every call of the turn is answered "not run" in
        ``history`` and the request stops (``Stop("limit", ...)``)."""
        for call in calls:
            repeats = self.observe(call)
            if not self.tripped(repeats):
                continue
            if await ask(call.name, repeats) == "continue":
                self.reset()
                continue
            note = f"not run: the same call was made {repeats} times in a row (loop guard)"
            for each in calls:
                result = ToolResult(call_id=each.id, success=False, error=note)
                history.append(tool_message(each, result, note))
            raise Stop(
                "limit",
                f"{call.name} was called {repeats} times in a row with the same "
                "arguments (loop guard)",
            )
