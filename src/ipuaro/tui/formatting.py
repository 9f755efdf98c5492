"""Small text formats the screen shares: counts, durations, the stats line, the status bar."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

AgentState = Literal["ready", "thinking", "error"]

STATE_MARKS: dict[AgentState, str] = {"ready": "✓", "thinking": "⟳", "error": "✗"}


def plural(count: int, noun: str) -> str:
    """``1 tool call``, ``2 tool calls``, ``1,247 tokens``."""
    return f"{count:,} {noun}" if count == 1 else f"{count:,} {noun}s"


def duration(seconds: float) -> str:
    """``0.4s``, ``3.2s``, ``1m 05s`` — the answer timer."""
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes}m {rest:02d}s"


def session_age(seconds: float) -> str:
    """``0m``, ``47m``, ``2h05m``, ``3d4h`` — the status bar's session time."""
    minutes = int(seconds // 60)
    if minutes < 60:
        return f"{minutes}m"
    hours, minutes = divmod(minutes, 60)
    if hours < 24:
        return f"{hours}h{minutes:02d}m"
    days, hours = divmod(hours, 24)
    return f"{days}d{hours}h"


def percent(used: int, limit: int) -> int:
    return 0 if limit <= 0 else min(999, round(100 * used / limit))


def stats_line(seconds: float, tokens: int, tool_calls: int, *, estimated: bool = False) -> str:
    """``⏱ 3.2s │ 1,247 tokens │ 1 tool call`` — shown after each answer; ``~1,247 tokens``
    when part of the count is ipuaro's estimate (an interrupted answer: no server count)."""
    count = f"{'~' if estimated else ''}{plural(tokens, 'token')}"
    return f"⏱ {duration(seconds)} │ {count} │ {plural(tool_calls, 'tool call')}"


@dataclass(frozen=True)
class StatusFields:
    """Everything the status bar shows; rendered by :func:`status_text`."""

    project: str
    branch: str | None = None
    ctx_used: int = 0
    ctx_limit: int = 0
    age_s: float = 0.0
    state: AgentState = "ready"
    auto_apply: bool = False
    plan: bool = False
    indexing: str | None = None
    """``indexing 40%`` while a background re-index runs."""
    sandbox: str = ""
    """``sandbox: workspace``, or a warning when commands run unconfined."""
    task: str | None = None
    """``compacting…`` while ``/compact`` or an auto-compaction runs (``TaskStarted``)."""


def status_text(fields: StatusFields) -> str:
    """``[ipuaro] [ctx: 12%] [project: name] [main] [47m] ✓`` plus mode indicators."""
    parts = [
        "[ipuaro]",
        f"[ctx: {percent(fields.ctx_used, fields.ctx_limit)}%]",
        f"[project: {fields.project}]",
    ]
    if fields.branch:
        parts.append(f"[{fields.branch}]")
    parts.append(f"[{session_age(fields.age_s)}]")
    if fields.auto_apply:
        parts.append("[auto-apply]")
    if fields.plan:
        parts.append("[plan]")
    if fields.indexing:
        parts.append(f"[{fields.indexing}]")
    if fields.task:
        parts.append(f"[{fields.task}]")
    if fields.sandbox:
        parts.append(f"[{fields.sandbox}]")
    parts.append(STATE_MARKS[fields.state])
    return " ".join(parts)
