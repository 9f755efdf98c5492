"""Diffs for the user (unified) and for the model (the changed region with line numbers)."""

from __future__ import annotations

import difflib

from ipuaro.edits.text import Lines

REGION_CONTEXT = 2
"""Unchanged lines shown around each changed region, so the model sees where it landed."""
REGION_MAX_LINES = 80
"""Most lines of one file's changed regions echoed back to the model."""


def unified_diff(path: str, old_text: str | None, new_text: str | None) -> str:
    old_lines = Lines.of(old_text).lines if old_text is not None else []
    new_lines = Lines.of(new_text).lines if new_text is not None else []
    before = "/dev/null" if old_text is None else f"a/{path}"
    after = "/dev/null" if new_text is None else f"b/{path}"
    body = difflib.unified_diff(old_lines, new_lines, before, after, lineterm="", n=3)
    text = "\n".join(body)
    return text + "\n" if text else ""


def numbered(lines: list[str], first: int) -> str:
    width = len(str(first + max(len(lines) - 1, 0)))
    return "\n".join(f"{first + i:>{width}}| {line}" for i, line in enumerate(lines))


def changed_region(path: str, old_text: str | None, new_text: str | None) -> str:
    """What the edit did, for the model: new lines with their numbers, plus what was removed."""
    if new_text is None:
        return f"{path}: deleted"
    new_lines = Lines.of(new_text).lines
    if old_text is None:
        shown = new_lines[:REGION_MAX_LINES]
        more = len(new_lines) - len(shown)
        tail = f"\n… {more} more lines (get_lines to read them)" if more > 0 else ""
        return f"{path}: created, {len(new_lines)} lines\n{numbered(shown, 1)}{tail}"
    old_lines = Lines.of(old_text).lines
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    parts: list[str] = []
    budget = REGION_MAX_LINES
    groups = list(matcher.get_grouped_opcodes(REGION_CONTEXT))
    if not groups:
        return f"{path}: no change in lines (whitespace or line endings only)"
    for group in groups:
        first_new = group[0][3]
        last_new = group[-1][4]
        removed = sum(i2 - i1 for tag, i1, i2, _j1, _j2 in group if tag in ("replace", "delete"))
        added = sum(j2 - j1 for tag, _i1, _i2, j1, j2 in group if tag in ("replace", "insert"))
        header = f"lines {first_new + 1}-{last_new} now (-{removed} +{added}):"
        if last_new <= first_new:
            header = f"at line {first_new + 1}: {removed} line(s) removed"
            parts.append(header)
            continue
        window = new_lines[first_new:last_new]
        if len(window) > budget:
            window = window[: max(budget, 0)]
            parts.append(header)
            if window:
                parts.append(numbered(window, first_new + 1))
            parts.append("… (region cut; get_lines to see the rest)")
            break
        budget -= len(window)
        parts.append(header)
        parts.append(numbered(window, first_new + 1))
    return f"{path}:\n" + "\n".join(parts)
