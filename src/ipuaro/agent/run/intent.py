"""Which of a reply's calls run now: the rule for calls recovered from text.

``llm/toolcalls.py`` finds the calls and where they stand; this applies the second half of the
rule in ``docs/tool-calls.md``, the half that needs to know what a tool does:

- native calls run;
- a call recovered from the text runs at once when it is read-only, or when the reply is
  nothing but its calls (a call the way a model without native tools makes one);
- any other call from text — a write, a delete, a command, a memory change embedded in prose —
  is *held*: not run, even with ``--auto-apply``; the model gets one short turn saying so, and
  a reply that is only the call is the second signal that runs it;
- a call-like text that is shown, not made (a quotation, a table, …), is told to the model in
  one line, so a real call it meant costs at most one turn.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ipuaro.domain import ToolCall
from ipuaro.llm.toolcalls import ParsedReply


@dataclass
class Intent:
    run: list[ToolCall] = field(default_factory=list)
    held: list[ToolCall] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """One line each, for the model (and the user): near misses read, calls shown not made."""


def sort_calls(
    calls: Sequence[ToolCall], parsed: ParsedReply, read_only: Callable[[ToolCall], bool]
) -> Intent:
    """``calls``: ``parsed.calls`` with their names resolved (ids unchanged)."""
    intent = Intent(notes=list(parsed.notes))
    written = {call.id: call.name for call in parsed.calls}
    for call in calls:
        name = written.get(call.id, call.name)
        if name != call.name:
            note = f"read the tool name {name!r} as {call.name!r}; write it exactly next time"
            if note not in intent.notes:
                intent.notes.append(note)
        from_text = call.id in parsed.from_text
        if from_text and not parsed.bare and not read_only(call):
            intent.held.append(call)
        else:
            intent.run.append(call)
    for call, where in parsed.shown:
        intent.notes.append(
            f"not run: the `{call.name}` call {where} was shown, not made; to run it, reply "
            "with only the call"
        )
    return intent


def held_message(held: Sequence[ToolCall], native: bool) -> str:
    """The short turn a held call gets: what was not run, and how to run it."""
    names = ", ".join(dict.fromkeys(f"`{call.name}`" for call in held))
    how = "reply with only the call"
    if native:
        how += " (or make it as a native tool call)"
    noun = "call" if len(held) == 1 else "calls"
    return (
        f"You wrote a {names} {noun} in your text; it was not run, because a call that changes "
        f"something runs from text only when the reply is nothing but the call. To run it, "
        f"{how}. If you only meant to show it, answer without it."
    )


def shown_to_user(text: str, intent: Intent) -> str:
    """The reply as the user sees it: its text, then one line per call not run (a held call is
    shown as coming from the text, waiting for the model to confirm it)."""
    lines = [text] if text else []
    lines += [
        f"(not run yet: a `{call.name}` call written in the reply's text; the model is asked to "
        "confirm it by replying with only the call)"
        for call in intent.held
    ]
    return "\n".join([*lines, *intent.notes])
