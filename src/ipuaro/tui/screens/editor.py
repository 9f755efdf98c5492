"""The in-app editor for ``[E] Edit`` when no ``$EDITOR`` is set: Ctrl+S applies, Esc cancels."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen
from textual.widgets import Static, TextArea

LANGUAGES = {
    ".py": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".json": "json",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".md": "markdown",
    ".toml": "toml",
    ".html": "html",
    ".css": "css",
}


class EditorScreen(ModalScreen[str | None]):
    """Dismisses with the edited text, or None when cancelled."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Apply", priority=True),
        Binding("escape", "cancel", "Cancel", priority=True),
    ]

    def __init__(self, path: str, text: str) -> None:
        super().__init__()
        self.path = path
        self.text = text

    def compose(self) -> Any:
        suffix = "." + self.path.rsplit(".", 1)[-1] if "." in self.path else ""
        yield Static(
            Text(f"Editing {self.path} — Ctrl+S apply · Esc cancel", style="bold"),
            classes="editor-title",
        )
        area = TextArea(self.text, show_line_numbers=True, tab_behavior="indent")
        language = LANGUAGES.get(suffix)
        if language is not None and language in area.available_languages:
            area.language = language
        yield area

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_save(self) -> None:
        self.dismiss(self.query_one(TextArea).text)

    def action_cancel(self) -> None:
        self.dismiss(None)
