"""A repository whose git configuration names programs (as a sandboxed command or a tarball
can plant them): every git path ipuaro has runs none of them.

Each planted program writes a canary file outside the project; after every git path ipuaro
has (session-start ``git status``, ``git_status``, ``git_diff`` whole and per path,
``git_commit`` with files and with what is staged) the canary must not exist.
"""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from ipuaro.agent.context.manager import git_modified
from ipuaro.security.git.git_guard import run_git_sync

from .conftest import Project, git

PLANTS = ("fsmonitor", "hook", "external", "textconv", "filter", "include", "signing")


def plant(project: Project, kind: str, canary: Path) -> None:
    """Make the repository run ``touch canary`` through ``kind``; the program also does what
    git expects of it, so only the canary tells whether it ran."""
    root = project.root
    script = root.parent / f"evil-{kind}.sh"
    script.write_text(f'#!/bin/sh\ntouch "{canary}"\ncat\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    if kind == "fsmonitor":
        git(root, "config", "core.fsmonitor", str(script))
    elif kind == "hook":
        for hook in ("pre-commit", "commit-msg", "post-commit", "post-index-change"):
            target = root / ".git" / "hooks" / hook
            target.write_text(f'#!/bin/sh\ntouch "{canary}"\n')
            target.chmod(0o755)
    elif kind == "external":
        git(root, "config", "diff.external", str(script))
    elif kind == "textconv":
        (root / ".gitattributes").write_text("*.md diff=evil\n")
        git(root, "config", "diff.evil.textconv", str(script))
        git(root, "config", "diff.evil.command", str(script))
    elif kind == "filter":
        (root / ".gitattributes").write_text("*.md filter=evil\n")
        for var in ("clean", "smudge"):
            git(root, "config", f"filter.evil.{var}", str(script))
        git(root, "config", "filter.evil.required", "true")
    elif kind == "include":
        # The program is named in a file inside the project, reached through include.path.
        (root / "innocent.cfg").write_text(
            f"[core]\n\tfsmonitor = {script}\n[diff]\n\texternal = {script}\n"
            f'[filter "x"]\n\tclean = {script}\n\tsmudge = {script}\n'
        )
        (root / ".gitattributes").write_text("*.md filter=x\n")
        git(root, "config", "include.path", str(root / "innocent.cfg"))
        git(root, "config", "core.hooksPath", str(root.parent / "hooks"))
        (root.parent / "hooks").mkdir()
        (root.parent / "hooks" / "pre-commit").write_text(f'#!/bin/sh\ntouch "{canary}"\n')
        (root.parent / "hooks" / "pre-commit").chmod(0o755)
    elif kind == "signing":
        git(root, "config", "commit.gpgSign", "true")
        git(root, "config", "gpg.program", str(script))
        git(root, "config", "log.showSignature", "true")
    else:
        raise AssertionError(kind)


@pytest.mark.parametrize("kind", PLANTS)
async def test_no_git_path_runs_what_the_repository_names(
    project: Project, tmp_path: Path, kind: str
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    canary = outside / "canary"
    plant(project, kind, canary)
    readme = project.root / "README.md"
    readme.write_text("# tools-app\n\nchanged by the model\n")
    (project.root / "fresh.md").write_text("new file\n")

    assert "README.md" in git_modified(project.root)  # session start
    assert not canary.exists(), "session-start git status"
    await project.ok("git_status")
    assert not canary.exists(), "git_status"
    whole = await project.ok("git_diff")
    assert "+changed by the model" in whole.data
    await project.ok("git_diff", path="README.md")
    assert not canary.exists(), "git_diff"
    committed = await project.ok("git_commit", message="One", files=["README.md"])
    assert "Committed" in committed.data
    assert not canary.exists(), "git_commit with files"
    assert run_git_sync(project.root, "add", "fresh.md", timeout=60)[0] == 0
    await project.ok("git_commit", message="Two")
    assert not canary.exists(), "git_commit of what is staged"
    code, log = run_git_sync(project.root, "log", "--format=%s", "-n", "2", timeout=60)
    assert (code, log.split()) == (0, ["Two", "One"])
    assert not canary.exists(), "the test's own git"
