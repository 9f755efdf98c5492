"""How a stored message reads to the user: its prose without tool-call markup, and the one-line
summary of a tool call (what a front end shows when it redraws a resumed session)."""

from __future__ import annotations

from collections.abc import Collection

from ipuaro.domain import ChatMessage, ToolCall


def visible_text(message: ChatMessage, accepted: Collection[str]) -> str:
    """``message``'s text with the tool calls written into it (``accepted`` names) removed."""
    if not message.content.strip():
        return ""
    from ipuaro.llm.toolcalls import parse_tool_calls

    return parse_tool_calls(message.content, accepted).text


def call_summary(call: ToolCall) -> str:
    """``get_function src/auth/login.ts login`` — one compact line for a tool call."""
    from ipuaro.agent.run.dispatch import call_summary as summary

    return summary(call)
