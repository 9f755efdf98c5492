"""``IPUARO_TRACE=1``: one JSON file per user request in ``.ipuaro/traces/<trace_id>.json``.

A trace holds what is needed to understand a run after the fact without the conversation text:
the config snapshot, the protocol's schema version and hash (tool specs + format), the model and
its ``num_ctx``, the token budget, context stats per turn, every model request (sizes) and
response (parsed calls, usage, timing), every tool call with its duration, errors and the end.
Raw model text is kept only with ``IPUARO_TRACE_RAW=1``, and every string that reaches the file
goes through the redactor (API keys, bearer tokens, AWS keys, the project's ``.env`` values).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import uuid
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ipuaro.agent.events import (
    AgentEnd,
    AgentEvent,
    AgentStart,
    Compaction,
    ErrorRaised,
    ToolCallEnd,
    ToolCallStart,
)
from ipuaro.agent.run.observer import ContextStats, ModelRequestInfo, ModelResponseInfo
from ipuaro.trace.redaction import Redactor

TRACE_SCHEMA_VERSION = 1
"""Version of the trace file's own shape."""

TRACE_DIR = Path(".ipuaro") / "traces"


def trace_enabled(environ: Mapping[str, str] | None = None) -> bool:
    env = os.environ if environ is None else environ
    return env.get("IPUARO_TRACE", "").strip().lower() in ("1", "true", "yes", "on")


def raw_enabled(environ: Mapping[str, str] | None = None) -> bool:
    env = os.environ if environ is None else environ
    return env.get("IPUARO_TRACE_RAW", "").strip().lower() in ("1", "true", "yes", "on")


def protocol_hash(tools: list[dict[str, Any]], tool_format: str) -> str:
    """sha256 of what defines the protocol with the model: the tool specs and the format."""
    canonical = json.dumps({"format": tool_format, "tools": tools}, sort_keys=True)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class TraceRecorder:
    """An event listener and a ``TurnObserver`` at once; writes one file per request."""

    def __init__(
        self,
        root: Path,
        *,
        config_snapshot: dict[str, Any],
        model: str,
        num_ctx: int,
        budget: dict[str, Any],
        tools: list[dict[str, Any]],
        tool_format: str,
        store_schema_version: int,
        raw: bool = False,
        redactor: Redactor | None = None,
    ) -> None:
        self.root = root
        self.directory = root / TRACE_DIR
        self.raw = raw
        self.redactor = redactor or Redactor.for_project(root)
        self._static = {
            "schemaVersion": TRACE_SCHEMA_VERSION,
            "protocol": {
                "toolFormat": tool_format,
                "schemaHash": protocol_hash(tools, tool_format),
                "tools": [t["name"] for t in tools],
            },
            "storeSchemaVersion": store_schema_version,
            "config": self.redactor.value(config_snapshot),
            "model": {"name": model, "numCtx": num_ctx},
            "budget": budget,
        }
        self._trace: dict[str, Any] | None = None
        self._tool_started: dict[str, float] = {}
        self.written: list[Path] = []

    # --- event listener -------------------------------------------------------------------

    def __call__(self, event: AgentEvent) -> None:
        if isinstance(event, AgentStart):
            self._begin(event)
            return
        trace = self._trace
        if trace is None:
            return
        if isinstance(event, ToolCallStart):
            self._tool_started[event.call.id] = time.perf_counter()
        elif isinstance(event, ToolCallEnd):
            result = event.result
            trace["toolCalls"].append(
                {
                    "name": event.call.name,
                    "arguments": self.redactor.value(event.call.parameters),
                    "success": result.success,
                    "durationMs": round(event.duration_s * 1000, 2),
                    "error": self.redactor.text(result.error) if result.error else None,
                    "refused": result.refused,
                }
            )
        elif isinstance(event, ErrorRaised):
            trace["errors"].append(
                {
                    "kind": event.error.kind,
                    "message": self.redactor.text(event.error.message),
                    "choices": list(event.choices),
                }
            )
        elif isinstance(event, Compaction):
            trace["compactions"].append(
                {
                    "tokensBefore": event.tokens_before,
                    "tokensAfter": event.tokens_after,
                    "summarised": event.summarised,
                }
            )
        elif isinstance(event, AgentEnd):
            trace["end"] = {
                "reason": event.reason,
                "detail": self.redactor.text(event.detail) if event.detail else None,
                "stats": event.stats.model_dump(by_alias=True),
                "changes": list(event.changes),
                "durationMs": round((time.time() - trace["startedAt"]) * 1000, 1),
            }
            self._write(trace)
            self._trace = None

    def _begin(self, event: AgentStart) -> None:
        trace_id = uuid.uuid4().hex
        self._trace = {
            "traceId": trace_id,
            **self._static,
            "sessionId": event.session_id,
            "startedAt": time.time(),
            "request": self.redactor.text(event.request),
            "context": [],
            "requests": [],
            "responses": [],
            "toolCalls": [],
            "errors": [],
            "compactions": [],
            "notes": [],
            "logEvents": [],
        }

    # --- turn observer --------------------------------------------------------------------

    def on_context(self, stats: ContextStats) -> None:
        if self._trace is not None:
            self._trace["context"].append(_camel(asdict(stats)))

    def on_model_request(self, info: ModelRequestInfo) -> None:
        if self._trace is not None:
            self._trace["requests"].append(_camel(asdict(info)))

    def on_model_response(self, info: ModelResponseInfo) -> None:
        if self._trace is None:
            return
        entry: dict[str, Any] = {
            "turn": info.turn,
            "purpose": info.purpose,
            "durationMs": round(info.duration_s * 1000, 2),
            "calls": [
                {"name": c.name, "arguments": self.redactor.value(c.parameters)} for c in info.calls
            ],
            "parseErrors": [self.redactor.text(e) for e in info.parse_errors],
            "promptTokens": info.prompt_tokens,
            "completionTokens": info.completion_tokens,
            "finishReason": info.finish_reason,
            "textChars": len(info.text),
            "error": self.redactor.text(info.error) if info.error else None,
        }
        if self.raw:
            entry["raw"] = self.redactor.text(info.text)
        self._trace["responses"].append(entry)

    def on_note(self, kind: str, data: dict[str, Any]) -> None:
        if self._trace is not None:
            self._trace["notes"].append({"kind": kind, **self.redactor.value(data)})

    # --- plan mode ------------------------------------------------------------------------

    def on_log_event(self, name: str, data: dict[str, Any]) -> None:
        """A named log event (``LLM_REQUEST_SENT``, ``VALIDATION_FAILED``, ``CONTEXT_CACHE_HIT``
        …), in order, with the milliseconds since the request started."""
        if self._trace is None:
            return
        elapsed = round((time.time() - self._trace["startedAt"]) * 1000, 1)
        entry = {"event": name, "atMs": elapsed, **self.redactor.value(data)}
        self._trace["logEvents"].append(entry)

    def on_plan(self, facts: dict[str, Any], failure: dict[str, Any] | None = None) -> None:
        """Plan mode's facts: the contract's ``schemaVersion`` and ``schemaHash``,
        ``contextStats`` (files, dropped, truncated, totalChars), ``cacheStats``; on a failure
        the reason and the model's raw reply (redacted; kept even without IPUARO_TRACE_RAW, it
        is what there is to debug)."""
        if self._trace is None:
            return
        plan = dict(self.redactor.value(facts))
        if failure is not None:
            plan["failure"] = self.redactor.value(failure)
        self._trace["plan"] = plan

    # --- output ---------------------------------------------------------------------------

    def _write(self, trace: dict[str, Any]) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / f"{trace['traceId']}.json"
        temp = path.with_suffix(".json.tmp")
        temp.write_text(json.dumps(trace, indent=2, ensure_ascii=False), encoding="utf-8")
        os.replace(temp, path)
        self.written.append(path)


def _camel(data: dict[str, Any]) -> dict[str, Any]:
    def convert(key: str) -> str:
        head, *rest = key.split("_")
        return head + "".join(part.title() for part in rest)

    return {convert(k): v for k, v in data.items()}
