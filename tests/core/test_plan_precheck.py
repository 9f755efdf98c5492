"""Plans are checked when read, through the real plan flow (stub server, real project): a plan
apply would refuse goes to the repair turn with its ERR_ code instead of being shown; a fragment
becomes the whole file; a reply with two plans gives the last."""

from __future__ import annotations

import json
from pathlib import Path

from tests.core.conftest import open_workspace
from tests.core.test_plan_flow import FINAL_PLAN, asks, reply, user_texts
from tests.stubs.model_server import ModelStubServer, ScriptedReply

READ_PRICING = asks({"type": "read_file", "path": "shop/pricing.py"})


def with_actions(*actions: dict[str, str]) -> dict[str, object]:
    return {**FINAL_PLAN, "proposed_changes": {"actions": list(actions), "commands_to_run": []}}


async def test_a_plan_apply_would_refuse_is_repaired_before_it_is_shown(
    project: Path, server: ModelStubServer
) -> None:
    bad = with_actions({"kind": "CREATE_FILE", "path": "../outside.txt", "content": "x"})
    steps = [reply(bad), reply(FINAL_PLAN)]
    async with open_workspace(project, server, steps) as opened:
        outcome = await opened.workspace.plan("add a note")
        repair = user_texts(opened.model.bodies[1])[-1]
        shown = [e for e in opened.of_type("plan_updated")]
    assert "ERR_PATH_DOT_SEGMENT: action 1 (CREATE_FILE ../outside.txt)" in repair
    assert outcome.plan is not None and outcome.plan.summary == FINAL_PLAN["summary"]
    assert len(shown) == 1 and shown[0].plan.proposed_changes.actions[0].path == "shop/limits.py"


async def test_a_plan_still_refused_after_the_repair_is_no_plan(
    project: Path, server: ModelStubServer
) -> None:
    env = with_actions({"kind": "UPDATE_FILE", "path": ".env", "content": "X=1\n"})
    async with open_workspace(project, server, [reply(env), reply(env)]) as opened:
        outcome = await opened.workspace.plan("set X")
        stored = opened.workspace.last_plan()
    assert outcome.plan is None and stored is None
    assert "ERR_PATH_PROTECTED" in (outcome.end.detail or "")


async def test_a_fragment_update_is_stored_as_the_whole_merged_file(
    project: Path, server: ModelStubServer
) -> None:
    pricing = (project / "shop/pricing.py").read_text()
    fragment = (
        "# ... existing code ...\nfrom __future__ import annotations\n\n"
        "MAX_DISCOUNT_PERCENT = 40\n\n\n"
        "def apply_discount(amount: int, percent: int) -> int:\n"
        "# ... rest of the file unchanged ...\n"
    )
    plan = with_actions({"kind": "UPDATE_FILE", "path": "shop/pricing.py", "content": fragment})
    async with open_workspace(project, server, [READ_PRICING, reply(plan)]) as opened:
        outcome = await opened.workspace.plan("cap at 40")
        record = opened.workspace.last_plan()
    assert outcome.plan is not None and record is not None
    content = record.plan.proposed_changes.actions[0].content
    assert "elision markers; merged into the file" in outcome.end.answer
    assert content == pricing.replace("MAX_DISCOUNT_PERCENT = 50", "MAX_DISCOUNT_PERCENT = 40")


async def test_a_reply_with_two_plans_stores_the_last(
    project: Path, server: ModelStubServer
) -> None:
    draft = with_actions({"kind": "CREATE_FILE", "path": "draft.md", "content": "draft\n"})
    text = (
        f"Draft:\n```json\n{json.dumps(draft)}\n```\nWait… corrected plan:\n"
        f"```json\n{json.dumps(FINAL_PLAN)}\n```"
    )
    async with open_workspace(project, server, [ScriptedReply(text=text)]) as opened:
        outcome = await opened.workspace.plan("add a note")
        record = opened.workspace.last_plan()
    assert outcome.plan is not None and record is not None
    assert [a.path for a in record.plan.proposed_changes.actions] == [
        "shop/limits.py",
        "docs/pricing.md",
    ]
    assert "Note: the reply held 2 plans; the last one was taken" in outcome.end.answer
