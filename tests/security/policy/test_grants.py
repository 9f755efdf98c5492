"""The session's grants: what "always" records, what a new session keeps (only the
configured auto-apply switch), and that a grant never answers more than its own question."""

from __future__ import annotations

from pathlib import Path

import pytest

from ipuaro.config.schema import Config
from ipuaro.security.policy.commands import CommandPolicy
from ipuaro.security.policy.grants import Grants


def test_a_new_session_keeps_only_the_configured_switch() -> None:
    grants = Grants(auto_apply=False)
    grants.grant_command("cargo")
    grants.grant_secret(".env")
    grants.grant_mcp_tool("mcp__time__now")
    grants.grant_edits()
    assert grants.auto_apply and grants.view().auto_apply_always
    fresh = grants.fresh()
    assert fresh.view() == Grants().view()  # nothing answered carries over
    grants.set_auto_apply(True)
    assert grants.fresh().auto_apply and not grants.fresh().view().auto_apply_always


def test_the_switch_off_drops_an_always_on_edits() -> None:
    grants = Grants()
    grants.grant_edits()
    grants.set_auto_apply(False)
    assert not grants.auto_apply


def test_view_lines_name_every_kind() -> None:
    grants = Grants()
    assert grants.view().lines() == []
    grants.grant_command("cargo")
    grants.grant_secret(".env")
    grants.grant_mcp_tool("mcp__time__now")
    grants.grant_edits()
    assert grants.view().lines() == [
        "commands: cargo",
        "secret files: .env",
        "MCP tools: mcp__time__now",
        "edits: applied without asking (answered always)",
    ]


@pytest.fixture
def policy(tmp_path: Path) -> CommandPolicy:
    return CommandPolicy.from_config(tmp_path, Config())


@pytest.mark.parametrize("name", ["sudo", "chmod", "rm -rf", "x/y"])
def test_what_the_policy_refuses_cannot_be_granted(policy: CommandPolicy, name: str) -> None:
    with pytest.raises(ValueError):
        policy.grantable(name)


@pytest.mark.parametrize(
    "command",
    [
        "cp README.md ../outside.md",  # a write outside the project
        "cp README.md .env",  # a protected path
        "cp -r . /tmp/copy",
        "cp README.md x; sudo true",  # privilege escalation beside it
    ],
)
def test_a_granted_name_does_not_allow_what_the_policy_refuses(
    policy: CommandPolicy, command: str
) -> None:
    granted = frozenset({policy.grantable("cp")})
    assert policy.decide("cp README.md copy.md", granted=granted).verdict == "allow"
    assert policy.decide(command, granted=granted).verdict == "deny", command
