"""Edits by symbol: replace, insert next to, or delete a function, method or class whose span
the index's syntax tree gives, with the model's code re-indented to the symbol's depth.

Pure functions of (file lines, span, code): the ``edit_symbol`` tool locates the span and sends
the result through the edit engine like every other change.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from ipuaro.domain.errors import IpuaroError
from ipuaro.edits.text import content_lines

Action = Literal["replace", "replace_body", "insert_before", "insert_after", "delete"]


class SymbolEditError(IpuaroError):
    """The edit cannot be made as asked; the message says what to send instead."""


@dataclass(frozen=True)
class Span:
    start: int
    """First line (1-based) of the symbol as the syntax tree gives it."""
    end: int
    """Last line (1-based, inclusive)."""
    language: str
    """"python" or a brace language ("typescript", "javascript")."""


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def reindent(code: list[str], target: str) -> list[str]:
    """``code`` moved so its least indented line sits at ``target``; relative depth is kept
    and blank lines stay empty."""
    widths = [len(_indent(line)) for line in code if line.strip()]
    if not widths:
        return []
    base = min(widths)
    return [target + line[base:].rstrip() if line.strip() else "" for line in code]


def _with_decorators(lines: list[str], start: int) -> int:
    """Index of the first line of the decorators (``@…``) right above line index ``start``."""
    first = start
    while first > 0 and lines[first - 1].strip().startswith("@"):
        first -= 1
    return first


_NAME = re.compile(
    r"^\s*(?:(?:export|default|declare|public|private|protected|static|async|abstract|"
    r"override|readonly)\s+)*(?:function\s*\*?\s*)?(?P<name>[A-Za-z_$][\w$]*)\s*[<(]"
)


def declaration_start(lines: list[str], start: int, language: str) -> int:
    """Index of the first line of the whole declaration whose span starts at ``start``: with
    its decorators, the overload signatures above a TypeScript implementation, and the doc
    comment (``/** … */``) right above them. Inserting before the symbol or deleting it takes
    all of them, so no overload is left without its body and no JSDoc describes a neighbour."""
    first = _with_decorators(lines, start)
    if language == "python":
        return first
    header = next((line for line in lines[start:] if not line.strip().startswith("@")), "")
    match = _NAME.match(header)
    name = match.group("name") if match else None
    if language != "typescript":
        name = None  # JavaScript has no overload signatures: a call above is not one
    while True:
        above = _overload_above(lines, first, name)
        above = _with_decorators(lines, above)
        above = _doc_comment_above(lines, above)
        if above == first:
            return first
        first = above


def _overload_above(lines: list[str], first: int, name: str | None) -> int:
    """The first line of the overload signatures (``name(…): T;``) right above ``first``."""
    if name is None:
        return first
    at = first
    index = first - 1
    while index >= 0 and first - index <= 12:
        line = lines[index]
        if not line.strip() or (index < at - 1 and line.rstrip().endswith(("{", "}"))):
            break
        matched = _NAME.match(line)
        if matched is not None and matched.group("name") == name:
            signature = " ".join(x.strip() for x in lines[index:at])
            if not signature.rstrip().endswith(";"):
                break
            at = index  # one more overload; look above it for the next
        elif index == at - 1 and not line.rstrip().endswith((",", "(", ";", ")", ":")):
            break
        index -= 1
    return at


def _doc_comment_above(lines: list[str], first: int) -> int:
    """The first line of a ``/** … */`` comment that ends right above ``first``."""
    if first == 0 or not lines[first - 1].strip().endswith("*/"):
        return first
    for index in range(first - 1, -1, -1):
        stripped = lines[index].strip()
        if stripped.startswith("/**"):
            return index
        if index < first - 1 and not stripped.startswith("*"):
            return first
    return first


def body_range(lines: list[str], span: Span) -> tuple[int, int]:
    """Line indexes ``[first, last)`` of the symbol's body: after the header's ``:`` in
    Python, between the braces elsewhere."""
    start, end = span.start - 1, span.end  # [start, end) as indexes
    opener = ":" if span.language == "python" else "{"
    for index in range(start, end):
        code = lines[index].split("#", 1)[0] if span.language == "python" else lines[index]
        if code.rstrip().endswith(opener):
            first = index + 1
            break
    else:
        raise SymbolEditError(
            "its header does not end a line (a one-line definition); replace the whole "
            "symbol instead"
        )
    last = end if span.language == "python" else end - 1
    if span.language != "python" and not lines[end - 1].strip().startswith("}"):
        raise SymbolEditError("its last line is not the closing brace; replace the whole symbol")
    if first > last:
        raise SymbolEditError("it has no body lines to replace; replace the whole symbol")
    return first, last


def _gap_after(lines: list[str], end: int) -> int:
    count = 0
    while end + count < len(lines) and not lines[end + count].strip():
        count += 1
    return count if end + count < len(lines) else 0


def _gap_before(lines: list[str], start: int) -> int:
    count = 0
    while start - count - 1 >= 0 and not lines[start - count - 1].strip():
        count += 1
    return count if start - count > 0 else 0


def _separator(lines: list[str], start: int, end: int, span: Span) -> int:
    """Blank lines to put between the symbol and a neighbour inserted next to it: as many as
    the file puts around it, else the language's habit (two around top-level Python)."""
    found = _gap_after(lines, end) or _gap_before(lines, start)
    if found:
        return found
    top_level_python = span.language == "python" and not _indent(lines[start])
    return 2 if top_level_python else 1


def edit_symbol_lines(lines: list[str], span: Span, action: Action, code: str) -> list[str]:
    """The file's new lines after ``action`` on the symbol at ``span``."""
    if not 1 <= span.start <= span.end <= len(lines):
        raise SymbolEditError(
            f"the index gives lines {span.start}-{span.end} but the file has {len(lines)}"
        )
    start, end = span.start - 1, span.end
    target = _indent(lines[start])
    new_code = content_lines(code)
    if action != "delete" and not any(line.strip() for line in new_code):
        raise SymbolEditError(f"`content` is empty; {action} needs the new code")
    if action == "replace":
        if new_code and next(x for x in new_code if x.strip()).strip().startswith("@"):
            start = _with_decorators(lines, start)  # the new code brings its own decorators
        return [*lines[:start], *reindent(new_code, target), *lines[end:]]
    if action == "replace_body":
        first, last = body_range(lines, span)
        body_indent = next((_indent(x) for x in lines[first:last] if x.strip()), None)
        if body_indent is None:
            body_indent = target + ("    " if span.language == "python" else "  ")
        return [*lines[:first], *reindent(new_code, body_indent), *lines[last:]]
    if action == "insert_after":
        gap = _separator(lines, start, end, span)
        following = lines[end:]
        after = [""] * gap if following and following[0].strip() else []
        return [*lines[:end], *[""] * gap, *reindent(new_code, target), *after, *following]
    if action == "insert_before":
        start = declaration_start(lines, start, span.language)
        gap = _separator(lines, start, end, span)
        return [*lines[:start], *reindent(new_code, target), *[""] * gap, *lines[start:]]
    # delete: the whole declaration (decorators, overloads, doc comment), one blank gap
    start = declaration_start(lines, start, span.language)
    blank_after = _gap_after(lines, end)
    if blank_after:
        end += blank_after
    else:
        start -= _gap_before(lines, start)
    return [*lines[:start], *lines[end:]]
