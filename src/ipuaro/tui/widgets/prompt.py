"""The input box: grows with its text (``input.multiline``), ↑/↓ history, Tab path completion.

Enter sends. While the agent works, Enter steers it and Ctrl+F queues a follow-up; the app
decides which, the prompt only says which key was used. Ctrl+J (or Shift+Enter where the
terminal reports it, or a line ending in ``\\``) starts a new line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

from textual import events
from textual.message import Message
from textual.widgets import TextArea

from ipuaro.tui.completion import Completion, complete, complete_command, word_before
from ipuaro.tui.history import InputHistory

Multiline = Literal["auto", "always", "never"]
OWN_KEYS = frozenset({"enter", "ctrl+f", "ctrl+j", "shift+enter", "tab"})
"""Keys :meth:`PromptInput._on_key` handles itself (the rest are the text area's bindings)."""


class PromptInput(TextArea):
    @dataclass
    class Submitted(Message):
        prompt: PromptInput
        text: str
        follow_up: bool
        """Sent with Ctrl+F: queue after the running answer instead of steering it."""

    @dataclass
    class Completed(Message):
        """A Tab press: what matched (the app shows several candidates under the input)."""

        prompt: PromptInput
        completion: Completion

    def __init__(
        self,
        history: InputHistory,
        paths: Callable[[], Iterable[str]],
        multiline: Multiline = "auto",
        **kwargs: Any,
    ) -> None:
        super().__init__(
            soft_wrap=True,
            tab_behavior="focus",
            show_line_numbers=False,
            compact=True,
            highlight_cursor_line=False,
            placeholder="Ask anything — /help for commands",
            **kwargs,
        )
        self.input_history = history
        self.paths = paths
        self.multiline = multiline
        self.line_feed_sends = False
        """Set while the app starts: Enter typed before the app read the terminal raw arrives
        as a line feed (the terminal's ICRNL) and must still send, not start a new line."""
        self.set_class(multiline == "always", "-always")

    # --- keys -----------------------------------------------------------------------------

    async def _on_key(self, event: events.Key) -> None:
        key = event.key
        handled = True
        if key == "enter" or (key == "ctrl+j" and self.line_feed_sends):
            self._enter()
        elif key == "ctrl+f":
            self.submit(follow_up=True)
        elif key in ("ctrl+j", "shift+enter"):
            self.newline()
        elif key == "tab":
            self.complete_path()
        else:
            handled = False
        if handled:
            event.stop()
            event.prevent_default()
            return
        await super()._on_key(event)

    async def type_key(self, key: str, character: str | None) -> None:
        """Handle a key as if this input had the focus: one typed for it that reached a
        question or screen shown after the key was pressed (see ``ipuaro.tui.keys``)."""
        event = events.Key(key, character)
        if event.is_printable or key in OWN_KEYS:
            await self._on_key(event)
            return
        for binding in self._bindings.key_to_bindings.get(key, ()):
            if await self.app.run_action(binding.action, self):
                return

    async def _on_paste(self, event: events.Paste) -> None:
        if self.multiline == "never" and "\n" in event.text:
            event.prevent_default()
            event.stop()
            self.insert(" ".join(event.text.splitlines()))
            return
        await super()._on_paste(event)

    def _enter(self) -> None:
        row, column = self.cursor_location
        line = self.document.get_line(row)
        if self.multiline != "never" and column == len(line) and line.endswith("\\"):
            self.replace("\n", (row, column - 1), (row, column))
            return
        self.submit(follow_up=False)

    def newline(self) -> None:
        if self.multiline != "never":
            self.insert("\n")

    def submit(self, *, follow_up: bool) -> None:
        text = self.text
        if not text.strip():
            return
        self.input_history.add(text)
        self.clear()
        self.post_message(self.Submitted(self, text, follow_up))

    # --- history --------------------------------------------------------------------------

    def action_cursor_up(self, select: bool = False) -> None:
        if select or self.cursor_location[0] > 0:
            super().action_cursor_up(select)
            return
        entry = self.input_history.previous(self.text)
        if entry is not None:
            self._show(entry)

    def action_cursor_down(self, select: bool = False) -> None:
        if select or self.cursor_location[0] < self.document.line_count - 1:
            super().action_cursor_down(select)
            return
        entry = self.input_history.next()
        if entry is not None:
            self._show(entry)

    def _show(self, text: str) -> None:
        self.load_text(text)
        self.move_cursor(self.document.end)

    # --- completion -----------------------------------------------------------------------

    def complete_path(self) -> Completion:
        row, column = self.cursor_location
        line = self.document.get_line(row)
        start, word = word_before(line, column)
        if (row, start) == (0, 0) and word.startswith("/") and "/" not in word[1:]:
            from ipuaro.core.commands import all_commands

            workspace = getattr(self.app, "workspace", None)  # its own custom commands too
            table = workspace.commands if workspace is not None else None
            completion = complete_command(word, [spec.name for spec in all_commands(table)])
        else:
            completion = complete(word, self.paths())
        if completion.replacement != word:
            self.replace(completion.replacement, (row, start), (row, column))
            self.move_cursor((row, start + len(completion.replacement)))
        self.post_message(self.Completed(self, completion))
        return completion
