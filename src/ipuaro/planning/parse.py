"""Reading the model's plan reply: extract the JSON, accept the older shapes, validate, build a
:class:`~ipuaro.domain.plan.Plan`.

Extraction is best-effort, for servers that do not constrain the reply: the whole text as JSON,
else a fenced block (```json … ```), else the first JSON object or array embedded in prose.
The older shapes of the contract are accepted and normalised first:

- a bare array of actions → ``{"mode": "fix-plan", "proposed_changes": {"actions": [...]}}``;
- an object with root ``actions`` (and ``patch`` / ``commands_to_run``) → the same fields moved
  under ``proposed_changes``.

Every problem is a :class:`PlanReplyError` whose message names the real fault (it is quoted
back to the model in the one repair retry): the JSON path and what is wrong, or — when the reply
is meant as one JSON object but is not JSON — the line, column and cause ("trailing comma", "the
reply was cut off"), never a schema complaint about some inner object.

One plan per reply: a reply holding several (a draft, then "wait, corrected plan:") gives the
last complete valid one, and says so in ``ReadPlan.notes``; when a later plan attempt is not
valid, the reply is repaired rather than the earlier draft taken.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from jsonschema import Draft202012Validator

from ipuaro.domain.errors import IpuaroError
from ipuaro.domain.plan import (
    ACTION_KINDS,
    Action,
    ContextRequest,
    Plan,
    PlanStep,
    ProposedChanges,
)
from ipuaro.planning.schema import PLAN_SCHEMA

Extraction = Literal["json", "fenced", "embedded"]
"""How the JSON was found: the whole reply, a fenced block, or inside prose."""

_FENCE = re.compile(r"```[a-zA-Z]*\s*\n?(.*?)```", re.DOTALL)
_VALIDATOR = Draft202012Validator(PLAN_SCHEMA)
MAX_ERRORS_QUOTED = 5


class PlanReplyError(IpuaroError, ValueError):
    """The reply is not a valid plan; ``message`` says where and why, ``raw`` is the reply.
    ``stage`` ``check``: a valid plan that apply would refuse (``planning.precheck``)."""

    def __init__(
        self, message: str, raw: str, stage: Literal["extract", "validate", "check"]
    ) -> None:
        super().__init__(message)
        self.message = message
        self.raw = raw
        self.stage = stage


@dataclass(frozen=True)
class ReadPlan:
    plan: Plan
    document: dict[str, Any]
    """The validated object, normalised to the current shape."""
    extraction: Extraction
    legacy: bool
    """The reply used an older shape (a bare array, or root ``actions``)."""
    notes: tuple[str, ...] = ()
    """What the reading decided that the user should know (which of several plans was taken)."""


def json_candidates(text: str) -> Iterator[tuple[Any, Extraction]]:
    """Every JSON value ``text`` may mean, best first: the whole text, fenced blocks, then
    objects and arrays embedded in prose."""
    for value, extraction, _, _ in _candidates(text):
        yield value, extraction


def _candidates(text: str) -> Iterator[tuple[Any, Extraction, int, int]]:
    """``json_candidates`` with where each value starts and ends in ``text``."""
    whole = _loads(text.strip())
    if whole is not _NOTHING:
        yield whole, "json", 0, len(text)
    for match in _FENCE.finditer(text):
        fenced = _loads(match.group(1).strip())
        if fenced is not _NOTHING:
            yield fenced, "fenced", match.start(), match.end()
    decoder = json.JSONDecoder()
    index = 0
    while index < len(text):
        if text[index] not in "{[":
            index += 1
            continue
        try:
            value, end = decoder.raw_decode(text, index)
        except ValueError:
            index += 1
            continue
        if isinstance(value, dict) or (isinstance(value, list) and value):
            yield value, "embedded", index, end
        index = end


_NOTHING = object()


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return _NOTHING


def extract_json(text: str) -> tuple[Any, Extraction]:
    """The first JSON value in ``text``; raises :class:`PlanReplyError` when there is none."""
    if not text.strip():
        raise PlanReplyError("the reply is empty; answer with the one JSON object", text, "extract")
    for found in json_candidates(text):
        return found
    try:
        json.loads(text)
    except ValueError as whole:
        problem = str(whole)
    raise PlanReplyError(
        f"the reply holds no JSON object (as a whole it is not JSON: {problem})", text, "extract"
    )


def normalise(value: Any) -> tuple[dict[str, Any], bool]:
    """The current shape from any accepted one: (object, whether it was an older shape)."""
    if isinstance(value, list):
        return {"mode": "fix-plan", "summary": "", "proposed_changes": {"actions": value}}, True
    if not isinstance(value, dict):
        return {"_not_an_object": value}, False
    legacy_keys = [k for k in ("actions", "patch", "commands_to_run") if k in value]
    if not legacy_keys or "proposed_changes" in value:
        return value, False
    document = {k: v for k, v in value.items() if k not in legacy_keys}
    document.setdefault("mode", "fix-plan")
    document.setdefault("summary", "")
    document["proposed_changes"] = {k: value[k] for k in legacy_keys}
    return document, True


def validation_errors(document: Any) -> list[str]:
    """Every way ``document`` breaks the contract, as ``path: message`` lines ([] = valid)."""
    if not isinstance(document, dict) or "_not_an_object" in document:
        shown = document.get("_not_an_object") if isinstance(document, dict) else document
        return [f"$: the answer must be a JSON object, not {type(shown).__name__}"]
    errors = sorted(_VALIDATOR.iter_errors(document), key=lambda e: list(e.absolute_path))
    # An action matching neither of its two shapes gets the plain reasons below instead of
    # jsonschema's "is not valid under any of the given schemas".
    lines = [f"{_path(e.absolute_path)}: {e.message}" for e in errors if e.validator != "anyOf"]
    for index, request in enumerate(document.get("context_requests") or []):
        if not isinstance(request, dict):
            continue
        kind = request.get("type")
        where = f"$.context_requests[{index}]"
        if kind == "read_file" and not str(request.get("path") or "").strip():
            lines.append(f"{where}: a read_file request needs a non-empty 'path'")
        if kind == "search" and not str(request.get("query") or "").strip():
            lines.append(f"{where}: a search request needs a non-empty 'query'")
        start, end = request.get("start_line"), request.get("end_line")
        if isinstance(start, int) and isinstance(end, int) and end < start:
            lines.append(f"{where}: end_line {end} is before start_line {start}")
    changes = document.get("proposed_changes")
    actions = changes.get("actions") if isinstance(changes, dict) else None
    for index, action in enumerate(actions if isinstance(actions, list) else []):
        lines.extend(_action_errors(f"$.proposed_changes.actions[{index}]", action))
    return lines


def _action_errors(where: str, action: Any) -> list[str]:
    if not isinstance(action, dict):
        return [f"{where}: an action must be an object, not {type(action).__name__}"]
    errors = []
    kind = action.get("kind")
    if kind not in ACTION_KINDS:
        errors.append(f"{where}.kind: {kind!r} is not one of {list(ACTION_KINDS)}")
    path = action.get("path")
    if not isinstance(path, str) or not path:
        errors.append(f"{where}: 'path' must be a non-empty string (relative to the project)")
    content = action.get("content")
    if kind in ("CREATE_FILE", "UPDATE_FILE") and not isinstance(content, str):
        errors.append(f"{where}: {kind} needs 'content' (the whole new text of the file)")
    return errors


def read_plan(text: str) -> ReadPlan:
    """Extract, normalise and validate the reply (the last candidate that is a valid plan);
    raises :class:`PlanReplyError` naming the real fault."""
    syntax = json_syntax_fault(text)
    try:
        extract_json(text)  # no JSON at all: that error, not a schema one
    except PlanReplyError:
        if syntax is not None:
            raise PlanReplyError(syntax, text, "extract") from None
        raise
    first_errors: list[str] | None = None
    valid: list[tuple[ReadPlan, int, int]] = []
    seen: set[str] = set()
    for value, extraction, start, end in _candidates(text):
        key = json.dumps(value, sort_keys=True, default=str)
        if key in seen:
            continue
        seen.add(key)
        document, legacy = normalise(value)
        errors = validation_errors(document)
        if not errors:
            read = ReadPlan(plan_from_document(document), document, extraction, legacy)
            valid.append((read, start, end))
        elif first_errors is None:
            first_errors = errors
    if valid:
        return _last_plan(text, valid)
    if syntax is not None:
        raise PlanReplyError(syntax, text, "extract")
    errors = first_errors or []
    shown = errors[:MAX_ERRORS_QUOTED]
    more = len(errors) - len(shown)
    message = "the JSON does not match the plan schema:\n" + "\n".join(f"- {e}" for e in shown)
    if more:
        message += f"\n- … and {more} more"
    raise PlanReplyError(message, text, "validate")


def _last_plan(text: str, valid: list[tuple[ReadPlan, int, int]]) -> ReadPlan:
    """The last complete valid plan; a plan attempt after it that is not valid (a correction
    cut off) means the reply must be repaired, not its draft applied."""
    valid.sort(key=lambda item: item[1])
    read, _, end = valid[-1]
    later = text[end:]
    if _PLAN_KEY.search(later):
        raise PlanReplyError(
            "the reply holds a plan and then another plan attempt that is not valid (was the "
            "reply cut off?); answer again with only the one final plan",
            text,
            "extract",
        )
    if len(valid) > 1:
        note = f"the reply held {len(valid)} plans; the last one was taken"
        return ReadPlan(read.plan, read.document, read.extraction, read.legacy, (note,))
    return read


_PLAN_KEY = re.compile(r"""["'](?:mode|proposed_changes|actions)["']\s*:""")


def json_syntax_fault(text: str) -> str | None:
    """Why a reply meant as one JSON object is not JSON: line, column and cause; None when it
    is JSON or is not meant as one (prose with no leading ``{``)."""
    body = text.strip()
    fence = _FENCE.search(text)
    if not body.startswith(("{", "[")) and fence is not None:
        body = fence.group(1).strip()
    if not body.startswith(("{", "[")):
        unclosed = _FENCE_OPEN.search(text)
        if unclosed is None:
            return None
        body = text[unclosed.end() :].strip()
        if not body.startswith(("{", "[")):
            return None
    try:
        json.loads(body)
    except json.JSONDecodeError as error:
        return _describe_fault(body, error)
    return None


_FENCE_OPEN = re.compile(r"```[a-zA-Z]*[ \t]*\n")


def _describe_fault(body: str, error: json.JSONDecodeError) -> str:
    from ipuaro.llm.jsonrepair import find_json_end

    where = f"line {error.lineno} col {error.colno}"
    if find_json_end(body, 0) is None:
        return (
            f"the reply was cut off: its JSON never closes (it ends at {where}); answer again "
            "with the whole plan, shorter if it has to be"
        )
    before = body[: error.pos].rstrip()
    if before.endswith(",") and body[error.pos : error.pos + 1] in "}]":
        cause = "trailing comma"
    elif body[error.pos : error.pos + 1] == "'":
        cause = "single quotes; JSON strings use double quotes"
    elif body[error.pos : error.pos + 2] in ("//", "/*"):
        cause = "a comment; JSON has none"
    else:
        cause = error.msg
    return f"the reply is not valid JSON at {where} ({cause})"


def plan_from_document(document: dict[str, Any]) -> Plan:
    """A validated document as a :class:`Plan` (also reads a stored plan back)."""
    changes = document.get("proposed_changes") or {}
    actions = tuple(
        Action(kind=a["kind"], path=a["path"], content=a.get("content"))
        for a in changes.get("actions") or []
    )
    requests = tuple(
        ContextRequest(
            kind=r["type"],
            path=r.get("path"),
            start_line=r.get("start_line"),
            end_line=r.get("end_line"),
            query=r.get("query"),
            glob=r.get("glob"),
            source=r.get("source"),
            last_n=r.get("last_n"),
        )
        for r in document.get("context_requests") or []
    )
    return Plan(
        mode=document["mode"],
        summary=document["summary"],
        questions=tuple(document.get("questions") or ()),
        context_requests=requests,
        plan=tuple(PlanStep(s["step"], s.get("details", "")) for s in document.get("plan") or []),
        proposed_changes=ProposedChanges(
            actions=actions,
            patch=changes.get("patch"),
            commands_to_run=tuple(changes.get("commands_to_run") or ()),
        ),
        risks=tuple(document.get("risks") or ()),
        memory_patch=dict(document.get("memory_patch") or {}),
    )


def plan_to_document(plan: Plan) -> dict[str, Any]:
    """The plan as the contract's JSON object (what ``--output json`` prints)."""
    changes: dict[str, Any] = {
        "actions": [_action(a) for a in plan.proposed_changes.actions],
        "commands_to_run": list(plan.proposed_changes.commands_to_run),
    }
    if plan.proposed_changes.patch is not None:
        changes["patch"] = plan.proposed_changes.patch
    return {
        "mode": plan.mode,
        "summary": plan.summary,
        "questions": list(plan.questions),
        "context_requests": [_request(r) for r in plan.context_requests],
        "plan": [{"step": s.step, "details": s.details} for s in plan.plan],
        "proposed_changes": changes,
        "risks": list(plan.risks),
        "memory_patch": dict(plan.memory_patch),
    }


def _action(action: Action) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": action.kind, "path": action.path}
    if action.content is not None:
        out["content"] = action.content
    return out


def _request(request: ContextRequest) -> dict[str, Any]:
    out: dict[str, Any] = {"type": request.kind}
    for key in ("path", "start_line", "end_line", "query", "glob", "source", "last_n"):
        value = getattr(request, key)
        if value is not None:
            out[key] = value
    return out


def _path(parts: Any) -> str:
    text = "$"
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return text
