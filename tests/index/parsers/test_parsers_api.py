"""The public API: language detection, errors for unsupported paths, parse-only, result shape."""

from __future__ import annotations

import pickle
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import pytest

from ipuaro.index.parsers import (
    ParsedFile,
    UnsupportedLanguageError,
    language_for,
    parse_source,
    parse_tree_only,
)

from .support import read_fixture


@pytest.mark.parametrize(
    ("path", "language"),
    [
        ("src/app.ts", "typescript"),
        ("src/lib.mts", "typescript"),
        ("src/lib.cts", "typescript"),
        ("types/index.d.ts", "typescript"),
        ("src/App.tsx", "tsx"),
        ("src/app.js", "javascript"),
        ("src/app.mjs", "javascript"),
        ("src/app.cjs", "javascript"),
        ("src/App.jsx", "jsx"),
        ("pkg/mod.py", "python"),
        ("pkg/mod.pyi", "python"),
        ("package.json", "json"),
        ("ci.yml", "yaml"),
        ("k8s/deploy.yaml", "yaml"),
        ("SRC/APP.TS", "typescript"),
        ("C:\\repo\\src\\main.py", "python"),
    ],
)
def test_language_for_known_extensions(path: str, language: str) -> None:
    assert language_for(path) == language


@pytest.mark.parametrize(
    "path", ["README.md", "Makefile", ".ts", "src/.eslintrc", "lib/a.ts.bak", "a.rs.orig", "noext"]
)
def test_language_for_unknown_paths(path: str) -> None:
    assert language_for(path) is None


def test_unsupported_path_error_names_the_file_and_the_fix() -> None:
    with pytest.raises(UnsupportedLanguageError) as raised:
        parse_source("docs/guide.md", "# Guide")
    message = str(raised.value)
    assert "docs/guide.md" in message and ".ts" in message and "language_for" in message
    assert isinstance(raised.value, ValueError)
    with pytest.raises(UnsupportedLanguageError):
        parse_tree_only("docs/guide.md", "# Guide")


def test_parse_tree_only_accepts_every_language() -> None:
    for name in ("spans.ts", "components.tsx", "legacy.cjs", "widgets.jsx", "package.json"):
        parse_tree_only(f"src/{name}", read_fixture(name))
    parse_tree_only("src/models.py", read_fixture("models.py.txt"))
    parse_tree_only("deploy.yaml", read_fixture("deploy.yaml"))


def test_parsed_file_shape() -> None:
    parsed = parse_source("src/components.tsx", read_fixture("components.tsx"))
    assert isinstance(parsed, ParsedFile)
    assert parsed.ast.language == "tsx"
    assert parsed.nesting >= 2
    assert parsed.indexes.symbols and parsed.references() and parsed.indexes.calls


def test_result_serialises_with_camel_case_names() -> None:
    parsed = parse_source("src/module.ts", read_fixture("module.ts"))
    wire = parsed.ast.model_dump(by_alias=True)
    assert wire["imports"][0]["from"] == "ui-core"
    assert wire["imports"][0]["isDefault"] is True
    assert wire["functions"][0]["lineStart"] == 18
    assert wire["parseError"] is False


def test_parsed_file_pickles_for_a_process_pool() -> None:
    parsed = parse_source("src/spans.ts", read_fixture("spans.ts"))
    restored = pickle.loads(pickle.dumps(parsed))
    assert restored.ast == parsed.ast
    assert restored.indexes == parsed.indexes
    assert restored.nesting == parsed.nesting


def test_parses_in_worker_processes() -> None:
    text = read_fixture("models.py.txt")
    with ProcessPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(parse_source, ["pkg/a.py", "pkg/b.py"], [text, text]))
    assert [len(result.ast.classes) for result in results] == [4, 4]
    assert results[0].references()[0].path == "pkg/a.py"


def test_parses_concurrently_in_threads() -> None:
    names = ["spans.ts", "components.tsx", "legacy.cjs", "models.py.txt", "widgets.jsx"] * 4
    texts = [read_fixture(name) for name in names]
    paths = [f"src/{name.removesuffix('.txt')}" for name in names]
    expected = [parse_source(path, text).ast for path, text in zip(paths, texts, strict=True)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(parse_source, paths, texts))
    assert [result.ast for result in results] == expected


def test_importing_the_package_loads_no_grammar() -> None:
    code = (
        "import sys, ipuaro.index.parsers as p; "
        "print(sorted(m for m in sys.modules if m.startswith('tree_sitter_')))"
    )
    output = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout
    assert output.strip() == "[]"
