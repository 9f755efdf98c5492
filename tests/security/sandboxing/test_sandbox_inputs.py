"""The sandbox's own inputs cannot be rewritten from inside it, and nothing a project file
names is granted (issue 22, road 3); as root, raw/netlink sockets and ``chroot`` are closed.

Real confined processes; a canary folder outside the project must stay untouched.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from ipuaro.security.sandboxing.confine import root_filter
from ipuaro.security.sandboxing.sandbox import SandboxProfile, engine

pytestmark = pytest.mark.skipif(engine() is None, reason="this kernel has no Landlock")


def git(root: Path, *args: str) -> None:
    ident = ["-c", "user.name=t", "-c", "user.email=t@e", "-c", "core.hooksPath=/dev/null"]
    subprocess.run(["git", *ident, *args], cwd=root, check=True, capture_output=True)


def run(root: Path, home: Path, command: str) -> subprocess.CompletedProcess[str]:
    profile = SandboxProfile.for_project(root, env={"HOME": str(home), "PATH": "/usr/bin:/bin"})
    return subprocess.run(
        profile.wrap(["/bin/sh", "-c", command]),
        cwd=root,
        env=profile.environment({"PATH": "/usr/bin:/bin", "HOME": str(home)}),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path, Path]:
    root, home, outside = tmp_path / "proj", tmp_path / "home", tmp_path / "outside"
    for folder in (root, home, outside):
        folder.mkdir()
    return root, home, outside


@pytest.mark.parametrize("pointer", ["/", "{outside}", "{outside}/.git/worktrees/x"])
def test_a_dot_git_file_never_widens_the_sandbox(
    places: tuple[Path, Path, Path], pointer: str
) -> None:
    root, home, outside = places
    fake = outside / ".git" / "worktrees" / "x"  # looks like a worktree, but never pointed back
    fake.mkdir(parents=True)
    (outside / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / ".git").write_text(f"gitdir: {pointer.format(outside=outside)}\n")
    done = run(root, home, f"echo pwned > {outside}/canary; echo pwned > {fake}/canary; echo ran")
    assert done.stdout.strip() == "ran"
    assert sorted(p.name for p in outside.iterdir()) == [".git"]
    assert not (fake / "canary").exists()


def test_git_and_ipuaro_inputs_are_read_only_and_git_still_commits(
    places: tuple[Path, Path, Path],
) -> None:
    root, home, _ = places
    git(root, "init", "-q", "-b", "main")
    git(root, "commit", "-q", "--allow-empty", "-m", "first")
    (root / ".ipuaro.json").write_text("{}\n")
    (root / ".ipuaro").mkdir()
    (root / ".ipuaro" / "project.json").write_text("{}\n")
    config_before = (root / ".git" / "config").read_bytes()
    attempts = [
        "printf '[core]\\n\\tfsmonitor = /x\\n' >> .git/config",
        "printf '#!/bin/sh\\n' > .git/hooks/pre-commit",
        "rm -rf .git/hooks",
        'echo \'{"sandbox": {"profile": "off"}}\' > .ipuaro.json',
        "rm -f .ipuaro.json",
        "echo x > .ipuaro/commands.json",
        "mv .git .git.old && mkdir .git",
        "umount .git/config",
    ]
    script = "; ".join(f"({a}) 2>/dev/null && echo 'LEAK: {a[:20]}'" for a in attempts)
    script += "; echo hi > f && git add f && git -c user.name=t -c user.email=t@e commit -qm f"
    done = run(root, home, script + " && echo committed")
    assert "LEAK" not in done.stdout, done.stdout
    assert done.stdout.strip().endswith("committed"), done.stderr
    assert (root / ".git" / "config").read_bytes() == config_before
    assert not (root / ".git" / "hooks" / "pre-commit").exists()
    assert (root / ".ipuaro.json").read_text() == "{}\n"
    assert not (root / ".ipuaro" / "commands.json").exists()
    assert not (root / ".git.old").exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="the seccomp filter is for commands run as root")
def test_as_root_raw_and_netlink_sockets_and_chroot_are_refused(
    places: tuple[Path, Path, Path],
) -> None:
    root, home, _ = places
    assert root_filter(os.uname().machine) is not None, "this architecture has no filter"
    probe = (
        "import socket, os\n"
        "def attempt(name, f):\n"
        "    try:\n"
        "        f(); print(name, 'open')\n"
        "    except PermissionError:\n"
        "        print(name, 'refused')\n"
        "attempt('netlink', lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0))\n"
        "attempt('raw', lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, 1))\n"
        "attempt('packet', lambda: socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0))\n"
        "attempt('chroot', lambda: os.chroot('/'))\n"
        "attempt('udp', lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM))\n"
    )
    (root / "probe.py").write_text(probe)
    done = run(root, home, "python3 probe.py")
    assert done.stdout.split("\n")[:5] == [
        "netlink refused",
        "raw refused",
        "packet refused",
        "chroot refused",
        "udp open",
    ], done.stderr


def test_toolchain_folders_on_path_open_their_programs_not_the_secrets_beside_them(
    places: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """``~/.cargo/bin`` and ``~/.local/bin`` on PATH, and a toolchain in a hidden place: their
    programs run and read their own files, but never the keys next to them."""
    root, home, _ = places
    hidden = tmp_path / "opt-hidden" / "tc"
    canaries = {
        home / ".cargo" / "credentials.toml": "CARGO-CANARY",
        home / ".local" / "share" / "keyrings" / "login.keyring": "KEYRING-CANARY",
        hidden / "credentials.toml": "HIDDEN-CANARY",
    }
    for path, text in canaries.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + "\n")
    bins = [home / ".cargo" / "bin", home / ".local" / "bin", hidden / "bin"]
    for n, folder in enumerate(bins):
        folder.mkdir(parents=True)
        (folder.parent / "lib").mkdir(exist_ok=True)
        (folder.parent / "lib" / "data.txt").write_text(f"TOOL-{n}\n")
        tool = folder / f"tool{n}"
        tool.write_text(f"#!/bin/sh\ncat {folder.parent}/lib/data.txt\n")
        tool.chmod(0o755)
    path = os.pathsep.join([*map(str, bins), "/usr/bin", "/bin"])
    profile = SandboxProfile.for_project(root, env={"HOME": str(home), "PATH": path})
    reads = "; ".join(f"cat {p} 2>/dev/null" for p in canaries)
    done = subprocess.run(
        profile.wrap(["/bin/sh", "-c", f"tool0; tool1; tool2; {reads}; echo end"]),
        cwd=root,
        env=profile.environment({"PATH": path, "HOME": str(home)}),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.stdout.split() == ["TOOL-0", "TOOL-1", "TOOL-2", "end"], done.stderr
