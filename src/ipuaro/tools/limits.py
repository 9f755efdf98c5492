"""Output caps shared by the tools. Every cut says what was cut and how to get the rest."""

from __future__ import annotations

MAX_READ_LINES = 500
"""``get_lines`` / ``get_function`` / ``get_class``: lines per call."""
MAX_GREP_MATCHES = 50
MAX_REFERENCES = 100
MAX_DEFINITIONS = 50
MAX_FILES_LISTED = 50
MAX_TREE_ENTRIES = 300
DEFAULT_TREE_DEPTH = 3
MAX_TODOS = 100
MAX_TABLE_ROWS = 25
MAX_LINE_CHARS = 300
"""Longer lines (minified code) are cut in search results, never in reads."""
MAX_DIFF_CHARS = 24_000


def clip_line(line: str, limit: int = MAX_LINE_CHARS) -> str:
    if len(line) <= limit:
        return line
    return line[:limit] + f" … [{len(line) - limit} more characters]"


def clip_text(text: str, limit: int, how_to_get_more: str) -> tuple[str, bool]:
    """Keep the head of ``text`` up to ``limit`` characters, cut at a line boundary."""
    if len(text) <= limit:
        return text, False
    cut = text.rfind("\n", 0, limit)
    cut = limit if cut <= 0 else cut
    hidden = text[cut:].count("\n")
    return text[:cut] + f"\n… [{hidden} more lines cut; {how_to_get_more}]", True
