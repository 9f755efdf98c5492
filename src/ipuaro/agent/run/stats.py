"""Per-answer and per-session statistics (time, tokens in/out, tool calls, edits)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ipuaro.domain import MessageStats, SessionStats


@dataclass
class RequestStats:
    """Accumulates over every turn of one user request."""

    started: float = field(default_factory=time.perf_counter)
    tokens_in: int = 0
    tokens_out: int = 0
    tool_calls: int = 0
    edits_applied: int = 0
    edits_rejected: int = 0
    changes: list[str] = field(default_factory=list)
    refusals: list[str] = field(default_factory=list)
    estimated: bool = False
    """Some counts are estimates: a server sent no usage."""

    def add_usage(
        self, prompt_tokens: int, completion_tokens: int, estimated: bool = False
    ) -> None:
        self.tokens_in += prompt_tokens
        self.tokens_out += completion_tokens
        self.estimated = self.estimated or estimated

    def add_change(self, path: str) -> None:
        if path not in self.changes:
            self.changes.append(path)

    @property
    def elapsed_s(self) -> float:
        return time.perf_counter() - self.started

    def message_stats(self) -> MessageStats:
        return MessageStats(
            tokens=self.tokens_in + self.tokens_out,
            time_ms=int(self.elapsed_s * 1000),
            tool_calls=self.tool_calls,
            tokens_in=self.tokens_in,
            tokens_out=self.tokens_out,
            estimated=self.estimated or None,
        )

    def fold_into(self, session: SessionStats) -> None:
        session.total_tokens += self.tokens_in + self.tokens_out
        session.total_time += self.elapsed_s
        session.tool_calls += self.tool_calls
        session.edits_applied += self.edits_applied
        session.edits_rejected += self.edits_rejected


def turn_stats(
    duration_s: float,
    prompt_tokens: int,
    completion_tokens: int,
    calls: int,
    estimated: bool = False,
) -> MessageStats:
    return MessageStats(
        tokens=prompt_tokens + completion_tokens,
        time_ms=int(duration_s * 1000),
        tool_calls=calls,
        tokens_in=prompt_tokens,
        tokens_out=completion_tokens,
        estimated=estimated or None,
    )
