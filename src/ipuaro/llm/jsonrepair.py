"""Read the almost-JSON that small models write.

Repairs only what cannot change meaning: trailing commas, ``//`` and ``/* */`` comments,
single-quoted strings, raw newlines and tabs inside strings, invalid backslash escapes,
Python's ``True``/``False``/``None``, unquoted keys and quotes inside a string that are
clearly not its end. A value that is not closed is never completed: a truncated
``create_file`` must not write half a file.
"""

from __future__ import annotations

import json
from typing import Any

from ipuaro.domain.errors import IpuaroError

_CLOSERS_AFTER_STRING = frozenset(",}]:")
_JSON_ESCAPES = frozenset('"\\/bfnrtu')
_PY_LITERALS = {"True": "true", "False": "false", "None": "null"}


class JsonRepairError(IpuaroError, ValueError):
    """The text is not JSON even after the safe repairs; ``truncated`` if it never closes."""

    def __init__(self, message: str, *, truncated: bool = False) -> None:
        super().__init__(message)
        self.truncated = truncated


def loads_lenient(text: str) -> Any:
    """Parse ``text`` as one JSON value, repairing it if needed."""
    stripped = text.strip()
    try:
        return json.loads(stripped)
    except json.JSONDecodeError:
        pass
    if stripped and stripped[0] in "{[" and find_json_end(stripped, 0) is None:
        raise JsonRepairError(
            "the JSON value is not closed (was the reply cut off?)", truncated=True
        )
    repaired = repair(stripped)
    try:
        return json.loads(repaired)
    except json.JSONDecodeError as exc:
        message = f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        raise JsonRepairError(message) from None


def find_json_end(text: str, start: int) -> int | None:
    """Index just past the object/array opening at ``start``, or None if it never closes.

    Knows about both quote styles so braces inside strings do not count. A quote inside a
    string first closes it only if a JSON delimiter follows, which is how a model's unescaped
    inner quotes (``"say "hi" now"``) are survived; if that reading never closes the value,
    every quote closes (``{"a" 1}`` is broken, not unfinished).
    """
    end = _scan_end(text, start, tolerant=True)
    return end if end is not None else _scan_end(text, start, tolerant=False)


def _scan_end(text: str, start: int, *, tolerant: bool) -> int | None:
    depth = 0
    quote: str | None = None
    i = start
    n = len(text)
    while i < n:
        ch = text[i]
        if quote is not None:
            if ch == "\\":
                i += 2
                continue
            if ch == quote and (not tolerant or _closes_string(text, i + 1)):
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def _closes_string(text: str, after: int) -> bool:
    j = after
    while j < len(text) and text[j] in " \t\r\n":
        j += 1
    return j >= len(text) or text[j] in _CLOSERS_AFTER_STRING


def repair(text: str) -> str:
    """Rewrite ``text`` into strict JSON using only meaning-preserving fixes."""
    text = _drop_comments(text)
    out: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch in "\"'":
            i = _copy_string(text, i, out)
            continue
        if ch == ",":
            j = i + 1
            while j < n and text[j] in " \t\r\n":
                j += 1
            if j < n and text[j] in "}]":
                i += 1  # trailing comma
                continue
        if ch.isalpha() or ch == "_":
            j = i
            while j < n and (text[j].isalnum() or text[j] in "_-$"):
                j += 1
            word = text[i:j]
            if word in _PY_LITERALS:
                out.append(_PY_LITERALS[word])
            elif word in ("true", "false", "null"):
                out.append(word)
            elif _next_non_space(text, j) == ":":
                out.append(json.dumps(word))  # unquoted key
            else:
                out.append(word)
            i = j
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _drop_comments(text: str) -> str:
    """``text`` without JSONC ``//`` and ``/* */`` comments (never inside a string)."""
    if "/" not in text:
        return text
    out: list[str] = []
    quote: str | None = None
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if quote is not None:
            if ch == "\\":
                out.append(text[i : i + 2])
                i += 2
                continue
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif text.startswith("//", i):
            newline = text.find("\n", i)
            i = n if newline == -1 else newline
            continue
        elif text.startswith("/*", i):
            close = text.find("*/", i + 2)
            i = n if close == -1 else close + 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _copy_string(text: str, start: int, out: list[str]) -> int:
    quote = text[start]
    out.append('"')
    i = start + 1
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "\\" and i + 1 < n:
            nxt = text[i + 1]
            if nxt in _JSON_ESCAPES:
                out.append(ch + nxt)
            elif nxt == "'":
                out.append("'")
            else:
                out.append("\\\\" + nxt)  # e.g. a regex's \d written unescaped
            i += 2
            continue
        if ch == quote and _closes_string(text, i + 1):
            out.append('"')
            return i + 1
        if ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
        i += 1
    return n


def _next_non_space(text: str, start: int) -> str:
    j = start
    while j < len(text) and text[j] in " \t\r\n":
        j += 1
    return text[j] if j < len(text) else ""
