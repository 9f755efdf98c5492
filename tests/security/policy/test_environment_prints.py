"""Printing the environment is a secret read (``CommandDecision.secret``), like
``cat /proc/self/environ``: a person may allow it, ``ipuaro run --allow-commands`` does not.
Naming harmless variables (``printenv HOME``) is allowed; a wrapper that runs a command with
a variable set (``env VAR=1 cmd``) prints nothing of its own and is judged by ``cmd``."""

from __future__ import annotations

from pathlib import Path

import pytest

from ipuaro.security.policy.commands import CommandPolicy, authorize

WHOLE = "prints the whole environment, which may hold secrets"

PRINTS_THE_ENVIRONMENT: list[tuple[str, str]] = [
    ("env", WHOLE),
    ("env -0", WHOLE),
    ("env -u HOME", WHOLE),
    ("env QA=1", WHOLE),
    ("printenv", WHOLE),
    ("printenv -0", WHOLE),
    ("set", WHOLE),
    ("export", WHOLE),
    ("export -p", WHOLE),
    ("declare -x", WHOLE),
    ("declare -p", WHOLE),
    ("typeset", WHOLE),
    ("env | grep -i pass", WHOLE),
    ("timeout 5 env", WHOLE),
    ("nohup printenv", WHOLE),
    ("bash -c env", WHOLE),
    ("sh -c 'export -p'", WHOLE),
    ("ls; env", WHOLE),
    ("printenv DB_PASSWORD", "prints `DB_PASSWORD`, which may hold a secret"),
    ("printenv HOME GITHUB_TOKEN", "prints `GITHUB_TOKEN`, which may hold a secret"),
    ("declare -p AWS_SECRET", "prints `AWS_SECRET`, which may hold a secret"),
    ("printenv $NAME", "prints a variable named only at run time (`$NAME`)"),
    ("ps e", "`ps e` prints the environment of every process"),
    ("ps auxeww", "`ps e` prints the environment of every process"),
    ("ps -u me axe", "`ps e` prints the environment of every process"),
    ("echo $DB_PASSWORD", "expands `$DB_PASSWORD`, which may hold a secret"),
]

# Run a command with a variable set, set shell options, or print harmless named variables.
NOT_PRINTING: list[str] = [
    "env QA=1 ls",
    "env -u HOME ls",
    "env -C src ls",
    "env QA=1 printenv QA",
    "printenv HOME",
    "printenv HOME PATH LANG",
    "declare -p HOME",
    "export QA=1",
    "set -e",
    "set -o pipefail",
    "echo $HOME",
]


@pytest.fixture
def policy(tmp_path: Path) -> CommandPolicy:
    (tmp_path / "src").mkdir()
    return CommandPolicy(tmp_path, [], ["ps"])


@pytest.mark.parametrize(("command", "reason"), PRINTS_THE_ENVIRONMENT)
def test_printing_the_environment_is_a_secret_read(
    policy: CommandPolicy, command: str, reason: str
) -> None:
    decision = policy.decide(command)
    assert decision.verdict == "ask", decision.reason  # a person is still asked
    assert decision.secret, decision.reason  # --allow-commands does not answer for them
    assert reason in decision.reason
    assert "secrets need the user's allowance" in decision.reason


def test_the_whole_environment_says_how_to_do_without_it(policy: CommandPolicy) -> None:
    reason = policy.decide("env").reason
    assert "name the variables you need instead: `printenv HOME PATH`" in reason


@pytest.mark.parametrize("command", NOT_PRINTING)
def test_named_harmless_variables_and_wrappers_are_not_caught(
    policy: CommandPolicy, command: str
) -> None:
    decision = policy.decide(command)
    assert decision.verdict == "allow", decision.reason
    assert not decision.secret


@pytest.mark.parametrize("command", ["ps aux", "ps -ef", "ps -eo pid,user", "ps -u steve"])
def test_ps_without_the_environment_letter_is_no_secret(
    policy: CommandPolicy, command: str
) -> None:
    decision = policy.decide(command)  # `ps` is whitelisted in this fixture
    assert decision.verdict == "allow", decision.reason


def test_an_unknown_printer_stays_a_plain_question(tmp_path: Path) -> None:
    """Without the whitelist entry `ps aux` asks because `ps` is unknown — a question
    --allow-commands may answer, unlike `ps e`."""
    policy = CommandPolicy(tmp_path, [], [])
    plain = policy.decide("ps aux")
    assert plain.verdict == "ask" and not plain.secret
    assert policy.decide("ps e").secret


async def test_nobody_to_ask_refuses_it_with_the_reason(policy: CommandPolicy) -> None:
    refused = await authorize(policy.decide("printenv"), None)
    assert refused.verdict == "deny"
    assert WHOLE in refused.reason and "nobody can be asked" in refused.reason

    async def yes(_: object) -> bool:
        return True

    allowed = await authorize(policy.decide("printenv"), yes)
    assert allowed.verdict == "allow"  # a person may let it run
