"""Git tools on a real repository: git_status, git_diff, git_commit."""

from __future__ import annotations

from pathlib import Path

from ipuaro.tools.base import ConfirmRequest

from .conftest import Project, git


async def test_git_status_clean_then_changed(project: Project) -> None:
    clean = await project.ok("git_status")
    assert "On branch main" in clean.data and "Working tree clean" in clean.data
    (project.root / "README.md").write_text("changed\n")
    (project.root / "new.txt").write_text("new\n")
    git(project.root, "add", "new.txt")
    changed = project.data(await project.ok("git_status"))
    assert changed["unstaged"] == ["modified: README.md"]
    assert changed["staged"] == ["added: new.txt"]


async def test_git_diff_whole_and_one_path(project: Project) -> None:
    assert "No uncommitted changes" in (await project.ok("git_diff")).data
    (project.root / "README.md").write_text("# tools-app\n\nchanged line\n")
    (project.root / "src/utils/date.ts").write_text("export const x = 1;\n")
    (project.root / "untracked.txt").write_text("u\n")
    whole = await project.ok("git_diff")
    assert "+changed line" in whole.data and "src/utils/date.ts" in whole.data
    assert "untracked.txt" in whole.data
    one = await project.ok("git_diff", path="README.md")
    assert "+changed line" in one.data and "date.ts" not in one.data


async def test_git_commit_files_and_refusals(project: Project) -> None:
    empty = await project.call("git_commit", message="nothing")
    assert not empty.success and "empty" in (empty.error or "")
    for path in ("../elsewhere.txt", "/etc/hosts"):
        outside = await project.call("git_commit", message="x", files=[path])
        assert not outside.success and "refused" in (outside.error or ""), path
    unchanged = await project.call("git_commit", message="x", files=["README.md"])
    assert not unchanged.success and "no changes" in (unchanged.error or "")

    (project.root / "README.md").write_text("updated\n")
    (project.root / "other.txt").write_text("not committed\n")
    result = await project.ok("git_commit", message="Update readme", files=["README.md"])
    assert "Committed" in result.data
    log = git(project.root, "log", "--format=%s", "-n", "1")
    assert log.strip() == "Update readme"
    shown = git(project.root, "show", "--name-only", "--format=", "HEAD").split()
    assert shown == ["README.md"]
    assert "other.txt" in git(project.root, "status", "--porcelain")


async def test_git_commit_needs_confirmation_when_not_auto(project: Project) -> None:
    project.ctx.grants.set_auto_apply(False)
    asked: list[ConfirmRequest] = []

    async def reject(request: ConfirmRequest) -> str:
        asked.append(request)
        return "reject"

    project.ctx = project.ctx.replace(confirm=reject)  # type: ignore[assignment]
    (project.root / "README.md").write_text("updated\n")
    result = await project.call("git_commit", message="m", files=["README.md"])
    assert not result.success and result.details and result.details["refused"]
    assert asked[0].kind == "command" and "git commit" in (asked[0].command or "")
    assert git(project.root, "log", "--format=%s").strip() == "fixture"


async def test_git_commit_refuses_secret_files(project: Project) -> None:
    (project.root / ".env").write_text("API_KEY=changed\n")
    result = await project.call("git_commit", message="oops", files=[".env"])
    assert not result.success and "secret" in (result.error or "")


async def test_git_tools_outside_a_repository(project: Project, tmp_path: Path) -> None:
    import shutil

    shutil.rmtree(project.root / ".git")
    result = await project.call("git_status")
    assert not result.success and "not a git repository" in (result.error or "")


async def test_git_commit_in_a_monorepo_subfolder_never_takes_what_is_staged_elsewhere(
    project: Project,
) -> None:
    """The project is one folder of a larger repository: a bare commit (what is staged) must not
    carry files staged outside the project; a commit of named files still works."""
    import shutil

    shutil.rmtree(project.root / ".git")
    mono = project.root.parent
    (mono / "other_service.txt").write_text("someone else's change\n")
    git(mono, "init", "-q", "-b", "main")
    git(mono, "add", "other_service.txt", project.root.name)
    git(mono, "commit", "-q", "-m", "monorepo")
    (mono / "other_service.txt").write_text("staged elsewhere\n")
    (project.root / "README.md").write_text("updated\n")
    git(mono, "add", "other_service.txt", f"{project.root.name}/README.md")

    bare = await project.call("git_commit", message="just the readme")
    assert not bare.success and "other_service.txt" in (bare.error or "")
    assert git(mono, "log", "--format=%s", "-n", "1").strip() == "monorepo"

    named = await project.ok("git_commit", message="readme", files=["README.md"])
    assert "Committed" in named.data
    shown = git(mono, "show", "--name-only", "--format=", "HEAD").split()
    assert shown == [f"{project.root.name}/README.md"]
    assert "other_service.txt" in git(mono, "diff", "--cached", "--name-only")
