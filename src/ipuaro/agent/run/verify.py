"""Checks after a turn's edits: the project's remembered lint and test commands, run once after
the model's last edit of a request's turn when ``verify.afterEdits`` says so (off / lint / test
/ both), as aider's ``--auto-lint`` / ``--auto-test`` do.

The commands are the engineering memory's ``project.default_lint_command`` and
``project.default_test_command``; each runs like any command ipuaro runs (the command policy,
the sandbox, the output cap). A failure goes back to the model as a new user-side message and
the request goes on; at most ``verify.maxFixRounds`` times per request, after which the run ends
with the failure said. ``/verify`` runs the same checks on demand (:func:`run_checks`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ipuaro.memory import project_value

if TYPE_CHECKING:
    from ipuaro.tools.base import ToolContext

CheckKind = Literal["lint", "test"]
KEYS: dict[CheckKind, str] = {
    "lint": "project.default_lint_command",
    "test": "project.default_test_command",
}


@dataclass(frozen=True)
class CheckRun:
    kind: CheckKind
    command: str
    ok: bool
    report: str
    """``$ command``, exit code and the capped output, as the model reads command results."""


def kinds_for(mode: str) -> tuple[CheckKind, ...]:
    if mode == "both":
        return ("lint", "test")
    if mode in ("lint", "test"):
        return (mode,)  # type: ignore[return-value]  # narrowed by the test above
    return ()


async def run_checks(ctx: ToolContext, kinds: tuple[CheckKind, ...]) -> list[CheckRun]:
    """Run each remembered command of ``kinds`` (a kind with no remembered command is left
    out) through the command policy and the sandbox."""
    from ipuaro.tools.shell import run_checked

    runs: list[CheckRun] = []
    for kind in kinds:
        command = project_value(ctx.root, KEYS[kind])
        if not isinstance(command, str) or not command.strip():
            continue
        outcome = await run_checked(
            ctx, command, ctx.root, f"verify: the {kind} command", tests=kind == "test"
        )
        report = outcome.content if outcome.success else (outcome.error or outcome.content)
        runs.append(CheckRun(kind, command, outcome.success, report))
    return runs


def missing_commands(ctx: ToolContext, kinds: tuple[CheckKind, ...]) -> list[str]:
    """The memory keys ``kinds`` need that are not remembered (for ``/verify`` to say)."""
    return [
        KEYS[kind] for kind in kinds if not isinstance(project_value(ctx.root, KEYS[kind]), str)
    ]


def failure_message(failed: list[CheckRun], round_number: int, rounds: int) -> str:
    parts = [
        f"The checks after your edits failed (verify.afterEdits, fix round {round_number} of "
        f"{rounds}). Fix the code so they pass, then answer again:"
    ]
    parts += [f"--- {run.kind}: {run.command}\n{run.report}" for run in failed]
    return "\n\n".join(parts)


@dataclass
class AfterEditChecks:
    """One request's after-edit checks: when to run them and how many rounds remain."""

    mode: str
    max_rounds: int
    rounds: int = 0
    checked_changes: int = 0
    last_failure: str = ""

    async def feedback(self, ctx: ToolContext, changes: int) -> str | None:
        """The message for the model when the checks fail after new edits (``changes`` is the
        request's count of changed files so far); None when there is nothing to say."""
        kinds = kinds_for(self.mode)
        if not kinds or changes == self.checked_changes:
            return None
        self.checked_changes = changes
        failed = [run for run in await run_checks(ctx, kinds) if not run.ok]
        if not failed:
            self.last_failure = ""
            return None
        self.last_failure = ", ".join(f"{run.kind} ({run.command})" for run in failed)
        if self.rounds >= self.max_rounds:
            return None
        self.rounds += 1
        return failure_message(failed, self.rounds, self.max_rounds)

    def gave_up(self) -> str | None:
        """The detail for the end of a request whose checks still fail after every round."""
        if not self.last_failure:
            return None
        return (
            f"the checks still fail after {self.rounds} fix round(s): {self.last_failure} "
            "(verify.maxFixRounds)"
        )
