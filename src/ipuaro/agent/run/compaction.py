"""Carry out a compaction (the policy is ``context.compaction_policy``): ask the model for a
summary, insert it into the history at the cut, drop stale code; fall back to dropping tool
results."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from ipuaro.agent.context import compaction_policy as compaction
from ipuaro.agent.context.history import context_view, summary_message, user_message
from ipuaro.agent.context.manager import ContextManager
from ipuaro.agent.events import Compaction
from ipuaro.agent.run.observer import ModelRequestInfo, ModelResponseInfo, TurnObserver
from ipuaro.agent.run.turn import stream_turn
from ipuaro.domain import ChatMessage
from ipuaro.llm.protocol import ModelClient

SUMMARY_WORDS = 400
CHARS_PER_TOKEN = 3
"""To size the transcript sent to the summariser from a token budget."""


@dataclass
class CompactionOutcome:
    event: Compaction
    summary: str | None
    note: str
    """One line for the trace and the UI (what was dropped)."""


class Compactor:
    def __init__(
        self,
        client: ModelClient,
        context: ContextManager,
        *,
        use_model: bool = True,
        observer: TurnObserver | None = None,
    ) -> None:
        self.client = client
        self.context = context
        self.use_model = use_model
        self.observer = observer

    def _tokens(self, history: list[ChatMessage], pinned: ChatMessage | None) -> int:
        return self.context.meter.corrected(self.context.assemble(history, pinned).tokens)

    async def compact(
        self,
        history: list[ChatMessage],
        pinned: ChatMessage | None,
        cancel: asyncio.Event,
        turn: int = 0,
        *,
        focus: str | None = None,
        keep: int | None = None,
    ) -> CompactionOutcome | None:
        """Compact ``history`` in place; None when there was nothing to compact (too few
        messages to summarise and nothing to drop), so the caller reports no compaction.
        On demand (``/compact``): ``keep`` recent messages stay verbatim (the budget's
        otherwise), the summary favours ``focus``, and without a summary the old messages
        are folded into a mechanical one whatever the window's fill."""
        before = self._tokens(history, pinned)
        threshold = 0 if keep is not None else self.context.budget.compact_threshold
        where = compaction.split(history, self.context.budget.keep_recent if keep is None else keep)
        summary: str | None = None
        notes: list[str] = []
        if where is not None:
            old = history[where.start : where.boundary]
            if self.use_model:
                summary = await self._summarise(old, where.previous_summary, cancel, turn, focus)
            if summary:
                history.insert(where.boundary, summary_message(summary, before, 0))
                notes.append(f"summarised {len(old)} messages")
            else:
                dropped = compaction.drop_tool_results(old)
                notes.append(f"no summary; dropped {dropped} old tool results")
                if self._tokens(history, pinned) > threshold:
                    marker = compaction.mechanical_summary(old)
                    history.insert(where.boundary, summary_message(marker, before, 0))
                    notes.append(f"dropped {len(old)} old messages")
        view = context_view(history, pinned).messages
        stale = compaction.drop_stale_code(view)
        if stale:
            notes.append(f"dropped code of {stale} files not mentioned lately")
        if self._tokens(history, pinned) > threshold and len(view) > 2:
            # The kept messages alone are too big (huge tool results): blank all but the last two.
            dropped = compaction.drop_tool_results(view[:-2])
            if dropped:
                notes.append(f"dropped {dropped} recent tool results")
        if not notes:
            return None
        after = self._tokens(history, pinned)
        for message in reversed(history):
            if message.kind == "summary" and message.stats is not None:
                message.stats.tokens_out = after
                break
        event = Compaction(tokens_before=before, tokens_after=after, summarised=bool(summary))
        note = "; ".join(notes)
        if self.observer is not None:
            self.observer.on_note(
                "compaction",
                {
                    "tokensBefore": before,
                    "tokensAfter": after,
                    "summarised": bool(summary),
                    "note": note,
                },
            )
        return CompactionOutcome(event, summary, note)

    async def _summarise(
        self,
        old: list[ChatMessage],
        previous: str | None,
        cancel: asyncio.Event,
        turn: int,
        focus: str | None = None,
    ) -> str | None:
        budget = self.context.budget
        max_chars = max(2000, int(budget.window * 0.5) * CHARS_PER_TOKEN)
        transcript = compaction.render_transcript(old, previous, max_chars)
        prompt = compaction.summary_prompt(transcript, SUMMARY_WORDS)
        if focus:
            prompt += f"\nKeep above all what concerns: {focus}"
        request = user_message(prompt)
        if self.observer is not None:
            self.observer.on_model_request(
                ModelRequestInfo(
                    turn=turn,
                    model=self.client.model,
                    tool_format="none",
                    system_chars=len(compaction.SUMMARY_SYSTEM),
                    messages=1,
                    message_chars=len(request.content),
                    estimated_tokens=self.context.estimate(request.content),
                    tools=[],
                    purpose="compaction",
                )
            )
        started = time.perf_counter()
        result = await stream_turn(
            self.client, compaction.SUMMARY_SYSTEM, [request], None, cancel, None
        )
        if self.observer is not None:
            usage = result.reply.usage if result.reply else None
            self.observer.on_model_response(
                ModelResponseInfo(
                    turn=turn,
                    duration_s=time.perf_counter() - started,
                    text=result.text,
                    prompt_tokens=usage.prompt_tokens if usage else 0,
                    completion_tokens=usage.completion_tokens if usage else 0,
                    finish_reason=result.reply.finish_reason if result.reply else "",
                    error=result.error.message if result.error else None,
                    purpose="compaction",
                )
            )
        if result.reply is None or result.cancelled:
            return None
        text = result.reply.text.strip()
        return text or None
