"""Every operation a front end offers (each slash command, each TUI action) called on the
Workspace directly, without Textual: sessions, undo/redo, status, modes, index, /eval, model
switch, input history, opening errors."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from ipuaro.core.decisions import ConfirmChange, LargeProject, OverwriteChanges
from ipuaro.core.errors import OpenError, SessionMissing, SessionsUnavailable
from ipuaro.core.events import IndexFinished, ModeChanged, ModelChanged, SessionSwitched
from ipuaro.core.workspace import Workspace, WorkspaceOptions
from tests.agent.conftest import call
from tests.core.conftest import RecordingDecider, config_for, open_workspace, wait_for
from tests.stubs.model_server import ModelStubServer, ScriptedReply, StubModel


async def test_sessions_new_list_load_delete_export_import(
    project: Path, server: ModelStubServer
) -> None:
    async with open_workspace(project, server, [ScriptedReply(text="first answer")]) as opened:
        ws = opened.workspace
        await ws.send("remember me")
        first = ws.session_id
        second = ws.new_session()
        assert second != first and ws.history() == []
        listed = ws.list_sessions()
        assert [s.id for s in listed] == [first, second]
        assert [s.current for s in listed] == [False, True] and listed[0].messages >= 2
        assert ws.delete_session(second) == "current"
        ws.load_session(first)
        assert any(m.content == "first answer" for m in ws.history())
        assert ws.delete_session("no-such") == "missing"
        with pytest.raises(SessionMissing, match="no-such"):
            ws.load_session("no-such")
        lines = ws.export_session(first)
        assert lines and '"remember me"' in "\n".join(lines)
        with pytest.raises(SessionsUnavailable, match="already exists"):
            ws.import_session("\n".join(lines))
        imported = ws.import_session("\n".join(lines), new_id=True)
        assert imported.session_id not in (first, second) and imported.messages >= 2
        assert ws.delete_session(second) == "deleted"
        assert {s.id for s in ws.list_sessions()} == {first, imported.session_id}
        with pytest.raises(SessionsUnavailable):
            ws.import_session("not json at all")
    switched = [e for e in opened.events if isinstance(e, SessionSwitched)]
    assert [(e.session_id, e.reason) for e in switched] == [(second, "new"), (first, "loaded")]


async def test_undo_and_redo_and_the_overwrite_question(
    project: Path, server: ModelStubServer
) -> None:
    steps = [call("create_file", path="n.md", content="one\n"), ScriptedReply(text="ok")]
    decider = RecordingDecider({ConfirmChange: "apply", OverwriteChanges: "keep"})
    async with open_workspace(project, server, steps, decider=decider) as opened:
        ws = opened.workspace
        await ws.send("make n")
        assert (project / "n.md").exists()
        undone = await ws.undo()
        assert undone.done and undone.direction == "undo" and not (project / "n.md").exists()
        redone = await ws.redo()
        assert redone.done and (project / "n.md").read_text() == "one\n"
        (project / "n.md").write_text("edited by hand\n")
        kept = await ws.undo()
        assert not kept.done and (project / "n.md").read_text() == "edited by hand\n"
        (question,) = decider.of(OverwriteChanges)
        assert question.direction == "undo" and question.safe == "keep"
        decider.answers[OverwriteChanges] = "force"
        forced = await ws.undo()
        assert forced.done and not (project / "n.md").exists()
        nothing = await ws.undo()
        assert not nothing.done


async def test_status_modes_and_their_events(project: Path, server: ModelStubServer) -> None:
    async with open_workspace(project, server) as opened:
        ws = opened.workspace
        rows = dict((await ws.status()).rows)
        assert rows["plan mode"] == "off" and rows["auto-apply"] == "off"
        assert "files" in rows["index"] and ws.session_id in rows["session"]
        ws.set_plan_mode(True)
        ws.set_auto_apply(True)
        rows = dict((await ws.status()).rows)
        assert rows["plan mode"] == "on" and rows["auto-apply"] == "on"
        assert ws.plan_mode and ws.auto_apply
    modes = [e for e in opened.events if isinstance(e, ModeChanged)]
    assert modes == [ModeChanged(False, True), ModeChanged(True, True)]


async def test_plan_mode_keeps_edits_away_from_the_model(
    project: Path, server: ModelStubServer
) -> None:
    """Plan mode offers no tool at all: the model reads through context_requests, which the
    app fulfils, and answers the plan contract (see tests/core/test_plan_flow.py)."""
    plan = ScriptedReply(text='{"mode": "fix-plan", "summary": "NO_CHANGES: fine"}')
    async with open_workspace(project, server, [plan]) as opened:
        opened.workspace.set_plan_mode(True)
        end = await opened.workspace.send("plan it")
    assert end.reason == "done" and end.answer.startswith("NO_CHANGES: fine")
    body = opened.model.bodies[-1]
    assert "tools" not in body
    assert "plan mode" in body["messages"][0]["content"]


async def test_reindex_and_a_background_refresh(project: Path, server: ModelStubServer) -> None:
    async with open_workspace(project, server) as opened:
        ws = opened.workspace
        assert not ws.needs_first_index()
        assert "shop/cart.py" in ws.known_paths()
        (project / "shop" / "extra.py").write_text("def extra() -> int:\n    return 1\n")
        report = await ws.reindex()
        assert report.parsed == 1 and "indexed" in report.line()
        (project / "shop" / "more.py").write_text("X = 1\n")
        refreshed = await ws.refresh_index()
        assert refreshed is not None and refreshed.parsed == 1
        await wait_for(lambda: bool(opened.of_type("index_finished")))
    (finished,) = [e for e in opened.events if isinstance(e, IndexFinished)]
    assert finished.background and finished.changed and finished.error is None


async def test_a_large_project_is_asked_about_before_the_first_index(
    project: Path, server: ModelStubServer
) -> None:
    decider = RecordingDecider({LargeProject: "cancel"})
    async with open_workspace(
        project, server, decider=decider, index=False, **{"limits.maxFilesWarning": 2}
    ) as opened:
        ws = opened.workspace
        assert ws.needs_first_index()
        assert await ws.first_index() is None
        assert ws.needs_first_index()
        decider.answers[LargeProject] = "continue"
        report = await ws.first_index()
        assert report is not None and report.files > 2 and not ws.needs_first_index()
    (question, _) = decider.of(LargeProject)
    assert question.limit == 2 and question.files > 2


async def test_eval_checks_the_last_answers_citations(
    project: Path, server: ModelStubServer
) -> None:
    answer = "See shop/cart.py:1-3 and `LineItem`; also shop/nothing.py and `Ghost`."
    async with open_workspace(project, server, [ScriptedReply(text=answer)]) as opened:
        ws = opened.workspace
        assert await ws.evaluate() is None
        await ws.send("where is the cart?")
        evaluation = await ws.evaluate()
    assert evaluation is not None
    lines = evaluation.evidence()
    assert "✓ shop/cart.py:1-3" in lines and "✓ `LineItem`" in lines
    assert "✗ shop/nothing.py" in lines and "✗ `Ghost`" in lines
    assert "Review your previous answer" in evaluation.prompt


async def test_switch_model_keeps_the_session(project: Path, server: ModelStubServer) -> None:
    server.models.append(StubModel("llama3.1:8b", context_length=16384))
    async with open_workspace(project, server, [ScriptedReply(text="from llama")]) as opened:
        ws = opened.workspace
        session_id = ws.session_id
        assert "llama3.1:8b" in await ws.list_models()
        refused = await ws.switch_model("no-such-model")
        assert not refused.switched and "has no model 'no-such-model'" in (refused.error or "")
        switched = await ws.switch_model("llama3.1:8b")
        assert switched.switched and ws.model == "llama3.1:8b"
        assert ws.session_id == session_id and switched.window is not None
        await ws.send("hi")
    assert server.chat_requests()[-1]["model"] == "llama3.1:8b"
    assert [e.model for e in opened.events if isinstance(e, ModelChanged)] == ["llama3.1:8b"]


async def test_input_history_has_one_writer(project: Path, server: ModelStubServer) -> None:
    async with open_workspace(project, server, [ScriptedReply(text="a")]) as opened:
        ws = opened.workspace
        ws.remember_input("/status")
        await ws.send("a question")
        assert ws.input_history() == ["/status", "a question"]
    async with open_workspace(
        project, server, options=WorkspaceOptions(), **{"session.saveInputHistory": False}
    ) as opened:
        opened.workspace.remember_input("/help")
        assert opened.workspace.input_history() == []


async def test_opening_names_what_failed(project: Path, server: ModelStubServer) -> None:
    config = config_for(project, server)
    with pytest.raises(OpenError) as unknown:
        await Workspace.open(
            project, config, RecordingDecider(), WorkspaceOptions(session_id="nope")
        )
    assert unknown.value.kind == "session" and "nope" in str(unknown.value)
    missing = config_for(project, server, **{"llm.model": "not-pulled:1b"})
    with pytest.raises(OpenError) as model:
        await Workspace.open(project, missing, RecordingDecider())
    assert model.value.kind == "model"


async def test_the_watcher_follows_saves_into_the_index(
    project: Path, server: ModelStubServer
) -> None:
    async with open_workspace(project, server, **{"watchdog.enabled": True}) as opened:
        ws = opened.workspace
        ws.start_watching()
        assert await asyncio.to_thread(ws.watch_ready.wait, 15)  # the watch is in place
        (project / "shop" / "watched.py").write_text("def watched() -> None:\n    pass\n")
        await wait_for(lambda: "shop/watched.py" in ws.known_paths(), timeout=15)
        await ws.stop_watching()


async def test_a_resumed_session_reports_the_context_it_holds(
    project: Path, server: ModelStubServer
) -> None:
    reply = ScriptedReply(text="first answer", prompt_tokens=2_000, completion_tokens=300)
    async with open_workspace(project, server, [reply]) as opened:
        await opened.workspace.send("remember me")
        used, _ = opened.workspace.context_usage
        assert used >= 2_300
    async with open_workspace(project, server, options=WorkspaceOptions(), index=False) as again:
        assert again.workspace.history()  # the old conversation is back on screen...
        assert again.workspace.context_usage == (used, 32_768)  # ...and so is its size


async def test_a_cleared_session_resumes_empty(project: Path, server: ModelStubServer) -> None:
    async with open_workspace(project, server, [ScriptedReply(text="a")]) as opened:
        await opened.workspace.send("q")
        opened.workspace.clear_history()
        # Only the fixed share (rules, tools, summary) is left: what an empty request weighs.
        fixed = opened.workspace.ctx.agent.context.idle_tokens([])
        assert opened.workspace.context_usage[0] == fixed > 0
    async with open_workspace(project, server, options=WorkspaceOptions(), index=False) as again:
        assert again.workspace.context_usage[0] == again.workspace.ctx.agent.context.idle_tokens([])
