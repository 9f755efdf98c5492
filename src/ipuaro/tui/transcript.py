"""A saved session's history drawn into the chat log (resume, ``/sessions load``).

Tool-call markup the model wrote in its text is stripped the way the agent strips it live;
requests are closed with the same stats line a live answer gets, summed from their messages.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from ipuaro.core.transcript import call_summary, visible_text
from ipuaro.domain import ChatMessage, MessageStats
from ipuaro.tui.formatting import plural, stats_line
from ipuaro.tui.widgets.toolline import ToolLine

if TYPE_CHECKING:
    from ipuaro.tui.widgets.chat import ChatLog

SHOWN_MESSAGES = 60
"""Messages of a resumed session drawn at start (the rest stay in the session)."""


def _add(total: MessageStats, stats: MessageStats | None) -> MessageStats:
    if stats is None:
        return total
    return MessageStats(
        tokens=total.tokens + stats.tokens,
        time_ms=total.time_ms + stats.time_ms,
        tool_calls=total.tool_calls + stats.tool_calls,
    )


async def render_history(
    chat: ChatLog,
    history: Sequence[ChatMessage],
    accepted: Collection[str],
    *,
    show_tool_calls: bool = True,
    show_stats: bool = True,
    limit: int = SHOWN_MESSAGES,
) -> None:
    hidden = max(0, len(history) - limit)
    shown = history[hidden:]
    # Start at a user message so no answer is drawn without its question.
    while shown and shown[0].role != "user":
        shown = shown[1:]
        hidden += 1
    if hidden:
        await chat.notice(f"… {plural(hidden, 'earlier message')} not shown", "info")
    totals = MessageStats()

    async def close() -> None:
        nonlocal totals
        if chat.current is not None:
            line = None
            if show_stats and (totals.tokens or totals.time_ms):
                line = stats_line(totals.time_ms / 1000, totals.tokens, totals.tool_calls)
            await chat.end_answer(line)
        totals = MessageStats()

    for message in shown:
        if message.role == "user":
            if message.kind == "error":
                continue  # the agent's re-prompt after an unreadable reply
            if message.kind == "steer" and chat.current is not None:
                await chat.current.add_user(message.content, "steer")
                continue
            await close()
            await chat.add_user(message.content)
        elif message.role == "assistant":
            block = await chat.answer()
            totals = _add(totals, message.stats)
            await block.add_text(visible_text(message, accepted))
            if show_tool_calls:
                for call in message.tool_calls or ():
                    await block.add(ToolLine(call.id, call_summary(call)))
        elif message.role == "tool" and message.tool_results and chat.current is not None:
            result = message.tool_results[0]
            line = chat.current.tool_line(result.call_id)
            if line is not None:
                line.finish("ok" if result.success else "failed", message.content)
        elif message.kind == "summary":
            await close()
            text = "conversation cleared" if not message.content else "earlier turns summarised"
            await chat.notice(f"— {text} —", "info")
    await close()
