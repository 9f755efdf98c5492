"""Shown when a start-up check fails: what is wrong, how to fix it, and [R] Retry / [Q] Quit —
plus [P] Pull when the Ollama server lacks the model (with a progress bar).

Keys pressed before it opened, and keys that are none of its choices, go to the input beneath.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import events, work
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, ProgressBar, Static

from ipuaro.tui.keys import KeySink, key_clock, pressed_before
from ipuaro.tui.startup import Onboarding, start_instructions
from ipuaro.tui.widgets.buttons import key_button

if TYPE_CHECKING:
    from ipuaro.config.schema import Config


class OnboardingScreen(Screen[str]):
    """Dismisses with ``retry`` (also after a successful pull) or ``quit``."""

    def __init__(
        self, onboarding: Onboarding, config: Config, typed_for_input: KeySink | None = None
    ) -> None:
        super().__init__()
        self.onboarding = onboarding
        self.config = config
        self.typed_for_input = typed_for_input
        self.opened_at = key_clock()
        self.pulling = False

    def compose(self) -> Any:
        with Vertical(classes="onboarding"):
            yield Static(Text("ipuaro cannot start yet", style="bold"), classes="dialog-title")
            for result in self.onboarding.results:
                # What passed is named only; what failed gets its detail and its fix.
                line = Text(f"✓ {result.name}" if result.ok else result.line())
                line.stylize("green" if result.ok else "red", 0, 1)
                yield Static(line, classes="check")
            if self.onboarding.server_down:
                yield Static(Text(start_instructions(self.config)), classes="instructions")
            if self.onboarding.can_pull:
                yield Static(
                    Text(f"Press P to download {self.config.llm.model} now."),
                    classes="instructions",
                )
                yield Static("", id="pull-status")
                yield ProgressBar(total=100, show_eta=False, id="pull-progress")
            with Horizontal(classes="dialog-buttons"):
                if self.onboarding.can_pull:
                    yield key_button("p", "Pull model", "pull")
                yield key_button("r", "Retry", "retry")
                yield key_button("q", "Quit", "quit")

    def on_mount(self) -> None:
        buttons = self.query(Button)
        if buttons:
            buttons.first().focus()

    async def on_key(self, event: events.Key) -> None:
        action = {"r": "retry", "q": "quit", "p": "pull", "escape": "quit"}.get(event.key)
        if action is not None and not pressed_before(event, self.opened_at):
            event.stop()
            self._choose(action)
        elif self.typed_for_input is not None and (
            event.is_printable or pressed_before(event, self.opened_at)
        ):
            event.stop()
            event.prevent_default()
            await self.typed_for_input(event)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self._choose(event.button.id or "quit")

    def _choose(self, action: str) -> None:
        if self.pulling:
            return
        if action == "pull":
            if self.onboarding.can_pull:
                self.pull()
            return
        self.dismiss(action)

    @work(exclusive=True, group="pull")
    async def pull(self) -> None:
        from ipuaro.core.checks import pull_model
        from ipuaro.core.errors import WorkspaceError

        self.pulling = True
        status = self.query_one("#pull-status", Static)
        bar = self.query_one("#pull-progress", ProgressBar)

        def progress(text: str, fraction: float | None) -> None:
            status.update(Text(f"{text}"))
            if fraction is not None:
                bar.update(progress=round(fraction * 100))

        try:
            await pull_model(self.config, progress)
        except WorkspaceError as error:
            status.update(Text(f"✗ pull failed: {error}", style="red"))
            self.pulling = False
            return
        bar.update(progress=100)
        self.pulling = False
        self.dismiss("retry")
