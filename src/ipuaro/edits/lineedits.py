"""Line-range edits: validation, bottom-up application, and moving a range onto a newer file.

The edit-file planner answers ``[{start_line, end_line, replacement}]``; edits are applied in
descending ``start_line`` so earlier line numbers stay valid, and overlapping edits are refused
(applying both would be a guess about which one wins).
"""

from __future__ import annotations

import difflib
import itertools

from ipuaro.domain.edits import LineEdit
from ipuaro.domain.errors import IpuaroError
from ipuaro.edits.text import content_lines


class LineEditError(IpuaroError):
    """A range is outside the file or two ranges overlap."""


def check_range(start: int, end: int, line_count: int) -> None:
    if start < 1:
        raise LineEditError(f"start_line {start} is before line 1")
    if end < start - 1:
        raise LineEditError(
            f"end_line {end} is before start_line {start}; to insert without replacing, "
            f"use end_line = start_line - 1 ({start - 1})"
        )
    if start > line_count + 1:
        raise LineEditError(
            f"start_line {start} is past the end of the file ({line_count} lines); "
            f"use start_line = {line_count + 1} to append"
        )
    if end > line_count:
        raise LineEditError(f"end_line {end} is past the end of the file ({line_count} lines)")


def apply_line_edits(lines: list[str], edits: list[LineEdit]) -> list[str]:
    for edit in edits:
        check_range(edit.start_line, edit.end_line, len(lines))
    ordered = sorted(edits, key=lambda e: (e.start_line, e.end_line))
    for first, second in itertools.pairwise(ordered):
        if second.start_line <= first.end_line or second.start_line == first.start_line:
            raise LineEditError(
                f"edits overlap: lines {first.start_line}-{first.end_line} and "
                f"{second.start_line}-{second.end_line}; merge them into one edit"
            )
    out = list(lines)
    for edit in sorted(edits, key=lambda e: e.start_line, reverse=True):
        out[edit.start_line - 1 : edit.end_line] = content_lines(edit.replacement)
    return out


def rebase_range(
    seen: list[str], current: list[str], start: int, end: int
) -> tuple[int, int] | None:
    """Where lines ``start..end`` of ``seen`` are in ``current``, if that region is unchanged
    (only lines elsewhere moved it); None when the region itself was edited."""
    mapping: dict[int, int] = {}
    matcher = difflib.SequenceMatcher(a=seen, b=current, autojunk=False)
    for block in matcher.get_matching_blocks():
        for offset in range(block.size):
            mapping[block.a + offset] = block.b + offset
    if end < start:  # insertion before ``start``
        if start - 2 in mapping:
            at = mapping[start - 2] + 2
            return at, at - 1
        if start - 1 in mapping:
            at = mapping[start - 1] + 1
            return at, at - 1
        if start == 1:
            return 1, 0
        return None
    first = mapping.get(start - 1)
    if first is None:
        return None
    for index in range(start - 1, end):
        if mapping.get(index) != first + (index - (start - 1)):
            return None
    return first + 1, first + 1 + (end - start)
