"""Proposed edits through the real agent and edit engine: the diff panel's Y / N / E, the
user's editor, undo with Ctrl+Z, redo, auto-apply."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import Any

from ipuaro.tui.screens.editor import EditorScreen
from ipuaro.tui.startup import LaunchOptions
from ipuaro.tui.widgets.diffview import ConfirmPanel, DiffView
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
    until,
    wait_for_panel,
    wait_for_screen,
)

OLD = "  const isValid = verifyToken(token);\n  return isValid;"
NEW = (
    "  const isValid = verifyToken(token);\n"
    '  if (!isValid) throw new AuthError("bad");\n'
    "  return isValid;"
)
INDEX = "export * from './login';\n"
REPLACE = ("replace", {"path": "src/auth/login.ts", "old": OLD, "new": NEW})


def login(project: Path) -> str:
    return (project / "src" / "auth" / "login.ts").read_text(encoding="utf-8")


def echo_last_tool(body: dict[str, Any]) -> ScriptedReply:
    return reply("tool said: " + tool_outputs(body)[-1])


async def test_y_applies_the_edit(make_app: MakeApp, stub: ModelStubServer, project: Path) -> None:
    play(stub, reply("I will add a check.", REPLACE), reply("Done: the check is in."))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "add a validity check")
        panel = await wait_for_panel(pilot)
        assert panel.has_focus
        views = list(panel.query(DiffView))
        assert [v.change.path for v in views] == ["src/auth/login.ts"]
        assert views[0].diff.added == 1 and views[0].diff.removed == 0
        assert 'throw new AuthError("bad")' not in login(project)  # nothing before Y
        await pilot.press("y")
        await settle(pilot)
        assert 'if (!isValid) throw new AuthError("bad");' in login(project)
        assert "✓ applied" in chat_text(app)
        assert "Done: the check is in." in chat_text(app)
        assert app.focused is app.prompt


async def test_n_rejects_and_the_model_is_told(
    make_app: MakeApp, stub: ModelStubServer, project: Path
) -> None:
    before = login(project)
    script = play(stub, reply("", REPLACE), echo_last_tool)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "add a validity check")
        await wait_for_panel(pilot)
        await pilot.press("n")
        await settle(pilot)
        assert login(project) == before
        assert "✗ rejected" in chat_text(app)
    assert "the user rejected this change" in tool_outputs(script.bodies[-1])[-1]


def fake_editor(tmp_path: Path) -> Path:
    """An $EDITOR that rewrites the file it is given, as a user saving their own version."""
    script = tmp_path / "fake-editor.py"
    script.write_text(
        "import sys\n"
        "path = sys.argv[1]\n"
        "text = open(path, encoding='utf-8').read()\n"
        "open(path, 'w', encoding='utf-8').write(text.replace('\"bad\"', '\"edited by user\"'))\n",
        encoding="utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


async def test_e_opens_editor_and_applies_what_was_saved(
    make_app: MakeApp, stub: ModelStubServer, project: Path, tmp_path: Path
) -> None:
    play(stub, reply("", REPLACE), reply("Applied your version."))
    editor = f"{sys.executable} {fake_editor(tmp_path)}"
    app = make_app(environ={**os.environ, "EDITOR": editor})
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "add a validity check")
        await wait_for_panel(pilot)
        await pilot.press("e")
        await settle(pilot)
        text = login(project)
        assert 'throw new AuthError("edited by user")' in text
        assert '"bad"' not in text
        assert "✓ applied with your edits" in chat_text(app)


async def test_e_with_failing_editor_keeps_the_diff_waiting(
    make_app: MakeApp, stub: ModelStubServer, project: Path
) -> None:
    before = login(project)
    play(stub, reply("", REPLACE), reply("ok"))
    app = make_app(environ={**os.environ, "EDITOR": "false"})
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "add a validity check")
        panel = await wait_for_panel(pilot)
        await pilot.press("e")
        await until(pilot, lambda: "exited with code 1" in chat_text(app))
        assert not panel.decided and login(project) == before
        panel.focus()
        await pilot.press("n")
        await settle(pilot)
        assert login(project) == before


async def test_e_without_editor_uses_the_in_app_editor(
    make_app: MakeApp, stub: ModelStubServer, project: Path
) -> None:
    play(stub, reply("", REPLACE), reply("ok"))
    app = make_app(environ={})
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "add a validity check")
        await wait_for_panel(pilot)
        await pilot.press("e")
        editor = await wait_for_screen(pilot, EditorScreen, "TextArea")
        area = editor.query_one("TextArea")
        area.load_text(area.text.replace('"bad"', '"typed in the app"'))  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert 'throw new AuthError("typed in the app")' in login(project)


async def test_ctrl_z_undoes_and_redo_reapplies(
    make_app: MakeApp, stub: ModelStubServer, project: Path
) -> None:
    before = login(project)
    play(stub, reply("", REPLACE), reply("Done."))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "add a validity check")
        await wait_for_panel(pilot)
        await pilot.press("y")
        await settle(pilot)
        after = login(project)
        assert after != before
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert login(project) == before
        assert "↶ undone" in chat_text(app)
        await submit(pilot, "/redo")
        await settle(pilot)
        assert login(project) == after
        await pilot.press("ctrl+z")
        await settle(pilot)
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert "nothing to undo" in chat_text(app)


async def test_auto_apply_flag_skips_the_diff(
    make_app: MakeApp, stub: ModelStubServer, project: Path
) -> None:
    play(stub, reply("", REPLACE), reply("Done."))
    app = make_app(options=LaunchOptions(new_session=True, auto_apply=True))
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        assert "[auto-apply]" in str(app.status.render())
        await submit(pilot, "add a validity check")
        await settle(pilot)
        assert not app.query(ConfirmPanel)
        assert 'throw new AuthError("bad")' in login(project)


async def test_each_proposed_edit_gets_its_own_panel(
    make_app: MakeApp, stub: ModelStubServer, project: Path
) -> None:
    token_old = '  return token.startsWith("token-");'
    token_new = '  return token.startsWith("token-") && token.length > 6;'
    play(
        stub,
        reply(
            "",
            ("replace", {"path": "src/auth/token.ts", "old": token_old, "new": token_new}),
        ),
        reply(
            "",
            ("create_file", {"path": "src/auth/index.ts", "content": "export * from './login';\n"}),
        ),
        reply("Both done."),
    )
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "tighten tokens and add an index")
        panel = await wait_for_panel(pilot)
        assert [v.change.path for v in panel.query(DiffView)] == ["src/auth/token.ts"]
        await pilot.press("y")
        panel = await wait_for_panel(pilot)
        (view,) = panel.query(DiffView)
        assert view.diff.status == "created" and "new file" in view.diff.header
        await pilot.press("y")
        await settle(pilot)
    assert (project / "src" / "auth" / "index.ts").exists()
    assert "token.length > 6" in (project / "src" / "auth" / "token.ts").read_text("utf-8")


async def test_typing_user_keeps_the_focus_and_esc_reaches_the_diff(
    make_app: MakeApp, stub: ModelStubServer, project: Path
) -> None:
    from tests.stubs.model_server import ScriptedReply, StubToolCall

    slow_edit = ScriptedReply(
        tool_calls=[StubToolCall(name=REPLACE[0], arguments=REPLACE[1])], first_token_delay=0.5
    )
    play(stub, slow_edit, reply("Done."))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "add a validity check")
        await pilot.press("y", "e", "s")  # typing a steer while the model works
        panel = await wait_for_panel(pilot)
        assert not panel.has_focus and app.prompt.has_focus
        assert app.prompt.text == "yes" and not panel.decided
        await pilot.press("escape")
        assert panel.has_focus
        await pilot.press("y")
        await settle(pilot)
    assert 'throw new AuthError("bad")' in login(project)


async def test_an_edit_that_breaks_the_syntax_shows_the_check_under_it(
    make_app: MakeApp, stub: ModelStubServer, project: Path
) -> None:
    """The after-edit check: the applied edit drops a closing brace; the chat shows the warning
    with the line under the edit, and the model read the same finding in the tool result."""
    broken = (
        "replace",
        {"path": "src/auth/login.ts", "old": "  return isValid;\n}", "new": "  return isValid;"},
    )
    play(stub, reply("", broken), echo_last_tool)
    app = make_app(options=LaunchOptions(new_session=True, auto_apply=True))
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "tidy validateToken")
        await until(pilot, lambda: "tool said:" in chat_text(app))
        shown = chat_text(app)
        assert "check after the edit:" in shown
        assert "- new syntax error at src/auth/login.ts:14:" in shown
        assert (
            "new syntax error at src/auth/login.ts:14:"
            in tool_outputs(stub.chat_requests()[-1])[-1]
        )


async def test_a_answers_always_for_the_rest_of_the_session_only(
    make_app: MakeApp, stub: ModelStubServer, project: Path
) -> None:
    """``A`` on an edit applies it and every later edit of the session unasked (a grant);
    a new session asks again."""
    token_old = '  return token.startsWith("token-");'
    token_new = '  return token.startsWith("token-") && token.length > 6;'
    play(
        stub,
        reply("", REPLACE),
        reply(
            "",
            ("replace", {"path": "src/auth/token.ts", "old": token_old, "new": token_new}),
        ),
        reply("Both done."),
        reply("", ("create_file", {"path": "src/auth/index.ts", "content": INDEX})),
        reply("Asked again."),
    )
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "add a check and tighten tokens")
        await wait_for_panel(pilot)
        await pilot.press("a")
        await until(pilot, lambda: "Both done." in chat_text(app))
        assert "✓ applied (always)" in chat_text(app)
        assert "[auto-apply]" in str(app.status.render())
        assert len(app.query(ConfirmPanel)) == 1, "the second edit was not asked about"
        assert "token.length > 6" in (project / "src" / "auth" / "token.ts").read_text("utf-8")
        assert 'throw new AuthError("bad")' in login(project)
        await submit(pilot, "/sessions new")
        await settle(pilot)
        assert "[auto-apply]" not in str(app.status.render())
        await submit(pilot, "add an index")
        await wait_for_panel(pilot)  # a new session starts without the grant
        assert not (project / "src" / "auth" / "index.ts").exists()
        await pilot.press("y")
        await until(pilot, lambda: "Asked again." in chat_text(app))
    assert (project / "src" / "auth" / "index.ts").exists()
