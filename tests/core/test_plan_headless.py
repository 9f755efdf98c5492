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
from ipuaro.planning.schema import SCHEMA_VERSION
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
    assert result["planSchema"]["version"] == SCHEMA_VERSION
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


def snapshot(root: Path) -> dict[str, bytes | None]:
    return {
        p.relative_to(root).as_posix(): (p.read_bytes() if p.is_file() else None)
        for p in sorted(root.rglob("*"))
        if not {".git", ".ipuaro"} & set(p.relative_to(root).parts)
    }


async def test_headless_plan_two_rounds_ok_one_transaction_and_one_undo_restores_every_byte(
    project: Path, server: ModelStubServer
) -> None:
    """The whole story headless, as a script would run it: `run --plan` (two context rounds) in
    one process, `run --apply --auto-apply` in another (ONE multi-file change, written as one
    transaction), then one undo of the session restores every file byte for byte."""
    from ipuaro.core.workspace import WorkspaceOptions
    from tests.core.conftest import open_workspace

    pricing = (project / "shop/pricing.py").read_bytes().decode()
    cart = (project / "shop/cart.py").read_bytes().decode()
    final = {
        **FINAL_PLAN,
        "proposed_changes": {
            "actions": [
                {"kind": "CREATE_DIR", "path": "docs"},
                {"kind": "UPDATE_FILE", "path": "shop/pricing.py",
                 "content": pricing.replace("= 50", "= 40")},
                {"kind": "UPDATE_FILE", "path": "shop/cart.py",
                 "content": cart + "\n# discount capped at 40 %\n"},
                {"kind": "CREATE_FILE", "path": "docs/pricing.md", "content": "# Pricing\n"},
            ],
            "commands_to_run": [],
        },
    }  # fmt: skip
    server.enqueue(
        asks({"type": "read_file", "path": "shop/pricing.py"}),
        asks({"type": "read_file", "path": "shop/cart.py"}, {"type": "search", "query": "cap"}),
        reply(final),
    )
    before = snapshot(project)
    planned = run_cli(project, server, "--plan", "-p", "cap the discount at 40", "--output", "json")
    assert planned.returncode == 0, planned.stderr
    session = json.loads(planned.stdout)["sessionId"]
    assert len(server.chat_requests()) == 3
    assert snapshot(project) == before  # planning wrote nothing

    applied = run_cli(project, server, "--apply", "--auto-apply", "--output", "json")
    assert applied.returncode == 0, applied.stderr + applied.stdout
    result = json.loads(applied.stdout)
    assert result["sessionId"] == session
    assert sorted(result["changes"]) == ["docs/pricing.md", "shop/cart.py", "shop/pricing.py"]
    assert "MAX_DISCOUNT_PERCENT = 40" in (project / "shop/pricing.py").read_text()
    assert len(server.chat_requests()) == 3  # applying asks the model nothing

    async with open_workspace(
        project, server, [], options=WorkspaceOptions(session_id=session), index=False
    ) as opened:
        undone = await opened.workspace.undo()
        assert undone.done, undone.message
        assert snapshot(project) == before
        assert not (await opened.workspace.undo()).done  # it was ONE undo step
