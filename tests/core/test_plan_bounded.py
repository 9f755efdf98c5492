"""Plan mode's replies are bounded: the plan cap goes out with every plan request, the context
meter moves while the plan streams, a looping plan is cut, and the repair turn fits the window
and names the real cause (the real stub server, project and store)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ipuaro.core.events import ContextUpdate, PlanUpdated
from tests.core.conftest import open_workspace
from tests.core.test_plan_flow import FINAL_PLAN, reply, user_texts
from tests.stubs.model_server import ModelStubServer, ScriptedReply


def assistant_texts(body: dict[str, Any]) -> list[str]:
    return [str(m.get("content")) for m in body["messages"] if m.get("role") == "assistant"]


async def test_plan_requests_carry_the_plan_cap_and_the_meter_moves_while_it_streams(
    project: Path, server: ModelStubServer
) -> None:
    steps = [ScriptedReply(text=json.dumps(FINAL_PLAN), chunks=20)]
    async with open_workspace(project, server, steps) as opened:
        outcome = await opened.workspace.plan("cap the discount")
        assert outcome.plan is not None, outcome.end.detail
        [body] = opened.model.bodies
        assert body["options"]["num_predict"] == 3072  # plan.maxReplyTokens' default
        events = opened.events
        planned = next(i for i, e in enumerate(events) if isinstance(e, PlanUpdated))
        meter = [e for e in events[:planned] if isinstance(e, ContextUpdate)]
        assert len(meter) >= 2, "the context meter moves while the plan streams"
        used = [e.tokens_used for e in meter]
        assert used == sorted(used) and used[0] < used[-1]
        assert {e.tokens_limit for e in meter} == {32_768}


async def test_a_looping_plan_is_cut_and_the_repair_fits_and_says_why(
    project: Path, server: ModelStubServer
) -> None:
    runaway = '{"mode": "fix-plan", "summary": "' + "and then check it again " * 2000
    steps = [ScriptedReply(text=runaway, chunks=800), reply(FINAL_PLAN)]
    async with open_workspace(project, server, steps) as opened:
        outcome = await opened.workspace.plan("cap the discount")
        assert outcome.plan is not None, outcome.end.detail
        repair_body = opened.model.bodies[1]
        [echo] = assistant_texts(repair_body)
        assert len(echo) <= 4000  # REPAIR_ECHO_CHARS: never the runaway reply whole
        repair = user_texts(repair_body)[-1]
        assert "the reply was cut: it repeated the same 24 characters" in repair
        assert "You repeated yourself" in repair


async def test_a_plan_cut_at_the_cap_twice_fails_naming_the_cap(
    project: Path, server: ModelStubServer
) -> None:
    half = ScriptedReply(
        text='{"mode": "fix-plan", "summary": "the first half', done_reason="length"
    )
    steps = [half, ScriptedReply(text=half.text, done_reason="length")]
    async with open_workspace(project, server, steps, **{"plan.maxReplyTokens": 500}) as opened:
        outcome = await opened.workspace.plan("cap the discount")
        assert outcome.plan is None and outcome.end.reason == "error"
        detail = outcome.end.detail or ""
        assert "still not valid after one repair" in detail
        assert "the reply was cut off at the token cap (500 tokens)" in detail
        repair = user_texts(opened.model.bodies[1])[-1]
        assert "the reply was cut off at the token cap (500 tokens)" in repair
        assert "Be brief" in repair
        assert all(b["options"]["num_predict"] == 500 for b in opened.model.bodies)
