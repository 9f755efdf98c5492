"""A small real project in tmp_path, with secrets, protected files and symlinks in and out."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ipuaro.config.schema import Config
from ipuaro.security.policy.commands import CommandPolicy
from ipuaro.security.policy.paths import PathPolicy


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A directory next to the project, with a file the agent must never reach."""
    directory = tmp_path / "outside"
    directory.mkdir()
    (directory / "victim.txt").write_text("do not touch\n")
    return directory


@pytest.fixture
def project(tmp_path: Path, outside: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "a.py").write_text("print('a')\n")
    (root / "src" / "pkg" / "b.py").write_text("print('b')\n")
    (root / "secrets").mkdir()
    (root / "secrets" / "token.txt").write_text("t0ken\n")
    (root / "config").mkdir()
    (root / "config" / "server.pem").write_text("-----BEGIN-----\n")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]\n")
    (root / ".env").write_text("API_KEY=x\n")
    (root / ".env.example").write_text("API_KEY=\n")
    (root / ".env.local").write_text("API_KEY=y\n")
    (root / "README.md").write_text("# proj\n")
    os.symlink(outside, root / "out_link")  # a directory link leaving the project
    os.symlink(outside / "victim.txt", root / "victim_link.txt")  # a file link leaving it
    os.symlink(outside / "missing.txt", root / "dangling_out.txt")  # dangling, outside
    os.symlink(root / "src", root / "src_link")  # a link that stays inside
    os.symlink("src/a.py", root / "a_link.py")  # a relative file link inside
    os.symlink(root / ".git", root / "git_link")  # an inside link into a protected folder
    os.symlink(root / ".env", root / "env_link")  # an inside link to a secret
    os.symlink("loop_b", root / "loop_a")
    os.symlink("loop_a", root / "loop_b")
    return root


@pytest.fixture
def path_policy(project: Path) -> PathPolicy:
    return PathPolicy.from_config(project, Config())


@pytest.fixture
def policy(project: Path) -> CommandPolicy:
    return CommandPolicy.from_config(project, Config())
