"""Modal choices: errors (retry / skip / abort), edit conflicts (apply / skip / regenerate),
commands and secret reads (run once / always / refuse), the loop guard (continue / stop).

One :class:`ChoiceDialog` with a key per choice; the builders below fill in the concept's
wording. The dialog dismisses with the chosen value, so the caller awaits a plain string.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import events
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from ipuaro.core.decisions import (
    ConfirmChange,
    LoopDetected,
    Question,
    RecoverError,
    ResolveConflict,
)
from ipuaro.core.events import AgentError
from ipuaro.domain.edits import ConfirmRequest
from ipuaro.tui.keys import KeySink, key_clock, pressed_before
from ipuaro.tui.widgets.buttons import key_button


@dataclass(frozen=True)
class Choice:
    key: str
    label: str
    value: str


class ChoiceDialog(ModalScreen[str]):
    """Title, message, optional detail block, and one button per choice (its key pressed or
    the button clicked). Escape picks ``escape_value``."""

    DEFAULT_CSS = """
    ChoiceDialog { align: center middle; }
    """

    def __init__(
        self,
        title: str,
        message: str,
        choices: Sequence[Choice],
        *,
        detail: str | None = None,
        escape_value: str | None = None,
        kind: str = "info",
        typed_for_input: KeySink | None = None,
    ) -> None:
        super().__init__()
        self.title_text = title
        self.message = message
        self.choices = list(choices)
        self.detail = detail
        self.escape_value = escape_value if escape_value is not None else self.choices[-1].value
        self.kind = kind
        self.typed_for_input = typed_for_input
        """Where keys pressed before the dialog opened go: they were typed for the input,
        not as an answer (``a`` in "always" must not choose Abort, nor be lost)."""
        self.opened_at = key_clock()
        """Re-read by whoever shows the dialog, at the moment it does."""

    def compose(self) -> Any:
        with Vertical(classes=f"dialog -{self.kind}"):
            yield Static(Text(self.title_text, style="bold"), classes="dialog-title")
            yield Static(Text(self.message), classes="dialog-message")
            if self.detail:
                yield Static(Text(self.detail), classes="dialog-detail")
            with Horizontal(classes="dialog-buttons"):
                for choice in self.choices:
                    yield key_button(choice.key, choice.label, f"c-{choice.value}")

    def on_mount(self) -> None:
        buttons = self.query(Button)
        if buttons:
            buttons.first().focus()

    async def on_key(self, event: events.Key) -> None:
        if pressed_before(event, self.opened_at):
            event.stop()
            event.prevent_default()  # not Enter on the focused button either
            if self.typed_for_input is not None:
                await self.typed_for_input(event)
            return
        keys = {choice.key.lower(): choice.value for choice in self.choices}
        keys["escape"] = self.escape_value
        value = keys.get(event.key.lower())
        if value is not None:
            event.stop()
            event.prevent_default()
            self.dismiss(value)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss((event.button.id or "").removeprefix("c-"))


def error_dialog(error: AgentError, choices: Sequence[str]) -> ChoiceDialog:
    labels = {"retry": ("r", "Retry"), "skip": ("s", "Skip"), "abort": ("a", "Abort")}
    message = error.message
    if error.suggestion:
        message += f"\n\n{error.suggestion}"
    return ChoiceDialog(
        f"Error ({error.kind})",
        message,
        [Choice(*labels[c], c) for c in choices if c in labels],
        escape_value="abort" if "abort" in choices else None,
        kind="error",
    )


CONFLICT_CHOICES = {
    "apply": Choice("a", "Apply", "apply"),
    "skip": Choice("s", "Skip", "skip"),
    "regenerate": Choice("r", "Regenerate", "regenerate"),
}


def conflict_dialog(
    path: str, description: str, choices: Sequence[str] = ("apply", "skip", "regenerate")
) -> ChoiceDialog:
    """``apply`` is offered only when the edit could be moved onto the file's new content."""
    message = f"{path} changed while the answer was being generated."
    if "apply" not in choices:
        message += " The edited lines changed too, so it cannot be applied as is."
    return ChoiceDialog(
        "Edit conflict",
        message,
        [CONFLICT_CHOICES[c] for c in choices if c in CONFLICT_CHOICES],
        detail=description or None,
        escape_value="skip",
        kind="warning",
    )


def loop_dialog(tool_name: str, repeats: int) -> ChoiceDialog:
    return ChoiceDialog(
        "Loop guard",
        f"The model called {tool_name} {repeats} times in a row with the same arguments.",
        [Choice("c", "Continue", "continue"), Choice("s", "Stop", "stop")],
        escape_value="stop",
        kind="warning",
    )


def command_dialog(request: ConfirmRequest) -> ChoiceDialog:
    """Commands the policy does not know, git commits, and secret reads."""
    if request.kind == "read_secret":
        choices = [
            Choice("y", "Allow once", "apply"),
            Choice("a", "Always allow", "always"),
            Choice("n", "Refuse", "reject"),
        ]
    else:
        choices = [
            Choice("y", "Run once", "apply"),
            Choice("a", "Always allow", "always"),
            Choice("n", "Refuse", "reject"),
            Choice("x", "Abort", "abort"),
        ]
    detail = f"$ {request.command}" if request.command else None
    return ChoiceDialog(
        request.title,
        request.description,
        choices,
        detail=detail,
        escape_value="reject",
        kind="warning",
    )


def question_dialog(question: Question) -> ChoiceDialog:
    """The dialog for one of the workspace's questions (edits have their own diff panel)."""
    if isinstance(question, RecoverError):
        return error_dialog(question.error, question.values())
    if isinstance(question, ResolveConflict):
        return conflict_dialog(question.path, question.description, question.values())
    if isinstance(question, LoopDetected):
        return loop_dialog(question.tool_name, question.repeats)
    if isinstance(question, ConfirmChange):
        return command_dialog(question.request)
    return ChoiceDialog(
        question.title,
        question.message,
        [Choice(o.key, o.label, o.value) for o in question.options],
        escape_value=question.safe,
        kind="warning",
    )
