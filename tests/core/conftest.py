"""Fixtures for the application core: a real project (the agent_app fixture in a git repo), the
real stub model server over HTTP, a real SQLite store, and a Workspace opened on them with a
recording decider — no Textual anywhere."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from ipuaro.config.loader import load_config
from ipuaro.core.decisions import Answer, Question
from ipuaro.core.events import Event
from ipuaro.core.workspace import Workspace, WorkspaceOptions
from tests.agent.conftest import (
    ScriptedModel,
    Step,
    project,  # noqa: F401  (the same real project fixture)
)
from tests.stubs.model_server import ModelStubServer

TIMEOUT = 20.0


@pytest.fixture
def server() -> Iterator[ModelStubServer]:
    with ModelStubServer() as stub:
        yield stub


@dataclass
class RecordingDecider:
    """Answers by question type (``answers[ConfirmChange] = "apply"``); anything unlisted gets
    the question's safe answer. Every question is kept."""

    answers: dict[type[Question], Answer | str] = field(default_factory=dict)
    asked: list[Question] = field(default_factory=list)

    async def decide(self, question: Question) -> Answer | str:
        self.asked.append(question)
        return self.answers.get(type(question), question.safe)

    def of(self, kind: type[Question]) -> list[Any]:
        return [q for q in self.asked if isinstance(q, kind)]


@dataclass
class Opened:
    workspace: Workspace
    decider: RecordingDecider
    model: ScriptedModel
    server: ModelStubServer
    events: list[Event]

    def of_type(self, kind: str) -> list[Any]:
        return [e for e in self.events if e.type == kind]


def config_for(root: Path, server: ModelStubServer, **overrides: Any) -> Any:
    return load_config(
        root,
        {
            "llm.baseUrl": server.url,
            "llm.contextWindow": 32_768,
            "llm.timeout": 30,
            "watchdog.enabled": False,
            **overrides,
        },
    )


@asynccontextmanager
async def open_workspace(
    root: Path,
    server: ModelStubServer,
    steps: list[Step] | None = None,
    *,
    decider: RecordingDecider | None = None,
    options: WorkspaceOptions | None = None,
    index: bool = True,
    **overrides: Any,
) -> AsyncIterator[Opened]:
    model = ScriptedModel(steps or [])
    server.responder = model
    decider = decider or RecordingDecider()
    workspace = await Workspace.open(
        root,
        config_for(root, server, **overrides),
        decider,
        options or WorkspaceOptions(new_session=True),
    )
    events: list[Event] = []
    workspace.subscribe(events.append)
    try:
        if index:
            await workspace.first_index()
        yield Opened(workspace, decider, model, server, events)
    finally:
        await workspace.aclose()


async def wait_for(predicate: Callable[[], bool], timeout: float = TIMEOUT) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {predicate}")
        await asyncio.sleep(0.01)
