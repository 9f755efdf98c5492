"""Slash commands, input history (persisted with the session) and Tab completion."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ipuaro.store.factory import open_store
from ipuaro.tui.app import IpuaroApp
from ipuaro.tui.startup import LaunchOptions
from ipuaro.tui.widgets.chat import TableNotice
from tests.stubs.model_server import ModelStubServer
from tests.tui.conftest import MakeApp, chat_text, plain, play, ready, reply, settle, submit


def notices(app: IpuaroApp) -> str:
    return "\n".join(plain(notice.content) for notice in app.chat.query(TableNotice))


async def test_help_lists_commands_and_keys(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "/help")
        await settle(pilot)
        text = notices(app)
        for command in ("/clear", "/undo", "/redo", "/sessions", "/status", "/reindex", "/eval"):
            assert command in text
        assert "Ctrl+C" in text and "Tab" in text


async def test_unknown_command_lists_the_commands(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "/frobnicate now")
        await settle(pilot)
        text = chat_text(app)
        assert "unknown command /frobnicate; the commands are: /help, /clear" in text
        await submit(pilot, "/sessions load")
        await settle(pilot)
        assert "usage: /sessions load ID" in chat_text(app)


async def test_status_reports_store_model_window_index_session(
    make_app: MakeApp, stub: ModelStubServer
) -> None:
    play(stub, reply("hi"))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "hello")
        await settle(pilot)
        await submit(pilot, "/status")
        await settle(pilot)
        text = notices(app)
        assert "SQLite" in text or "sqlite" in text
        assert "qwen2.5-coder:7b-instruct" in text
        assert "32,768 tokens (model)" in text
        assert "5 files" in text
        assert "2 messages" in text and "1,247 tokens" in text


async def test_clear_keeps_the_session(make_app: MakeApp, stub: ModelStubServer) -> None:
    play(stub, reply("first answer"), reply("second answer"))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        session_id = app.workspace.session_id  # type: ignore[union-attr]
        await submit(pilot, "one")
        await settle(pilot)
        await submit(pilot, "/clear")
        await settle(pilot)
        assert "first answer" not in chat_text(app)
        assert "conversation cleared" in chat_text(app)
        assert app.workspace.session_id == session_id  # type: ignore[union-attr]
        await submit(pilot, "two")
        await settle(pilot)
        assert "second answer" in chat_text(app)


async def test_sessions_list_new_load_delete(make_app: MakeApp, stub: ModelStubServer) -> None:
    play(stub, reply("answer in the first session"))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        workspace = app.workspace
        assert workspace is not None
        first = workspace.session_id
        await submit(pilot, "remember me")
        await settle(pilot)
        await submit(pilot, "/sessions new")
        await settle(pilot)
        second = app.workspace.session_id  # type: ignore[union-attr]
        assert second != first and "remember me" not in chat_text(app)
        await submit(pilot, "/sessions list")
        await settle(pilot)
        assert first in notices(app) and "remember me" in notices(app)
        await submit(pilot, f"/sessions load {first}")
        await settle(pilot)
        assert "answer in the first session" in chat_text(app)
        await submit(pilot, f"/sessions delete {first}")
        await settle(pilot)
        assert "this is the current session" in chat_text(app)
        await submit(pilot, f"/sessions delete {second}")
        await settle(pilot)
        assert f"deleted session {second}" in chat_text(app)
        await submit(pilot, "/sessions load nope")
        await settle(pilot)
        assert "session 'nope' not found" in chat_text(app)


async def test_auto_apply_and_plan_toggle_the_status_bar(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "/auto-apply on")
        await settle(pilot)
        assert app.workspace.auto_apply  # type: ignore[union-attr]
        assert "[auto-apply]" in str(app.status.render())
        await submit(pilot, "/auto-apply off")
        await settle(pilot)
        assert "[auto-apply]" not in str(app.status.render())
        await submit(pilot, "/plan on")
        await settle(pilot)
        assert "[plan]" in str(app.status.render())


async def test_model_shows_and_refuses_unknown(make_app: MakeApp, stub: ModelStubServer) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "/model")
        await settle(pilot)
        assert "model qwen2.5-coder:7b-instruct · context window 32,768" in chat_text(app)
        await submit(pilot, "/model no-such-model")
        await settle(pilot)
        assert "the server has no model 'no-such-model'" in chat_text(app)


async def test_model_switches_on_the_same_session(make_app: MakeApp, stub: ModelStubServer) -> None:
    from tests.stubs.model_server import StubModel

    stub.models.append(StubModel("llama3.1:8b", context_length=16384))
    play(stub, reply("from the new model"))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        session_id = app.workspace.session_id  # type: ignore[union-attr]
        await submit(pilot, "/model llama3.1:8b")
        await settle(pilot)
        assert app.workspace.model == "llama3.1:8b"  # type: ignore[union-attr]
        assert app.workspace.session_id == session_id  # type: ignore[union-attr]
        await submit(pilot, "hi")
        await settle(pilot)
        assert "from the new model" in chat_text(app)
    assert stub.chat_requests()[-1]["model"] == "llama3.1:8b"


async def test_eval_checks_citations_then_asks_for_a_critique(
    make_app: MakeApp, stub: ModelStubServer
) -> None:
    answer = (
        "`validateToken` in src/auth/login.ts:12 calls `verifyToken`; "
        "see also src/auth/session.ts and src/auth/token.ts:40."
    )
    script = play(stub, reply(answer), reply("Verdict: partly correct."))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "where is the token checked?")
        await settle(pilot)
        await submit(pilot, "/eval")
        await settle(pilot)
        text = chat_text(app)
        assert "✓ src/auth/login.ts:12" in text
        assert "✗ src/auth/session.ts: no such file in the index" in text
        assert "✗ src/auth/token.ts:40: src/auth/token.ts has 3 lines" in text
        assert "✓ `verifyToken`: defined at src/auth/token.ts:1" in text
        assert "Verdict: partly correct." in text
    prompt = script.bodies[-1]["messages"][-1]["content"]
    assert "Review your previous answer" in prompt and "src/auth/session.ts" in prompt


async def test_reindex_picks_up_a_new_file(make_app: MakeApp, project: Path) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        (project / "src" / "auth" / "extra.ts").write_text("export const x = 1;\n", "utf-8")
        await submit(pilot, "/reindex")
        await settle(pilot)
        assert "indexed 6 files · 1 parsed" in chat_text(app)
        assert "src/auth/extra.ts" in app.known_paths()


async def test_history_up_down_and_persisted_with_the_session(
    make_app: MakeApp, stub: ModelStubServer, project: Path
) -> None:
    play(stub, reply("a1"), reply("a2"))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "first question")
        await settle(pilot)
        await submit(pilot, "second question")
        await settle(pilot)
        app.prompt.load_text("draft")
        await pilot.press("up")
        assert app.prompt.text == "second question"
        await pilot.press("up")
        assert app.prompt.text == "first question"
        await pilot.press("down", "down")
        assert app.prompt.text == "draft"
        session_id = app.workspace.session_id  # type: ignore[union-attr]
    store = open_store(app.config, project)
    try:
        assert store.get_input_history(session_id) == ["first question", "second question"]
    finally:
        store.close()
    again = make_app(options=LaunchOptions(session_id=session_id))
    async with again.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.press("up")
        assert again.prompt.text == "second question"
        assert "a2" in chat_text(again)  # the resumed session's history is drawn


async def test_tab_completes_paths_from_the_index(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        app.prompt.load_text("look at src/au")
        app.prompt.move_cursor(app.prompt.document.end)
        await pilot.press("tab")
        assert app.prompt.text == "look at src/auth/"
        await pilot.press("tab")
        await pilot.pause()
        hint = str(app.query_one("#completions").render())
        assert "src/auth/login.ts" in hint and "src/auth/token.ts" in hint
        await pilot.press("l", "tab")
        assert app.prompt.text == "look at src/auth/login.ts"
        app.prompt.load_text("fix format")
        app.prompt.move_cursor(app.prompt.document.end)
        await pilot.press("tab")
        assert app.prompt.text == "fix src/utils/format.py"
        assert app.focused is app.prompt


async def test_multiline_input_with_ctrl_j(make_app: MakeApp, stub: ModelStubServer) -> None:
    script = play(stub, reply("ok"))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.press("a", "ctrl+j", "b")
        assert app.prompt.text == "a\nb"
        await pilot.press("enter")
        await settle(pilot)
    assert script.bodies[-1]["messages"][-1]["content"] == "a\nb"


async def test_a_registered_command_runs_in_the_tui_without_a_tui_change(
    make_app: MakeApp, stub: ModelStubServer
) -> None:
    from ipuaro.core.commands import CommandSpec, Reply, ReplyTable, register, unregister

    async def hello(workspace: Any, args: tuple[str, ...]) -> Reply:
        rows = (("session", workspace.session_id),)
        return Reply(f"hello {' '.join(args)}", "success", (ReplyTable("Hello", rows),))

    register(CommandSpec("hello", "/hello NAME", "say hello", 1, 1, operation=hello))
    try:
        app = make_app()
        async with app.run_test(size=(100, 30)) as pilot:
            await ready(pilot)
            await submit(pilot, "/hello world")
            await settle(pilot)
            assert "hello world" in notices(app)
            assert app.workspace is not None and app.workspace.session_id in notices(app)
    finally:
        unregister("hello")
