"""The dialogs the agent's questions open: error (retry / skip / abort), edit conflict
(apply / skip / regenerate), unknown command (run once / always / refuse), loop guard."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Button

from ipuaro.tui.app import IpuaroApp
from ipuaro.tui.screens.dialogs import ChoiceDialog
from tests.stubs.model_server import ModelStubServer, ScriptedReply
from tests.tui.conftest import (
    MakeApp,
    chat_text,
    play,
    ready,
    reply,
    settle,
    submit,
    tool_outputs,
    wait_for_dialog,
)

CRASH = ScriptedReply(status=500, error_message="model runner crashed")


def state(app: IpuaroApp) -> str:
    return app.status.fields.state


def labels(dialog: ChoiceDialog) -> list[str]:
    return [str(button.label) for button in dialog.query(Button)]


async def test_error_dialog_retry_recovers(make_app: MakeApp, stub: ModelStubServer) -> None:
    play(stub, CRASH, reply("Recovered answer."))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "hello")
        dialog = await wait_for_dialog(pilot)
        assert labels(dialog) == ["[R] Retry", "[S] Skip", "[A] Abort"]
        assert "model runner crashed" in dialog.message
        assert state(app) == "error"
        await pilot.press("r")
        await settle(pilot)
        assert "Recovered answer." in chat_text(app)
        assert state(app) == "ready"


@pytest.mark.parametrize("key", ["s", "a"])
async def test_error_dialog_skip_or_abort_stops_the_request(
    make_app: MakeApp, stub: ModelStubServer, key: str
) -> None:
    play(stub, CRASH)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "hello")
        await wait_for_dialog(pilot)
        await pilot.press(key)
        await settle(pilot)
        assert "✗ stopped by an error" in chat_text(app)
        assert app.status.fields.state == "error"
        assert not app.workspace.busy  # type: ignore[union-attr]


def conflict_steps(project: Path) -> list[Any]:
    login = project / "src" / "auth" / "login.ts"

    def edit_after_outside_change(body: dict[str, Any]) -> ScriptedReply:
        # Someone edits the top of the file between the model's read and its edit.
        text = login.read_text(encoding="utf-8")
        login.write_text("// edited outside\n" + text, encoding="utf-8")
        return reply(
            "",
            (
                "edit_lines",
                {"path": "src/auth/login.ts", "start": 13, "end": 13, "content": "  // checked"},
            ),
        )

    return [
        reply("", ("get_lines", {"path": "src/auth/login.ts", "start": 10, "end": 16})),
        edit_after_outside_change,
        lambda body: reply("tool said: " + tool_outputs(body)[-1]),
    ]


async def test_conflict_dialog_apply_lands_on_the_new_version(
    make_app: MakeApp, stub: ModelStubServer, project: Path
) -> None:
    play(stub, *conflict_steps(project))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "mark the check")
        dialog = await wait_for_dialog(pilot)
        assert dialog.title_text == "Edit conflict"
        assert labels(dialog) == ["[A] Apply", "[S] Skip", "[R] Regenerate"]
        await pilot.press("a")
        from tests.tui.conftest import wait_for_panel

        await wait_for_panel(pilot)  # the rebased edit is still shown for confirmation
        await pilot.press("y")
        await settle(pilot)
    text = (project / "src" / "auth" / "login.ts").read_text(encoding="utf-8")
    assert text.startswith("// edited outside\n") and "  // checked" in text


@pytest.mark.parametrize(
    ("key", "said"),
    [("s", "This edit was skipped and not applied"), ("r", "Read the file again")],
)
async def test_conflict_dialog_skip_or_regenerate(
    make_app: MakeApp, stub: ModelStubServer, project: Path, key: str, said: str
) -> None:
    play(stub, *conflict_steps(project))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "mark the check")
        await wait_for_dialog(pilot)
        await pilot.press(key)
        await settle(pilot)
        assert said in chat_text(app)
    assert "  // checked" not in (project / "src" / "auth" / "login.ts").read_text("utf-8")


RUN = ("run_command", {"command": "frobnicate --fast"})


@pytest.mark.parametrize(
    ("key", "said"),
    [("y", "frobnicate"), ("n", "declined to run the command")],
)
async def test_unknown_command_dialog(
    make_app: MakeApp, stub: ModelStubServer, key: str, said: str
) -> None:
    script = play(stub, reply("", RUN), lambda body: reply("tool said: " + tool_outputs(body)[-1]))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "run it")
        dialog = await wait_for_dialog(pilot)
        assert labels(dialog) == ["[Y] Run once", "[A] Always allow", "[N] Refuse", "[X] Abort"]
        assert dialog.detail == "$ frobnicate --fast"
        await pilot.press(key)
        await settle(pilot)
    assert said in tool_outputs(script.bodies[-1])[-1]


async def test_unknown_command_abort_stops_the_whole_request(
    make_app: MakeApp, stub: ModelStubServer, project: Path
) -> None:
    """Abort refuses the command and ends the request: the batch's next call does not run and
    the model is not asked again (Refuse would hand it the refusal and go on)."""
    write = ("create_file", {"path": "after.txt", "content": "x\n"})
    script = play(stub, reply("", RUN, write), reply("went on anyway"))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "run it")
        await wait_for_dialog(pilot)
        await pilot.press("x")
        await settle(pilot)
        assert "aborted by the user" in chat_text(app)
        assert "went on anyway" not in chat_text(app)
    assert len(script.bodies) == 1
    assert not (project / "after.txt").exists()


async def test_unknown_command_always_allow_is_not_asked_again(
    make_app: MakeApp, stub: ModelStubServer
) -> None:
    play(stub, reply("", RUN), reply("", RUN), reply("ran twice"))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "run it twice")
        await wait_for_dialog(pilot)
        await pilot.press("a")
        await settle(pilot)
        assert "ran twice" in chat_text(app)
        assert not isinstance(app.screen, ChoiceDialog)


LOOKUP = ("get_function", {"path": "src/auth/login.ts", "name": "login"})


@pytest.mark.parametrize(("key", "ends"), [("c", "Finally done."), ("s", "loop guard")])
async def test_loop_guard_dialog(
    make_app: MakeApp, stub: ModelStubServer, key: str, ends: str
) -> None:
    play(stub, reply("", LOOKUP), reply("", LOOKUP), reply("", LOOKUP), reply("Finally done."))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "look it up")
        dialog = await wait_for_dialog(pilot)
        assert dialog.title_text == "Loop guard"
        assert "get_function 3 times" in dialog.message
        await pilot.press(key)
        await settle(pilot)
        assert ends in chat_text(app)


async def test_ctrl_c_answers_an_open_dialog_and_stops(
    make_app: MakeApp, stub: ModelStubServer
) -> None:
    play(stub, CRASH)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "hello")
        await wait_for_dialog(pilot)
        await pilot.press("ctrl+c")
        await settle(pilot)
        assert not isinstance(app.screen, ChoiceDialog)
        assert not app.workspace.busy  # type: ignore[union-attr]
        assert "✗ stopped by an error" in chat_text(app)


async def test_ctrl_d_with_an_open_dialog_still_exits(
    make_app: MakeApp, stub: ModelStubServer
) -> None:
    from tests.tui.conftest import until

    play(stub, reply("", RUN))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "run it")
        await wait_for_dialog(pilot)
        await pilot.press("ctrl+d")
        await until(pilot, lambda: not app.is_running)
    assert app.return_code == 0
