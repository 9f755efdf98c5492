"""``ipuaro run --plan``: in process (events, stderr notes) and as a real process (exit codes,
``--output json`` carrying the validated plan object), against the real stub server."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

from ipuaro.headless import HeadlessOptions, run_headless
from tests.core.conftest import config_for
from tests.core.test_plan_flow import FINAL_PLAN, asks, reply
from tests.stubs.model_server import ModelStubServer, ScriptedReply


async def test_headless_plan_prints_rounds_and_the_plan_text(
    project: Path, server: ModelStubServer
) -> None:
    answers = [
        asks({"type": "read_file", "path": "shop/pricing.py"}),
        asks({"type": "env"}),
        reply(FINAL_PLAN),
    ]
    server.responder = lambda body: answers.pop(0)
    out, err = io.StringIO(), io.StringIO()
    options = HeadlessOptions(prompt="cap the discount", plan=True, new_session=True)
    code = await run_headless(project, config_for(project, server), options, out, err)
    assert code == 0, err.getvalue()
    assert "→ context round 1: FILE[shop/pricing.py] (18 lines)" in err.getvalue()
    assert "→ context round 2: ENV" in err.getvalue()
    text = out.getvalue()
    assert "Cap the discount at 40 %." in text
    assert "1. **Change the cap** — MAX_DISCOUNT_PERCENT = 40" in text
    assert "- test_discount_is_capped expects 500" in text


def run_cli(project: Path, server: ModelStubServer, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "IPUARO_LLM__BASE_URL": server.url,
        "IPUARO_LLM__CONTEXT_WINDOW": "32768",
        "IPUARO_WATCHDOG__ENABLED": "false",
    }
    return subprocess.run(
        [sys.executable, "-m", "ipuaro", "run", "--project", str(project), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_run_plan_output_json_prints_the_validated_plan_object(
    project: Path, server: ModelStubServer
) -> None:
    server.enqueue(reply(FINAL_PLAN, prose="Sure! "))
    done = run_cli(project, server, "--plan", "-p", "cap the discount", "--output", "json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["reason"] == "done"
    assert result["plan"] == FINAL_PLAN
    assert result["planSchema"]["version"] == 1
    assert len(result["planSchema"]["hash"]) == 64


def test_run_plan_without_a_valid_plan_exits_1_with_the_reason(
    project: Path, server: ModelStubServer
) -> None:
    server.enqueue(ScriptedReply(text="no json here"), ScriptedReply(text="still none"))
    done = run_cli(project, server, "--plan", "-p", "cap the discount", "--output", "json")
    assert done.returncode == 1, done.stderr
    result = json.loads(done.stdout)
    assert result["plan"] is None
    assert result["detail"].startswith("no plan: the model's plan is still not valid")


def test_run_plan_refuses_eval_and_a_missing_prompt(project: Path) -> None:
    both = subprocess.run(
        [sys.executable, "-m", "ipuaro", "run", "--plan", "--eval", "-p", "x"],
        capture_output=True,
        text=True,
        cwd=project,
        timeout=60,
    )
    assert both.returncode != 0
    assert "--plan and --eval exclude each other" in both.stderr
