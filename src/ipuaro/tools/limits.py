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
"""Longer lines (minified code) are cut to this in search results."""
MAX_OUTPUT_LINE_CHARS = 2000
"""Any line of any tool's output (reads included) is cut to this: one 10 MB minified line
must not fill the context. ``get_lines`` reads the rest with ``column``."""
OUTPUT_LINE_SLACK = 300
"""Room for a line number and a cut note: a line already cut by its tool is left alone."""
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


def cap_line_for_read(line: str, path: str, number: int, column: int = 1) -> str:
    """One line of a read (``get_lines``), cut with the exact call that reads on from the cut."""
    if len(line) <= MAX_OUTPUT_LINE_CHARS:
        return line
    rest = len(line) - MAX_OUTPUT_LINE_CHARS
    following = column + MAX_OUTPUT_LINE_CHARS
    return (
        f"{line[:MAX_OUTPUT_LINE_CHARS]} … [{rest:,} more characters on this line; get_lines "
        f'{{"path": "{path}", "start": {number}, "end": {number}, "column": {following}}} '
        "reads on]"
    )


def cap_output_lines(text: str) -> str:
    """Every line of a tool's output cut to :data:`MAX_OUTPUT_LINE_CHARS`, saying how to get
    the rest. Lines already cut by the tool itself (``get_lines``) fit and pass unchanged."""
    longest = MAX_OUTPUT_LINE_CHARS + OUTPUT_LINE_SLACK
    if len(text) <= longest or all(len(line) <= longest for line in text.split("\n")):
        return text
    return "\n".join(
        line
        if len(line) <= longest
        else (
            f"{line[:MAX_OUTPUT_LINE_CHARS]} … [{len(line) - MAX_OUTPUT_LINE_CHARS:,} more "
            "characters on this line; get_lines with start/end on that line and column reads "
            "the rest]"
        )
        for line in text.split("\n")
    )
