"""The agent's questions put through the front end's :class:`~ipuaro.core.decisions.Decider`.

The agent awaits ``AgentHandlers`` (errors, conflicts, the loop guard) and the tools await a
``ConfirmCallback``; both become one ``decide(question)`` call here, and the answer is checked
against the question's options (anything else is the safe answer).
"""

from __future__ import annotations

from typing import cast

from ipuaro.agent.events import AgentError, ConflictChoice, ErrorChoice, LoopChoice
from ipuaro.core.decisions import (
    Answer,
    ConfirmChange,
    Decider,
    LoopDetected,
    Question,
    RecoverError,
    ResolveConflict,
    confirm_decision,
    resolve,
)
from ipuaro.domain.edits import ConfirmDecision, ConfirmRequest


class DecisionHandlers:
    """``AgentHandlers`` and ``ConfirmCallback`` answered by one decider."""

    def __init__(self, decider: Decider) -> None:
        self.decider = decider

    async def ask(self, question: Question) -> Answer:
        return resolve(question, await self.decider.decide(question))

    async def confirm(self, request: ConfirmRequest) -> ConfirmDecision:
        return confirm_decision(await self.ask(ConfirmChange.of(request)))

    async def on_error(self, error: AgentError, choices: tuple[ErrorChoice, ...]) -> ErrorChoice:
        answer = await self.ask(RecoverError.of(error, choices))
        return cast(ErrorChoice, answer.choice)

    async def on_conflict(
        self, path: str, description: str, choices: tuple[ConflictChoice, ...]
    ) -> ConflictChoice:
        answer = await self.ask(ResolveConflict.of(path, description, choices))
        return cast(ConflictChoice, answer.choice)

    async def on_loop(self, tool_name: str, repeats: int) -> LoopChoice:
        answer = await self.ask(LoopDetected.of(tool_name, repeats))
        return cast(LoopChoice, answer.choice)
