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

Only offered names (aliases included, and unambiguous near misses such as ``getLines`` with a
note) become calls. Text that clearly means a call but cannot be read becomes a
``ToolCallParseError`` so the agent can re-prompt with it; text that merely contains JSON is
left alone. Where a call stands decides whether it is the reply's action (``docs/tool-calls.md``):
one in a quotation, a table, a diff, a string literal or a list of alternatives
(``llm/callsite.py``), or one the prose presents as an example (``llm/framing.py``), is shown,
not made: it stays in the visible answer and is listed in ``ParsedReply.shown``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from dataclasses import dataclass, field

from ipuaro.domain.session import ToolCall
from ipuaro.llm.callobjects import (
    NAME_KEYS,
    Found,
    Scan,
    append_call,
    error_at,
    hinted_tool,
    json_values,
    read_object,
    unknown_tool,
)
from ipuaro.llm.callsite import only_calls, placement
from ipuaro.llm.jsonrepair import JsonRepairError, find_json_end, loads_lenient
from ipuaro.llm.protocol import AssistantReply, ToolCallParseError, new_call_id
from ipuaro.llm.xmlcalls import parse_xml_arguments

__all__ = ["NAME_KEYS", "ParsedReply", "parse_reply", "parse_tool_calls"]
_JSON_FENCE_LANGS = frozenset({"", "json", "jsonc", "json5", "tool_call", "tool", "tool_code"})
_NOT_A_TOOL = frozenset({"final answer", "final_answer", "finish", "none", "answer", "respond"})

_TAG_OPEN = re.compile(r"<tool_call(?P<attrs>\s[^>]*)?>", re.IGNORECASE)
_TAG_CLOSE = re.compile(r"</tool_call\s*>", re.IGNORECASE)
_FUNCTION_TAG = re.compile(
    r"<function\s*=\s*[\"']?(?P<name>[\w.-]+)[\"']?\s*>(?P<body>.*?)(?:(?P<close></function>)|\Z)",
    re.DOTALL,
)
_NAME_ATTR = re.compile(r"""name\s*=\s*(?:"([^"]*)"|'([^']*)'|([\w.-]+))""")
_FENCE = re.compile(r"```[ \t]*(?P<lang>[\w+-]*)[^\n]*\n(?P<body>.*?)(?:```|\Z)", re.DOTALL)
# ReAct labels, plain or bold on either side of the colon ("**Action:**", "**Action**:").
_ACTION = re.compile(r"^[ \t]*\**Action\**[ \t]*:\**[ \t]*(?P<name>.*)$", re.MULTILINE)
_ACTION_INPUT = re.compile(r"^[ \t]*\**Action[ _]Input\**[ \t]*:\**[ \t]*", re.MULTILINE)
_REACT_STOP = re.compile(
    r"^[ \t]*\**(?:Observation|Thought|Action|Final Answer)\**[ \t]*:", re.MULTILINE
)
_OBSERVATION = re.compile(r"^[ \t]*\**Observation\**[ \t]*:", re.MULTILINE)
_FINAL_ANSWER = re.compile(r"^[ \t]*\**Final[ _]Answer\**[ \t]*:", re.MULTILINE | re.IGNORECASE)
_CALL_BODY = re.compile(r"\A\s*(?:[\[{]|<|\**(?:Thought|Action)\b)")
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
    """Calls the reply showed (as examples, in a quotation, a table, a diff, a string literal,
    a list of alternatives): not executed, left visible."""
    shown: list[tuple[ToolCall, str]] = field(default_factory=list)
    """``examples`` with where each stood ("in a table"), for the one-line note."""
    notes: list[str] = field(default_factory=list)
    """Near misses accepted (``getLines`` read as ``get_lines``), told to the model."""
    from_text: set[str] = field(default_factory=set)
    """Ids of the calls recovered from the text (not native calls)."""
    bare: bool = False
    """The reply is nothing but its calls: a call from text needs no second signal."""


def parse_tool_calls(text: str, allowed: Collection[str]) -> ParsedReply:
    """Every tool call in ``text`` naming one of ``allowed``, in order, plus the visible text."""
    scan = Scan(text, allowed)
    scan.blocked.extend(m.span() for m in _THINK.finditer(text))
    _scan_tags(scan)
    _scan_fences(scan)
    _scan_react(scan)
    _scan_bare_json(scan)
    every = sorted(scan.found, key=lambda f: f.start)
    found, shown = _split_shown(text, every)
    calls = [call for f in found for call in f.calls]
    return ParsedReply(
        text=_visible_text(text, found, scan),
        calls=calls,
        errors=[err for f in found for err in f.errors],
        examples=[call for f, _ in shown for call in f.calls],
        shown=[(call, where) for f, where in shown for call in f.calls],
        notes=scan.notes,
        from_text={call.id for call in calls},
        bare=bool(calls)
        and not shown
        and not _answers_itself(text, scan)
        and only_calls(text, _spans(found) + _observation_cuts(scan)),
    )


def _answers_itself(text: str, scan: Scan) -> bool:
    """The reply writes its own ``Observation:`` (a recount of a call it claims already ran)
    or a ``Final Answer:`` (the call is an instruction for the user, or done with): its calls
    are then text, not the reply's action, however bare the rest is."""
    if _observation_cuts(scan):
        return True
    return _FINAL_ANSWER.search(_THINK.sub("", text)) is not None


def _spans(found: list[Found]) -> list[tuple[int, int]]:
    return [(f.start, f.end) for f in found]


def _split_shown(text: str, found: list[Found]) -> tuple[list[Found], list[tuple[Found, str]]]:
    """The calls that are the reply's action, and the shown ones with where each stood: first
    by structure (callsite.py), then by the prose's own framing (framing.py)."""
    if not found:
        return found, []
    # the framing's patterns compile with the first reply that holds a call, not at start
    from ipuaro.llm.framing import is_example, whole_reply_declines

    spans = [(f.start, f.end) for f in found if f.calls]
    bounds = [0] + [f.end for f in found]
    starts = [f.start for f in found] + [len(text)]
    prose = "\n\n".join(text[bounds[i] : starts[i]] for i in range(len(starts)))
    declines = whole_reply_declines(prose)
    real: list[Found] = []
    shown: list[tuple[Found, str]] = []
    for index, item in enumerate(found):
        where = placement(text, item.start, item.end, spans)
        if where is None and declines:
            where = "in a reply that says it calls nothing"
        before, after = text[bounds[index] : item.start], text[item.end : starts[index + 1]]
        if where is None and is_example(before, after):
            where = "shown as an example"
        if where is None:
            real.append(item)
        else:
            shown.append((item, where))
    return real, shown


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
        text=parsed.text,
        calls=native + extra,
        errors=list(reply.parse_errors) + parsed.errors,
        examples=parsed.examples,
        shown=parsed.shown,
        notes=parsed.notes,
        from_text={call.id for call in extra},
        bare=parsed.bare,
    )


def _call_key(call: ToolCall) -> str:
    return call.name + json.dumps(call.parameters, sort_keys=True, default=str)


# --- 1. tags ------------------------------------------------------------------------------


def _scan_tags(scan: Scan) -> None:
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
        found = Found(opening.start(), end)
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
                found = Found(*match.span())
                closed = match.group("close") is not None
                body_offset = match.start("body")
                _read_named_body(
                    scan, found, match.group("name"), match.group("body"), body_offset, closed
                )
                scan.claim(found)


def _read_named_body(
    scan: Scan, found: Found, name: str, body: str, body_offset: int, closed: bool
) -> None:
    """The tag names the tool; the body holds JSON arguments or one element per argument.

    An unclosed tag still yields the call when its arguments are complete (the model only lost
    the last tag); the prose after them stays visible.
    """
    resolved = scan.name(name)
    if resolved is None:
        found.errors.append(unknown_tool(name, scan.text[found.start : found.end]))
        return
    name = resolved
    stripped = body.lstrip()
    if stripped.startswith("{"):
        json_start = body_offset + len(body) - len(stripped)
        json_end = find_json_end(scan.text, json_start) if not closed else None
        if not closed and json_end is None:
            found.errors.append(error_at(scan, found, f"arguments of {name} are not closed", name))
            return
        raw_args = scan.text[json_start:json_end] if json_end is not None else stripped
        if json_end is not None:
            found.end = json_end
        try:
            value = loads_lenient(raw_args)
        except JsonRepairError as exc:
            found.errors.append(error_at(scan, found, f"arguments of {name}: {exc}", name))
            return
        append_call(found, name, value, scan.text[found.start : found.end])
        return
    parsed = parse_xml_arguments(body)
    if parsed.problem is not None:
        found.errors.append(error_at(scan, found, f"{name}: {parsed.problem}", name))
        return
    if not closed:
        found.end = body_offset + parsed.consumed
    found.calls.append(ToolCall(id=new_call_id(), name=name, parameters=parsed.values))


def _read_json_body(scan: Scan, found: Found, body: str, body_offset: int, closed: bool) -> None:
    """``<tool_call>`` with no name attribute: one or more JSON call objects (or a list)."""
    raw = scan.text[found.start : found.end]
    stripped = body.strip()
    if stripped.startswith("<"):
        # <tool_call><name>x</name><arguments>{…}</arguments></tool_call>
        parsed = parse_xml_arguments(body)
        if parsed.problem is None and isinstance(parsed.values.get("name"), str):
            read_object(scan, found, parsed.values, raw, explicit=True)
            return
    values, problem, consumed = json_values(body)
    for value in values:
        read_object(scan, found, value, raw, explicit=True)
    if problem is not None and not closed and values and body[consumed] not in "{[":
        found.end = body_offset + consumed  # prose after an unclosed block is the answer
        return
    if problem is not None:
        tool = hinted_tool(stripped, scan.allowed, loose=True)
        found.errors.append(error_at(scan, found, f"<tool_call> body: {problem}", tool))


# --- 2. fenced blocks ---------------------------------------------------------------------


def _scan_fences(scan: Scan) -> None:
    for match in _FENCE.finditer(scan.text):
        lang = match.group("lang").lower()
        if lang not in _JSON_FENCE_LANGS:
            scan.blocked.append(match.span())  # code examples are never calls
            continue
        body = match.group("body").strip()
        if _CALL_BODY.match(body) is None:
            scan.blocked.append(match.span())  # code in an unlabelled fence: its strings
            continue  # may hold call-shaped text, never a call
        if not body.startswith(("{", "[")) or not scan.free(*match.span()):
            continue
        found = Found(*match.span())
        values, problem, _ = json_values(body)
        for value in values:
            read_object(scan, found, value, match.group(0), explicit=False)
        if problem is not None and (tool := hinted_tool(body, scan.allowed)) is not None:
            found.errors.append(error_at(scan, found, f"```json block: {problem}", tool))
        scan.claim(found)


# --- 3. ReAct -----------------------------------------------------------------------------


def _scan_react(scan: Scan) -> None:
    text = scan.text
    for action in _ACTION.finditer(text):
        if not scan.free(*action.span()):
            continue
        head = re.match(r"[`*\"']*(?P<name>[\w.-]*)[`*\"']*\s*(?P<inline>.*)", action.group("name"))
        name = head.group("name") if head else ""
        if not name or action.group("name").strip().lower() in _NOT_A_TOOL:
            continue
        found = Found(action.start(), action.end())
        raw_input = head.group("inline").strip() if head else ""
        next_stop = _REACT_STOP.search(text, action.end())
        input_match = _ACTION_INPUT.search(text, action.end())
        if input_match is not None and (
            next_stop is None or input_match.start() < next_stop.start()
        ):
            stop = _REACT_STOP.search(text, input_match.end())
            found.end = stop.start() if stop else len(text)
            value_start = input_match.end() + _leading_space(text, input_match.end())
            value_end = (
                find_json_end(text, value_start)
                if text[value_start : value_start + 1] == "{"
                else None
            )
            if value_end is not None and value_end < found.end:
                found.end = value_end  # prose after the arguments is the visible answer
            raw_input = _strip_fence(text[input_match.end() : found.end].strip())
        resolved = scan.name(name)
        if resolved is None:
            found.errors.append(unknown_tool(name, text[found.start : found.end]))
        elif not raw_input:
            name = resolved
            append_call(found, name, {}, text[found.start : found.end])
        else:
            name = resolved
            try:
                arguments = loads_lenient(raw_input)
            except JsonRepairError as exc:
                message = f"Action Input of {name} must be a JSON object of arguments: {exc}"
                found.errors.append(error_at(scan, found, message, name))
            else:
                append_call(found, name, arguments, text[found.start : found.end])
        scan.claim(found)
    react_starts = [f.start for f in scan.found if _ACTION.match(text, f.start)]
    if react_starts:
        # A model that writes its own "Observation:" invented the result: drop it and all after.
        observation = _OBSERVATION.search(text, min(react_starts))
        if observation is not None:
            scan.blocked.append((observation.start(), len(text)))
            scan.found = [f for f in scan.found if f.start < observation.start()]


def _leading_space(text: str, start: int) -> int:
    return len(text[start:]) - len(text[start:].lstrip())


def _strip_fence(text: str) -> str:
    match = re.fullmatch(r"```[\w-]*[ \t]*\n?(.*?)\n?```", text, re.DOTALL)
    return match.group(1).strip() if match else text


# --- 4. bare JSON -------------------------------------------------------------------------


def _scan_bare_json(scan: Scan) -> None:
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
            tool = hinted_tool(text[i:], scan.allowed)
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
        found = Found(i, end)
        try:
            value = loads_lenient(text[i:end])
        except JsonRepairError as exc:
            tool = hinted_tool(text[i:end], scan.allowed)
            if tool is not None:
                scan.claim(scan.error(f"tool call JSON: {exc}", tool, i, end))
                i = end
            else:
                i += 1
            continue
        read_object(scan, found, value, text[i:end], explicit=False)
        if found.calls or found.errors:
            scan.claim(found)
            i = end
        else:
            i += 1  # not a call itself; a call may be nested inside


# --- visible text -------------------------------------------------------------------------


def _visible_text(text: str, found: list[Found], scan: Scan) -> str:
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


def _observation_cuts(scan: Scan) -> list[tuple[int, int]]:
    return [
        (start, end)
        for start, end in scan.blocked
        if end == len(scan.text) and _OBSERVATION.match(scan.text, start)
    ]
