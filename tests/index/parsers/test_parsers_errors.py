"""Bad and unusual input: syntax errors, truncated files, huge files, encodings, line endings."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ipuaro.index.parsers import parse_source

from .support import FIXTURES, parse_fixture, read_fixture

SOURCE_FIXTURES = sorted(
    path.name
    for path in FIXTURES.iterdir()
    if path.is_file() and path.suffix not in (".json", ".yaml")
)


def test_syntax_error_keeps_everything_outside_the_broken_region() -> None:
    ast = parse_fixture("broken.ts").ast
    assert ast.parse_error is True
    assert [(i.name, i.from_) for i in ast.imports] == [("ok", "./ok")]
    assert [(f.name, f.line_start, f.line_end) for f in ast.functions] == [("before", 3, 5)]
    (service,) = ast.classes
    assert (service.name, service.line_start, service.line_end) == ("Service", 7, 11)
    assert [(m.name, m.line_start, m.line_end) for m in service.methods] == [("run", 8, 10)]
    assert [(e.name, e.type) for e in ast.exports] == [("before", "function"), ("Service", "class")]
    assert [(t.line, t.text) for t in ast.todos] == [(18, "fix the file above")]


def test_python_syntax_error() -> None:
    text = (
        "import os\n\ndef good():\n    return 1\n\ndef bad(:\n    pass\n\nclass After:\n    x = 1\n"
    )
    ast = parse_source("pkg/broken.py", text).ast
    assert ast.parse_error is True
    assert ("good", 3, 4) in [(f.name, f.line_start, f.line_end) for f in ast.functions]
    assert [i.name for i in ast.imports] == ["os"]


@pytest.mark.parametrize("name", SOURCE_FIXTURES)
def test_truncated_and_garbled_files_never_raise(name: str) -> None:
    text = read_fixture(name)
    path = f"src/{name.removesuffix('.txt')}"
    step = max(1, len(text) // 40)
    for cut in range(0, len(text), step):
        parse_source(path, text[:cut])
        parse_source(path, text[cut:])
        parse_source(path, text[:cut] + "})]{(['\"`" + text[cut:])


def test_empty_and_whitespace_files() -> None:
    for path in ("a.ts", "a.tsx", "a.js", "a.py", "a.json", "a.yaml"):
        for text in ("", "\n\n", "   "):
            parsed = parse_source(path, text)
            assert parsed.ast.functions == [] and parsed.references() == []
            assert parsed.nesting == 0


def test_fifty_thousand_line_file() -> None:
    blocks = []
    for index in range(5_000):
        blocks.append(
            f"export function handler{index}(event: Event, count = {index}): number {{\n"
            f"  // TODO: tune handler {index}\n"
            f"  if (count > 10) {{\n"
            f"    return dispatch(event, count);\n"
            f"  }}\n"
            f"  return count;\n"
            f"}}\n"
            f"\n"
            f"export const value{index} = handler{index};\n"
            f"\n"
        )
    text = "".join(blocks)
    assert text.count("\n") == 50_000
    parsed = parse_source("src/generated.ts", text)
    ast = parsed.ast
    assert not ast.parse_error
    assert len(ast.functions) == 5_000
    last = ast.functions[-1]
    assert (last.name, last.line_start, last.line_end) == ("handler4999", 49_991, 49_997)
    assert len(ast.exports) == 10_000
    assert len(ast.todos) == 5_000
    assert len(parsed.indexes.calls) == 5_000
    assert parsed.nesting == 2
    # per block: handler, event, Event, count, count, dispatch, event, count, count, value, handler
    assert len(parsed.references()) == 5_000 * 11


def test_crlf_line_endings_keep_line_numbers() -> None:
    text = "function a() {\r\n  return 1;\r\n}\r\n\r\nfunction b() {}\r\n"
    ast = parse_source("src/crlf.js", text).ast
    assert [(f.name, f.line_start, f.line_end) for f in ast.functions] == [
        ("a", 1, 3),
        ("b", 5, 5),
    ]


def test_byte_order_mark_is_ignored() -> None:
    parsed = parse_source("src/bom.ts", "\ufeffexport function first(): void {}\n")
    assert not parsed.ast.parse_error
    assert [(e.name, e.line) for e in parsed.ast.exports] == [("first", 1)]
    first = next(r for r in parsed.references() if r.name == "first")
    assert (first.line, first.column) == (1, 18)  # columns count the BOM as in the given text


def test_non_ascii_source_columns_count_characters() -> None:
    text = 'const greeting = "héllo wörld"; const after = greeting;\nconst ключ = 1;\n'
    refs = [(r.name, r.line, r.column) for r in parse_source("src/i18n.js", text).references()]
    assert refs == [("greeting", 1, 7), ("after", 1, 39), ("greeting", 1, 47), ("ключ", 2, 7)]


def test_undecodable_surrogates_do_not_raise() -> None:
    text = b"def f():\n    return '\xff\xfe'\n".decode("utf-8", "surrogateescape")
    ast = parse_source("pkg/bytes.py", text).ast
    assert [f.name for f in ast.functions] == ["f"]


def test_todos_only_in_comments() -> None:
    ast = parse_fixture("todos.ts").ast
    assert [(t.line, t.tag, t.text) for t in ast.todos] == [
        (2, "FIXME", "the retry budget is shared by every client"),
        (3, "HACK", "keep the old header until v3"),
        (7, "TODO", "move to config"),
        (9, "XXX", "remove debug list"),
    ]


def test_todo_text_drops_the_comment_closer() -> None:
    todos = parse_source("a.ts", "/* TODO: close me */\nlet x = 1; /* FIXME */\n").ast.todos
    assert [(t.line, t.tag, t.text) for t in todos] == [(1, "TODO", "close me"), (2, "FIXME", "")]


def test_deep_namespace_nesting_is_bounded() -> None:
    from ipuaro.index.parsers._source import MAX_DEPTH

    text = "namespace a {\n" * 3000 + "}\n" * 3000
    ast = parse_source("src/deep.ts", text).ast
    assert len(ast.types) == MAX_DEPTH


def test_deep_python_nesting_is_bounded() -> None:
    text = "".join("    " * depth + "try:\n" for depth in range(1500)) + "    " * 1500 + "pass\n"
    assert parse_source("pkg/deep.py", text).ast.functions == []


def test_deeply_nested_yaml_does_not_reach_the_crashing_grammar() -> None:
    # tree-sitter-yaml 0.7.2 segfaults past ~250 nested levels (upstream issue #48); run in a
    # child process so a regression fails this test instead of killing the test session.
    code = (
        "from ipuaro.index.parsers import parse_source, parse_tree_only\n"
        "text = 'top: 1\\n' + ''.join(' ' * i + 'a:\\n' for i in range(1, 400))\n"
        "parse_tree_only('deep.yaml', text)\n"
        "ast = parse_source('deep.yaml', text).ast\n"
        "print(ast.keys, ast.parse_error)\n"
        "print(parse_source('seq.yaml', '- ' * 3000 + 'x\\n').ast.keys)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["['top'] True", "[]"]


def test_yaml_longer_than_the_grammar_can_count_is_read_line_by_line() -> None:
    lines = ["# TODO: split this file", '"quoted key": 1', "'single': 2", "list:", "  - item"]
    lines += [f"key{index}: {index}" for index in range(40_000)]
    ast = parse_source("rules.yml", "\n".join(lines) + "\n").ast
    assert ast.parse_error is True
    assert ast.keys[:5] == ["quoted key", "single", "list", "key0", "key1"]
    assert len(ast.keys) == 40_003
    assert [(t.line, t.text) for t in ast.todos] == [(1, "split this file")]
