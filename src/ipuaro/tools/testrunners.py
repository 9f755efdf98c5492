"""Which test runners a project has, which of them have tests, and what their output says.

Detected from the project's files (``paths`` are the indexed files): pytest (``test_*.py`` /
``*_test.py``; unittest-style tests run under it too), the ``test`` script of package.json run
by the project's package manager (pnpm / yarn / npm by lockfile) or vitest / jest directly,
``node --test`` for ``*.test.js`` files, ``go test`` (``*_test.go`` under a go.mod) and
``cargo test`` (a Cargo.toml). A runner "has tests" when test files it would run exist; in a
mixed project every runner with tests runs.

The runner's own summary line is parsed into passed / failed / skipped counts (pytest,
unittest, node's TAP and spec reporters, jest, vitest, mocha, go test -v, cargo test). Zero
tests is "no tests ran" — never "passed".
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ipuaro.domain.repofiles import CONFIG_FILE_LIMIT, read_repo_bytes

NPM_DEFAULT_TEST = 'echo "Error: no test specified" && exit 1'
JS_SUFFIXES = (".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx", ".mts", ".cts")
_JS_TEST = re.compile(r"(^|/)(__tests__/.*|[^/]+\.(test|spec)\.[cm]?[jt]sx?)$")
_NODE_TEST = re.compile(r"(^|/)([^/]+\.test\.[cm]?js|test/[^/]+\.[cm]?js)$")
_PY_TEST = re.compile(r"(^|/)(test_[^/]*|[^/]*_test)\.py$")


@dataclass(frozen=True)
class TestPlan:
    runner: str
    command: str
    has_tests: bool = True
    """Test files this runner would run exist (a runner without them is run only when no
    runner has any, to say so)."""


@dataclass(frozen=True)
class TestCounts:
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    summary: str = ""
    """The runner's own summary line(s), as printed."""

    @property
    def ran(self) -> int:
        return self.passed + self.failed

    def text(self) -> str:
        parts = [f"{self.passed} passed", f"{self.failed} failed"]
        if self.skipped:
            parts.append(f"{self.skipped} skipped")
        return ", ".join(parts)


def _read_json(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(read_repo_bytes(path, CONFIG_FILE_LIMIT).decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def _package_manager(root: Path) -> str:
    if (root / "pnpm-lock.yaml").is_file():
        return "pnpm"
    if (root / "yarn.lock").is_file():
        return "yarn"
    return "npm"


def js_plan(
    root: Path, paths: list[str], target: str | None, name_filter: str | None
) -> TestPlan | None:
    package = _read_json(root / "package.json")
    scripts = package.get("scripts") if isinstance(package.get("scripts"), dict) else {}
    assert isinstance(scripts, dict)
    script = str(scripts.get("test", "") or "").strip()
    deps: dict[str, Any] = {}
    for key in ("dependencies", "devDependencies"):
        if isinstance(package.get(key), dict):
            deps.update(package[key])
    quoted = f" {shlex.quote(target)}" if target else ""
    has_tests = any(_JS_TEST.search(p) for p in paths)
    named = f" -t {shlex.quote(name_filter)}" if name_filter else ""
    if "vitest" in script or ("vitest" in deps and not script):
        return TestPlan("vitest", f"npx vitest run{quoted}{named}", has_tests)
    if "jest" in script or ("jest" in deps and not script):
        return TestPlan("jest", f"npx jest{quoted}{named}", has_tests)
    node_tests = any(_NODE_TEST.search(p) for p in paths)
    pattern = f" --test-name-pattern={shlex.quote(name_filter)}" if name_filter else ""
    if script and script != NPM_DEFAULT_TEST:
        node = "node --test" in script or "node:test" in script
        if node and (target or name_filter):
            return TestPlan("node --test", f"node --test{pattern}{quoted}", node_tests)
        manager = _package_manager(root)
        extra = f" --{quoted}" if target and manager == "npm" else quoted
        # a custom script (mocha, a build then tests…) is taken to have tests; its summary says
        return TestPlan(f"{manager} test", f"{manager} test{extra}", node_tests if node else True)
    if node_tests:
        return TestPlan("node --test", f"node --test{pattern}{quoted}")
    return None


def python_plan(
    root: Path, paths: list[str], target: str | None, name_filter: str | None
) -> TestPlan | None:
    markers = ("pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini", "conftest.py")
    has_tests = any(_PY_TEST.search(p) for p in paths)
    if not has_tests and not any((root / m).is_file() for m in markers):
        return None
    python = root / ".venv" / "bin" / "python"
    executable = str(python.relative_to(root)) if python.is_file() else "python3"
    quoted = f" {shlex.quote(target)}" if target else ""
    named = f" -k {shlex.quote(name_filter)}" if name_filter else ""
    # no .pytest_cache left in the project by a run the user did not type
    command = f"{executable} -m pytest -q -p no:cacheprovider{quoted}{named}"
    return TestPlan("pytest", command, has_tests)


def go_plan(
    root: Path, paths: list[str], target: str | None, name_filter: str | None
) -> TestPlan | None:
    if not (root / "go.mod").is_file():
        return None
    has_tests = any(p.endswith("_test.go") for p in paths)
    where = "./..."
    if target:
        folder = target if not target.endswith(".go") else str(Path(target).parent)
        where = "./" + folder.strip("/") if folder not in ("", ".") else "."
    run = f" -run {shlex.quote(name_filter)}" if name_filter else ""
    return TestPlan("go test", f"go test -v{run} {where}", has_tests)


def cargo_plan(
    root: Path, paths: list[str], target: str | None, name_filter: str | None
) -> TestPlan | None:
    if not (root / "Cargo.toml").is_file():
        return None
    has_tests = any(p.endswith(".rs") for p in paths)  # #[test] lives anywhere in the crate
    named = f" {shlex.quote(name_filter)}" if name_filter else ""
    return TestPlan("cargo test", f"cargo test{named}", has_tests)


_DETECTORS = (python_plan, js_plan, go_plan, cargo_plan)
_BY_SUFFIX = {".py": python_plan, ".go": go_plan, ".rs": cargo_plan}


def detect_plans(
    root: Path, paths: list[str], target: str | None = None, name_filter: str | None = None
) -> list[TestPlan]:
    """The runs to make: every detected runner that has tests (one when a ``target`` file
    names its runner); when none has tests, the first detected, so the run says so."""
    if target:
        suffix = Path(target).suffix
        detector = _BY_SUFFIX.get(suffix) or (js_plan if suffix in JS_SUFFIXES else None)
        if detector is not None:
            plan = detector(root, paths, target, name_filter)
            if plan is not None:
                return [plan]
    found = [plan for detect in _DETECTORS if (plan := detect(root, paths, target, name_filter))]
    with_tests = [plan for plan in found if plan.has_tests]
    return with_tests or found[:1]


# --- the runner's summary --------------------------------------------------------------------

_COUNT = re.compile(
    r"(\d+) (passed|failed|skipped|errors?|xfailed|xpassed|todo|passing|failing|pending)"
)
_PYTEST = re.compile(r"^=*\s*((?:\d+ \w+(?:, )?)+|no tests ran) in [\d.]+s", re.M)
_UNITTEST_RAN = re.compile(r"^Ran (\d+) tests? in", re.M)
_UNITTEST_END = re.compile(r"^(OK|FAILED)(?: \(([^)]*)\))?\s*$", re.M)
_NODE = re.compile(r"^[#ℹ] (tests|pass|fail|skipped|todo|cancelled) (\d+)\s*$", re.M)
_JEST = re.compile(r"^Tests:\s+(.*\d+ total)\s*$", re.M)
_VITEST = re.compile(r"^\s*Tests\s+(.*\(\d+\))\s*$", re.M)
_MOCHA = re.compile(r"^\s*(\d+) (passing|failing|pending)\b", re.M)
_GO = re.compile(r"^\s*--- (PASS|FAIL|SKIP):", re.M)
_GO_END = re.compile(r"^(ok|FAIL|\?)\s+\S+.*$", re.M)
_CARGO = re.compile(r"^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored.*$", re.M)
_NO_TESTS = re.compile(r"no tests ran|No test files found|no test files|No tests found", re.I)


def _counted(text: str, summary: str) -> TestCounts:
    found: dict[str, int] = {}
    for number, word in _COUNT.findall(text):
        found[word] = found.get(word, 0) + int(number)
    passed = found.get("passed", 0) + found.get("passing", 0) + found.get("xpassed", 0)
    failed = (
        found.get("failed", 0)
        + found.get("failing", 0)
        + found.get("error", 0)
        + found.get("errors", 0)
    )
    skipped = (
        found.get("skipped", 0)
        + found.get("pending", 0)
        + found.get("todo", 0)
        + found.get("xfailed", 0)
    )
    return TestCounts(passed, failed, skipped, summary)


def parse_counts(output: str) -> TestCounts | None:
    """Counts from the last summary a known runner printed, or None when there is none."""
    if match := _cargo_counts(output):
        return match
    if matches := _JEST.findall(output):
        return _counted(matches[-1], "Tests: " + matches[-1])
    if matches := _VITEST.findall(output):
        return _counted(matches[-1], "Tests " + matches[-1])
    if node := _NODE.findall(output):
        values = dict(node)
        counts = TestCounts(
            int(values.get("pass", 0)),
            int(values.get("fail", 0)) + int(values.get("cancelled", 0)),
            int(values.get("skipped", 0)) + int(values.get("todo", 0)),
            " · ".join(f"{k} {v}" for k, v in node),
        )
        return counts
    if matches := _PYTEST.findall(output):
        return _counted(matches[-1], matches[-1])
    if ran := _UNITTEST_RAN.findall(output):
        total = int(ran[-1])
        ends = _UNITTEST_END.findall(output)
        status, detail = ends[-1] if ends else ("", "")
        numbers = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", detail)}
        failed = numbers.get("failures", 0) + numbers.get("errors", 0)
        skipped = numbers.get("skipped", 0) + numbers.get("expected_failures", 0)
        summary = f"Ran {total} tests: {status}" + (f" ({detail})" if detail else "")
        return TestCounts(max(total - failed - skipped, 0), failed, skipped, summary)
    if mocha := _MOCHA.findall(output):
        return _counted(
            " ".join(f"{n} {w}" for n, w in mocha), ", ".join(" ".join(m) for m in mocha)
        )
    if results := _GO.findall(output):
        ends = _GO_END.findall(output)
        summary = f"{len(ends)} package(s) — " if ends else ""
        counts = TestCounts(results.count("PASS"), results.count("FAIL"), results.count("SKIP"))
        return TestCounts(counts.passed, counts.failed, counts.skipped, summary + counts.text())
    if nothing := _NO_TESTS.search(output):
        return TestCounts(summary=nothing.group(0))
    return None


def _cargo_counts(output: str) -> TestCounts | None:
    """One ``test result:`` line per test binary, summed."""
    lines = _CARGO.findall(output)
    if not lines:
        return None
    passed = sum(int(p) for p, _, _ in lines)
    failed = sum(int(f) for _, f, _ in lines)
    skipped = sum(int(i) for _, _, i in lines)
    return TestCounts(passed, failed, skipped, f"{len(lines)} test binaries: {passed} passed")
