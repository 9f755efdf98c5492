"""Feeding the optional ``TurnObserver`` (the tracer) from the loop, in one place."""

from __future__ import annotations

from ipuaro.agent.context.manager import Assembled, ContextManager
from ipuaro.agent.run.observer import (
    ContextStats,
    ModelRequestInfo,
    ModelResponseInfo,
    TurnObserver,
)
from ipuaro.agent.run.turn import TurnResult
from ipuaro.llm.protocol import ToolSpec
from ipuaro.llm.toolcalls import ParsedReply


class TurnReporter:
    """Builds the observer's records; every method is a no-op without an observer."""

    def __init__(self, observer: TurnObserver | None) -> None:
        self.observer = observer

    def context(self, turn: int, assembled: Assembled, context: ContextManager) -> None:
        if self.observer is None:
            return
        summary = context.summary_stats
        self.observer.on_context(
            ContextStats(
                turn=turn,
                system_tokens=assembled.system_tokens,
                fixed_tokens=context.fixed_tokens,
                project_tokens=context.project_tokens,
                messages=len(assembled.messages),
                message_tokens=assembled.tokens - assembled.system_tokens,
                total_tokens=assembled.tokens,
                window=context.budget.window,
                files_total=summary.files_total if summary else 0,
                files_full=summary.files_full if summary else 0,
                files_brief=summary.files_brief if summary else 0,
                files_folded=summary.files_folded if summary else 0,
            )
        )

    def request(
        self,
        turn: int,
        model: str,
        tool_format: str,
        assembled: Assembled,
        tools: list[ToolSpec] | None,
    ) -> None:
        if self.observer is None:
            return
        self.observer.on_model_request(
            ModelRequestInfo(
                turn=turn,
                model=model,
                tool_format=tool_format,
                system_chars=len(assembled.system),
                messages=len(assembled.messages),
                message_chars=sum(len(m.content) for m in assembled.messages),
                estimated_tokens=assembled.tokens,
                tools=[t.name for t in tools or []],
            )
        )

    def response(self, turn: int, result: TurnResult, parsed: ParsedReply | None) -> None:
        if self.observer is None:
            return
        reply = result.reply
        self.observer.on_model_response(
            ModelResponseInfo(
                turn=turn,
                duration_s=result.duration_s,
                text=reply.text if reply is not None else result.text,
                calls=list(parsed.calls) if parsed else [],
                parse_errors=[e.message for e in parsed.errors] if parsed else [],
                prompt_tokens=reply.usage.prompt_tokens if reply else 0,
                completion_tokens=reply.usage.completion_tokens if reply else 0,
                finish_reason=reply.finish_reason if reply else "",
                error=result.error.message if result.error else None,
            )
        )
