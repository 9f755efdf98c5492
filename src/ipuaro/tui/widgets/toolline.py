"""A tool call as one compact line — ``▸ [get_function src/auth/login.ts login] ✓`` — that
expands (Enter, Space or a click) to the result the model read. A command that printed keeps
the tail of its final output under the line once it ends (reviewable; Enter shows it whole)."""

from __future__ import annotations

from typing import ClassVar, Literal

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widget import Widget
from textual.widgets import Static

ToolState = Literal["running", "ok", "failed", "refused"]

RESULT_LINES = 40
"""Lines of a result shown when expanded; the rest is counted (the model saw it all, capped)."""
LIVE_LINES = 12
"""Lines of a running command's output shown under its line (the last ones)."""
LIVE_KEEP_CHARS = 16_384


def result_preview(text: str, limit: int = RESULT_LINES) -> str:
    lines = text.splitlines()
    if len(lines) <= limit:
        return text.rstrip("\n")
    return "\n".join([*lines[:limit], f"… {len(lines) - limit} more lines"])


def tail_preview(text: str, limit: int = LIVE_LINES) -> str:
    """The last ``limit`` lines, the earlier ones counted (a command's output ends with what
    matters: the error, the summary)."""
    lines = text.rstrip("\n").splitlines()
    if len(lines) <= limit:
        return "\n".join(lines)
    return "\n".join([f"… {len(lines) - limit} earlier lines (Enter shows all)", *lines[-limit:]])


class ToolLine(Widget, can_focus=True):
    DEFAULT_CSS = """
    ToolLine { height: auto; }
    ToolLine > .tool-result { display: none; padding: 0 0 0 4; }
    ToolLine.-expanded > .tool-result { display: block; }
    ToolLine.-live > .tool-result { display: block; }
    ToolLine.-kept > .tool-result { display: block; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space", "toggle_result", "Expand", show=False)
    ]

    def __init__(self, call_id: str, summary: str) -> None:
        super().__init__()
        self.call_id = call_id
        self.summary = summary
        self.state: ToolState = "running"
        self.result_text = ""
        self.live_text = ""
        """Output of the running call so far (its tail), shown until the call ends."""
        self._head = Static(self._head_text(), classes="tool-head")
        self._body = Static("", classes="tool-result", markup=False)

    def compose(self) -> list[Widget]:
        return [self._head, self._body]

    def _head_text(self) -> Text:
        expanded = self.has_class("-expanded")
        text = Text("▾ " if expanded else "▸ ", style="dim")
        text.append(f"[{self.summary}]", style="bold cyan")
        mark = {"running": " …", "ok": " ✓", "failed": " ✗", "refused": " ⊘"}[self.state]
        style = {"running": "dim", "ok": "green", "failed": "red", "refused": "yellow"}
        text.append(mark, style=style[self.state])
        return text

    def add_output(self, text: str) -> None:
        """More output of the running call: its last lines show under the line."""
        if self.state != "running":
            return
        self.live_text = (self.live_text + text)[-LIVE_KEEP_CHARS:]
        tail = self.live_text.rstrip("\n").splitlines()[-LIVE_LINES:]
        self._body.update(Text("\n".join(tail), style="dim"))
        self.add_class("-live")

    def finish(self, state: ToolState, result_text: str) -> None:
        streamed = self.has_class("-live")
        self.remove_class("-live")
        self.state = state
        self.result_text = result_text
        self.set_class(state != "ok", "-failed")
        self.set_class(streamed, "-kept")  # a command's output stays in the transcript
        self._show_result()
        self._head.update(self._head_text())

    def _show_result(self) -> None:
        if not self.has_class("-kept"):
            text = result_preview(self.result_text)
        elif self.expanded:
            text = self.result_text.rstrip("\n")
        else:
            text = tail_preview(self.result_text)
        self._body.update(Text(text or "(empty result)", style="dim"))

    @property
    def expanded(self) -> bool:
        return self.has_class("-expanded")

    def action_toggle_result(self) -> None:
        self.toggle_class("-expanded")
        if self.state != "running":
            self._show_result()
        self._head.update(self._head_text())

    def on_click(self) -> None:
        self.action_toggle_result()
