"""What the user typed while the agent worked: steering messages and follow-ups.

A steer is injected before the next model call of the running request; a follow-up becomes the
next request once the running one has answered. Every change is announced (``QueueChanged``) so
the UI can show what is waiting.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from ipuaro.agent.events import QueueChanged


class InputQueues:
    def __init__(self, announce: Callable[[QueueChanged], None]) -> None:
        self._announce = announce
        self._steers: deque[str] = deque()
        self._follow_ups: deque[str] = deque()

    @property
    def has_steers(self) -> bool:
        return bool(self._steers)

    @property
    def has_follow_ups(self) -> bool:
        return bool(self._follow_ups)

    def snapshot(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        return tuple(self._steers), tuple(self._follow_ups)

    def steer(self, text: str) -> None:
        self._steers.append(text)
        self._changed()

    def follow_up(self, text: str) -> None:
        self._follow_ups.append(text)
        self._changed()

    def take_steers(self) -> list[str]:
        taken = list(self._steers)
        if taken:
            self._steers.clear()
            self._changed()
        return taken

    def next_follow_up(self) -> str | None:
        if not self._follow_ups:
            return None
        text = self._follow_ups.popleft()
        self._changed()
        return text

    def drop_steers(self) -> None:
        if self._steers:
            self._steers.clear()
            self._changed()

    def _changed(self) -> None:
        steers, follow_ups = self.snapshot()
        self._announce(QueueChanged(steers, follow_ups))
