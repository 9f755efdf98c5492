"""run_tests tells the truth, with the real runners as real processes: in a TypeScript + Python
project whose ``npm test`` finds nothing it runs the pytest tests; a test script that runs no
test says "no tests ran" (never "passed"); every runner's own summary line becomes counts."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ipuaro.config.schema import Config
from ipuaro.domain import ToolResult
from ipuaro.index.pipeline.indexer import Indexer
from ipuaro.store.sqlite import SqliteStore
from ipuaro.tools.base import ToolContext
from ipuaro.tools.builtin.run_tests import verdict
from ipuaro.tools.context import build_context
from ipuaro.tools.registry import ToolRegistry
from ipuaro.tools.testrunners import detect_plans, parse_counts

NODE_TEST_SCRIPT = {"name": "shop", "version": "1.0.0", "scripts": {"test": "node --test"}}
PY_TESTS = (
    "from shop.price import total\n\n\n"
    "def test_total():\n    assert total([1, 2]) == 3\n\n\n"
    "def test_empty():\n    assert total([]) == 0\n"
)


@dataclass
class Env:
    root: Path
    store: SqliteStore
    ctx: ToolContext

    async def run_tests(self, **arguments: Any) -> ToolResult:
        return await ToolRegistry.default().call("run_tests", arguments, self.ctx, call_id="t")


def make_env(tmp_path: Path, files: dict[str, str]) -> Env:
    root = tmp_path / "project"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    config = Config()
    store = SqliteStore(tmp_path / "store.db", "tests-testrunners")
    indexer = Indexer(root, config, store)
    indexer.index()
    ctx = build_context(
        root, config, store, lambda c, d: indexer.update_paths(c, d), session_id="s"
    )
    ctx = ctx.replace(headless_allow_commands=True)
    return Env(root, store, ctx)


@pytest.fixture
def mixed(tmp_path: Path) -> Iterator[Env]:
    env = make_env(
        tmp_path,
        {
            "package.json": json.dumps(NODE_TEST_SCRIPT),
            "web/format.ts": "export function format(n: number): string { return `${n}`; }\n",
            "shop/__init__.py": "",
            "shop/price.py": "def total(items):\n    return sum(items)\n",
            "tests/test_price.py": PY_TESTS,
        },
    )
    yield env
    env.store.close()


async def test_a_mixed_ts_and_python_project_runs_the_pytest_tests(mixed: Env) -> None:
    result = await mixed.run_tests()
    assert result.success, result.error
    data = (result.details or {})["data"]
    assert [(r["runner"], r["verdict"], r["passed"]) for r in data["runs"]] == [
        ("pytest", "passed", 2)
    ]
    assert str(result.data).startswith("tests passed (2 passed, 0 failed) — runner: pytest")


async def test_a_test_script_that_runs_no_test_says_no_tests_ran(tmp_path: Path) -> None:
    env = make_env(
        tmp_path,
        {
            "package.json": json.dumps(NODE_TEST_SCRIPT),
            "web/format.ts": "export const x = 1;\n",
        },
    )
    try:
        result = await env.run_tests()
    finally:
        env.store.close()
    assert not result.success
    assert "no tests ran" in (result.error or "") and "tests passed" not in (result.error or "")
    data = (result.details or {})["data"]
    assert (data["runner"], data["verdict"], data["passed"]) == ("npm test", "no tests ran", 0)


async def test_a_failing_python_test_is_counted(mixed: Env) -> None:
    (mixed.root / "tests/test_price.py").write_text(
        PY_TESTS + "\n\ndef test_wrong():\n    assert total([2]) == 3\n"
    )
    result = await mixed.run_tests()
    assert not result.success
    run = (result.details or {})["data"]["runs"][0]
    assert (run["verdict"], run["passed"], run["failed"]) == ("failed", 2, 1)
    assert "tests failed (2 passed, 1 failed) — runner: pytest" in (result.error or "")


def real_output(command: list[str], cwd: Path) -> tuple[int, str]:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=300)
    return done.returncode, done.stdout + done.stderr


def test_summaries_of_pytest_unittest_and_node(tmp_path: Path) -> None:
    (tmp_path / "test_a.py").write_text(
        "import unittest\n\n\nclass T(unittest.TestCase):\n"
        "    def test_ok(self):\n        pass\n\n"
        "    @unittest.skip('later')\n    def test_skip(self):\n        pass\n\n"
        "    def test_bad(self):\n        self.assertEqual(1, 2)\n"
    )
    code, out = real_output([sys.executable, "-m", "pytest", "-q", "test_a.py"], tmp_path)
    counts = parse_counts(out)
    assert counts is not None and (counts.passed, counts.failed, counts.skipped) == (1, 1, 1)
    assert verdict(code, counts) == "failed"
    code, out = real_output([sys.executable, "-m", "unittest", "test_a"], tmp_path)
    counts = parse_counts(out)
    assert counts is not None and (counts.passed, counts.failed, counts.skipped) == (1, 1, 1)
    code, out = real_output([sys.executable, "-m", "pytest", "-q", "-k", "nothing"], tmp_path)
    assert verdict(code, parse_counts(out)) == "no tests ran"
    (tmp_path / "a.test.mjs").write_text(
        "import { test } from 'node:test';\ntest('one', () => {});\n"
        "test('later', { skip: true }, () => {});\n"
    )
    code, out = real_output(["node", "--test", "a.test.mjs"], tmp_path)
    counts = parse_counts(out)
    assert counts is not None and (counts.passed, counts.failed, counts.skipped) == (1, 0, 1)
    assert verdict(code, counts) == "passed"


@pytest.mark.skipif(shutil.which("cargo") is None, reason="needs cargo")
def test_summary_of_cargo_test(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "t"\nversion = "0.1.0"\n')
    (tmp_path / "src/lib.rs").write_text(
        "#[cfg(test)]\nmod tests {\n    #[test]\n    fn ok() {}\n"
        "    #[test]\n    #[ignore]\n    fn later() {}\n"
        "    #[test]\n    fn bad() { assert_eq!(1, 2); }\n}\n"
    )
    code, out = real_output(["cargo", "test", "--offline", "-q"], tmp_path)
    counts = parse_counts(out)
    assert counts is not None and (counts.passed, counts.failed, counts.skipped) == (1, 1, 1)
    assert verdict(code, counts) == "failed"
    assert [p.runner for p in detect_plans(tmp_path, ["src/lib.rs", "Cargo.toml"])] == [
        "cargo test"
    ]


def test_detection_per_ecosystem(tmp_path: Path) -> None:
    (tmp_path / "go.mod").write_text("module example.com/x\n")
    (tmp_path / "pnpm-lock.yaml").write_text("")
    (tmp_path / "package.json").write_text(json.dumps({"scripts": {"test": "mocha"}}))
    plans = detect_plans(tmp_path, ["go.mod", "x/x.go", "x/x_test.go", "package.json"])
    assert [(p.runner, p.command) for p in plans] == [
        ("pnpm test", "pnpm test"),
        ("go test", "go test -v ./..."),
    ]
    one = detect_plans(tmp_path, [], "x/x_test.go", "TestAdd")
    assert [p.command for p in one] == ["go test -v -run TestAdd ./x"]


async def test_a_filter_with_a_control_character_is_refused_by_name(mixed: Env) -> None:
    """Before, the policy refused the whole command ("control or invisible characters") and the
    model was not told that its ``filter`` was the part to fix."""
    result = await mixed.run_tests(filter="price\x1f")
    assert not result.success
    assert (result.error or "").startswith("filter 'price\\x1f' contains the control character")
