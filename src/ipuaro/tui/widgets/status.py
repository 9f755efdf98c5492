"""The one-line status bar at the top: ctx %, project, branch, session time, state, modes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from rich.text import Text
from textual.widgets import Static

from ipuaro.tui.formatting import StatusFields, status_text


class StatusBar(Static):
    """Shows :class:`StatusFields`; the session time ticks from an injected clock."""

    DEFAULT_CSS = """
    StatusBar { height: 1; padding: 0 1; }
    """

    def __init__(
        self, fields: StatusFields, clock: Callable[[], float], started: float, **kwargs: Any
    ) -> None:
        super().__init__(Text(status_text(fields)), **kwargs)
        self.fields = fields
        self._clock = clock
        self._started = started

    def on_mount(self) -> None:
        self.set_interval(20, self.tick)

    def tick(self) -> None:
        self.change(age_s=self._clock() - self._started)

    def change(self, **changes: Any) -> None:
        self.fields = replace(self.fields, **changes)
        self.update(Text(status_text(self.fields)))
        self.set_class(self.fields.state == "error", "-error")
        self.set_class(self.fields.state == "thinking", "-thinking")
