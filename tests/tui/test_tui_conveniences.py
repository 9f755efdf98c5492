"""The conveniences of the TUI prompt: ``!command``, ``/compact``, ``@path`` + Tab, ``/rewind``."""

from __future__ import annotations

from pathlib import Path

from ipuaro.tui.startup import LaunchOptions
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


async def test_rewind_to_the_first_request_restores_the_files_after_confirming(
    make_app: MakeApp, stub: ModelStubServer, project: Path
) -> None:
    fmt = project / "src" / "utils" / "format.py"
    original = fmt.read_bytes()
    old = '    return f"{first} {last}".strip()'
    script = play(
        stub,
        reply("", ("replace", {"path": "src/utils/format.py", "old": old, "new": "    return 1"})),
        reply("Changed it."),
        reply("", ("create_file", {"path": "src/utils/extra.py", "content": "X = 1\n"})),
        reply("Added it."),
        reply("Starting over."),
    )
    app = make_app(options=LaunchOptions(new_session=True, auto_apply=True))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        for request in ("simplify format_name", "add an extra module"):
            await submit(pilot, request)
            await settle(pilot)
        assert fmt.read_bytes() != original and (project / "src/utils/extra.py").exists()
        await submit(pilot, "/rewind")
        await settle(pilot)
        listed = chat_text(app)
        assert "simplify format_name" in listed and "add an extra module" in listed
        await submit(pilot, "/rewind 1")
        await wait_for_dialog(pilot)
        await pilot.press("y")
        await settle(pilot)
        shown = chat_text(app)
        assert "2 change(s) undone" in shown
        assert "simplify format_name" in shown  # named in the rewind note only
        assert "Changed it." not in shown and "Added it." not in shown  # redrawn without them
        assert fmt.read_bytes() == original
        assert not (project / "src/utils/extra.py").exists()
        await submit(pilot, "start again")
        await settle(pilot)
    contents = " ".join(str(m.get("content")) for m in script.bodies[-1]["messages"])
    assert "simplify format_name" not in contents and "add an extra module" not in contents
    assert "start again" in contents
