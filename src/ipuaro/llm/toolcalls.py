"""Find tool calls that a model wrote in its text, in whatever shape it chose.

Small models ignore the format they were asked for. qwen2.5-coder, served by Ollama with native
tools, still writes ``{"name": …, "arguments": …}`` as plain text and Ollama reports no call.
So every reply is searched for all the shapes, in this order (earlier shapes claim their text):

1. tags: Qwen/Hermes ``<tool_call>{json}</tool_call>``, the concept's
   ``<tool_call name="get_lines"><path>…</path></tool_call>`` (CDATA for multi-line values),
   ``<function=NAME>{json}</function>`` and ``<NAME>…</NAME>`` for an offered tool ``NAME``;
2. fenced ```` ```json ```` (or unlabelled) blocks holding call objects;
3. ReAct ``Action: NAME`` + ``Action Input: {json}``;
4. bare JSON objects or lists of them in the prose.

Only offered names (aliases included) become calls. Text that clearly means a call but cannot be
read becomes a ``ToolCallParseError`` so the agent can re-prompt with it; text that merely
contains JSON is left alone. A call the reply's own prose presents as an example, a hypothetical
or something not to run (``llm/framing.py``) is not a call: it stays in the visible answer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from ipuaro.domain.session import ToolCall
from ipuaro.llm.framing import is_example, whole_reply_declines
from ipuaro.llm.jsonrepair import JsonRepairError, find_json_end, loads_lenient
from ipuaro.llm.protocol import AssistantReply, ToolCallParseError, new_call_id
from ipuaro.llm.xmlcalls import parse_xml_arguments

NAME_KEYS = ("name", "tool", "tool_name", "function", "action", "recipient_name")
ARGS_KEYS = ("arguments", "parameters", "args", "input", "tool_input", "action_input", "params")
_IGNORED_KEYS = frozenset({"id", "type", "index", "call_id"})
_JSON_FENCE_LANGS = frozenset({"", "json", "jsonc", "json5", "tool_call", "tool", "tool_code"})
_NOT_A_TOOL = frozenset({"final answer", "final_answer", "finish", "none", "answer", "respond"})
_RAW_LIMIT = 300

_TAG_OPEN = re.compile(r"<tool_call(?P<attrs>\s[^>]*)?>", re.IGNORECASE)
_TAG_CLOSE = re.compile(r"</tool_call\s*>", re.IGNORECASE)
_FUNCTION_TAG = re.compile(
    r"<function\s*=\s*[\"']?(?P<name>[\w.-]+)[\"']?\s*>(?P<body>.*?)(?:(?P<close></function>)|\Z)",
    re.DOTALL,
)
_NAME_ATTR = re.compile(r"""name\s*=\s*(?:"([^"]*)"|'([^']*)'|([\w.-]+))""")
_FENCE = re.compile(r"```[ \t]*(?P<lang>[\w+-]*)[^\n]*\n(?P<body>.*?)(?:```|\Z)", re.DOTALL)
_ACTION = re.compile(r"^[ \t]*\**Action\**[ \t]*:[ \t]*(?P<name>.*)$", re.MULTILINE)
_ACTION_INPUT = re.compile(r"^[ \t]*\**Action[ _]Input\**[ \t]*:[ \t]*", re.MULTILINE)
_REACT_STOP = re.compile(
    r"^[ \t]*\**(?:Observation|Thought|Action|Final Answer)\**[ \t]*:", re.MULTILINE
)
_OBSERVATION = re.compile(r"^[ \t]*\**Observation\**[ \t]*:", re.MULTILINE)
_THINK = re.compile(r"<think>.*?(?:</think>|\Z)", re.DOTALL)
_CALL_HINT = re.compile(r"""["']?(?:name|tool|tool_name|function|action)["']?\s*:\s*["']""")
_MARKERS = re.compile(r"\[TOOL_CALLS\]|<\|python_tag\|>|</tool_call\s*>", re.IGNORECASE)


@dataclass
class ParsedReply:
    text: str
    """The visible answer: the reply with every call (and hallucinated observation) removed."""
    calls: list[ToolCall] = field(default_factory=list)
    errors: list[ToolCallParseError] = field(default_factory=list)
    examples: list[ToolCall] = field(default_factory=list)
    """Calls the reply showed as examples (or said not to run): not executed, left visible."""


@dataclass
class _Found:
    start: int
    end: int
    calls: list[ToolCall] = field(default_factory=list)
    errors: list[ToolCallParseError] = field(default_factory=list)


class _Scan:
    """Claims spans of the text so a call is read once, by the most specific shape."""

    def __init__(self, text: str, allowed: Collection[str]) -> None:
        self.text = text
        self.allowed = frozenset(allowed)
        self.found: list[_Found] = []
        self.blocked: list[tuple[int, int]] = []

    def free(self, start: int, end: int) -> bool:
        spans = [(f.start, f.end) for f in self.found] + self.blocked
        return all(end <= s or start >= e for s, e in spans)

    def claim(self, found: _Found) -> None:
        if found.calls or found.errors:
            self.found.append(found)

    def error(self, message: str, tool: str | None, start: int, end: int) -> _Found:
        found = _Found(start, end)
        found.errors.append(_error(self, found, message, tool))
        return found


def _error(scan: _Scan, found: _Found, message: str, tool: str | None) -> ToolCallParseError:
    raw = scan.text[found.start : found.end].strip()[:_RAW_LIMIT]
    return ToolCallParseError(message, tool, raw)


def parse_tool_calls(text: str, allowed: Collection[str]) -> ParsedReply:
    """Every tool call in ``text`` naming one of ``allowed``, in order, plus the visible text."""
    scan = _Scan(text, allowed)
    scan.blocked.extend(m.span() for m in _THINK.finditer(text))
    _scan_tags(scan)
    _scan_fences(scan)
    _scan_react(scan)
    _scan_bare_json(scan)
    found, examples = _split_examples(text, sorted(scan.found, key=lambda f: f.start))
    visible = _visible_text(text, found, scan)
    return ParsedReply(
        text=visible,
        calls=[call for f in found for call in f.calls],
        errors=[err for f in found for err in f.errors],
        examples=[call for f in examples for call in f.calls],
    )


def _split_examples(text: str, found: list[_Found]) -> tuple[list[_Found], list[_Found]]:
    """Real calls and the ones the surrounding prose frames as examples (see framing.py)."""
    if not found:
        return found, []
    bounds = [0] + [f.end for f in found]
    starts = [f.start for f in found] + [len(text)]
    prose = "\n\n".join(text[bounds[i] : starts[i]] for i in range(len(starts)))
    if whole_reply_declines(prose):
        return [], found
    real: list[_Found] = []
    examples: list[_Found] = []
    for index, item in enumerate(found):
        before = text[bounds[index] : item.start]
        after = text[item.end : starts[index + 1]]
        (examples if is_example(before, after) else real).append(item)
    return real, examples


def parse_reply(reply: AssistantReply, allowed: Collection[str]) -> ParsedReply:
    """Native calls plus calls written in the text; the agent's one entry point per reply.

    Native calls are kept whatever their name (an unknown one becomes a tool error result the
    model can read); calls in the text are accepted only for ``allowed`` names.
    """
    parsed = parse_tool_calls(reply.text, allowed)
    native = list(reply.tool_calls)
    seen = {_call_key(c) for c in native}
    extra = [c for c in parsed.calls if _call_key(c) not in seen]
    return ParsedReply(
        text=parsed.text, calls=native + extra, errors=list(reply.parse_errors) + parsed.errors
    )


def _call_key(call: ToolCall) -> str:
    return call.name + json.dumps(call.parameters, sort_keys=True, default=str)


# --- 1. tags ------------------------------------------------------------------------------


def _scan_tags(scan: _Scan) -> None:
    text = scan.text
    for opening in _TAG_OPEN.finditer(text):
        if not scan.free(*opening.span()):
            continue
        closing = _TAG_CLOSE.search(text, opening.end())
        next_open = _TAG_OPEN.search(text, opening.end())
        closed = closing is not None and (next_open is None or closing.start() < next_open.start())
        if closing is not None and closed:
            body_end, end = closing.start(), closing.end()
        else:
            body_end = end = next_open.start() if next_open is not None else len(text)
        found = _Found(opening.start(), end)
        body = text[opening.end() : body_end]
        name_match = _NAME_ATTR.search(opening.group("attrs") or "")
        if name_match is not None:
            name = next(g for g in name_match.groups() if g is not None).strip()
            _read_named_body(scan, found, name, body, opening.end(), closed)
        else:
            _read_json_body(scan, found, body, opening.end(), closed)
        scan.claim(found)
    patterns = [_FUNCTION_TAG]
    if scan.allowed:
        names = "|".join(re.escape(n) for n in sorted(scan.allowed, key=len, reverse=True))
        patterns.append(
            re.compile(
                rf"<(?P<name>{names})\s*>(?P<body>.*?)(?:(?P<close></(?P=name)\s*>)|\Z)",
                re.DOTALL,
            )
        )
    for pattern in patterns:
        for match in pattern.finditer(text):
            if scan.free(*match.span()):
                found = _Found(*match.span())
                closed = match.group("close") is not None
                body_offset = match.start("body")
                _read_named_body(
                    scan, found, match.group("name"), match.group("body"), body_offset, closed
                )
                scan.claim(found)


def _read_named_body(
    scan: _Scan, found: _Found, name: str, body: str, body_offset: int, closed: bool
) -> None:
    """The tag names the tool; the body holds JSON arguments or one element per argument.

    An unclosed tag still yields the call when its arguments are complete (the model only lost
    the last tag); the prose after them stays visible.
    """
    if name not in scan.allowed:
        found.errors.append(_unknown_tool(name, scan.text[found.start : found.end]))
        return
    stripped = body.lstrip()
    if stripped.startswith("{"):
        json_start = body_offset + len(body) - len(stripped)
        json_end = find_json_end(scan.text, json_start) if not closed else None
        if not closed and json_end is None:
            found.errors.append(_error(scan, found, f"arguments of {name} are not closed", name))
            return
        raw_args = scan.text[json_start:json_end] if json_end is not None else stripped
        if json_end is not None:
            found.end = json_end
        try:
            value = loads_lenient(raw_args)
        except JsonRepairError as exc:
            found.errors.append(_error(scan, found, f"arguments of {name}: {exc}", name))
            return
        _append_call(found, name, value, scan.text[found.start : found.end])
        return
    parsed = parse_xml_arguments(body)
    if parsed.problem is not None:
        found.errors.append(_error(scan, found, f"{name}: {parsed.problem}", name))
        return
    if not closed:
        found.end = body_offset + parsed.consumed
    found.calls.append(ToolCall(id=new_call_id(), name=name, parameters=parsed.values))


def _read_json_body(scan: _Scan, found: _Found, body: str, body_offset: int, closed: bool) -> None:
    """``<tool_call>`` with no name attribute: one or more JSON call objects (or a list)."""
    raw = scan.text[found.start : found.end]
    stripped = body.strip()
    if stripped.startswith("<"):
        # <tool_call><name>x</name><arguments>{…}</arguments></tool_call>
        parsed = parse_xml_arguments(body)
        if parsed.problem is None and isinstance(parsed.values.get("name"), str):
            _read_object(scan, found, parsed.values, raw, explicit=True)
            return
    values, problem, consumed = _json_values(body)
    for value in values:
        _read_object(scan, found, value, raw, explicit=True)
    if problem is not None and not closed and values and body[consumed] not in "{[":
        found.end = body_offset + consumed  # prose after an unclosed block is the answer
        return
    if problem is not None:
        tool = _hinted_tool(stripped, scan.allowed, loose=True)
        found.errors.append(_error(scan, found, f"<tool_call> body: {problem}", tool))


def _json_values(text: str) -> tuple[list[Any], str | None, int]:
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


# --- 2. fenced blocks ---------------------------------------------------------------------


def _scan_fences(scan: _Scan) -> None:
    for match in _FENCE.finditer(scan.text):
        lang = match.group("lang").lower()
        if lang not in _JSON_FENCE_LANGS:
            scan.blocked.append(match.span())  # code examples are never calls
            continue
        body = match.group("body").strip()
        if not body.startswith(("{", "[")) or not scan.free(*match.span()):
            continue
        found = _Found(*match.span())
        values, problem, _ = _json_values(body)
        for value in values:
            _read_object(scan, found, value, match.group(0), explicit=False)
        if problem is not None and (tool := _hinted_tool(body, scan.allowed)) is not None:
            found.errors.append(_error(scan, found, f"```json block: {problem}", tool))
        scan.claim(found)


# --- 3. ReAct -----------------------------------------------------------------------------


def _scan_react(scan: _Scan) -> None:
    text = scan.text
    for action in _ACTION.finditer(text):
        if not scan.free(*action.span()):
            continue
        head = re.match(r"[`*\"']*(?P<name>[\w.-]*)[`*\"']*\s*(?P<inline>.*)", action.group("name"))
        name = head.group("name") if head else ""
        if not name or action.group("name").strip().lower() in _NOT_A_TOOL:
            continue
        found = _Found(action.start(), action.end())
        raw_input = head.group("inline").strip() if head else ""
        next_stop = _REACT_STOP.search(text, action.end())
        input_match = _ACTION_INPUT.search(text, action.end())
        if input_match is not None and (
            next_stop is None or input_match.start() < next_stop.start()
        ):
            stop = _REACT_STOP.search(text, input_match.end())
            found.end = stop.start() if stop else len(text)
            raw_input = _strip_fence(text[input_match.end() : found.end].strip())
        if name not in scan.allowed:
            found.errors.append(_unknown_tool(name, text[found.start : found.end]))
        elif not raw_input:
            _append_call(found, name, {}, text[found.start : found.end])
        else:
            try:
                arguments = loads_lenient(raw_input)
            except JsonRepairError as exc:
                message = f"Action Input of {name} must be a JSON object of arguments: {exc}"
                found.errors.append(_error(scan, found, message, name))
            else:
                _append_call(found, name, arguments, text[found.start : found.end])
        scan.claim(found)
    react_starts = [f.start for f in scan.found if _ACTION.match(text, f.start)]
    if react_starts:
        # A model that writes its own "Observation:" invented the result: drop it and all after.
        observation = _OBSERVATION.search(text, min(react_starts))
        if observation is not None:
            scan.blocked.append((observation.start(), len(text)))
            scan.found = [f for f in scan.found if f.start < observation.start()]


def _strip_fence(text: str) -> str:
    match = re.fullmatch(r"```[\w-]*[ \t]*\n?(.*?)\n?```", text, re.DOTALL)
    return match.group(1).strip() if match else text


# --- 4. bare JSON -------------------------------------------------------------------------


def _scan_bare_json(scan: _Scan) -> None:
    text = scan.text
    i = 0
    while i < len(text):
        ch = text[i]
        if ch not in "{[" or not scan.free(i, i + 1):
            i += 1
            continue
        window = text[i : i + 200]
        if not _CALL_HINT.search(window) or (ch == "[" and not window[1:].lstrip().startswith("{")):
            i += 1
            continue
        end = find_json_end(text, i)
        if end is None:
            tool = _hinted_tool(text[i:], scan.allowed)
            if tool is not None:
                scan.claim(
                    scan.error(
                        "the JSON tool call is not closed (was the reply cut off?)",
                        tool,
                        i,
                        len(text),
                    )
                )
                return
            i += 1
            continue
        found = _Found(i, end)
        try:
            value = loads_lenient(text[i:end])
        except JsonRepairError as exc:
            tool = _hinted_tool(text[i:end], scan.allowed)
            if tool is not None:
                scan.claim(scan.error(f"tool call JSON: {exc}", tool, i, end))
                i = end
            else:
                i += 1
            continue
        _read_object(scan, found, value, text[i:end], explicit=False)
        if found.calls or found.errors:
            scan.claim(found)
            i = end
        else:
            i += 1  # not a call itself; a call may be nested inside


# --- call objects -------------------------------------------------------------------------


def _read_object(scan: _Scan, found: _Found, value: Any, raw: str, *, explicit: bool) -> None:
    """Turn one decoded JSON value into calls. ``explicit``: it sat in a tool-call tag, so a
    shape we cannot read is an error rather than ordinary JSON."""
    if isinstance(value, list):
        for item in value:
            _read_object(scan, found, item, raw, explicit=explicit)
        return
    if not isinstance(value, dict):
        if explicit:
            found.errors.append(
                ToolCallParseError("a tool call must be a JSON object", None, raw[:_RAW_LIMIT])
            )
        return
    if isinstance(value.get("tool_calls"), list):
        for item in value["tool_calls"]:
            _read_object(scan, found, item, raw, explicit=True)
        return
    if isinstance(value.get("function"), dict):
        _read_object(scan, found, value["function"], raw, explicit=True)
        return
    name_key = next((k for k in NAME_KEYS if isinstance(value.get(k), str)), None)
    args_key = next((k for k in ARGS_KEYS if k in value), None)
    if name_key is None:
        if explicit:
            message = 'a tool call needs "name" and "arguments"'
            found.errors.append(ToolCallParseError(message, None, raw[:_RAW_LIMIT]))
        return
    name = value[name_key].strip()
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
    if name not in scan.allowed:
        if explicit or strict_shape:
            found.errors.append(_unknown_tool(name, raw))
        return
    _append_call(found, name, arguments, raw)


def _append_call(found: _Found, name: str, arguments: Any, raw: str) -> None:
    if isinstance(arguments, str):
        text = arguments.strip()
        try:
            arguments = loads_lenient(text) if text else {}
        except JsonRepairError as exc:
            found.errors.append(
                ToolCallParseError(f"arguments of {name}: {exc}", name, raw[:_RAW_LIMIT])
            )
            return
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        message = f"arguments of {name} must be a JSON object, got {type(arguments).__name__}"
        found.errors.append(ToolCallParseError(message, name, raw[:_RAW_LIMIT]))
        return
    found.calls.append(ToolCall(id=new_call_id(), name=name, parameters=arguments))


def _unknown_tool(name: str, raw: str) -> ToolCallParseError:
    message = f"unknown tool {name!r}: call only the tools listed in the instructions"
    return ToolCallParseError(message, name, raw.strip()[:_RAW_LIMIT])


def _hinted_tool(text: str, allowed: frozenset[str], *, loose: bool = False) -> str | None:
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


# --- visible text -------------------------------------------------------------------------


def _visible_text(text: str, found: list[_Found], scan: _Scan) -> str:
    cuts = sorted([(f.start, f.end) for f in found] + _observation_cuts(scan))
    pieces: list[str] = []
    pos = 0
    for start, end in cuts:
        if start > pos:
            pieces.append(text[pos:start])
        pos = max(pos, end)
    pieces.append(text[pos:])
    visible = _MARKERS.sub("", "".join(pieces))
    visible = re.sub(r"^[ \t]*\**Action Input\**[ \t]*:[ \t]*$", "", visible, flags=re.MULTILINE)
    visible = re.sub(r"[ \t]+\n", "\n", visible)
    return re.sub(r"\n{3,}", "\n\n", visible).strip()


def _observation_cuts(scan: _Scan) -> list[tuple[int, int]]:
    return [
        (start, end)
        for start, end in scan.blocked
        if end == len(scan.text) and _OBSERVATION.match(scan.text, start)
    ]
