"""The conversation through the Workspace, without Textual: send and its event stream, steer,
follow-up, abort, the decision protocol for edits, commands, errors and the loop guard, input
history, /clear."""

from __future__ import annotations

import asyncio
from pathlib import Path

from ipuaro.core.decisions import (
    Answer,
    ConfirmChange,
    LoopDetected,
    RecoverError,
)
from ipuaro.core.errors import WorkspaceBusy
from ipuaro.core.events import AgentEnd, HistoryCleared, MessageDelta, ToolCallEnd
from tests.agent.conftest import call
from tests.core.conftest import RecordingDecider, open_workspace, wait_for
from tests.stubs.model_server import ModelStubServer, ScriptedReply


async def test_send_streams_typed_events_and_keeps_the_request_in_input_history(
    project: Path, server: ModelStubServer
) -> None:
    steps = [ScriptedReply(text="The cart sums line items.", chunks=3)]
    async with open_workspace(project, server, steps) as opened:
        ws = opened.workspace
        end = await ws.send("explain the cart")
        assert ws.input_history() == ["explain the cart"]
    assert isinstance(end, AgentEnd) and end.reason == "done"
    assert end.answer == "The cart sums line items."
    deltas = [e.text for e in opened.events if isinstance(e, MessageDelta)]
    assert "".join(deltas) == "The cart sums line items." and len(deltas) >= 2
    kinds = [e.type for e in opened.events if not e.type.startswith("index_")]
    assert kinds[0] == "agent_start" and kinds[-1] == "agent_end"
    assert opened.of_type("index_progress"), "the first index reported its progress"


async def test_an_edit_is_confirmed_through_the_decider_with_its_diff(
    project: Path, server: ModelStubServer
) -> None:
    steps = [call("create_file", path="notes.md", content="hello\n"), ScriptedReply(text="done")]
    decider = RecordingDecider({ConfirmChange: "apply"})
    async with open_workspace(project, server, steps, decider=decider) as opened:
        end = await opened.workspace.send("write notes")
    (question,) = decider.of(ConfirmChange)
    assert question.request.kind == "edit" and "+hello" in (question.request.diff or "")
    assert question.values() == ("apply", "always", "reject") and question.safe == "reject"
    assert (project / "notes.md").read_text() == "hello\n"
    (ended,) = [e for e in opened.events if isinstance(e, ToolCallEnd)]
    assert ended.result.success and ended.result.changed_paths == ["notes.md"]
    assert ended.result.diff and not ended.result.refused
    assert end.changes == ("notes.md",)


async def test_a_rejected_edit_leaves_the_file_and_reports_a_typed_refusal(
    project: Path, server: ModelStubServer
) -> None:
    before = (project / "shop" / "cart.py").read_text()
    steps = [
        call("replace", path="shop/cart.py", old='"""The shopping cart."""', new='"""Cart."""'),
        ScriptedReply(text="ok"),
    ]
    decider = RecordingDecider({ConfirmChange: Answer("reject")})
    async with open_workspace(project, server, steps, decider=decider) as opened:
        await opened.workspace.send("rename the docstring")
    assert (project / "shop" / "cart.py").read_text() == before
    (ended,) = [e for e in opened.events if isinstance(e, ToolCallEnd)]
    assert ended.result.refused and ended.result.refusal and ended.result.diff
    assert ended.result.changed_paths == []


async def test_an_answer_outside_the_options_counts_as_the_safe_one(
    project: Path, server: ModelStubServer
) -> None:
    steps = [call("create_file", path="x.md", content="x\n"), ScriptedReply(text="ok")]
    decider = RecordingDecider({ConfirmChange: "yes please"})
    async with open_workspace(project, server, steps, decider=decider) as opened:
        await opened.workspace.send("make x")
    assert not (project / "x.md").exists()


async def test_the_users_own_text_from_an_edited_confirmation_is_written(
    project: Path, server: ModelStubServer
) -> None:
    steps = [call("create_file", path="y.md", content="model\n"), ScriptedReply(text="ok")]
    decider = RecordingDecider({ConfirmChange: Answer("apply", {"y.md": "mine\n"})})
    async with open_workspace(project, server, steps, decider=decider) as opened:
        await opened.workspace.send("make y")
    assert (project / "y.md").read_text() == "mine\n"


async def test_a_command_the_policy_asks_about_is_a_confirm_question(
    project: Path, server: ModelStubServer
) -> None:
    steps = [call("run_command", command="frobnicate --fast"), ScriptedReply(text="ok")]
    decider = RecordingDecider({ConfirmChange: "reject"})
    async with open_workspace(project, server, steps, decider=decider) as opened:
        await opened.workspace.send("run it")
    (question,) = decider.of(ConfirmChange)
    assert question.request.kind == "command" and "always" in question.values()
    (ended,) = [e for e in opened.events if isinstance(e, ToolCallEnd)]
    assert ended.result.refused


async def test_a_model_error_asks_retry_skip_abort_and_abort_ends_the_request(
    project: Path, server: ModelStubServer
) -> None:
    steps = [ScriptedReply(status=500, error_message="stub: boom")]
    decider = RecordingDecider({RecoverError: "abort"})
    async with open_workspace(project, server, steps, decider=decider) as opened:
        end = await opened.workspace.send("hi")
    (question,) = decider.of(RecoverError)
    assert question.error.kind == "llm" and question.values() == ("retry", "skip", "abort")
    assert end.reason in ("error", "aborted")


async def test_the_loop_guard_asks_and_stop_ends_the_request(
    project: Path, server: ModelStubServer
) -> None:
    same = call("get_lines", path="shop/cart.py", start=1, end=3)
    steps = [same] * 8 + [ScriptedReply(text="ok")]
    decider = RecordingDecider({LoopDetected: "stop"})
    async with open_workspace(project, server, steps, decider=decider) as opened:
        end = await opened.workspace.send("read it")
    (question,) = decider.of(LoopDetected)
    assert question.tool_name == "get_lines" and question.repeats >= 2
    assert end.reason == "limit"


async def test_abort_ends_a_streaming_request_and_steer_is_remembered(
    project: Path, server: ModelStubServer
) -> None:
    slow = ScriptedReply(text="one two three four five six", chunks=6, chunk_delay=0.4)
    async with open_workspace(project, server, [slow]) as opened:
        ws = opened.workspace
        task = asyncio.create_task(ws.send("count"))
        await wait_for(lambda: bool(opened.of_type("message_delta")))
        assert ws.busy
        ws.steer("faster please")
        assert ws.queued[0] == ("faster please",)
        ws.abort()
        end = await asyncio.wait_for(task, 10)
        assert "faster please" in ws.input_history()
        assert not ws.busy
    assert end.reason == "aborted"


async def test_follow_up_runs_after_the_answer_and_busy_operations_are_refused(
    project: Path, server: ModelStubServer
) -> None:
    slow = ScriptedReply(text="first answer", chunks=4, chunk_delay=0.2)
    async with open_workspace(project, server, [slow, ScriptedReply(text="second")]) as opened:
        ws = opened.workspace
        task = asyncio.create_task(ws.send("first"))
        await wait_for(lambda: ws.busy)
        ws.follow_up("then this")
        try:
            await ws.send("not now")
        except WorkspaceBusy:
            pass
        else:
            raise AssertionError("send while busy was not refused")
        try:
            ws.clear_history()
        except WorkspaceBusy as error:
            assert "waits until the agent has answered" in str(error)
        else:
            raise AssertionError("/clear while busy was not refused")
        end = await asyncio.wait_for(task, 10)
    assert end.answer == "second"
    assert [e.request for e in opened.of_type("agent_start")] == ["first", "then this"]


async def test_clear_history_empties_the_models_view_and_says_so(
    project: Path, server: ModelStubServer
) -> None:
    async with open_workspace(project, server, [ScriptedReply(text="a")]) as opened:
        ws = opened.workspace
        await ws.send("q")
        used_before, _ = ws.context_usage
        ws.clear_history()
        session_id = ws.session_id
    assert [e for e in opened.events if isinstance(e, HistoryCleared)] == [
        HistoryCleared(session_id)
    ]
    assert used_before > 0
