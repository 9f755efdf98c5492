"""Fixtures for the terminal UI tests: the tui_app fixture project copied into
``tmp_path/projects/tui_app`` (a git repository on ``main``; the store names it
``projects-tui_app`` on every run), a real stub model server, and the real app wired by
``build_app`` — the agent, tools, index and store are all the real ones.

Snapshots need the same picture on every run: the app gets a stepping clock (each reading is
1.6 s after the previous one) and the project path never appears on the screens we snapshot.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from textual.pilot import Pilot
from textual.screen import Screen

from ipuaro.config.loader import load_config
from ipuaro.tui.app import IpuaroApp
from ipuaro.tui.screens.dialogs import ChoiceDialog
from ipuaro.tui.startup import LaunchOptions
from ipuaro.tui.widgets.diffview import ConfirmPanel
from tests.stubs.model_server import ModelStubServer, ScriptedReply, StubToolCall

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "projects" / "tui_app"
SIZE = (100, 30)
"""Terminal size of every snapshot."""
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Fixture",
    "GIT_AUTHOR_EMAIL": "fixture@example.com",
    "GIT_COMMITTER_NAME": "Fixture",
    "GIT_COMMITTER_EMAIL": "fixture@example.com",
}
TIMEOUT = 30.0

MakeApp = Callable[..., IpuaroApp]


class StepClock:
    """Each reading is ``step`` seconds after the previous one: answer times are reproducible."""

    def __init__(self, start: float = 1000.0, step: float = 1.6) -> None:
        self.now = start - step
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def git(root: Path, *args: str) -> None:
    # The identity is given here, not taken from the machine: a test must not depend on a
    # global git config (the tmux test calls copy_project without the environment fixture).
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, timeout=60, env=env)


@pytest.fixture
def environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith("IPUARO_"):
            monkeypatch.delenv(name)
    for name in ("EDITOR", "VISUAL"):
        monkeypatch.delenv(name, raising=False)
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("IPUARO_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("IPUARO_CONFIG_DIR", str(tmp_path / "config"))


def copy_project(tmp_path: Path) -> Path:
    root = tmp_path / "projects" / "tui_app"
    shutil.copytree(FIXTURE, root)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "fixture")
    return root


@pytest.fixture
def project(tmp_path: Path, environment: None) -> Path:
    return copy_project(tmp_path)


@pytest.fixture
def stub() -> Iterator[ModelStubServer]:
    with ModelStubServer() as server:
        yield server


@pytest.fixture
def make_app(project: Path, stub: ModelStubServer) -> MakeApp:
    def make(
        options: LaunchOptions | None = None,
        overrides: dict[str, Any] | None = None,
        environ: dict[str, str] | None = None,
        base_url: str | None = None,
    ) -> IpuaroApp:
        settings = {"llm.baseUrl": base_url or stub.url, "watchdog.enabled": False}
        settings.update(overrides or {})
        config = load_config(project, settings)
        return IpuaroApp(
            project,
            config,
            options or LaunchOptions(new_session=True),
            clock=StepClock(),
            environ=dict(os.environ) if environ is None else environ,
        )

    return make


# --- driving the app ------------------------------------------------------------------------


def reply(text: str = "", *calls: tuple[str, dict[str, Any]], chunks: int = 3) -> ScriptedReply:
    return ScriptedReply(
        text=text,
        chunks=chunks,
        tool_calls=[StubToolCall(name=name, arguments=args) for name, args in calls],
        prompt_tokens=1000,
        completion_tokens=247 if text else 40,
    )


async def until(pilot: Pilot[Any], predicate: Callable[[], bool], timeout: float = TIMEOUT) -> None:
    """Let the app run until ``predicate()`` holds (fails the test after ``timeout``)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {predicate}")
        await pilot.pause(0.02)


def app_of(pilot: Pilot[Any]) -> IpuaroApp:
    app = pilot.app
    assert isinstance(app, IpuaroApp)
    return app


async def ready(pilot: Pilot[Any]) -> IpuaroApp:
    app = app_of(pilot)
    await asyncio.wait_for(app.ready.wait(), TIMEOUT)
    await pilot.pause()
    return app


async def settle(pilot: Pilot[Any]) -> None:
    """Wait until the agent and any command have finished and their events are drawn."""
    app = app_of(pilot)
    for _ in range(3):
        for worker in list(app.workers):
            if worker.group in ("agent", "command", "editor") and not worker.is_finished:
                await asyncio.wait_for(worker.wait(), TIMEOUT)
        await pilot.pause()
    await until(pilot, lambda: app.workspace is None or not app.workspace.busy)
    await pilot.pause()


async def submit(pilot: Pilot[Any], text: str) -> None:
    app = app_of(pilot)
    app.prompt.load_text(text)
    app.prompt.move_cursor(app.prompt.document.end)
    await pilot.press("enter")
    await pilot.pause()


def plain(renderable: object) -> str:
    """A widget's content as plain text (tables and groups drawn 200 columns wide)."""
    from rich.console import Console
    from textual.content import Content

    if isinstance(renderable, str | Content):
        return str(renderable)
    console = Console(width=200, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def chat_text(app: IpuaroApp) -> str:
    """Everything the chat log shows, as plain text (for assertions)."""
    from textual.widgets import Markdown, Static

    parts: list[str] = []
    for widget in app.chat.query("*"):
        if isinstance(widget, Markdown):
            parts.append(widget.source)
        elif isinstance(widget, Static) and not widget.has_class("tool-result"):
            parts.append(plain(widget.content))
    return "\n".join(parts)


Step = ScriptedReply | Callable[[dict[str, Any]], ScriptedReply]


class Script:
    """The stub's responder: plays ``steps`` in order; a step may be a function of the request
    (to change a file between two model turns, or to echo a tool result)."""

    def __init__(self, *steps: Step) -> None:
        self.steps = list(steps)
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, body: dict[str, Any]) -> ScriptedReply:
        self.bodies.append(body)
        if not self.steps:
            return ScriptedReply(status=500, error_message="test script: no more replies")
        step = self.steps.pop(0)
        return step(body) if callable(step) else step


def tool_outputs(body: dict[str, Any]) -> list[str]:
    return [
        str(message.get("content") or "")
        for message in body.get("messages", [])
        if message.get("role") == "tool"
    ]


def play(stub: ModelStubServer, *steps: Step) -> Script:
    script = Script(*steps)
    stub.responder = script
    return script


def waiting_panel(app: IpuaroApp) -> ConfirmPanel | None:
    """The diff that waits for a decision, once drawn (its buttons mounted)."""
    return next(
        (p for p in app.query(ConfirmPanel) if not p.decided and p.query(".confirm-buttons")),
        None,
    )


async def wait_for_panel(pilot: Pilot[Any]) -> ConfirmPanel:
    app = app_of(pilot)
    await until(pilot, lambda: waiting_panel(app) is not None)
    await pilot.pause()
    panel = waiting_panel(app)
    assert panel is not None
    return panel


S = TypeVar("S", bound=Screen[Any])


async def wait_for_screen(pilot: Pilot[Any], kind: type[S], child: str) -> S:
    """The screen once it is on top *and* drawn (it is pushed before its widgets mount)."""
    app = pilot.app
    await until(pilot, lambda: isinstance(app.screen, kind) and bool(app.screen.query(child)))
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, kind)
    return screen


async def wait_for_dialog(pilot: Pilot[Any]) -> ChoiceDialog:
    return await wait_for_screen(pilot, ChoiceDialog, "Button")
