"""Secret files and credentials stay out of tool output unless the user allows them: commands
run without API keys in their environment, git_diff hides secret files' changes, and the edit
tools need the same allowance as get_lines before they read a secret file."""

from __future__ import annotations

import pytest

from ipuaro.tools.base import ConfirmDecision, ConfirmRequest
from ipuaro.tools.editing import read_disk_allowed

from .conftest import Project, git

NPMRC = "//registry.npmjs.org/:_authToken=npm_SECRETTOKEN\nalways-auth=true\n"


async def test_commands_run_without_api_keys(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-LIVE-SECRET-1")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-SECRET-2")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_SECRET3")
    monkeypatch.setenv("MY_LLM", "custom-SECRET-4")
    monkeypatch.setenv("IPUARO_VISIBLE", "visible-5")
    project.ctx.config.llm.api_key_env = "MY_LLM"
    asked: list[ConfirmRequest] = []

    async def allow(request: ConfirmRequest) -> ConfirmDecision:
        asked.append(request)
        return ConfirmDecision("once")

    # A person allows it: printing the environment or a credential variable is a secret
    # read, which --allow-commands does not cover (tests/security/policy/
    # test_environment_prints.py, tests/cli/test_cli_run_environment.py).
    project.ctx = project.ctx.replace(confirm=allow)
    result = await project.call(
        "run_command",
        command="echo $OPENAI_API_KEY $ANTHROPIC_API_KEY $GITHUB_TOKEN $MY_LLM; env",
    )
    assert result.success, result.error
    assert len(asked) == 1 and "secrets need the user's allowance" in asked[0].description
    assert "SECRET" not in result.data
    assert "IPUARO_VISIBLE=visible-5" in result.data  # the rest of the environment is kept


async def test_secret_commands_ask_headless(project: Project) -> None:
    for command in ("cat $(echo .env)", "grep -r fixture-not .", "echo $OPENAI_API_KEY"):
        result = await project.call("run_command", command=command)
        assert not result.success, command
        assert "needs the user's approval" in (result.error or ""), command
        assert "fixture-not-a-real-secret" not in (result.error or "")


async def test_git_diff_hides_changed_secret_files(project: Project) -> None:
    (project.root / ".env").write_text("API_KEY=hunter2\n")
    (project.root / "README.md").write_text("# tools-app\n\nchanged line\n")
    whole = await project.ok("git_diff")
    assert "hunter2" not in whole.data and "fixture-not-a-real-secret" not in whole.data
    assert "+changed line" in whole.data
    assert "Secret files changed, contents hidden" in whole.data and ".env" in whole.data
    assert project.data(whole)["hiddenSecrets"] == [".env"]
    assert "hunter2" not in str(whole.details)
    project.ctx.grants.grant_secret(".env")
    allowed = await project.ok("git_diff")
    assert "+API_KEY=hunter2" in allowed.data


async def test_git_diff_hides_staged_secret_in_a_subfolder(project: Project) -> None:
    (project.root / "config").mkdir(exist_ok=True)
    (project.root / "config" / "server.pem").write_text("-----BEGIN KEY-----\nabc\n")
    git(project.root, "add", "config/server.pem")
    staged = await project.ok("git_diff", staged=True)
    assert "abc" not in staged.data and "config/server.pem" in staged.data
    assert "contents hidden" in staged.data


async def test_git_diff_of_one_secret_file_asks(project: Project) -> None:
    (project.root / ".env").write_text("API_KEY=hunter2\n")
    refused = await project.call("git_diff", path=".env")
    assert not refused.success and "secret file" in (refused.error or "")
    asked: list[ConfirmRequest] = []

    async def allow(request: ConfirmRequest) -> ConfirmDecision:
        asked.append(request)
        return ConfirmDecision("once")

    project.ctx = project.ctx.replace(confirm=allow)
    shown = await project.ok("git_diff", path=".env")
    assert asked and asked[0].kind == "read_secret"
    assert "+API_KEY=hunter2" in shown.data


async def test_edit_tools_need_the_secret_allowance(project: Project) -> None:
    (project.root / ".npmrc").write_text(NPMRC)
    for tool, arguments in (
        ("replace", {"path": ".npmrc", "old": "//registry.npmjs.org/:_authToken=X", "new": "y"}),
        ("replace", {"path": ".npmrc", "old": "always-auth=true", "new": "always-auth=false"}),
        ("create_file", {"path": ".npmrc", "content": "x\n", "overwrite": True}),
        ("delete_file", {"path": ".npmrc"}),
    ):
        result = await project.call(tool, **arguments)
        assert not result.success, tool
        assert "secret file" in (result.error or ""), tool
        assert "SECRETTOKEN" not in (result.error or "") + str(result.details), tool
    assert (project.root / ".npmrc").read_text() == NPMRC
    project.ctx.grants.grant_secret(".npmrc")
    await project.ok("replace", path=".npmrc", old="always-auth=true", new="always-auth=false")
    assert "always-auth=false" in (project.root / ".npmrc").read_text()


async def test_creating_a_new_secret_file_needs_no_allowance(project: Project) -> None:
    await project.ok("create_file", path=".pgpass", content="localhost:5432:*:me:pw\n")
    assert (project.root / ".pgpass").exists()


async def test_read_disk_allowed_asks_the_user(project: Project) -> None:
    (project.root / ".pypirc").write_text("[pypi]\npassword = pypi-SECRET\n")
    asked: list[str] = []

    async def answer(request: ConfirmRequest) -> ConfirmDecision:
        asked.append(request.title)
        return ConfirmDecision("reject" if len(asked) == 1 else "always")

    project.ctx = project.ctx.replace(confirm=answer)
    with pytest.raises(Exception, match="did not allow"):
        await read_disk_allowed(project.ctx, ".pypirc")
    disk = await read_disk_allowed(project.ctx, ".pypirc")
    assert disk.text is not None and "pypi-SECRET" in disk.text
    assert project.ctx.grants.allows_secret(".pypirc") and len(asked) == 2
    assert (await read_disk_allowed(project.ctx, ".pypirc")).text == disk.text
    assert len(asked) == 2  # "always" is remembered for the session


async def test_editing_a_secret_file_asks_through_the_tool(project: Project) -> None:
    (project.root / ".npmrc").write_text(NPMRC)
    kinds: list[str] = []

    async def answer(request: ConfirmRequest) -> ConfirmDecision:
        kinds.append(request.kind)
        return ConfirmDecision("apply")

    project.ctx = project.ctx.replace(confirm=answer)
    await project.ok("replace", path=".npmrc", old="always-auth=true", new="always-auth=false")
    assert kinds and kinds[0] == "read_secret"
    assert "always-auth=false" in (project.root / ".npmrc").read_text()
