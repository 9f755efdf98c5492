"""The changes ipuaro made in a session as one diff (``/diff``, ``ipuaro diff``), read from the
session's undo stack: per file, the text before its first recorded change against the text after
its last — so a file edited five times shows once. ``since`` limits it to the last N undo steps
(a step is one applied change: a single edit, or a plan's group of files).

The undo stack keeps ``undo.stackSize`` steps, so older changes are not in it; an entry still
being written (pending) is left out.
"""

from __future__ import annotations

from collections.abc import Sequence

from ipuaro.domain import UndoEntry
from ipuaro.edits.diffs import unified_diff


def undo_steps(entries: Sequence[UndoEntry]) -> list[list[UndoEntry]]:
    """Entries (oldest first) grouped into the steps one /undo reverts."""
    steps: list[list[UndoEntry]] = []
    for entry in entries:
        if entry.pending is not None:
            continue
        if entry.group is not None and steps and steps[-1][0].group == entry.group:
            steps[-1].append(entry)
        else:
            steps.append([entry])
    return steps


def session_diff(entries: Sequence[UndoEntry], since: int | None = None) -> tuple[str, int]:
    """(the unified diff, how many steps it covers); ``since``: only the last N steps."""
    steps = undo_steps(entries)
    if since is not None:
        steps = steps[-since:] if since > 0 else []
    first: dict[str, str | None] = {}
    last: dict[str, str | None] = {}
    for step in steps:
        for entry in step:
            if entry.is_dir:
                continue
            before = None if entry.previous_content is None else "".join(entry.previous_content)
            after = None if entry.new_content is None else "".join(entry.new_content)
            first.setdefault(entry.file_path, before)
            last[entry.file_path] = after
    diff = "".join(
        unified_diff(path, first[path], last[path])
        for path in sorted(first)
        if first[path] != last[path]
    )
    return diff, len(steps)
