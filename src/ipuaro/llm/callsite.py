"""Where a call written in the text stands, and whether the reply is nothing but calls.

The rule (``docs/tool-calls.md``) decides from structure, not from phrases: a call-shaped text
inside a quotation, a table, a diff, a string literal, a list of alternatives or a recount of
an earlier call is shown, not made. This module reads that structure from the characters
around the call's span, so it holds in any language the prose is written in.

``placement`` answers ``None`` for a call that is the reply's action, else a short phrase
naming where it stands ("in a table") for the one-line note the model reads.
``only_calls`` answers whether the reply holds nothing besides its calls: whitespace, fence
lines, call tags, a hidden ``<think>`` block, or a ReAct ``Thought:``/``Action:`` block (a
reply that writes its own ``Observation:`` or ``Final Answer:`` is more than its calls:
``llm/toolcalls.py`` checks that before asking here).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+•]|\d{1,2}[.)]|[A-Za-z][.)])[ \t]+")
_TABLE_ROW = re.compile(r"^[ \t]*\|")
_QUOTE_LINE = re.compile(r"^[ \t]*>")
_DIFF_HEADER = re.compile(r"^(?:@@ .* @@|--- \S|\+\+\+ \S|diff --git )", re.MULTILINE)
_DIFF_LINE = re.compile(r"^[ \t]*[+-](?:[ \t]|$)")
_OPEN_QUOTES = frozenset("\"'“‘«„「『")
_CLOSE_QUOTES = frozenset("\"'”’»“」』")
_STRING_OPENER = re.compile(r"""(?:[=(,:\[]\s*|^\s*)[rRbBuUfF]?(?:\"\"\"|'''|`)\s*$""")
_THINK = re.compile(r"<think>.*?(?:</think>|\Z)", re.DOTALL)
_FENCE_LINE = re.compile(r"^[ \t]*```[\w+-]*[ \t]*$", re.MULTILINE)
_REACT_THOUGHT = re.compile(r"\A[ \t]*\**(?:Thought|Мысль|思考)\**[ \t]*:\**", re.IGNORECASE)
_LEFTOVER_MARKERS = re.compile(
    r"\[TOOL_CALLS\]|<\|python_tag\|>|</?tool_call[^>]*>|^[ \t]*\**Action[ _]Input\**[ \t]*:\**",
    re.IGNORECASE | re.MULTILINE,
)


def placement(text: str, start: int, end: int, spans: Sequence[tuple[int, int]]) -> str | None:
    """Where the call at ``text[start:end]`` stands; ``spans``: every call found in the reply
    (a list item is a list of alternatives only when another item holds a call too)."""
    line_start = text.rfind("\n", 0, start) + 1
    prefix = text[line_start:start]
    line_end = text.find("\n", end)
    suffix = text[end : line_end if line_end != -1 else len(text)]
    if _QUOTE_LINE.match(prefix):
        return "in a quotation"
    if _TABLE_ROW.match(prefix) or (prefix.strip() and "|" in prefix and "|" in suffix):
        return "in a table"
    if _in_diff(text, prefix):
        return "in a diff"
    if _in_string(text, prefix, suffix, line_start):
        return "in a string literal or quotation marks"
    if _LIST_ITEM.match(prefix) and _list_items_with_calls(text, spans) >= 2:
        return "in a list of alternatives"
    return None


def _in_diff(text: str, prefix: str) -> bool:
    return _DIFF_LINE.match(prefix) is not None and _DIFF_HEADER.search(text) is not None


def _in_string(text: str, prefix: str, suffix: str, line_start: int) -> bool:
    before = prefix.rstrip(" \t")
    if before[-1:] in _OPEN_QUOTES and not before.endswith("```"):
        return True
    after = suffix.lstrip(" \t")
    if after[:1] in _CLOSE_QUOTES and not after.startswith("```"):
        return True
    if before.strip():
        return False
    # The call opens a line: is the line above the opening of a multi-line string literal?
    previous_end = line_start - 1
    if previous_end <= 0:
        return False
    previous = text[text.rfind("\n", 0, previous_end) + 1 : previous_end]
    return _STRING_OPENER.search(previous) is not None and not previous.strip().startswith("```")


def _list_items_with_calls(text: str, spans: Sequence[tuple[int, int]]) -> int:
    count = 0
    for start, _ in spans:
        line_start = text.rfind("\n", 0, start) + 1
        if _LIST_ITEM.match(text[line_start:start]):
            count += 1
    return count


def only_calls(text: str, spans: Collection[tuple[int, int]]) -> bool:
    """The reply is nothing but its calls (and the wrapping a call may come in)."""
    pieces: list[str] = []
    pos = 0
    for start, end in sorted(spans):
        pieces.append(text[pos:start])
        pos = max(pos, end)
    pieces.append(text[pos:])
    rest = _THINK.sub("", "".join(pieces))
    rest = _FENCE_LINE.sub("", rest)
    rest = _LEFTOVER_MARKERS.sub("", rest).strip()
    if not rest:
        return True
    # A ReAct block: one "Thought:" paragraph before the Action (the way a model without
    # native tools calls) is part of the call.
    return _REACT_THOUGHT.match(rest) is not None and "\n\n" not in rest


def tool_name(name: str, allowed: Collection[str]) -> str | None:
    """The offered name an unambiguous near miss means (``Get_Lines``, ``getLines``,
    ``get-lines``), or None. Aliases such as ``read_file`` are already in ``allowed``."""
    if name in allowed:
        return name
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name.strip()).lower().replace("-", "_")
    snake = snake.replace(" ", "_")
    matches = [n for n in allowed if n.lower() == snake]
    return matches[0] if len(matches) == 1 else None
