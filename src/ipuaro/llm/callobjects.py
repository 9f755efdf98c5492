"""The pieces every call shape shares: claimed spans, decoding a call object, its errors.

``toolcalls.py`` scans a reply for the call shapes; each shape hands what it read to
``read_object``/``append_call`` here, so a call means the same whatever it was wrapped in.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from ipuaro.domain.session import ToolCall
from ipuaro.llm.callsite import tool_name
from ipuaro.llm.jsonrepair import JsonRepairError, find_json_end, loads_lenient
from ipuaro.llm.protocol import ToolCallParseError, new_call_id

NAME_KEYS = ("name", "tool", "tool_name", "function", "action", "recipient_name")
ARGS_KEYS = ("arguments", "parameters", "args", "input", "tool_input", "action_input", "params")
_IGNORED_KEYS = frozenset({"id", "type", "index", "call_id"})
RAW_LIMIT = 300


@dataclass
class Found:
    start: int
    end: int
    calls: list[ToolCall] = field(default_factory=list)
    errors: list[ToolCallParseError] = field(default_factory=list)


class Scan:
    """Claims spans of the text so a call is read once, by the most specific shape."""

    def __init__(self, text: str, allowed: Collection[str]) -> None:
        self.text = text
        self.allowed = frozenset(allowed)
        self.found: list[Found] = []
        self.blocked: list[tuple[int, int]] = []
        self.notes: list[str] = []

    def name(self, written: str) -> str | None:
        """The offered name ``written`` means (a near miss is accepted with a note)."""
        resolved = tool_name(written, self.allowed)
        if resolved is not None and resolved != written:
            note = f"read the tool name {written!r} as {resolved!r}; write it exactly next time"
            if note not in self.notes:
                self.notes.append(note)
        return resolved

    def free(self, start: int, end: int) -> bool:
        spans = [(f.start, f.end) for f in self.found] + self.blocked
        return all(end <= s or start >= e for s, e in spans)

    def claim(self, found: Found) -> None:
        if found.calls or found.errors:
            self.found.append(found)

    def error(self, message: str, tool: str | None, start: int, end: int) -> Found:
        found = Found(start, end)
        found.errors.append(error_at(self, found, message, tool))
        return found


def error_at(scan: Scan, found: Found, message: str, tool: str | None) -> ToolCallParseError:
    raw = scan.text[found.start : found.end].strip()[:RAW_LIMIT]
    return ToolCallParseError(message, tool, raw)


def json_values(text: str) -> tuple[list[Any], str | None, int]:
    """All JSON values written one after another (models put two calls in one block), the
    problem that stopped the reading, and how far it got."""
    values: list[Any] = []
    i = 0
    while i < len(text):
        if text[i] in " \t\r\n,;":
            i += 1
            continue
        if text[i] not in "{[":
            return values, f"expected a JSON object, found {text[i : i + 20]!r}", i
        end = find_json_end(text, i)
        if end is None:
            return values, "the JSON object is not closed (was the reply cut off?)", i
        try:
            values.append(loads_lenient(text[i:end]))
        except JsonRepairError as exc:
            return values, str(exc), i
        i = end
    if not values:
        return values, "the block is empty", i
    return values, None, i


# --- call objects -------------------------------------------------------------------------


def read_object(scan: Scan, found: Found, value: Any, raw: str, *, explicit: bool) -> None:
    """Turn one decoded JSON value into calls. ``explicit``: it sat in a tool-call tag, so a
    shape we cannot read is an error rather than ordinary JSON."""
    if isinstance(value, list):
        for item in value:
            read_object(scan, found, item, raw, explicit=explicit)
        return
    if not isinstance(value, dict):
        if explicit:
            found.errors.append(
                ToolCallParseError("a tool call must be a JSON object", None, raw[:RAW_LIMIT])
            )
        return
    if isinstance(value.get("tool_calls"), list):
        for item in value["tool_calls"]:
            read_object(scan, found, item, raw, explicit=True)
        return
    if isinstance(value.get("function"), dict):
        read_object(scan, found, value["function"], raw, explicit=True)
        return
    name_key = next((k for k in NAME_KEYS if isinstance(value.get(k), str)), None)
    args_key = next((k for k in ARGS_KEYS if k in value), None)
    if name_key is None:
        if explicit:
            message = 'a tool call needs "name" and "arguments"'
            found.errors.append(ToolCallParseError(message, None, raw[:RAW_LIMIT]))
        return
    written = value[name_key].strip()
    rest = {k: v for k, v in value.items() if k not in _IGNORED_KEYS and k != name_key}
    if args_key is not None:
        strict_shape = set(rest) == {args_key}
        arguments = value[args_key]
    else:
        # Flat calls ({"tool": "get_lines", "path": "a.ts"}) only where they cannot be data.
        strict_shape = False
        if not explicit and name_key == "name":
            return
        arguments = rest
    name = scan.name(written)
    if name is None:
        if explicit or strict_shape:
            found.errors.append(unknown_tool(written, raw))
        return
    append_call(found, name, arguments, raw)


def append_call(found: Found, name: str, arguments: Any, raw: str) -> None:
    if isinstance(arguments, str):
        text = arguments.strip()
        try:
            arguments = loads_lenient(text) if text else {}
        except JsonRepairError as exc:
            found.errors.append(
                ToolCallParseError(f"arguments of {name}: {exc}", name, raw[:RAW_LIMIT])
            )
            return
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        message = f"arguments of {name} must be a JSON object, got {type(arguments).__name__}"
        found.errors.append(ToolCallParseError(message, name, raw[:RAW_LIMIT]))
        return
    found.calls.append(ToolCall(id=new_call_id(), name=name, parameters=arguments))


def unknown_tool(name: str, raw: str) -> ToolCallParseError:
    message = f"unknown tool {name!r}: call only the tools listed in the instructions"
    return ToolCallParseError(message, name, raw.strip()[:RAW_LIMIT])


def hinted_tool(text: str, allowed: frozenset[str], *, loose: bool = False) -> str | None:
    """The offered tool an unreadable blob names, if any: that is what makes it a failed call.
    ``loose`` (inside a tool-call tag): any offered name written as a word counts."""
    for match in re.finditer(
        r"""["']?(?:name|tool|tool_name|function|action)["']?\s*:\s*["']([\w.-]+)["']""", text
    ):
        if match.group(1) in allowed:
            return match.group(1)
    if loose:
        return next((w for w in re.findall(r"[\w.-]+", text) if w in allowed), None)
    return None
