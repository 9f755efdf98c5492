"""The workspace's event bus: every event a front end sees goes out through one ``emit``.

Helpers receive ``bus.emit`` (an :data:`~ipuaro.core.ports.Emit`), never the workspace; front
ends ``subscribe`` through ``Workspace.subscribe``. A leaf: it imports no other core module
at run time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ipuaro.core.events import Event, Listener


class EventBus:
    """Listeners in the order they subscribed; each gets every event from then on."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Deliver every event from now on to ``listener``; returns how to stop."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def emit(self, event: Event) -> None:
        for listener in list(self._listeners):
            listener(event)
