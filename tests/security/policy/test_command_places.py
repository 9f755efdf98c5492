"""``cd`` in a persistent shell stays inside the project, and every command is judged from the
shell's current directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from ipuaro.security.policy.commands import CommandPolicy

LEAVES = [
    "cd /",
    "cd /etc && ls",
    "cd ..",
    "cd src/../..",
    "cd src; cd ../..",
    "cd out_link",
    "cd out_link/",
    "cd -",
    "cd ~",
    "cd ~/projects",
    "cd",
    "pushd /tmp",
    "pushd ..",
    "builtin cd /",
    "command cd /",
    "(cd / && ls)",
    "bash -c 'cd /'",
    "eval 'cd /'",
    "true && cd / || true",
    "CDPATH=/ cd etc",
    "export CDPATH=/",
    "trap '' USR1",
    "trap - SIGUSR1",
    "trap 'echo x' 10; sleep 1",
]
STAYS = [
    "cd src",
    "cd src/pkg && ls",
    "cd src_link",
    "cd src && cd ..",
    "cd -P src",
    "pushd src",
    "pushd +1",
    "pushd",
    "popd",
    "cd .",
    "cd src/pkg; cd ../..",
    "trap 'echo bye' EXIT",
]


@pytest.mark.parametrize("command", LEAVES)
def test_cd_out_of_the_project_is_refused_in_a_persistent_shell(
    policy: CommandPolicy, command: str
) -> None:
    decision = policy.decide(command, confine_cd=True)
    assert decision.verdict == "deny", decision.reason
    assert any(word in decision.reason for word in ("project", "home", "CDPATH", "USR1"))


@pytest.mark.parametrize("command", LEAVES[:5])
def test_one_shot_commands_may_still_cd_anywhere(policy: CommandPolicy, command: str) -> None:
    assert policy.decide(command).verdict == "allow"


@pytest.mark.parametrize("command", STAYS)
def test_cd_inside_the_project_is_allowed(policy: CommandPolicy, command: str) -> None:
    decision = policy.decide(command, confine_cd=True)
    assert decision.verdict == "allow", decision.reason


def test_relative_paths_are_judged_from_the_shells_directory(
    policy: CommandPolicy, project: Path
) -> None:
    in_pkg = [project / "src" / "pkg"]
    assert policy.decide("cd ..", cwds=in_pkg, confine_cd=True).verdict == "allow"
    assert policy.decide("cd ../../..", cwds=in_pkg, confine_cd=True).verdict == "deny"
    # From the root `../x` is outside; from src/pkg it is the project's src/x.
    assert policy.decide("touch ../x").verdict == "deny"
    assert policy.decide("touch ../x", cwds=in_pkg, confine_cd=True).verdict == "allow"
    assert policy.decide("rm ../../../victim.txt", cwds=in_pkg).verdict == "deny"


def test_a_symlinked_directory_is_judged_by_both_of_its_paths(
    policy: CommandPolicy, project: Path
) -> None:
    """After ``cd src_link`` the shell's ``$PWD`` is ``src_link`` but the kernel resolves
    ``..`` from ``src``: both are given, and the command must be fine from each."""
    both = [project / "src_link", project / "src"]
    assert policy.decide("touch ../new.txt", cwds=both, confine_cd=True).verdict == "allow"
    assert policy.decide("cd ../..", cwds=both, confine_cd=True).verdict == "deny"
