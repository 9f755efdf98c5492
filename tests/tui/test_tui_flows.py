"""Pilot flows through the real agent: the stub model server plays the model."""

from __future__ import annotations

from pathlib import Path

from ipuaro.store.factory import open_store
from ipuaro.tui.startup import LaunchOptions
from ipuaro.tui.widgets.toolline import ToolLine
from tests.stubs.model_server import ModelStubServer, ScriptedReply
from tests.tui.conftest import (
    MakeApp,
    chat_text,
    play,
    ready,
    reply,
    settle,
    submit,
    until,
)

LOOKUP = ("get_function", {"path": "src/auth/login.ts", "name": "login"})


def slow(text: str) -> ScriptedReply:
    """An answer that streams for about two seconds (time to type or press Ctrl+C)."""
    return ScriptedReply(text=text, chunks=20, chunk_delay=0.1, first_token_delay=0.2)


async def test_first_run_indexes_then_message_streams_answer_with_stats(
    make_app: MakeApp, stub: ModelStubServer
) -> None:
    play(stub, reply("Login is built on **JWT** tokens.", chunks=4))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        text = chat_text(app)
        assert "indexed 5 files · 4 parsed · 0 unchanged" in text
        assert "context window 32,768 tokens (model)" in text
        await submit(pilot, "how does login work?")
        await settle(pilot)
        text = chat_text(app)
        assert "You: how does login work?" in text
        assert "Login is built on **JWT** tokens." in text
        assert "⏱ 1.6s │ 1,247 tokens │ 0 tool calls" in text
        assert app.status.fields.state == "ready"
        assert app.status.fields.ctx_used > 0


async def test_tool_call_line_expands_to_its_result(
    make_app: MakeApp, stub: ModelStubServer
) -> None:
    play(stub, reply("", LOOKUP), reply("It returns a token."))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "explain login")
        await settle(pilot)
        (line,) = app.query(ToolLine)
        assert line.summary == "get_function src/auth/login.ts login"
        assert line.state == "ok" and not line.expanded
        assert "1 tool call" in chat_text(app)
        assert "export function login" in line.result_text
        line.focus()
        await pilot.press("enter")
        assert line.expanded
        assert "export function login" in str(line.query_one(".tool-result").render())
        await pilot.click(line)
        assert not line.expanded


async def test_typing_while_busy_steers_and_queues_follow_ups(
    make_app: MakeApp, stub: ModelStubServer
) -> None:
    script = play(
        stub,
        reply("", LOOKUP),
        slow("Still reading the code of the login function."),
        reply("Answer after the steer."),
        reply("Follow-up answer."),
    )
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "explain login")
        await until(pilot, lambda: len(script.bodies) >= 2)
        assert app.workspace is not None and app.workspace.busy
        await submit(pilot, "focus on errors")  # Enter while busy: steer
        app.prompt.load_text("and then list the callers")
        await pilot.press("ctrl+f")  # Ctrl+F while busy: follow-up
        await pilot.pause()
        queued = str(app.query_one("#queue").render())
        assert "⏳ steer: focus on errors" in queued
        assert "⏳ follow-up: and then list the callers" in queued
        await settle(pilot)
        text = chat_text(app)
        assert "You (steer): focus on errors" in text
        assert "Follow-up answer." in text
        assert "You: and then list the callers" in text
        assert str(app.query_one("#queue").render()) == ""
    steered = script.bodies[2]["messages"]
    assert any(m.get("content") == "focus on errors" for m in steered)


async def test_ctrl_c_interrupts_then_twice_when_idle_quits(
    make_app: MakeApp, stub: ModelStubServer
) -> None:
    script = play(stub, slow("A long answer that will be interrupted before it ends."))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "tell me everything")
        await until(pilot, lambda: bool(script.bodies))
        await pilot.press("ctrl+c")
        await settle(pilot)
        text = chat_text(app)
        assert "⊘ interrupted" in text
        # What the interrupted request used (estimated: the server's count never came).
        (stats,) = [line for line in text.splitlines() if line.startswith("⏱")]
        assert "│ ~" in stats and "│ 0 tokens" not in stats and "│ ~0 tokens" not in stats
        assert not app.workspace.busy  # type: ignore[union-attr]
        assert app.is_running
        # The step clock has moved on more than 2 s since the interrupt (the answer's end
        # read it): this press only warns, the next one (1.6 s later) quits.
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.is_running
        await pilot.press("ctrl+c")
        await until(pilot, lambda: not app.is_running)
    assert app.return_code == 0


async def test_ctrl_d_saves_and_exits_and_the_session_resumes(
    make_app: MakeApp, stub: ModelStubServer, project: Path
) -> None:
    play(stub, reply("Remembered answer."))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        session_id = app.workspace.session_id  # type: ignore[union-attr]
        await submit(pilot, "remember this")
        await settle(pilot)
        await pilot.press("ctrl+d")
        await until(pilot, lambda: not app.is_running)
    store = open_store(app.config, project)
    try:
        assert session_id in store.list_sessions()
        saved = store.load_session(session_id)
        assert saved is not None
        assert [m.content for m in saved.history if m.role == "user"] == ["remember this"]
    finally:
        store.close()
    assert saved.context.tokens_used > 0
    again = make_app(options=LaunchOptions())  # no --new: the last session resumes
    async with again.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        assert again.workspace.session_id == session_id  # type: ignore[union-attr]
        # The old history is on screen, so ctx % is what it holds, not 0 %.
        assert again.status.fields.ctx_used == saved.context.tokens_used
        text = chat_text(again)
        assert "resumed session “remember this” (2 messages); `ipuaro --new`" in text
        assert "You: remember this" in text and "Remembered answer." in text
        # The second start found the index and refreshed it in the background.
        assert "indexed 5 files" not in text


async def test_new_flag_starts_a_fresh_session(make_app: MakeApp, stub: ModelStubServer) -> None:
    play(stub, reply("old answer"))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        first = app.workspace.session_id  # type: ignore[union-attr]
        await submit(pilot, "old question")
        await settle(pilot)
    fresh = make_app(options=LaunchOptions(new_session=True))
    async with fresh.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        assert fresh.workspace.session_id != first  # type: ignore[union-attr]
        assert "old answer" not in chat_text(fresh)


async def test_unknown_session_id_exits_with_the_reason(make_app: MakeApp) -> None:
    app = make_app(options=LaunchOptions(session_id="nope"))
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: not app.is_running)
    assert app.return_code == 2


async def test_watcher_reindexes_changed_files(
    make_app: MakeApp, stub: ModelStubServer, project: Path
) -> None:
    app = make_app(overrides={"watchdog.enabled": True, "watchdog.debounceMs": 50})
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        assert app.workspace is not None
        await until(pilot, app.workspace.watch_ready.is_set)
        (project / "src" / "auth" / "watched.ts").write_text("export const w = 1;\n", "utf-8")
        await until(pilot, lambda: "src/auth/watched.ts" in app.known_paths(), timeout=15)


async def test_ctrl_c_while_a_diff_waits_interrupts_it(
    make_app: MakeApp, stub: ModelStubServer, project: Path
) -> None:
    from tests.tui.conftest import wait_for_panel
    from tests.tui.test_tui_edits import REPLACE, login

    before = login(project)
    play(stub, reply("", REPLACE))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "add a check")
        panel = await wait_for_panel(pilot)
        await pilot.press("ctrl+c")
        await settle(pilot)
        assert panel.decided
        assert "⊘ interrupted before a decision" in chat_text(app)
        assert app.focused is app.prompt
    assert login(project) == before


async def test_large_project_asks_before_the_first_index(make_app: MakeApp) -> None:
    from tests.tui.conftest import wait_for_dialog

    app = make_app(overrides={"limits.maxFilesWarning": 2})
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await wait_for_dialog(pilot)
        assert "has 5 files (more than limits.maxFilesWarning = 2)" in dialog.message
        await pilot.press("c")
        await ready(pilot)
        assert "indexed 5 files" in chat_text(app)


async def test_large_project_can_index_only_a_subfolder(make_app: MakeApp, project: Path) -> None:
    from tests.tui.conftest import wait_for_dialog

    (project / "docs").mkdir()
    (project / "docs" / "notes.md").write_text("# notes\n", encoding="utf-8")
    app = make_app(overrides={"limits.maxFilesWarning": 2})
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await wait_for_dialog(pilot)
        offered = [c.label for c in dialog.choices]
        assert offered[0] == "Continue" and offered[-1] == "Cancel"
        assert offered[1].startswith("Index src/ only (")
        await pilot.press("1")
        await ready(pilot)
        assert app.workspace.ctx.indexer.only == "src"
        files = set(app.workspace.ctx.store.file_hashes())
    assert files and all(path.startswith("src/") for path in files)
    assert "docs/notes.md" not in files


async def test_large_project_cancelled_exits(make_app: MakeApp) -> None:
    from tests.tui.conftest import wait_for_dialog

    cancelled = make_app(overrides={"limits.maxFilesWarning": 2})
    async with cancelled.run_test(size=(100, 30)) as pilot:
        await wait_for_dialog(pilot)
        await pilot.press("q")
        await until(pilot, lambda: not cancelled.is_running)
    assert cancelled.return_code == 1


async def test_compaction_and_long_answers_are_reported(
    make_app: MakeApp, stub: ModelStubServer, project: Path
) -> None:
    from ipuaro.agent.events import Compaction
    from tests.tui.conftest import StepClock

    play(stub, reply("a slow answer"))
    app = make_app()
    app.clock = StepClock(step=12.0)  # every answer now "takes" 12 s: longer than the bell's 10
    bells: list[None] = []
    app.bell = lambda: bells.append(None)  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "take your time")
        await settle(pilot)
        assert bells == [None]
        assert "⏱ 12.0s" in chat_text(app)
        # A compaction the agent reports is drawn where the answer is.
        app.bridge.listen(Compaction(tokens_before=30_000, tokens_after=9_000, summarised=True))
        await until(pilot, lambda: "30,000 → 9,000 tokens" in chat_text(app))
        assert "context compacted (summarised)" in chat_text(app)
