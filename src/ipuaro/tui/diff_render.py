"""Proposed edits drawn for the terminal: hunks, inline (character-level) highlights, syntax
colours, wrapped long lines.

Two steps, both pure: :func:`compute_file_diff` turns one ``FileChange`` into hunks of typed
lines (a removed line paired with the added line that replaced it carries the character ranges
that changed), and :func:`render_file_diff` draws that as a Rich renderable. The TUI's diff view
is a thin widget around the second; tests read the first.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from rich.console import Group, RenderableType
from rich.style import Style
from rich.table import Table
from rich.text import Text

from ipuaro.tui.formatting import plural

if TYPE_CHECKING:
    from pygments.lexer import Lexer  # type: ignore[import-untyped]
    from pygments.token import _TokenType  # type: ignore[import-untyped]
    from rich.syntax import PygmentsSyntaxTheme

    from ipuaro.domain.edits import FileChange

LineKind = Literal["context", "removed", "added", "skip"]
ChangeStatus = Literal["modified", "created", "deleted"]
Spans = tuple[tuple[int, int], ...]

CONTEXT_LINES = 3
PAIR_SIMILARITY = 0.4
"""A removed and an added line closer than this are one changed line (inline highlights);
further apart they are shown as a plain removal and addition."""
MAX_LINES_PER_FILE = 400
"""Lines drawn per file; the rest is summarised (the whole change is still applied)."""
TAB = "    "


@dataclass(frozen=True)
class DiffLine:
    kind: LineKind
    text: str
    old_no: int | None = None
    new_no: int | None = None
    spans: Spans = ()
    """Character ranges [start, end) that differ from the paired line (inline highlights)."""


@dataclass(frozen=True)
class FileDiff:
    path: str
    status: ChangeStatus
    lines: list[DiffLine] = field(default_factory=list)
    added: int = 0
    removed: int = 0
    new_range: tuple[int, int] | None = None
    """First and last line of the new file touched by the change (1-based)."""
    old_range: tuple[int, int] | None = None

    @property
    def header(self) -> str:
        if self.status == "created":
            return f"{self.path} (new file, {plural(self.added, 'line')})"
        if self.status == "deleted":
            return f"{self.path} (deleted, {plural(self.removed, 'line')})"
        span = self.new_range or self.old_range
        if span is None:
            return f"{self.path} (no changes)"
        where = f"line {span[0]}" if span[0] == span[1] else f"lines {span[0]}-{span[1]}"
        return f"{self.path} ({where}, +{self.added} -{self.removed})"


def _lines(text: str | None) -> list[str]:
    return [] if not text else text.splitlines()


_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")


def _merge(spans: list[tuple[int, int]]) -> Spans:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return tuple(merged)


def changed_spans(old: str, new: str) -> tuple[Spans, Spans]:
    """(old spans, new spans): the character ranges of each line that the other lacks.

    Compared by tokens (words, runs of spaces, single punctuation) so a highlight reads as
    a change, not as scattered letters; a word replaced by a similar word (``verify`` →
    ``verifyToken``) is refined to the characters that differ."""
    old_tokens = [m.span() for m in _TOKEN.finditer(old)]
    new_tokens = [m.span() for m in _TOKEN.finditer(new)]
    matcher = SequenceMatcher(
        None,
        [old[a:b] for a, b in old_tokens],
        [new[a:b] for a, b in new_tokens],
        autojunk=False,
    )
    old_spans: list[tuple[int, int]] = []
    new_spans: list[tuple[int, int]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if tag == "replace" and i2 - i1 == 1 and j2 - j1 == 1:
            (a1, a2), (b1, b2) = old_tokens[i1], new_tokens[j1]
            inner = SequenceMatcher(None, old[a1:a2], new[b1:b2], autojunk=False)
            if inner.ratio() >= 0.5:
                for op, x1, x2, y1, y2 in inner.get_opcodes():
                    if op != "equal":
                        old_spans += [(a1 + x1, a1 + x2)] if x2 > x1 else []
                        new_spans += [(b1 + y1, b1 + y2)] if y2 > y1 else []
                continue
        if i2 > i1:
            old_spans.append((old_tokens[i1][0], old_tokens[i2 - 1][1]))
        if j2 > j1:
            new_spans.append((new_tokens[j1][0], new_tokens[j2 - 1][1]))
    return _merge(old_spans), _merge(new_spans)


def _similar(old: str, new: str) -> bool:
    return SequenceMatcher(None, old, new, autojunk=False).ratio() >= PAIR_SIMILARITY


def _replace_block(old: list[str], new: list[str], i1: int, j1: int) -> list[DiffLine]:
    """A replaced block: similar lines pairwise with inline spans, the rest plain."""
    removed: list[DiffLine] = []
    added: list[DiffLine] = []
    for offset in range(max(len(old), len(new))):
        old_text = old[offset] if offset < len(old) else None
        new_text = new[offset] if offset < len(new) else None
        old_spans: Spans = ()
        new_spans: Spans = ()
        if old_text is not None and new_text is not None and _similar(old_text, new_text):
            old_spans, new_spans = changed_spans(old_text, new_text)
        if old_text is not None:
            removed.append(DiffLine("removed", old_text, old_no=i1 + offset + 1, spans=old_spans))
        if new_text is not None:
            added.append(DiffLine("added", new_text, new_no=j1 + offset + 1, spans=new_spans))
    return removed + added


def compute_file_diff(change: FileChange, context: int = CONTEXT_LINES) -> FileDiff:
    old = _lines(change.old_text)
    new = _lines(change.new_text)
    if change.old_text is None:
        created = [DiffLine("added", text, new_no=n + 1) for n, text in enumerate(new)]
        span = (1, max(1, len(new)))
        return FileDiff(change.path, "created", created, added=len(new), new_range=span)
    if change.new_text is None:
        gone = [DiffLine("removed", text, old_no=n + 1) for n, text in enumerate(old)]
        span = (1, max(1, len(old)))
        return FileDiff(change.path, "deleted", gone, removed=len(old), old_range=span)
    matcher = SequenceMatcher(None, old, new, autojunk=False)
    lines: list[DiffLine] = []
    added = removed = 0
    new_touched: list[int] = []
    old_touched: list[int] = []
    shown_until = 0
    """Old-file lines before this index are drawn or summarised already."""
    for group in matcher.get_grouped_opcodes(context):
        hidden = group[0][1] - shown_until
        if hidden > 0:
            lines.append(DiffLine("skip", f"{plural(hidden, 'unchanged line')}"))
        shown_until = group[-1][2]
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines.extend(
                    DiffLine("context", old[i], old_no=i + 1, new_no=j1 + (i - i1) + 1)
                    for i in range(i1, i2)
                )
                continue
            removed += i2 - i1
            added += j2 - j1
            old_touched += [i1 + 1, max(i1 + 1, i2)]
            new_touched += [j1 + 1, max(j1 + 1, j2)]
            lines.extend(_replace_block(old[i1:i2], new[j1:j2], i1, j1))
    return FileDiff(
        change.path,
        "modified",
        lines,
        added=added,
        removed=removed,
        new_range=(min(new_touched), max(new_touched)) if new_touched else None,
        old_range=(min(old_touched), max(old_touched)) if old_touched else None,
    )


# --- drawing ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class DiffPalette:
    removed_line: str = "on #3b1d1d"
    added_line: str = "on #1b3320"
    removed_span: str = "on #8b2f2f"
    added_span: str = "on #2f7a3b"
    removed_sign: str = "bold #f47067"
    added_sign: str = "bold #57ab5a"
    gutter: str = "#768390"
    header: str = "bold"
    skip: str = "italic #768390"
    syntax_theme: str = "monokai"


DARK = DiffPalette()
LIGHT = DiffPalette(
    removed_line="on #ffebe9",
    added_line="on #e6ffec",
    removed_span="on #ffb3ad",
    added_span="on #9be9a8",
    removed_sign="bold #cf222e",
    added_sign="bold #1a7f37",
    gutter="#6e7781",
    skip="italic #6e7781",
    syntax_theme="friendly",
)


@lru_cache(maxsize=64)
def _lexer(path: str) -> Lexer | None:
    from pygments.lexers import get_lexer_for_filename  # type: ignore[import-untyped]
    from pygments.util import ClassNotFound  # type: ignore[import-untyped]

    try:
        return get_lexer_for_filename(path, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


@lru_cache(maxsize=4)
def _theme(name: str) -> PygmentsSyntaxTheme:
    from rich.syntax import PygmentsSyntaxTheme

    return PygmentsSyntaxTheme(name)


@lru_cache(maxsize=1024)
def _token_style(theme: str, token: _TokenType) -> Style:
    full = _theme(theme).get_style_for_token(token)
    # Foreground only: the diff's own backgrounds mark added and removed lines.
    return Style(color=full.color, bold=full.bold, italic=full.italic)


def highlight_line(text: str, path: str, theme: str | None) -> Text:
    """One line with syntax colours (per line: a diff shows fragments, not whole files)."""
    shown = text.replace("\t", TAB)
    lexer = _lexer(path) if theme else None
    if lexer is None or theme is None:
        return Text(shown)
    out = Text()
    for token, value in lexer.get_tokens(shown):
        out.append(value.rstrip("\n"), _token_style(theme, token))
    return out


def _display_spans(text: str, spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans measured in the original text, moved to the text with tabs expanded."""
    if "\t" not in text:
        return list(spans)
    shift = [0]
    for char in text:
        shift.append(shift[-1] + (len(TAB) if char == "\t" else 1))
    return [(shift[start], shift[end]) for start, end in spans]


def _code_cell(line: DiffLine, path: str, palette: DiffPalette, syntax: bool) -> Text:
    text = highlight_line(line.text, path, palette.syntax_theme if syntax else None)
    if line.kind == "removed":
        text.stylize(palette.removed_line)
        for start, end in _display_spans(line.text, line.spans):
            text.stylize(palette.removed_span, start, end)
    elif line.kind == "added":
        text.stylize(palette.added_line)
        for start, end in _display_spans(line.text, line.spans):
            text.stylize(palette.added_span, start, end)
    return text


def render_file_diff(
    diff: FileDiff,
    *,
    syntax: bool = True,
    wrap: bool = True,
    palette: DiffPalette = DARK,
    max_lines: int = MAX_LINES_PER_FILE,
) -> RenderableType:
    """Header line, then a grid: old line no, new line no, sign, code (wrapped when asked)."""
    header = Text(f"─── {diff.header} ───", style=palette.header)
    grid = Table.grid(padding=(0, 1), expand=True)
    grid.add_column(justify="right", style=palette.gutter, no_wrap=True)
    grid.add_column(justify="right", style=palette.gutter, no_wrap=True)
    grid.add_column(no_wrap=True, width=1)
    grid.add_column(ratio=1, no_wrap=not wrap, overflow="fold" if wrap else "ellipsis")
    shown = diff.lines[:max_lines]
    for line in shown:
        if line.kind == "skip":
            grid.add_row("", "", "", Text(f"⋯ {line.text}" if line.text else "⋯", palette.skip))
            continue
        sign = {"removed": Text("-", palette.removed_sign), "added": Text("+", palette.added_sign)}
        grid.add_row(
            str(line.old_no) if line.old_no is not None else "",
            str(line.new_no) if line.new_no is not None else "",
            sign.get(line.kind, Text(" ")),
            _code_cell(line, diff.path, palette, syntax),
        )
    parts: list[RenderableType] = [header, grid]
    if len(diff.lines) > max_lines:
        rest = len(diff.lines) - max_lines
        parts.append(Text(f"… {rest} more lines not shown (all are applied)", palette.skip))
    return Group(*parts)
