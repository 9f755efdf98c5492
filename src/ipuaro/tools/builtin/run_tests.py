"""run_tests: detect the project's test runner and run it (optionally one path / one filter).

Precedence: the remembered ``project.default_test_command`` (``.ipuaro/project.json``, see
``ipuaro.memory``) > package.json
(vitest, jest, the ``test`` script) > ``node --test`` for ``*.test.js`` files > pytest. Every
command still goes through the command policy: a command read from a repository file never
bypasses it.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field

from ipuaro.domain.repofiles import CONFIG_FILE_LIMIT, read_repo_bytes
from ipuaro.memory import project_value
from ipuaro.tools.base import ArgsModel, BaseTool, ToolContext, ToolError, ToolOutcome
from ipuaro.tools.common import project_path
from ipuaro.tools.shell import run_checked

REMEMBERED_KEY = "project.default_test_command"
NPM_DEFAULT_TEST = 'echo "Error: no test specified" && exit 1'
_JS_SUFFIXES = (".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx", ".mts", ".cts")


class RunTestsArgs(ArgsModel):
    path: str | None = Field(None, description="Test file or folder; default all tests")
    filter: str | None = Field(None, description="Only tests whose name matches this")


@dataclass(frozen=True)
class TestPlan:
    runner: str
    command: str


def _read_json(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(read_repo_bytes(path, CONFIG_FILE_LIMIT).decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def _js_plan(
    root: Path, paths: list[str], target: str | None, name_filter: str | None
) -> TestPlan | None:
    package = _read_json(root / "package.json")
    scripts = package.get("scripts") if isinstance(package.get("scripts"), dict) else {}
    assert isinstance(scripts, dict)
    script = str(scripts.get("test", "") or "")
    deps: dict[str, Any] = {}
    for key in ("dependencies", "devDependencies"):
        if isinstance(package.get(key), dict):
            deps.update(package[key])
    quoted = f" {shlex.quote(target)}" if target else ""
    if "vitest" in script or ("vitest" in deps and not script):
        flt = f" -t {shlex.quote(name_filter)}" if name_filter else ""
        return TestPlan("vitest", f"npx vitest run{quoted}{flt}")
    if "jest" in script or ("jest" in deps and not script):
        flt = f" -t {shlex.quote(name_filter)}" if name_filter else ""
        return TestPlan("jest", f"npx jest{quoted}{flt}")
    if script and script.strip() != NPM_DEFAULT_TEST:
        if "node --test" in script or "node:test" in script:
            flt = f" --test-name-pattern={shlex.quote(name_filter)}" if name_filter else ""
            if target or name_filter:
                return TestPlan("node --test", f"node --test{flt}{quoted}")
        extra = f" --{quoted}" if target else ""
        return TestPlan("npm test", f"npm test{extra}")
    if any(p.endswith((".test.js", ".test.mjs", ".test.cjs")) for p in paths):
        flt = f" --test-name-pattern={shlex.quote(name_filter)}" if name_filter else ""
        return TestPlan("node --test", f"node --test{flt}{quoted}")
    return None


def _python_plan(
    root: Path, paths: list[str], target: str | None, name_filter: str | None
) -> TestPlan | None:
    markers = ("pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini", "conftest.py")
    has_tests = any(p.rsplit("/", 1)[-1].startswith("test_") and p.endswith(".py") for p in paths)
    if not has_tests and not any((root / m).is_file() for m in markers):
        return None
    python = root / ".venv" / "bin" / "python"
    executable = str(python.relative_to(root)) if python.is_file() else "python3"
    quoted = f" {shlex.quote(target)}" if target else ""
    flt = f" -k {shlex.quote(name_filter)}" if name_filter else ""
    return TestPlan("pytest", f"{executable} -m pytest -q{quoted}{flt}")


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


def detect_tests(
    root: Path, paths: list[str], target: str | None = None, name_filter: str | None = None
) -> TestPlan | None:
    """The command that runs the tests; ``paths`` are the project's indexed files."""
    preferred = _preferred(root, target, name_filter)
    if preferred is not None:
        return preferred
    js = _js_plan(root, paths, target, name_filter)
    py = _python_plan(root, paths, target, name_filter)
    if target and target.endswith(".py") and py is not None:
        return py
    if target and target.endswith(_JS_SUFFIXES) and js is not None:
        return js
    return js or py


class RunTests(BaseTool):
    name = "run_tests"
    description = (
        "Run the project's tests (the remembered project.default_test_command, else detected: "
        "vitest, jest, npm test, node --test, pytest). Optionally one test file/folder and a "
        "name filter."
    )
    args_model = RunTestsArgs
    read_only = False
    needs_confirmation = True
    path_fields: ClassVar[tuple[str, ...]] = ("path",)

    async def execute(self, args: RunTestsArgs, ctx: ToolContext) -> ToolOutcome:
        target = project_path(ctx, args.path) if args.path else None
        paths = sorted(ctx.store.file_hashes())
        plan = detect_tests(ctx.root, paths, target, args.filter)
        if plan is None:
            raise ToolError(
                "no test runner found (no package.json test script, vitest, jest, *.test.js "
                "or pytest setup); ask the user for the test command and remember it as "
                f"{REMEMBERED_KEY}."
            )
        outcome = await run_checked(ctx, plan.command, ctx.root, f"run_tests via {plan.runner}")
        if isinstance(outcome.data, dict):
            outcome.data["runner"] = plan.runner
        verdict = "tests passed" if outcome.success else "tests failed (or could not run)"
        outcome.content = f"{verdict} — runner: {plan.runner}\n{outcome.content}"
        if not outcome.success:
            outcome.error = outcome.content
        return outcome
