"""Custom slash commands: template files, front matter, arguments, the shape of the request
(allowed-tools, plan mode), shadowing, and the headless run of ``-p "/review FILE"``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ipuaro.core import commands as slash
from ipuaro.core.commands import CommandError, parse_command, run_operation
from ipuaro.extensions.commands import (
    CommandFileError,
    CustomCommand,
    discover_commands,
    parse_command_file,
)
from tests.agent.conftest import body_text
from tests.agent.test_agent_headless import run_env
from tests.core.conftest import open_workspace
from tests.extensions.conftest import user_config_dir
from tests.stubs.model_server import ModelStubServer, ScriptedReply

REVIEW = """\
---
description: Review a file for bugs
argument-hint: FILE [FOCUS]
allowed-tools: [get_lines, grep_search]
mode: plan
---
Review $1 for bugs. Focus: $2. Everything typed: $ARGUMENTS
"""
REVIEW_TOOLS = REVIEW.replace("mode: plan\n", "")
"""The same command answered by the agent with its tools (``mode: plan`` makes a plan)."""


def _write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.md"
    path.write_text(text, encoding="utf-8")
    return path


def _project_commands(root: Path) -> Path:
    return root / ".ipuaro" / "commands"


# --- the file and its template --------------------------------------------------------------


def test_front_matter_and_arguments(tmp_path: Path) -> None:
    command = parse_command_file(_write(tmp_path, "review", REVIEW), "project")
    assert command.description == "Review a file for bugs"
    assert command.usage == "/review FILE [FOCUS]"
    assert command.allowed_tools == ("get_lines", "grep_search") and command.plan
    assert command.help == "Review a file for bugs [project]"
    text = command.expand(("src/cart.ts", "totals"))
    assert (
        text == "Review src/cart.ts for bugs. Focus: totals. Everything typed: src/cart.ts totals"
    )
    assert command.expand(()) == "Review  for bugs. Focus: . Everything typed:"


def test_a_template_without_placeholders_gets_the_arguments_appended(tmp_path: Path) -> None:
    command = parse_command_file(_write(tmp_path, "explain", "Explain this code.\n"), "user")
    assert command.expand(()) == "Explain this code."
    assert command.expand(("a", "b")) == "Explain this code.\n\nARGUMENTS: a b"
    assert command.allowed_tools is None and not command.plan


ARGUMENT = st.text(alphabet=st.sampled_from("$1239AGRSUMENT x'\"é"), max_size=12)


@given(st.lists(ARGUMENT, max_size=12))
def test_expansion_puts_each_argument_in_its_place_once(args: list[str]) -> None:
    command = CustomCommand("x", "<$1|$2|$9>[$ARGUMENTS]", "user", Path("x.md"))
    padded = [*args, *[""] * 9]
    text = command.expand(tuple(args))
    assert text == f"<{padded[0]}|{padded[1]}|{padded[8]}>[{' '.join(args)}]"


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("bad", "---\ndescription: [unclosed\n---\nx", "not valid YAML (line 2)"),
        ("bad", "---\ncolour: red\n---\nx", "unknown front-matter key 'colour'"),
        ("bad", "---\nmode: fast\n---\nx", "write `mode: plan`"),
        ("bad", "---\nallowed-tools: {a: 1}\n---\nx", "allowed-tools must be tool names"),
        ("bad", "---\ndescription: x\n---\n  \n", "the template is empty"),
        ("Bad Name", "x", "is not a command name"),
    ],
)
def test_a_bad_file_names_the_file_and_the_fix(
    tmp_path: Path, name: str, text: str, expected: str
) -> None:
    path = _write(tmp_path, name, text)
    with pytest.raises(CommandFileError) as caught:
        parse_command_file(path, "project")
    assert str(path) in str(caught.value) and expected in str(caught.value)


def test_the_projects_command_wins_over_the_users_and_bad_files_are_skipped(
    tmp_path: Path,
) -> None:
    root, user = tmp_path / "p", tmp_path / "u"
    _write(user / "commands", "review", "user review")
    _write(user / "commands", "mine", "only mine")
    _write(_project_commands(root), "review", "project review")
    _write(_project_commands(root), "broken", "---\nmode: fast\n---\nx")
    found, warnings = discover_commands(root, user)
    assert found["review"].template == "project review" and found["review"].source == "project"
    assert found["mine"].source == "user"
    assert "broken" not in found
    assert any("custom command skipped" in w and "broken.md" in w for w in warnings)
    assert any("/review: the project's" in w for w in warnings)


def test_free_text_arguments_survive_an_apostrophe() -> None:
    async def operation(workspace: object, args: tuple[str, ...]) -> slash.Reply:
        return slash.Reply(" ".join(args))

    slash.register(slash.CommandSpec("say", "/say TEXT", "say", 0, 99, operation=operation,
                                     free_text=True))  # fmt: skip
    try:
        assert parse_command("/say don't stop").args == ("don't", "stop")
        assert parse_command('/say "two words" x').args == ("two words", "x")
    finally:
        slash.unregister("say")
    with pytest.raises(CommandError):
        parse_command("/model don't")


# --- through the workspace ------------------------------------------------------------------


async def test_a_project_and_a_user_command_with_arguments_shape_the_request(
    project: Path, server: ModelStubServer
) -> None:
    _write(_project_commands(project), "review", REVIEW_TOOLS)
    _write(user_config_dir() / "commands", "explain", "Explain $ARGUMENTS simply.")
    _write(_project_commands(project), "status", "shadowing a built-in")
    steps = [ScriptedReply(text="Looks fine."), ScriptedReply(text="It adds.")]
    async with open_workspace(project, server, steps) as opened:
        ws = opened.workspace
        helps = {spec.name: spec.help for spec in slash.all_commands(ws.commands)}
        assert "review" not in slash.BY_NAME, "a project's commands are its workspace's only"
        assert helps["review"] == "Review a file for bugs [project]"
        assert helps["explain"].endswith("[user]")
        assert any("/status from" in w and "shadow the built-in" in w for w in ws.warnings)
        review = await run_operation(ws, parse_command("/review shop/cart.py totals", ws.commands))
        assert review.prompt is not None and "Review shop/cart.py for bugs" in review.prompt
        end = await ws.send(review.prompt)
        assert end.reason == "done" and not ws.plan_mode
        explain = await run_operation(ws, parse_command("/explain shop/pricing.py", ws.commands))
        assert explain.prompt == "Explain shop/pricing.py simply."
        await ws.send(explain.prompt)
    first, second = opened.model.agent_bodies
    assert "Review shop/cart.py for bugs. Focus: totals." in body_text(first)
    assert {t["function"]["name"] for t in first["tools"]} == {"get_lines", "grep_search"}
    assert "Explain shop/pricing.py simply." in body_text(second)
    assert len(second["tools"]) > 10, "the next request has every tool again"


async def test_allowed_tools_naming_no_tool_is_an_error_naming_the_file(
    project: Path, server: ModelStubServer
) -> None:
    path = _write(_project_commands(project), "odd", "---\nallowed-tools: read_evrything\n---\nx")
    async with open_workspace(project, server, []) as opened:
        ws = opened.workspace
        reply = await run_operation(ws, parse_command("/odd", ws.commands))
    assert reply.kind == "error" and reply.prompt is None
    assert str(path) in reply.text and "'read_evrything'" in reply.text
    assert "get_lines" in reply.text  # the fix: the tools there are


async def test_a_plan_mode_command_makes_a_plan_and_leaves_plan_mode_off(
    project: Path, server: ModelStubServer
) -> None:
    _write(_project_commands(project), "review", REVIEW)
    plan = {
        "mode": "fix-plan",
        "summary": "NO_CHANGES: cart.py totals are right",
        "questions": [],
        "context_requests": [],
        "plan": [{"step": "read the totals", "details": ""}],
        "proposed_changes": {"actions": [], "commands_to_run": []},
        "risks": [],
        "memory_patch": {},
    }
    async with open_workspace(project, server, [ScriptedReply(text=json.dumps(plan))]) as opened:
        ws = opened.workspace
        review = await run_operation(ws, parse_command("/review shop/cart.py totals", ws.commands))
        assert review.prompt is not None
        end = await ws.send(review.prompt)
        assert end.reason == "done", end.answer
        assert not ws.plan_mode, "plan mode was for that request only"
    (body,) = opened.model.agent_bodies
    assert "Review shop/cart.py for bugs. Focus: totals." in body_text(body)
    assert not body.get("tools"), "a plan request offers no tools: it asks for context instead"
    assert "cart.py totals are right" in end.answer


# --- headless -------------------------------------------------------------------------------


def test_headless_runs_a_custom_command_with_arguments(
    project: Path, server: ModelStubServer, tmp_path: Path
) -> None:
    _write(_project_commands(project), "review", REVIEW_TOOLS)
    _write(tmp_path / "config" / "commands", "explain", "Explain $1 in one line.")
    server.enqueue(ScriptedReply(text="Reviewed."), ScriptedReply(text="Explained."))
    env = run_env(tmp_path, server)
    runs = [
        subprocess.run(
            [
                sys.executable,
                "-m",
                "ipuaro",
                "run",
                "--project",
                str(project),
                "--output",
                "json",
                "-p",
                prompt,
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            cwd=project,
        )
        for prompt in ("/review shop/cart.py", "/explain shop/pricing.py")
    ]
    for done in runs:
        assert done.returncode == 0, done.stderr
    assert json.loads(runs[0].stdout)["answer"] == "Reviewed."
    assert json.loads(runs[1].stdout)["answer"] == "Explained."
    bodies = server.chat_requests()
    assert "Review shop/cart.py for bugs" in body_text(bodies[0])
    assert {t["function"]["name"] for t in bodies[0]["tools"]} == {"get_lines", "grep_search"}
    assert "Explain shop/pricing.py in one line." in body_text(bodies[1])
    assert "/review" not in body_text(bodies[0]), "the command itself is not the request"


def test_headless_unknown_command_and_bad_config_exit_with_a_message(
    project: Path, server: ModelStubServer, tmp_path: Path
) -> None:
    env = run_env(tmp_path, server)
    (project / ".ipuaro.json").write_text(
        json.dumps({"extensions": {"tools": {"lint": {"description": "x", "argv": "npm run"}}}})
    )
    bad = subprocess.run(
        [sys.executable, "-m", "ipuaro", "run", "--project", str(project), "-p", "hi"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=project,
    )
    assert bad.returncode == 2
    assert ".ipuaro.json: extensions.tools.lint.argv: expected a list of strings" in bad.stderr
    assert "Traceback" not in bad.stderr
