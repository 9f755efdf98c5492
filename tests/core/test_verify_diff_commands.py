"""``/verify`` and ``/diff`` through the core's command table (what the TUI and ACP run): the
remembered test command as a real process, and the session's edits as one diff."""

from __future__ import annotations

from pathlib import Path

from ipuaro.core.commands import parse_command, run_operation
from tests.agent.conftest import call
from tests.core.conftest import open_workspace
from tests.stubs.model_server import ModelStubServer, ScriptedReply

CAP = "MAX_DISCOUNT_PERCENT = {}"


async def test_verify_runs_the_remembered_test_command(
    project: Path, server: ModelStubServer
) -> None:
    async with open_workspace(project, server) as opened:
        passed = await run_operation(opened.workspace, parse_command("/verify test"))
        assert passed.kind == "success", passed.text
        assert passed.text.startswith("test: passed") and "Ran 3 tests" in passed.text
        pricing = project / "shop" / "pricing.py"
        pricing.write_text(pricing.read_text().replace(CAP.format(50), CAP.format(60)))
        failed = await run_operation(opened.workspace, parse_command("/verify test"))
        assert failed.kind == "error" and failed.text.startswith("test: FAILED")
        assert "test_discount_is_capped" in failed.text


async def test_verify_without_remembered_commands_says_how_to_set_one(
    project: Path, server: ModelStubServer
) -> None:
    (project / ".ipuaro" / "project.json").write_text("{}")
    async with open_workspace(project, server) as opened:
        reply = await run_operation(opened.workspace, parse_command("/verify"))
    assert reply.kind == "warning" and "/memory set project.default_test_command" in reply.text


async def test_diff_shows_the_edits_of_the_session(project: Path, server: ModelStubServer) -> None:
    steps = [
        call("replace", path="shop/pricing.py", old=CAP.format(50), new=CAP.format(40)),
        ScriptedReply(text="Lowered."),
    ]
    async with open_workspace(project, server, steps, **{"edit.autoApply": True}) as opened:
        before = await run_operation(opened.workspace, parse_command("/diff"))
        assert before.text.startswith("ipuaro changed nothing")
        end = await opened.workspace.send("lower the cap")
        assert end.reason == "done", end.detail
        reply = await run_operation(opened.workspace, parse_command("/diff"))
    assert f"-{CAP.format(50)}\n+{CAP.format(40)}\n" in reply.text
    assert reply.text.startswith("the changes of the last 1 undo step(s)")
