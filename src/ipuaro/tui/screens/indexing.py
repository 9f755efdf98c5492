"""The first index of a project: a progress bar while the indexer works (in a thread).

Keys typed meanwhile go to the input beneath (``typed_for_input``): nothing here takes keys.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import events
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import ProgressBar, Static

from ipuaro.tui.formatting import plural
from ipuaro.tui.keys import KeySink


class IndexingScreen(Screen[None]):
    """Fed by :meth:`advance` from the app (thread-safe through ``call_from_thread``)."""

    def __init__(self, project: str, typed_for_input: KeySink | None = None) -> None:
        super().__init__()
        self.project = project
        self.typed_for_input = typed_for_input
        self._latest: tuple[int, int] | None = None

    def compose(self) -> Any:
        with Vertical(classes="indexing"):
            yield Static(
                Text(f"Indexing {self.project} (first run)", style="bold"), classes="dialog-title"
            )
            yield Static("scanning files…", id="index-status")
            yield ProgressBar(total=None, show_eta=False, id="index-progress")
            yield Static(
                Text("Later runs start at once and re-index changed files in the background."),
                classes="instructions",
            )

    def on_mount(self) -> None:
        if self._latest is not None:
            self.advance(*self._latest)

    async def on_key(self, event: events.Key) -> None:
        if self.typed_for_input is not None:
            event.stop()
            event.prevent_default()
            await self.typed_for_input(event)

    def advance(self, done: int, total: int) -> None:
        """Show ``done`` of ``total`` (kept until the screen is mounted)."""
        self._latest = (done, total)
        if not self.is_mounted:
            return
        bar = self.query_one(ProgressBar)
        bar.update(total=max(total, 1), progress=done)
        self.query_one("#index-status", Static).update(f"{done:,} / {plural(total, 'file')}")
