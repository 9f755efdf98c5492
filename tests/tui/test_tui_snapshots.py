"""Snapshots of the screens at 100x30 (``pytest --snapshot-update`` rewrites them; look at the
SVGs in __snapshots__/ before committing). The real agent runs against the stub model server;
the clock steps by 1.6 s per reading and the project path never appears on these screens."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.stubs.model_server import ModelStubServer
from tests.tui.conftest import (
    SIZE,
    MakeApp,
    app_of,
    play,
    ready,
    reply,
    settle,
    submit,
    wait_for_dialog,
    wait_for_panel,
    wait_for_screen,
)
from tests.tui.test_tui_dialogs import CRASH, RUN, conflict_steps
from tests.tui.test_tui_edits import REPLACE

SnapCompare = Callable[..., bool]
RunBefore = Callable[[Pilot[Any]], Awaitable[None]]


@pytest.fixture(autouse=True)
def same_sandbox_word(monkeypatch: pytest.MonkeyPatch) -> None:
    """The snapshots are of the layout; the status bar's sandbox word depends on the kernel
    (Landlock or not), so it reads the same on every machine."""
    monkeypatch.setattr(
        "ipuaro.security.sandboxing.sandbox.status_label", lambda name: f"sandbox: {name}"
    )


def steps(*actions: Callable[[Pilot[Any]], Awaitable[object]]) -> RunBefore:
    async def run_before(pilot: Pilot[Any]) -> None:
        await ready(pilot)
        app_of(pilot).prompt.cursor_blink = False
        for action in actions:
            await action(pilot)
        await pilot.pause()

    return run_before


def ask(text: str) -> Callable[[Pilot[Any]], Awaitable[None]]:
    async def action(pilot: Pilot[Any]) -> None:
        await submit(pilot, text)

    return action


def test_main_screen(snap_compare: SnapCompare, make_app: MakeApp, stub: ModelStubServer) -> None:
    """Status bar, a question, a tool line, a streamed Markdown answer, the stats line."""
    play(
        stub,
        reply("", ("get_function", {"path": "src/auth/login.ts", "name": "login"})),
        reply(
            "Login checks the **credentials** and returns a token:\n\n"
            "```ts\nreturn `token-${user}`;\n```\n\nMissing fields raise `AuthError`."
        ),
    )
    assert snap_compare(
        make_app(), terminal_size=SIZE, run_before=steps(ask("explain login"), settle)
    )


def test_diff_awaiting_confirmation(
    snap_compare: SnapCompare, make_app: MakeApp, stub: ModelStubServer
) -> None:
    """The inline diff with syntax colours and character highlights, [Y] [N] [E]."""
    play(stub, reply("I will add a validity check.", REPLACE), reply("Done."))
    assert snap_compare(
        make_app(), terminal_size=SIZE, run_before=steps(ask("add a check"), wait_for_panel)
    )


def test_error_dialog(snap_compare: SnapCompare, make_app: MakeApp, stub: ModelStubServer) -> None:
    play(stub, CRASH)
    assert snap_compare(
        make_app(), terminal_size=SIZE, run_before=steps(ask("hello"), wait_for_dialog)
    )


def test_conflict_dialog(
    snap_compare: SnapCompare, make_app: MakeApp, stub: ModelStubServer, project: Path
) -> None:
    play(stub, *conflict_steps(project))
    assert snap_compare(
        make_app(), terminal_size=SIZE, run_before=steps(ask("mark the check"), wait_for_dialog)
    )


def test_unknown_command_dialog(
    snap_compare: SnapCompare, make_app: MakeApp, stub: ModelStubServer
) -> None:
    play(stub, reply("", RUN), reply("ok"))
    assert snap_compare(
        make_app(), terminal_size=SIZE, run_before=steps(ask("run it"), wait_for_dialog)
    )


def test_loop_guard_dialog(
    snap_compare: SnapCompare, make_app: MakeApp, stub: ModelStubServer
) -> None:
    lookup = ("get_function", {"path": "src/auth/login.ts", "name": "login"})
    play(stub, reply("", lookup), reply("", lookup), reply("", lookup))
    assert snap_compare(
        make_app(), terminal_size=SIZE, run_before=steps(ask("look it up"), wait_for_dialog)
    )


def test_help(snap_compare: SnapCompare, make_app: MakeApp) -> None:
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=steps(ask("/help"), settle))


def test_onboarding_without_model_server(snap_compare: SnapCompare, make_app: MakeApp) -> None:
    """Port 9 (discard) has no listener: the screen says how to start a model server."""
    from ipuaro.tui.screens.onboarding import OnboardingScreen

    async def run_before(pilot: Pilot[Any]) -> None:
        await wait_for_screen(pilot, OnboardingScreen, "Button")

    app = make_app(base_url="http://127.0.0.1:9")
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
