"""Trust: a project's own script tools and hooks are off until the user trusts the project;
the answer is remembered per path and content hash of the declarations."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ipuaro.core.decisions import TrustProject
from ipuaro.core.events import ToolCallEnd
from ipuaro.extensions.trust import (
    declared_code,
    extension_digest,
    forget_trust,
    project_trusted,
    remember_trust,
    trust_file,
)
from tests.agent.conftest import call
from tests.core.conftest import RecordingDecider, open_workspace
from tests.extensions.conftest import PYTHON, write_program, write_project_config
from tests.stubs.model_server import ModelStubServer, ScriptedReply

MARK = "import pathlib, sys\npathlib.Path(sys.argv[1]).write_text('ran')\nprint('marked')\n"


def _declare(project: Path, marker: Path) -> dict[str, Any]:
    script = write_program(project, "mark.py", MARK)
    values = {
        "extensions": {
            "tools": {
                "mark": {"description": "mark", "argv": [PYTHON, script, str(marker)]},
            },
            "hooks": {"sessionStart": [{"argv": [PYTHON, script, str(marker) + ".hook"]}]},
        }
    }
    write_project_config(project, values)
    return values


async def test_an_untrusted_projects_script_tool_and_hook_are_never_started(
    project: Path, server: ModelStubServer
) -> None:
    marker = project / "marker"
    _declare(project, marker)
    steps = [call("mark"), ScriptedReply(text="ok")]
    decider = RecordingDecider()  # answers the safe "no"
    async with open_workspace(project, server, steps, decider=decider) as opened:
        warnings = opened.workspace.warnings
        await opened.workspace.send("mark it")
    (question,) = decider.of(TrustProject)
    assert question.safe == "no" and question.values() == ("trust", "no")
    assert f"script tool mark: {PYTHON}" in question.message
    assert "hook sessionStart" in question.message
    assert not marker.exists() and not Path(str(marker) + ".hook").exists()
    offered = {t["function"]["name"] for t in opened.model.agent_bodies[0]["tools"]}
    assert "mark" not in offered
    (ended,) = [e for e in opened.events if isinstance(e, ToolCallEnd)]
    assert "Unknown tool 'mark'" in (ended.result.error or "")
    assert any("stay off until you trust the project" in w for w in warnings)
    assert not project_trusted(project)


async def test_trusting_runs_them_is_remembered_and_a_change_asks_again(
    project: Path, server: ModelStubServer
) -> None:
    marker = project / "marker"
    values = _declare(project, marker)
    decider = RecordingDecider({TrustProject: "trust"})
    steps = [call("mark"), ScriptedReply(text="ok")]
    async with open_workspace(project, server, steps, decider=decider) as opened:
        await opened.workspace.send("mark it")
    assert marker.read_text() == "ran" and Path(str(marker) + ".hook").exists()
    assert len(decider.of(TrustProject)) == 1
    assert project_trusted(project)

    again = RecordingDecider()
    async with open_workspace(project, server, [ScriptedReply(text="hi")], decider=again):
        pass
    assert again.of(TrustProject) == [], "the same declarations are not asked about twice"

    values["extensions"]["hooks"]["agentEnd"] = [{"argv": ["true"]}]
    write_project_config(project, values)
    changed = RecordingDecider()
    async with open_workspace(project, server, [ScriptedReply(text="hi")], decider=changed):
        pass
    assert len(changed.of(TrustProject)) == 1, "a changed declaration asks again"


def test_the_digest_covers_only_what_runs_code(project: Path) -> None:
    assert declared_code(project) == {} and project_trusted(project)
    write_project_config(project, {"llm": {"model": "a"}, "mcp": {"servers": {"x": {}}}})
    first = extension_digest(project)
    assert list(declared_code(project)) == ["mcp.servers"]
    write_project_config(project, {"mcp": {"servers": {"x": {}}}, "llm": {"model": "b"}})
    assert extension_digest(project) == first, "other keys and key order do not matter"
    assert not project_trusted(project)
    remember_trust(project)
    assert project_trusted(project)
    write_project_config(project, {"mcp": {"servers": {"y": {}}}})
    assert not project_trusted(project)
    remember_trust(project)
    forget_trust(project)
    assert not project_trusted(project)


def test_a_damaged_trust_file_trusts_nothing(project: Path) -> None:
    write_project_config(project, {"extensions": {"tools": {"t": {"argv": ["true"]}}}})
    remember_trust(project)
    trust_file().write_text("{not json", encoding="utf-8")
    assert not project_trusted(project)
    remember_trust(project)
    assert json.loads(trust_file().read_text())[str(project.resolve())]["digest"]


def test_headless_needs_trust_project_to_run_a_projects_tool(
    project: Path, server: ModelStubServer, tmp_path: Path
) -> None:
    import subprocess
    import sys

    from tests.agent.test_agent_headless import run_env

    marker = project / "marker"
    _declare(project, marker)
    env = run_env(tmp_path, server)
    server.enqueue(call("mark"), ScriptedReply(text="one"), call("mark"), ScriptedReply(text="two"))

    def run(*flags: str) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, "-m", "ipuaro", "run", "--project", str(project), *flags]
        return subprocess.run(
            [*argv, "-p", "mark it"], env=env, capture_output=True, text=True, timeout=120
        )

    untrusted = run()
    assert untrusted.returncode == 0, untrusted.stderr
    assert "stay off until you trust the project" in untrusted.stderr
    assert not marker.exists()
    trusted = run("--trust-project")
    assert trusted.returncode == 0, trusted.stderr
    assert marker.read_text() == "ran"
    assert project_trusted(project), "the flag is a yes, remembered like one"
