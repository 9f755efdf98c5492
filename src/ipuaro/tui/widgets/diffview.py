"""A proposed edit inside the chat: every file's diff, the description, and
``[Y] Apply  [A] Always  [N] Reject  [E] Edit``. The decision resolves a future the edit
engine awaits; ``A`` applies it and every later edit of the session unasked (a grant,
:mod:`ipuaro.security.policy.grants`).

A change of several files (a plan's) numbers them: ``1``…``9`` turn one file down (and back),
and ``Y`` applies the rest (``ConfirmDecision.rejected``); such a change has no ``A``."""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Button, Static

from ipuaro.domain.edits import ConfirmDecision, ConfirmRequest, FileChange
from ipuaro.tui.diff_render import DARK, DiffPalette, compute_file_diff, render_file_diff
from ipuaro.tui.keys import KeySink, key_clock, pressed_before
from ipuaro.tui.widgets.buttons import key_button


@dataclass(frozen=True)
class DiffOptions:
    """``edit.*`` settings that change the drawing."""

    show_diff: bool = True
    syntax: bool = True
    wrap: bool = True
    show_description: bool = True
    palette: DiffPalette = DARK


class DiffView(Static):
    """One file's change, drawn by :func:`render_file_diff` (re-wrapped on resize)."""

    def __init__(self, change: FileChange, options: DiffOptions, **kwargs: Any) -> None:
        self.change = change
        self.diff = compute_file_diff(change)
        renderable = render_file_diff(
            self.diff, syntax=options.syntax, wrap=options.wrap, palette=options.palette
        )
        super().__init__(renderable, **kwargs)


class ConfirmPanel(Vertical, can_focus=True):
    """Waits for Y / N / E. ``E`` asks the app (which owns the terminal) to open an editor.

    A key pressed before the panel took the focus was typed for the input: it goes to
    ``typed_for_input`` (and so does every later key, once one has: the user is typing).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "apply", "Apply"),
        Binding("a", "always", "Always"),
        Binding("n,escape", "reject", "Reject"),
        Binding("e", "edit", "Edit"),
        *(Binding(str(n), f"toggle_file({n - 1})", show=False) for n in range(1, 10)),
    ]

    @dataclass
    class EditRequested(Message):
        panel: ConfirmPanel

    @dataclass
    class Closed(Message):
        """Decided (or interrupted): the app gives the focus back to the prompt."""

        panel: ConfirmPanel

    def __init__(
        self,
        request: ConfirmRequest,
        options: DiffOptions,
        future: asyncio.Future[ConfirmDecision],
        typed_for_input: KeySink | None = None,
    ) -> None:
        super().__init__()
        self.request = request
        self.options = options
        self.future = future
        self.typed_for_input = typed_for_input
        self.focused_at = math.inf
        """When the panel took the focus (:func:`key_clock`); never, until it does."""
        self.deleting = request.kind == "delete"
        self.editable = not self.deleting and any(f.new_text is not None for f in request.files)
        self.rejected: set[str] = set()
        """Files turned down with 1…9 (only when the change has several)."""
        self.per_file = request.per_file and len(request.files) > 1
        self.offers_always = not request.per_file
        """An edit's question (not a plan's change) offers "always" for the session."""

    def compose(self) -> Any:
        yield Static(Text(self.request.title, style="bold"), classes="confirm-title")
        if self.options.show_diff:
            for number, change in enumerate(self.request.files, 1):
                if self.per_file:
                    yield Static(self._file_label(number, change.path), classes="confirm-file")
                yield DiffView(change, self.options, classes="diff")
        else:
            names = ", ".join(change.path for change in self.request.files)
            yield Static(Text(f"files: {names}"), classes="diff")
        if self.options.show_description and self.request.description.strip():
            yield Static(
                Text(f"Changes: {self.request.description.strip()}"),
                classes="confirm-description",
            )
        with Horizontal(classes="confirm-buttons"):
            yield key_button("y", "Delete" if self.deleting else "Apply", "apply")
            if self.offers_always:
                yield key_button("a", "Always", "always")
            yield key_button("n", "Keep" if self.deleting else "Reject", "reject")
            if self.editable:
                yield key_button("e", "Edit", "edit")

    def _file_label(self, number: int, path: str) -> Text:
        if path in self.rejected:
            return Text(f"[{number}] ✗ {path} (rejected; {number} takes it back)", style="red")
        key = f"[{number}] " if number <= 9 else ""
        return Text(f"{key}✓ {path}", style="green")

    def action_toggle_file(self, index: int) -> None:
        """Turn one file of a several-file change down, or take it back."""
        files = self.request.files
        if not self.per_file or self.decided or not 0 <= index < len(files):
            return
        path = files[index].path
        self.rejected ^= {path}
        labels = list(self.query(".confirm-file"))
        if index < len(labels):
            label = labels[index]
            assert isinstance(label, Static)
            label.update(self._file_label(index + 1, path))

    @property
    def decided(self) -> bool:
        return self.future.done()

    def withdraw(self) -> None:
        """The user interrupted the request: nothing is applied (the engine reads a
        rejection) and the panel says it was interrupted, not refused."""
        if not self.future.done():
            self.future.set_result(ConfirmDecision("reject"))
            self.interrupted()

    def interrupted(self) -> None:
        """The request was aborted while this waited: no decision will be taken."""
        self._close(Text("⊘ interrupted before a decision", style="yellow"))

    def _close(self, verdict: Text) -> None:
        for buttons in self.query(".confirm-buttons"):
            buttons.remove()
        self.mount(Static(verdict, classes="confirm-verdict"))
        self.add_class("-decided")
        self.can_focus = False
        self.post_message(self.Closed(self))

    def decide(self, decision: ConfirmDecision) -> None:
        if self.future.done():
            return
        self.future.set_result(decision)
        kept = len(self.request.files) - len(decision.rejected)
        verdict = {
            "apply": ("✓ applied" if not decision.edited else "✓ applied with your edits")
            + (f" ({kept} of {len(self.request.files)} files)" if decision.rejected else ""),
            "reject": "✗ rejected" if not self.deleting else "✗ kept",
            "always": "✓ applied (always)" if not self.deleting else "✓ deleted (always)",
        }[decision.choice]
        if decision.choice == "apply" and self.deleting:
            verdict = "✓ deleted"
        style = "green" if decision.choice != "reject" else "red"
        self._close(Text(verdict, style=style))

    def take_focus(self) -> None:
        """Receive keys from now on: set at once, not after the app's queue (where keys
        pressed after this moment may already wait, and must reach the panel)."""
        self.focused_at = key_clock()
        self.screen.set_focus(self)

    def on_focus(self, event: events.Focus) -> None:
        # However the focus came (Esc from the input, Tab, a click): keys from then on.
        self.focused_at = event.time

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        self.focused_at = event.time

    async def on_key(self, event: events.Key) -> None:
        if self.typed_for_input is None or self.decided:
            return
        if pressed_before(event, self.focused_at) or not self.has_focus_within:
            event.stop()
            event.prevent_default()
            await self.typed_for_input(event)

    def action_apply(self) -> None:
        if self.rejected and len(self.rejected) >= len(self.request.files):
            self.decide(ConfirmDecision("reject"))
        else:
            self.decide(ConfirmDecision("apply", rejected=frozenset(self.rejected)))

    def action_always(self) -> None:
        if self.offers_always:
            self.decide(ConfirmDecision("always"))

    def action_reject(self) -> None:
        self.decide(ConfirmDecision("reject"))

    def action_edit(self) -> None:
        if self.editable and not self.decided:
            self.post_message(self.EditRequested(self))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        {
            "apply": self.action_apply,
            "always": self.action_always,
            "reject": self.action_reject,
            "edit": self.action_edit,
        }[event.button.id or "reject"]()
