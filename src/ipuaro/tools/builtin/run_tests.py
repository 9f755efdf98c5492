"""run_tests: detect the project's test runners and run the ones that have tests (optionally
one path / one filter); say what ran: passed / failed / skipped counts from the runner's own
summary line, and "no tests ran" when nothing ran — never "passed".

Precedence: the remembered ``project.default_test_command`` (``.ipuaro/project.json``, see
``ipuaro.memory``) > every detected runner with tests (``ipuaro.tools.testrunners``). Every
command still goes through the command policy: a command read from a repository file never
bypasses it.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field

from ipuaro.memory import project_value
from ipuaro.tools.base import ArgsModel, BaseTool, ToolContext, ToolError, ToolOutcome
from ipuaro.tools.common import project_path
from ipuaro.tools.shell import run_checked
from ipuaro.tools.testrunners import TestCounts, TestPlan, detect_plans, parse_counts

REMEMBERED_KEY = "project.default_test_command"

__all__ = ["REMEMBERED_KEY", "RunTests", "TestPlan", "detect_tests", "verdict"]


class RunTestsArgs(ArgsModel):
    path: str | None = Field(None, description="Test file or folder; default all tests")
    filter: str | None = Field(None, description="Only tests whose name matches this")


def _preferred(root: Path, target: str | None, name_filter: str | None) -> TestPlan | None:
    command = project_value(root, REMEMBERED_KEY)
    if not isinstance(command, str):
        return None
    if target:
        command += f" {shlex.quote(target)}"
    if name_filter:
        if "pytest" in command:
            command += f" -k {shlex.quote(name_filter)}"
        elif "vitest" in command or "jest" in command:
            command += f" -t {shlex.quote(name_filter)}"
        elif "node --test" in command:
            command += f" --test-name-pattern={shlex.quote(name_filter)}"
    return TestPlan(REMEMBERED_KEY, command)


def detect_all(
    root: Path, paths: list[str], target: str | None = None, name_filter: str | None = None
) -> list[TestPlan]:
    """The commands to run; ``paths`` are the project's indexed files."""
    preferred = _preferred(root, target, name_filter)
    if preferred is not None:
        return [preferred]
    return detect_plans(root, paths, target, name_filter)


def detect_tests(
    root: Path, paths: list[str], target: str | None = None, name_filter: str | None = None
) -> TestPlan | None:
    """The first command :func:`detect_all` would run."""
    plans = detect_all(root, paths, target, name_filter)
    return plans[0] if plans else None


def verdict(exit_code: int | None, counts: TestCounts | None) -> str:
    """``passed``, ``failed``, ``no tests ran`` or ``could not run``."""
    if counts is not None and counts.failed:
        return "failed"
    if exit_code == 5 or (counts is not None and counts.ran == 0):
        return "no tests ran"  # pytest's exit 5: nothing collected
    if exit_code == 0:
        return "passed"
    return "failed" if counts is not None else "could not run"


class RunTests(BaseTool):
    name = "run_tests"
    description = (
        "Run the project's tests (the remembered project.default_test_command, else every "
        "detected runner that has tests: pytest, vitest, jest, npm/pnpm/yarn test, node --test, "
        "go test, cargo test). Optionally one test file/folder and a name filter. Says the "
        "passed/failed/skipped counts, and 'no tests ran' when none ran."
    )
    args_model = RunTestsArgs
    read_only = False
    needs_confirmation = True
    path_fields: ClassVar[tuple[str, ...]] = ("path",)

    async def execute(self, args: RunTestsArgs, ctx: ToolContext) -> ToolOutcome:
        target = project_path(ctx, args.path) if args.path else None
        unprintable = [c for c in args.filter or "" if not c.isprintable()]
        if unprintable:  # the policy would refuse the whole command without naming the filter
            code = f"U+{ord(unprintable[0]):04X}"
            raise ToolError(
                f"filter {args.filter!r} contains the control character {code}; "
                "give the test name's plain text"
            )
        paths = sorted(ctx.store.file_hashes())
        plans = detect_all(ctx.root, paths, target, args.filter)
        if not plans:
            raise ToolError(
                "no test runner found (no pytest tests, package.json test script, vitest, jest, "
                "*.test.js, go.mod or Cargo.toml); ask the user for the test command and "
                f"remember it as {REMEMBERED_KEY}."
            )
        runs: list[dict[str, Any]] = []
        texts: list[str] = []
        for plan in plans:
            outcome = await run_checked(
                ctx, plan.command, ctx.root, f"run_tests via {plan.runner}", tests=True
            )
            if outcome.refused:
                return outcome
            data = outcome.data if isinstance(outcome.data, dict) else {}
            output = outcome.content if outcome.success else (outcome.error or outcome.content)
            exit_code = data.get("exitCode")
            counts = parse_counts(output)
            said = verdict(exit_code if isinstance(exit_code, int) else None, counts)
            runs.append(_run_data(plan, said, counts, data))
            head = f"{_headline(said, counts)} — runner: {plan.runner}"
            if counts is not None and counts.summary:
                head += f" (its summary: {counts.summary})"
            texts.append(f"{head}\n{output}")
        overall = _overall([run["verdict"] for run in runs])
        content = "\n\n".join(texts)
        if len(runs) > 1:
            content = f"{overall}: {len(runs)} runners ran\n\n{content}"
        result_data: dict[str, Any] = {**runs[0], "verdict": overall, "runs": runs}
        if overall == "passed":
            return ToolOutcome.ok(content, data=result_data)
        failed = ToolOutcome.fail(content)
        failed.data = result_data
        return failed


def _headline(said: str, counts: TestCounts | None) -> str:
    if said == "passed":
        return f"tests passed ({counts.text()})" if counts else "tests passed (exit code 0)"
    if said == "failed":
        return f"tests failed ({counts.text()})" if counts else "tests failed"
    if said == "no tests ran":
        return "no tests ran (this is not a pass: the runner found no tests)"
    return "tests could not run"


def _overall(verdicts: list[str]) -> str:
    for worst in ("failed", "could not run", "no tests ran"):
        if worst in verdicts:
            return worst
    return "passed"


def _run_data(
    plan: TestPlan, said: str, counts: TestCounts | None, data: dict[str, Any]
) -> dict[str, Any]:
    return {
        **data,
        "runner": plan.runner,
        "verdict": said,
        "passed": counts.passed if counts else None,
        "failed": counts.failed if counts else None,
        "skipped": counts.skipped if counts else None,
        "summary": counts.summary if counts else None,
    }
