"""Hooks end to end with real processes: a pre_tool hook blocks an edit and the model reads
why; a hook that hangs past its timeout is stopped, reported, and the run finishes; every
event reaches its hooks as JSON on stdin."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from ipuaro.core.decisions import ConfirmChange
from ipuaro.core.events import ExtensionWarning, ToolCallEnd
from tests.agent.conftest import call, tool_outputs
from tests.core.conftest import RecordingDecider, open_workspace
from tests.extensions.conftest import PYTHON, write_program, write_user_config
from tests.stubs.model_server import ModelStubServer, ScriptedReply

GUARD = """\
import json, sys
event = json.load(sys.stdin)
path = event["arguments"].get("path", "")
if path.startswith("shop/"):
    print(f"{path} is frozen until the release; put new code in web/", file=sys.stderr)
    sys.exit(2)
"""

RECORD = """\
import json, sys
event = json.load(sys.stdin)
with open("hook-log.jsonl", "a") as log:
    log.write(json.dumps(event) + "\\n")
"""


def _hook(script: str, **extra: Any) -> dict[str, Any]:
    return {"argv": [PYTHON, script], **extra}


async def test_a_pre_tool_hook_blocks_an_edit_and_the_model_sees_the_reason(
    project: Path, server: ModelStubServer
) -> None:
    guard = write_program(project, "guard.py", GUARD)
    write_user_config({"extensions": {"hooks": {"preTool": [_hook(guard, tools=["create_*"])]}}})
    steps = [
        call("create_file", path="shop/new.py", content="x = 1\n"),
        call("create_file", path="web/new.py", content="x = 1\n"),
        ScriptedReply(text="Put it in web/."),
    ]
    decider = RecordingDecider({ConfirmChange: "apply"})
    async with open_workspace(project, server, steps, decider=decider) as opened:
        end = await opened.workspace.send("add a module")
    assert end.reason == "done"
    assert not (project / "shop" / "new.py").exists()
    assert (project / "web" / "new.py").read_text() == "x = 1\n"  # not blocked: exit 0
    blocked, allowed = [e for e in opened.events if isinstance(e, ToolCallEnd)]
    assert blocked.result.refused and not allowed.result.refused
    second = opened.model.agent_bodies[1]
    (said,) = tool_outputs(second)
    assert "blocked by a pre_tool hook" in said
    assert "shop/new.py is frozen until the release; put new code in web/" in said
    assert len(decider.of(ConfirmChange)) == 1, "a blocked edit is never put to the user"


async def test_a_hook_that_hangs_is_stopped_reported_and_the_run_finishes(
    project: Path, server: ModelStubServer
) -> None:
    hang = write_program(project, "hang.py", "import time\ntime.sleep(60)\n")
    broken = write_program(project, "broken.py", "import sys\nprint('boom', file=sys.stderr)\n"
                           "sys.exit(1)\n")  # fmt: skip
    hooks = {
        "userPrompt": [_hook(hang, timeout=0.5)],
        "preTool": [_hook(broken)],
        "agentEnd": [{"argv": ["/no/such/program"]}],
    }
    write_user_config({"extensions": {"hooks": hooks}})
    steps = [call("get_lines", path="shop/cart.py", start=1, end=3), ScriptedReply(text="ok")]
    async with open_workspace(project, server, steps) as opened:
        # The hook sleeps 60 s and is stopped at its 0.5 s timeout (45 s only guards a hang).
        end = await asyncio.wait_for(opened.workspace.send("read the cart"), 45)
    assert end.reason == "done" and end.answer == "ok"
    (ended,) = [e for e in opened.events if isinstance(e, ToolCallEnd)]
    assert ended.result.success, "a failing pre_tool hook (not exit 2) does not block"
    warnings = [e.message for e in opened.events if isinstance(e, ExtensionWarning)]
    assert len(warnings) == 3
    assert "hook user_prompt" in warnings[0] and "0.5s timeout and was stopped" in warnings[0]
    assert "hook pre_tool" in warnings[1] and "exit code 1: boom" in warnings[1]
    assert "hook agent_end" in warnings[2] and "could not start" in warnings[2]


async def test_every_event_reaches_its_hooks_as_json(
    project: Path, server: ModelStubServer
) -> None:
    record = write_program(project, "record.py", RECORD)
    events = ("sessionStart", "userPrompt", "preTool", "postTool", "agentEnd")
    write_user_config({"extensions": {"hooks": {e: [_hook(record)] for e in events}}})
    steps = [call("get_lines", path="shop/cart.py", start=1, end=2), ScriptedReply(text="done")]
    async with open_workspace(project, server, steps) as opened:
        await opened.workspace.send("peek")
        session_id = opened.workspace.session_id
    logged = [json.loads(line) for line in (project / "hook-log.jsonl").read_text().splitlines()]
    kinds = [entry["event"] for entry in logged]
    assert kinds == ["session_start", "user_prompt", "pre_tool", "post_tool", "agent_end"]
    assert all(entry["sessionId"] == session_id for entry in logged)
    assert all(entry["project"] == str(project.resolve()) for entry in logged)
    assert logged[1]["prompt"] == "peek"
    assert logged[2]["tool"] == "get_lines" and logged[2]["arguments"]["path"] == "shop/cart.py"
    assert logged[3]["result"]["success"] and "The shopping cart" in logged[3]["result"]["content"]
    assert logged[4]["reason"] == "done" and logged[4]["answer"] == "done"


async def test_a_session_start_failure_is_among_the_start_warnings(
    project: Path, server: ModelStubServer
) -> None:
    write_user_config({"extensions": {"hooks": {"sessionStart": [{"argv": ["false"]}]}}})
    async with open_workspace(project, server, [ScriptedReply(text="hi")]) as opened:
        warnings = opened.workspace.warnings
    assert any("hook session_start `false` failed with exit code 1" in w for w in warnings)
