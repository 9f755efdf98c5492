"""Grants through the tools: a secret allowed for the session may be read, never written
where the path policy protects it; a granted command still runs in the sandbox's limits."""

from __future__ import annotations

from tests.tools.conftest import Project


async def test_a_secret_grant_does_not_open_the_protected_path_to_edits(
    project: Project,
) -> None:
    (project.root / ".env").write_text("API_KEY=hunter2\n")
    project.ctx.grants.grant_secret(".env")
    project.ctx.grants.set_auto_apply(True)  # nobody is asked: only the policy decides
    shown = await project.call("git_diff", path=".env")
    assert shown.success, shown.error
    result = await project.call("replace", path=".env", old="hunter2", new="x")
    assert not result.success and "protected" in (result.error or "")
    assert (project.root / ".env").read_text() == "API_KEY=hunter2\n"


async def test_a_granted_command_is_still_refused_outside_the_project(
    project: Project,
) -> None:
    project.ctx.grants.grant_command(project.ctx.commands.grantable("cp"))
    outside = project.root.parent / "outside.md"
    (project.root / "notes.md").write_text("n\n")
    result = await project.call("run_command", command=f"cp notes.md {outside}")
    assert not result.success and "refused by policy" in (result.error or "")
    assert not outside.exists()
    copied = await project.call("run_command", command="cp notes.md copy.md")
    assert copied.success, copied.error  # the grant answers the unknown-name question only
