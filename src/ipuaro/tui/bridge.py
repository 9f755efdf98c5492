"""Between the agent and the screen: events become Textual messages, questions become futures.

The agent calls its listener and awaits its handlers from inside its own task. Both go through
the app's message queue, so an edit's diff is drawn after the tool line and the text that came
before it, never ahead of them. A question is a message carrying a future; the app shows a
dialog or a diff panel and resolves the future with the user's answer.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from textual.message import Message

from ipuaro.agent.events import (
    AgentError,
    AgentEvent,
    ConflictChoice,
    ErrorChoice,
    LoopChoice,
)
from ipuaro.domain.edits import ConfirmDecision, ConfirmRequest

if TYPE_CHECKING:
    from textual.app import App


@dataclass
class AgentEventPosted(Message):
    event: AgentEvent


@dataclass
class ConfirmAsked(Message):
    request: ConfirmRequest
    future: asyncio.Future[ConfirmDecision]


@dataclass
class ErrorAsked(Message):
    error: AgentError
    choices: tuple[ErrorChoice, ...]
    future: asyncio.Future[str]


@dataclass
class ConflictAsked(Message):
    path: str
    description: str
    future: asyncio.Future[str]


@dataclass
class LoopAsked(Message):
    tool_name: str
    repeats: int
    future: asyncio.Future[str]


class UiBridge:
    """The agent's ``AgentHandlers`` and the tools' ``ConfirmCallback``, answered by the UI."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app

    def listen(self, event: AgentEvent) -> None:
        self.app.post_message(AgentEventPosted(event))

    def _future(self) -> asyncio.Future[str]:
        return asyncio.get_running_loop().create_future()

    async def confirm(self, request: ConfirmRequest) -> ConfirmDecision:
        future: asyncio.Future[ConfirmDecision] = asyncio.get_running_loop().create_future()
        self.app.post_message(ConfirmAsked(request, future))
        return await future

    async def on_error(self, error: AgentError, choices: tuple[ErrorChoice, ...]) -> ErrorChoice:
        future = self._future()
        self.app.post_message(ErrorAsked(error, choices, future))
        answer = await future
        for choice in choices:
            if choice == answer:
                return choice
        return "abort"

    async def on_conflict(
        self, path: str, description: str, choices: tuple[ConflictChoice, ...] = ()
    ) -> ConflictChoice:
        future = self._future()
        self.app.post_message(ConflictAsked(path, description, future))
        answer = await future
        return cast(ConflictChoice, answer if answer in ("apply", "skip", "regenerate") else "skip")

    async def on_loop(self, tool_name: str, repeats: int) -> LoopChoice:
        future = self._future()
        self.app.post_message(LoopAsked(tool_name, repeats, future))
        answer = await future
        return "continue" if answer == "continue" else "stop"
