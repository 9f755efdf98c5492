"""Which repository ipuaro's own git sees (:mod:`ipuaro.security.git.git_place`), with real git
repositories: a monorepo opened at a subfolder shows only the project, a real ``git worktree
add`` keeps working, and a ``.git`` that points elsewhere (a symbolic link, a file naming
another repository, ``core.worktree`` outside the project) makes the project "not a git
repository" with a message naming why — nothing of the other tree reaches the model."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from ipuaro.agent.context.manager import git_modified
from ipuaro.config.schema import Config
from ipuaro.tools.context import build_context

from .conftest import Project, git

CANARY = "CANARY-sibling-of-the-project-51c2"


def _open_at(project: Project, root: Path) -> Project:
    """The same tools, store and registry with ``root`` as the project."""
    ctx = build_context(
        root, Config(), project.store, lambda changed, deleted: None,
        session_id="test", auto_apply=True,
    )  # fmt: skip
    return Project(root, project.store, project.indexer, ctx, project.registry)


def _monorepo(project: Project, tmp_path: Path) -> Path:
    """``tmp_path`` made a repository holding the project (as a subfolder) and a sibling
    folder with a committed file; both then changed. Returns the sibling's file."""
    shutil.rmtree(project.root / ".git")
    sibling = tmp_path / "sibling"
    sibling.mkdir()
    notes = sibling / "notes.md"
    notes.write_text("first\n")
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "--", project.root.name, "sibling")
    git(tmp_path, "commit", "-q", "-m", "monorepo")
    notes.write_text(f"{CANARY}\n")
    (sibling / "untracked.md").write_text(f"{CANARY}\n")
    (project.root / "src" / "index.ts").write_text("export const changed = 1;\n")
    return notes


async def test_a_project_in_a_subfolder_of_a_repository_sees_only_its_own_changes(
    project: Project, tmp_path: Path
) -> None:
    _monorepo(project, tmp_path)

    status = await project.ok("git_status")
    diff = await project.ok("git_diff")

    assert "tools_app/src/index.ts" in f"{status.data}"
    assert "export const changed = 1;" in f"{diff.details}"
    for result in (status, diff):
        seen = f"{result.data} {result.details}"
        assert "sibling" not in seen and CANARY not in seen, seen
    assert git_modified(project.root) == {"tools_app/src/index.ts"}


async def test_a_real_linked_worktree_still_works(project: Project, tmp_path: Path) -> None:
    linked = tmp_path / "linked"
    git(project.root, "worktree", "add", "-q", "-b", "feature", str(linked))
    (linked / "src" / "index.ts").write_text("export const feature = 2;\n")
    (linked / "new.md").write_text("new\n")
    there = _open_at(project, linked)

    status = await there.ok("git_status")
    diff = await there.ok("git_diff")

    assert "On branch feature" in f"{status.data}"
    assert "modified: src/index.ts" in f"{status.data}"
    assert "export const feature = 2;" in f"{diff.details}"
    assert "new.md" in f"{diff.data}"
    assert git_modified(linked) == {"src/index.ts", "new.md"}


def _private_repo(tmp_path: Path) -> Path:
    other = tmp_path / "private-repo"
    other.mkdir()
    (other / "plans.md").write_text(f"{CANARY}\n")
    git(other, "init", "-q")
    git(other, "add", "-A")
    git(other, "commit", "-q", "-m", "private")
    return other


async def test_a_symbolic_link_named_git_is_not_followed(project: Project, tmp_path: Path) -> None:
    other = _private_repo(tmp_path)
    shutil.rmtree(project.root / ".git")
    (project.root / ".git").symlink_to(other / ".git")

    for tool in ("git_status", "git_diff"):
        result = await project.call(tool)
        assert not result.success
        assert CANARY not in f"{result.data} {result.details} {result.error}"
        assert "plans.md" not in f"{result.data} {result.details} {result.error}"
        assert f"{project.root / '.git'} is a symbolic link" in f"{result.error}"
    assert git_modified(project.root) == set()


async def test_a_git_file_naming_another_repository_is_refused_with_its_name(
    project: Project, tmp_path: Path
) -> None:
    other = _private_repo(tmp_path)
    shutil.rmtree(project.root / ".git")
    (project.root / ".git").write_text(f"gitdir: {other / '.git'}\n")

    status = await project.call("git_status")

    assert not status.success
    assert "plans.md" not in f"{status.data} {status.details} {status.error}"
    assert f"{project.root / '.git'} is a file naming another git folder" in f"{status.error}"
    assert git_modified(project.root) == set()


async def test_a_forged_worktree_folder_that_does_not_point_back_is_refused(
    project: Project, tmp_path: Path
) -> None:
    """A ``.git`` file naming a real worktree folder of another checkout — one that belongs
    to a different worktree, whose ``gitdir`` file points elsewhere — is not followed."""
    other = _private_repo(tmp_path)
    git(other, "worktree", "add", "-q", "-b", "side", str(tmp_path / "their-worktree"))
    shutil.rmtree(project.root / ".git")
    (project.root / ".git").write_text(
        f"gitdir: {other / '.git' / 'worktrees' / 'their-worktree'}\n"
    )

    diff = await project.call("git_diff")

    assert not diff.success
    assert CANARY not in f"{diff.data} {diff.details} {diff.error}"
    assert "not a linked worktree" in f"{diff.error}"


async def test_core_worktree_naming_another_folder_is_refused_with_the_setting(
    project: Project,
) -> None:
    git(project.root, "config", "core.worktree", "../..")

    status = await project.call("git_status")

    assert not status.success
    assert "sets core.worktree = ../.." in f"{status.error}"
    assert "git config --unset core.worktree" in f"{status.error}"


async def test_core_worktree_naming_the_project_itself_is_fine(project: Project) -> None:
    git(project.root, "config", "core.worktree", str(project.root))
    (project.root / "src" / "index.ts").write_text("export const same = 3;\n")

    diff = await project.ok("git_diff")

    assert "export const same = 3;" in f"{diff.details}"


async def test_the_search_for_a_repository_above_stops_at_a_ceiling(
    project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _monorepo(project, tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))

    status = await project.call("git_status")

    assert not status.success
    assert "is not a git repository" in f"{status.error}"


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a repository away needs root")
async def test_a_repository_of_another_user_needs_safe_directory(
    project: Project, tmp_path: Path
) -> None:
    for path in [project.root, *project.root.rglob("*")]:
        os.lchown(path, 4321, 4321)

    refused = await project.call("git_status")
    assert not refused.success
    assert "belongs to another user" in f"{refused.error}"
    assert f"safe.directory {project.root}" in f"{refused.error}"

    git(tmp_path, "config", "--file", str(tmp_path / "gitconfig"), "--add",
        "safe.directory", str(project.root))  # fmt: skip
    await project.ok("git_status")


async def test_a_real_submodule_checkout_still_works(project: Project, tmp_path: Path) -> None:
    library = tmp_path / "library"
    library.mkdir()
    (library / "lib.md").write_text("lib\n")
    git(library, "init", "-q", "-b", "main")
    git(library, "add", "-A")
    git(library, "commit", "-q", "-m", "lib")
    git(project.root, "-c", "protocol.file.allow=always", "submodule", "add", "-q",
        str(library), "vendor/library")  # fmt: skip
    checkout = project.root / "vendor" / "library"
    assert (checkout / ".git").is_file()
    (checkout / "lib.md").write_text("lib changed\n")
    there = _open_at(project, checkout)

    diff = await there.ok("git_diff")

    assert "+lib changed" in f"{diff.details}"
