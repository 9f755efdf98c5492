"""A numbered code excerpt (a function, a class) capped like ``get_lines``."""

from __future__ import annotations

from ipuaro.edits.diffs import numbered
from ipuaro.tools.limits import MAX_READ_LINES


def code_excerpt(path: str, lines: list[str], start: int, end: int, label: str) -> str:
    """Lines ``start..end`` (1-based, inclusive) of ``path`` under a header naming ``label``."""
    end = min(end, len(lines))
    shown_end = min(end, start + MAX_READ_LINES - 1)
    header = f"{label} — {path} lines {start}-{end}"
    text = f"{header}\n{numbered(lines[start - 1 : shown_end], start)}"
    if shown_end < end:
        text += (
            f"\n… [lines {shown_end + 1}-{end} not shown ({MAX_READ_LINES} lines per call); "
            f'call get_lines with {{"path": "{path}", "start": {shown_end + 1}, '
            f'"end": {min(end, shown_end + MAX_READ_LINES)}}} for more]'
        )
    return text
