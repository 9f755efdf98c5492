"""QA (issue 22, road 2, one step outside): a repository's ``.git/config`` may name
``core.worktree``. ipuaro's hardened git overrides hooks, fsmonitor, filters … but not the
work tree, so a tarball that ships ``core.worktree = ../..`` (an ancestor such as the home
folder) plus a commit of a placeholder file makes the read-only ``git_diff`` tool (no question
asked) print the *content* of a file outside the project — ``~/.aws/credentials``,
``~/.config/gh/hosts.yml``, ``~/.docker/config.json`` and private notes were all read this way
through ``ipuaro tool git_diff``; only names on the secret list (``.netrc``, ``id_rsa``) were
hidden. ``git_status`` likewise lists files of the whole home folder.

Expected: ipuaro's own git works on the project's tree only (e.g. ``GIT_WORK_TREE``/
``core.worktree`` pinned to the project root in command-line scope), so nothing outside the
project reaches the model.
"""

from __future__ import annotations

from pathlib import Path

from .conftest import Project, git

CANARY = "CANARY-outside-the-project-7f3a"


async def test_git_diff_never_shows_a_file_outside_the_project(
    project: Project, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    creds = outside / "credentials"
    creds.write_text("placeholder\n")
    # What a hostile tarball ships: its work tree is the folder above the project.
    git(project.root, "config", "core.worktree", "../..")
    git(project.root, "add", "../outside/credentials")
    git(project.root, "commit", "-q", "-m", "planted")
    # The user's own file, outside the project, holds a secret.
    creds.write_text(f"aws_secret_access_key={CANARY}\n")

    status = await project.call("git_status")
    diff = await project.call("git_diff")

    assert CANARY not in f"{diff.data} {diff.details} {diff.error}", (
        "git_diff printed a file outside the project (core.worktree from .git/config)"
    )
    assert "outside/credentials" not in f"{status.data}", (
        "git_status listed a file outside the project"
    )


async def test_git_diff_never_shows_another_repository_named_by_a_git_file(
    project: Project, tmp_path: Path
) -> None:
    """A ``.git`` *file* (``gitdir: <elsewhere>``) that a tarball ships: the sandbox no longer
    takes it at its word, but ipuaro's own git follows it, and ``git_diff`` prints the
    committed files of that other repository as deletions (seen with ``ipuaro tool git_diff``
    on a project whose ``.git`` named ``/tmp/qa/priv/.git``: PRIVATE_REPO_CANARY printed)."""
    other = tmp_path / "private-repo"
    other.mkdir()
    (other / "plans.md").write_text(f"{CANARY}\n")
    git(other, "init", "-q")
    git(other, "add", "-A")
    git(other, "commit", "-q", "-m", "private")
    import shutil

    shutil.rmtree(project.root / ".git")
    (project.root / ".git").write_text(f"gitdir: {other / '.git'}\n")

    diff = await project.call("git_diff")
    assert CANARY not in f"{diff.data} {diff.details} {diff.error}", (
        "git_diff printed another repository's file through a planted .git file"
    )
