"""Every hostile command of issue 11 against a real project with canaries inside and outside it.

Three ways each command meets ipuaro:
- the sandbox alone (the policy bypassed, as if the user approved everything): nothing outside
  the project changes and no secret is printed;
- the policy alone (sandbox off): every command is refused or asked about, none just runs;
- the whole tool (policy, then the sandbox) in a run where nobody can be asked: refused, and
  every canary, inside and outside, is byte-identical.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from ipuaro.config.schema import Config, SandboxConfig
from ipuaro.domain import ToolResult
from ipuaro.security.policy.commands import CommandPolicy
from ipuaro.security.process.runner import run_shell
from ipuaro.security.sandboxing.sandbox import SandboxProfile, engine
from ipuaro.store.sqlite import SqliteStore
from ipuaro.tools.base import ConfirmDecision, ConfirmRequest, ToolContext
from ipuaro.tools.context import build_context
from ipuaro.tools.registry import ToolRegistry

SECRET_TEXTS = ("SSH-KEY-CANARY", "OUTSIDE-TOKEN-CANARY", "AWS-CANARY")

ESCAPES = [  # effects outside the project: the sandbox alone must stop each one
    "npm exec -- rm -rf ../outside",
    "npx --yes rm -rf ../outside",
    "npm exec --call 'rm -rf ../outside'",
    "git -c protocol.ext.allow=always ls-remote 'ext::sh -c rm% -rf% ../outside'",
    "git clone -q . ../outside/clone",
    "git archive -o ../outside/x.tar HEAD",
    "cat ../outside/secret.txt",
    "grep -r token= ../outside",
    "cat ~/.ssh/id_rsa ~/.aws/credentials",
    "git push origin --delete feature",
    "npm run x",
]
IN_PROJECT = [  # destroy uncommitted work inside the project: the policy must ask
    "> work.txt",
    "git checkout -- .",
    "git stash && git stash drop",
    "git rm -rf .",
    "cat /etc/passwd",
    "pnpm exec rm -rf ../outside",
    "make",
]
HOSTILE = ESCAPES + IN_PROJECT
POLICY_BLIND = ["node clean.js", "npm run clean", "python3 tidy.py"]
"""Allowed (or, for python, merely asked about) by the policy — a program running a project file:
only the sandbox stands between them and the folder next to the project."""
APPROVED = [
    "cat ../outside/secret.txt",
    "grep -r token= ../outside",
    "npm exec -- cat ../outside/secret.txt",
    "git push origin --delete feature",
]


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """tmp/home (HOME, with secrets), tmp/outside (canaries), tmp/remote.git (a branch that
    must survive), tmp/proj (a git repository with uncommitted work)."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("SSH-KEY-CANARY\n")
    (home / ".aws").mkdir()
    (home / ".aws" / "credentials").write_text("AWS-CANARY\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig"))
    monkeypatch.setenv("npm_config_cache", str(tmp_path / "npm-cache"))
    for key in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{key}_NAME", "t")
        monkeypatch.setenv(f"GIT_{key}_EMAIL", "t@example.com")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("token=OUTSIDE-TOKEN-CANARY\n")
    (outside / "keep.txt").write_text("keep\n")
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    root = tmp_path / "proj"
    root.mkdir()
    (root / "work.txt").write_text("committed\n")
    (root / "package.json").write_text(
        json.dumps(
            {
                "name": "p",
                "version": "1.0.0",
                "scripts": {"x": "rm -rf ../outside", "clean": "node clean.js"},
            }
        )
    )
    (root / "clean.js").write_text(
        "require('fs').rmSync('../outside', {recursive: true, force: true});\n"
        "const key = require('os').homedir() + '/.ssh/id_rsa';\n"
        "console.log(require('fs').readFileSync(key, 'utf8'));\n"
    )
    (root / "tidy.py").write_text(
        "import pathlib, shutil\nshutil.rmtree('../outside')\n"
        "print((pathlib.Path.home() / '.aws' / 'credentials').read_text())\n"
    )
    (root / "Makefile").write_text("all:\n\trm -rf ../outside\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    git(root, "remote", "add", "origin", str(remote))
    git(root, "push", "-q", "origin", "main", "main:feature")
    (root / "work.txt").write_text("UNCOMMITTED WORK\n")
    git(root, "stash", "-q")
    (root / "work.txt").write_text("UNCOMMITTED WORK\n")  # a stash and uncommitted work
    yield tmp_path


def canaries(base: Path) -> dict[str, str]:
    """Hash of every file under tmp (home, outside, the remote, the project's work tree and
    stash), and the remote's branches."""
    found = {}
    for path in sorted(base.rglob("*")):
        if (
            path.is_file()
            and not {"npm-cache", "data"} & set(path.parts)
            and "/proj/.git/" not in str(path)
        ):
            found[str(path.relative_to(base))] = hashlib.sha256(path.read_bytes()).hexdigest()
    branches = subprocess.run(["git", "branch", "--list"], cwd=base / "remote.git",
                              capture_output=True, text=True, check=True).stdout  # fmt: skip
    stash = subprocess.run(["git", "stash", "list"], cwd=base / "proj", capture_output=True,
                           text=True, check=True).stdout  # fmt: skip
    return {**found, "remote branches": branches, "stash": stash}


def outside_canaries(base: Path) -> dict[str, str]:
    return {k: v for k, v in canaries(base).items() if not k.startswith("proj/")}


@pytest.mark.skipif(engine() is None, reason="this kernel has no Landlock")
@pytest.mark.parametrize("command", ESCAPES + POLICY_BLIND)
async def test_the_sandbox_alone_stops_every_escape(world: Path, command: str) -> None:
    before = outside_canaries(world)
    sandbox = SandboxProfile.for_project(world / "proj")
    outcome = await run_shell(command, world / "proj", 60, sandbox=sandbox)
    assert outside_canaries(world) == before, outcome.output
    assert not any(secret in outcome.output for secret in SECRET_TEXTS), outcome.output


def test_the_policy_alone_never_just_runs_them(world: Path) -> None:
    policy = CommandPolicy.from_config(world / "proj", Config())
    verdicts = {command: policy.decide(command) for command in HOSTILE}
    allowed = {c: d.reason for c, d in verdicts.items() if d.verdict == "allow"}
    assert allowed == {}
    denied = sorted(c for c, d in verdicts.items() if d.verdict == "deny")
    assert len(denied) >= 8, denied  # the rest ask


def registry_context(world: Path, profile: str) -> tuple[ToolRegistry, ToolContext, SqliteStore]:
    config = Config(sandbox=SandboxConfig(profile=profile))  # type: ignore[arg-type]
    store = SqliteStore(world / "data" / "store.db", "tests-sandbox")
    ctx = build_context(world / "proj", config, store, lambda c, d: None, session_id="s")
    return ToolRegistry.default(), ctx, store


@pytest.mark.parametrize("profile", ["workspace", "off"])
async def test_the_tool_refuses_every_one_and_nothing_changes(world: Path, profile: str) -> None:
    registry, ctx, store = registry_context(world, profile)
    before = canaries(world)
    try:
        for command in HOSTILE:
            result: ToolResult = await registry.call(
                "run_command", {"command": command}, ctx, call_id="c"
            )
            assert not result.success, command
            assert not any(s in (result.error or "") for s in SECRET_TEXTS)
    finally:
        store.close()
    assert canaries(world) == before


@pytest.mark.skipif(engine() is None, reason="this kernel has no Landlock")
async def test_what_the_policy_allows_the_sandbox_still_confines(world: Path) -> None:
    """A program running a project file the policy cannot read into, in a headless run with
    --allow-commands (what asks, runs)."""
    policy = CommandPolicy.from_config(world / "proj", Config())
    assert [policy.decide(c).verdict for c in POLICY_BLIND] == ["allow", "allow", "ask"]
    registry, ctx, store = registry_context(world, "workspace")
    ctx = ctx.replace(headless_allow_commands=True)
    before = outside_canaries(world)
    try:
        for command in POLICY_BLIND:
            result = await registry.call("run_command", {"command": command}, ctx, call_id="c")
            shown = (result.data or "") + (result.error or "")
            assert not result.success and "commands run in a sandbox" in shown, shown
            assert not any(secret in shown for secret in SECRET_TEXTS), shown
    finally:
        store.close()
    assert outside_canaries(world) == before


@pytest.mark.skipif(engine() is None, reason="this kernel has no Landlock")
async def test_an_approving_user_still_cannot_let_a_command_escape(world: Path) -> None:
    """Everything the policy asks about is approved (the worst user): what reaches outside the
    project is still stopped by the kernel."""
    registry, ctx, store = registry_context(world, "workspace")
    asked: list[str] = []

    async def yes(request: ConfirmRequest) -> ConfirmDecision:
        asked.append(request.title)
        return ConfirmDecision("yes")

    ctx = ctx.replace(confirm=yes)
    before = outside_canaries(world)
    told = 0
    try:
        for command in APPROVED:
            result = await registry.call("run_command", {"command": command}, ctx, call_id="c")
            shown = (result.data or "") + (result.error or "")
            assert not any(s in shown for s in SECRET_TEXTS), shown
            if "Permission denied" in shown:  # the model is told where that comes from
                assert "commands run in a sandbox (workspace)" in shown, shown
            told += "commands run in a sandbox" in shown
    finally:
        store.close()
    assert asked  # the policy did ask
    assert told >= 3
    assert outside_canaries(world) == before


def test_without_an_engine_commands_that_may_write_are_asked_about(
    world: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kernel without Landlock (simulated: the engine probe answers none)."""
    import asyncio

    import ipuaro.security.sandboxing.sandbox as sandbox_module
    import ipuaro.tools.shell as shell_module

    monkeypatch.setattr(sandbox_module, "engine", lambda: None)
    monkeypatch.setattr(shell_module, "engine", lambda: None)
    registry, ctx, store = registry_context(world, "workspace")
    asked: list[str] = []

    async def yes(request: ConfirmRequest) -> ConfirmDecision:
        asked.append(request.description)
        return ConfirmDecision("yes")

    async def scenario() -> None:
        reads = await registry.call("run_command", {"command": "ls && git status"}, ctx, "c")
        assert reads.success, reads.error  # known read-only: runs without a question
        writes = await registry.call("run_command", {"command": "echo x >> notes.txt"}, ctx, "c")
        assert not writes.success and "no sandbox engine" in (writes.error or "")
        asking = ctx.replace(confirm=yes)
        approved = await registry.call(
            "run_command", {"command": "echo x >> notes.txt"}, asking, "c"
        )
        assert approved.success and asked and "no sandbox engine" in asked[0]

    try:
        asyncio.run(scenario())
    finally:
        store.close()
    assert (world / "proj" / "notes.txt").read_text() == "x\n"
    assert sandbox_module.status_label("workspace") == "⚠ no sandbox"


@pytest.mark.skipif(engine() is None or shutil.which("curl") is None, reason="Landlock, curl")
async def test_a_command_that_needs_the_network_asks_for_it(world: Path) -> None:
    import http.server
    import threading

    server = http.server.HTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    registry, ctx, store = registry_context(world, "workspace")
    ctx.grants.grant_command(ctx.commands.grantable("curl"))
    titles: list[str] = []

    async def answer(request: ConfirmRequest) -> ConfirmDecision:
        titles.append(request.title)
        return ConfirmDecision("yes" if len(titles) == 1 else "reject")

    try:
        offline = await registry.call("run_command", {"command": f"curl -s {url}"}, ctx, "c")
        assert not offline.success and "needs the network" in (offline.error or "")
        ctx = ctx.replace(confirm=answer)
        online = await registry.call("run_command", {"command": f"curl -s -o /dev/null {url}"},
                                     ctx, "c")  # fmt: skip
        assert online.success, online.error
        refused = await registry.call("run_command", {"command": f"curl -s {url}"}, ctx, "c")
        assert not refused.success and "did not let `curl` use the network" in (refused.error or "")
        assert titles == ["Let this command use the network?"] * 2
    finally:
        server.shutdown()
        store.close()


async def test_tools_and_commands_answer_alike_for_a_place_outside(world: Path) -> None:
    registry, ctx, store = registry_context(world, "workspace")
    try:
        for place in ("~/.ssh/id_rsa", "/etc/shadow"):
            tool = await registry.call("get_lines", {"path": place}, ctx, call_id="c")
            command = await registry.call("run_command", {"command": f"cat {place}"}, ctx, "c")
            for answer in (tool, command):
                assert not answer.success
                assert "known secret location outside the project" in (answer.error or "")
        keep = str(world / "outside" / "keep.txt")
        elsewhere = await registry.call("get_lines", {"path": keep}, ctx, "c")
        assert "run_command asks the user first" in (elsewhere.error or "")
        asked = await registry.call("run_command", {"command": f"cat {keep}"}, ctx, "c")
        assert "needs the user's approval" in (asked.error or "")
    finally:
        store.close()


PLANTER = """
const fs = require('fs');
const steal = `#!/bin/sh\\ncp "$HOME/.ssh/id_rsa" ../outside/stolen 2>/dev/null; cat\\n`;
fs.writeFileSync('steal.sh', steal, {mode: 0o755});
const git = require('path').resolve('.git');
try { fs.appendFileSync(git + '/config', `[core]\\n\\tfsmonitor = ${process.cwd()}/steal.sh\\n`); }
catch (e) { console.log('config: ' + e.code); }
try { fs.writeFileSync(git + '/hooks/pre-commit', steal, {mode: 0o755}); }
catch (e) { console.log('hook: ' + e.code); }
fs.writeFileSync('innocent.cfg', `[core]\\n\\tfsmonitor = ${process.cwd()}/steal.sh\\n`);
fs.writeFileSync('.gitattributes', '*.txt filter=x\\n');
try { fs.writeFileSync('.ipuaro.json', '{"sandbox": {"profile": "off"}}'); }
catch (e) { console.log('ipuaro config: ' + e.code); }
console.log('planted');
"""


@pytest.mark.skipif(engine() is None, reason="this kernel has no Landlock")
@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
async def test_the_issue_chain_plant_with_node_then_git_tools_steals_nothing(
    world: Path,
) -> None:
    """Issue 22's chain, with every question answered yes: the model writes a script, runs it
    with node to plant git configuration and hooks, then calls git_status, git_diff and
    git_commit. Nothing planted runs outside the sandbox; nothing outside changes."""
    registry, ctx, store = registry_context(world, "workspace")

    async def yes(request: ConfirmRequest) -> ConfirmDecision:
        return ConfirmDecision("yes")

    ctx = ctx.replace(confirm=yes)
    ctx.grants.set_auto_apply(True)
    before = outside_canaries(world)
    shown: list[str] = []
    try:
        planted = await registry.call(
            "create_file", {"path": "plant.js", "content": PLANTER}, ctx, call_id="c1"
        )
        assert planted.success, planted.error
        ran = await registry.call("run_command", {"command": "node plant.js"}, ctx, call_id="c2")
        assert "planted" in (ran.data or ""), ran.error
        shown.append(ran.data or "")
        subprocess.run(  # the planted include, as if a tarball had shipped .git/config
            ["git", "config", "include.path", str(world / "proj" / "innocent.cfg")],
            cwd=world / "proj", check=True,
        )  # fmt: skip
        for tool, arguments in (
            ("git_status", {}),
            ("git_diff", {}),
            ("git_commit", {"message": "work", "files": ["work.txt"]}),
        ):
            result = await registry.call(tool, arguments, ctx, call_id="c3")
            assert result.success, (tool, result.error)
            shown.append((result.data or "") + (result.error or ""))
    finally:
        store.close()
    assert not any(secret in text for text in shown for secret in SECRET_TEXTS)
    assert outside_canaries(world) == before
