"""Plan mode through the core: the real stub server, a real project and store; the model's
replies are scripted JSON, everything else (extraction, validation, context rounds, the diet,
the stored record, the events) is the real code."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from ipuaro.core.workspace import WorkspaceOptions
from ipuaro.planning.schema import SCHEMA_VERSION
from tests.core.conftest import open_workspace
from tests.stubs.model_server import ModelStubServer, ScriptedReply

FINAL_PLAN = {
    "mode": "fix-plan",
    "summary": "Cap the discount at 40 %.",
    "questions": [],
    "context_requests": [],
    "plan": [
        {"step": "Change the cap", "details": "MAX_DISCOUNT_PERCENT = 40"},
        {"step": "Check", "details": "run the cart tests"},
    ],
    "proposed_changes": {
        "actions": [
            {"kind": "CREATE_FILE", "path": "shop/limits.py", "content": "MAX = 40\n"},
            {"kind": "CREATE_FILE", "path": "docs/pricing.md", "content": "# Pricing\n"},
        ],
        "commands_to_run": ["python -m unittest tests.cart_checks"],
    },
    "risks": ["test_discount_is_capped expects 500"],
    "memory_patch": {"project.default_test_command": "python -m unittest"},
}
"""A plan every check passes without reading a file (apply's checks run when a plan is read:
an UPDATE_FILE of a file the model never read goes to the repair turn)."""
UPDATE_PLAN = {
    **FINAL_PLAN,
    "proposed_changes": {
        **FINAL_PLAN["proposed_changes"],  # type: ignore[dict-item]
        "actions": [
            {"kind": "UPDATE_FILE", "path": "shop/pricing.py", "content": "MAX = 40\n"},
            {"kind": "CREATE_FILE", "path": "docs/pricing.md", "content": "# Pricing\n"},
        ],
    },
}
"""FINAL_PLAN updating shop/pricing.py: valid once the model has read that file."""


def reply(document: Any, prose: str = "") -> ScriptedReply:
    text = json.dumps(document)
    return ScriptedReply(text=f"{prose}```json\n{text}\n```" if prose else text)


def asks(*requests: dict[str, Any]) -> ScriptedReply:
    return reply(
        {"mode": "fix-plan", "summary": "need context", "context_requests": list(requests)}
    )


def user_texts(body: dict[str, Any]) -> list[str]:
    return [str(m.get("content")) for m in body["messages"] if m.get("role") == "user"]


async def test_two_context_rounds_then_a_stored_plan(
    project: Path, server: ModelStubServer
) -> None:
    steps = [
        asks({"type": "read_file", "path": "shop/pricing.py"}),
        asks(
            {"type": "search", "query": "apply_discount", "glob": "**/*.py"},
            {"type": "read_file", "path": "shop/pricing.py"},
        ),
        reply(UPDATE_PLAN),
    ]
    async with open_workspace(project, server, steps) as opened:
        workspace = opened.workspace
        end = await workspace.send("plan: lower the discount cap to 40 %")
        assert end.reason == "done", end.detail
        bodies = opened.model.bodies
        assert len(bodies) == 3
        # Plan calls offer no tools and carry the schema (Ollama: `format`).
        assert all("tools" not in b for b in bodies)
        assert bodies[0]["format"]["x_schema_version"] == SCHEMA_VERSION
        system = bodies[0]["messages"][0]["content"]
        assert f"schema version {SCHEMA_VERSION}" in system
        round_one = user_texts(bodies[1])[-1]
        assert round_one.startswith("FULFILLED_CONTEXT (round 1)")
        assert "FILE[shop/pricing.py] (18 lines)" in round_one
        assert "MAX_DISCOUNT_PERCENT = 50" in round_one
        round_two = user_texts(bodies[2])[-1]
        assert 'SEARCH "apply_discount" in **/*.py' in round_two
        assert "tests/cart_checks.py:" in round_two
        assert "No more context rounds" in round_two

        rounds = opened.of_type("plan_context_round")
        assert [r.number for r in rounds] == [1, 2]
        updated = opened.of_type("plan_updated")
        assert len(updated) == 1
        assert updated[0].document["proposed_changes"]["actions"][1]["path"] == "docs/pricing.md"
        assert updated[0].memory_patch == {"project.default_test_command": "python -m unittest"}
        assert "Cap the discount at 40 %." in end.answer
        assert "~ shop/pricing.py (UPDATE_FILE, 1 line)" in end.answer

        record = workspace.last_plan()
        assert record is not None
        assert record.request == "lower the discount cap to 40 %"
        text = (project / "shop/pricing.py").read_bytes()
        assert record.read_files == {"shop/pricing.py": hashlib.sha256(text).hexdigest()}
        assert record.plan.proposed_changes.actions[0].kind == "UPDATE_FILE"
        session_id = workspace.session_id

    # A later process finds the plan with the session.
    async with open_workspace(
        project, server, [], options=WorkspaceOptions(session_id=session_id), index=False
    ) as again:
        stored = again.workspace.last_plan()
        assert stored is not None
        assert stored.plan.summary == "Cap the discount at 40 %."


async def test_prose_wrapped_json_is_extracted_and_an_invalid_reply_is_repaired_once(
    project: Path, server: ModelStubServer
) -> None:
    broken = {"mode": "fix-plan", "summary": "x", "questions": ["a", "b", "c"]}
    steps = [reply(broken, prose="Here is the plan:\n"), reply(FINAL_PLAN, prose="Fixed:\n")]
    async with open_workspace(project, server, steps) as opened:
        end = await opened.workspace.plan("cap the discount")
        assert end.plan is not None, end.end.detail
        assert end.end.reason == "done"
        repair = user_texts(opened.model.bodies[1])[-1]
        assert "$.questions: ['a', 'b', 'c'] is too long" in repair


async def test_a_second_invalid_reply_is_a_clear_error_and_no_plan_is_stored(
    project: Path, server: ModelStubServer
) -> None:
    steps = [ScriptedReply(text="I think we should change it."), reply([{"kind": "NOPE"}])]
    async with open_workspace(project, server, steps) as opened:
        outcome = await opened.workspace.plan("cap the discount")
        assert outcome.plan is None
        assert outcome.end.reason == "error"
        assert outcome.end.detail is not None
        assert "still not valid after one repair" in outcome.end.detail
        assert "$.proposed_changes.actions[0].kind: 'NOPE' is not one of" in outcome.end.detail
        assert outcome.raw == '[{"kind": "NOPE"}]'
        assert opened.workspace.last_plan() is None


async def test_older_shapes_are_accepted(project: Path, server: ModelStubServer) -> None:
    bare = [{"kind": "CREATE_DIR", "path": "docs"}]
    rooted = {"actions": bare, "summary": "NO_CHANGES: nothing to do", "memory_patch": {}}
    async with open_workspace(project, server, [reply(bare), reply(rooted)]) as opened:
        first = await opened.workspace.plan("make a docs folder")
        assert first.plan is not None
        assert first.plan.proposed_changes.actions[0].path == "docs"
        second = await opened.workspace.plan("anything to do?")
        assert second.plan is not None
        assert second.plan.summary.startswith("NO_CHANGES:")


async def test_plan_mode_routes_every_request_and_a_traceback_pulls_its_frames(
    project: Path, server: ModelStubServer
) -> None:
    traceback = (
        "it crashes:\nTraceback (most recent call last):\n"
        f'  File "{project}/shop/pricing.py", line 12, in apply_discount\n'
        '  File "/usr/lib/python3.11/site-packages/x.py", line 3, in f\n'
        "ValueError: a discount cannot be negative"
    )
    async with open_workspace(project, server, [reply(FINAL_PLAN)]) as opened:
        workspace = opened.workspace
        workspace.set_plan_mode(True)
        end = await workspace.send(traceback)
        assert end.reason == "done"
        first = user_texts(opened.model.bodies[0])[-1]
        assert "AUTO_CONTEXT" in first
        assert "FILE[shop/pricing.py] lines 1-18 of 18" in first
        assert "site-packages" not in first.split("AUTO_CONTEXT", 1)[1]
        auto = opened.of_type("plan_context_round")
        assert auto[0].number == 0


async def test_interrupting_a_plan_ends_it_at_once_and_keeps_nothing(
    project: Path, server: ModelStubServer
) -> None:
    import asyncio

    from ipuaro.core.errors import WorkspaceBusy

    slow = ScriptedReply(text=json.dumps(FINAL_PLAN), first_token_delay=30.0)
    async with open_workspace(project, server, [slow]) as opened:
        workspace = opened.workspace
        task = asyncio.create_task(workspace.send("plan: cap the discount"))
        while not opened.of_type("turn_start"):
            await asyncio.sleep(0.01)
        assert workspace.busy
        try:
            await workspace.send("something else")
        except WorkspaceBusy as busy:
            assert "a plan is being made" in str(busy)
        else:
            raise AssertionError("a second request ran beside the plan")
        workspace.abort()
        end = await asyncio.wait_for(task, 30)
        assert end.reason == "aborted"
        assert workspace.last_plan() is None
        assert not workspace.busy
        assert workspace.history()[-1].content == "plan: cap the discount"


async def test_auto_context_cuts_are_told_to_the_user_and_the_model(
    project: Path, server: ModelStubServer
) -> None:
    big = project / "shop" / "big.py"
    big.write_text("".join(f"value_{n} = {n}\n" for n in range(200)))
    request = f'boom\n  File "{big}", line 100, in <module>\nKeyError: 3'
    async with open_workspace(
        project, server, [reply(FINAL_PLAN)], **{"plan.maxFileChars": 1000}
    ) as opened:
        end = await opened.workspace.send(f"plan: {request}")
        assert end.reason == "done"
        [auto] = opened.of_type("plan_context_round")
        assert auto.number == 0 and auto.blocks == ("FILE[shop/big.py] lines 20-180 of 200",)
        assert auto.cuts[0].startswith("shop/big.py: cut to its first and last lines")
        first = user_texts(opened.model.bodies[0])[-1]
        assert "CONTEXT_NOTES (what the app cut to fit its limits):\n- shop/big.py: cut" in first
        assert "...[TRUNCATED" in first


async def test_a_second_plan_request_sees_the_previous_plan_to_refine_it(
    project: Path, server: ModelStubServer
) -> None:
    revised = {**FINAL_PLAN, "summary": "Cap the discount at 35 %."}
    async with open_workspace(project, server, [reply(FINAL_PLAN), reply(revised)]) as opened:
        workspace = opened.workspace
        await workspace.plan("cap the discount at 40 %")
        first = user_texts(opened.model.bodies[0])[-1]
        assert first.startswith("REQUEST:")  # a fresh session has no previous plan
        await workspace.plan("make it 35 % instead")
        second = user_texts(opened.model.bodies[1])[-1]
        assert second.startswith("PREVIOUS_PLAN (your last plan in this session")
        assert '"summary": "Cap the discount at 40 %."' in second
        assert second.index("PREVIOUS_PLAN") < second.index("REQUEST:\nmake it 35 % instead")
        record = workspace.last_plan()
        assert record is not None and record.plan.summary == "Cap the discount at 35 %."


async def test_a_plans_memory_patch_is_asked_and_written_only_when_confirmed(
    project: Path, server: ModelStubServer
) -> None:
    from ipuaro.core.decisions import ApplyMemory
    from ipuaro.memory import project_file
    from tests.core.conftest import RecordingDecider

    patch = {"project.default_test_command": "python -m unittest", "user.colour": "red"}
    plan = {"mode": "fix-plan", "summary": "NO_CHANGES: nothing to do", "memory_patch": patch}
    for answer, written in (("reject", False), ("apply", True)):
        decider = RecordingDecider(answers={ApplyMemory: answer})
        async with open_workspace(project, server, [reply(plan)], decider=decider) as opened:
            end = await opened.workspace.send("plan: check the tests")
        assert end.reason == "done", end.answer
        (asked,) = decider.of(ApplyMemory)
        assert asked.source == "plan"
        assert [key for key, _old, _new in asked.changes] == ["project.default_test_command"]
        assert any("user.colour" in note for note in asked.notes), "off the whitelist: said"
        stored = project_file(project)
        remembered = stored.is_file() and "python -m unittest" in stored.read_text()
        assert remembered is written
