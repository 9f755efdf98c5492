"""Start-up checks: a missing model server shows how to start one; a missing model can be
pulled with a progress bar; retry and quit do what they say."""

from __future__ import annotations

import socket
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Button

from ipuaro.tui.screens.onboarding import OnboardingScreen
from tests.stubs.model_server import ModelStubServer, StubModel
from tests.tui.conftest import MakeApp, ready, until, wait_for_screen

MODEL = "qwen2.5-coder:7b-instruct"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def onboarding(pilot: Pilot[Any]) -> OnboardingScreen:
    return await wait_for_screen(pilot, OnboardingScreen, "Button")


def screen_text(screen: OnboardingScreen) -> str:
    return "\n".join(str(widget.render()) for widget in screen.query("Static"))


async def test_no_server_shows_how_to_start_one_then_retry_works(make_app: MakeApp) -> None:
    port = free_port()
    app = make_app(base_url=f"http://127.0.0.1:{port}")
    async with app.run_test(size=(100, 30)) as pilot:
        text = screen_text(await onboarding(pilot))
        assert "✗ model server: cannot reach ollama" in text
        assert "ollama serve" in text
        assert f"ollama pull {MODEL}" in text
        with ModelStubServer(port=port):
            await pilot.press("r")
            await ready(pilot)
            assert not isinstance(app.screen, OnboardingScreen)
            await pilot.press("ctrl+d")
            await until(pilot, lambda: not app.is_running)


async def test_an_openai_server_down_is_told_how_to_start_that_server(make_app: MakeApp) -> None:
    port = free_port()
    app = make_app(base_url=f"http://127.0.0.1:{port}/v1", overrides={"llm.provider": "openai"})
    async with app.run_test(size=(100, 30)) as pilot:
        text = screen_text(await onboarding(pilot))
        assert f"No OpenAI-compatible server answered at http://127.0.0.1:{port}/v1" in text
        assert f"llama-server -m MODEL.gguf --port {port}" in text
        assert "ollama" not in text.lower()
        await pilot.press("q")


async def test_quit_from_onboarding_exits_with_the_problem(make_app: MakeApp) -> None:
    app = make_app(base_url=f"http://127.0.0.1:{free_port()}")
    async with app.run_test(size=(100, 30)) as pilot:
        await onboarding(pilot)
        await pilot.press("q")
        await until(pilot, lambda: not app.is_running)
    assert app.return_code == 1


async def test_missing_model_is_pulled_with_progress(
    make_app: MakeApp, stub: ModelStubServer
) -> None:
    stub.models = [StubModel("llama3.1:8b")]
    stub.pullable[MODEL] = StubModel(MODEL)
    stub.pull_delay = 0.05
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await onboarding(pilot)
        text = screen_text(screen)
        assert f"✗ model: {MODEL} is not on the server" in text
        assert "[P] Pull model" in [str(b.label) for b in screen.query(Button)]
        await pilot.press("p")
        bar = screen.query_one("#pull-progress")
        await until(pilot, lambda: (bar.progress or 0) > 0)  # type: ignore[attr-defined]
        await ready(pilot)
    assert any(r.path == "/api/pull" for r in stub.requests)
    assert stub.model(MODEL) is not None


async def test_failed_pull_says_why_and_waits(make_app: MakeApp, stub: ModelStubServer) -> None:
    stub.models = [StubModel("llama3.1:8b")]  # and nothing pullable
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await onboarding(pilot)
        await pilot.press("p")
        status = app.screen.query_one("#pull-status")
        await until(pilot, lambda: "pull failed" in str(status.render()))
        assert isinstance(app.screen, OnboardingScreen)
        await pilot.press("q")
        await until(pilot, lambda: not app.is_running)
    assert app.return_code == 1
