"""What the loop says to the model about a reply it could not, or would not, act on.

Two messages, both user-side ``kind="error"`` lines in the history: the re-prompt after an
unreadable tool call (with the tool's schema), and the note after a reply whose call from text
was held or only shown (``docs/tool-calls.md``). Either, repeated ``FORMAT_ERROR_LIMIT`` times
in a row, goes to the user: retry, skip (the reply is the answer) or abort.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from ipuaro.agent.context.history import assistant_message, user_message
from ipuaro.agent.context.prompt import format_reprompt
from ipuaro.agent.events import AgentError, ErrorChoice
from ipuaro.agent.run.bookkeeping import Stop
from ipuaro.agent.run.intent import held_message
from ipuaro.domain import ChatMessage, ToolCall
from ipuaro.llm.formats import ToolFormat
from ipuaro.llm.toolcalls import ParsedReply

FORMAT_ERROR_LIMIT = 3


@dataclass
class Feedback:
    history: Callable[[], list[ChatMessage]]
    save: Callable[[], Awaitable[None]]
    ask: Callable[[AgentError], Awaitable[ErrorChoice]]

    async def reprompt(
        self, raw: str, parsed: ParsedReply, count: int, schemas: list[str], mode: ToolFormat
    ) -> bool:
        """Ask the model again with what was wrong; False when the user chose to skip (the
        reply stands as the answer). After ``FORMAT_ERROR_LIMIT`` in a row the user decides."""
        errors = [e.message for e in parsed.errors] or [
            "the reply was empty: answer in text or call a tool"
        ]
        history = self.history()
        if count >= FORMAT_ERROR_LIMIT:
            message = f"the model wrote {count} unreadable tool calls in a row; last: {errors[0]}"
            choice = await self.ask(AgentError("parse", message))
            if choice == "abort":
                raise Stop("error", message)
            if choice == "skip":
                history.append(assistant_message(parsed.text or raw, []))
                await self.save()
                return False
        history.append(assistant_message(raw, []))
        history.append(user_message(format_reprompt(errors, schemas, mode), kind="error"))
        await self.save()
        return True

    async def tell(
        self, held: list[ToolCall], notes: list[str], held_turns: int, native: bool
    ) -> bool:
        """One line per thing the reply held or showed; a call held in prose turn after turn
        goes to the user after ``FORMAT_ERROR_LIMIT`` (False: the user chose skip)."""
        if held and held_turns >= FORMAT_ERROR_LIMIT:
            message = (
                f"the model wrote a {held[0].name} call inside prose {held_turns} times in a row "
                "(from its text, not a tool call); it was not run"
            )
            choice = await self.ask(AgentError("parse", message))
            if choice == "abort":
                raise Stop("error", message)
            if choice == "skip":
                return False
        lines = ([held_message(held, native)] if held else []) + notes
        self.history().append(user_message("\n".join(lines), kind="error"))
        await self.save()
        return True
