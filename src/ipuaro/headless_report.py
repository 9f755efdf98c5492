"""What ``ipuaro run`` prints: the events as text or JSON lines, and the one result object
(answer, reason, exit code, stats, refusals) every run ends with — also when it never started
or was interrupted. The run itself is ``ipuaro.headless``."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, Literal, TextIO

from pydantic import BaseModel
from pydantic.alias_generators import to_camel

from ipuaro.config.schema import Config
from ipuaro.core.events import (
    AgentEnd,
    EndReason,
    ErrorRaised,
    Event,
    ExtensionWarning,
    MessageDelta,
    MessageEnd,
    PlanContextRound,
    PlanUpdated,
    ToolCallEnd,
    ToolCallOutput,
    ToolCallStart,
)

OutputMode = Literal["text", "json", "stream-json"]

EXIT_DONE = 0
EXIT_ERROR = 1
EXIT_REFUSED = 3
EXIT_LIMIT = 4
EXIT_ABORTED = 130
"""Ctrl+C: 128 + SIGINT, what a shell reports for a program the signal ended."""
EXIT_CODES: dict[EndReason, int] = {
    "done": EXIT_DONE,
    "error": EXIT_ERROR,
    "aborted": EXIT_ABORTED,
    "refused": EXIT_REFUSED,
    "limit": EXIT_LIMIT,
}
COMMAND_TOOLS = frozenset({"run_command", "run_tests"})
"""Tools whose "ask" verdict --allow-commands lifts (a deny rule stays)."""
MEMORY_TOOLS = frozenset({"remember"})
"""Tools whose memory changes --remember lets through."""
MCP_TOOL_PREFIXES = ("mcp__", "mcp_call")
"""An MCP server's tools (``mcp__SERVER__TOOL``, ``mcp_call``): --allow-commands lifts an "ask"
for them too."""


def to_jsonable(value: Any, *, camel: bool = False) -> Any:
    """An event as JSON values. Domain models are dumped by their camelCase aliases; with
    ``camel`` the events' own dataclass fields are camelCased too (``sessionId``,
    ``toolCalls``), so ``--output stream-json`` speaks one convention. Dict keys are never
    renamed: they are data — a tool call's ``parameters`` exactly as the model wrote them, a
    tool's result. Without ``camel`` the field names stay Python's (the golden traces record
    that form)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    if is_dataclass(value) and not isinstance(value, type):
        name = to_camel if camel else str
        return {
            name(f.name): to_jsonable(getattr(value, f.name), camel=camel) for f in fields(value)
        }
    if isinstance(value, list | tuple):
        return [to_jsonable(v, camel=camel) for v in value]
    if isinstance(value, dict):
        return {str(k): to_jsonable(v, camel=camel) for k, v in value.items()}
    return value


@dataclass
class RunReport:
    refusals: list[str] = field(default_factory=list)
    tool_errors: list[str] = field(default_factory=list)
    plan: dict[str, Any] | None = None
    """The validated plan object of a plan request (``PlanUpdated.document``)."""
    plan_schema: dict[str, Any] | None = None
    planning: bool = False
    """A ``--plan`` run: the result has ``plan`` (null when no valid plan came)."""
    checks: list[dict[str, Any]] = field(default_factory=list)
    """What applied edits broke (the after-edit check, ``EditCheckReport``), in call order."""


class Printer:
    def __init__(self, mode: OutputMode, out: TextIO, err: TextIO) -> None:
        self.mode = mode
        self.out = out
        self.err = err
        self._line_open = False

    def __call__(self, event: Event) -> None:
        if isinstance(event, ToolCallOutput):
            return  # live output is for screens; the result event carries the final output
        if self.mode == "stream-json":
            self.out.write(json.dumps(to_jsonable(event, camel=True), ensure_ascii=False) + "\n")
            self.out.flush()
            return
        if self.mode != "text":
            return
        if isinstance(event, MessageDelta):
            self.out.write(event.text)
            self.out.flush()
            self._line_open = not event.text.endswith("\n")
        elif isinstance(event, MessageEnd) and self._line_open:
            self.out.write("\n")
            self._line_open = False
        elif isinstance(event, ToolCallStart):
            self.err.write(f"→ {event.summary}\n")
        elif isinstance(event, ToolCallEnd) and not event.result.success:
            first = (event.result.error or "failed").strip().splitlines()[0][:200]
            allow = hint(event) if event.result.refused else ""
            self.err.write(f"  ✗ {first}{allow}\n")
        elif isinstance(event, ErrorRaised):
            self.err.write(f"ipuaro: {event.error.kind} error: {event.error.message}\n")
        elif isinstance(event, ExtensionWarning):
            self.err.write(f"ipuaro: warning: {event.message}\n")
        elif isinstance(event, PlanContextRound):
            what = "auto-context" if event.number == 0 else f"context round {event.number}"
            self.err.write(f"→ {what}: {', '.join(event.blocks) or 'nothing'}\n")
            for cut in event.cuts:
                self.err.write(f"  ✂ {cut}\n")

    def final(self, result: dict[str, Any]) -> None:
        if self.mode in ("json", "stream-json"):
            payload = result if self.mode == "json" else {"type": "result", **result}
            indent = 2 if self.mode == "json" else None
            self.out.write(json.dumps(payload, ensure_ascii=False, indent=indent) + "\n")
            self.out.flush()
            return
        stats = result["stats"]
        # An estimate says so: a server that sends no usage was reported as exact before.
        about = "~" if stats.get("tokensEstimated") else ""
        note = " (estimated: the server sent no token counts)" if about else ""
        self.err.write(
            f"⏱ {stats['timeMs'] / 1000:.1f}s │ {about}{stats['tokensIn']:,} in / "
            f"{about}{stats['tokensOut']:,} out{note} │ "
            f"{count(stats['toolCalls'], 'tool call')}\n"
        )
        if result["reason"] != "done":
            detail = result["detail"]
            if detail and detail in result["answer"]:  # printed whole above: not twice
                self.err.write(f"ipuaro: stopped ({result['reason']}); the answer says why\n")
            else:
                self.err.write(f"ipuaro: stopped ({result['reason']}): {detail}\n")


def final_reason(end: AgentEnd, report: RunReport) -> tuple[EndReason, str | None]:
    """``refused`` only when the run ended without an answer because of refusals: no answer
    at all, or stopped by a limit (the model kept trying what was refused)."""
    if report.refusals and (
        (end.reason == "done" and not end.answer.strip()) or end.reason == "limit"
    ):
        detail = "; ".join(report.refusals)
        return "refused", f"ended without an answer after refusals: {detail}"
    return end.reason, end.detail


def result_payload(
    end: AgentEnd, session_id: str, model: str, window: int, report: RunReport
) -> dict[str, Any]:
    reason, detail = final_reason(end, report)
    return {
        "answer": end.answer,
        "reason": reason,
        "exitCode": EXIT_CODES[reason],
        "detail": detail,
        "sessionId": session_id,
        "model": model,
        "contextWindow": window,
        "stats": {
            "timeMs": end.stats.time_ms,
            "tokensIn": end.stats.tokens_in,
            "tokensOut": end.stats.tokens_out,
            "tokensEstimated": bool(end.stats.estimated),
            "toolCalls": end.stats.tool_calls,
        },
        "changes": list(end.changes),
        "refusalCount": len(report.refusals),
        "refusals": report.refusals,
        "toolErrors": report.tool_errors,
        "checks": report.checks,
        **({"plan": report.plan, "planSchema": report.plan_schema} if report.planning else {}),
    }


def hint(event: ToolCallEnd) -> str:
    """The flag that would have allowed this refusal (none for a deny rule or a protected
    path, which no flag lifts)."""
    if event.result.diff:
        return " (allow edits with --auto-apply)"  # only a refused edit has a diff here
    if event.call.name in MEMORY_TOOLS:
        return " (allow memory changes with --remember)"
    error = event.result.error or ""
    if event.call.name in COMMAND_TOOLS and not error.startswith("command refused by policy"):
        return " (allow commands with --allow-commands)"
    if event.call.name.startswith(MCP_TOOL_PREFIXES) and "needs the user's approval" in error:
        return " (allow MCP calls with --allow-commands, or this tool for good with mcp.allow)"
    return ""


def refusal_watcher(report: RunReport) -> Callable[[Event], None]:
    """Counts refusals and tool errors for the result; the run goes on (the model read the
    refusal as the tool's result)."""

    def watch(event: Event) -> None:
        if isinstance(event, PlanUpdated):
            report.plan = event.document
            report.plan_schema = {"version": event.schema_version, "hash": event.schema_hash}
            return
        if isinstance(event, ToolCallEnd) and event.result.check is not None:
            report.checks.append(
                {"callId": event.call.id, "tool": event.call.name}
                | event.result.check.model_dump(mode="json", by_alias=True)
            )
        if not isinstance(event, ToolCallEnd) or event.result.success:
            return
        message = (event.result.error or "").strip().splitlines()[0] if event.result.error else ""
        if event.result.refused:
            report.refusals.append(f"{event.call.name}: {message}{hint(event)}")
        else:
            report.tool_errors.append(f"{event.call.name}: {message}")

    return watch


def failed_before_start(
    message: str,
    config: Config,
    mode: OutputMode,
    out: TextIO,
    err: TextIO,
    reason: EndReason = "error",
    session_id: str | None = None,
) -> int:
    """The one-line message on stderr; with --output json|stream-json also the result object,
    so a program reading stdout gets its answer even when the agent never started."""
    return ended_before_start(message, config.llm.model, mode, out, err, reason, session_id)


def ended_before_start(
    message: str,
    model: str | None,
    mode: OutputMode,
    out: TextIO,
    err: TextIO,
    reason: EndReason = "error",
    session_id: str | None = None,
) -> int:
    """:func:`failed_before_start` before the configuration is loaded (``model``: the one
    named on the command line, if any)."""
    err.write(f"ipuaro: {message}\n")
    if mode != "text":
        Printer(mode, out, err).final(
            {
                "answer": "",
                "reason": reason,
                "exitCode": EXIT_CODES[reason],
                "detail": message,
                "sessionId": session_id,
                "model": model,
                "contextWindow": None,
                "stats": {
                    "timeMs": 0,
                    "tokensIn": 0,
                    "tokensOut": 0,
                    "tokensEstimated": False,
                    "toolCalls": 0,
                },
                "changes": [],
                "refusalCount": 0,
                "refusals": [],
                "toolErrors": [],
            }
        )
    return EXIT_CODES[reason]


def count(number: int, noun: str) -> str:
    return f"{number:,} {noun}" if number == 1 else f"{number:,} {noun}s"
