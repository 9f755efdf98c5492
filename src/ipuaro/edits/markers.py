"""``edit_file``: merge a sketch with ``// ... existing code ...`` markers into the file.

The sketch is split at marker lines into chunks. Each chunk replaces the file region that runs
from its first line (the head anchor) to its last line (the tail anchor); lines between two
chunks are kept. A chunk is placed only when its anchors are found uniquely, in order, after the
previous chunk; otherwise :class:`MergeFailed` says why and the edit goes to the planner.

A sketch without a leading marker starts at the file's first line and one without a trailing
marker runs to its end — unless that chunk's anchor is found uniquely elsewhere, which means
the marker was forgotten (deleting the rest of a file because of a missing comment would be the
worst possible guess).

A chunk indented as a whole deeper or shallower than the file (its head anchor at another
depth) is moved to the anchor's depth, so a merge never changes what its lines are nested in.

New lines next to an anchor are an insertion only when they do not look like a rewrite of the
file lines beside it: ``def f():\n    return 33`` for a file holding ``return 3`` would
otherwise insert and keep both.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from ipuaro.domain.errors import IpuaroError

_MARKER = re.compile(
    r"^\s*(?://|#|/\*|<!--|--|;|\*)\s*(?:\.{2,}|…)\s*"
    r"(?:(?:existing|rest|remaining|unchanged|previous|other|same|more|original|keep)\b[^\n]*)?"
    r"(?:\.{2,}|…)?\s*(?:\*/|-->)?\s*$",
    re.IGNORECASE,
)
_BARE_ELLIPSIS = re.compile(r"^\s*(?:\.{3}|…)\s*$")


class MergeFailed(IpuaroError):
    """The sketch could not be placed deterministically; the message says which chunk."""


def is_marker(line: str) -> bool:
    return bool(_MARKER.match(line) or _BARE_ELLIPSIS.match(line))


@dataclass(frozen=True)
class _Chunk:
    lines: list[str]
    open_start: bool
    """No marker before it: the chunk begins the file."""
    open_end: bool
    """No marker after it: the chunk ends the file."""


def _chunks(sketch_lines: list[str]) -> list[_Chunk]:
    groups: list[list[str]] = [[]]
    marker_before: list[bool] = [False]
    for line in sketch_lines:
        if is_marker(line):
            groups.append([])
            marker_before.append(True)
        else:
            groups[-1].append(line)
    chunks: list[_Chunk] = []
    for index, group in enumerate(groups):
        trimmed = _trim_blank(group)
        if not trimmed:
            continue
        chunks.append(
            _Chunk(trimmed, open_start=not marker_before[index], open_end=index == len(groups) - 1)
        )
    return chunks


def _trim_blank(lines: list[str]) -> list[str]:
    start, end = 0, len(lines)
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return lines[start:end]


def _positions(keys: list[str], key: str, lo: int, hi: int) -> list[int]:
    return [i for i in range(lo, hi) if keys[i] == key]


def _forward_context(keys: list[str], chunk: list[str], pos: int) -> int:
    """How many chunk lines match the file contiguously from ``pos`` on."""
    count = 0
    while count < len(chunk) and pos + count < len(keys) and keys[pos + count] == chunk[count]:
        count += 1
    return count


def _backward_context(keys: list[str], chunk: list[str], pos: int, floor: int) -> int:
    count = 0
    while (
        count < len(chunk)
        and pos - count >= floor
        and keys[pos - count] == chunk[len(chunk) - 1 - count]
    ):
        count += 1
    return count


def _best(candidates: list[int], score: dict[int, int]) -> list[int]:
    if not candidates:
        return []
    top = max(score[c] for c in candidates)
    return [c for c in candidates if score[c] == top]


def _indent_width(line: str) -> int:
    return len(line) - len(line.lstrip())


def _block_end(file_lines: list[str], head: int) -> int | None:
    """Index of the first non-blank line after ``head`` indented no deeper than ``head`` (the
    closing line of a brace block, or the next statement of an indented one)."""
    width = _indent_width(file_lines[head])
    for index in range(head + 1, len(file_lines)):
        line = file_lines[index]
        if line.strip() and _indent_width(line) <= width:
            return index
    return None


def _indent_agrees(file_lines: list[str], chunk_lines: list[str], at: int, count: int) -> bool:
    """The ``count`` chunk lines matched from file line ``at`` on are indented relative to each
    other as the file's are (a sketch shifted as a whole still agrees; a line dropped from the
    sketch usually makes the following context match at the wrong depth)."""
    base_file, base_chunk = _indent_width(file_lines[at]), _indent_width(chunk_lines[0])
    return all(
        _indent_width(file_lines[at + t]) - base_file == _indent_width(chunk_lines[t]) - base_chunk
        for t in range(count)
        if chunk_lines[t].strip()
    )


def _find_head(
    keys: list[str], chunk_keys: list[str], lo: int, file_lines: list[str], chunk_lines: list[str]
) -> int | None:
    found = _positions(keys, chunk_keys[0], lo, len(keys))
    if not found:
        return None
    score = {p: _forward_context(keys, chunk_keys, p) for p in found}
    agreeing = [p for p in found if _indent_agrees(file_lines, chunk_lines, p, score[p])]
    if agreeing:
        found = agreeing
    best = _best(found, score)
    if len(best) > 1:
        lines = ", ".join(str(p + 1) for p in best[:6])
        raise MergeFailed(
            f"the line {chunk_keys[0]!r} appears {len(best)} times (lines {lines}); add the "
            "line above it to the edit so it is unique"
        )
    return best[0]


def _tail_agrees(file_lines: list[str], chunk_lines: list[str], tail: int, count: int) -> bool:
    """The last ``count`` chunk lines, matched backwards from file line ``tail``, are indented
    relative to each other as the file's are."""
    window = chunk_lines[len(chunk_lines) - count :]
    skip = next(t for t, line in enumerate(window) if line.strip())  # the last line is not blank
    return _indent_agrees(file_lines, window[skip:], tail - count + 1 + skip, count - skip)


def _refuse_misaligned_context(
    file_lines: list[str],
    chunk_lines: list[str],
    chunk_keys: list[str],
    head: int,
    found: list[int],
    score: dict[int, int],
) -> None:
    """The closing line the chunk's preceding lines point at is indented against them, while
    another copy of it sits at the chunk's depth: a sketch that removed the first (``  }``
    before an outer ``}``) and one that mis-indented it read the same, so neither is chosen."""
    best = _best(found, score)
    if any(_tail_agrees(file_lines, chunk_lines, p, score[p]) for p in best):
        return
    step = _indent_width(chunk_lines[-1]) - _indent_width(chunk_lines[0])
    aligned = [
        p
        for p in found
        if p not in best and _indent_width(file_lines[p]) - _indent_width(file_lines[head]) == step
    ]
    if not aligned:
        return
    raise MergeFailed(
        f"its closing line {chunk_keys[-1]!r} follows the same lines as line {best[0] + 1} "
        f"but is indented like line {aligned[0] + 1}, so which one it means would be a guess; "
        "copy the chunk's lines with the file's indentation, or end it with a line that is unique"
    )


def _find_tail(
    file_lines: list[str],
    keys: list[str],
    chunk_keys: list[str],
    head: int,
    chunk_lines: list[str] | None = None,
    after: int | None = None,
) -> int | None:
    """``after``: the first file line the tail may be (the lines before it answer the chunk's
    leading lines, so the chunk's last line cannot stand among them)."""
    found = _positions(keys, chunk_keys[-1], head if after is None else after, len(keys))
    if not found:
        return None
    score = {p: _backward_context(keys, chunk_keys, p, head) for p in found}
    best = _best(found, score)
    if chunk_lines is not None:
        _refuse_misaligned_context(file_lines, chunk_lines, chunk_keys, head, found, score)
    if len(best) == 1:
        return best[0]
    # The chunk's own indentation tells which closing line it means: the one as far in from
    # the head line as the chunk's last line is from its first (a shifted sketch still agrees).
    if chunk_lines is not None:
        step = _indent_width(chunk_lines[-1]) - _indent_width(chunk_lines[0])
        same = [
            p
            for p in best
            if _indent_width(file_lines[p]) - _indent_width(file_lines[head]) == step
        ]
        # ... and the nearest such line still inside the head's block (the smallest region;
        # a farther one would swallow the lines between).
        inside = [
            p
            for p in same
            if all(
                not file_lines[k].strip()
                or _indent_width(file_lines[k]) >= _indent_width(file_lines[p])
                for k in range(head + 1, p)
            )
        ]
        if inside:
            return min(inside)
    # Several equally good closing lines (``}`` everywhere): the one that closes the head's
    # block is the structural answer, not a guess.
    end = _block_end(file_lines, head)
    if end is not None and end in best:
        return end
    lines = ", ".join(str(p + 1) for p in best[:6])
    raise MergeFailed(
        f"the closing line {chunk_keys[-1]!r} matches {len(best)} places (lines {lines}); "
        "end the chunk with a line that is unique"
    )


def _absent(keys: list[str], lines: list[str]) -> bool:
    """True when none of ``lines`` (ignoring blanks) occurs in the file: they are additions."""
    present = set(keys)
    return all(not line or line not in present for line in lines)


# A new line this close to a file line next to the anchor reads as a rewrite of that line
# (``return 33`` for ``return 3``), not an addition; inserting would keep both.
_REWRITE_SIMILARITY = 0.75


def _near(keys: list[str], start: int, step: int, count: int) -> list[str]:
    """Up to ``count`` non-blank file lines from ``start`` walking by ``step`` (±1)."""
    found: list[str] = []
    index = start
    while 0 <= index < len(keys) and len(found) < count:
        if keys[index]:
            found.append(keys[index])
        index += step
    return found


def _rewrites(new_keys: list[str], neighbours: list[str]) -> str | None:
    """The first file line among ``neighbours`` that one of ``new_keys`` looks like a rewrite
    of, if any."""
    for new in new_keys:
        if not new:
            continue
        for old in neighbours:
            if difflib.SequenceMatcher(a=new, b=old, autojunk=False).ratio() >= _REWRITE_SIMILARITY:
                return old
    return None


def _insertion_or_fail(new_keys: list[str], neighbours: list[str], where: str) -> None:
    similar = _rewrites(new_keys, neighbours)
    if similar is not None:
        raise MergeFailed(
            f"its new lines look like a change of {similar!r} {where}, but the chunk does not "
            "include that line, so it would be inserted next to it and both kept; end the chunk "
            "with an unchanged line after the change (or add `... existing code ...` markers)"
        )


def _region(
    file_lines: list[str], keys: list[str], chunk: _Chunk, cursor: int, has_marker: bool
) -> tuple[int, int]:
    """File lines ``[first, last]`` (inclusive) that ``chunk`` replaces."""
    chunk_keys = [line.strip() for line in chunk.lines]
    head = _find_head(keys, chunk_keys, cursor, file_lines, chunk.lines)
    if head is None:
        if chunk.open_start and has_marker and cursor == 0:
            head = 0  # the chunk is the new beginning of the file
        else:
            # New lines before an existing anchor: an insertion above it.
            try:
                tail = _find_tail(file_lines, keys, chunk_keys, cursor)
            except MergeFailed:
                tail = None
            if tail is not None:
                matched = _backward_context(keys, chunk_keys, tail, cursor)
                added = chunk_keys[: len(chunk_keys) - matched]
                if _absent(keys, added):
                    before = _near(keys, tail - matched, -1, len(added))
                    _insertion_or_fail(added, before, "just above the anchor")
                    return tail - matched + 1, tail
            raise MergeFailed(
                f"its first line {chunk.lines[0].strip()!r} is not in the file (after the "
                "previous chunk); start each chunk with an existing line"
            )
    forward = _forward_context(keys, chunk_keys, head)
    if forward == len(chunk_keys) and _indent_agrees(file_lines, chunk.lines, head, forward):
        return head, head + forward - 1  # unchanged context only
    # The chunk's leading lines matched ``forward`` file lines; its last line comes after a
    # change, so it stands after them (a ``*`` or ``return True`` among them is not the tail).
    tail_from = head + forward if forward < len(chunk_keys) else head
    tail = _find_tail(file_lines, keys, chunk_keys, head, chunk.lines, tail_from)
    if tail is not None:
        return head, tail
    if chunk.open_end and has_marker:
        return head, len(file_lines) - 1  # the chunk is the new end of the file
    if _absent(keys, chunk_keys[forward:]):
        # New lines after an existing anchor: an insertion, unless they rewrite what follows.
        added = chunk_keys[forward:]
        after = _near(keys, head + forward, 1, len(added))
        _insertion_or_fail(added, after, "just below the anchor")
        return head, head + forward - 1
    raise MergeFailed(
        f"its last line {chunk.lines[-1].strip()!r} is not in the file after its first line; "
        "end each chunk with an existing line"
    )


def _at_anchor_depth(anchor: str, chunk_lines: list[str]) -> list[str]:
    """The chunk shifted so its head anchor stands at the file line's depth.

    A chunk copied 4 columns too far left still finds its anchors (they are compared without
    indentation); written as sent, its lines would leave the block they belong to — methods
    falling out of their class, the file still importing. The whole chunk moves by the anchor's
    offset; a line that cannot move that far left is refused rather than re-nested."""
    head = next((line for line in chunk_lines if line.strip()), None)
    if head is None or head.strip() != anchor.strip():
        return chunk_lines
    shift = _indent_width(anchor) - _indent_width(head)
    if shift == 0:
        return chunk_lines
    if shift > 0:
        pad = anchor[:shift]
        return [pad + line if line.strip() else line for line in chunk_lines]
    cut = -shift
    out: list[str] = []
    for line in chunk_lines:
        if line.strip() and (_indent_width(line) < cut or line[:cut].strip()):
            raise MergeFailed(
                f"its first line is indented {cut} columns further than the file's "
                f"{anchor.strip()!r}, but {line.strip()!r} is not; moving the chunk to the "
                "file's depth would change what it is nested in. Copy the lines with the "
                "file's indentation"
            )
        out.append(line[cut:] if line.strip() else line)
    return out


def merge_markers(file_lines: list[str], sketch: str) -> list[str]:
    """The file's new lines after applying ``sketch``; raises :class:`MergeFailed`."""
    sketch_lines = sketch.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    chunks = _chunks(sketch_lines)
    if not chunks:
        raise MergeFailed("code_edit holds only markers; nothing to change")
    has_marker = any(is_marker(line) for line in sketch_lines)
    keys = [line.strip() for line in file_lines]
    out: list[str] = []
    cursor = 0
    for number, chunk in enumerate(chunks, start=1):
        try:
            first, last = _region(file_lines, keys, chunk, cursor, has_marker)
        except MergeFailed as failure:
            raise MergeFailed(f"chunk {number}: {failure}") from None
        out.extend(file_lines[cursor:first])
        try:
            lines = _at_anchor_depth(file_lines[first], chunk.lines)
        except MergeFailed as failure:
            raise MergeFailed(f"chunk {number}: {failure}") from None
        # Trailing spaces the model padded lines with are not imported; the file's own stay.
        region = {line.rstrip(): line for line in file_lines[first : last + 1]}
        out.extend(region.get(line.rstrip(), line.rstrip()) for line in lines)
        cursor = last + 1
    out.extend(file_lines[cursor:])
    return out
