"""Between the workspace and the screen: events become Textual messages, questions futures.

The workspace calls its listeners and awaits the decider from inside its own task. Both go
through the app's message queue, so an edit's diff is drawn after the tool line and the text
that came before it, never ahead of them. A question is a message carrying a future; the app
shows a dialog or a diff panel and resolves the future with the user's answer.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.message import Message

from ipuaro.core.decisions import Answer, Question
from ipuaro.core.events import Event

if TYPE_CHECKING:
    from textual.app import App


@dataclass
class AgentEventPosted(Message):
    event: Event


@dataclass
class QuestionAsked(Message):
    question: Question
    future: asyncio.Future[Answer | str]


class UiBridge:
    """The workspace's listener and :class:`~ipuaro.core.decisions.Decider`, answered by
    the UI."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app

    def listen(self, event: Event) -> None:
        self.app.post_message(AgentEventPosted(event))

    async def decide(self, question: Question) -> Answer | str:
        future: asyncio.Future[Answer | str] = asyncio.get_running_loop().create_future()
        self.app.post_message(QuestionAsked(question, future))
        return await future
