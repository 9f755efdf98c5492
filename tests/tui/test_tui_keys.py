"""No keystroke is lost (Pilot; the real terminal is in ``test_tui_tmux``): keys typed while the
app starts arrive in the input, a key pressed the moment a question shows answers it, and a key
pressed before a question appeared goes to the input instead of answering it."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from textual import events

from ipuaro.tui.app import IpuaroApp
from ipuaro.tui.screens.indexing import IndexingScreen
from tests.stubs.model_server import ModelStubServer
from tests.tui.conftest import (
    TIMEOUT,
    MakeApp,
    chat_text,
    play,
    ready,
    reply,
    settle,
    submit,
    until,
    wait_for_dialog,
    wait_for_panel,
)
from tests.tui.test_tui_dialogs import CRASH
from tests.tui.test_tui_edits import REPLACE, login


def pressed_earlier(app: IpuaroApp, key: str, at: float) -> None:
    """A key the terminal delivered at ``at`` that is still queued (the app was busy)."""
    event = events.Key(key, key if len(key) == 1 else None)
    event.time = at
    app.post_message(event)


@pytest.fixture
def slow_checks(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """The start-up checks (the real ones) wait until the test sets the event."""
    import ipuaro.tui.startup as startup

    release = threading.Event()
    real = startup.run_checks

    def gated(*args: Any) -> Any:
        assert release.wait(TIMEOUT), "the test never let the checks run"
        return real(*args)

    monkeypatch.setattr(startup, "run_checks", gated)
    return release


async def test_keys_typed_while_the_app_starts_arrive_in_the_input(
    make_app: MakeApp, stub: ModelStubServer, slow_checks: threading.Event
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"fix the", "space", *"bugg", "backspace")
        assert not app.ready.is_set()  # still checking the model server
        slow_checks.set()
        await ready(pilot)
        assert app.prompt.text == "fix the bug"
        assert app.prompt.has_focus


async def test_enter_while_the_app_starts_sends_once_it_is_ready(
    make_app: MakeApp, stub: ModelStubServer, slow_checks: threading.Event
) -> None:
    script = play(stub, reply("Typed-ahead answer."))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"hello", "enter")
        assert "⏳ sent when ready: hello" in str(app.query_one("#queue").render())
        assert app.prompt.text == ""
        slow_checks.set()
        await ready(pilot)
        await until(pilot, lambda: "Typed-ahead answer." in chat_text(app))
        await settle(pilot)
        assert "You: hello" in chat_text(app)
        assert str(app.query_one("#queue").render()) == ""
    assert len(script.bodies) == 1


async def test_a_line_feed_typed_ahead_sends_and_later_starts_a_new_line(
    make_app: MakeApp, stub: ModelStubServer, slow_checks: threading.Event
) -> None:
    # Until the app reads the terminal raw, the terminal turns Enter into a line feed (ICRNL).
    play(stub, reply("Answer."))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"hi", "ctrl+j")
        assert "⏳ sent when ready: hi" in str(app.query_one("#queue").render())
        slow_checks.set()
        await ready(pilot)
        await settle(pilot)
        assert "You: hi" in chat_text(app)
        await pilot.press("a", "ctrl+j", "b")  # once ready, Ctrl+J is a new line again
        assert app.prompt.text == "a\nb"


async def test_keys_typed_while_the_first_index_shows_go_to_the_input(
    make_app: MakeApp, stub: ModelStubServer
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await app.push_screen(IndexingScreen(app.project, app.type_ahead))
        await pilot.press(*"abc", "backspace", "left", "X")  # the input's own keys too
        assert isinstance(app.screen, IndexingScreen)
        assert app.prompt.text == "aXb"
        app.pop_screen()


async def test_y_the_moment_the_diff_shows_applies_it(
    make_app: MakeApp, stub: ModelStubServer, project: Path
) -> None:
    play(stub, reply("", REPLACE), reply("Done."))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "add a validity check")
        panel = await wait_for_panel(pilot)
        assert panel.has_focus
        await pilot.press("y")  # no pause: there is no grace period that swallows it
        assert panel.decided and app.prompt.text == ""
        await settle(pilot)
        assert "Done." in chat_text(app)
    assert 'throw new AuthError("bad")' in login(project)


async def test_a_key_pressed_before_the_diff_took_the_focus_goes_to_the_input(
    make_app: MakeApp, stub: ModelStubServer, project: Path
) -> None:
    before = login(project)
    play(stub, reply("", REPLACE), reply("Done."))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "add a validity check")
        panel = await wait_for_panel(pilot)
        assert panel.has_focus
        # "y" then "e" of "yes", typed just before the diff appeared, still in the queue.
        pressed_earlier(app, "y", panel.focused_at - 0.02)
        pressed_earlier(app, "e", panel.focused_at - 0.01)
        await until(pilot, lambda: app.prompt.text == "ye")
        assert not panel.decided  # neither Apply nor Edit
        assert app.prompt.has_focus  # the user is typing: the focus went back to them
        assert login(project) == before
        await pilot.press("s")
        assert app.prompt.text == "yes"
        await pilot.press("escape")  # Esc reaches the waiting change
        assert panel.has_focus
        await pilot.press("y")
        await settle(pilot)
    assert 'throw new AuthError("bad")' in login(project)


async def test_a_key_pressed_before_a_dialog_opened_goes_to_the_input(
    make_app: MakeApp, stub: ModelStubServer
) -> None:
    play(stub, CRASH, reply("Recovered."))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "hello")
        dialog = await wait_for_dialog(pilot)
        pressed_earlier(app, "enter", dialog.opened_at - 0.02)  # would press Retry
        pressed_earlier(app, "a", dialog.opened_at - 0.01)  # would be Abort
        await until(pilot, lambda: app.prompt.text == "a")
        assert app.screen is dialog
        await pilot.press("r")  # pressed after it opened: answered at once
        await settle(pilot)
        assert "Recovered." in chat_text(app)


async def test_keys_typed_while_the_onboarding_screen_shows_are_kept(make_app: MakeApp) -> None:
    from ipuaro.tui.screens.onboarding import OnboardingScreen
    from tests.tui.conftest import wait_for_screen
    from tests.tui.test_tui_onboarding import free_port

    port = free_port()
    app = make_app(base_url=f"http://127.0.0.1:{port}")  # no model server: onboarding
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await wait_for_screen(pilot, OnboardingScreen, "Button")
        pressed_earlier(app, "q", screen.opened_at - 0.01)  # typed before it: not Quit
        await until(pilot, lambda: app.prompt.text == "q")
        await pilot.press("x", "space")  # none of its keys: for the input
        assert app.is_running and app.screen is screen
        assert app.prompt.text == "qx "
        with ModelStubServer(port=port):
            await pilot.press("r")  # its own key, pressed after it opened: Retry
            await ready(pilot)
            assert app.prompt.text == "qx "
            await pilot.press("ctrl+d")
            await until(pilot, lambda: not app.is_running)
