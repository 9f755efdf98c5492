"""Engineering memory through the core: the scripted model's ``remember`` call shown as an
ApplyMemory question and written only on "apply", a plan's patch through the same operation,
/memory show / set / unset, a broken file, and headless runs with and without --remember —
real project, real stub model server over HTTP, real files."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

from ipuaro.core.commands import parse_command, run_operation
from ipuaro.core.decisions import ApplyMemory
from ipuaro.headless import HeadlessOptions, run_headless
from tests.agent.conftest import ScriptedModel, call, tool_outputs
from tests.core.conftest import RecordingDecider, config_for, open_workspace
from tests.stubs.model_server import ModelStubServer, ScriptedReply

PATCH = {
    "project.default_test_command": "python3 -m pytest -q",
    "user.preferred_style": "brief",
    "sandbox.network": "on",
    "user.ask_budget": 9,
}


def project_json(root: Path) -> dict[str, object]:
    return dict(json.loads((root / ".ipuaro" / "project.json").read_text()))


def user_prefs() -> Path:
    return Path(os.environ["IPUARO_CONFIG_DIR"]) / "preferences.json"


def system_prompt(body: dict[str, object]) -> str:
    messages = body["messages"]
    assert isinstance(messages, list)
    return str(messages[0]["content"])


async def test_a_remember_call_is_asked_and_written_only_when_confirmed(
    project: Path, server: ModelStubServer
) -> None:
    steps = [
        call("remember", memory_patch=PATCH),
        ScriptedReply(text="Noted."),
        ScriptedReply(text="Using it."),
    ]
    decider = RecordingDecider({ApplyMemory: "apply"})
    async with open_workspace(project, server, steps, decider=decider) as opened:
        end = await opened.workspace.send(
            "remember: tests run with python3 -m pytest -q, and be brief"
        )
        assert end.reason == "done"
        (question,) = decider.of(ApplyMemory)
        assert question.source == "remember" and question.safe == "reject"
        assert question.changes == (
            (
                "project.default_test_command",
                "\"python3 -m unittest discover -s tests -t . -p '*_checks.py'\"",
                "'python3 -m pytest -q'",
            ),
            ("user.preferred_style", "(not set)", "'brief'"),
        )
        assert "sandbox.network: not a memory key" in question.message
        assert "user.ask_budget: user.ask_budget must be a whole number 0..2" in question.message
        (result,) = tool_outputs(opened.model.agent_bodies[1])
        assert "remembered 2 values" in result and "sandbox.network: dropped" in result
        await opened.workspace.send("run the tests")
        prompt = system_prompt(opened.model.agent_bodies[2])
    assert project_json(project) == {
        "lint": "python3 -m pyflakes shop",
        "default_test_command": "python3 -m pytest -q",
    }
    assert json.loads(user_prefs().read_text()) == {"preferred_style": "brief"}
    memory = prompt.split("ENGINEERING_MEMORY:\n", 1)[1].split("\n", 1)[0]
    assert json.loads(memory) == {
        "user": {"preferred_style": "brief"},
        "project": {
            "default_test_command": "python3 -m pytest -q",
            "default_lint_command": "python3 -m pyflakes shop",
        },
    }


async def test_a_declined_patch_changes_no_byte(project: Path, server: ModelStubServer) -> None:
    before = (project / ".ipuaro" / "project.json").read_bytes()
    steps = [call("remember", memory_patch=PATCH), ScriptedReply(text="OK, not remembered.")]
    async with open_workspace(project, server, steps) as opened:  # the safe answer: reject
        await opened.workspace.send("remember the test command")
        (result,) = tool_outputs(opened.model.agent_bodies[1])
    assert "not remembered: the user declined" in result
    assert (project / ".ipuaro" / "project.json").read_bytes() == before
    assert not user_prefs().exists()


async def test_a_plans_patch_goes_through_the_same_operation(
    project: Path, server: ModelStubServer
) -> None:
    decider = RecordingDecider({ApplyMemory: "apply"})
    async with open_workspace(project, server, decider=decider, index=False) as opened:
        ws = opened.workspace
        report = await ws.propose_memory_patch(
            {"project": {"src_roots": ["shop"], "test_roots": "tests"}, "x": 1}, "plan"
        )
        assert report.applied and report.check.dropped == ("x",)
        assert decider.of(ApplyMemory)[0].source == "plan"
        again = await ws.propose_memory_patch({"project.src_roots": ["shop"]}, "plan")
        assert not again.applied and again.check.unchanged == ("project.src_roots",)
        assert "already" in again.message
        assert len(decider.of(ApplyMemory)) == 1  # nothing to change: nobody is asked
        nothing = await ws.propose_memory_patch({"permissions": "all"}, "plan")
        assert not nothing.applied and nothing.check.dropped == ("permissions",)
        assert len(decider.of(ApplyMemory)) == 1
    assert project_json(project)["src_roots"] == ["shop"]
    assert project_json(project)["test_roots"] == ["tests"]


async def test_memory_command_shows_sets_and_unsets(project: Path, server: ModelStubServer) -> None:
    async with open_workspace(project, server, index=False) as opened:
        ws = opened.workspace

        async def run(text: str) -> object:
            return await run_operation(ws, parse_command(text))

        shown = await run("/memory")
        (table,) = shown.tables  # type: ignore[attr-defined]
        rows = {row[0]: row for row in table.rows}
        assert len(rows) == 13
        assert rows["project.default_lint_command"][1:3] == (
            "'python3 -m pyflakes shop'",
            ".ipuaro/project.json",
        )
        assert rows["user.ask_budget"][1:3] == ("—", "not set")
        done = await run("/memory set project.default_test_command python3 -m pytest -q")
        assert done.kind == "success"  # type: ignore[attr-defined]
        assert project_json(project)["default_test_command"] == "python3 -m pytest -q"
        await run("/memory set user.ask_budget 1")
        await run("/memory set project.src_roots shop lib")
        assert json.loads(user_prefs().read_text()) == {"ask_budget": 1}
        assert project_json(project)["src_roots"] == ["shop", "lib"]
        rows = {row[0]: row for row in (await run("/memory show")).tables[0].rows}  # type: ignore[attr-defined]
        assert rows["user.ask_budget"][1:3] == ("1", str(user_prefs()))
        bad = await run("/memory set user.ask_budget lots")
        assert bad.kind == "error" and "whole number 0..2" in bad.text  # type: ignore[attr-defined]
        unknown = await run("/memory set sandbox.network on")
        assert unknown.kind == "error" and "unknown memory key" in unknown.text  # type: ignore[attr-defined]
        await run("/memory unset project.default_lint_command")
        assert "lint" not in project_json(project)
        usage = await run("/memory unset")
        assert "usage: /memory unset KEY" in usage.text  # type: ignore[attr-defined]


async def test_a_broken_project_file_is_named_at_start_and_never_written(
    project: Path, server: ModelStubServer
) -> None:
    path = project / ".ipuaro" / "project.json"
    path.write_text('{"default_test_command": "pytest -q" "lint": 1}')
    before = path.read_bytes()
    async with open_workspace(project, server, index=False) as opened:
        ws = opened.workspace
        (warning,) = [w for w in ws.warnings if "project.json" in w]
        assert warning.startswith(".ipuaro/project.json: not valid JSON (line 1")
        shown = await run_operation(ws, parse_command("/memory"))
        assert shown.kind == "warning" and "not valid JSON" in shown.text
        refused = await ws.set_memory("project.ci_notes", "nightly")
        assert not refused.applied and refused.error is not None
        assert refused.error.startswith("not changed: .ipuaro/project.json: not valid JSON")
    assert path.read_bytes() == before


async def test_headless_writes_memory_only_with_remember(
    project: Path, server: ModelStubServer
) -> None:
    before = (project / ".ipuaro" / "project.json").read_bytes()
    for flag in (False, True):
        server.responder = ScriptedModel(
            [
                call("remember", memory_patch={"project.ci_notes": "CI runs tox"}),
                ScriptedReply(text="done"),
            ]
        )
        out, err = io.StringIO(), io.StringIO()
        options = HeadlessOptions(
            prompt="remember CI runs tox", output="json", new_session=True, remember=flag
        )
        code = await run_headless(project, config_for(project, server), options, out, err)
        result = json.loads(out.getvalue())
        assert code == 0, err.getvalue()
        if not flag:
            assert result["refusals"] == [
                "remember: not remembered: the user declined (allow memory changes with --remember)"
            ]
            assert (project / ".ipuaro" / "project.json").read_bytes() == before
        else:
            assert result["refusals"] == []
            assert project_json(project)["ci_notes"] == "CI runs tox"
