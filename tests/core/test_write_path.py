"""One write path through the workspace: an edit tool's change and a plan's change are both
committed by the edit engine — one confirmation, the same stale check while it waits, one undo
step each, the same undo entries."""

from __future__ import annotations

from pathlib import Path

from ipuaro.core.decisions import Answer, ConfirmChange, Question
from ipuaro.core.events import ToolCallEnd
from ipuaro.domain.plan import Action
from tests.agent.conftest import call
from tests.core.conftest import RecordingDecider, open_workspace
from tests.planning.conftest import record
from tests.stubs.model_server import ModelStubServer, ScriptedReply


class WritesMeanwhile(RecordingDecider):
    """Says yes to every change, after someone else wrote ``path`` while the question waited."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path

    async def decide(self, question: Question) -> Answer | str:
        self.asked.append(question)
        if isinstance(question, ConfirmChange) and question.request.kind == "edit":
            self.path.write_text("someone else\n")
        return "apply"


async def test_a_file_written_while_the_confirmation_waits_stops_an_edit_and_a_plan_alike(
    project: Path, server: ModelStubServer
) -> None:
    target = project / "late.md"
    steps = [call("create_file", path="late.md", content="model\n"), ScriptedReply(text="ok")]
    async with open_workspace(project, server, steps, decider=WritesMeanwhile(target)) as opened:
        ws = opened.workspace
        await ws.send("make late.md")
        (ended,) = [e for e in opened.events if isinstance(e, ToolCallEnd)]
        assert not ended.result.success
        assert "changed on disk while waiting for confirmation: late.md" in (
            ended.result.error or ""
        )
        assert target.read_text() == "someone else\n"
        assert ws.ctx.store.list_undo(ws.session_id) == []

        target.unlink()
        report = await ws.apply_plan(record([Action("CREATE_FILE", "late.md", "plan\n")]))
        assert report.status == "stale" and report.codes == ("ERR_STALE_BASE",)
        assert report.message.startswith("ERR_STALE_BASE: late.md changed on disk while")
        assert target.read_text() == "someone else\n"
        assert ws.ctx.store.list_undo(ws.session_id) == []


async def test_an_edit_and_a_plan_are_each_one_undo_step_of_the_same_stack(
    project: Path, server: ModelStubServer
) -> None:
    steps = [call("create_file", path="tool.md", content="tool\n"), ScriptedReply(text="ok")]
    decider = RecordingDecider({ConfirmChange: "apply"})
    async with open_workspace(project, server, steps, decider=decider) as opened:
        ws = opened.workspace
        await ws.send("make tool.md")
        plan = record([Action("CREATE_FILE", "docs2/plan.md", "plan\n")], summary="add a doc")
        report = await ws.apply_plan(plan)
        assert report.applied, report.message
        entries = ws.ctx.store.list_undo(ws.session_id)
        assert [(e.file_path, e.description) for e in entries] == [
            ("tool.md", "create tool.md"),
            ("docs2", "plan: add a doc"),
            ("docs2/plan.md", "plan: add a doc"),
        ]
        assert all(e.pending is None for e in entries)
        asked = [q.request for q in decider.of(ConfirmChange) if q.request.kind == "edit"]
        assert [r.per_file for r in asked] == [False, True]  # one question per change
        assert (await ws.undo()).done and not (project / "docs2").exists()
        assert (project / "tool.md").exists()
        assert (await ws.undo()).done and not (project / "tool.md").exists()
