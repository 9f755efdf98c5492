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
from ipuaro.domain.indexes import CallEdge, ReferenceTable
from ipuaro.index.parsers._source import Scope, Source
from ipuaro.index.parsers._trusted import (
    SET_DICT,
    SET_EXTRA,
    SET_FIELDS_SET,
    SET_PRIVATE,
    SharedFieldsSet,
)

_TODO = re.compile(rb"\b(TODO|FIXME|HACK|XXX)\b(?:\([^)\n]*\))?[\s:\-]*([^\n]*)")
_COMMENT_TAIL = re.compile(r"\s*(?:\*/|-->|\*/\s*})\s*$")
TodoTag = Literal["TODO", "FIXME", "HACK", "XXX"]
_TAGS: Final = (b"TODO", b"FIXME", b"HACK", b"XXX")

MODULE_CALLER = "<module>"


def references(source: Source, nodes: list[Node]) -> ReferenceTable:
    """Every identifier node (``nodes`` in document order) as ``name -> [line, column, ...]``
    (see ``FileIndexes``).

    A file can hold 100K identifiers and a model per identifier would cost as much as parsing:
    positions are grouped per name, each name decoded once.
    """
    data = source.data
    ascii_lines = None if source.is_ascii else source.ascii_lines()
    line_starts = source.line_starts() if ascii_lines is not None else []
    groups: dict[bytes, list[int]] = {}
    for node in nodes:
        start = node.start_byte
        raw = data[start : node.end_byte]
        positions = groups.get(raw)
        if positions is None:
            positions = groups[raw] = []
        row, column = node.start_point
        if ascii_lines is not None and not ascii_lines[row]:
            # tree-sitter columns count bytes; ours count characters
            column = len(data[line_starts[row] : start].decode("utf-8", "replace"))
        positions += (row + 1, column + 1)
    return {raw.decode("utf-8", "replace"): positions for raw, positions in groups.items()}


_JSDOC_TYPE = re.compile(
    rb"\{@link(?:code|plain)?\s+([^}\s|]+)|@(?:param|returns?|throws|type|typedef|see|template)"
    rb"\s*\{([^}\n]*)\}"
)
_JSDOC_NAME = re.compile(rb"[A-Za-z_$][\w$]*")


def jsdoc_references(source: Source, comments: list[Node], table: ReferenceTable) -> None:
    """Names a JSDoc comment refers to (``{@link X}``, ``@param {Type<T>}``, ``@throws {E}``),
    added to ``table``: the TypeScript language service counts them as references too."""
    data = source.data
    line_starts = source.line_starts()
    for node in comments:
        start = node.start_byte
        if data[start : start + 3] != b"/**" or b"{" not in data[start : node.end_byte]:
            continue
        comment = data[start : node.end_byte]
        for match in _JSDOC_TYPE.finditer(comment):
            group = 1 if match.group(1) is not None else 2
            offset = start + match.start(group)
            for name in _JSDOC_NAME.finditer(match.group(group)):
                position = offset + name.start()
                row = bisect_right(line_starts, position) - 1
                column = len(data[line_starts[row] : position].decode("utf-8", "replace"))
                key = name.group().decode("utf-8", "replace")
                table.setdefault(key, []).extend((row + 1, column + 1))


def calls(source: Source, path: str, nodes: list[Node], scopes: list[Scope]) -> list[CallEdge]:
    """Call edges; the caller is the innermost recorded function, method or class around the
    call (nested anonymous functions count as their enclosing definition)."""
    if not nodes:
        return []
    ordered = sorted(scopes, key=lambda scope: (scope.start, -scope.end))
    starts = [scope.start for scope in ordered]
    ends = [scope.end for scope in ordered]
    callers = [scope.name for scope in ordered]
    callers.append(MODULE_CALLER)  # callers[-1]: no recorded scope around the call
    parents = _parents(ordered)
    data = source.data
    names: dict[bytes, str] = {}
    new = object.__new__
    set_dict, set_fields_set = SET_DICT, SET_FIELDS_SET  # locals: looked up once per node
    set_extra, set_private = SET_EXTRA, SET_PRIVATE
    fields_set = _CALL_FIELDS
    result: list[CallEdge] = []
    append = result.append
    for node in nodes:
        position = node.start_byte
        index = bisect_right(starts, position) - 1
        while index >= 0 and ends[index] <= position:
            index = parents[index]
        raw = data[position : node.end_byte]
        callee = names.get(raw)
        if callee is None:
            callee = names[raw] = raw.decode("utf-8", "replace")
        edge = new(CallEdge)  # built like references were (see _trusted): valid by construction
        set_dict(
            edge,
            {
                "path": path,
                "caller": callers[index],
                "callee": callee,
                # a row from the node: a file of ASCII lines never builds its line table
                "line": node.start_point[0] + 1,
                "resolved": None,
            },
        )
        set_fields_set(edge, fields_set)
        set_extra(edge, None)
        set_private(edge, None)
        append(edge)
    return result


_CALL_FIELDS: Final = SharedFieldsSet(("path", "caller", "callee", "line"))


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
        comment = data[node.start_byte : node.end_byte]
        # _TAGS spelled out: the generator comment_todos tests them with costs more per comment
        if b"TODO" in comment or b"FIXME" in comment or b"HACK" in comment or b"XXX" in comment:
            result += comment_todos(comment, node.start_point[0] + 1)
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
