"""End-to-end fixtures: the agent_app fixture project copied to tmp_path (a git repository),
indexed by the real Indexer into a real SQLite store, a real stub model server speaking Ollama's
or the OpenAI protocol, and the app wired by ``build_app`` exactly as the CLI does."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from ipuaro.agent.events import (
    AgentEvent,
    ConflictChoice,
    ErrorChoice,
    LoopChoice,
)
from ipuaro.config.loader import load_config
from ipuaro.core.wiring import AppContext, build_app
from ipuaro.llm.tokens import estimate_tokens
from ipuaro.tools.base import ConfirmChoice, ConfirmRequest
from tests.stubs.model_server import ModelStubServer, ScriptedReply, StubToolCall

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "projects" / "agent_app"
SUMMARY_MARKER = "You compress the history of a coding session"
SUMMARY_TEXT = (
    "Task state: reading the shop package to explain pricing.\nDecisions: none yet.\n"
    "Files touched: shop/cart.py, shop/pricing.py (read only).\nOpen problems: none."
)
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Fixture",
    "GIT_AUTHOR_EMAIL": "fixture@example.com",
    "GIT_COMMITTER_NAME": "Fixture",
    "GIT_COMMITTER_EMAIL": "fixture@example.com",
}

Step = ScriptedReply | Callable[[dict[str, Any]], ScriptedReply]


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, timeout=60)


def copy_fixture(tmp_path: Path, name: str = "agent_app") -> Path:
    root = tmp_path / name
    shutil.copytree(FIXTURE, root)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "fixture")
    return root


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("IPUARO_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("IPUARO_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv("IPUARO_TRACE", raising=False)
    return copy_fixture(tmp_path)


@pytest.fixture
def model_server() -> Iterator[ModelStubServer]:
    with ModelStubServer() as server:
        yield server


@pytest.fixture(params=["ollama", "openai"])
def provider(request: pytest.FixtureRequest) -> str:
    return str(request.param)


# --- the scripted model -------------------------------------------------------------------


def body_text(body: dict[str, Any]) -> str:
    return json.dumps(body.get("messages", []), ensure_ascii=False)


def tool_outputs(body: dict[str, Any]) -> list[str]:
    """Tool results in a request, whichever way they were sent (native or as text)."""
    outputs = []
    for message in body.get("messages", []):
        content = str(message.get("content") or "")
        if message.get("role") == "tool" or content.startswith("Observation ("):
            outputs.append(content)
    return outputs


def is_summary_request(body: dict[str, Any]) -> bool:
    return SUMMARY_MARKER in body_text(body)


def call(tool: str, /, **arguments: Any) -> ScriptedReply:
    return ScriptedReply(tool_calls=[StubToolCall(name=tool, arguments=arguments)])


class ScriptedModel:
    """The stub's responder: plays ``steps`` in order (a reply, or a function of the request),
    answers compaction requests with a fixed summary, and reports a realistic prompt size so
    the agent's token accounting sees believable numbers."""

    def __init__(
        self, steps: list[Step], *, repeat_last: bool = False, fail_summaries: bool = False
    ) -> None:
        self.steps = list(steps)
        self.repeat_last = repeat_last
        self.fail_summaries = fail_summaries
        self.bodies: list[dict[str, Any]] = []
        self.summary_requests = 0

    def __call__(self, body: dict[str, Any]) -> ScriptedReply:
        self.bodies.append(body)
        if is_summary_request(body):
            self.summary_requests += 1
            reply = (
                ScriptedReply(status=500, error_message="stub: summary failed")
                if self.fail_summaries
                else ScriptedReply(text=SUMMARY_TEXT)
            )
        elif self.steps:
            step = self.steps[0] if self.repeat_last and len(self.steps) == 1 else self.steps.pop(0)
            reply = step(body) if callable(step) else step
        else:
            reply = ScriptedReply(status=500, error_message="stub: the script ran out of replies")
        reply.prompt_tokens = estimate_tokens(body_text(body)) + estimate_tokens(
            json.dumps(body.get("tools", []))
        )
        reply.completion_tokens = max(1, estimate_tokens(reply.text))
        return reply

    @property
    def agent_bodies(self) -> list[dict[str, Any]]:
        return [b for b in self.bodies if not is_summary_request(b)]


# --- handlers and confirmation ------------------------------------------------------------


@dataclass
class RecordingHandlers:
    error_choice: ErrorChoice = "abort"
    conflict_choice: ConflictChoice = "skip"
    loop_choice: LoopChoice = "stop"
    errors: list[tuple[str, str]] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    loops: list[tuple[str, int]] = field(default_factory=list)

    async def on_error(self, error: Any, choices: tuple[ErrorChoice, ...]) -> ErrorChoice:
        self.errors.append((error.kind, error.message))
        return self.error_choice

    async def on_conflict(
        self, path: str, description: str, choices: tuple[ConflictChoice, ...] = ()
    ) -> ConflictChoice:
        self.conflicts.append(path)
        return self.conflict_choice

    async def on_loop(self, tool_name: str, repeats: int) -> LoopChoice:
        self.loops.append((tool_name, repeats))
        return self.loop_choice


@dataclass
class Confirmer:
    answer: ConfirmChoice = "apply"
    requests: list[ConfirmRequest] = field(default_factory=list)

    async def __call__(self, request: ConfirmRequest) -> ConfirmChoice:
        self.requests.append(request)
        return self.answer


@dataclass
class Harness:
    app: AppContext
    server: ModelStubServer
    model: ScriptedModel
    handlers: RecordingHandlers
    confirm: Confirmer
    events: list[AgentEvent]

    def of_type(self, kind: str) -> list[Any]:
        return [e for e in self.events if e.type == kind]


@asynccontextmanager
async def open_harness(
    root: Path,
    server: ModelStubServer,
    provider: str,
    model: ScriptedModel,
    *,
    window: int | None = 32_768,
    overrides: dict[str, Any] | None = None,
    handlers: RecordingHandlers | None = None,
    confirm: Confirmer | None = None,
    **build: Any,
) -> AsyncIterator[Harness]:
    server.responder = model
    base_url = server.url if provider == "ollama" else server.openai_url
    config = load_config(
        root,
        {
            "llm.provider": provider,
            "llm.baseUrl": base_url,
            "llm.contextWindow": window,
            "llm.timeout": 30,
            **(overrides or {}),
        },
    )
    handlers = handlers or RecordingHandlers()
    confirm = confirm or Confirmer()
    app = await build_app(root, config, handlers=handlers, confirm=confirm, **build)
    app.indexer.index(workers=1)
    events: list[AgentEvent] = []
    app.agent.subscribe(events.append)
    try:
        yield Harness(app, server, model, handlers, confirm, events)
    finally:
        await app.aclose()
