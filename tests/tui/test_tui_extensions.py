"""Extensions in the TUI (Pilot): custom commands from the project and the user folder, typed
with Tab completion and arguments, listed in /help with their source; the trust dialog for a
project that declares a script tool."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ipuaro.extensions.trust import project_trusted
from tests.stubs.model_server import ModelStubServer
from tests.tui.conftest import (
    MakeApp,
    chat_text,
    play,
    ready,
    reply,
    settle,
    submit,
    wait_for_dialog,
)
from tests.tui.test_tui_commands import notices


def _command(folder: Path, name: str, text: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.md").write_text(text, encoding="utf-8")


def _bodies_text(stub: ModelStubServer) -> list[str]:
    return [json.dumps(body.get("messages", [])) for body in stub.chat_requests()]


async def test_custom_commands_from_project_and_user_with_tab_and_arguments(
    make_app: MakeApp, project: Path, stub: ModelStubServer
) -> None:
    review = "---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $1 carefully."
    _command(project / ".ipuaro" / "commands", "review", review)
    _command(
        Path(os.environ["IPUARO_CONFIG_DIR"]) / "commands",
        "haiku",
        "Write a haiku about $ARGUMENTS.",
    )
    play(stub, reply("Reviewed it."), reply("Autumn code."))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "/help")
        await settle(pilot)
        listed = notices(app)
        assert "/review FILE" in listed and "Review a file [project]" in listed
        assert "/haiku" in listed and "[user]" in listed

        app.prompt.load_text("/rev")
        app.prompt.move_cursor(app.prompt.document.end)
        await pilot.press("tab")
        assert app.prompt.text == "/review "
        await pilot.press(*"src/cart.ts")
        await pilot.press("enter")
        await settle(pilot)
        assert "Reviewed it." in chat_text(app)

        await submit(pilot, "/haiku the login flow")
        await settle(pilot)
        assert "Autumn code." in chat_text(app)
    first, second = _bodies_text(stub)[:2]
    assert "Review src/cart.ts carefully." in first and "/review" not in first
    assert "Write a haiku about the login flow." in second


async def test_the_trust_dialog_turns_a_projects_script_tool_on(
    make_app: MakeApp, project: Path, stub: ModelStubServer
) -> None:
    (project / ".ipuaro.json").write_text(
        json.dumps({"extensions": {"tools": {"stamp": {"description": "stamp", "argv": ["true"]}}}})
    )
    play(stub, reply("hi"))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await wait_for_dialog(pilot)
        assert "Trust this project's extensions?" in dialog.title_text
        assert "script tool stamp: true" in dialog.message
        await pilot.press("t")
        await ready(pilot)
        await submit(pilot, "hello")
        await settle(pilot)
    assert project_trusted(project)
    offered = {t["function"]["name"] for t in stub.chat_requests()[0]["tools"]}
    assert "stamp" in offered
