"""Golden traces: the protocol with the model, normalised so that a recording can be replayed and
compared, and a readable diff when it no longer matches.

A golden trace records, for one scripted conversation, every request the agent sent to the
model server (wire format: messages, tool specs, options) and the agent's event stream. Replaying
it plays the same scripted replies through the real client, parser and loop; any change to what
goes over the wire (prompt, tool schemas, message shapes) or to how replies are read shows up as
a diff. Volatile values are normalised first: call ids become ``<id1>``…, the project's generated
name becomes ``<project>``, multi-line strings become lists of lines (so diffs are line by line).
"""

from __future__ import annotations

import contextlib
import difflib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

GOLDEN_VERSION = 1

_ID_KEYS = frozenset({"id", "tool_call_id", "call_id", "callId"})


@dataclass
class Normaliser:
    """Stable stand-ins for values that differ between two runs of the same script."""

    project_name: str
    ids: dict[str, str] = field(default_factory=dict)

    def id(self, value: str) -> str:
        if value not in self.ids:
            self.ids[value] = f"<id{len(self.ids) + 1}>"
        return self.ids[value]

    def text(self, value: str) -> Any:
        if self.project_name:
            value = value.replace(self.project_name, "<project>")
        for raw, stable in self.ids.items():
            value = value.replace(raw, stable)
        return value.split("\n") if "\n" in value else value

    def value(self, data: Any, key: str | None = None) -> Any:
        if isinstance(data, str):
            if key in _ID_KEYS and data:
                return self.id(data)
            return self.text(data)
        if isinstance(data, dict):
            return {k: self.value(v, k) for k, v in data.items()}
        if isinstance(data, list):
            return [self.value(v) for v in data]
        return data


def tool_signature(spec: dict[str, Any]) -> str:
    """``get_lines(path, start?, end?)`` from an Ollama or OpenAI tool entry."""
    function = spec.get("function", spec)
    parameters = function.get("parameters") or {}
    required = set(parameters.get("required") or [])
    names = [n if n in required else f"{n}?" for n in (parameters.get("properties") or {})]
    return f"{function.get('name')}({', '.join(names)})"


def normalise_request(path: str, body: dict[str, Any], norm: Normaliser) -> dict[str, Any]:
    out: dict[str, Any] = {"path": path}
    for key, value in body.items():
        if key == "tools":
            out["tools"] = [tool_signature(t) for t in value]
        elif key == "messages":
            out["messages"] = [_message(m, norm) for m in value]
        else:
            out[key] = norm.value(value, key)
    return out


def _message(message: dict[str, Any], norm: Normaliser) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in message.items():
        if key == "tool_calls" and isinstance(value, list):
            out[key] = [_call(c, norm) for c in value]
        else:
            out[key] = norm.value(value, key)
    return out


def _call(call: dict[str, Any], norm: Normaliser) -> dict[str, Any]:
    function = call.get("function", {})
    arguments = function.get("arguments")
    if isinstance(arguments, str):  # OpenAI sends the arguments as a JSON string
        with contextlib.suppress(ValueError):
            arguments = json.loads(arguments)
    out: dict[str, Any] = {"name": function.get("name"), "arguments": norm.value(arguments)}
    if "id" in call:
        out["id"] = norm.id(str(call["id"]))
    return out


SAME_AS_BEFORE = "<same as the previous request>"


def collapse_repeats(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Later requests repeat the system prompt and tool list; keep them once, so a change
    shows up once in the diff (where it first appears)."""
    previous: dict[str, Any] = {}
    out: list[dict[str, Any]] = []
    for request in requests:
        copy = dict(request)
        if "tools" in copy and copy["tools"] == previous.get("tools"):
            copy["tools"] = SAME_AS_BEFORE
        messages = copy.get("messages")
        if isinstance(messages, list) and messages and messages[0].get("role") == "system":
            system = messages[0].get("content")
            if system == previous.get("system"):
                copy["messages"] = [{"role": "system", "content": SAME_AS_BEFORE}, *messages[1:]]
            previous["system"] = system
        previous["tools"] = request.get("tools")
        out.append(copy)
    return out


def normalise_events(events: Iterable[dict[str, Any]], norm: Normaliser) -> list[dict[str, Any]]:
    """The event stream without what depends on chunking or token arithmetic."""
    kept: list[dict[str, Any]] = []
    for event in events:
        kind = event.get("type")
        if kind in ("message_delta", "context_update", "queue_changed"):
            continue
        if kind == "tool_call_end":
            result = event["result"]
            text = result.get("data") if result.get("success") else result.get("error")
            first = str(text or "").strip().split("\n", 1)[0]
            kept.append(
                {
                    "type": kind,
                    "name": event["call"]["name"],
                    "success": result.get("success"),
                    "firstLine": norm.text(first[:160]),
                }
            )
        elif kind == "tool_call_start":
            kept.append({"type": kind, "summary": norm.text(event["summary"])})
        elif kind == "message_end":
            calls = [
                {"name": c["name"], "arguments": norm.value(c.get("parameters", {}))}
                for c in event.get("tool_calls") or []
            ]
            kept.append({"type": kind, "text": norm.text(event["text"]), "calls": calls})
        elif kind == "agent_end":
            kept.append(
                {
                    "type": kind,
                    "reason": event["reason"],
                    "answer": norm.text(event["answer"]),
                    "changes": event.get("changes", []),
                    "detail": norm.text(event["detail"]) if event.get("detail") else None,
                }
            )
        elif kind == "agent_start":
            kept.append({"type": kind, "request": norm.text(event["request"])})
        elif kind == "error":
            kept.append({"type": kind, "kind": event["error"]["kind"]})
        else:
            kept.append({"type": kind})
    return kept


def diff(expected: Any, actual: Any, name: str = "golden") -> str | None:
    """A unified diff of the two recordings as indented JSON, or None when they match."""
    if expected == actual:
        return None
    before = json.dumps(expected, indent=2, ensure_ascii=False, sort_keys=True).splitlines()
    after = json.dumps(actual, indent=2, ensure_ascii=False, sort_keys=True).splitlines()
    lines = difflib.unified_diff(
        before, after, f"{name} (recorded)", f"{name} (now)", lineterm="", n=3
    )
    return "\n".join(lines)


_PROJECT = re.compile(r"^Project (\S+): \d+ files", re.MULTILINE)


def project_name_in(system_prompt: str) -> str:
    """The generated project name as the summary states it (``Project <name>: N files``)."""
    match = _PROJECT.search(system_prompt)
    return match.group(1) if match else ""
