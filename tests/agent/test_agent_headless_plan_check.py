"""``ipuaro run --plan`` (in process, real workspace, the stub model server) does not accept a
plan ``--apply`` would always reject, and ``--apply``'s refusal is printed once, whole.

An empty plan goes back to the model once (``ERR_EMPTY_PLAN`` in the repair turn); one that
only asks the user questions is kept, and ``--apply`` refuses it."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any

from ipuaro.config.loader import load_config
from ipuaro.headless import HeadlessOptions, run_headless
from tests.agent.conftest import ScriptedModel
from tests.stubs.model_server import ModelStubServer, ScriptedReply

EMPTY_PLAN = {
    "mode": "fix-plan",
    "summary": "Add a changelog",
    "questions": [],
    "context_requests": [],
    "plan": [{"step": "Write CHANGELOG.md", "details": "one heading"}],
    "proposed_changes": {"actions": [], "commands_to_run": []},
    "risks": [],
    "memory_patch": {},
}


def _run(project: Path, server: ModelStubServer, **options: Any) -> tuple[int, str, str]:
    config = load_config(project, {"llm.baseUrl": server.url, "llm.contextWindow": 32768})
    out, err = io.StringIO(), io.StringIO()
    chosen = HeadlessOptions(**options)
    code = asyncio.run(run_headless(project, config, chosen, out, err))
    return code, out.getvalue(), err.getvalue()


def test_plan_rejects_a_plan_apply_would_reject(
    project: Path, model_server: ModelStubServer
) -> None:
    model = ScriptedModel([ScriptedReply(text=json.dumps(EMPTY_PLAN))], repeat_last=True)
    model_server.responder = model
    code, out, err = _run(project, model_server, prompt="add a changelog", plan=True, output="json")
    result = json.loads(out)
    assert (code, result["reason"], result["exitCode"]) == (1, "error", 1), err
    assert "ERR_EMPTY_PLAN" in result["detail"]
    assert result["plan"] is None  # no valid plan came
    # The model was told once what was missing before the run gave up.
    [_, repair] = model.agent_bodies
    asked = repair["messages"][-1]["content"]
    assert "ERR_EMPTY_PLAN" in asked and "proposed_changes.actions" in asked
    assert "NO_CHANGES:" in asked


def test_a_second_reply_with_the_actions_is_the_plan(
    project: Path, model_server: ModelStubServer
) -> None:
    actions = [{"kind": "CREATE_FILE", "path": "CHANGELOG.md", "content": "# Changes\n"}]
    fixed = {**EMPTY_PLAN, "proposed_changes": {"actions": actions, "commands_to_run": []}}
    model_server.responder = ScriptedModel(
        [ScriptedReply(text=json.dumps(EMPTY_PLAN)), ScriptedReply(text=json.dumps(fixed))]
    )
    code, out, err = _run(project, model_server, prompt="add a changelog", plan=True, output="json")
    result = json.loads(out)
    assert (code, result["reason"]) == (0, "done"), err
    assert result["plan"]["proposed_changes"]["actions"] == actions


def test_apply_prints_its_refusal_once_and_whole(
    project: Path, model_server: ModelStubServer
) -> None:
    asking = {**EMPTY_PLAN, "questions": ["Which versions should the changelog cover?"]}
    model_server.responder = ScriptedModel([ScriptedReply(text=json.dumps(asking))])
    code, out, _ = _run(project, model_server, prompt="add a changelog", plan=True, output="json")
    assert (code, json.loads(out)["plan"]) == (1, None)  # kept with the session, not accepted
    code, out, err = _run(project, model_server, prompt="", apply=True, auto_apply=True)
    assert code == 1
    both = out + err
    assert both.count("ERR_EMPTY_PLAN") == 1, both  # on stdout, whole; stderr does not repeat it
    assert "ask for the change again" in out
    assert "ipuaro: stopped (error)" in err
    code, out, _ = _run(project, model_server, prompt="", apply=True, output="json")
    detail = json.loads(out)["detail"]
    assert detail.startswith("ERR_EMPTY_PLAN: ") and detail.endswith("ask for the change again")
