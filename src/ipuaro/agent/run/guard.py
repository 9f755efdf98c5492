"""Loop guard: the same tool with the same arguments several times in a row.

Small models loop (read the same lines, re-run the same failing command). The guard counts
consecutive identical calls across turns, successful or not; the agent asks the user at
``limit`` (headless stops). Any different call resets the count.
"""

from __future__ import annotations

import json

from ipuaro.domain import ToolCall

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
