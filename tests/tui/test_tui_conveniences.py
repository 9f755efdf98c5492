"""The conveniences typed on a line of their own in the TUI: ``!command``."""

from __future__ import annotations

from pathlib import Path

from tests.stubs.model_server import ModelStubServer
from tests.tui.conftest import MakeApp, chat_text, play, ready, reply, settle, submit


async def test_bang_git_status_shows_its_output_and_reaches_the_model(
    make_app: MakeApp, stub: ModelStubServer, project: Path
) -> None:
    (project / "untracked_note.txt").write_text("new\n", encoding="utf-8")
    script = play(stub, reply("I see the untracked note."))
    app = make_app()
    async with app.run_test() as pilot:
        await ready(pilot)
        await submit(pilot, "!git status --short")
        await settle(pilot)
        assert "?? untracked_note.txt" in chat_text(app)
        assert script.bodies == []  # the command itself asks the model nothing
        await submit(pilot, "what changed?")
        await settle(pilot)
    users = [m["content"] for m in script.bodies[0]["messages"] if m["role"] == "user"]
    ran = [text for text in users if "git status --short" in text]
    assert ran and "?? untracked_note.txt" in ran[0]
    assert users[-1] == "what changed?"


async def test_a_denied_bang_command_is_refused_and_not_sent(
    make_app: MakeApp, stub: ModelStubServer, project: Path
) -> None:
    script = play(stub, reply("ok"))
    app = make_app()
    async with app.run_test() as pilot:
        await ready(pilot)
        await submit(pilot, "!sudo ls")
        await settle(pilot)
        assert "!sudo ls: command refused by policy" in chat_text(app)
        await submit(pilot, "hello")
        await settle(pilot)
    users = [m["content"] for m in script.bodies[0]["messages"] if m["role"] == "user"]
    assert not any("sudo ls" in text for text in users)


async def test_compact_shrinks_the_history_the_model_sees_and_keeps_the_focus(
    make_app: MakeApp, stub: ModelStubServer
) -> None:
    script = play(
        stub,
        reply("The cart sums prices."),
        reply("Checkout calls the cart."),
        reply("Tax is rounded down."),
        reply("SUMMARY: cart sums prices; checkout uses it; tax rounding matters."),
        reply("Rounding half up is the fix."),
    )
    app = make_app()
    async with app.run_test() as pilot:
        await ready(pilot)
        await submit(pilot, "/compact")
        await settle(pilot)
        assert "nothing to compact yet" in chat_text(app)
        for question in ("how does the cart work?", "and checkout?", "and tax?"):
            await submit(pilot, question)
            await settle(pilot)
        await submit(pilot, "/compact tax rounding")
        await settle(pilot)
        assert "compacted: summarised" in chat_text(app)
        await submit(pilot, "what should change?")
        await settle(pilot)
    before, summarising, after = script.bodies[2], script.bodies[3], script.bodies[4]
    assert "tax rounding" in summarising["messages"][-1]["content"]
    assert "how does the cart work?" in summarising["messages"][-1]["content"]
    contents = [str(m.get("content")) for m in after["messages"]]
    assert not any("how does the cart work?" in text for text in contents)
    assert any("SUMMARY: cart sums prices" in text for text in contents)
    assert len(after["messages"]) < len(before["messages"]) + 2


async def test_at_path_tab_completes_and_the_file_reaches_the_model(
    make_app: MakeApp, stub: ModelStubServer, project: Path
) -> None:
    login = (project / "src" / "auth" / "login.ts").read_text(encoding="utf-8")
    script = play(stub, reply("login checks the password."))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        app.prompt.load_text("explain @src/auth/lo")
        app.prompt.move_cursor(app.prompt.document.end)
        await pilot.press("tab")
        assert app.prompt.text == "explain @src/auth/login.ts"
        await pilot.press("enter")
        await settle(pilot)
    [body] = script.bodies
    users = [str(m["content"]) for m in body["messages"] if m["role"] == "user"]
    assert users[-1] == "explain @src/auth/login.ts"
    attached = users[-2]
    assert "@src/auth/login.ts:" in attached and login.strip() in attached
