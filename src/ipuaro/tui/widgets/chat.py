"""The conversation: user messages, agent answers streamed as Markdown, tool-call lines that
expand to their results, the stats line after each answer, and notices from the app.

The log only draws; the app decides what to draw from the agent's events. An answer is an
:class:`AnswerBlock` holding its parts in the order they happened (text, tool lines, diffs).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.containers import Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import Markdown, Static
from textual.widgets.markdown import MarkdownStream

from ipuaro.tui.widgets.toolline import ToolLine

NoticeKind = str
"""``info`` | ``warning`` | ``error`` | ``success`` — a CSS class on the notice."""


class UserMessage(Static):
    def __init__(self, text: str, note: str | None = None) -> None:
        label = Text("You", style="bold")
        if note:
            label.append(f" ({note})", style="italic")
        label.append(": ")
        label.append(text)
        super().__init__(label)


class AnswerPart(Markdown):
    """One model message's visible text, streamed in."""


class StatsLine(Static):
    pass


class Notice(Static):
    """A line (or a few) from the app itself: command output, warnings, errors."""

    def __init__(self, text: str | Text, kind: NoticeKind = "info") -> None:
        super().__init__(text, markup=False)
        self.add_class(f"-{kind}")


class TableNotice(Static):
    """Longer app output (``/help``, ``/status``, ``/sessions``): titled two-or-more column
    tables, compact (no row rules)."""

    def __init__(self, tables: list[Table], footer: str | None = None) -> None:
        parts: list[Table | Text] = []
        for table in tables:
            parts += [table, Text("")]
        if footer:
            parts.append(Text(footer))
        super().__init__(Group(*parts))
        self.tables = tables


def notice_table(
    title: str, rows: Sequence[tuple[str, ...]], headers: tuple[str, ...] | None = None
) -> Table:
    table = Table(
        title=title,
        title_justify="left",
        title_style="bold",
        box=box.SIMPLE_HEAD if headers else None,
        show_header=headers is not None,
        pad_edge=False,
        expand=False,
    )
    width = len(rows[0]) if rows else 1
    columns = headers if headers is not None else ("",) * width
    for index, name in enumerate(columns):
        table.add_column(name, style="cyan" if index == 0 else None, no_wrap=index == 0)
    for row in rows:
        table.add_row(*(Text(cell) for cell in row))  # plain text: "[on|off]" is not markup
    return table


class AnswerBlock(Vertical):
    """One request's answer: ``Agent:`` then its parts in order."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._part: AnswerPart | None = None
        self._stream: MarkdownStream | None = None
        self._streamed = ""

    def compose(self) -> Any:
        yield Static(Text("Agent:", style="bold"), classes="agent-label")

    async def add(self, widget: Widget) -> None:
        await self.end_text()
        await self.mount(widget)
        self._grew()

    def _grew(self) -> None:
        if isinstance(self.parent, ChatLog):
            self.parent.grew()

    async def write(self, delta: str) -> None:
        if not delta:
            return
        if self._part is None:
            self._part = AnswerPart()
            await self.mount(self._part)
            self._stream = Markdown.get_stream(self._part)
            self._streamed = ""
        assert self._stream is not None
        self._streamed += delta
        await self._stream.write(delta)
        self._grew()

    async def end_text(self, final: str | None = None) -> None:
        """Close the streamed part; ``final`` (the parser's clean text) replaces what streamed."""
        part, stream = self._part, self._stream
        self._part = self._stream = None
        if stream is not None:
            await stream.stop()
        if final is None:
            return
        if part is None:
            if final.strip():
                await self.mount(AnswerPart(final))
                self._grew()
            return
        if not final.strip():
            await part.remove()
        elif final != self._streamed:
            await part.update(final)

    async def add_note(self, text: str, kind: NoticeKind = "info") -> None:
        await self.add(Notice(text, kind))

    async def add_user(self, text: str, note: str | None = None) -> None:
        """A steering message the agent took in mid-answer."""
        await self.add(UserMessage(text, note))

    async def add_text(self, text: str) -> None:
        """A whole message at once (a resumed session's history)."""
        if text.strip():
            await self.add(AnswerPart(text))

    def tool_line(self, call_id: str) -> ToolLine | None:
        for line in self.query(ToolLine):
            if line.call_id == call_id:
                return line
        return None


class ChatLog(VerticalScroll):
    """Scrolls to the newest content while the user has not scrolled up.

    Anchoring starts only once the content overflows: an anchored log whose content is shorter
    than the view is drawn bottom-aligned, and a conversation should start at the top."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.current: AnswerBlock | None = None

    def grew(self) -> None:
        if not self.is_anchored:
            self.call_after_refresh(self._anchor_when_full)

    def _anchor_when_full(self) -> None:
        if not self.is_anchored and self.max_scroll_y > 0:
            self.anchor()

    async def _mount_and_follow(self, widget: Widget) -> None:
        await self.mount(widget)
        self.grew()

    async def add(self, widget: Widget) -> None:
        await self._mount_and_follow(widget)

    async def add_user(self, text: str, note: str | None = None) -> None:
        await self.add(UserMessage(text, note))

    async def start_answer(self) -> AnswerBlock:
        block = AnswerBlock()
        self.current = block
        await self.add(block)
        return block

    async def answer(self) -> AnswerBlock:
        """The answer being written, started if needed (events can arrive after a notice)."""
        return self.current if self.current is not None else await self.start_answer()

    async def end_answer(self, stats: str | None) -> None:
        block = self.current
        self.current = None
        if block is None:
            return
        await block.end_text()
        if stats:
            await block.add(StatsLine(stats))

    async def notice(self, text: str | Text, kind: NoticeKind = "info") -> Notice:
        widget = Notice(text, kind)
        await self.add(widget)
        return widget

    async def table_notice(self, tables: list[Table], footer: str | None = None) -> None:
        await self.add(TableNotice(tables, footer))

    async def clear_log(self) -> None:
        self.current = None
        await self.remove_children()
        self.anchor(False)
        self.scroll_home(animate=False)
