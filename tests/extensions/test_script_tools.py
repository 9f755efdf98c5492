"""Script tools end to end: the scripted model calls a real program through the workspace, the
program gets its arguments (stdin JSON, IPUARO_ARG_* and argv), and its output reaches the
next model request. Bad declarations are skipped with a warning; the policy still refuses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ipuaro.core.decisions import RecoverError
from ipuaro.core.events import ToolCallEnd
from tests.agent.conftest import call, tool_outputs
from tests.core.conftest import RecordingDecider, open_workspace
from tests.extensions.conftest import PYTHON, write_program, write_user_config
from tests.stubs.model_server import ModelStubServer, ScriptedReply

ECHO = """\
import json, os, sys
data = json.load(sys.stdin)
print("stdin:", json.dumps(data, sort_keys=True))
print("env:", os.environ.get("IPUARO_ARG_PATH"), os.environ.get("IPUARO_ARG_COUNT"))
print("argv:", sys.argv[1:])
print("secret:", os.environ.get("SHOP_API_KEY", "hidden"))
"""

SCHEMA = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "file to inspect"},
        "count": {"type": "integer", "minimum": 1},
    },
    "required": ["path"],
}


def _tool(script: str, **extra: Any) -> dict[str, Any]:
    return {
        "description": "Echo the arguments back (a test tool).",
        "parameters": SCHEMA,
        "argv": [PYTHON, script, "--path", "{path}"],
        "readOnly": True,
        **extra,
    }


def _tools_offered(body: dict[str, Any]) -> set[str]:
    return {tool["function"]["name"] for tool in body.get("tools", [])}


async def test_the_model_calls_a_script_tool_and_reads_its_output(
    project: Path, server: ModelStubServer, monkeypatch: Any
) -> None:
    monkeypatch.setenv("SHOP_API_KEY", "sk-should-not-leak")
    script = write_program(project, "echo_args.py", ECHO)
    write_user_config({"extensions": {"tools": {"echo_args": _tool(script)}}})
    steps = [
        call("echo_args", path="shop/cart.py", count=3),
        ScriptedReply(text="The tool answered."),
    ]
    async with open_workspace(project, server, steps) as opened:
        end = await opened.workspace.send("inspect the cart")
    assert end.reason == "done"
    first, second = opened.model.agent_bodies[:2]
    offered = next(t for t in first["tools"] if t["function"]["name"] == "echo_args")
    assert offered["function"]["parameters"] == SCHEMA  # exactly the declared schema
    (output,) = tool_outputs(second)
    assert 'stdin: {"count": 3, "path": "shop/cart.py"}' in output
    assert "env: shop/cart.py 3" in output
    assert "argv: ['--path', 'shop/cart.py']" in output
    assert "secret: hidden" in output  # credentials never reach a script tool


async def test_arguments_that_break_the_schema_come_back_to_the_model(
    project: Path, server: ModelStubServer
) -> None:
    script = write_program(project, "echo_args.py", ECHO + "open('ran', 'w').write('1')\n")
    write_user_config({"extensions": {"tools": {"echo_args": _tool(script, readOnly=False)}}})
    steps = [call("echo_args", count=0), ScriptedReply(text="ok")]
    async with open_workspace(project, server, steps) as opened:
        await opened.workspace.send("inspect")
    (ended,) = [e for e in opened.events if isinstance(e, ToolCallEnd)]
    assert not ended.result.success
    assert "'path' is a required property" in (ended.result.error or "")
    assert "count: 0 is less than the minimum of 1" in (ended.result.error or "")
    assert not (project / "ran").exists()


async def test_a_value_that_would_read_as_an_option_is_refused(
    project: Path, server: ModelStubServer
) -> None:
    script = write_program(project, "echo_args.py", ECHO)
    write_user_config({"extensions": {"tools": {"echo_args": _tool(script)}}})
    steps = [call("echo_args", path="--help"), ScriptedReply(text="ok")]
    async with open_workspace(project, server, steps) as opened:
        await opened.workspace.send("inspect")
    (ended,) = [e for e in opened.events if isinstance(e, ToolCallEnd)]
    assert ended.result.refused and "starts with '-'" in (ended.result.error or "")


async def test_a_denied_command_is_refused_by_the_policy(
    project: Path, server: ModelStubServer
) -> None:
    tool = {"description": "wipe", "argv": ["rm", "-rf", "/"], "timeout": 5}
    write_user_config({"extensions": {"tools": {"wipe": tool}}})
    steps = [call("wipe"), ScriptedReply(text="ok")]
    async with open_workspace(project, server, steps) as opened:
        await opened.workspace.send("clean up")
    (ended,) = [e for e in opened.events if isinstance(e, ToolCallEnd)]
    assert ended.result.refused
    assert "refused by policy" in (ended.result.error or "")


async def test_a_script_tool_past_its_timeout_is_killed_and_reported(
    project: Path, server: ModelStubServer
) -> None:
    script = write_program(project, "slow.py", "import time\nprint('start', flush=True)\n"
                           "time.sleep(60)\n")  # fmt: skip
    tool = {"description": "slow", "argv": [PYTHON, script], "timeout": 3, "readOnly": True}
    write_user_config({"extensions": {"tools": {"slow": tool}}})
    steps = [call("slow"), ScriptedReply(text="gave up")]
    decider = RecordingDecider({RecoverError: "skip"})
    async with open_workspace(project, server, steps, decider=decider) as opened:
        end = await opened.workspace.send("run slow")
    assert end.reason == "done"
    (ended,) = [e for e in opened.events if isinstance(e, ToolCallEnd)]
    assert "stopped after 3s (timeout)" in (ended.result.error or "")
    assert "start" in (ended.result.error or "")  # what it printed before is kept
    assert decider.of(RecoverError), "a timeout is the environment's failure: the user picks"


async def test_an_invalid_schema_skips_the_tool_with_a_warning(
    project: Path, server: ModelStubServer
) -> None:
    bad = {"description": "bad", "argv": ["true"], "parameters": {"type": "object",
           "properties": {"n": {"type": "nonsense"}}}}  # fmt: skip
    not_object = {"description": "list", "argv": ["true"], "parameters": {"type": "array"}}
    shadow = {"description": "mine", "argv": ["true"]}
    good = {"description": "fine", "argv": ["true"], "readOnly": True}
    tools = {"bad": bad, "listy": not_object, "grep_search": shadow, "fine": good}
    write_user_config({"extensions": {"tools": tools}})
    steps = [ScriptedReply(text="hi")]
    async with open_workspace(project, server, steps) as opened:
        warnings = opened.workspace.warnings
        await opened.workspace.send("hello")
    text = "\n".join(warnings)
    assert "script tool 'bad'" in text and "not valid JSON Schema" in text
    assert "properties/n/type" in text
    assert "script tool 'listy'" in text and '{"type": "object", ...}' in text
    assert "script tool 'grep_search'" in text and "taken by another tool" in text
    first = opened.model.agent_bodies[0]
    offered = _tools_offered(first)
    assert "fine" in offered and not offered & {"bad", "listy"}
    (grep,) = [t for t in first["tools"] if t["function"]["name"] == "grep_search"]
    assert grep["function"]["description"] != "mine"  # the built-in stays


async def test_a_read_only_tool_cannot_write(project: Path, server: ModelStubServer) -> None:
    writer = write_program(
        project,
        "writer.py",
        "import pathlib\ntry:\n    pathlib.Path('written.txt').write_text('x')\n"
        "    print('wrote')\nexcept OSError as e:\n    print('denied', e.errno)\n",
    )
    tools = {
        "peek": {"description": "read", "argv": [PYTHON, writer], "readOnly": True},
        "change": {"description": "write", "argv": [PYTHON, writer]},
    }
    write_user_config({"extensions": {"tools": tools}})
    steps = [call("peek"), ScriptedReply(text="ok")]
    async with open_workspace(project, server, steps) as opened:
        await opened.workspace.send("look")
    offered = _tools_offered(opened.model.agent_bodies[0])
    assert {"peek", "change"} <= offered
    (ended,) = [e for e in opened.events if isinstance(e, ToolCallEnd)]
    from ipuaro.security.sandboxing.sandbox import engine

    if engine() is not None:
        assert "denied" in (ended.result.data or "")
        assert not (project / "written.txt").exists()
    data = json.dumps(ended.result.details or {})
    assert '"exitCode": 0' in data


async def test_a_model_without_native_tools_calls_a_script_tool_as_text(
    project: Path, server: ModelStubServer
) -> None:
    from tests.stubs.model_server import StubModel

    server.models = [StubModel("qwen2.5-coder:7b-instruct", capabilities=("completion",))]
    script = write_program(project, "echo_args.py", ECHO)
    write_user_config({"extensions": {"tools": {"echo_args": _tool(script)}}})
    xml = '<tool_call name="echo_args">\n<path>web/app.js</path>\n<count>2</count>\n</tool_call>'
    steps = [ScriptedReply(text=xml), ScriptedReply(text="done")]
    async with open_workspace(project, server, steps) as opened:
        assert opened.workspace.tool_format == "xml"
        await opened.workspace.send("inspect the app")
    first, second = opened.model.agent_bodies[:2]
    assert "tools" not in first
    system = first["messages"][0]["content"]
    assert "echo_args" in system and "Echo the arguments back" in system
    (output,) = tool_outputs(second)
    assert 'stdin: {"count": 2, "path": "web/app.js"}' in output


async def test_a_script_tool_is_an_execute_call_not_an_edit(
    project: Path, server: ModelStubServer
) -> None:
    script = write_program(project, "echo_args.py", ECHO)
    write_user_config({"extensions": {"tools": {"echo_args": _tool(script, readOnly=False)}}})
    steps = [call("echo_args", path="shop/cart.py"), ScriptedReply(text="ok")]
    async with open_workspace(project, server, steps) as opened:
        end = await opened.workspace.send("inspect")
        (ended,) = [e for e in opened.events if isinstance(e, ToolCallEnd)]
        facts = opened.workspace.describe_call(ended.call)
        edits = opened.workspace.ctx.session.stats.edits_applied
    assert ended.result.success and facts.kind == "execute"
    assert end.changes == () and edits == 0


async def test_a_child_left_running_does_not_hold_the_call(
    project: Path, server: ModelStubServer
) -> None:
    tool = {"description": "bg", "argv": ["sh", "-c", "sleep 60 & echo started"], "timeout": 30}
    write_user_config({"extensions": {"tools": {"bg": tool}}})
    steps = [call("bg"), ScriptedReply(text="ok")]
    async with open_workspace(project, server, steps) as opened:
        await opened.workspace.send("go")
    (ended,) = [e for e in opened.events if isinstance(e, ToolCallEnd)]
    # A success, not "stopped after 30s (timeout)": the call ended with the program.
    assert ended.result.success and "started" in (ended.result.data or "")
