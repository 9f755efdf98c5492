"""Engineering memory in the terminal UI: /memory shows and edits it, and a scripted model's
``remember`` call opens the "Remember this?" dialog — Y writes, N leaves every byte."""

from __future__ import annotations

import json
import os
from pathlib import Path

from textual.widgets import Button

from ipuaro.tui.app import IpuaroApp
from ipuaro.tui.widgets.chat import TableNotice
from tests.stubs.model_server import ModelStubServer
from tests.tui.conftest import (
    MakeApp,
    chat_text,
    plain,
    play,
    ready,
    reply,
    settle,
    submit,
    tool_outputs,
    wait_for_dialog,
)


def notices(app: IpuaroApp) -> str:
    return "\n".join(plain(notice.content) for notice in app.chat.query(TableNotice))


def prefs_file() -> Path:
    return Path(os.environ["IPUARO_CONFIG_DIR"]) / "preferences.json"


async def test_memory_command_shows_and_edits(make_app: MakeApp, project: Path) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, '/memory set project.default_test_command "npm test --silent"')
        await settle(pilot)
        assert "remembered 1 value" in chat_text(app)
        await submit(pilot, "/memory set user.preferred_style brief")
        await submit(pilot, "/memory set user.ask_budget many")
        await settle(pilot)
        assert "user.ask_budget must be a whole number 0..2" in chat_text(app)
        await submit(pilot, "/memory")
        await settle(pilot)
        table = notices(app)
        assert "Engineering memory" in table
        assert "'npm test --silent'" in table and ".ipuaro/project.json" in table
        assert "'brief'" in table and str(prefs_file()) in table
        await submit(pilot, "/memory unset user.preferred_style")
        await settle(pilot)
    assert json.loads((project / ".ipuaro" / "project.json").read_text()) == {
        "default_test_command": "npm test --silent"
    }
    assert json.loads(prefs_file().read_text()) == {}


async def test_a_remember_call_asks_and_y_writes(
    make_app: MakeApp, stub: ModelStubServer, project: Path
) -> None:
    patch = {"project.default_test_command": "npm test", "user.output_format": "plan-first"}
    script = play(stub, reply("", ("remember", {"memory_patch": patch})), reply("Remembered."))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "remember: tests run with npm test; show me plans first")
        dialog = await wait_for_dialog(pilot)
        assert dialog.title_text == "Remember this?"
        assert [str(b.label) for b in dialog.query(Button)] == [
            "[Y] Remember",
            "[N] Don't remember",
        ]
        assert "project.default_test_command: (not set) → 'npm test'" in dialog.message
        assert "user.output_format: (not set) → 'plan_first'" in dialog.message
        await pilot.press("y")
        await settle(pilot)
        assert "Remembered." in chat_text(app)
    assert "remembered 2 values" in tool_outputs(script.bodies[1])[0]
    assert json.loads((project / ".ipuaro" / "project.json").read_text()) == {
        "default_test_command": "npm test"
    }
    assert json.loads(prefs_file().read_text()) == {"output_format": "plan_first"}


async def test_a_remember_call_refused_with_n_writes_nothing(
    make_app: MakeApp, stub: ModelStubServer, project: Path
) -> None:
    patch = {"project.default_test_command": "npm test"}
    script = play(stub, reply("", ("remember", {"memory_patch": patch})), reply("OK."))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "remember the test command")
        await wait_for_dialog(pilot)
        await pilot.press("n")
        await settle(pilot)
    assert "not remembered: the user declined" in tool_outputs(script.bodies[1])[0]
    assert not (project / ".ipuaro").exists() and not prefs_file().exists()
