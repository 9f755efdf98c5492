"""Session export/import as JSONL (the gopi seed's format, versioned).

One JSON object per line. The first is the header; the rest are typed entries in order::

    {"type":"header","version":1,"id":"a1b2c3d4","cwd":"/home/u/proj","timestamp":"2026-…Z",…}
    {"type":"model_change","model":"qwen2.5-coder:7b-instruct","timestamp":"…"}
    {"type":"message","role":"user","content":"…","timestamp":"…"}
    {"type":"message","role":"assistant","content":"…","toolCalls":[…],"timestamp":"…"}
    {"type":"message","role":"tool","content":"…","toolName":"get_lines","toolResults":[…],…}
    {"type":"compaction","summary":"…","token_before":18500,"token_after":4100,"timestamp":"…"}
    {"type":"context",…} {"type":"stats",…} {"type":"undo","stack":"undo","entry":{…}}
    {"type":"input","text":"…"}

Lines of an unknown ``type`` are skipped on import (newer writers may add some); a header with
a newer ``version`` is refused. Whatever is wrong with a file (not JSON, nested deeper than
:data:`MAX_DEPTH`, text that is not valid Unicode, a field of the wrong type or size) is a
:class:`JsonlError` naming the line, raised before anything is stored.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError

from ipuaro.domain import (
    ChatMessage,
    ContextState,
    MessageStats,
    Session,
    SessionStats,
    UndoEntry,
)
from ipuaro.domain.errors import IpuaroError
from ipuaro.domain.textcheck import value_problem

FORMAT_VERSION = 1
MAX_DEPTH = 48
"""Nesting a line may have: a tool call's arguments (at most 32 levels, as the tools accept)
inside a message entry."""


class JsonlError(IpuaroError, ValueError):
    """The file is not a session export this version can read; the message names the line."""


@dataclass
class ImportedSession:
    session: Session
    cwd: str | None
    undo: list[UndoEntry] = field(default_factory=list)
    redo: list[UndoEntry] = field(default_factory=list)
    skipped_types: set[str] = field(default_factory=set)


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat().replace("+00:00", "Z")


def _epoch(value: Any, line: int) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            datetime.fromtimestamp(value, UTC)  # what export shows must exist as a date
            return float(value)
        except (OverflowError, ValueError, OSError):
            raise JsonlError(f"line {line}: timestamp {value!r:.40} is out of range") from None
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
        except ValueError:
            pass
    raise JsonlError(f"line {line}: timestamp {value!r:.60} is not ISO-8601 or epoch seconds")


def export_lines(
    session: Session,
    cwd: str,
    undo: list[UndoEntry] | None = None,
    redo: list[UndoEntry] | None = None,
) -> list[str]:
    out: list[dict[str, Any]] = [
        {
            "type": "header",
            "version": FORMAT_VERSION,
            "id": session.id,
            "cwd": cwd,
            "timestamp": _iso(session.created_at),
            "projectName": session.project_name,
            "title": session.title,
            "lastActivity": _iso(session.last_activity_at),
        }
    ]
    if session.model:
        out.append(
            {"type": "model_change", "model": session.model, "timestamp": _iso(session.created_at)}
        )
    for message in session.history:
        if message.kind == "summary":
            stats = message.stats or MessageStats()
            out.append(
                {
                    "type": "compaction",
                    "summary": message.content,
                    "token_before": stats.tokens_in,
                    "token_after": stats.tokens_out,
                    "timestamp": _iso(message.timestamp),
                }
            )
            continue
        entry = message.model_dump(by_alias=True, exclude_none=True)
        entry["timestamp"] = _iso(message.timestamp)
        if entry.get("kind") == "normal":
            del entry["kind"]
        out.append({"type": "message", **entry})
    out.append({"type": "context", **session.context.model_dump(by_alias=True)})
    out.append({"type": "stats", **session.stats.model_dump(by_alias=True)})
    for stack, entries in (("undo", undo or []), ("redo", redo or [])):
        for undo_entry in entries:
            out.append(
                {"type": "undo", "stack": stack, "entry": undo_entry.model_dump(by_alias=True)}
            )
    for text in session.input_history:
        out.append({"type": "input", "text": text})
    return [json.dumps(item, ensure_ascii=False) for item in out]


def _payload(item: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in item.items() if k != "type"}


def import_text(text: str) -> ImportedSession:
    lines = [(n, raw) for n, raw in enumerate(text.splitlines(), start=1) if raw.strip()]
    if not lines:
        raise JsonlError("the file is empty; expected a header line first")
    items: list[tuple[int, dict[str, Any]]] = []
    for number, raw in lines:
        try:
            item = json.loads(raw, parse_constant=_not_a_number)
        except ValueError as exc:
            raise JsonlError(f"line {number}: not JSON ({exc})") from None
        except RecursionError:
            raise JsonlError(
                f"line {number}: nests lists or objects too deeply to read (at most {MAX_DEPTH})"
            ) from None
        if not isinstance(item, dict) or not isinstance(item.get("type"), str):
            raise JsonlError(f"line {number}: expected an object with a string 'type'")
        problem = value_problem(item, MAX_DEPTH)
        if problem is not None:
            raise JsonlError(f"line {number}: {problem}")
        items.append((number, item))
    number, header = items[0]
    if header["type"] != "header":
        raise JsonlError(
            f"line {number}: the first line must be the header, got {header['type']!r}"
        )
    version = header.get("version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise JsonlError(
            f"line {number}: format version {version!r} is not supported "
            f"(this ipuaro reads version ≤ {FORMAT_VERSION}); upgrade ipuaro"
        )
    if not isinstance(header.get("id"), str) or not header["id"]:
        raise JsonlError(f"line {number}: the header has no session 'id'")
    created = _epoch(header.get("timestamp"), number)
    try:
        session = Session(
            id=header["id"],
            project_name=str(header.get("projectName") or ""),
            created_at=created,
            last_activity_at=_epoch(header.get("lastActivity", header.get("timestamp")), number),
            title=header.get("title"),
        )
    except ValidationError as exc:
        raise JsonlError(f"line {number} (header): {_first_error(exc)}") from None
    cwd = header.get("cwd")
    result = ImportedSession(session=session, cwd=cwd if isinstance(cwd, str) else None)
    for number, item in items[1:]:
        kind = item["type"]
        try:
            if kind == "model_change":
                session.model = str(item["model"])
            elif kind == "message":
                payload = _payload(item)
                payload["timestamp"] = _epoch(payload.get("timestamp"), number)
                session.history.append(ChatMessage.model_validate(payload))
            elif kind == "compaction":
                session.history.append(
                    ChatMessage(
                        role="system",
                        content=str(item["summary"]),
                        timestamp=_epoch(item.get("timestamp"), number),
                        kind="summary",
                        stats=MessageStats(
                            tokens_in=int(item.get("token_before", 0)),
                            tokens_out=int(item.get("token_after", 0)),
                        ),
                    )
                )
            elif kind == "context":
                session.context = ContextState.model_validate(_payload(item))
            elif kind == "stats":
                session.stats = SessionStats.model_validate(_payload(item))
            elif kind == "undo":
                entry = UndoEntry.model_validate(item["entry"])
                (result.redo if item.get("stack") == "redo" else result.undo).append(entry)
            elif kind == "input":
                session.input_history.append(str(item["text"]))
            elif kind == "header":
                raise JsonlError(f"line {number}: a second header; one session per file")
            else:
                result.skipped_types.add(kind)
        except ValidationError as exc:
            raise JsonlError(f"line {number} ({kind}): {_first_error(exc)}") from None
        except (KeyError, TypeError) as exc:
            detail = f"missing or wrong field {exc}"
            raise JsonlError(f"line {number} ({kind}): {detail}") from None
        except (ValueError, OverflowError) as exc:  # int("…5,000 digits…"), int(1e400)
            raise JsonlError(f"line {number} ({kind}): a number is out of range ({exc})") from None
    return result


def _first_error(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "value"
    return f"{where}: {first['msg']}"


def _not_a_number(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")
