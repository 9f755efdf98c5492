"""Keep tool-call markup out of the streamed text the user watches.

The model may write its calls in the text (XML tags, fenced JSON, ReAct lines, bare JSON). The
final, cleaned text comes with ``MessageEnd`` from the real parser; while streaming we only need
not to flash markup at the user. Text is passed through until something that opens a call
appears; from there on the delta stream goes quiet. A possible opener split across chunks is
held back until the next chunk decides it.
"""

from __future__ import annotations

import re

_OPENERS = re.compile(
    r"<tool_call|<function\s*=|```\s*(?:json|tool)|^[ \t]*\**Action\**[ \t]*:|\[TOOL_CALLS\]"
    r"|<\|python_tag\|>|\{\s*\"(?:name|tool|tool_name|function)\"\s*:",
    re.MULTILINE | re.IGNORECASE,
)
_HOLD = 24
"""Characters kept back at the end of the buffer: enough for the longest opener."""
_STARTS = "<`{[A*"


class MarkupFilter:
    def __init__(self, tool_names: frozenset[str] = frozenset()) -> None:
        self._buffer = ""
        self._emitted = 0
        self._quiet = False
        names = "|".join(re.escape(n) for n in sorted(tool_names, key=len, reverse=True))
        self._named = re.compile(rf"<(?:{names})\s*>") if names else None

    @property
    def quiet(self) -> bool:
        return self._quiet

    def feed(self, text: str) -> str:
        """The part of ``text`` that is safe to show now."""
        if self._quiet:
            return ""
        self._buffer += text
        start = self._opener()
        if start is not None:
            self._quiet = True
            return self._take(start)
        safe = len(self._buffer)
        tail = self._buffer[-_HOLD:]
        for index, char in enumerate(tail):
            if char in _STARTS:
                safe = len(self._buffer) - len(tail) + index
                break
        return self._take(max(safe, self._emitted))

    def flush(self) -> str:
        """End of the stream: whatever was held back and turned out harmless."""
        if self._quiet:
            return ""
        return self._take(len(self._buffer))

    def _opener(self) -> int | None:
        found = [m.start() for m in (_OPENERS.search(self._buffer, 0),) if m]
        if self._named is not None:
            named = self._named.search(self._buffer)
            if named:
                found.append(named.start())
        return min(found) if found else None

    def _take(self, end: int) -> str:
        if end <= self._emitted:
            return ""
        out = self._buffer[self._emitted : end]
        self._emitted = end
        return out
