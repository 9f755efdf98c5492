"""What one query run gives for the whole tree: references, calls, TODO comments, nesting depth.

These loops touch every identifier of a file, so they stay flat: positions come from
``start_point`` and names from slices of the source bytes, decoded once per distinct name.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Final, Literal, cast

from tree_sitter import Node

from ipuaro.domain.files import TodoInfo
from ipuaro.domain.indexes import CallEdge, Reference
from ipuaro.index.parsers._source import Scope, Source
from ipuaro.index.parsers._trusted import SET_DICT, SET_EXTRA, SET_FIELDS_SET, SET_PRIVATE

_TODO = re.compile(rb"\b(TODO|FIXME|HACK|XXX)\b(?:\([^)\n]*\))?[\s:\-]*([^\n]*)")
_COMMENT_TAIL = re.compile(r"\s*(?:\*/|-->|\*/\s*})\s*$")
TodoTag = Literal["TODO", "FIXME", "HACK", "XXX"]
_TAGS: Final = (b"TODO", b"FIXME", b"HACK", b"XXX")

MODULE_CALLER = "<module>"


def references(source: Source, path: str, nodes: list[Node]) -> list[Reference]:
    """One Reference per identifier node, in document order.

    A file can hold 100K identifiers and validating each Reference would cost as much as
    parsing, so they are built from trusted values (see ``_trusted``).
    """
    data = source.data
    line_starts = source.line_starts()
    ascii_lines = None if source.is_ascii else source.ascii_lines()
    names: dict[bytes, str] = {}
    new = object.__new__
    set_dict, set_fields_set = SET_DICT, SET_FIELDS_SET  # locals: looked up once per node
    set_extra, set_private = SET_EXTRA, SET_PRIVATE
    fields_set = _REFERENCE_FIELDS
    result: list[Reference] = []
    append = result.append
    for node in nodes:
        start = node.start_byte
        raw = data[start : node.end_byte]
        name = names.get(raw)
        if name is None:
            name = names[raw] = raw.decode("utf-8", "replace")
        line = bisect_right(line_starts, start)
        line_start = line_starts[line - 1]
        if ascii_lines is None or ascii_lines[line - 1]:
            column = start - line_start + 1
        else:
            column = len(data[line_start:start].decode("utf-8", "replace")) + 1
        reference = new(Reference)
        set_dict(reference, {"name": name, "path": path, "line": line, "column": column})
        set_fields_set(reference, fields_set)
        set_extra(reference, None)
        set_private(reference, None)
        append(reference)
    return result


_REFERENCE_FIELDS: Final = frozenset(("name", "path", "line", "column"))


def calls(source: Source, path: str, nodes: list[Node], scopes: list[Scope]) -> list[CallEdge]:
    """Call edges; the caller is the innermost recorded function, method or class around the
    call (nested anonymous functions count as their enclosing definition)."""
    if not nodes:
        return []
    ordered = sorted(scopes, key=lambda scope: (scope.start, -scope.end))
    starts = [scope.start for scope in ordered]
    parents = _parents(ordered)
    data = source.data
    line_starts = source.line_starts()
    new = object.__new__
    fields_set = _CALL_FIELDS
    result: list[CallEdge] = []
    for node in nodes:
        position = node.start_byte
        index = bisect_right(starts, position) - 1
        while index >= 0 and ordered[index].end <= position:
            index = parents[index]
        edge = new(CallEdge)  # built like references (see there): valid by construction
        SET_DICT(
            edge,
            {
                "path": path,
                "caller": ordered[index].name if index >= 0 else MODULE_CALLER,
                "callee": data[position : node.end_byte].decode("utf-8", "replace"),
                "line": bisect_right(line_starts, position),
                "resolved": None,
            },
        )
        SET_FIELDS_SET(edge, fields_set)
        SET_EXTRA(edge, None)
        SET_PRIVATE(edge, None)
        result.append(edge)
    return result


_CALL_FIELDS: Final = frozenset(("path", "caller", "callee", "line"))


def _parents(ordered: list[Scope]) -> list[int]:
    """For scopes sorted by start (outer first on ties): index of the enclosing scope or -1."""
    parents: list[int] = []
    stack: list[int] = []
    for index, scope in enumerate(ordered):
        while stack and ordered[stack[-1]].end <= scope.start:
            stack.pop()
        parents.append(stack[-1] if stack else -1)
        stack.append(index)
    return parents


def todos(source: Source, nodes: list[Node]) -> list[TodoInfo]:
    data = source.data
    result: list[TodoInfo] = []
    for node in nodes:
        result += comment_todos(data[node.start_byte : node.end_byte], node.start_point[0] + 1)
    return result


def comment_todos(comment: bytes, first_line: int) -> list[TodoInfo]:
    """TODO/FIXME/HACK/XXX tags in one comment that starts on ``first_line``."""
    if not any(tag in comment for tag in _TAGS):  # substring tests are far cheaper than the regex
        return []
    return [
        TodoInfo(
            line=first_line + comment.count(b"\n", 0, match.start()),
            tag=cast(TodoTag, match.group(1).decode()),
            text=_COMMENT_TAIL.sub("", match.group(2).decode("utf-8", "replace")).strip(),
        )
        for match in _TODO.finditer(comment)
    ]


def nesting(blocks: list[Node]) -> int:
    """Deepest chain of blocks inside blocks (document order puts parents before children)."""
    deepest = 0
    open_ends: list[int] = []
    for node in blocks:
        start = node.start_byte
        while open_ends and open_ends[-1] <= start:
            open_ends.pop()
        open_ends.append(node.end_byte)
        if len(open_ends) > deepest:
            deepest = len(open_ends)
    return deepest
