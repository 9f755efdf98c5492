"""Opt-in (``pytest -m corpora``): every TypeScript file the compiler accepts syntactically parses
without error here, on the pinned corpora of bench/fetch-ts-corpora.sh, with ``typescript`` from
npm as the judge (``bench/ts_syntax_judge.cjs``)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from ipuaro.index.parsers import parse_source

from .support import FIXTURES

pytestmark = pytest.mark.corpora

BENCH = Path(__file__).resolve().parents[3] / "bench"
CORPORA = ("effect", "query-core", "type-fest", "zod")


@pytest.fixture(scope="module")
def fetched() -> dict[str, Path]:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.fail("the corpora lane needs node and npm (apt-get install -y nodejs npm)")
    done = subprocess.run(
        ["bash", str(BENCH / "fetch-ts-corpora.sh")], capture_output=True, text=True, check=True
    )
    return {n: Path(r) for n, _, r in (line.partition("=") for line in done.stdout.split())}


def _judge(typescript: Path, paths: list[Path]) -> dict[str, int]:
    done = subprocess.run(
        ["node", str(BENCH / "ts_syntax_judge.cjs"), str(typescript)],
        input=json.dumps([str(path) for path in paths]),
        capture_output=True,
        text=True,
        check=True,
    )
    verdicts: dict[str, int] = json.loads(done.stdout)
    return verdicts


def test_the_modern_fixture_is_valid_typescript(fetched: dict[str, Path]) -> None:
    path = FIXTURES / "modern.ts"
    assert _judge(fetched["typescript"], [path]) == {str(path): 0}


@pytest.mark.parametrize("corpus", CORPORA)
def test_no_parse_error_where_the_compiler_accepts_the_file(
    fetched: dict[str, Path], corpus: str
) -> None:
    root = fetched[corpus]
    files = sorted(
        path
        for pattern in ("*.ts", "*.tsx", "*.mts", "*.cts")
        for path in root.rglob(pattern)
        if "node_modules" not in path.parts
    )
    assert files, f"no TypeScript files under {root}"
    verdicts = _judge(fetched["typescript"], files)
    wrong = [
        str(path.relative_to(root))
        for path in files
        if verdicts[str(path)] == 0
        and parse_source(str(path.relative_to(root)), path.read_text("utf-8")).ast.parse_error
    ]
    assert not wrong, f"{len(wrong)}/{len(files)} files tsc accepts have parse errors: {wrong[:10]}"
